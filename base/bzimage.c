/* bzimage.c — the Linux/x86 boot protocol's setup header, zero page and e820 map (see bzimage.h). */
#include "base/bzimage.h"

#include <stdlib.h>
#include <string.h>

/* Setup header offsets (boot.rst, "The real-mode kernel header"). */
enum {
    HDR_SETUP_SECTS = 0x1f1, HDR_SYSSIZE = 0x1f4, HDR_VID_MODE = 0x1fa, HDR_BOOT_FLAG = 0x1fe,
    HDR_JUMP_LEN = 0x201, HDR_MAGIC = 0x202, HDR_VERSION = 0x206, HDR_TYPE_OF_LOADER = 0x210,
    HDR_LOADFLAGS = 0x211, HDR_CODE32_START = 0x214, HDR_RAMDISK_IMAGE = 0x218, HDR_RAMDISK_SIZE = 0x21c,
    HDR_CMD_LINE_PTR = 0x228, HDR_INITRD_ADDR_MAX = 0x22c, HDR_KERNEL_ALIGNMENT = 0x230,
    HDR_RELOCATABLE = 0x234, HDR_XLOADFLAGS = 0x236, HDR_CMDLINE_SIZE = 0x238, HDR_PREF_ADDRESS = 0x258,
    HDR_INIT_SIZE = 0x260,
};
/* The zero page beyond the header (zero-page.rst). */
enum {
    ZP_EXT_RAMDISK_IMAGE = 0x0c0, ZP_EXT_RAMDISK_SIZE = 0x0c4, ZP_EXT_CMD_LINE_PTR = 0x0c8,
    ZP_E820_ENTRIES = 0x1e8, ZP_HDR_LIMIT = 0x290, ZP_E820_TABLE = 0x2d0, ZP_E820_ENTRY_SIZE = 20,
};
#define BOOT_FLAG 0xaa55u
#define HDRS_MAGIC 0x53726448u           /* "HdrS" */
#define DEFAULT_SETUP_SECTS 4u           /* boot.rst note (1): 0 means 4 */
#define PARAGRAPH 16u                    /* syssize's unit */
#define VID_MODE_NORMAL 0xffffu          /* boot.rst, vid_mode: "normal" */
enum { LOADED_HIGH = 1u << 0, XLF_KERNEL_64 = 1u << 0 };

bool bzimage_is(const uint8_t *data, size_t size)
{
    return size >= HDR_MAGIC + 4 && load_le(data + HDR_BOOT_FLAG, 2) == BOOT_FLAG &&
           load_le(data + HDR_MAGIC, 4) == HDRS_MAGIC;
}

static void read_fields(const uint8_t *d, BzHeader *h)
{
    h->setup_sects = d[HDR_SETUP_SECTS] ? d[HDR_SETUP_SECTS] : DEFAULT_SETUP_SECTS;
    h->syssize = (uint32_t)load_le(d + HDR_SYSSIZE, 4);
    h->version = (uint16_t)load_le(d + HDR_VERSION, 2);
    h->loadflags = d[HDR_LOADFLAGS];
    h->initrd_addr_max = (uint32_t)load_le(d + HDR_INITRD_ADDR_MAX, 4);
    h->kernel_alignment = (uint32_t)load_le(d + HDR_KERNEL_ALIGNMENT, 4);
    h->relocatable = d[HDR_RELOCATABLE];
    h->xloadflags = (uint16_t)load_le(d + HDR_XLOADFLAGS, 2);
    h->cmdline_size = (uint32_t)load_le(d + HDR_CMDLINE_SIZE, 4);
    h->pref_address = load_le(d + HDR_PREF_ADDRESS, 8);
    h->init_size = (uint32_t)load_le(d + HDR_INIT_SIZE, 4);
    h->payload_offset = (uint32_t)load_le(d + BZ_PAYLOAD_OFFSET, 4);
    h->payload_length = (uint32_t)load_le(d + BZ_PAYLOAD_LENGTH, 4);
    h->hdr_end = HDR_MAGIC + (size_t)d[HDR_JUMP_LEN];
    h->pm_offset = (size_t)(h->setup_sects + 1) * BZ_SECTOR;
    h->pm_size = (size_t)h->syssize * PARAGRAPH;
}

