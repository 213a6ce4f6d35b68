/* test_callchain.c — the call-chain walks (tracer/callchain.c) on stacks fabricated in a fake
 * guest memory, per architecture: frame chains, the LR of a leaf, a frameless function's
 * return address, and corrupt stacks (a frame-pointer loop, frames that go down, unmapped or
 * misaligned ones, a chain deeper than the bound), which end the walk; and the chains in the
 * samples file (version 2, version 1 still read) and in checkpoints (profile state 2, 1 still
 * loads). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/state.h"
#include "base/tunables.h"
#include "testutil.h"
#include "tracer/callchain.h"
#include "tracer/profile.h"

/* 64 KiB of guest memory at 0x10000: code below 0x18000, stacks above. */
#define FK_BASE 0x10000u
#define FK_SIZE 0x10000u
#define FK_STACK 0x1f000u
#define UNMAPPED 0x900000u

typedef struct Fake {
    uint8_t mem[FK_SIZE];
    bool be;
    uint64_t fn[8][2];              /* functions [start, end) */
    int nfn;
} Fake;

static bool fk_read(void *ctx, uint64_t va, unsigned size, uint64_t *v)
{
    const Fake *f = ctx;
    if (va < FK_BASE || va - FK_BASE + size > FK_SIZE)
        return false;
    *v = f->be ? load_be(f->mem + (va - FK_BASE), size) : load_le(f->mem + (va - FK_BASE), size);
    return true;
}

static bool fk_func(void *ctx, uint64_t addr, uint64_t *start)
{
    const Fake *f = ctx;
    for (int i = 0; i < f->nfn; i++)
        if (addr >= f->fn[i][0] && addr < f->fn[i][1]) {
            *start = f->fn[i][0];
            return true;
        }
    return false;
}

static void put(Fake *f, uint64_t va, unsigned size, uint64_t v)
{
    if (f->be)
        store_be(f->mem + (va - FK_BASE), size, v);
    else
        store_le(f->mem + (va - FK_BASE), size, v);
}

/* Functions G, C, F (F called by C called by G). */
enum { FN_G = 0x10100, FN_C = 0x10200, FN_F = 0x10300, FN_END = 0x10400, FN_LEN = 0x100 };

static Fake *fake(bool be)
{
    Fake *f = calloc(1, sizeof *f);
    f->be = be;
    const uint64_t fns[] = { FN_G, FN_C, FN_F };
    for (int i = 0; i < 3; i++) {
        f->fn[i][0] = fns[i];
        f->fn[i][1] = fns[i] + FN_LEN;
    }
    f->nfn = 3;
    return f;
}

static size_t walk(Fake *f, Arch a, uint64_t pc, uint64_t fp, uint64_t lr, uint64_t sp, uint64_t *out, size_t max)
{
    ChainRegs r = { .arch = a, .pc = pc, .fp = fp, .lr = lr, .sp = sp };
    ChainEnv env = { fk_read, fk_func, f };
    return callchain_walk(&r, &env, out, max);
}

/* The walk found exactly the n return addresses of want. */
static void expect(const uint64_t *out, size_t got, const uint64_t *want, size_t n)
{
    ck_assert_uint_eq(got, n);
    for (size_t i = 0; i < n; i++)
        ck_assert_uint_eq(out[i], want[i]);
}

/* x86_64 and arm64 records: [fp] = the caller's fp, [fp + 8] = the return address. */
static void record64(Fake *f, uint64_t fp, uint64_t next, uint64_t ret)
{
    put(f, fp, 8, next);
    put(f, fp + 8, 8, ret);
}

/* ------------------------------------------------------------------ x86_64 */

#define X86_PUSH_RBP 0x55
#define X86_NOP 0x90

/* F has a frame (push %rbp first), sampled in its body: the rbp chain, F's caller first. */
START_TEST(x86_rbp_chain)
{
    Fake *f = fake(false);
    f->mem[FN_F - FK_BASE] = X86_PUSH_RBP;
    record64(f, FK_STACK, FK_STACK + 0x40, FN_C + 0x10);
    record64(f, FK_STACK + 0x40, FK_STACK + 0x80, FN_G + 0x10);
    record64(f, FK_STACK + 0x80, 0, 0x10050);
    uint64_t out[CALLCHAIN_DEPTH];
    const uint64_t want[] = { FN_C + 0x10, FN_G + 0x10, 0x10050 };
    expect(out, walk(f, ARCH_X86_64, FN_F + 8, FK_STACK, 0, FK_STACK - 0x20, out, CALLCHAIN_DEPTH), want, 3);
    free(f);
}
END_TEST

