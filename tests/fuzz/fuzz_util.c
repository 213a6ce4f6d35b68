/* fuzz_util.c — scratch files, tiny guest images, small boards and the option header shared by
 * the fuzzing harnesses and the seed generator (see fuzz.h). */
#define _GNU_SOURCE         /* memfd_create */
#include "fuzz.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <libfdt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/tunables.h"

_Noreturn void fz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz: FINDING: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

void fz_note(const char *fmt, ...)
{
    static int verbose = -1;
    if (verbose < 0) {
        const char *v = getenv("FUZZ_VERBOSE");
        verbose = v && *v && strcmp(v, "0");
    }
    if (!verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ------------------------------------------------------------------ files */

uint8_t *fz_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *b = xcalloc(1, cap + 1);
    while ((n += fread(b + n, 1, cap - n, f)) == cap) {
        cap *= 2;
        b = xrealloc(b, cap + 1);
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b);
        errno = EIO;
        return NULL;
    }
    b[n] = 0;
    *len = n;
    return b;
}

/* One memfd per name, reached through /proc/self/fd/N: no file system (on some hosts truncating a
 * file costs milliseconds), nothing to clean up, and a regular file to the APIs (fstat says
 * S_IFREG).  Not close-on-exec: dtc, spawned for a DTS, opens the same path. */
#define MAX_FILES 16
static struct {
    char name[32];
    char path[64];
    int fd;
} files[MAX_FILES];
static int nfiles;