/* The version and the flags that say a 64-bit bzImage. */
static bool check_kind(const BzHeader *h, const char *path, Error *err)
{
    if (h->version < BZ_MIN_VERSION)
        return err_set(err, "%s: offset 0x%x: boot protocol version %u.%02u; pmusim enters through the 64-bit entry, "
                       "which a kernel announces in xloadflags from version 2.12 on", path, HDR_VERSION,
                       h->version >> 8, h->version & 0xff);
    if (!(h->xloadflags & XLF_KERNEL_64))
        return err_set(err, "%s: offset 0x%x: xloadflags 0x%x lack XLF_KERNEL_64: not a 64-bit kernel (pmusim's "
                       "x86 board boots x86-64 kernels only)", path, HDR_XLOADFLAGS, h->xloadflags);
    if (!(h->loadflags & LOADED_HIGH))
        return err_set(err, "%s: offset 0x%x: loadflags 0x%x lack LOADED_HIGH: a zImage, loaded at 0x10000, not a "
                       "bzImage", path, HDR_LOADFLAGS, h->loadflags);
    return true;
}

/* The sizes and where things are. */
static bool check_layout(const BzHeader *h, size_t size, const char *path, Error *err)
{
    if (h->hdr_end > ZP_HDR_LIMIT || h->hdr_end > size)
        return err_set(err, "%s: offset 0x%x: the setup header would end at 0x%zx, past %s", path, HDR_JUMP_LEN,
                       h->hdr_end, h->hdr_end > ZP_HDR_LIMIT ? "its room in the zero page (0x290)" : "the file");
    if (h->pm_offset >= size)
        return err_set(err, "%s: offset 0x%x: setup_sects %u put the protected-mode kernel at 0x%zx, past the end of "
                       "the %zu-byte file", path, HDR_SETUP_SECTS, h->setup_sects, h->pm_offset, size);
    if (!h->pm_size || h->pm_size > size - h->pm_offset)
        return err_set(err, "%s: offset 0x%x: syssize 0x%x says 0x%zx bytes of protected-mode kernel; the file has "
                       "0x%zx after the setup code", path, HDR_SYSSIZE, h->syssize, h->pm_size, size - h->pm_offset);
    if (h->init_size < h->pm_size)
        return err_set(err, "%s: offset 0x%x: init_size 0x%x is smaller than the protected-mode kernel (0x%zx bytes)",
                       path, HDR_INIT_SIZE, h->init_size, h->pm_size);
    uint32_t a = h->kernel_alignment;
    if (!a || (a & (a - 1)))
        return err_set(err, "%s: offset 0x%x: kernel_alignment 0x%x is not a power of two", path,
                       HDR_KERNEL_ALIGNMENT, a);
    return true;
}

bool bzimage_header(const uint8_t *data, size_t size, const char *path, BzHeader *h, Error *err)
{
    memset(h, 0, sizeof *h);
    if (size < HDR_INIT_SIZE + 4)
        return err_set(err, "%s: %zu bytes, shorter than a bzImage's setup header (0x%x bytes)", path, size,
                       HDR_INIT_SIZE + 4);
    if (!bzimage_is(data, size))
        return err_set(err, "%s: offset 0x%x: no \"HdrS\" (with boot_flag 0xAA55 at 0x%x): not a bzImage", path,
                       HDR_MAGIC, HDR_BOOT_FLAG);
    read_fields(data, h);
    return check_kind(h, path, err) && check_layout(h, size, path, err);
}

/* A 64-bit address split over a 32-bit header field and its ext_ field (bits 63:32). */
static void store_split(uint8_t *zp, unsigned lo_off, unsigned hi_off, uint64_t v)
{
    store_le(zp + lo_off, 4, (uint32_t)v);
    store_le(zp + hi_off, 4, v >> 32);
}