/* F without a frame: [rsp] is its return address when a call rel32 of F precedes it. */
START_TEST(x86_frameless_function_uses_rsp)
{
    Fake *f = fake(false);
    f->mem[FN_F - FK_BASE] = X86_NOP;
    uint64_t ret = FN_C + 0x25, sp = FK_STACK - 0x10;
    f->mem[ret - 5 - FK_BASE] = 0xe8;
    put(f, ret - 4, 4, (uint32_t)(FN_F - ret));
    put(f, sp, 8, ret);
    record64(f, FK_STACK, 0, FN_G + 0x10);
    uint64_t out[CALLCHAIN_DEPTH];
    ck_assert_uint_eq(walk(f, ARCH_X86_64, FN_F + 4, FK_STACK, 0, sp, out, CALLCHAIN_DEPTH), 2);
    ck_assert_uint_eq(out[0], ret);
    ck_assert_uint_eq(out[1], FN_G + 0x10);
    /* sampled on F's ret: the return address it popped is at [rsp - 8] */
    f->mem[FN_F + 4 - FK_BASE] = 0xc3;
    ck_assert_uint_eq(walk(f, ARCH_X86_64, FN_F + 4, FK_STACK, 0, sp + 8, out, CALLCHAIN_DEPTH), 2);
    ck_assert_uint_eq(out[0], ret);
    f->mem[FN_F + 4 - FK_BASE] = X86_NOP;
    /* the word at rsp returns from a call of another function: not F's return address */
    put(f, ret - 4, 4, (uint32_t)(FN_G - ret));
    ck_assert_uint_eq(walk(f, ARCH_X86_64, FN_F + 4, FK_STACK, 0, sp, out, CALLCHAIN_DEPTH), 1);
    ck_assert_uint_eq(out[0], FN_G + 0x10);
    free(f);
}
END_TEST

/* Corrupt stacks end the walk: a loop, a frame below the last, unmapped, misaligned, zero. */
START_TEST(x86_corrupt_stacks_terminate)
{
    Fake *f = fake(false);
    uint64_t out[CALLCHAIN_DEPTH];
    f->mem[FN_F - FK_BASE] = X86_PUSH_RBP;
    record64(f, FK_STACK, FK_STACK, FN_C + 0x10);                 /* fp -> itself */
    ck_assert_uint_eq(walk(f, ARCH_X86_64, FN_F + 8, FK_STACK, 0, 0, out, CALLCHAIN_DEPTH), 1);
    record64(f, FK_STACK, FK_STACK - 0x40, FN_C + 0x10);          /* toward lower addresses */
    record64(f, FK_STACK - 0x40, FK_STACK, FN_G + 0x10);          /* ... and back: a loop */
    ck_assert_uint_eq(walk(f, ARCH_X86_64, FN_F + 8, FK_STACK, 0, 0, out, CALLCHAIN_DEPTH), 1);
    record64(f, FK_STACK, UNMAPPED, FN_C + 0x10);                 /* into unmapped memory */
    ck_assert_uint_eq(walk(f, ARCH_X86_64, FN_F + 8, FK_STACK, 0, 0, out, CALLCHAIN_DEPTH), 1);
    ck_assert_uint_eq(walk(f, ARCH_X86_64, FN_F + 8, UNMAPPED, 0, 0, out, CALLCHAIN_DEPTH), 0);
    ck_assert_uint_eq(walk(f, ARCH_X86_64, FN_F + 8, FK_STACK + 3, 0, 0, out, CALLCHAIN_DEPTH), 0);
    ck_assert_uint_eq(walk(f, ARCH_X86_64, FN_F + 8, 0, 0, 0, out, CALLCHAIN_DEPTH), 0);
    ck_assert_uint_eq(walk(f, ARCH_X86_64, FN_F + 8, UINT64_MAX - 7, 0, 0, out, CALLCHAIN_DEPTH), 0);
    free(f);
}
END_TEST

