/* seeds.c — the generated part of the seed corpora, written at build time into
 * <build>/fuzz-seeds/<name>/ (the committed part is tests/fuzz/corpus/<name>/: small inputs).
 *
 *   fuzz_seeds OUTDIR SRCDIR
 *
 * elf: the tiny images of every architecture; dtb, acpi and machine: the built-in boards (and the
 * small ones) behind option headers that ask for the option edits and tools; dts: the boards'
 * sources behind option headers; checkpoint: checkpoints of the checkpoint harness's machines,
 * right after boot and in the middle of a run; guesttrace: trace rings of both tracers; replay:
 * console input logs as --record writes them (empty, on two CPUs, from a checkpoint, open).  Everything is a pure function of the sources, so
 * the files are only rewritten when their contents change.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "ksbuild.h"
#include "lxbuild.h"
#include "paybuild.h"
#include "sim/checkpoint.h"
#include "sim/conlog.h"

static const char *out;

static uint8_t *must_slurp(const char *path, size_t *len)
{
    uint8_t *b = fz_slurp(path, len);
    if (!b)
        fz_fail("%s: %s", path, strerror(errno));
    return b;
}

/* Write OUT/<corpus>/<name> unless it already holds these bytes. */
static void seed(const char *corpus, const char *name, const void *data, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", out, corpus);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%s/%s", out, corpus, name);
    FILE *f = fopen(path, "rb");
    if (f) {
        fclose(f);
        size_t old_len;
        uint8_t *old = must_slurp(path, &old_len);
        bool same = old_len == len && !memcmp(old, data, len);
        free(old);
        if (same)
            return;
    }
    f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
        fz_fail("%s: cannot write", path);
}

/* An option header followed by `body`. */
static void seed_with_options(const char *corpus, const char *name, const uint8_t *opt, const void *body, size_t len)
{
    uint8_t *b = xcalloc(1, FZ_OPT_BYTES + len);
    memcpy(b, opt, FZ_OPT_BYTES);
    memcpy(b + FZ_OPT_BYTES, body, len);
    seed(corpus, name, b, FZ_OPT_BYTES + len);
    free(b);
}

/* Option variants: name, --cpus, --cpu-model index (fuzz_util.c), flags, quantum in thousands. */
static const struct {
    const char *name;
    int ncpus, model;
    unsigned flags, quantum_k;
} variants[] = {
    { "plain", 0, 0, 0, 0 },
    { "cpus4-bootargs", 4, 0, FZ_OPT_BOOTARGS, 0 },
    { "cpus16-model", 16, 2, 0, 0 },
    { "run-patching", 2, 0, FZ_OPT_RUN | FZ_OPT_PATCHING | FZ_OPT_GUEST_TRACE | FZ_OPT_SAMPLES, 10 },
    { "run-icache", 2, 7, FZ_OPT_RUN | FZ_OPT_ICACHE, 5 },
    { "run-json", 2, 0, FZ_OPT_RUN | FZ_OPT_TRACE_JSON, 3 },
    { "nokernel", 1, 0, FZ_OPT_NO_KERNEL, 0 },
};

static const int model_of_arch[ARCH_COUNT][2] = { { 1, 2 }, { 3, 5 }, { 6, 7 } };

static void trees(const char *src)
{
    for (int a = 0; a < ARCH_COUNT; a++) {
        size_t len, slen;
        const void *board = dt_board_blob((Arch)a, &len);
        uint8_t *small = fz_small_board((Arch)a, &slen);
        char dts_path[4096];
        snprintf(dts_path, sizeof dts_path, "%s/sim/boards/%s.dts", src, isa_name((Arch)a));
        size_t dts_len;
        uint8_t *dts = must_slurp(dts_path, &dts_len);
        for (size_t v = 0; v < ARRAY_SIZE(variants); v++) {
            uint8_t opt[FZ_OPT_BYTES];
            int model = variants[v].model ? model_of_arch[a][variants[v].model > 2] : 0;
            unsigned flags = variants[v].flags;
            if (a == ARCH_X86_64)
                flags &= ~(unsigned)FZ_OPT_ICACHE;
            fz_options_encode(opt, (Arch)a, variants[v].ncpus, model, flags, variants[v].quantum_k);
            char name[96];
            snprintf(name, sizeof name, "%s-board-%s", isa_name((Arch)a), variants[v].name);
            seed_with_options("dtb", name, opt, board, len);
            seed_with_options("acpi", name, opt, board, len);
            seed_with_options("machine", name, opt, board, len);
            snprintf(name, sizeof name, "%s-small-%s", isa_name((Arch)a), variants[v].name);
            seed_with_options("dtb", name, opt, small, slen);
            seed_with_options("machine", name, opt, small, slen);
            if (v < 2) {
                snprintf(name, sizeof name, "%s-board-%s.dts", isa_name((Arch)a), variants[v].name);
                seed_with_options("dts", name, opt, dts, dts_len);
            }
        }
        free(small);
        free(dts);
    }
}

