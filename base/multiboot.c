/* multiboot.c — the Multiboot v1 header and information structure (see multiboot.h). */
#include "base/multiboot.h"

#include <string.h>

/* Header fields (§3.1.1). */
enum {
    H_MAGIC = 0, H_FLAGS = 4, H_CHECKSUM = 8, H_HEADER_ADDR = 12, H_LOAD_ADDR = 16, H_LOAD_END_ADDR = 20,
    H_BSS_END_ADDR = 24, H_ENTRY_ADDR = 28, H_AOUT_END = 32, H_VIDEO_END = 48,
};
/* Information structure fields (§3.3) and its flags. */
enum {
    I_FLAGS = 0, I_MEM_LOWER = 4, I_MEM_UPPER = 8, I_BOOT_DEVICE = 12, I_CMDLINE = 16, I_MODS_COUNT = 20,
    I_MODS_ADDR = 24, I_MMAP_LENGTH = 44, I_MMAP_ADDR = 48, I_LOADER_NAME = 64,
};
enum {
    INFO_MEMORY = 1u << 0, INFO_BOOT_DEVICE = 1u << 1, INFO_CMDLINE = 1u << 2, INFO_MODS = 1u << 3,
    INFO_MMAP = 1u << 6, INFO_LOADER_NAME = 1u << 9,
};
/* The requirement bits pmusim knows (0-2); the rest of 0-15 it cannot promise to meet. */
#define MB_KNOWN_REQUIREMENTS 0x7u
#define MB_REQUIREMENTS 0xffffu
/* boot_device: no BIOS disk (the drive byte 0xff would be a floppy-less "none"); QEMU's value. */
#define MB_NO_BOOT_DEVICE 0x8000ffffu
#define KIB 1024u
#define LOW_MEM_MAX_KIB 640u
#define HIGH_MEM 0x100000ull

bool multiboot_find(const uint8_t *data, size_t size, size_t *off)
{
    for (size_t i = 0; i + 4 <= size && i + 4 <= MB_SEARCH; i += 4)
        if (load_le(data + i, 4) == MB_HEADER_MAGIC) {
            *off = i;
            return true;
        }
    return false;
}

static uint32_t word(const uint8_t *data, const MbHeader *h, unsigned field)
{
    return (uint32_t)load_le(data + h->offset + field, 4);
}

/* The header's words up to `end` must be in the file and in the 8 KiB window. */
static bool header_fits(const MbHeader *h, size_t size, unsigned end, const char *what, const char *path, Error *err)
{
    if (h->offset + end <= size && h->offset + end <= MB_SEARCH)
        return true;
    return err_set(err, "%s: offset 0x%zx: the multiboot header's %s would end at 0x%zx, past the %s", path,
                   h->offset, what, h->offset + end, h->offset + end > size ? "end of the file" : "first 8192 bytes");
}

bool multiboot_header(const uint8_t *data, size_t size, const char *path, MbHeader *h, Error *err)
{
    memset(h, 0, sizeof *h);
    if (!multiboot_find(data, size, &h->offset))
        return err_set(err, "%s: no multiboot header (magic 0x%08x, 4-byte aligned) in the first %u bytes", path,
                       MB_HEADER_MAGIC, MB_SEARCH);
    if (!header_fits(h, size, H_FLAGS + 8, "checksum", path, err))
        return false;
    h->flags = word(data, h, H_FLAGS);
    uint32_t sum = MB_HEADER_MAGIC + h->flags + word(data, h, H_CHECKSUM);
    if (sum)
        return err_set(err, "%s: offset 0x%zx: multiboot checksum 0x%08x: magic + flags + checksum is 0x%08x, not 0",
                       path, h->offset + H_CHECKSUM, word(data, h, H_CHECKSUM), sum);
    uint32_t unmet = h->flags & MB_REQUIREMENTS & ~MB_KNOWN_REQUIREMENTS;
    if (unmet)
        return err_set(err, "%s: offset 0x%zx: multiboot flags 0x%08x require bits 0x%x that no loader knows "
                       "(bits 3-15 are undefined)", path, h->offset + H_FLAGS, h->flags, unmet);
    if ((h->flags & MB_FLAG_AOUT) && !header_fits(h, size, H_AOUT_END, "address fields (flags bit 16)", path, err))
        return false;
    if ((h->flags & MB_FLAG_VIDEO) && !header_fits(h, size, H_VIDEO_END, "video fields (flags bit 2)", path, err))
        return false;
    if (h->flags & MB_FLAG_AOUT) {
        h->header_addr = word(data, h, H_HEADER_ADDR);
        h->load_addr = word(data, h, H_LOAD_ADDR);
        h->load_end_addr = word(data, h, H_LOAD_END_ADDR);
        h->bss_end_addr = word(data, h, H_BSS_END_ADDR);
        h->entry_addr = word(data, h, H_ENTRY_ADDR);
    }
    return true;
}