/* A well-formed chain deeper than the bound stops at the bound. */
START_TEST(x86_depth_is_bounded)
{
    Fake *f = fake(false);
    uint64_t out[CALLCHAIN_DEPTH];
    uint64_t fp = 0x18000;
    for (int i = 0; i < 2 * CALLCHAIN_DEPTH; i++, fp += 0x20)
        record64(f, fp, fp + 0x20, FN_G + 0x10);
    ck_assert_uint_eq(walk(f, ARCH_X86_64, FN_F + 8, 0x18000, 0, 0, out, CALLCHAIN_DEPTH), CALLCHAIN_DEPTH);
    ck_assert_uint_eq(walk(f, ARCH_X86_64, FN_F + 8, 0x18000, 0, 0, out, 3), 3);
    free(f);
}
END_TEST

/* ------------------------------------------------------------------ arm64 */

#define A64_NOP 0xd503201fu

static uint32_t a64_bl(uint64_t at, uint64_t to)
{
    return 0x94000000u | (uint32_t)(((to - at) >> 2) & 0x03ffffffu);
}

/* F has not stored the LR (a leaf before its frame record, or without one): the LR is the
 * first caller, then the records. */
START_TEST(a64_leaf_lr_is_first_caller)
{
    Fake *f = fake(false);
    uint64_t lr = FN_C + 0x10;
    put(f, lr - 4, 4, a64_bl(lr - 4, FN_F));
    record64(f, FK_STACK, FK_STACK + 0x40, FN_G + 0x20);           /* C's record */
    record64(f, FK_STACK + 0x40, 0, 0);
    uint64_t out[CALLCHAIN_DEPTH];
    ck_assert_uint_eq(walk(f, ARCH_ARM64, FN_F + 4, FK_STACK, lr, 0, out, CALLCHAIN_DEPTH), 2);
    ck_assert_uint_eq(out[0], lr);
    ck_assert_uint_eq(out[1], FN_G + 0x20);
    free(f);
}
END_TEST

/* The LR is not a caller when F's record holds it, when it points into F (F called out and
 * came back), or when the word before it is no call of F (an exception entry). */
START_TEST(a64_lr_rules)
{
    Fake *f = fake(false);
    uint64_t lr = FN_C + 0x10, out[CALLCHAIN_DEPTH];
    put(f, lr - 4, 4, a64_bl(lr - 4, FN_F));
    record64(f, FK_STACK, FK_STACK + 0x40, lr);                    /* F's record: stored */
    record64(f, FK_STACK + 0x40, 0, FN_G + 0x20);
    ck_assert_uint_eq(walk(f, ARCH_ARM64, FN_F + 8, FK_STACK, lr, 0, out, CALLCHAIN_DEPTH), 2);
    ck_assert_uint_eq(out[0], lr);
    ck_assert_uint_eq(out[1], FN_G + 0x20);
    record64(f, FK_STACK, FK_STACK + 0x40, FN_C + 0x30);
    ck_assert_uint_eq(walk(f, ARCH_ARM64, FN_F + 8, FK_STACK, FN_F + 0x20, 0, out, CALLCHAIN_DEPTH), 2);
    ck_assert_uint_eq(out[0], FN_C + 0x30);
    put(f, lr - 4, 4, A64_NOP);
    ck_assert_uint_eq(walk(f, ARCH_ARM64, FN_F + 8, FK_STACK, lr, 0, out, CALLCHAIN_DEPTH), 2);
    ck_assert_uint_eq(out[0], FN_C + 0x30);
    put(f, lr - 4, 4, a64_bl(lr - 4, FN_G));                      /* a call of another function */
    ck_assert_uint_eq(walk(f, ARCH_ARM64, FN_F + 8, FK_STACK, lr, 0, out, CALLCHAIN_DEPTH), 2);
    ck_assert_uint_eq(out[0], FN_C + 0x30);
    put(f, lr - 4, 4, 0xd63f0100u);                                /* blr x8: indirect, any */
    ck_assert_uint_eq(walk(f, ARCH_ARM64, FN_F + 8, FK_STACK, lr, 0, out, CALLCHAIN_DEPTH), 3);
    ck_assert_uint_eq(out[0], lr);
    free(f);
}
END_TEST

