/* bzimage.h — the Linux/x86 boot protocol: a bzImage's setup header, the zero page (struct
 * boot_params) a boot loader hands the kernel, and its e820 memory map.
 *
 * Linux 6.12 Documentation/arch/x86/boot.rst ("The real-mode kernel header", "64-bit Boot
 * Protocol"), zero-page.rst, arch/x86/include/uapi/asm/bootparam.h, arch/x86/boot/header.S.
 * A bzImage is the real-mode part (the boot sector and setup_sects 512-byte sectors of setup
 * code) followed by the protected-mode kernel (the compressed kernel and its decompressor).
 * The setup header, little-endian, at file offset 0x1f1 (= offset 0x1f1 of the zero page):
 *
 *   0x1f1 u8  setup_sects       sectors of setup code after the boot sector (0 means 4)
 *   0x1f4 u32 syssize           the protected-mode kernel's size, in 16-byte paragraphs
 *   0x1fe u16 boot_flag         0xAA55
 *   0x201 u8  (jump's offset)   the header ends at 0x202 + this byte
 *   0x202 u32 header            "HdrS"
 *   0x206 u16 version           the boot protocol version (0x020f: 2.15)
 *   0x210 u8  type_of_loader    written by the loader (0xFF: no assigned id)
 *   0x211 u8  loadflags         bit 0 LOADED_HIGH (a bzImage), bit 5 QUIET, bit 7 CAN_USE_HEAP
 *   0x214 u32 code32_start      where the protected-mode kernel was loaded (written)
 *   0x218 u32 ramdisk_image, 0x21c u32 ramdisk_size          (written)
 *   0x228 u32 cmd_line_ptr                                    (written)
 *   0x22c u32 initrd_addr_max   the highest address an initrd byte may occupy
 *   0x230 u32 kernel_alignment  0x234 u8 relocatable_kernel   0x235 u8 min_alignment
 *   0x236 u16 xloadflags        bit 0 XLF_KERNEL_64: the 64-bit entry at load address + 0x200
 *   0x238 u32 cmdline_size      the longest command line, without its NUL
 *   0x248 u32 payload_offset    the compressed kernel, from the protected-mode kernel's start
 *   0x24c u32 payload_length    its length (2.08+; bzimage_payload checks both)
 *   0x258 u64 pref_address      where the kernel wants to run (its CONFIG_PHYSICAL_START)
 *   0x260 u32 init_size         bytes the kernel needs from its runtime start while it unpacks
 *
 * The zero page (4 KiB) beyond the header: 0x0c0 ext_ramdisk_image, 0x0c4 ext_ramdisk_size,
 * 0x0c8 ext_cmd_line_ptr (bits 63:32), 0x1e8 u8 e820_entries, 0x2d0 e820_table[128] of
 * { u64 addr, u64 size, u32 type } (20 bytes each).
 */
#ifndef PMUSIM_BZIMAGE_H
#define PMUSIM_BZIMAGE_H

#include "base/common.h"

#define BZ_ZERO_PAGE_SIZE 4096u
#define BZ_SECTOR 512u
#define BZ_ENTRY64_OFF 0x200u            /* startup_64: load address + 0x200 (boot.rst) */
#define BZ_PAYLOAD_OFFSET 0x248u         /* setup header: the compressed kernel's offset and */
#define BZ_PAYLOAD_LENGTH 0x24cu         /* length in the protected-mode kernel (2.08+) */
#define BZ_E820_MAX 128u                 /* E820_MAX_ENTRIES_ZEROPAGE */
/* The 64-bit entry is known to exist from xloadflags (XLF_KERNEL_64), new in protocol 2.12. */
#define BZ_MIN_VERSION 0x020cu
/* type_of_loader: pmusim has no id of its own in boot.rst's table; 0xFF is "undefined". */
#define BZ_LOADER_ID 0xffu

enum { E820_RAM = 1, E820_RESERVED = 2 };  /* arch/x86/include/asm/e820/types.h */

typedef struct BzHeader {
    unsigned setup_sects;            /* 0 already made 4 */
    uint32_t syssize;
    uint16_t version, xloadflags;
    uint8_t loadflags, relocatable;
    uint32_t kernel_alignment, initrd_addr_max, cmdline_size, init_size;
    uint32_t payload_offset, payload_length;    /* relative to pm_offset; not checked here */
    uint64_t pref_address;
    size_t hdr_end;                  /* one past the header's last byte (0x202 + byte 0x201) */
    size_t pm_offset, pm_size;       /* the protected-mode kernel in the file */
} BzHeader;

typedef struct E820Entry {
    uint64_t addr, size;
    uint32_t type;
} E820Entry;

/* What a boot loader writes into the zero page besides the header. */
typedef struct BzBoot {
    uint64_t load_addr;              /* where the protected-mode kernel is */
    uint64_t cmdline_addr;
    uint64_t initrd_addr, initrd_size;   /* 0, 0: none */
    const E820Entry *e820;
    unsigned ne820;
} BzBoot;

/* Does it look like a bzImage (boot_flag 0xAA55 at 0x1fe and "HdrS" at 0x202)? */
bool bzimage_is(const uint8_t *data, size_t size);
/* Parse and check the setup header of the bzImage in data[0..size) (`path` names it): a
 * version below 2.12, a kernel without the 64-bit entry, one that is not a bzImage (loads low),
 * a protected-mode kernel past the end of the file, init_size 0 or smaller than that kernel, a
 * kernel_alignment that is not a power of two are refused naming the field and its offset. */
bool bzimage_header(const uint8_t *data, size_t size, const char *path, BzHeader *h, Error *err);
/* The zero page for the kernel in data (parsed into h): zeroed, the file's setup header copied
 * (0x1f1 up to h->hdr_end, as boot.rst's 64-bit protocol says), then what the loader writes. */
void bzimage_zero_page(uint8_t zp[BZ_ZERO_PAGE_SIZE], const uint8_t *data, const BzHeader *h, const BzBoot *b);
/* The e820 map of `ram` (usable) less `resv` (reserved; they may lie outside RAM too), sorted,
 * adjacent entries of one type merged: at most `max` entries in out (*n), else false naming the
 * count.  Empty ranges are ignored. */
bool e820_build(const E820Entry *ram, unsigned nram, const E820Entry *resv, unsigned nresv, E820Entry *out,
                unsigned max, unsigned *n, Error *err);

#endif