/* §3.1.3: the text starts at load_addr, at the file offset the header's place says (the header
 * is at header_addr); load_end_addr 0: up to the end of the file; bss_end_addr 0: no BSS. */
bool multiboot_aout_load(const MbHeader *h, size_t size, const char *path, MbLoad *ld, Error *err)
{
    size_t at = h->offset;
    if (h->load_addr > h->header_addr || h->header_addr - h->load_addr > at)
        return err_set(err, "%s: offset 0x%zx: multiboot load_addr 0x%x with header_addr 0x%x would start the image "
                       "%s the file", path, at + H_LOAD_ADDR, h->load_addr, h->header_addr,
                       h->load_addr > h->header_addr ? "after its header in" : "before the beginning of");
    ld->file_offset = at - (h->header_addr - h->load_addr);
    uint64_t avail = size - ld->file_offset;
    ld->filesz = h->load_end_addr ? (uint64_t)h->load_end_addr - h->load_addr : avail;
    if (h->load_end_addr && (h->load_end_addr <= h->load_addr || ld->filesz > avail))
        return err_set(err, "%s: offset 0x%zx: multiboot load_end_addr 0x%x: %s", path, at + H_LOAD_END_ADDR,
                       h->load_end_addr, h->load_end_addr <= h->load_addr ? "not above load_addr"
                                                                          : "past the end of the file");
    ld->memsz = ld->filesz;
    if (h->bss_end_addr) {
        if (h->bss_end_addr < h->load_addr + ld->filesz)
            return err_set(err, "%s: offset 0x%zx: multiboot bss_end_addr 0x%x is below the end of the loaded bytes "
                           "(0x%" PRIx64 ")", path, at + H_BSS_END_ADDR, h->bss_end_addr, h->load_addr + ld->filesz);
        ld->memsz = (uint64_t)h->bss_end_addr - h->load_addr;
    }
    return true;
}

uint32_t multiboot_mmap(uint8_t *dst, const E820Entry *e, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        uint8_t *p = dst + MB_MMAP_ENTRY_SIZE * i;
        store_le(p, 4, MB_MMAP_ENTRY_SIZE - 4);      /* size: of the entry without this word */
        store_le(p + 4, 8, e[i].addr);
        store_le(p + 12, 8, e[i].size);
        store_le(p + 20, 4, e[i].type);
    }
    return MB_MMAP_ENTRY_SIZE * n;
}

/* KiB of usable memory from `at` on, in the map's usable entry that starts there (or holds it). */
static uint64_t usable_kib_from(const E820Entry *e, unsigned n, uint64_t at)
{
    for (unsigned i = 0; i < n; i++)
        if (e[i].type == E820_RAM && at - e[i].addr < e[i].size)
            return (e[i].addr + e[i].size - at) / KIB;
    return 0;
}

void multiboot_info(uint8_t *info, const MbBoot *b)
{
    memset(info, 0, MB_INFO_SIZE);
    uint64_t lower = usable_kib_from(b->mmap, b->nmmap, 0), upper = usable_kib_from(b->mmap, b->nmmap, HIGH_MEM);
    store_le(info + I_FLAGS, 4, INFO_MEMORY | INFO_BOOT_DEVICE | INFO_CMDLINE | INFO_MODS | INFO_MMAP | INFO_LOADER_NAME);
    store_le(info + I_MEM_LOWER, 4, lower < LOW_MEM_MAX_KIB ? lower : LOW_MEM_MAX_KIB);
    store_le(info + I_MEM_UPPER, 4, upper < UINT32_MAX ? upper : UINT32_MAX);
    store_le(info + I_BOOT_DEVICE, 4, MB_NO_BOOT_DEVICE);
    store_le(info + I_CMDLINE, 4, b->cmdline_addr);
    store_le(info + I_MODS_COUNT, 4, b->mods_count);
    store_le(info + I_MODS_ADDR, 4, b->mods_addr);
    store_le(info + I_MMAP_LENGTH, 4, MB_MMAP_ENTRY_SIZE * b->nmmap);
    store_le(info + I_MMAP_ADDR, 4, b->mmap_addr);
    store_le(info + I_LOADER_NAME, 4, b->loader_name_addr);
}