START_TEST(a64_corrupt_records_terminate)
{
    Fake *f = fake(false);
    uint64_t out[CALLCHAIN_DEPTH];
    record64(f, FK_STACK, FK_STACK, FN_C + 0x10);
    ck_assert_uint_le(walk(f, ARCH_ARM64, FN_F + 8, FK_STACK, 0, 0, out, CALLCHAIN_DEPTH), 1);
    record64(f, FK_STACK, FK_STACK + 4, FN_C + 0x10);              /* misaligned next */
    ck_assert_uint_eq(walk(f, ARCH_ARM64, FN_F + 8, FK_STACK, 0, 0, out, CALLCHAIN_DEPTH), 1);
    ck_assert_uint_eq(walk(f, ARCH_ARM64, FN_F + 8, UNMAPPED, 0, 0, out, CALLCHAIN_DEPTH), 0);
    free(f);
}
END_TEST

/* ------------------------------------------------------------------ ppc32 */

#define PPC_STWU_16 0x9421fff0u         /* stwu r1,-16(r1) */
#define PPC_NOP 0x60000000u
#define PPC_ADDI_R1_16 0x38210010u      /* addi r1,r1,16 */

static uint32_t ppc_bl(uint64_t at, uint64_t to)
{
    return 0x48000001u | (uint32_t)((to - at) & 0x03fffffcu);
}

/* Frames sp0 < sp1 < sp2: [sp] = back chain, 4(back chain) = the frame's return address. */
static void ppc_frames(Fake *f, uint64_t sp0, uint64_t sp1, uint64_t sp2, uint64_t ret0, uint64_t ret1)
{
    put(f, sp0, 4, sp1);
    put(f, sp1, 4, sp2);
    put(f, sp1 + 4, 4, ret0);
    put(f, sp2, 4, 0);
    put(f, sp2 + 4, 4, ret1);
}

static void ppc_code(Fake *f, uint64_t at, const uint32_t *w, int n)
{
    for (int i = 0; i < n; i++)
        put(f, at + 4 * (uint64_t)i, 4, w[i]);
}

/* F (stwu, then nops) called by C at lr - 4, frames sp0 < sp1 < sp2 with ret0 above sp1's back
 * chain: the chain from r1 = sp0 with the LR. */
static void ppc_scene(Fake *f, uint64_t lr, uint64_t ret0, uint64_t ret1)
{
    const uint32_t code[] = { PPC_STWU_16, PPC_NOP, PPC_NOP, PPC_NOP };
    ppc_code(f, FN_F, code, 4);
    put(f, lr - 4, 4, ppc_bl(lr - 4, FN_F));
    ppc_frames(f, FK_STACK, FK_STACK + 0x10, FK_STACK + 0x40, ret0, ret1);
}

/* A leaf with its own frame never saves the LR: the LR is its caller, and the stale LR save
 * word above its back chain is skipped. */
START_TEST(ppc_leaf_with_frame)
{
    Fake *f = fake(true);
    uint64_t lr = FN_C + 0x10, out[CALLCHAIN_DEPTH];
    ppc_scene(f, lr, FN_G + 0x44 /* stale */, FN_G + 0x20);
    ck_assert_uint_eq(walk(f, ARCH_PPC32, FN_F + 8, FK_STACK, lr, 0, out, CALLCHAIN_DEPTH), 2);
    ck_assert_uint_eq(out[0], lr);
    ck_assert_uint_eq(out[1], FN_G + 0x20);
    /* after its epilogue freed the frame, r1 is the caller's: nothing is skipped */
    const uint32_t epi[] = { PPC_STWU_16, PPC_NOP, PPC_ADDI_R1_16, PPC_NOP };
    ppc_code(f, FN_F, epi, 4);
    ppc_frames(f, FK_STACK + 0x10, FK_STACK + 0x40, FK_STACK + 0x80, FN_G + 0x20, 0x10050);
    const uint64_t want[] = { lr, FN_G + 0x20, 0x10050 };
    expect(out, walk(f, ARCH_PPC32, FN_F + 8, FK_STACK + 0x10, lr, 0, out, CALLCHAIN_DEPTH), want, 3);
    /* sampled on its blr (the registers are after it): the frame is freed all the same */
    put(f, FN_F + 12, 4, 0x4e800020u);
    expect(out, walk(f, ARCH_PPC32, FN_F + 12, FK_STACK + 0x10, lr, 0, out, CALLCHAIN_DEPTH), want, 3);
    free(f);
}
END_TEST

