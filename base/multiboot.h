/* multiboot.h — Multiboot (version 1, Specification 0.6.96): the OS image's header, and the
 * information structure a boot loader hands the kernel (in EBX, with EAX = 0x2BADB002).
 *
 * The header (§3.1), 32-bit little-endian words, 4-byte aligned, wholly within the image's first
 * 8192 bytes:
 *
 *   0  magic 0x1BADB002     4  flags     8  checksum (magic + flags + checksum = 0 mod 2^32)
 *   12 header_addr  16 load_addr  20 load_end_addr  24 bss_end_addr  28 entry_addr
 *                   (the "a.out kludge": valid when flags bit 16 is set, and then used instead
 *                   of the executable's own headers)
 *   32 mode_type  36 width  40 height  44 depth    (flags bit 2: a video mode wanted)
 *
 * flags bits 0-15 are requirements a loader must fail on if it cannot meet them: bit 0 modules
 * page-aligned, bit 1 memory information, bit 2 video information (which pmusim, as QEMU, does
 * not give: it has no display), bits 3-15 undefined.
 *
 * The information structure (§3.3), at the address in EBX:
 *
 *   0  flags          4  mem_lower (KiB from 0)   8  mem_upper (KiB from 1 MiB)   12 boot_device
 *   16 cmdline        20 mods_count   24 mods_addr    44 mmap_length   48 mmap_addr
 *   64 boot_loader_name
 *
 * a module: { u32 mod_start, mod_end, string, reserved }; a memory map entry: { u32 size (of
 * the rest: 20), u64 base_addr, u64 length, u32 type (1 RAM, 2 reserved) }.
 */
#ifndef PMUSIM_MULTIBOOT_H
#define PMUSIM_MULTIBOOT_H

#include "base/bzimage.h"
#include "base/common.h"

#define MB_HEADER_MAGIC 0x1badb002u
#define MB_BOOT_MAGIC 0x2badb002u         /* in EAX at the entry */
#define MB_SEARCH 8192u
#define MB_INFO_SIZE 88u
#define MB_MODULE_SIZE 16u
#define MB_MMAP_ENTRY_SIZE 24u
enum { MB_FLAG_PAGE_ALIGN = 1u << 0, MB_FLAG_MEMORY = 1u << 1, MB_FLAG_VIDEO = 1u << 2, MB_FLAG_AOUT = 1u << 16 };

typedef struct MbHeader {
    size_t offset;                   /* of the header in the file */
    uint32_t flags;
    uint32_t header_addr, load_addr, load_end_addr, bss_end_addr, entry_addr;   /* the a.out kludge */
} MbHeader;

/* The a.out kludge's load: file bytes [file_offset, + filesz) at load_addr, zeroed up to memsz. */
typedef struct MbLoad {
    uint64_t file_offset, filesz, memsz;
} MbLoad;

/* What the loader puts in the information structure (addresses are physical, below 4 GiB). */
typedef struct MbBoot {
    const E820Entry *mmap;
    unsigned nmmap;
    uint32_t mmap_addr, cmdline_addr, mods_addr, loader_name_addr;
    uint32_t mods_count;
} MbBoot;

/* The offset of the first 4-byte aligned magic in the first 8192 bytes, or false. */
bool multiboot_find(const uint8_t *data, size_t size, size_t *off);
/* Parse and check the header at the first magic (`path` names the file in messages): a
 * checksum that does not sum to 0, a requirement flag pmusim cannot meet (bits 3-15), a header
 * cut short by the end of the file or the 8 KiB window, and a.out addresses that do not describe
 * bytes of the file are refused naming the field and its offset. */
bool multiboot_header(const uint8_t *data, size_t size, const char *path, MbHeader *h, Error *err);
/* The a.out kludge's load of the file (size bytes) from a header with flags bit 16. */
bool multiboot_aout_load(const MbHeader *h, size_t size, const char *path, MbLoad *ld, Error *err);
/* The information structure into info[MB_INFO_SIZE]: mem_lower and mem_upper from the map's
 * usable entries at 0 and at 1 MiB, the command line, modules, memory map, loader name. */
void multiboot_info(uint8_t *info, const MbBoot *b);
/* The memory map's entries into dst (MB_MMAP_ENTRY_SIZE each); returns mmap_length. */
uint32_t multiboot_mmap(uint8_t *dst, const E820Entry *e, unsigned n);

#endif
