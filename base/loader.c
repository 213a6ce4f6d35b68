/* loader.c — ELF and raw image parsing (see loader.h). */
#include "base/loader.h"

#include "base/bzimage.h"
#include "base/bzpayload.h"
#include "base/linux_image.h"
#include "base/multiboot.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/kallsyms.h"

typedef struct Reader {
    const Image *im;
    Error *err;
    bool ok;
} Reader;

static bool read_file(const char *path, uint8_t **data, size_t *size, Error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return err_set(err, "%s: %s", path, strerror(errno));
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 1 << 16;
            if (cap > ((size_t)1 << 32)) {
                fclose(f);
                free(buf);
                return err_set(err, "%s: file larger than 4 GiB", path);
            }
            buf = xrealloc(buf, cap);
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return err_set(err, "%s: read error", path);
    }
    *data = buf;
    *size = len;
    return true;
}

/* Read an n-byte field at off, in the file's byte order; records the first out-of-range read. */
static uint64_t rd(Reader *r, uint64_t off, unsigned n, const char *what)
{
    const Image *im = r->im;
    if (off > im->size || n > im->size - off) {
        if (r->ok)
            err_set(r->err, "%s: offset 0x%" PRIx64 ": %s extends past the end of the file (%zu bytes)",
                      im->path, off, what, im->size);
        r->ok = false;
        return 0;
    }
    return im->big_endian ? load_be(im->data + off, n) : load_le(im->data + off, n);
}