/* A function that saved the LR (non-leaf): the saved words only, no duplicate. */
START_TEST(ppc_saved_lr)
{
    Fake *f = fake(true);
    uint64_t lr = FN_C + 0x10, out[CALLCHAIN_DEPTH];
    ppc_scene(f, lr, lr, FN_G + 0x20);
    ck_assert_uint_eq(walk(f, ARCH_PPC32, FN_F + 8, FK_STACK, lr, 0, out, CALLCHAIN_DEPTH), 2);
    ck_assert_uint_eq(out[0], lr);
    ck_assert_uint_eq(out[1], FN_G + 0x20);
    /* a back chain that loops, or goes down, ends the walk */
    put(f, FK_STACK + 0x10, 4, FK_STACK);
    ck_assert_uint_le(walk(f, ARCH_PPC32, FN_F + 8, FK_STACK, lr, 0, out, CALLCHAIN_DEPTH), 1);
    put(f, FK_STACK, 4, FK_STACK);
    ck_assert_uint_le(walk(f, ARCH_PPC32, FN_F + 8, FK_STACK, lr, 0, out, CALLCHAIN_DEPTH), 1);
    put(f, FK_STACK, 4, UNMAPPED);
    ck_assert_uint_le(walk(f, ARCH_PPC32, FN_F + 8, FK_STACK, lr, 0, out, CALLCHAIN_DEPTH), 1);
    free(f);
}
END_TEST

/* ------------------------------------------------------------------ the samples file, checkpoints */

typedef struct Seen {
    size_t n;
    uint64_t chain[CALLCHAIN_DEPTH], pc, hz, cycle;
    size_t nchain;
    char counter[16];
} Seen;

static bool seen_sample(void *o, const SampleRec *s)
{
    Seen *x = o;
    x->n++;
    x->pc = s->pc;
    x->hz = s->hz;
    x->cycle = s->cycle;
    x->nchain = s->nchain;
    memcpy(x->chain, s->chain, s->nchain * sizeof *s->chain);
    snprintf(x->counter, sizeof x->counter, "%s", s->counter);
    return true;
}

static bool seen_insns(void *o, uint64_t pc, uint64_t count, uint64_t window, uint64_t cycles)
{
    return true;
}

static bool read_text(const char *text, Seen *x, Error *err)
{
    static const SamplesVisitor v = { seen_sample, seen_insns };
    const char *path = testutil_temp_file(text, strlen(text), ".samples");
    memset(x, 0, sizeof *x);
    bool ok = profile_read(path, &v, x, err);
    remove(path);
    return ok;
}

START_TEST(samples_file_carries_chains)
{
    Profile p;
    profile_init(&p);
    const uint64_t chain[] = { 0x10210, 0x10120, 0x10050 };
    profile_sample(&p, 0, 1234, 0x10308, true, "PMC1", chain, 3);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    profile_print(&p, "ppc32", 2000000000ull, f);
    fclose(f);
    Seen x;
    Error err = { { 0 } };
    ck_assert_msg(read_text(text, &x, &err), "%s", err.msg);
    ck_assert_uint_eq(x.n, 1);
    ck_assert_uint_eq(x.pc, 0x10308);
    ck_assert_uint_eq(x.hz, 2000000000ull);
    ck_assert_uint_eq(x.cycle, 1234);
    ck_assert_str_eq(x.counter, "PMC1");
    ck_assert_uint_eq(x.nchain, 3);
    ck_assert_mem_eq(x.chain, chain, sizeof chain);
    free(text);
    profile_destroy(&p);
}
END_TEST

