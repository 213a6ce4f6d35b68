/* rg_common.c — the random-guest image buffer, the manifest and the weighted PRNG draw. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg.h"

const char *const rg_class_names[RG_NCLASSES] = {
    "alu", "addr", "load", "store", "atomic", "branch", "system", "sysreg", "exception", "fp", "device",
    "pad", "random",
};

unsigned rng_weighted(Rng *r, const unsigned *weights, unsigned n)
{
    unsigned total = 0;
    for (unsigned i = 0; i < n; i++)
        total += weights[i];
    unsigned x = rng_below(r, total);
    for (unsigned i = 0; i < n; i++) {
        if (x < weights[i])
            return i;
        x -= weights[i];
    }
    return n - 1;
}

void rg_image_init(RgImage *img, uint64_t base, uint32_t size, bool big_endian, bool manifest)
{
    memset(img, 0, sizeof *img);
    img->buf = calloc(1, size);
    if (!img->buf) {
        perror("randguest");
        exit(2);
    }
    img->size = size;
    img->base = base;
    img->big_endian = big_endian;
    img->manifest = manifest;
}

void rg_image_free(RgImage *img)
{
    free(img->buf);
    free(img->insns);
    memset(img, 0, sizeof *img);
}

static void note(RgImage *img, uint32_t off, unsigned len, RgClass cls, const char *mn)
{
    img->count[cls]++;
    if (!img->manifest || !mn)
        return;
    if (img->ninsns == img->cap) {
        img->cap = img->cap ? 2 * img->cap : 1024;
        img->insns = realloc(img->insns, img->cap * sizeof *img->insns);
        if (!img->insns) {
            perror("randguest");
            exit(2);
        }
    }
    img->insns[img->ninsns++] = (RgInsn){ off, (uint8_t)len, (uint8_t)cls, mn };
}

/* The generators check room before emitting; running past the image is a generator bug. */
static void check_room(RgImage *img, uint32_t off, unsigned len)
{
    if (off > img->size || len > img->size - off) {
        fprintf(stderr, "randguest: internal error: emit of %u bytes at 0x%x past the image (0x%x)\n", len, off,
                img->size);
        exit(2);
    }
}

void rg_emit_bytes(RgImage *img, const uint8_t *b, unsigned len, RgClass cls, const char *mn)
{
    check_room(img, img->pos, len);
    memcpy(img->buf + img->pos, b, len);
    note(img, img->pos, len, cls, mn);
    img->pos += len;
}

void rg_emit32(RgImage *img, uint32_t w, RgClass cls, const char *mn)
{
    check_room(img, img->pos, 4);
    if (img->big_endian)
        rg_put_be(img, img->pos, w, 4);
    else
        rg_put_le(img, img->pos, w, 4);
    note(img, img->pos, 4, cls, mn);
    img->pos += 4;
}

void rg_put(RgImage *img, uint32_t off, const void *b, unsigned len)
{
    check_room(img, off, len);
    memcpy(img->buf + off, b, len);
}

void rg_put_le(RgImage *img, uint32_t off, uint64_t v, unsigned len)
{
    check_room(img, off, len);
    for (unsigned i = 0; i < len; i++)
        img->buf[off + i] = (uint8_t)(v >> (8 * i));
}

void rg_put_be(RgImage *img, uint32_t off, uint64_t v, unsigned len)
{
    check_room(img, off, len);
    for (unsigned i = 0; i < len; i++)
        img->buf[off + i] = (uint8_t)(v >> (8 * (len - 1 - i)));
}

void rg_patch32(RgImage *img, uint32_t off, uint32_t w)
{
    if (img->big_endian)
        rg_put_be(img, off, w, 4);
    else
        rg_put_le(img, off, w, 4);
}

const RgArch *rg_arch_find(const char *name)
{
    static const RgArch *const all[] = { &rg_arch_x86_64, &rg_arch_arm64, &rg_arch_ppc32 };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (!strcmp(all[i]->name, name))
            return all[i];
    return NULL;
}

void rg_generate(const RgArch *a, uint64_t seed, const RgOptions *o, bool manifest, RgImage *img)
{
    rg_image_init(img, a->load, a->size, a->big_endian, manifest);
    /* Mix the architecture into the seed so seed N differs between architectures. */
    Rng r = { seed * 0x2545F4914F6CDD1Dull ^ (uint64_t)a->load ^ (uint64_t)(a->big_endian ? 0xbe : 0) };
    rng_next(&r);
    a->generate(&r, img, o);
}