const char *fz_file(const char *name, const void *data, size_t len)
{
    int i;
    for (i = 0; i < nfiles; i++)
        if (!strcmp(files[i].name, name))
            break;
    if (i == nfiles) {
        if (nfiles == MAX_FILES || strlen(name) >= sizeof files[0].name)
            fz_fail("fz_file: too many scratch files or a long name (%s)", name);
        int fd = memfd_create(name, 0);
        if (fd < 0)
            fz_fail("memfd_create: %s", strerror(errno));
        snprintf(files[i].name, sizeof files[i].name, "%s", name);
        snprintf(files[i].path, sizeof files[i].path, "/proc/self/fd/%d", fd);
        files[i].fd = fd;
        nfiles++;
    }
    int fd = files[i].fd;
    if (ftruncate(fd, 0) != 0)
        fz_fail("%s: ftruncate: %s", files[i].path, strerror(errno));
    const uint8_t *p = data;
    off_t at = 0;
    while (len) {
        ssize_t w = pwrite(fd, p, len, at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            fz_fail("%s: write: %s", files[i].path, strerror(errno));
        p += w;
        at += w;
        len -= (size_t)w;
    }
    return files[i].path;
}

/* ------------------------------------------------------------------ tiny ELF images */

uint64_t fz_image_base(Arch arch)
{
    return arch == ARCH_ARM64 ? 0x40080000ull : 0x100000ull;
}

/* A growing byte buffer in one byte order. */
typedef struct Buf {
    uint8_t *p;
    size_t len, cap;
    bool be;
} Buf;

static void put(Buf *b, size_t at, unsigned n, uint64_t v)
{
    if (at + n > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (at + n > cap)
            cap *= 2;
        b->p = xrealloc(b->p, cap);
        memset(b->p + b->cap, 0, cap - b->cap);
        b->cap = cap;
    }
    if (b->be)
        store_be(b->p + at, n, v);
    else
        store_le(b->p + at, n, v);
    if (at + n > b->len)
        b->len = at + n;
}

static void put_bytes(Buf *b, size_t at, const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put(b, at + i, 1, ((const uint8_t *)p)[i]);
}

/* Text layout (offsets from the image base): the functions the report's samples name. */
enum {
    T_START = 0x00, T_WORK = 0x10, T_COMPARE = 0x20, T_CHECKSUM = 0x30, T_UPDATE = 0x40, T_MCOUNT = 0x50,
    T_TRAMP = 0x58, T_SIZE = 0x60,
    D_TRACE = 0x80, D_SIZE = 0x40,      /* trace_buffers, in the same segment after the text */
};

/* The code: every function a loop or a return, with an ftrace site at the top of `work` and
 * `compare_keys` and a jump-label site in `do_checksum`. */
static void put_code(Buf *b, size_t at, Arch arch)
{
    if (arch == ARCH_X86_64) {
        static const uint8_t jmp_self[] = { 0xeb, 0xfe };
        static const uint8_t nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
        put_bytes(b, at + T_START, jmp_self, 2);
        for (unsigned f = T_WORK; f <= T_COMPARE; f += 0x10) {
            put(b, at + f, 1, 0xe8);                            /* call __fentry__ */
            put(b, at + f + 1, 4, (uint32_t)(T_MCOUNT - (f + 5)));
            put(b, at + f + 5, 1, 0xc3);
        }
        put_bytes(b, at + T_CHECKSUM, nop5, 5);                 /* static key: off */
        put(b, at + T_CHECKSUM + 5, 1, 0xc3);
        put(b, at + T_UPDATE, 1, 0xc3);
        put(b, at + T_MCOUNT, 1, 0xc3);
        put(b, at + T_TRAMP, 1, 0xc3);
    } else if (arch == ARCH_ARM64) {
        const uint32_t nop = 0xd503201f, ret = 0xd65f03c0, b_self = 0x14000000;
        put(b, at + T_START, 4, b_self);
        for (unsigned f = T_WORK; f <= T_COMPARE; f += 0x10) {
            put(b, at + f, 4, nop);                             /* patchable entry: 2 NOPs */
            put(b, at + f + 4, 4, nop);
            put(b, at + f + 8, 4, ret);
        }
        put(b, at + T_CHECKSUM, 4, nop);
        put(b, at + T_CHECKSUM + 4, 4, ret);
        put(b, at + T_UPDATE, 4, ret);
        put(b, at + T_MCOUNT, 4, ret);
        put(b, at + T_TRAMP, 4, ret);
    } else {
        const uint32_t nop = 0x60000000, blr = 0x4e800020, b_self = 0x48000000;
        put(b, at + T_START, 4, b_self);
        for (unsigned f = T_WORK; f <= T_COMPARE; f += 0x10) {
            put(b, at + f, 4, 0x48000001 | ((T_MCOUNT - f) & 0x03fffffc));    /* bl _mcount */
            put(b, at + f + 4, 4, blr);
        }
        put(b, at + T_CHECKSUM, 4, nop);
        put(b, at + T_CHECKSUM + 4, 4, blr);
        put(b, at + T_UPDATE, 4, nop);                          /* __ftr_fixup section */
        put(b, at + T_UPDATE + 4, 4, blr);
        put(b, at + T_MCOUNT, 4, blr);
        put(b, at + T_TRAMP, 4, blr);
    }
}

typedef struct Sec {
    const char *name;
    uint32_t type;
    uint64_t flags, addr, offset, size, link, info, align, entsize;
} Sec;

/* An Elf64_Shdr or Elf32_Shdr at `at`: the same fields in the same order, flags, addr, offset,
 * size, addralign and entsize 8 or 4 bytes wide by the class. */
static void put_shdr(Buf *b, size_t at, bool is64, uint32_t name, const Sec *s)
{
    unsigned w = is64 ? 8 : 4;
    const uint64_t wide[] = { s->flags, s->addr, s->offset, s->size };
    put(b, at, 4, name);
    put(b, at + 4, 4, s->type);
    at += 8;
    for (int i = 0; i < 4; i++, at += w)
        put(b, at, w, wide[i]);
    put(b, at, 4, s->link);
    put(b, at + 4, 4, s->info);
    put(b, at + 8, w, s->align);
    put(b, at + 8 + w, w, s->entsize);
}

/* The one program header: PT_LOAD, RWX, `size` bytes from file offset `off` at `base`, aligned
 * to 16; Elf64_Phdr has p_flags second, Elf32_Phdr has it seventh. */
static void put_phdr(Buf *b, size_t at, bool is64, uint64_t off, uint64_t base, uint64_t size)
{
    unsigned w = is64 ? 8 : 4;
    const uint64_t f[] = { off, base, base, size, size, 16 };   /* offset vaddr paddr filesz memsz align */
    put(b, at, 4, PT_LOAD);
    if (is64)
        put(b, at + 4, 4, PF_R | PF_W | PF_X);
    else
        put(b, at + 24, 4, PF_R | PF_W | PF_X);
    at += is64 ? 8 : 4;
    for (int i = 0; i < 6; i++, at += w)
        put(b, at + (!is64 && i == 5 ? 4 : 0), w, f[i]);
}

uint8_t *fz_tiny_elf(Arch arch, bool sites, size_t *len)
{
    bool is64 = arch != ARCH_PPC32;
    Buf b = { .be = arch == ARCH_PPC32 };
    unsigned ps = is64 ? 8 : 4;                 /* pointer size */
    uint64_t base = fz_image_base(arch);
    size_t ehsize = is64 ? 64 : 52, phsize = is64 ? 56 : 32, shsize = is64 ? 64 : 40;
    size_t text = 0x100;                        /* file offset of the segment */

    put_code(&b, text, arch);
    /* tables after the code and trace_buffers */
    size_t at = text + D_TRACE + D_SIZE;
    Sec secs[16];
    int n = 0;
    secs[n++] = (Sec){ "", SHT_NULL, 0, 0, 0, 0, 0, 0, 0, 0 };
    secs[n++] = (Sec){ ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, base, text, T_SIZE, 0, 0, 16, 0 };
    secs[n++] = (Sec){ ".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, base + D_TRACE, text + D_TRACE, D_SIZE, 0, 0, 8, 0 };
    if (sites) {
        /* ftrace call sites */
        const char *fname = arch == ARCH_ARM64 ? "__patchable_function_entries" : "__mcount_loc";
        for (unsigned k = 0; k < 2; k++)
            put(&b, at + k * ps, ps, base + T_WORK + 0x10 * k);
        secs[n++] = (Sec){ fname, SHT_PROGBITS, SHF_ALLOC, base + (at - text), at, 2 * ps, 0, 0, ps, 0 };
        at += 2 * ps;
        /* one jump_entry { s32 code; s32 target; long key; }, relative to its own fields */
        at = (at + 7) & ~(size_t)7;
        uint64_t je = base + (at - text);
        put(&b, at, 4, (uint32_t)(base + T_CHECKSUM - je));
        put(&b, at + 4, 4, (uint32_t)(base + T_UPDATE - (je + 4)));
        put(&b, at + 8, ps, base + D_TRACE);
        secs[n++] = (Sec){ "__jump_table", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, je, at, 8 + ps, 0, 0, 8, 0 };
        at += 8 + ps;
        if (arch == ARCH_PPC32) {
            /* fixup_entry { mask, value, start_off, end_off, alt_start_off, alt_end_off } */
            uint64_t fe = base + (at - text);
            put(&b, at, 4, 1);
            put(&b, at + 4, 4, 0);
            put(&b, at + 8, 4, (uint32_t)(base + T_UPDATE - fe));
            put(&b, at + 12, 4, (uint32_t)(base + T_UPDATE + 4 - fe));
            put(&b, at + 16, 4, 0);
            put(&b, at + 20, 4, 0);
            secs[n++] = (Sec){ "__ftr_fixup", SHT_PROGBITS, SHF_ALLOC, fe, at, 24, 0, 0, 4, 0 };
            at += 24;
        }
    }
    size_t seg_end = at;

    /* symbols */
    static const struct { const char *name; unsigned off, size; bool func; } syms[] = {
        { "_start", T_START, 0x10, true },      { "work", T_WORK, 0x10, true },
        { "compare_keys", T_COMPARE, 0x10, true }, { "do_checksum", T_CHECKSUM, 0x10, true },
        { "update_stats", T_UPDATE, 0x10, true }, { NULL, T_MCOUNT, 8, true },
        { "ftrace_caller", T_TRAMP, 8, true },  { "trace_buffers", D_TRACE, D_SIZE, false },
    };
    size_t nsyms = ARRAY_SIZE(syms) + 1, symsize = is64 ? 24 : 16;
    at = (at + 7) & ~(size_t)7;
    size_t symtab = at, strtab = symtab + nsyms * symsize;
    size_t str = 1;
    for (size_t i = 0; i < ARRAY_SIZE(syms); i++) {
        const char *nm = syms[i].name ? syms[i].name : arch == ARCH_X86_64 ? "__fentry__" : "_mcount";
        size_t e = symtab + (i + 1) * symsize;
        unsigned info = (STB_GLOBAL << 4) | (syms[i].func ? STT_FUNC : STT_OBJECT);
        unsigned shndx = syms[i].func ? 1 : 2;
        if (is64) {
            put(&b, e, 4, str);
            put(&b, e + 4, 1, info);
            put(&b, e + 6, 2, shndx);
            put(&b, e + 8, 8, base + syms[i].off);
            put(&b, e + 16, 8, syms[i].size);
        } else {
            put(&b, e, 4, str);
            put(&b, e + 4, 4, base + syms[i].off);
            put(&b, e + 8, 4, syms[i].size);
            put(&b, e + 12, 1, info);
            put(&b, e + 14, 2, shndx);
        }
        put_bytes(&b, strtab + str, nm, strlen(nm) + 1);
        str += strlen(nm) + 1;
    }
    put(&b, strtab, 1, 0);
    uint64_t strndx = (uint64_t)n + 1;
    secs[n++] = (Sec){ ".symtab", SHT_SYMTAB, 0, 0, symtab, nsyms * symsize, strndx, 1, 8, symsize };
    secs[n++] = (Sec){ ".strtab", SHT_STRTAB, 0, 0, strtab, str, 0, 0, 1, 0 };
    /* section names */
    size_t shstr = strtab + str, sn = 1;
    uint64_t name_off[16];
    secs[n++] = (Sec){ ".shstrtab", SHT_STRTAB, 0, 0, shstr, 0, 0, 0, 1, 0 };
    put(&b, shstr, 1, 0);
    for (int i = 1; i < n; i++) {
        name_off[i] = sn;
        put_bytes(&b, shstr + sn, secs[i].name, strlen(secs[i].name) + 1);
        sn += strlen(secs[i].name) + 1;
    }
    name_off[0] = 0;
    secs[n - 1].size = sn;
    size_t shoff = (shstr + sn + 7) & ~(size_t)7;
    for (int i = 0; i < n; i++)
        put_shdr(&b, shoff + (size_t)i * shsize, is64, name_off[i], &secs[i]);

    /* ELF header and the one program header */
    static const uint8_t ident[] = { 0x7f, 'E', 'L', 'F' };
    put_bytes(&b, 0, ident, 4);
    put(&b, EI_CLASS, 1, is64 ? ELFCLASS64 : ELFCLASS32);
    put(&b, EI_DATA, 1, b.be ? ELFDATA2MSB : ELFDATA2LSB);
    put(&b, EI_VERSION, 1, EV_CURRENT);
    unsigned machine = arch == ARCH_X86_64 ? EM_X86_64 : arch == ARCH_ARM64 ? EM_AARCH64 : EM_PPC;
    put(&b, 16, 2, ET_EXEC);
    put(&b, 18, 2, machine);
    put(&b, 20, 4, EV_CURRENT);
    unsigned w = is64 ? 8 : 4;                  /* ELFCLASS64 or 32: the width of addresses and offsets */
    const uint64_t addrs[] = { base + T_START, ehsize, shoff };     /* e_entry, e_phoff, e_shoff */
    const uint64_t halves[] = { ehsize, phsize, 1, shsize, (unsigned)n, (unsigned)n - 1 };
    size_t off = 24;
    for (int i = 0; i < 3; i++, off += w)
        put(&b, off, w, addrs[i]);
    off += 4;                                   /* e_flags: 0 */
    for (int i = 0; i < 6; i++, off += 2)       /* e_ehsize ... e_shstrndx */
        put(&b, off, 2, halves[i]);
    put_phdr(&b, ehsize, is64, text, base, seg_end - text);
    *len = b.len;
    return b.p;
}

const char *fz_tiny_elf_path(Arch arch, bool sites)
{
    static const char *paths[ARCH_COUNT][2];
    if (!paths[arch][sites]) {
        char name[32];
        snprintf(name, sizeof name, "tiny-%s%s.elf", isa_name(arch), sites ? "-sites" : "");
        size_t len;
        uint8_t *elf = fz_tiny_elf(arch, sites, &len);
        paths[arch][sites] = fz_file(name, elf, len);
        free(elf);
    }
    return paths[arch][sites];
}

/* ------------------------------------------------------------------ small boards */

/* Set the size of a node's first (address, size) pair, keeping its address. */
static void set_reg_size(uint8_t *fdt, int node, uint64_t size)
{
    int acells = 2, scells = 1, len;
    const fdt32_t *p = fdt_getprop(fdt, 0, "#address-cells", NULL);
    if (p)
        acells = (int)fdt32_to_cpu(*p);
    p = fdt_getprop(fdt, 0, "#size-cells", NULL);
    if (p)
        scells = (int)fdt32_to_cpu(*p);
    const fdt32_t *reg = fdt_getprop(fdt, node, "reg", &len);
    uint8_t v[16];
    if (!reg || acells < 1 || scells < 1 || acells + scells > 4 || len < (acells + scells) * 4)
        fz_fail("fz_small_board: a node without a usable reg");
    memcpy(v, reg, (size_t)(acells + scells) * 4);
    store_be(v + acells * 4, (unsigned)scells * 4, size);
    if (fdt_setprop(fdt, node, "reg", v, (acells + scells) * 4) < 0)
        fz_fail("fz_small_board: cannot set reg");
}

uint8_t *fz_small_board(Arch arch, size_t *len)
{
    size_t blen;
    const void *board = dt_board_blob(arch, &blen);
    size_t cap = blen + 256;
    uint8_t *fdt = xcalloc(1, cap);
    if (fdt_open_into(board, fdt, (int)cap) < 0)
        fz_fail("the built-in %s board does not open", isa_name(arch));
    /* RAM up to the page after the tiny image's (x86_64, ppc32: the DTB, boot structures and
     * spin tables are below it; arm64: the DTB goes above it, at the next 64 KiB boundary on a
     * board this small: docs/guest-abi.md), a ROM of one page */
    int node;
    bool ram = false;
    fdt_for_each_subnode(node, fdt, 0) {
        const char *dt = fdt_getprop(fdt, node, "device_type", NULL);
        const char *compat = fdt_getprop(fdt, node, "compatible", NULL);
        if (dt && !strcmp(dt, "memory") && !ram) {
            uint64_t base = arch == ARCH_ARM64 ? 0x40000000ull : 0, size = fz_image_base(arch) - base + 0x1000;
            if (arch == ARCH_ARM64)
                size = ((size + DTB_ALIGN - 1) & ~(DTB_ALIGN - 1)) + DTB_MAX_SIZE;
            set_reg_size(fdt, node, size);
            ram = true;
        } else if (compat && !strcmp(compat, "pmusim,rom")) {
            set_reg_size(fdt, node, 0x1000);
        }
    }
    if (!ram)
        fz_fail("the built-in %s board has no memory node", isa_name(arch));
    fdt_pack(fdt);
    *len = fdt_totalsize(fdt);
    return fdt;
}

void fz_checkpoint_config(Arch arch, MachineConfig *cfg)
{
    static const char *boards[ARCH_COUNT];
    if (!boards[arch]) {
        char name[32];
        size_t len;
        uint8_t *dtb = fz_small_board(arch, &len);
        snprintf(name, sizeof name, "small-%s.dtb", isa_name(arch));
        boards[arch] = fz_file(name, dtb, len);
        free(dtb);
    }
    memset(cfg, 0, sizeof *cfg);
    cfg->kernel = fz_tiny_elf_path(arch, true);
    cfg->arch = arch;
    cfg->machine_file = boards[arch];
    cfg->ncpus = 2;
    cfg->quantum = FZ_CK_QUANTUM;
    cfg->check_patching = true;                 /* the validator's, I-cache model's and profile's */
    cfg->icache_strict = arch != ARCH_X86_64;   /* sections are in the checkpoint too */
    cfg->samples_file = "/dev/null";
    cfg->console_file = "/dev/null";
    cfg->console_input_file = fz_file("console.in", "hi\n", 3);   /* checkpoints get its section */
    cfg->console_input_opt = "--console-in";
}

void fz_plain_machines(Machine *machines, int ncpus, uint64_t mem_size)
{
    for (int a = 0; a < ARCH_COUNT; a++) {
        MachineConfig cfg;
        fz_checkpoint_config((Arch)a, &cfg);
        cfg.ncpus = ncpus;
        cfg.mem_size = mem_size;
        cfg.check_patching = cfg.icache_strict = false;
        cfg.samples_file = NULL;
        Error err = { { 0 } };
        if (!mach_create(&machines[a], &cfg, &err))
            fz_fail("cannot create the %s machine: %s", isa_name((Arch)a), err.msg);
    }
}

uint64_t fz_gt_ring_base(Arch arch)
{
    return (arch == ARCH_ARM64 ? 0x40000000ull : 0) + 0x20000;
}

/* ------------------------------------------------------------------ option header */

static const char *const models[] = {
    "generic", "core2duo", "cortex-a57", "cortex-a53", "cortex-a72", "mpc7450", "mpc7447a", "mpc7448",
    "PowerPC,7450", "arm,cortex-a53", "no-such-cpu",
};

bool fz_options(const uint8_t *data, size_t size, FzOptions *o)
{
    if (size < FZ_OPT_BYTES)
        return false;
    memset(o, 0, sizeof *o);
    o->arch = (Arch)(data[0] % 3);
    o->ncpus = data[1] % 18;
    o->cpu_model = data[2] ? models[(data[2] - 1u) % ARRAY_SIZE(models)] : NULL;
    o->flags = data[3];
    o->bootargs = o->flags & FZ_OPT_BOOTARGS ? "console=ttyS0 watchdog_thresh=1" : NULL;
    o->quantum = data[4] ? data[4] * 1000ull : 0;
    return true;
}

size_t fz_options_encode(uint8_t *out, Arch arch, int ncpus, int model_index, unsigned flags, unsigned quantum_k)
{
    out[0] = (uint8_t)arch;
    out[1] = (uint8_t)ncpus;
    out[2] = (uint8_t)model_index;
    out[3] = (uint8_t)flags;
    out[4] = (uint8_t)quantum_k;
    return FZ_OPT_BYTES;
}

const char *fz_dtb_file(const uint8_t *tree, size_t len)
{
    if (len < 4)
        return NULL;
    uint8_t *b = xcalloc(1, len);
    memcpy(b, tree, len);
    store_be(b, 4, FDT_MAGIC);
    const char *path = fz_file("machine.dtb", b, len);
    free(b);
    return path;
}

void fz_check_tree(const FzOptions *o, const char *path)
{
    FdtOptions fo = { path, o->ncpus, o->cpu_model, o->bootargs, 0, 0 };
    Error err = { { 0 } };
    void *fdt = dt_build(o->arch, &fo, &err);
    if (!fdt) {
        if (!err.msg[0])
            fz_fail("dt_build refused the tree without a message");
        fz_note("dt_build: %s", err.msg);
        return;
    }
    dt_arch(fdt);
    MachineDesc d;
    err.msg[0] = 0;
    if (!dt_parse(fdt, o->arch, &d, &err)) {
        if (!err.msg[0])
            fz_fail("dt_parse refused the tree without a message");
        fz_note("dt_parse: %s", err.msg);
    } else {
        fz_note("dt_parse: %d CPUs, %d memory ranges, %d devices", d.ncpus, d.nmem, d.ndevs);
        if (d.ncpus < 1 || d.ncpus > DESC_MAX_CPUS || d.nmem < 1 || d.nmem > DESC_MAX_MEM || d.ndevs < 0 ||
            d.ndevs > DESC_MAX_DEVS)
            fz_fail("dt_parse accepted %d CPUs, %d memory ranges, %d devices", d.ncpus, d.nmem, d.ndevs);
        for (int i = 0; i < d.ncpus; i++)
            if (!d.cpus[i].model || !d.cpus[i].clock_hz)
                fz_fail("dt_parse accepted cpu %d without a model or a clock", i);
    }
    err.msg[0] = 0;
    if (!dt_reserve(fdt, 0x8000, 0x8000, &err) && !err.msg[0])
        fz_fail("dt_reserve failed without a message");
    dt_finish(fdt);
    free(fdt);
}