static void images(void)
{
    for (int a = 0; a < ARCH_COUNT; a++)
        for (int sites = 0; sites < 2; sites++) {
            size_t len;
            uint8_t *elf = fz_tiny_elf((Arch)a, sites, &len);
            char name[64];
            snprintf(name, sizeof name, "tiny-%s%s.elf", isa_name((Arch)a), sites ? "-sites" : "");
            seed("elf", name, elf, len);
            free(elf);
        }
}

/* fuzz_x86boot: a bzImage of Linux 6.12's header layout (protocol 2.15) that fits the harness's
 * 4 MiB machine, its e820 input bytes first; a multiboot image with the a.out kludge; the tiny
 * x86_64 ELF. */
#define SEED_BZ_SETUP_SECTS 1
#define SEED_BZ_PM (2 * 512)
#define SEED_BZ_PM_SIZE 0x400
static void bz_payload_seeds(const uint8_t *bz);
static void x86_boot_images(void)
{
    static uint8_t bz[SEED_BZ_PM + SEED_BZ_PM_SIZE];
    store_le(bz, 8, 0x100000);                      /* read as e820 ranges too */
    store_le(bz + 8, 8, 0x300000);
    bz[0x1f1] = SEED_BZ_SETUP_SECTS;
    store_le(bz + 0x1f4, 4, SEED_BZ_PM_SIZE / 16);
    store_le(bz + 0x1fe, 2, 0xaa55);
    bz[0x201] = 0x6a;
    memcpy(bz + 0x202, "HdrS", 4);
    store_le(bz + 0x206, 2, 0x020f);
    bz[0x211] = 1;
    store_le(bz + 0x22c, 4, 0x7fffffff);
    store_le(bz + 0x230, 4, 0x200000);
    bz[0x234] = 1;
    store_le(bz + 0x236, 2, 0x7f);
    store_le(bz + 0x238, 4, 2047);
    store_le(bz + 0x258, 8, 0x200000);
    store_le(bz + 0x260, 4, 0x100000);
    bz[SEED_BZ_PM + 0x200] = 0xf4;                  /* hlt at startup_64 */
    seed("x86boot", "bzimage", bz, sizeof bz);
    bz_payload_seeds(bz);
    static uint8_t mb[0x200];
    uint32_t magic = 0x1badb002, flags = 0x10003;
    uint32_t words[] = { magic, flags, -(magic + flags), 0x100010, 0x100000, 0x100100, 0x101000, 0x100040 };
    for (size_t i = 0; i < ARRAY_SIZE(words); i++)
        store_le(mb + 0x10 + 4 * i, 4, words[i]);
    mb[0x40] = 0xf4;                                /* hlt at entry_addr */
    seed("x86boot", "multiboot-aout", mb, sizeof mb);
    size_t len;
    uint8_t *elf = fz_tiny_elf(ARCH_X86_64, false, &len);
    seed("x86boot", "tiny-x86_64.elf", elf, len);
    free(elf);
}

/* The seed bzImage with a payload of each format holding a vmlinux with x86-64 kallsyms tables. */
#define SEED_PAYLOAD_SYMS 40
static void bz_payload_seeds(const uint8_t *bz)
{
    static const char *const kinds[] = PAY_KINDS;
    size_t elen, vlen, len;
    uint8_t *elf = fz_tiny_elf(ARCH_X86_64, false, &elen);
    uint8_t *v = pay_vmlinux(elf, elen, SEED_PAYLOAD_SYMS, &vlen);
    for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
        uint8_t *img = pay_bzimage(bz, SEED_BZ_PM, SEED_BZ_PM_SIZE, kinds[k], v, vlen, &len);
        if (!img)
            fz_fail("seeds: the %s compressor failed", kinds[k]);
        char name[32];
        snprintf(name, sizeof name, "bzimage-%s", kinds[k]);
        seed("x86boot", name, img, len);
        free(img);
    }
    free(v);
    free(elf);
}

