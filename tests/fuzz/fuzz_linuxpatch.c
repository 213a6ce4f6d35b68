/* fuzz_linuxpatch.c — the patch tables of an arm64 Linux Image (tracer/linuxpatch.c).
 *
 * Input: LXB_NSYMS little-endian u16s, each the offset into the body of one of the symbols
 * lxbuild.h names (0xffff: the image lacks it), then the body: an Image linked at LXB_LINK
 * (at most 64 KiB).  The body goes into the arm64 board's RAM as mach_create places an Image,
 * the symbols become its kallsyms, and patchcheck_init must read every table or refuse it with
 * a message naming the file; the summary is printed (to /dev/null) either way.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lxbuild.h"
#include "tracer/patchcheck.h"

enum { BODY_MAX = 0x10000, SYM_ABSENT = 0xffff };

static Machine machine;
static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    MachineConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.arch = ARCH_ARM64;
    Error err = { { 0 } };
    if (!mach_create(&machine, &cfg, &err))
        fz_fail("cannot create the arm64 machine: %s", err.msg);
    sink = fopen("/dev/null", "w");
    return 0;
}

static int sym_cmp(const void *a, const void *b)
{
    const Symbol *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The image the input describes; false if it is too short or too long to be one. */
static bool input_image(Image *im, const uint8_t *data, size_t size, uint64_t base)
{
    size_t head = 2 * LXB_NSYMS;
    if (size <= head || size - head > BODY_MAX)
        return false;
    memset(im, 0, sizeof *im);
    im->path = xstrdup(fz_file("input.img", data + head, size - head));
    im->arch = ARCH_ARM64;
    im->is64 = im->raw = true;
    im->size = size - head;
    im->data = xcalloc(1, im->size);
    memcpy(im->data, data + head, im->size);
    im->segs = xcalloc(1, sizeof *im->segs);
    im->segs[0] = (Segment){ base, LXB_LINK, 0, im->size, im->size, PF_R | PF_W | PF_X };
    im->nsegs = 1;
    im->syms = xcalloc(LXB_NSYMS, sizeof *im->syms);
    for (unsigned i = 0; i < LXB_NSYMS; i++) {
        unsigned off = load_le(data + 2 * i, 2);
        if (off != SYM_ABSENT)
            im->syms[im->nsyms++] = (Symbol){ .addr = LXB_LINK + off, .name = lxb_syms[i].name, .type = 'T' };
    }
    qsort(im->syms, (size_t)im->nsyms, sizeof *im->syms, sym_cmp);
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t base = fz_image_base(ARCH_ARM64);
    Image im;
    if (!input_image(&im, data, size, base))
        return 0;
    uint8_t *ram = mem_ptr(&machine.mem, base, im.size);
    if (!ram)
        fz_fail("the arm64 board has no 0x%zx bytes of RAM at 0x%" PRIx64, im.size, base);
    memcpy(ram, im.data, im.size);
    int listeners = machine.cl.cw.nlisteners;
    PatchCheck pc;
    Error err = { { 0 } };
    if (patchcheck_init(&pc, &machine.cl, &im, &err)) {
        fz_note("patchcheck_init: %d sites", pc.n);
        patchcheck_finish(&pc);
        patchcheck_report(&pc, sink);
    } else if (!err.msg[0] || !strstr(err.msg, im.path)) {
        fz_fail("patchcheck_init refused the image without a message naming it: %s", err.msg);
    } else {
        fz_note("patchcheck_init: %s", err.msg);
    }
    patchcheck_destroy(&pc);
    machine.cl.cw.nlisteners = listeners;
    memset(ram, 0, im.size);
    image_free(&im);
    return 0;
}
