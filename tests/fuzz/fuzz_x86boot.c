/* fuzz_x86boot.c — the x86 boot protocols (base/bzimage.h, base/multiboot.h): the bzImage setup
 * header and the zero page built from it, the multiboot header and its a.out kludge, the e820
 * map and the multiboot information, then the whole machine taking the file as --kernel.
 *
 * Input: a kernel file.  bzimage_header() and multiboot_header() must accept it or refuse it with
 * a message naming the file; what they accept must describe bytes of the file (the protected-mode
 * kernel, the a.out load), and the zero page built from an accepted header must hold the header
 * up to its end and the loader's fields.  The input's first bytes, read as (address, size) pairs,
 * are also RAM and reserved ranges for e820_build, whose map must be sorted, disjoint, of the two
 * types, and covered by its inputs.  Last, mach_create() on the built-in x86_64 board with 4 MiB
 * of RAM, the input as --kernel (image_load_kernel: an ELF, a bzImage, a multiboot image) with a
 * command line and an initrd: placement, the zero page or the multiboot information in RAM; it
 * must succeed or refuse with a message.
 * An accepted bzImage's compressed payload (base/bzpayload.h) is unpacked (gzip, zstd, xz, lzma;
 * bounded) or refused naming the file; what comes out is checked as the ELF vmlinux it should
 * be, and its kallsyms tables read (base/kallsyms.h), as the loader does.
 */
#include <stdlib.h>
#include <string.h>

#include "base/bzimage.h"
#include "base/bzpayload.h"
#include "base/kallsyms.h"
#include "base/multiboot.h"
#include "fuzz.h"

#define MAX_RANGES 8u
#define FUZZ_RAM (4ull << 20)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    return 0;
}

static void named(const char *what, const char *path, const Error *err)
{
    fz_note("%s: %s", what, err->msg);
    if (!err->msg[0] || !strstr(err->msg, path))
        fz_fail("%s refused %s without naming it: '%s'", what, path, err->msg);
}

/* The payload of an accepted header: unpacked, its ELF and kallsyms read. */
static void payload(const uint8_t *data, size_t size, const BzHeader *h, const char *path)
{
    uint8_t *elf = NULL;
    size_t len = 0;
    Error err = { { 0 } };
    if (!bzpayload_unpack(data, size, h, path, &elf, &len, &err)) {
        named("bzpayload_unpack", path, &err);
        return;
    }
    if (len > BZ_PAYLOAD_MAX)
        fz_fail("bzpayload_unpack gave %zu bytes, more than its bound", len);
    KSymTable t;
    if (!bzpayload_check_elf(elf, len, path, &err)) {
        named("bzpayload_check_elf", path, &err);
    } else {
        const uint8_t *p = bzpayload_elf_bytes(elf, len, 0xffffffff81000000ull, 16);
        if (p && (p < elf || p + 16 > elf + len))
            fz_fail("bzpayload_elf_bytes points outside the ELF");
        if (ksyms_find(&t, elf, len, true, false, path, &err))
            ksyms_free(&t);
        else
            named("ksyms_find", path, &err);
    }
    free(elf);
}

static void bzimage(const uint8_t *data, size_t size, const char *path)
{
    BzHeader h;
    Error err = { { 0 } };
    if (!bzimage_header(data, size, path, &h, &err)) {
        named("bzimage_header", path, &err);
        return;
    }
    if (h.pm_offset > size || h.pm_size > size - h.pm_offset || !h.pm_size || h.init_size < h.pm_size ||
        h.hdr_end > 0x290 || h.hdr_end > size)
        fz_fail("bzimage_header accepted a kernel outside the file: 0x%zx+0x%zx of %zu, header to 0x%zx", h.pm_offset,
                h.pm_size, size, h.hdr_end);
    static uint8_t zp[BZ_ZERO_PAGE_SIZE];
    E820Entry map[2] = { { 0, 0x9fc00, E820_RAM }, { 0x100000, 0x7f00000, E820_RAM } };
    BzBoot b = { h.pref_address, 0x21000, 0x4000000, size, map, 2 };
    bzimage_zero_page(zp, data, &h, &b);
    if (memcmp(zp + 0x1f1, data + 0x1f1, 0x1fa - 0x1f1) || zp[0x210] != BZ_LOADER_ID || zp[0x1e8] != 2)
        fz_fail("the zero page does not hold the header and the loader's fields");
    payload(data, size, &h, path);
}