/* fuzz_kallsyms: tables of every flavour (the flags byte first, fuzz_kallsyms.c), 300 symbols
 * (two markers) with a long name. */
#define KS_SEED_SYMS 300
static void kallsyms_tables(void)
{
    static char names[KS_SEED_SYMS][160];
    KsbSym syms[KS_SEED_SYMS];
    static const struct { const char *name; KsbOptions o; } kinds[] = {
        { "le64", { true, false, false, false, 8 } },      { "be64", { true, true, false, false, 8 } },
        { "le32", { false, false, false, false, 12 } },    { "be32", { false, true, false, false, 12 } },
        { "le64-old-order", { true, false, true, false, 0 } }, { "le64-percpu", { true, false, false, true, 0 } },
    };
    for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
        const KsbOptions *o = &kinds[k].o;
        uint64_t base = o->is64 ? 0xffff800080000000ull : 0xc0000000ull;
        for (int i = 0; i < KS_SEED_SYMS; i++) {
            snprintf(names[i], sizeof names[i], i == 1 ? "long_%0140d" : "sym_%d", i);
            syms[i] = (KsbSym){ o->absolute_percpu && i < 4 ? 0x100u * i : base + 0x10u * i, "TtDd"[i % 4], names[i] };
        }
        size_t len;
        KSymLayout at;
        uint8_t *b = ksb_build(syms, KS_SEED_SYMS, base, o, &len, &at);
        uint8_t *in = xcalloc(1, len + 1);
        in[0] = (uint8_t)((o->is64 ? 1 : 0) | (o->big_endian ? 2 : 0));
        memcpy(in + 1, b, len);
        char name[64];
        snprintf(name, sizeof name, "tables-%s", kinds[k].name);
        seed("kallsyms", name, in, len + 1);
        free(in);
        free(b);
    }
}

/* fuzz_linuxpatch: lxbuild.h's Image behind its symbols' offsets; one without the jump table's
 * end, one whose alternative is cut. */
static void linux_tables(void)
{
    uint8_t in[2 * LXB_NSYMS + LXB_SIZE];
    for (int v = 0; v < 3; v++) {
        for (unsigned i = 0; i < LXB_NSYMS; i++) {
            unsigned off = v == 1 && i == 9 ? 0xffffu : lxb_syms[i].off;
            in[2 * i] = (uint8_t)off;
            in[2 * i + 1] = (uint8_t)(off >> 8);
        }
        lxb_build(in + 2 * LXB_NSYMS);
        if (v == 2)
            in[2 * LXB_NSYMS + LXB_ALTS + 10] = 2;
        static const char *const names[] = { "image", "no-jump-end", "bad-alt" };
        seed("linuxpatch", names[v], in, sizeof in);
    }
}

/* A checkpoint of the harness's machine: after boot (save_at 0 is the first boundary) or later. */
static void checkpoints(void)
{
    static const uint64_t at[] = { 0, 3 * FZ_CK_QUANTUM };
    for (int a = 0; a < ARCH_COUNT; a++)
        for (size_t k = 0; k < ARRAY_SIZE(at); k++) {
            MachineConfig cfg;
            fz_checkpoint_config((Arch)a, &cfg);
            const char *tmp = fz_file("seed.ck", "", 0);
            Machine m;
            Error err = { { 0 } };
            if (!mach_create(&m, &cfg, &err) || !mach_open_outputs(&m, &err))
                fz_fail("cannot create the %s checkpoint machine: %s", isa_name((Arch)a), err.msg);
            mach_boot(&m);
            if (k == 0) {
                if (!checkpoint_save(&m, tmp, &err))
                    fz_fail("checkpoint_save: %s", err.msg);
            } else {
                m.cfg.save_file = tmp;
                m.cfg.save_at = at[k];
                m.cfg.save = checkpoint_save;
                m.cfg.max_cycles = at[k] + 2 * FZ_CK_QUANTUM;
                mach_run(&m);
                if (!m.saved)
                    fz_fail("the %s run ended before cycle %" PRIu64, isa_name((Arch)a), at[k]);
            }
            mach_destroy(&m);
            size_t len;
            uint8_t *ck = must_slurp(tmp, &len);
            char name[64];
            snprintf(name, sizeof name, "%s-at-%" PRIu64 ".ck", isa_name((Arch)a), at[k]);
            seed("checkpoint", name, ck, len);
            if (k && len > 31) {
                ck[30] |= 0x80;         /* fuzz_checkpoint: run it after the restore */
                snprintf(name, sizeof name, "%s-at-%" PRIu64 "-run.ck", isa_name((Arch)a), at[k]);
                seed("checkpoint", name, ck, len);
            }
            free(ck);
        }
}