/* Field of an ELF structure at `base`, laid out per class. */
#define EF(r, base, st, fld, what)                                                              \
    rd((r), (base) + ((r)->im->is64 ? offsetof(Elf64_##st, fld) : offsetof(Elf32_##st, fld)),  \
       (r)->im->is64 ? sizeof(((Elf64_##st *)0)->fld) : sizeof(((Elf32_##st *)0)->fld), (what))

static Arch arch_of_machine(unsigned m)
{
    switch (m) {
    case EM_X86_64: return ARCH_X86_64;
    case EM_AARCH64: return ARCH_ARM64;
    case EM_PPC: return ARCH_PPC32;
    default: return ARCH_NONE;
    }
}

static int cmp_sym(const void *a, const void *b)
{
    const Symbol *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->func != y->func)         /* functions win over labels at the same address */
        return x->func ? -1 : 1;
    return strcmp(x->name, y->name);
}

typedef struct Shdr {
    uint64_t name, type, flags, addr, offset, size, link, entsize;
} Shdr;

static Shdr read_shdr(Reader *r, uint64_t shoff, uint64_t shentsize, uint64_t i)
{
    uint64_t b = shoff + i * shentsize;
    Shdr s;
    s.name = EF(r, b, Shdr, sh_name, "section header");
    s.type = EF(r, b, Shdr, sh_type, "section header");
    s.flags = EF(r, b, Shdr, sh_flags, "section header");
    s.addr = EF(r, b, Shdr, sh_addr, "section header");
    s.offset = EF(r, b, Shdr, sh_offset, "section header");
    s.size = EF(r, b, Shdr, sh_size, "section header");
    s.link = EF(r, b, Shdr, sh_link, "section header");
    s.entsize = EF(r, b, Shdr, sh_entsize, "section header");
    return s;
}

static bool in_file(const Image *im, uint64_t off, uint64_t len)
{
    return off <= im->size && len <= im->size - off;
}

/* Named sections, for the tables other parts read (the patch validator's call-site tables).
 * A name outside the string table or a section's bytes outside the file are refused: every
 * section handed out has its bytes in the file, whatever its type says (SHT_NULL included),
 * except SHT_NOBITS, which has none (its Section says so). */
static bool load_sections(Image *im, Reader *r, uint64_t shoff, uint64_t shentsize, uint64_t shnum, uint64_t shstrndx)
{
    if (shstrndx == SHN_UNDEF)
        return true;
    if (shstrndx >= shnum)
        return err_set(r->err, "%s: e_shstrndx %" PRIu64 " names no section", im->path, shstrndx);
    Shdr str = read_shdr(r, shoff, shentsize, shstrndx);
    if (!r->ok)
        return false;
    if (!in_file(im, str.offset, str.size) || str.size == 0)
        return err_set(r->err, "%s: section-name table at offset 0x%" PRIx64 " extends past the end of the file",
                         im->path, str.offset);
    im->secnames = xcalloc(1, str.size + 1);
    memcpy(im->secnames, im->data + str.offset, str.size);
    im->secs = xcalloc(shnum, sizeof *im->secs);
    for (uint64_t i = 1; i < shnum; i++) {
        Shdr sh = read_shdr(r, shoff, shentsize, i);
        if (!r->ok)
            return false;
        if (sh.name >= str.size)
            return err_set(r->err, "%s: section %" PRIu64 ": name offset 0x%" PRIx64 " is outside the name table",
                             im->path, i, sh.name);
        bool nobits = sh.type == SHT_NOBITS;
        if (!nobits && !in_file(im, sh.offset, sh.size))
            return err_set(r->err, "%s: offset 0x%" PRIx64 ": section header %" PRIu64 " (%s): its bytes [0x%" PRIx64
                             ", +0x%" PRIx64 ") extend past the end of the file (%zu bytes)", im->path,
                             shoff + i * shentsize, i, im->secnames + sh.name, sh.offset, sh.size, im->size);
        im->secs[im->nsecs++] = (Section){ im->secnames + sh.name, sh.addr, sh.size, sh.offset, nobits,
                                           (sh.flags & SHF_ALLOC) != 0 };
    }
    return true;
}

const Section *image_section(const Image *im, const char *name)
{
    for (int i = 0; i < im->nsecs; i++)
        if (!strcmp(im->secs[i].name, name))
            return &im->secs[i];
    return NULL;
}

uint64_t image_load_addr(const Image *im, uint64_t vaddr)
{
    for (int i = 0; i < im->nsegs; i++) {
        const Segment *s = &im->segs[i];
        if (vaddr >= s->vaddr && vaddr < s->vaddr + s->memsz)
            return vaddr - s->vaddr + s->paddr;
    }
    return vaddr;
}

static bool load_symbols(Image *im, Reader *r, uint64_t shoff, uint64_t shentsize, uint64_t shnum)
{
    for (uint64_t i = 0; i < shnum && r->ok; i++) {
        Shdr sh = read_shdr(r, shoff, shentsize, i);
        if (!r->ok || sh.type != SHT_SYMTAB)
            continue;
        size_t esz = im->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
        if (sh.entsize != esz || !in_file(im, sh.offset, sh.size))
            return err_set(r->err, "%s: section %" PRIu64 " (.symtab) at offset 0x%" PRIx64
                             ": bad entry size or extends past the end of the file", im->path, i, sh.offset);
        if (sh.link >= shnum)
            return err_set(r->err, "%s: .symtab links to section %" PRIu64 ", which does not exist",
                             im->path, sh.link);
        Shdr str = read_shdr(r, shoff, shentsize, sh.link);
        if (!r->ok)
            return false;
        if (!in_file(im, str.offset, str.size) || str.size == 0)
            return err_set(r->err, "%s: string table at offset 0x%" PRIx64 " extends past the end of the file",
                             im->path, str.offset);
        im->strings = xcalloc(1, str.size + 1);
        memcpy(im->strings, im->data + str.offset, str.size);
        uint64_t n = sh.size / esz;
        im->syms = xcalloc(n ? n : 1, sizeof *im->syms);
        for (uint64_t k = 0; k < n; k++) {
            uint64_t b = sh.offset + k * esz;
            uint64_t name = EF(r, b, Sym, st_name, "symbol");
            uint64_t info = EF(r, b, Sym, st_info, "symbol");
            uint64_t shndx = EF(r, b, Sym, st_shndx, "symbol");
            uint64_t value = EF(r, b, Sym, st_value, "symbol");
            uint64_t size = EF(r, b, Sym, st_size, "symbol");
            if (!r->ok)
                return false;
            unsigned type = info & 0xf;
            if (shndx == SHN_UNDEF || shndx == SHN_ABS || name == 0)
                continue;
            if (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE)
                continue;
            if (name >= str.size)
                return err_set(r->err, "%s: symbol %" PRIu64 " at offset 0x%" PRIx64
                                 ": name offset %" PRIu64 " is outside the string table",
                                 im->path, k, b, name);
            const char *nm = im->strings + name;
            if (nm[0] == '$' || nm[0] == '.')      /* mapping symbols and local labels */
                continue;
            Symbol *s = &im->syms[im->nsyms++];
            s->addr = value;
            s->size = size;
            s->name = nm;
            s->func = type == STT_FUNC;
        }
        qsort(im->syms, (size_t)im->nsyms, sizeof *im->syms, cmp_sym);
        break;
    }
    return r->ok;
}

/* An ELF; i386: an ELF32 for EM_386 is taken too, as an x86_64 image of 32-bit code (a
 * multiboot kernel, entered in protected mode). */
static bool load_elf(Image *im, const char *path, bool i386, Error *err)
{
    memset(im, 0, sizeof *im);
    im->path = xstrdup(path);
    im->arch = ARCH_NONE;
    if (!read_file(path, &im->data, &im->size, err))
        return false;
    if (im->size < EI_NIDENT || memcmp(im->data, ELFMAG, SELFMAG))
        return err_set(err, "%s: offset 0: not an ELF file (bad magic)", path);
    unsigned cls = im->data[EI_CLASS], dat = im->data[EI_DATA];
    if (cls != ELFCLASS32 && cls != ELFCLASS64)
        return err_set(err, "%s: offset 0x%x: bad ELF class %u", path, EI_CLASS, cls);
    if (dat != ELFDATA2LSB && dat != ELFDATA2MSB)
        return err_set(err, "%s: offset 0x%x: bad ELF data encoding %u", path, EI_DATA, dat);
    im->is64 = cls == ELFCLASS64;
    im->big_endian = dat == ELFDATA2MSB;
    size_t ehsz = im->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
    if (im->size < ehsz)
        return err_set(err, "%s: offset 0: file too small for an ELF header (%zu bytes)", path, im->size);

    Reader r = { im, err, true };
    uint64_t type = EF(&r, 0, Ehdr, e_type, "ELF header");
    uint64_t machine = EF(&r, 0, Ehdr, e_machine, "ELF header");
    im->entry = EF(&r, 0, Ehdr, e_entry, "ELF header");
    uint64_t phoff = EF(&r, 0, Ehdr, e_phoff, "ELF header");
    uint64_t phentsize = EF(&r, 0, Ehdr, e_phentsize, "ELF header");
    uint64_t phnum = EF(&r, 0, Ehdr, e_phnum, "ELF header");
    uint64_t shoff = EF(&r, 0, Ehdr, e_shoff, "ELF header");
    uint64_t shentsize = EF(&r, 0, Ehdr, e_shentsize, "ELF header");
    uint64_t shnum = EF(&r, 0, Ehdr, e_shnum, "ELF header");
    uint64_t shstrndx = EF(&r, 0, Ehdr, e_shstrndx, "ELF header");
    if (type != ET_EXEC && type != ET_DYN)
        return err_set(err, "%s: offset 0x10: ELF type %" PRIu64 " is not an executable", path, type);
    bool is386 = i386 && machine == EM_386;
    im->arch = is386 ? ARCH_X86_64 : arch_of_machine((unsigned)machine);
    if (im->arch == ARCH_NONE)
        return err_set(err, "%s: offset 0x12: ELF machine %" PRIu64 " is not x86_64, aarch64 or ppc%s", path, machine,
                       machine == EM_386 ? " (an i386 ELF boots by its multiboot header)" : "");
    bool want64 = im->arch != ARCH_PPC32 && !is386;
    if (im->is64 != want64 || im->big_endian != isa_big_endian(im->arch))
        return err_set(err, "%s: a %s ELF must be %s %s-endian", path, isa_name(im->arch),
                         want64 ? "64-bit" : "32-bit", isa_big_endian(im->arch) ? "big" : "little");
    size_t phsz = im->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
    if (phnum == 0)
        return err_set(err, "%s: no program headers: nothing to load", path);
    if (phentsize != phsz)
        return err_set(err, "%s: offset 0x%" PRIx64 ": program header size %" PRIu64 " (expected %zu)",
                         path, phoff, phentsize, phsz);
    if (!in_file(im, phoff, phnum * phsz))
        return err_set(err, "%s: offset 0x%" PRIx64 ": %" PRIu64 " program headers extend past the end of the file",
                         path, phoff, phnum);

    im->segs = xcalloc(phnum, sizeof *im->segs);
    for (uint64_t i = 0; i < phnum; i++) {
        uint64_t b = phoff + i * phsz;
        if (EF(&r, b, Phdr, p_type, "program header") != PT_LOAD)
            continue;
        Segment s;
        s.offset = EF(&r, b, Phdr, p_offset, "program header");
        s.vaddr = EF(&r, b, Phdr, p_vaddr, "program header");
        s.paddr = EF(&r, b, Phdr, p_paddr, "program header");
        s.filesz = EF(&r, b, Phdr, p_filesz, "program header");
        s.memsz = EF(&r, b, Phdr, p_memsz, "program header");
        s.flags = (uint32_t)EF(&r, b, Phdr, p_flags, "program header");
        if (!r.ok)
            return false;
        if (s.memsz == 0)
            continue;
        if (s.filesz > s.memsz)
            return err_set(err, "%s: offset 0x%" PRIx64 ": program header %" PRIu64
                             ": file size 0x%" PRIx64 " exceeds memory size 0x%" PRIx64,
                             path, b, i, s.filesz, s.memsz);
        if (!in_file(im, s.offset, s.filesz))
            return err_set(err, "%s: offset 0x%" PRIx64 ": program header %" PRIu64
                             ": segment data [0x%" PRIx64 ", +0x%" PRIx64 ") extends past the end of the file",
                             path, b, i, s.offset, s.filesz);
        if (s.paddr + s.memsz < s.paddr || (!im->is64 && s.paddr + s.memsz > 0x100000000ull))
            return err_set(err, "%s: offset 0x%" PRIx64 ": program header %" PRIu64
                             ": segment wraps around the address space", path, b, i);
        im->segs[im->nsegs++] = s;
    }
    if (!im->nsegs)
        return err_set(err, "%s: no loadable segments", path);

    /* Section headers are optional (stripped images): code ranges then come from PF_X. */
    if (shoff && shnum) {
        size_t shsz = im->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
        if (shentsize != shsz || !in_file(im, shoff, shnum * shsz))
            return err_set(err, "%s: offset 0x%" PRIx64 ": %" PRIu64
                             " section headers are malformed or extend past the end of the file",
                             path, shoff, shnum);
        im->code = xcalloc(shnum, sizeof *im->code);
        for (uint64_t i = 0; i < shnum; i++) {
            Shdr sh = read_shdr(&r, shoff, shentsize, i);
            if (!r.ok)
                return false;
            if (sh.type == SHT_PROGBITS && (sh.flags & SHF_EXECINSTR) && (sh.flags & SHF_ALLOC) && sh.size)
                im->code[im->ncode++] = (Range){ sh.addr, sh.addr + sh.size };
        }
        if (!load_symbols(im, &r, shoff, shentsize, shnum) || !load_sections(im, &r, shoff, shentsize, shnum, shstrndx))
            return false;
    }
    if (!im->ncode) {
        im->code = xrealloc(im->code, (size_t)im->nsegs * sizeof *im->code);
        for (int i = 0; i < im->nsegs; i++)
            if (im->segs[i].flags & PF_X)
                im->code[im->ncode++] = (Range){ im->segs[i].vaddr, im->segs[i].vaddr + im->segs[i].memsz };
    }
    /* Code ranges are physical for the code-write watch: translate link to load addresses. */
    for (int c = 0; c < im->ncode; c++)
        for (int i = 0; i < im->nsegs; i++) {
            const Segment *s = &im->segs[i];
            if (im->code[c].start >= s->vaddr && im->code[c].start < s->vaddr + s->memsz) {
                uint64_t delta = s->paddr - s->vaddr;
                im->code[c].start += delta;
                im->code[c].end += delta;
                break;
            }
        }
    return true;
}

bool image_load_elf(Image *im, const char *path, Error *err)
{
    return load_elf(im, path, false, err);
}

/* An arm64 Linux Image, loaded raw (--load-addr) or as a kernel (--kernel). */
static bool arm64_linux(const Image *im)
{
    return (im->raw || im->linux_image) && im->arch == ARCH_ARM64 && linux_image_is_a64(im->data, im->size);
}

/* How much memory a raw image takes from its load address: the header's image_size for an
 * arm64 Image (when larger than the file), else the file. */
static uint64_t raw_memsz(const Image *im)
{
    if (!arm64_linux(im))
        return im->size;
    uint64_t image_size = load_le(im->data + 0x10, 8);
    return image_size > im->size ? image_size : im->size;
}

/* The type letters of text symbols (nm(1)): functions for Symbol.func. */
#define KSYM_TEXT_TYPES "TtWw"

/* Each symbol's size: up to the next address, as kernel/kallsyms.c's kallsyms_lookup_size_offset
 * takes it (the last one: 0, unknown). */
static void size_to_next(Image *im)
{
    uint64_t next = 0;
    for (int i = im->nsyms; i-- > 0;) {
        Symbol *s = &im->syms[i];
        if (i + 1 < im->nsyms && im->syms[i + 1].addr != s->addr)
            next = im->syms[i + 1].addr;
        s->size = next > s->addr ? next - s->addr : 0;
    }
}

/* The kernel symbols of t become the image's (t is left empty), in t's order: by address, and
 * at one address in the kernel's order, whose first is the name the kernel prints for it
 * (scripts/kallsyms.c compare_symbols: strong before weak, fewer leading underscores first;
 * kernel/kallsyms.c get_symbol_pos takes the first). */
static void take_ksyms(Image *im, KSymTable *t)
{
    free(im->syms);
    free(im->strings);
    im->strings = t->names;
    t->names = NULL;
    im->syms = xcalloc(t->n ? t->n : 1, sizeof *im->syms);
    im->nsyms = 0;
    for (size_t i = 0; i < t->n; i++) {
        const KSym *k = &t->syms[i];
        im->syms[im->nsyms++] = (Symbol){ k->addr, 0, im->strings + k->name, strchr(KSYM_TEXT_TYPES, k->type) != NULL,
                                          k->type };
    }
    ksyms_free(t);
    size_to_next(im);
}

/* The last per-CPU symbol (CONFIG_KALLSYMS_ABSOLUTE_PERCPU: absolute, from 0) would otherwise
 * reach up to the kernel's mapping and name every physical address below it (the
 * decompressor's): its size is left unknown-but-small, so only addresses near it are named. */
static void bound_percpu(Image *im)
{
    for (int i = 0; i < im->nsyms; i++)
        if (im->syms[i].addr < X86_START_KERNEL_MAP &&
            (i + 1 == im->nsyms || im->syms[i + 1].addr >= X86_START_KERNEL_MAP))
            im->syms[i].size = 1;
}

/* An arm64 Image's first byte is _text (booting.rst: the header is the start of the image):
 * its link address is the segment's. */
static void link_linux(Image *im)
{
    uint64_t text;
    if (arm64_linux(im) && image_symbol_addr(im, "_text", &text))
        im->segs[0].vaddr = text;
}

void image_linux_symbols(Image *im)
{
    if (!arm64_linux(im))
        return;
    KSymTable t;
    Error e;
    if (!ksyms_find(&t, im->data, im->size, im->is64, im->big_endian, im->path, &e)) {
        im->nosyms = xstrdup(e.msg);
        return;
    }
    take_ksyms(im, &t);
    link_linux(im);
}

/* --symbols from a vmlinux: the ELF's symbols, of the image's architecture. */
static bool elf_symbols(Image *im, const char *path, Error *err)
{
    Image elf;
    bool ok = image_load_elf(&elf, path, err);
    if (ok && elf.arch != im->arch)
        ok = err_set(err, "%s: --symbols: the ELF is %s, the image %s", path, isa_name(elf.arch), isa_name(im->arch));
    else if (ok && !elf.nsyms)
        ok = err_set(err, "%s: --symbols: the ELF has no symbol table (stripped?)", path);
    if (ok) {
        free(im->syms);
        free(im->strings);
        im->syms = elf.syms;
        im->nsyms = elf.nsyms;
        im->strings = elf.strings;
        elf.syms = NULL;
        elf.strings = NULL;
    }
    image_free(&elf);
    return ok;
}

bool image_load_symbols(Image *im, const char *path, Error *err)
{
    uint8_t *data;
    size_t size;
    if (!read_file(path, &data, &size, err))
        return false;
    bool elf = size >= SELFMAG && !memcmp(data, ELFMAG, SELFMAG);
    KSymTable t;
    bool ok = elf || ksyms_parse_map(&t, (const char *)data, size, path, err);
    free(data);
    if (ok && elf)
        ok = elf_symbols(im, path, err);
    else if (ok)
        take_ksyms(im, &t);
    if (!ok)
        return false;
    if (im->boot == BOOT_BZIMAGE)
        bound_percpu(im);
    free(im->nosyms);
    im->nosyms = NULL;
    link_linux(im);
    return true;
}

bool image_load_raw(Image *im, const char *path, Arch arch, uint64_t load_addr, uint64_t entry, Error *err)
{
    memset(im, 0, sizeof *im);
    im->path = xstrdup(path);
    im->arch = arch;
    im->raw = true;
    im->is64 = arch != ARCH_PPC32;
    im->big_endian = isa_big_endian(arch);
    if (!read_file(path, &im->data, &im->size, err))
        return false;
    if (im->size == 0)
        return err_set(err, "%s: empty file", path);
    im->segs = xcalloc(1, sizeof *im->segs);
    im->segs[0] = (Segment){ load_addr, load_addr, 0, im->size, raw_memsz(im), PF_R | PF_W | PF_X };
    im->nsegs = 1;
    im->code = xcalloc(1, sizeof *im->code);
    im->code[0] = (Range){ load_addr, load_addr + im->size };
    im->ncode = 1;
    im->entry = entry;
    image_linux_symbols(im);
    return true;
}

/* len bytes from fd into dst; false on a read error or an early end of file. */
static bool read_exactly(int fd, uint8_t *dst, uint64_t len, const char *path, Error *err)
{
    for (uint64_t done = 0; done < len;) {
        size_t want = len - done > ((size_t)1 << 30) ? (size_t)1 << 30 : (size_t)(len - done);
        ssize_t got = read(fd, dst + done, want);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return err_set(err, "%s: %s", path, strerror(errno));
        if (got == 0)
            return err_set(err, "%s: shorter than its size (%" PRIu64 " bytes) while read", path, len);
        done += (uint64_t)got;
    }
    return true;
}

bool image_read_blob(const char *path, uint8_t *dst, uint64_t room, uint64_t *len, Error *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);     /* a FIFO's open must not wait */
    if (fd < 0)
        return err_set(err, "%s: %s", path, strerror(errno));
    struct stat st;
    bool ok = false;
    if (fstat(fd, &st) < 0)
        err_set(err, "%s: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        err_set(err, "%s: not a regular file", path);
    else if ((uint64_t)st.st_size > room)
        err_set(err, "%s: %" PRIu64 " bytes, more than the %" PRIu64 " bytes of room", path, (uint64_t)st.st_size,
                room);
    else
        ok = read_exactly(fd, dst, (uint64_t)st.st_size, path, err);
    close(fd);
    if (ok)
        *len = (uint64_t)st.st_size;
    return ok;
}

void image_free(Image *im)
{
    free(im->path);
    free(im->data);
    free(im->segs);
    free(im->syms);
    free(im->secs);
    free(im->secnames);
    free(im->strings);
    free(im->code);
    free(im->nosyms);
    memset(im, 0, sizeof *im);
}

/* A load address in no segment's link range: its link address (see image_symbol_at). */
static uint64_t link_addr(const Image *im, uint64_t addr)
{
    for (int i = 0; i < im->nsegs; i++)
        if (addr - im->segs[i].vaddr < im->segs[i].memsz)
            return addr;
    for (int i = 0; i < im->nsegs; i++)
        if (addr - im->segs[i].paddr < im->segs[i].memsz)
            return addr - im->segs[i].paddr + im->segs[i].vaddr;
    return addr;
}

const Symbol *image_symbol_at(const Image *im, uint64_t addr, uint64_t *off)
{
    addr = link_addr(im, addr);
    int lo = 0, hi = im->nsyms - 1, best = -1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (im->syms[mid].addr <= addr) {
            best = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    if (best < 0)
        return NULL;
    /* Several symbols at one address: the first in sort order (functions first). */
    while (best > 0 && im->syms[best - 1].addr == im->syms[best].addr)
        best--;
    const Symbol *s = &im->syms[best];
    if (s->size && addr >= s->addr + s->size && addr - s->addr > 0x10000)
        return NULL;
    if (off)
        *off = addr - s->addr;
    return s;
}

void image_kaslr_apply(Image *im, uint64_t offset)
{
    for (int i = 0; i < im->nsyms; i++)
        if (im->syms[i].addr >= X86_START_KERNEL_MAP)
            im->syms[i].addr += offset;
    im->kaslr.pending = false;
    im->kaslr.offset = offset;
}

bool image_symbol_addr(const Image *im, const char *name, uint64_t *addr)
{
    for (int i = 0; i < im->nsyms; i++)
        if (!strcmp(im->syms[i].name, name)) {
            *addr = im->syms[i].addr;
            return true;
        }
    return false;
}

const char *image_describe(const Image *im, uint64_t addr, char *buf, size_t len)
{
    uint64_t off = 0;
    const Symbol *s = im ? image_symbol_at(im, addr, &off) : NULL;
    if (!s)
        snprintf(buf, len, "0x%" PRIx64, addr);
    else if (off)
        snprintf(buf, len, "%s+0x%" PRIx64, s->name, off);
    else
        snprintf(buf, len, "%s", s->name);
    return buf;
}


/* An arm64 Image (gzip'd or not): one segment of image_size bytes at text_offset from the base,
 * which image_place_linux sets; no code ranges until the kernel's symbols say where its text is. */
static bool load_a64_image(Image *im, Error *err)
{
    A64ImageHeader h;
    if (!linux_image_a64_header(im->data, im->size, im->path, &h, err))
        return false;
    im->arch = ARCH_ARM64;
    im->is64 = true;
    im->linux_image = true;
    im->boot = BOOT_A64_IMAGE;
    im->segs = xcalloc(1, sizeof *im->segs);
    im->segs[0] = (Segment){ h.text_offset, h.text_offset, 0, im->size, h.image_size, PF_R | PF_W | PF_X };
    im->nsegs = 1;
    im->entry = h.text_offset;
    image_linux_symbols(im);
    return true;
}

/* What KASLR moves: the first bytes of _text, to be found among the running kernel's mappings
 * (machine.c), in steps of the header's kernel_alignment. */
static void kaslr_probe(Image *im, const BzHeader *h, const uint8_t *elf, size_t len)
{
    uint64_t text;
    const uint8_t *p;
    if (!image_symbol_addr(im, "_text", &text) || !(p = bzpayload_elf_bytes(elf, len, text, KASLR_PROBE_LEN)))
        return;
    im->kaslr = (KaslrProbe){ .pending = true, .text = text, .align = h->kernel_alignment };
    memcpy(im->kaslr.bytes, p, KASLR_PROBE_LEN);
}

/* A bzImage's symbols: its payload unpacked (base/bzpayload.h) and the kallsyms tables read from
 * the ELF inside.  The ELF's loadable segments sit in the file at their link addresses' offsets
 * modulo p_align (2 MiB), so the tables keep, from the buffer's start, the 8-byte alignment
 * ksyms_find relies on.  None, and the reason in nosyms, if anything fails. */
static void bz_symbols(Image *im, const BzHeader *h)
{
    uint8_t *elf = NULL;
    size_t len = 0;
    Error e;
    KSymTable t;
    char inner[sizeof e.msg];
    snprintf(inner, sizeof inner, "%s (its unpacked kernel)", im->path);
    if (!bzpayload_unpack(im->data, im->size, h, im->path, &elf, &len, &e) ||
        !bzpayload_check_elf(elf, len, inner, &e) || !ksyms_find(&t, elf, len, true, false, inner, &e)) {
        im->nosyms = xstrdup(e.msg);
        free(elf);
        return;
    }
    take_ksyms(im, &t);
    bound_percpu(im);
    kaslr_probe(im, h, elf, len);
    free(elf);
}

/* An x86 bzImage: one segment, the protected-mode kernel, taking init_size bytes from the base
 * (its decompressor unpacks the kernel there), entered at startup_64, base + 0x200.  Its
 * symbols are the kallsyms tables of the kernel in its compressed payload. */
static bool load_bzimage(Image *im, Error *err)
{
    BzHeader h;
    if (!bzimage_header(im->data, im->size, im->path, &h, err))
        return false;
    im->arch = ARCH_X86_64;
    im->is64 = true;
    im->linux_image = true;
    im->boot = BOOT_BZIMAGE;
    im->segs = xcalloc(1, sizeof *im->segs);
    im->segs[0] = (Segment){ 0, 0, h.pm_offset, h.pm_size, h.init_size, PF_R | PF_W | PF_X };
    im->nsegs = 1;
    im->entry = BZ_ENTRY64_OFF;
    bz_symbols(im, &h);
    return true;
}

/* The a.out kludge (multiboot flags bit 16): one segment of the file's bytes at load_addr,
 * code whole, entered at entry_addr (an ELF's own headers are not used, its symbols are kept). */
static bool multiboot_aout(Image *im, const MbHeader *h, Error *err)
{
    MbLoad ld;
    if (!multiboot_aout_load(h, im->size, im->path, &ld, err))
        return false;
    free(im->segs);
    free(im->code);
    im->segs = xcalloc(1, sizeof *im->segs);
    im->segs[0] = (Segment){ h->load_addr, h->load_addr, ld.file_offset, ld.filesz, ld.memsz, PF_R | PF_W | PF_X };
    im->nsegs = 1;
    im->code = xcalloc(1, sizeof *im->code);
    im->code[0] = (Range){ h->load_addr, h->load_addr + ld.filesz };
    im->ncode = 1;
    im->entry = h->entry_addr;
    return true;
}

/* A multiboot kernel (Multiboot 0.6.96): an i386 ELF, loaded by its program headers, or any
 * file whose header has the a.out kludge's addresses; entered in 32-bit protected mode. */
static bool load_multiboot(Image *im, const char *path, uint8_t *data, size_t size, bool elf, Error *err)
{
    MbHeader h;
    bool ok = multiboot_header(data, size, path, &h, err);
    if (ok && !elf && !(h.flags & MB_FLAG_AOUT))
        ok = err_set(err, "%s: offset 0x%zx: multiboot flags 0x%08x: without the address fields (bit 16) the image "
                     "must be an ELF", path, h.offset + 4, h.flags);
    if (!ok || (elf && !load_elf(im, path, true, err))) {
        free(data);
        return false;
    }
    if (elf) {
        free(data);                 /* load_elf read the file again */
    } else {                        /* image_load_kernel named it */
        im->data = data;
        im->size = size;
        im->arch = ARCH_X86_64;
    }
    im->boot = BOOT_MULTIBOOT;
    return !(h.flags & MB_FLAG_AOUT) || multiboot_aout(im, &h, err);
}

static bool elf_i386(const uint8_t *data, size_t size)
{
    return size >= sizeof(Elf32_Ehdr) && data[EI_CLASS] == ELFCLASS32 && data[EI_DATA] == ELFDATA2LSB &&
           load_le(data + offsetof(Elf32_Ehdr, e_machine), 2) == EM_386;
}

bool image_load_kernel(Image *im, const char *path, Error *err)
{
    memset(im, 0, sizeof *im);
    uint8_t *data;
    size_t size;
    if (!read_file(path, &data, &size, err))
        return false;
    if (size >= SELFMAG && !memcmp(data, ELFMAG, SELFMAG)) {
        if (elf_i386(data, size))
            return load_multiboot(im, path, data, size, true, err);
        free(data);
        return image_load_elf(im, path, err);
    }
    im->path = xstrdup(path);
    if (bzimage_is(data, size)) {
        im->data = data;
        im->size = size;
        return load_bzimage(im, err);
    }
    if (linux_image_is_gzip(data, size)) {
        bool ok = linux_image_gunzip(data, size, LINUX_IMAGE_MAX, path, &im->data, &im->size, err);
        free(data);
        if (!ok)
            return false;
    } else if (linux_image_is_a64(data, size) || (size >= 2 && data[0] == 'M' && data[1] == 'Z')) {
        /* an arm64 Image starts "MZ" for its EFI stub: anything else so is refused by its header */
        im->data = data;
        im->size = size;
    } else if (multiboot_find(data, size, &(size_t){ 0 })) {
        return load_multiboot(im, path, data, size, false, err);
    } else {
        free(data);
        return err_set(err, "%s: offset 0: not an ELF file (bad magic), nor an arm64 Linux Image (plain or gzip'd), "
                       "nor an x86 bzImage (\"HdrS\" at 0x202), nor a multiboot image; a raw binary needs --load-addr "
                       "and --arch", path);
    }
    return load_a64_image(im, err);
}

/* The kernel's code, by the bounds its linker script gives the text sections (Linux 6.12,
 * arch/arm64/kernel/vmlinux.lds.S: .head.text and .text from _text to _etext; .rodata.text's
 * trampoline, hibernate, kexec and idmap text; the init and exit text), as far as its symbols
 * name both ends.  A kernel without symbols is code whole. */
static const char *const linux_code_bounds[][2] = {
    { "_text", "_etext" },
    { "__entry_tramp_text_start", "__entry_tramp_text_end" },
    { "__hibernate_exit_text_start", "__hibernate_exit_text_end" },
    { "__relocate_new_kernel_start", "__relocate_new_kernel_end" },
    { "__idmap_text_start", "__idmap_text_end" },
    { "_sinittext", "_einittext" },
    { "__exittext_begin", "__exittext_end" },
};

static void linux_code_ranges(Image *im)
{
    const Segment *s = &im->segs[0];
    im->code = xcalloc(ARRAY_SIZE(linux_code_bounds) + 1, sizeof *im->code);
    for (size_t i = 0; i < ARRAY_SIZE(linux_code_bounds); i++) {
        uint64_t a, b;
        if (!image_symbol_addr(im, linux_code_bounds[i][0], &a) || !image_symbol_addr(im, linux_code_bounds[i][1], &b) ||
            a < s->vaddr || b <= a || b - s->vaddr > s->memsz)
            continue;
        im->code[im->ncode++] = (Range){ s->paddr + (a - s->vaddr), s->paddr + (b - s->vaddr) };
    }
    if (!im->ncode)
        im->code[im->ncode++] = (Range){ s->paddr, s->paddr + s->filesz };
}

/* A bzImage's code before its kernel is unpacked: the decompressor, before and after the
 * compressed payload (boot.rst: payload_offset, payload_length, from the protected-mode kernel's
 * start).  The payload is data: the decompressor moves itself and it away and unpacks the kernel
 * over them, 10^7 stores that would otherwise each be a code write. */
static void bzimage_code_ranges(Image *im)
{
    const Segment *s = &im->segs[0];
    uint64_t off = load_le(im->data + BZ_PAYLOAD_OFFSET, 4), len = load_le(im->data + BZ_PAYLOAD_LENGTH, 4);
    im->code = xcalloc(2, sizeof *im->code);
    if (!len || off > s->filesz || len > s->filesz - off) {
        im->code[im->ncode++] = (Range){ s->paddr, s->paddr + s->filesz };
        return;
    }
    if (off)
        im->code[im->ncode++] = (Range){ s->paddr, s->paddr + off };
    if (off + len < s->filesz)
        im->code[im->ncode++] = (Range){ s->paddr + off + len, s->paddr + s->filesz };
}

void image_place_linux(Image *im, uint64_t base)
{
    im->segs[0].paddr += base;
    if (im->boot == BOOT_BZIMAGE)
        im->segs[0].vaddr = im->segs[0].paddr;
    im->entry += base;
    free(im->code);
    im->code = NULL;
    im->ncode = 0;
    if (im->boot == BOOT_BZIMAGE)
        bzimage_code_ranges(im);
    else
        linux_code_ranges(im);
}
