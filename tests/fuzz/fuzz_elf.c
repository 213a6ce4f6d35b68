/* fuzz_elf.c — the ELF loader and the section readers behind it.
 *
 * Input: an ELF file (any class, byte order, machine).  image_load_elf() must load it or refuse
 * it with a message naming the file; a loaded image then goes through every lookup the
 * simulator makes (symbols by address and name, sections, load addresses, descriptions), through
 * the patch validator's section readers (__mcount_loc, __patchable_function_entries,
 * __jump_table, __ftr_fixup: patchcheck_init against a machine of the image's architecture,
 * with the image's segments copied into its RAM as mach_create does) and the --guest-trace
 * symbol check.  The same bytes are also loaded as a raw image, and as a kernel file
 * (image_load_kernel: an ELF, or a Linux arm64 Image, plain or gzip'd: base/linux_image.c).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "tracer/guesttrace.h"

/* One machine per architecture, without an image: the RAM the sections' sites must be in. */
static Machine machines[ARCH_COUNT];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    for (int a = 0; a < ARCH_COUNT; a++) {
        MachineConfig cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.arch = (Arch)a;
        Error err = { { 0 } };
        if (!mach_create(&machines[a], &cfg, &err))
            fz_fail("cannot create the %s machine: %s", isa_name((Arch)a), err.msg);
    }
    return 0;
}

static void refused(const char *what, const char *path, const Error *err)
{
    if (!err->msg[0])
        fz_fail("%s refused %s without a message", what, path);
    fz_note("%s: %s", what, err->msg);
    if (!strstr(err->msg, path))
        fz_fail("%s: the message does not name the file: %s", what, err->msg);
}

static void lookups(const Image *im)
{
    char buf[128];
    uint64_t off, addr;
    for (int i = 0; i < im->nsyms; i++) {
        const Symbol *s = &im->syms[i];
        image_symbol_at(im, s->addr, &off);
        image_symbol_at(im, s->addr + s->size, &off);
        image_describe(im, s->addr + 1, buf, sizeof buf);
        if (!image_symbol_addr(im, s->name, &addr))
            fz_fail("symbol %s is in the table but not found by name", s->name);
    }
    static const char *const names[] = { "__mcount_loc", "__jump_table", "__ftr_fixup",
                                         "__patchable_function_entries", ".text", "" };
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        image_section(im, names[i]);
    for (int i = 0; i < im->nsegs; i++) {
        image_load_addr(im, im->segs[i].vaddr);
        image_describe(im, im->segs[i].vaddr, buf, sizeof buf);
    }
    image_load_addr(im, im->entry);
    image_describe(im, im->entry, buf, sizeof buf);
    image_describe(im, 0, buf, sizeof buf);
    image_describe(im, UINT64_MAX, buf, sizeof buf);
}

/* The validator's tables, read against RAM holding the image (as mach_create leaves it). */
static void section_readers(Image *im)
{
    if (im->arch < 0 || im->arch >= ARCH_COUNT)
        fz_fail("image_load_elf accepted an image of architecture %d", (int)im->arch);
    Machine *m = &machines[im->arch];
    bool *copied = calloc((size_t)im->nsegs + 1, sizeof *copied);
    for (int i = 0; i < im->nsegs; i++) {
        const Segment *s = &im->segs[i];
        if (s->offset > im->size || s->filesz > im->size - s->offset)
            fz_fail("segment %d: file bytes 0x%" PRIx64 "+0x%" PRIx64 " outside the %zu-byte file", i, s->offset,
                    s->filesz, im->size);
        if (s->filesz > s->memsz)
            fz_fail("segment %d: filesz 0x%" PRIx64 " > memsz 0x%" PRIx64, i, s->filesz, s->memsz);
        uint8_t *dst = mem_ptr(&m->mem, s->paddr, s->filesz);
        if (dst && s->filesz <= 0x400000) {
            memcpy(dst, im->data + s->offset, s->filesz);
            copied[i] = true;
        }
    }
    int listeners = m->cl.cw.nlisteners;
    PatchCheck pc;
    Error err = { { 0 } };
    if (!patchcheck_init(&pc, &m->cl, im, &err)) {
        if (!err.msg[0])
            fz_fail("patchcheck_init refused %s without a message", im->path);
        fz_note("patchcheck_init: %s", err.msg);
    } else {
        fz_note("patchcheck_init: %d sites", pc.n);
    }
    patchcheck_destroy(&pc);
    m->cl.cw.nlisteners = listeners;
    for (int i = 0; i < im->nsegs; i++)
        if (copied[i])
            memset(mem_ptr(&m->mem, im->segs[i].paddr, im->segs[i].filesz), 0, im->segs[i].filesz);
    free(copied);

    Error gerr = { { 0 } };
    if (!guesttrace_check(im, &gerr) && !gerr.msg[0])
        fz_fail("guesttrace_check refused %s without a message", im->path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_file("input.elf", data, size);
    Image im;
    Error err = { { 0 } };
    memset(&im, 0, sizeof im);
    if (image_load_elf(&im, path, &err)) {
        lookups(&im);
        section_readers(&im);
    } else {
        refused("image_load_elf", path, &err);
    }
    image_free(&im);

    /* the same bytes as --kernel takes them: an ELF, or a Linux Image (its header, gzip) */
    memset(&im, 0, sizeof im);
    err.msg[0] = 0;
    if (image_load_kernel(&im, path, &err)) {
        if (im.linux_image && (im.nsegs != 1 || im.segs[0].filesz != im.size || im.segs[0].memsz < im.size))
            fz_fail("a Linux image's segment does not hold its %zu bytes", im.size);
        lookups(&im);
    } else {
        refused("image_load_kernel", path, &err);
    }
    image_free(&im);

    /* the same bytes as a raw image (--arch, --load-addr, --entry) */
    Arch arch = size ? (Arch)(data[0] % 3) : ARCH_X86_64;
    uint64_t load = size > 8 ? load_le(data + 1, 8) : 0x100000;
    memset(&im, 0, sizeof im);
    err.msg[0] = 0;
    if (image_load_raw(&im, path, arch, load, load + size / 2, &err))
        lookups(&im);
    else
        refused("image_load_raw", path, &err);
    image_free(&im);
    return 0;
}