/* Trace rings as a guest leaves them: 2 CPUs, a few entries at the tiny image's functions, with
 * the function and the function_graph tracer. */
static void rings(void)
{
    for (int a = 0; a < ARCH_COUNT; a++)
        for (unsigned tracer = 1; tracer <= 2; tracer++) {
            bool be = a == ARCH_PPC32;
            uint8_t in[1 + FZ_GT_DESC + 2 * 8 * 32] = { 0 };
            uint8_t *d = in + 1, *ring = in + 1 + FZ_GT_DESC;
            void (*st)(uint8_t *, unsigned, uint64_t) = be ? store_be : store_le;
            in[0] = (uint8_t)a;
            st(d, 4, 0x504d5442u);                  /* magic "PMTB" */
            st(d + 4, 4, 1);                        /* version */
            st(d + 8, 4, 2);                        /* nr_cpus */
            st(d + 12, 4, 32);                      /* entry size */
            st(d + 16, 4, tracer);
            st(d + 20, 4, 1);                       /* overwrite */
            st(d + 24, 8, 1000000000);              /* clock_hz */
            uint64_t base = fz_image_base((Arch)a);
            for (unsigned c = 0; c < 2; c++) {
                uint8_t *cb = d + 32 + 40 * c;
                st(cb, 8, fz_gt_ring_base((Arch)a) + c * 8 * 32);
                st(cb + 8, 8, 8);                   /* size */
                st(cb + 16, 8, c ? 10 : 6);         /* written: cpu 1 wrapped */
                st(cb + 24, 8, c ? 2 : 0);          /* overrun */
                for (unsigned k = 0; k < 8; k++) {
                    uint8_t *e = ring + (c * 8 + k) * 32;
                    bool ret = tracer == 2 && k % 2;
                    st(e, 2, tracer == 1 ? 1 : ret ? 3 : 2);
                    e[2] = (uint8_t)(k == 3);       /* irqs off */
                    e[3] = (uint8_t)(k / 2 % 3);    /* depth */
                    st(e + 8, 8, 1000 * (k + 1) + c);
                    st(e + 16, 8, base + 0x10 * (1 + k % 4));
                    st(e + 24, 8, ret ? 1000 * k + c : base);
                }
            }
            char name[64];
            snprintf(name, sizeof name, "%s-%s", isa_name((Arch)a), tracer == 1 ? "function" : "graph");
            seed("guesttrace", name, in, sizeof in);
        }
}

/* A console input log of `n` bytes of "hi\n", alternating between `cpus` CPUs one character
 * time (1000 cycles) apart, written by the --record writer. */
static void replay_log(const char *name, Arch arch, unsigned n, unsigned cpus, uint64_t start, uint64_t closed)
{
    static const char text[] = "hi\n";
    const char *path = fz_file("seed.log", "", 0);
    ConLogWriter w;
    Error err = { { 0 } };
    if (!conlog_create(&w, path, arch, 0x1234, start, FNV1A64_BASIS, arch == ARCH_ARM64 ? "/pl011@9000000" : "/uart",
                       &err))
        fz_fail("%s", err.msg);
    for (unsigned i = 0; i < n; i++)
        conlog_put(&w, (uint8_t)text[i % 3], i % cpus, 5000 + 1000ull * i);
    if (!conlog_finish(&w, closed, &err))
        fz_fail("%s", err.msg);
    size_t len;
    uint8_t *b = must_slurp(path, &len);
    seed("replay", name, b, len);
    free(b);
}

static void replay_logs(void)
{
    replay_log("empty-x86_64", ARCH_X86_64, 0, 1, 0, 0);
    replay_log("two-cpus-arm64", ARCH_ARM64, 6, 2, 0, 20000);
    replay_log("from-checkpoint-ppc32", ARCH_PPC32, 3, 1, 7, 0);
    replay_log("open-arm64", ARCH_ARM64, 4, 1, 0, CONLOG_OPEN);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: fuzz_seeds OUTDIR SRCDIR\n");
        return 2;
    }
    out = argv[1];
    mkdir(out, 0755);
    images();
    x86_boot_images();
    kallsyms_tables();
    linux_tables();
    trees(argv[2]);
    checkpoints();
    rings();
    replay_logs();
    return 0;
}
