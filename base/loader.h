/* loader.h — guest images: ELF32/ELF64 of either byte order, or raw binaries.
 *
 * Parsing is defensive: every offset and size read from the file is checked against the file
 * before use, and a malformed file is refused with a message naming the file, the offset and
 * what is wrong.  Loading into guest memory is the machine's job (it knows RAM and ROM).
 */
#ifndef PMUSIM_LOADER_H
#define PMUSIM_LOADER_H

#include "base/common.h"

typedef struct Segment {
    uint64_t paddr, vaddr;      /* load (physical) and link address */
    uint64_t offset;            /* in the file */
    uint64_t filesz, memsz;
    uint32_t flags;             /* PF_X | PF_W | PF_R */
} Segment;

typedef struct Symbol {
    uint64_t addr, size;
    const char *name;           /* points into Image.strings */
    bool func;
    char type;                  /* nm's letter from kallsyms or a System.map; 0 from an ELF */
} Symbol;

typedef struct Range {
    uint64_t start, end;        /* [start, end) */
} Range;

typedef struct Section {
    const char *name;           /* points into Image.secnames */
    uint64_t addr, size;        /* link address */
    uint64_t offset;            /* in the file; its bytes are in the file unless nobits */
    bool nobits, alloc;
} Section;

/* An x86 kernel that may randomise its virtual base (KASLR): the bytes of its first page of
 * text at their link address, to find among the running kernel's mappings (image_kaslr_*). */
#define KASLR_PROBE_LEN 256u
typedef struct KaslrProbe {
    bool pending;               /* symbols at link addresses, the running kernel's offset not found yet */
    uint64_t text;              /* _text's link address */
    uint64_t align;             /* the offset's granule: kernel_alignment (CONFIG_PHYSICAL_ALIGN) */
    uint64_t offset;            /* the offset applied (kaslr_offset()), once found */
    unsigned misses;            /* looks that found no candidate (machine.c gives up after a few) */
    uint8_t bytes[KASLR_PROBE_LEN];
} KaslrProbe;

/* How the image is started: pmusim's own entry state (an ELF, a raw binary), or a boot
 * protocol (docs/guest-abi.md, "Booting Linux", "Multiboot"). */
typedef enum BootProto {
    BOOT_NATIVE, BOOT_A64_IMAGE, BOOT_BZIMAGE, BOOT_MULTIBOOT,
} BootProto;

typedef struct Image {
    char *path;
    BootProto boot;
    Arch arch;
    bool is64, big_endian, raw;
    bool linux_image;           /* a Linux kernel image as boot loaders take it (base/linux_image.h) */
    uint64_t entry;
    uint8_t *data;              /* the whole file */
    size_t size;
    Segment *segs;
    int nsegs;
    Symbol *syms;               /* sorted by address */
    int nsyms;
    char *strings;              /* copy of the symbol string table */
    Range *code;                /* executable sections (SHF_EXECINSTR) or PF_X segments */
    int ncode;
    Section *secs;              /* every named section (none for stripped or raw images) */
    int nsecs;
    char *secnames;             /* copy of the section-name string table */
    char *nosyms;               /* a Linux image without readable kallsyms: why, or NULL */
    KaslrProbe kaslr;           /* an x86 bzImage's: how to find where its kernel runs */
} Image;

bool image_load_elf(Image *im, const char *path, Error *err);
/* A kernel file: an ELF (image_load_elf), or a Linux kernel image (an arm64 Image, plain or
 * gzip'd; Documentation/arch/arm64/booting.rst; an x86 bzImage, Documentation/arch/x86/boot.rst:
 * its protected-mode kernel, init_size bytes of memory, entered at its 64-bit entry), whose
 * segment and entry are placed relative to a base of 0 until image_place_linux moves them to
 * the base in RAM. */
bool image_load_kernel(Image *im, const char *path, Error *err);
/* Place a Linux image at base (its segment's paddr and entry move by base; a bzImage's link
 * address too) and make its code ranges: the kernel's text sections as its symbols bound them,
 * else the whole file (a bzImage: the whole protected-mode kernel, whose kallsyms are inside
 * its compressed payload). */
void image_place_linux(Image *im, uint64_t base);
/* A raw binary: one segment of the whole file at load_addr; for an arm64 Linux Image (the
 * header's magic) the segment's memsz is the header's image_size, which covers the kernel's
 * BSS, as an ELF's p_memsz does, its symbols are the kernel's own kallsyms tables
 * (base/kallsyms.h; none, and the reason in nosyms, if they cannot be read) and the segment's
 * link address is _text's, so that image_load_addr maps the kernel's virtual addresses to
 * where it was loaded. */
bool image_load_raw(Image *im, const char *path, Arch arch, uint64_t load_addr, uint64_t entry, Error *err);
/* The whole of a regular file (an initrd) into dst, which has room for `room` bytes: its length
 * in *len, or false after one message naming the file (not a regular file, larger than room,
 * a read error, a file that shrank while read). */
bool image_read_blob(const char *path, uint8_t *dst, uint64_t room, uint64_t *len, Error *err);
/* What image_load_raw does for an arm64 Linux Image once its bytes are in im->data (a caller
 * that fills them itself, from a gzip'd Image, calls it): the symbols from its kallsyms tables,
 * or the reason in im->nosyms, and the segment's link address from _text.  Nothing for other
 * images (not raw, not arm64, no Image magic). */
void image_linux_symbols(Image *im);
/* --symbols FILE: a vmlinux (ELF: its symbol table) or a System.map replaces the image's
 * symbols; for an arm64 Linux Image the segment's link address becomes the new _text's. */
bool image_load_symbols(Image *im, const char *path, Error *err);
void image_free(Image *im);

/* x86-64 Linux's kernel text mapping (arch/x86/include/asm/page_64_types.h __START_KERNEL_map)
 * and the room KASLR moves the kernel in (KERNEL_IMAGE_SIZE with CONFIG_RANDOMIZE_BASE). */
#define X86_START_KERNEL_MAP 0xffffffff80000000ull
#define X86_KERNEL_IMAGE_SIZE (1ull << 30)
/* The running kernel's offset found (kaslr_offset() = _text - __START_KERNEL): every symbol in
 * the kernel's mapping moves by it (per-CPU symbols, absolute, stay), once. */
void image_kaslr_apply(Image *im, uint64_t offset);

/* The symbol containing addr (or the closest one below it); NULL if none.  *off = addr - sym.
 * An addr in a segment's load range and in no segment's link range is first taken to its link
 * address (a kernel's physical PCs before it turns its MMU on). */
const Symbol *image_symbol_at(const Image *im, uint64_t addr, uint64_t *off);
/* Address of a symbol by name, false if absent. */
bool image_symbol_addr(const Image *im, const char *name, uint64_t *addr);
/* A section by name, NULL if absent. */
const Section *image_section(const Image *im, const char *name);
/* The load (physical) address of a link address, as the loader places it. */
uint64_t image_load_addr(const Image *im, uint64_t vaddr);
/* A symbol's nm letter: its own (kallsyms, System.map), else T for a function, D otherwise. */
static inline char image_symbol_type(const Symbol *s)
{
    return s->type ? s->type : s->func ? 'T' : 'D';
}
/* "name+0x1c" or "0x..." into buf. */
const char *image_describe(const Image *im, uint64_t addr, char *buf, size_t len);

#endif
