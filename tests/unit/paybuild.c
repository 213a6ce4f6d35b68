/* paybuild.c — synthetic bzImage payloads (see paybuild.h). */
#include "paybuild.h"

#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "base/bzimage.h"
#include "ksbuild.h"

#define PAY_ZSTD_LEVEL 3
#define PAY_GZIP_WINDOW (15 + 16)        /* zlib: a 32 KiB window and a gzip wrapper */
#define PAY_GZIP_MEMLEVEL 8
#define PAY_TEXT 0xffffffff81000000ull
#define PAY_PERCPU 4
#define PAY_NAME 16

static size_t gzip(const uint8_t *in, size_t n, uint8_t *dst, size_t cap)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, PAY_GZIP_WINDOW, PAY_GZIP_MEMLEVEL, Z_DEFAULT_STRATEGY))
        return 0;
    z.next_in = (Bytef *)in, z.avail_in = (uInt)n, z.next_out = dst, z.avail_out = (uInt)cap;
    size_t len = deflate(&z, Z_FINISH) == Z_STREAM_END ? z.total_out : 0;
    deflateEnd(&z);
    return len;
}

/* The "lzma alone" format of `lzma` (and the kernel's CONFIG_KERNEL_LZMA). */
static size_t lzma_alone(const uint8_t *in, size_t n, uint8_t *dst, size_t cap)
{
    lzma_options_lzma opt;
    lzma_stream s = LZMA_STREAM_INIT;
    if (lzma_lzma_preset(&opt, 0) || lzma_alone_encoder(&s, &opt) != LZMA_OK)
        return 0;
    s.next_in = in, s.avail_in = n, s.next_out = dst, s.avail_out = cap;
    size_t len = lzma_code(&s, LZMA_FINISH) == LZMA_STREAM_END ? cap - s.avail_out : 0;
    lzma_end(&s);
    return len;
}

size_t pay_compress(const char *kind, const uint8_t *in, size_t n, uint8_t *dst, size_t cap)
{
    size_t len = 0;
    if (!strcmp(kind, "zstd")) {    /* with its checksum, as the zstd tool writes by default */
        ZSTD_CCtx *c = ZSTD_createCCtx();
        ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, PAY_ZSTD_LEVEL);
        ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
        len = ZSTD_compress2(c, dst, cap, in, n);
        ZSTD_freeCCtx(c);
        return ZSTD_isError(len) ? 0 : len;
    }
    if (!strcmp(kind, "gzip"))
        return gzip(in, n, dst, cap);
    if (!strcmp(kind, "xz"))        /* scripts/xz_wrap.sh: --check=crc32 */
        return lzma_easy_buffer_encode(0, LZMA_CHECK_CRC32, NULL, in, n, dst, &len, cap) == LZMA_OK ? len : 0;
    return lzma_alone(in, n, dst, cap);
}

uint8_t *pay_bzimage(const uint8_t *bz, size_t pm_off, size_t pm_size, const char *kind, const uint8_t *in, size_t n,
                     size_t *len)
{
    size_t head = pm_off + pm_size, cap = n + n / 2 + 4096;
    uint8_t *img = xcalloc(1, head + cap);
    memcpy(img, bz, head);
    size_t plen = pay_compress(kind, in, n, img + head, cap);
    if (!plen) {
        free(img);
        return NULL;
    }
    store_le(img + 0x1f4, 4, (pm_size + plen + 15) / 16);     /* syssize, in paragraphs */
    store_le(img + BZ_PAYLOAD_OFFSET, 4, pm_size);
    store_le(img + BZ_PAYLOAD_LENGTH, 4, plen);
    *len = pm_off + (pm_size + plen + 15) / 16 * 16;
    return img;
}

uint8_t *pay_vmlinux(const uint8_t *elf, size_t elen, int nsyms, size_t *len)
{
    char (*names)[PAY_NAME] = xcalloc((size_t)nsyms, PAY_NAME);
    KsbSym *syms = xcalloc((size_t)nsyms, sizeof *syms);
    for (int i = 0; i < nsyms; i++) {
        snprintf(names[i], PAY_NAME, i == PAY_PERCPU ? "_text" : "sym_%d", i);
        syms[i] = (KsbSym){ i < PAY_PERCPU ? 0x100u * i : PAY_TEXT + 0x10u * (i - PAY_PERCPU),
                            i < PAY_PERCPU ? 'A' : "TtDd"[i % 4], names[i] };
    }
    KsbOptions o = { true, false, false, true, 0 };
    size_t tlen, off = (elen + 7) & ~(size_t)7;
    KSymLayout at;
    uint8_t *tab = ksb_build(syms, (size_t)nsyms, PAY_TEXT, &o, &tlen, &at);
    uint8_t *v = xcalloc(1, off + tlen);
    memcpy(v, elf, elen);
    memcpy(v + off, tab, tlen);
    free(tab);
    free(syms);
    free(names);
    *len = off + tlen;
    return v;
}