void bzimage_zero_page(uint8_t zp[BZ_ZERO_PAGE_SIZE], const uint8_t *data, const BzHeader *h, const BzBoot *b)
{
    memset(zp, 0, BZ_ZERO_PAGE_SIZE);
    memcpy(zp + HDR_SETUP_SECTS, data + HDR_SETUP_SECTS, h->hdr_end - HDR_SETUP_SECTS);
    zp[HDR_TYPE_OF_LOADER] = BZ_LOADER_ID;
    store_le(zp + HDR_VID_MODE, 2, VID_MODE_NORMAL);
    /* "After loading, the boot loader must set the code32_start field to point to the loaded
     * code" (boot.rst, relocatable_kernel); the 64-bit entry does not read it. */
    store_le(zp + HDR_CODE32_START, 4, (uint32_t)b->load_addr);
    store_split(zp, HDR_CMD_LINE_PTR, ZP_EXT_CMD_LINE_PTR, b->cmdline_addr);
    store_split(zp, HDR_RAMDISK_IMAGE, ZP_EXT_RAMDISK_IMAGE, b->initrd_addr);
    store_split(zp, HDR_RAMDISK_SIZE, ZP_EXT_RAMDISK_SIZE, b->initrd_size);
    unsigned n = b->ne820 < BZ_E820_MAX ? b->ne820 : BZ_E820_MAX;
    zp[ZP_E820_ENTRIES] = (uint8_t)n;
    for (unsigned i = 0; i < n; i++) {
        uint8_t *e = zp + ZP_E820_TABLE + ZP_E820_ENTRY_SIZE * i;
        store_le(e, 8, b->e820[i].addr);
        store_le(e + 8, 8, b->e820[i].size);
        store_le(e + 16, 4, b->e820[i].type);
    }
}

/* ------------------------------------------------------------------ e820 */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static bool covered(const E820Entry *r, unsigned n, uint64_t a)
{
    for (unsigned i = 0; i < n; i++)
        if (a - r[i].addr < r[i].size)
            return true;
    return false;
}

/* The ends of every range, sorted (ranges reaching the end of the address space are cut there). */
static uint64_t *boundaries(const E820Entry *ram, unsigned nram, const E820Entry *resv, unsigned nresv, unsigned *nb)
{
    uint64_t *b = xcalloc(2 * (size_t)(nram + nresv) + 1, sizeof *b);
    unsigned k = 0;
    for (unsigned i = 0; i < nram + nresv; i++) {
        const E820Entry *r = i < nram ? &ram[i] : &resv[i - nram];
        if (!r->size)
            continue;
        b[k++] = r->addr;
        b[k++] = r->addr + r->size < r->addr ? UINT64_MAX : r->addr + r->size;
    }
    qsort(b, k, sizeof *b, cmp_u64);
    *nb = k;
    return b;
}

bool e820_build(const E820Entry *ram, unsigned nram, const E820Entry *resv, unsigned nresv, E820Entry *out,
                unsigned max, unsigned *n, Error *err)
{
    unsigned nb, k = 0;
    uint64_t *b = boundaries(ram, nram, resv, nresv, &nb);
    bool ok = true;
    for (unsigned i = 0; i + 1 < nb && ok; i++) {
        uint64_t lo = b[i], hi = b[i + 1];
        uint32_t type = covered(resv, nresv, lo) ? E820_RESERVED : covered(ram, nram, lo) ? E820_RAM : 0;
        if (lo == hi || !type)
            continue;
        if (k && out[k - 1].type == type && out[k - 1].addr + out[k - 1].size == lo)
            out[k - 1].size += hi - lo;
        else if (k == max)
            ok = err_set(err, "the memory map needs more than the %u e820 entries the zero page holds", max);
        else
            out[k++] = (E820Entry){ lo, hi - lo, type };
    }
    free(b);
    *n = k;
    return ok;
}