static void multiboot(const uint8_t *data, size_t size, const char *path)
{
    MbHeader h;
    Error err = { { 0 } };
    if (!multiboot_header(data, size, path, &h, &err)) {
        named("multiboot_header", path, &err);
        return;
    }
    if (!(h.flags & MB_FLAG_AOUT))
        return;
    MbLoad ld;
    if (!multiboot_aout_load(&h, size, path, &ld, &err)) {
        named("multiboot_aout_load", path, &err);
        return;
    }
    if (ld.file_offset > size || ld.filesz > size - ld.file_offset || ld.memsz < ld.filesz)
        fz_fail("multiboot_aout_load accepted 0x%" PRIx64 "+0x%" PRIx64 " (memsz 0x%" PRIx64 ") of a %zu-byte file",
                ld.file_offset, ld.filesz, ld.memsz, size);
}

/* Ranges from the input: n pairs of little-endian u64 (address, size). */
static unsigned ranges(const uint8_t *data, size_t size, size_t at, unsigned n, uint32_t type, E820Entry *r)
{
    unsigned k = 0;
    for (; k < n && at + 16 * (k + 1) <= size; k++)
        r[k] = (E820Entry){ load_le(data + at + 16 * k, 8), load_le(data + at + 16 * k + 8, 8), type };
    return k;
}

static bool in_any(const E820Entry *r, unsigned n, uint64_t a)
{
    for (unsigned i = 0; i < n; i++)
        if (a - r[i].addr < r[i].size)
            return true;
    return false;
}

static void e820(const uint8_t *data, size_t size)
{
    E820Entry ram[MAX_RANGES], resv[MAX_RANGES], out[2 * 2 * MAX_RANGES];
    unsigned nram = ranges(data, size, 0, size ? data[0] % MAX_RANGES : 0, E820_RAM, ram);
    unsigned nresv = ranges(data, size, 16 * nram, MAX_RANGES, E820_RESERVED, resv), n;
    Error err = { { 0 } };
    if (!e820_build(ram, nram, resv, nresv, out, ARRAY_SIZE(out), &n, &err))
        fz_fail("e820_build: %s (room for every boundary)", err.msg);
    for (unsigned i = 0; i < n; i++) {
        const E820Entry *e = &out[i];
        if (!e->size || (e->type != E820_RAM && e->type != E820_RESERVED))
            fz_fail("e820 entry %u: empty or of type %u", i, e->type);
        if (i && out[i - 1].addr + out[i - 1].size > e->addr)
            fz_fail("e820 entries %u and %u overlap or are out of order", i - 1, i);
        if (!in_any(e->type == E820_RAM ? ram : resv, e->type == E820_RAM ? nram : nresv, e->addr) ||
            (e->type == E820_RAM && in_any(resv, nresv, e->addr)))
            fz_fail("e820 entry %u (0x%" PRIx64 ", type %u) is not what its inputs say", i, e->addr, e->type);
    }
    static uint8_t info[MB_INFO_SIZE], mmap[MB_MMAP_ENTRY_SIZE * ARRAY_SIZE(out)];
    MbBoot mb = { out, n, 0x20100, 0x21000, 0x20e00, 0x20f00, 1 };
    if (multiboot_mmap(mmap, out, n) != MB_MMAP_ENTRY_SIZE * n)
        fz_fail("multiboot_mmap: wrong length");
    multiboot_info(info, &mb);
}

static void machine(const char *path)
{
    static const char initrd[] = "an initrd";
    MachineConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.kernel = path;
    cfg.bootargs = "console=ttyS0 root=/dev/ram0";
    cfg.mem_size = FUZZ_RAM;
    cfg.initrd_file = fz_file("initrd", initrd, sizeof initrd);
    Machine *m = calloc(1, sizeof *m);
    Error err = { { 0 } };
    if (mach_create(m, &cfg, &err))
        fz_note("mach_create: a machine, entry 0x%" PRIx64, m->image.entry);
    else if (!err.msg[0])
        fz_fail("mach_create refused %s without a message", path);
    else
        fz_note("mach_create: %s", err.msg);
    mach_destroy(m);
    free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_file("kernel", data, size);
    bzimage(data, size, path);
    multiboot(data, size, path);
    e820(data, size);
    machine(path);
    return 0;
}