START_TEST(samples_file_versions_and_bad_chains)
{
    Seen x;
    Error err = { { 0 } };
    ck_assert(read_text("# pmusim samples 1 arch=x86_64 samples=1\n"
                        "sample cpu=0 cycle=1 pc=0x100040 mode=kernel counter=PMC1\n", &x, &err));
    ck_assert_uint_eq(x.n, 1);
    ck_assert_uint_eq(x.nchain, 0);
    ck_assert_uint_eq(x.hz, 0);
    ck_assert(read_text("# pmusim samples 2 arch=x86_64 hz=1000 samples=1\n"
                        "sample cpu=0 cycle=1 pc=0x1 mode=kernel counter=PMC1 chain=\n", &x, &err));
    ck_assert_uint_eq(x.nchain, 0);
    static const char *const bad[] = {
        "sample cpu=0 cycle=1 pc=0x1 mode=kernel counter=PMC1 chain=0x1,,0x2\n",
        "sample cpu=0 cycle=1 pc=0x1 mode=kernel counter=PMC1 chain=0x1,\n",
        "sample cpu=0 cycle=1 pc=0x1 mode=kernel counter=PMC1 chain=-1\n",
        "sample cpu=0 cycle=1 pc=0x1 mode=kernel counter=PMC1 chain=0x1x\n",
        "sample cpu=0 cycle=1 pc=0x1 mode=kernel counter=PMC1\n",          /* version 2: no chain */
        "sample cycle=1 pc=0x1 mode=kernel counter=PMC1 chain=\n",
    };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        char text[256];
        snprintf(text, sizeof text, "# pmusim samples 2 arch=x86_64 hz=1000 samples=1\n%s", bad[i]);
        ck_assert_msg(!read_text(text, &x, &err), "accepted: %s", bad[i]);
        ck_assert_ptr_nonnull(strstr(err.msg, ":2: malformed sample line"));
    }
    /* more return addresses than CALLCHAIN_DEPTH */
    char *deep = calloc(1, 4096);
    int at = snprintf(deep, 4096, "# pmusim samples 2 arch=x86_64 hz=1000 samples=1\n"
                                  "sample cpu=0 cycle=1 pc=0x1 mode=kernel counter=PMC1 chain=0x1");
    for (int i = 0; i < CALLCHAIN_DEPTH; i++)
        at += snprintf(deep + at, 4096 - (size_t)at, ",0x%x", i + 2);
    snprintf(deep + at, 4096 - (size_t)at, "\n");
    ck_assert(!read_text(deep, &x, &err));
    free(deep);
    ck_assert(!read_text("# pmusim samples 2 arch=x86_64 samples=0\n", &x, &err));
    ck_assert_ptr_nonnull(strstr(err.msg, "hz="));
}
END_TEST

START_TEST(checkpoint_carries_chains_and_loads_version_1)
{
    Profile p, q;
    profile_init(&p);
    profile_init(&q);
    const uint64_t chain[] = { 0x10210, 0x10120 };
    profile_sample(&p, 1, 99, 0x10308, false, "PMC2", chain, 2);
    Blob b;
    blob_init(&b);
    profile_save(&p, &b);
    BlobReader r;
    br_init(&r, b.data, b.len, 0);
    ck_assert(profile_load(&q, &r, 2));
    ck_assert_uint_eq(q.nsamples, 1);
    ck_assert_uint_eq(q.samples[0].nchain, 2);
    ck_assert_mem_eq(q.frames + q.samples[0].chain_at, chain, sizeof chain);
    blob_free(&b);
    /* a version 1 section, before chains: its samples load without one */
    blob_init(&b);
    size_t sec = blob_begin(&b, "profile", 1);
    blob_u32(&b, 0);                /* no blocks */
    blob_u64(&b, 1);                /* one sample: cycle, pc, cpu, mode, counter */
    blob_u64(&b, 5);
    blob_u64(&b, 0x10308);
    blob_u32(&b, 0);
    blob_u8(&b, 1);
    blob_str(&b, "PMC1");
    blob_end(&b, sec);
    br_init(&r, b.data, b.len, 0);
    ck_assert(profile_load(&q, &r, 1));
    ck_assert_uint_eq(q.nsamples, 1);
    ck_assert_uint_eq(q.samples[0].nchain, 0);
    ck_assert_uint_eq(q.samples[0].pc, 0x10308);
    blob_free(&b);
    profile_destroy(&p);
    profile_destroy(&q);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("callchain");
    TCase *t = tcase_create("walks");
    tcase_add_test(t, x86_rbp_chain);
    tcase_add_test(t, x86_frameless_function_uses_rsp);
    tcase_add_test(t, x86_corrupt_stacks_terminate);
    tcase_add_test(t, x86_depth_is_bounded);
    tcase_add_test(t, a64_leaf_lr_is_first_caller);
    tcase_add_test(t, a64_lr_rules);
    tcase_add_test(t, a64_corrupt_records_terminate);
    tcase_add_test(t, ppc_leaf_with_frame);
    tcase_add_test(t, ppc_saved_lr);
    suite_add_tcase(s, t);
    TCase *f = tcase_create("files");
    tcase_add_test(f, samples_file_carries_chains);
    tcase_add_test(f, samples_file_versions_and_bad_chains);
    tcase_add_test(f, checkpoint_carries_chains_and_loads_version_1);
    suite_add_tcase(s, f);
    return testutil_run(s);
}
