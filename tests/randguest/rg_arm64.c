/* rg_arm64.c — random AArch64 guests (loaded raw at 0x40080000, entry = load address).
 *
 * Encodings: Arm ARM DDI 0487, chapter C4 (A64 instruction set encoding) and C6 (the
 * instructions); system registers by (op0, op1, CRn, CRm, op2) from chapter D13.  Layout
 * (offsets from 0x40080000):
 *
 *   0x0000  prologue: per-CPU stack (MPIDR Aff0), VBAR_EL1, CPACR, registers
 *   0x0800  exception vectors (VBAR_EL1, 2 KiB aligned): 16 entries of 32 instructions, random
 *           handlers that mostly return past the fault (ELR += 4) with ERET
 *   0x1000  out-of-line handler tails
 *   0x2000  subroutines (random bodies ending in RET)
 *   0x3000  body, then a branch back to its start
 *
 * Data lives at 0x40200000, stacks below 0x40400000 (0x10000 per CPU).  x16/x17 (IP0/IP1) are
 * the handlers' scratch registers; the body uses them only rarely.
 */
#include "rg.h"

#define A_LOAD 0x40080000ull
#define A_SIZE 0x10000u
#define OFF_VEC 0x0800u
#define OFF_TAILS 0x1000u
#define OFF_FUNCS 0x2000u
#define OFF_BODY 0x3000u

#define DATA_BASE 0x40200000ull
#define DATA_SIZE 0x100000u
#define STACK_TOP 0x40400000ull
#define PL011 0x09000000ull
#define GICD 0x08000000ull
#define GICR 0x080a0000ull

#define NFUNC 12
#define XZR 31
#define SP 31

typedef struct Gen {
    Rng *r;
    RgImage *img;
    const RgOptions *o;
    uint32_t limit;
    uint64_t funcs[NFUNC];
    uint64_t tails[8];
    unsigned ntails;
    int areg[4];
    unsigned nareg;
    bool quiet;                 /* handlers and subroutines: x17 holds a RAM address for them */
} Gen;

/* ------------------------------------------------------------------ encoding helpers */

static void e(Gen *g, uint32_t w, RgClass cls, const char *mn)
{
    rg_emit32(g->img, w, cls, mn);
}

/* Room for n more instructions before the region's limit. */
static bool room(Gen *g, unsigned n)
{
    return rg_room(g->img, g->limit) >= 4 * n;
}

#define SYSREG(op0, op1, crn, crm, op2) ((op0) << 14 | (op1) << 11 | (crn) << 7 | (crm) << 3 | (op2))

/* MRS Xt, <sysreg> / MSR <sysreg>, Xt (C6.2.193/195): 1101 0101 00 L 1 o0 op1 CRn CRm op2 Rt */
static uint32_t a_mrs(unsigned key, unsigned rt)
{
    return 0xd5300000u | (key & 0x7fff) << 5 | rt;
}

static uint32_t a_msr(unsigned key, unsigned rt)
{
    return 0xd5100000u | (key & 0x7fff) << 5 | rt;
}

/* Load a 64-bit constant: movz + movk for each non-zero halfword (1 to 4 instructions). */
static unsigned mov_const_len(uint64_t v)
{
    unsigned n = 1;
    for (int hw = 1; hw < 4; hw++)
        n += ((v >> (16 * hw)) & 0xffff) != 0;
    return n;
}

static void mov_const(Gen *g, unsigned rd, uint64_t v, RgClass cls)
{
    e(g, 0xd2800000u | (uint32_t)(v & 0xffff) << 5 | rd, cls, "mov|movz");
    for (unsigned hw = 1; hw < 4; hw++) {
        uint32_t h = (v >> (16 * hw)) & 0xffff;
        if (h)
            e(g, 0xf2800000u | hw << 21 | h << 5 | rd, cls, "movk");
    }
}

/* A random valid bitmask immediate (C4.1.4 "DecodeBitMasks"): N:immr:imms for element size
 * esize, with s+1 < esize ones rotated by r. */
static uint32_t logic_imm(Rng *r, bool sf)
{
    unsigned log = 1 + rng_below(r, sf ? 6 : 5);       /* esize 2 .. 64 (32 for W) */
    unsigned esize = 1u << log;
    unsigned s = rng_below(r, esize - 1), rot = rng_below(r, esize);
    unsigned n = esize == 64, imms = (0x3fu & ~(2 * esize - 1)) | s;
    return n << 22 | rot << 16 | imms << 10;
}

/* ------------------------------------------------------------------ operands */

/* x0..x30 without x16/x17 (mostly) */
static unsigned any_reg(Gen *g)
{
    if (rng_pct(g->r, 3))
        return 16 + rng_below(g->r, 2);
    unsigned v = rng_below(g->r, 29);
    return v >= 16 ? v + 2 : v;
}

static uint64_t pool_addr(Gen *g)
{
    static const unsigned w[] = { 40, 6, 5, 2, 8, 4, 2, 3, 3, 3, 2, 2 };
    Rng *r = g->r;
    uint64_t a;
    switch (rng_weighted(r, w, sizeof w / sizeof w[0])) {
    case 0: a = DATA_BASE + rng_below(r, DATA_SIZE); break;
    case 1: a = A_LOAD + rng_below(r, A_SIZE); break;
    case 2: a = STACK_TOP - 0x2000 + rng_below(r, 0x2000); break;
    case 3: a = 0x40000000ull + rng_below(r, 0x2000); break;          /* RAM below the image (the DTB until issue 13) */
    case 4: a = PL011 + 4 * rng_below(r, 0x400); break;
    case 5: a = GICD + 4 * rng_below(r, 0x4000); break;               /* described only: reads 0 */
    case 6: a = GICR + 4 * rng_below(r, 0x8000); break;
    case 7: a = rng_below(r, 0x08000000); break;                       /* unmapped low space */
    case 8: a = 0x10000000ull + rng_below(r, 0x30000000); break;
    case 9: a = 0x48000000ull + rng_below(r, 0x10000000); break;      /* past RAM */
    case 10: a = 0x100000000ull + (rng_next(r) & 0xffffffffffull); break;
    default: a = rng_next(r); break;
    }
    if (rng_pct(r, 60))
        a &= ~7ull;
    return a;
}

static uint64_t body_target(Gen *g)
{
    Rng *r = g->r;
    uint32_t nw = (A_SIZE - OFF_BODY) / 4 - 1;
    uint32_t cur = g->img->pos >= OFF_BODY ? (g->img->pos - OFF_BODY) / 4 : 0;
    int64_t t = rng_pct(r, 70) ? (int64_t)cur + 1 + rng_below(r, 160) : (int64_t)cur - (int64_t)rng_below(r, 160);
    if (t < 0)
        t = rng_below(r, 64);
    if (t >= nw)
        t = nw - 1 - rng_below(r, 64);
    return A_LOAD + OFF_BODY + 4 * (uint64_t)t;
}

static uint64_t any_target(Gen *g)
{
    Rng *r = g->r;
    unsigned k = rng_below(r, 100);
    if (k < 85)
        return body_target(g);
    if (k < 93)
        return g->funcs[rng_below(r, NFUNC)];
    if (k < 96)
        return A_LOAD;
    if (k < 98)
        return pool_addr(g) & ~3ull;
    return pool_addr(g);
}

static void note_areg(Gen *g, unsigned reg)
{
    if (g->nareg < 4)
        g->areg[g->nareg++] = (int)reg;
    else
        g->areg[rng_below(g->r, 4)] = (int)reg;
}

/* A base register: one holding a pool address (mostly), SP, or any. */
static unsigned base_reg(Gen *g)
{
    unsigned k = rng_below(g->r, 100);
    if (g->quiet && k < 90)
        return 17;
    if (k < 75 && g->nareg)
        return (unsigned)g->areg[rng_below(g->r, g->nareg)];
    if (k < 85)
        return SP;
    return any_reg(g);
}

static int32_t rel_words(uint64_t from, uint64_t to)
{
    return (int32_t)((int64_t)(to - from) / 4);
}

/* ------------------------------------------------------------------ items */

static const char *const cond_b = "b.*";

static void item_alu(Gen *g)
{
    Rng *r = g->r;
    unsigned d = any_reg(g), n = any_reg(g), m = any_reg(g), k = rng_below(r, 16);
    uint32_t sf = rng_pct(r, 75) ? 1u << 31 : 0;
    if (rng_pct(r, 10))
        n = XZR;
    switch (k) {
    case 0: case 1: {                                   /* add/sub(s) immediate */
        static const uint32_t op[4] = { 0x11000000, 0x31000000, 0x51000000, 0x71000000 };
        static const char *const mn[4] = { "add|mov", "adds|cmn", "sub", "subs|cmp" };
        unsigned i = rng_below(r, 4);
        if (n == XZR)
            n = any_reg(g);                             /* 31 is SP here */
        e(g, sf | op[i] | (uint32_t)rng_below(r, 2) << 22 | rng_below(r, 4096) << 10 | n << 5 | d, RG_ALU, mn[i]);
        break;
    }
    case 2: case 3: {                                   /* add/sub(s) shifted register */
        static const uint32_t op[4] = { 0x0b000000, 0x2b000000, 0x4b000000, 0x6b000000 };
        static const char *const mn[4] = { "add", "adds|cmn", "sub|neg", "subs|cmp|negs" };
        unsigned i = rng_below(r, 4), sh = rng_below(r, 3), amt = rng_below(r, sf ? 64 : 32);
        e(g, sf | op[i] | sh << 22 | m << 16 | amt << 10 | n << 5 | d, RG_ALU, mn[i]);
        break;
    }
    case 4: case 5: {                                   /* logical shifted register */
        static const uint32_t op[8] = { 0x0a000000, 0x0a200000, 0x2a000000, 0x2a200000,
                                        0x4a000000, 0x4a200000, 0x6a000000, 0x6a200000 };
        static const char *const mn[8] = { "and", "bic", "orr|mov", "orn|mvn", "eor", "eon", "ands|tst", "bics" };
        unsigned i = rng_below(r, 8), sh = rng_below(r, 4), amt = rng_below(r, sf ? 64 : 32);
        e(g, sf | op[i] | sh << 22 | m << 16 | amt << 10 | n << 5 | d, RG_ALU, mn[i]);
        break;
    }
    case 6: {                                           /* logical immediate */
        static const uint32_t op[4] = { 0x12000000, 0x32000000, 0x52000000, 0x72000000 };
        static const char *const mn[4] = { "and", "orr|mov", "eor", "ands|tst" };
        unsigned i = rng_below(r, 4);
        if (i != 3 && d == XZR)
            d = 0;
        e(g, sf | op[i] | logic_imm(r, sf) | n << 5 | d, RG_ALU, mn[i]);
        break;
    }
    case 7: {                                           /* movz/movn/movk */
        static const uint32_t op[3] = { 0x52800000, 0x12800000, 0x72800000 };
        static const char *const mn[3] = { "mov|movz", "mov|movn", "movk" };
        unsigned i = rng_below(r, 3), hw = rng_below(r, sf ? 4 : 2);
        e(g, sf | op[i] | hw << 21 | (uint32_t)rng_below(r, 65536) << 5 | d, RG_ALU, mn[i]);
        break;
    }
    case 8: {                                           /* bitfield: sbfm, bfm, ubfm */
        static const uint32_t op[3] = { 0x13000000, 0x33000000, 0x53000000 };
        static const char *const mn[3] = { "sbfm|asr|sbfx|sbfiz|sxtb|sxth|sxtw",
                                           "bfm|bfi|bfxil|bfc", "ubfm|lsl|lsr|ubfx|ubfiz|uxtb|uxth" };
        unsigned i = rng_below(r, 3), width = sf ? 64 : 32;
        e(g, sf | (sf ? 1u << 22 : 0) | op[i] | rng_below(r, width) << 16 | rng_below(r, width) << 10 | n << 5 | d,
          RG_ALU, mn[i]);
        break;
    }
    case 9: {                                           /* extr */
        e(g, sf | (sf ? 1u << 22 : 0) | 0x13800000u | m << 16 | rng_below(r, sf ? 64 : 32) << 10 | n << 5 | d, RG_ALU,
          "extr|ror");
        break;
    }
    case 10: {                                          /* 2-source: udiv sdiv lslv lsrv asrv rorv */
        static const uint32_t op[6] = { 0x1ac00800, 0x1ac00c00, 0x1ac02000, 0x1ac02400, 0x1ac02800, 0x1ac02c00 };
        static const char *const mn[6] = { "udiv", "sdiv", "lsl", "lsr", "asr", "ror" };
        unsigned i = rng_below(r, 6);
        e(g, sf | op[i] | m << 16 | n << 5 | d, RG_ALU, mn[i]);
        break;
    }
    case 11: {                                          /* 3-source: madd msub smulh umulh */
        unsigned i = rng_below(r, 4), a = rng_pct(r, 30) ? XZR : any_reg(g);
        if (i < 2)
            e(g, sf | 0x1b000000u | (uint32_t)i << 15 | m << 16 | a << 10 | n << 5 | d, RG_ALU,
              i ? "msub|mneg" : "madd|mul");
        else
            e(g, (i == 2 ? 0x9b407c00u : 0x9bc07c00u) | m << 16 | n << 5 | d, RG_ALU, i == 2 ? "smulh" : "umulh");
        break;
    }
    case 12: {                                          /* 1-source: rbit rev16 rev clz cls */
        static const uint32_t op[5] = { 0x5ac00000, 0x5ac00400, 0x5ac00800, 0x5ac01000, 0x5ac01400 };
        static const char *const mn[5] = { "rbit", "rev16", "rev|rev32", "clz", "cls" };
        unsigned i = rng_below(r, 5);
        uint32_t w = sf | op[i] | n << 5 | d;
        if (i == 2 && sf)
            w |= 0x400;                                 /* rev (64-bit) is opc 11 */
        e(g, w, RG_ALU, mn[i]);
        break;
    }
    case 13: {                                          /* conditional select */
        static const uint32_t op[4] = { 0x1a800000, 0x1a800400, 0x5a800000, 0x5a800400 };
        static const char *const mn[4] = { "csel", "csinc|cinc|cset", "csinv|cinv|csetm", "csneg|cneg" };
        unsigned i = rng_below(r, 4);
        e(g, sf | op[i] | m << 16 | rng_below(r, 16) << 12 | n << 5 | d, RG_ALU, mn[i]);
        break;
    }
    case 14: {                                          /* adr / adrp */
        uint32_t imm = rng_below(r, 1u << 21);
        bool p = rng_pct(r, 30);
        e(g, (p ? 0x90000000u : 0x10000000u) | (imm & 3) << 29 | (imm >> 2) << 5 | d, RG_ALU, p ? "adrp" : "adr");
        break;
    }
    default: {                                          /* conditional compare (immediate) */
        e(g, sf | 0x7a400800u | rng_below(r, 32) << 16 | rng_below(r, 16) << 12 | n << 5 | rng_below(r, 16), RG_ALU,
          "ccmp");
        break;
    }
    }
}

static void item_addr(Gen *g)
{
    unsigned d = any_reg(g);
    uint64_t a = pool_addr(g);
    if (!room(g, mov_const_len(a)))
        return;
    mov_const(g, d, a, RG_ADDR);
    note_areg(g, d);
}

static void item_load_store(Gen *g, bool store)
{
    Rng *r = g->r;
    unsigned n = base_reg(g), t = any_reg(g), k = rng_below(r, g->quiet ? 6 : 10);   /* quiet: base + offset only */
    if (rng_pct(r, 5))
        t = XZR;
    /* size: 0 = byte, 1 = half, 2 = word, 3 = doubleword */
    unsigned size = rng_below(r, 4);
    static const char *const ld[4] = { "ldrb", "ldrh", "ldr", "ldr" }, *const st[4] = { "strb", "strh", "str", "str" };
    static const char *const ldu[4] = { "ldurb", "ldurh", "ldur", "ldur" }, *const stu[4] = { "sturb", "sturh", "stur", "stur" };
    uint32_t opc = store ? 0 : 1;
    switch (k) {
    case 0: case 1: case 2: case 3:                     /* unsigned offset (scaled) */
        e(g, size << 30 | 0x39000000u | opc << 22 | (rng_pct(r, 60) ? rng_below(r, 64) : rng_below(r, 4096)) << 10 |
                 n << 5 | t,
          store ? RG_STORE : RG_LOAD, store ? st[size] : ld[size]);
        break;
    case 4: case 5:                                     /* unscaled (ldur/stur) */
        e(g, size << 30 | 0x38000000u | opc << 22 | (rng_below(r, 512) << 12) | n << 5 | t,
          store ? RG_STORE : RG_LOAD, store ? stu[size] : ldu[size]);
        break;
    case 6: {                                           /* pre/post-index with writeback, Rt != Rn */
        if (t == n && n != SP)
            t = (t + 1) % 29;
        bool pre = rng_pct(r, 50);
        e(g, size << 30 | 0x38000000u | opc << 22 | (rng_below(r, 512) << 12) | (pre ? 0xc00u : 0x400u) | n << 5 | t,
          store ? RG_STORE : RG_LOAD, store ? st[size] : ld[size]);
        break;
    }
    case 7: {                                           /* register offset */
        static const unsigned opts[4] = { 2, 3, 6, 7 };
        unsigned m = any_reg(g);
        e(g, size << 30 | 0x38200800u | opc << 22 | m << 16 | opts[rng_below(r, 4)] << 13 |
                 (uint32_t)rng_below(r, 2) << 12 | n << 5 | t,
          store ? RG_STORE : RG_LOAD, store ? st[size] : ld[size]);
        break;
    }
    case 8: {                                           /* ldp/stp signed offset, pre, post */
        unsigned t2 = any_reg(g);
        if (t2 == t)
            t2 = (t + 1) % 29;
        unsigned mode = rng_below(r, 3);                /* 2: offset, 3: pre, 1: post */
        static const unsigned modes[3] = { 2, 3, 1 };
        if (modes[mode] != 2 && (t == n || t2 == n) && n != SP)
            mode = 0;
        bool x = rng_pct(r, 70);
        e(g, (x ? 0xa8000000u : 0x28000000u) | modes[mode] << 23 | (store ? 0 : 1u << 22) |
                 (uint32_t)(rng_below(r, 128)) << 15 | t2 << 10 | n << 5 | t,
          store ? RG_STORE : RG_LOAD, store ? "stp" : "ldp");
        break;
    }
    default:
        if (store) {                                    /* dc zva: zeroes a 64-byte block */
            e(g, 0xd50b7420u | (n == SP ? any_reg(g) : n), RG_STORE, "dc|sys");
        } else if (rng_pct(r, 50)) {                    /* ldr literal: from the image */
            e(g, (rng_pct(r, 50) ? 0x58000000u : 0x18000000u) | (uint32_t)(rng_range(r, -4096, 4096) & 0x7ffff) << 5 | t,
              RG_LOAD, "ldr");
        } else {                                        /* ldrsw / ldrsb / prfm */
            unsigned i = rng_below(r, 3);
            static const uint32_t op[3] = { 0xb9800000, 0x39800000, 0xf9800000 };
            static const char *const mn[3] = { "ldrsw", "ldrsb", "prfm" };
            e(g, op[i] | rng_below(r, 256) << 10 | n << 5 | t, RG_LOAD, mn[i]);
        }
        break;
    }
}

static void item_atomic(Gen *g)
{
    Rng *r = g->r;
    unsigned n = base_reg(g), t = any_reg(g), s = any_reg(g), k = rng_below(r, 7);
    if (s == t || s == n)
        s = (t + 3) % 29 == n ? (t + 5) % 29 : (t + 3) % 29;
    switch (k) {
    case 0: e(g, 0xc85f7c00u | n << 5 | t, RG_ATOMIC, "ldxr"); break;
    case 1: e(g, 0xc8007c00u | s << 16 | n << 5 | t, RG_ATOMIC, "stxr"); break;
    case 2: e(g, 0xc85ffc00u | n << 5 | t, RG_ATOMIC, "ldaxr"); break;
    case 3: e(g, 0xc800fc00u | s << 16 | n << 5 | t, RG_ATOMIC, "stlxr"); break;
    case 4: e(g, 0xc8dffc00u | n << 5 | t, RG_ATOMIC, "ldar"); break;
    case 5: e(g, 0xc89ffc00u | n << 5 | t, RG_ATOMIC, "stlr"); break;
    default:                                            /* LSE (ARMv8.1): UNDEFINED on the A57; */
        e(g, (rng_pct(r, 50) ? 0xf8200000u : 0xc8a07c00u) | s << 16 | n << 5 | t, RG_ATOMIC, NULL);   /* Capstone 4 has no LSE */
        break;
    }
}

static void item_stack(Gen *g)
{
    Rng *r = g->r;
    unsigned a = any_reg(g), b = any_reg(g);
    if (a == b)
        b = (a + 1) % 29;
    if (rng_pct(r, 50))
        e(g, 0xa9800000u | (uint32_t)(-2 & 0x7f) << 15 | b << 10 | SP << 5 | a, RG_STORE, "stp");   /* stp a, b, [sp, #-16]! */
    else
        e(g, 0xa8c00000u | 2u << 15 | b << 10 | SP << 5 | a, RG_LOAD, "ldp");                       /* ldp a, b, [sp], #16 */
}

static void item_branch(Gen *g)
{
    Rng *r = g->r;
    unsigned k = rng_below(r, 20);
    uint64_t here = rg_here(g->img);
    if (k < 6) {                                        /* b.cond */
        e(g, 0x54000000u | (uint32_t)(rel_words(here, body_target(g)) & 0x7ffff) << 5 | rng_below(r, 15), RG_BRANCH,
          cond_b);
    } else if (k < 8) {                                 /* cbz/cbnz */
        e(g, (rng_pct(r, 70) ? 0x80000000u : 0) | (rng_pct(r, 50) ? 0x35000000u : 0x34000000u) |
                 (uint32_t)(rel_words(here, body_target(g)) & 0x7ffff) << 5 | any_reg(g),
          RG_BRANCH, "cbz|cbnz");
    } else if (k < 9) {                                 /* tbz/tbnz */
        int32_t d = rel_words(here, body_target(g));
        if (d < -8192 || d > 8191)
            d = (int32_t)rng_range(r, -100, 100);
        unsigned bit = rng_below(r, 64);
        e(g, (bit >> 5) << 31 | (rng_pct(r, 50) ? 0x37000000u : 0x36000000u) | (bit & 31) << 19 |
                 (uint32_t)(d & 0x3fff) << 5 | any_reg(g),
          RG_BRANCH, "tbz|tbnz");
    } else if (k < 11) {                                /* b */
        e(g, 0x14000000u | (uint32_t)(rel_words(here, body_target(g)) & 0x3ffffff), RG_BRANCH, "b");
    } else if (k < 13) {                                /* bl to a subroutine (mostly) */
        uint64_t t = rng_pct(r, 85) ? g->funcs[rng_below(r, NFUNC)] : body_target(g);
        e(g, 0x94000000u | (uint32_t)(rel_words(here, t) & 0x3ffffff), RG_BRANCH, "bl");
    } else if (k < 16) {                                /* br / blr through a register */
        unsigned reg = any_reg(g);
        uint64_t t = any_target(g);
        if (!room(g, mov_const_len(t) + 1))
            return;
        mov_const(g, reg, t, RG_ADDR);
        e(g, (k < 14 ? 0xd61f0000u : 0xd63f0000u) | reg << 5, RG_BRANCH, k < 14 ? "br" : "blr");
    } else if (k == 16) {                               /* ret (x30 or another register) */
        e(g, 0xd65f0000u | (rng_pct(r, 80) ? 30u : any_reg(g)) << 5, RG_BRANCH, "ret");
    } else {                                            /* a counted loop: movz; subs; b.ne back */
        unsigned reg = any_reg(g);
        if (!room(g, 3))
            return;
        e(g, 0xd2800000u | (1 + rng_below(r, 30)) << 5 | reg, RG_ALU, "mov|movz");
        e(g, 0xf1000400u | reg << 5 | reg, RG_ALU, "subs");                   /* subs reg, reg, #1 */
        e(g, 0x54000001u | (uint32_t)(-1 & 0x7ffff) << 5, RG_BRANCH, cond_b); /* b.ne .-4 */
    }
}

/* System registers the generator reads and writes (op0, op1, CRn, CRm, op2). */
static const uint16_t sysregs[] = {
    /* PMUv3 */
    SYSREG(3, 3, 9, 12, 0), SYSREG(3, 3, 9, 12, 1), SYSREG(3, 3, 9, 12, 2), SYSREG(3, 3, 9, 12, 3),
    SYSREG(3, 3, 9, 12, 4), SYSREG(3, 3, 9, 12, 5), SYSREG(3, 3, 9, 12, 6), SYSREG(3, 3, 9, 12, 7),
    SYSREG(3, 3, 9, 13, 0), SYSREG(3, 3, 9, 13, 1), SYSREG(3, 3, 9, 13, 2), SYSREG(3, 3, 9, 14, 0),
    SYSREG(3, 0, 9, 14, 1), SYSREG(3, 0, 9, 14, 2), SYSREG(3, 3, 9, 14, 3), SYSREG(3, 3, 14, 8, 0),
    SYSREG(3, 3, 14, 8, 1), SYSREG(3, 3, 14, 8, 5), SYSREG(3, 3, 14, 12, 0), SYSREG(3, 3, 14, 12, 1),
    SYSREG(3, 3, 14, 12, 5), SYSREG(3, 3, 14, 15, 7), SYSREG(3, 3, 14, 11, 6), SYSREG(3, 3, 14, 15, 6),
    /* generic timer */
    SYSREG(3, 3, 14, 0, 0), SYSREG(3, 3, 14, 0, 1), SYSREG(3, 3, 14, 0, 2), SYSREG(3, 3, 14, 2, 0),
    SYSREG(3, 3, 14, 2, 1), SYSREG(3, 3, 14, 2, 2), SYSREG(3, 3, 14, 3, 0), SYSREG(3, 3, 14, 3, 1),
    SYSREG(3, 3, 14, 3, 2), SYSREG(3, 0, 14, 1, 0), SYSREG(3, 4, 14, 1, 0), SYSREG(3, 4, 14, 0, 3),
    /* system */
    SYSREG(3, 0, 0, 0, 0), SYSREG(3, 0, 0, 0, 5), SYSREG(3, 0, 0, 0, 6), SYSREG(3, 0, 12, 0, 0),
    SYSREG(3, 0, 5, 2, 0), SYSREG(3, 0, 4, 0, 1), SYSREG(3, 0, 4, 0, 0), SYSREG(3, 0, 6, 0, 0),
    SYSREG(3, 0, 13, 0, 4), SYSREG(3, 3, 13, 0, 2), SYSREG(3, 3, 13, 0, 3), SYSREG(3, 0, 4, 2, 2),
    SYSREG(3, 3, 4, 2, 1), SYSREG(3, 3, 4, 2, 0), SYSREG(3, 0, 4, 2, 0), SYSREG(3, 0, 4, 1, 0),
    SYSREG(3, 0, 0, 4, 0), SYSREG(3, 0, 0, 5, 0), SYSREG(3, 3, 0, 0, 1), SYSREG(3, 3, 0, 0, 7),
    SYSREG(3, 0, 13, 0, 1), SYSREG(3, 0, 7, 4, 0), SYSREG(3, 0, 10, 2, 0), SYSREG(3, 0, 1, 0, 2),
    SYSREG(2, 0, 0, 2, 2), SYSREG(2, 0, 1, 0, 4), SYSREG(3, 0, 5, 1, 0), SYSREG(3, 3, 4, 4, 0),
    SYSREG(3, 0, 0, 7, 0), SYSREG(3, 0, 12, 1, 0), SYSREG(3, 4, 1, 1, 0), SYSREG(3, 6, 1, 1, 0),
};
#define NSYSREGS (sizeof sysregs / sizeof sysregs[0])

static unsigned pick_sysreg(Gen *g)
{
    if (rng_pct(g->r, 8))                               /* anything: UNDEFINED or not implemented */
        return SYSREG(2 + rng_below(g->r, 2), rng_below(g->r, 8), rng_below(g->r, 16), rng_below(g->r, 16),
                      rng_below(g->r, 8));
    return sysregs[rng_below(g->r, NSYSREGS)];
}

static uint64_t sysreg_value(Gen *g, unsigned key)
{
    Rng *r = g->r;
    if (key == SYSREG(3, 0, 12, 0, 0))                  /* VBAR_EL1: ours, nearly always */
        return rng_pct(r, 97) ? A_LOAD + OFF_VEC : rng_next(r);
    if (rng_pct(r, 15))
        return rng_next(r);
    switch (key) {
    case SYSREG(3, 3, 9, 12, 0): return rng_below(r, 0x80);                          /* PMCR: E P C D X DP LC */
    case SYSREG(3, 3, 9, 12, 1): case SYSREG(3, 3, 9, 12, 2): case SYSREG(3, 3, 9, 12, 3):
    case SYSREG(3, 0, 9, 14, 1): case SYSREG(3, 0, 9, 14, 2): case SYSREG(3, 3, 9, 14, 3):
        return rng_below(r, 64) | (rng_pct(r, 50) ? 1ull << 31 : 0);
    case SYSREG(3, 3, 9, 12, 4): return rng_below(r, 64);                            /* PMSWINC */
    case SYSREG(3, 3, 9, 12, 5): return rng_pct(r, 80) ? rng_below(r, 8) : 31;       /* PMSELR */
    case SYSREG(3, 3, 9, 13, 1): case SYSREG(3, 3, 14, 12, 0): case SYSREG(3, 3, 14, 12, 1):
    case SYSREG(3, 3, 14, 12, 5): {                                                  /* event types */
        static const uint16_t ev[] = { 0x00, 0x08, 0x11, 0x10, 0x12, 0x04, 0x03, 0x13, 0x1b, 0x23 };
        return ev[rng_below(r, sizeof ev / sizeof ev[0])] | (uint64_t)rng_below(r, 8) << 27;
    }
    case SYSREG(3, 3, 9, 13, 0): case SYSREG(3, 3, 9, 13, 2): case SYSREG(3, 3, 14, 8, 0):
    case SYSREG(3, 3, 14, 8, 1): case SYSREG(3, 3, 14, 8, 5):
        return rng_pct(r, 60) ? 0xffffffffull - rng_below(r, 3000) : rng_next(r);
    case SYSREG(3, 3, 14, 2, 1): case SYSREG(3, 3, 14, 3, 1): return rng_below(r, 4);  /* timer CTL */
    case SYSREG(3, 3, 14, 2, 0): case SYSREG(3, 3, 14, 3, 0): return rng_below(r, 5000);
    case SYSREG(3, 0, 12, 0, 0): return A_LOAD + OFF_VEC;                            /* VBAR: ours */
    case SYSREG(3, 0, 4, 0, 1): return any_target(g);                                /* ELR */
    case SYSREG(3, 0, 4, 0, 0): return rng_pct(r, 80) ? 0x3c5 : rng_pct(r, 50) ? 0x3c4 : rng_below(r, 0x400);  /* SPSR */
    case SYSREG(3, 0, 1, 0, 2): return rng_pct(r, 70) ? 3u << 20 : 0;                /* CPACR: FPEN */
    case SYSREG(3, 3, 4, 2, 1): return (uint64_t)rng_below(r, 16) << 6;             /* DAIF */
    case SYSREG(3, 0, 4, 2, 0): return rng_below(r, 2);                              /* SPSel */
    default: return rng_pct(r, 50) ? pool_addr(g) : rng_below(r, 0x10000);
    }
}

static void item_sysreg(Gen *g)
{
    Rng *r = g->r;
    unsigned key = pick_sysreg(g), t = any_reg(g);
    if (rng_pct(r, 50)) {
        e(g, a_mrs(key, t), RG_SYSREG, "mrs");
        return;
    }
    if (key == SYSREG(3, 0, 1, 0, 0)) {                 /* SCTLR_EL1: read, flip one bit, write */
        if (!room(g, 3))
            return;
        static const uint8_t bits[] = { 1, 2, 3, 4, 12, 19, 25, 26, 0 };
        unsigned bit = bits[rng_below(r, rng_pct(r, 95) ? 8 : 9)];
        e(g, a_mrs(key, t), RG_SYSREG, "mrs");
        e(g, 0xd2400000u | (64 - bit) % 64 << 16 | 0u << 10 | t << 5 | t, RG_ALU, "eor");   /* eor t, t, #(1 << bit) */
        e(g, a_msr(key, t), RG_SYSREG, "msr");
        return;
    }
    uint64_t v = sysreg_value(g, key);
    if (!room(g, mov_const_len(v) + 1))
        return;
    mov_const(g, t, v, RG_ALU);
    e(g, a_msr(key, t), RG_SYSREG, "msr");
}

/* PSCI through HVC #0 (DEN 0022: x0 = function, x1..x3 arguments). */
static void item_psci(Gen *g)
{
    Rng *r = g->r;
    static const uint32_t fns[] = { 0x84000000, 0xc4000003, 0x84000003, 0x84000004, 0xc4000004, 0x8400000a,
                                    0x84000006, 0x84000001, 0x84000002, 0x84000008, 0x84000009, 0x84000005 };
    static const unsigned w[] = { 10, 20, 5, 8, 4, 6, 3, 2, 1, 1, 1, 2 };
    uint32_t fn = fns[rng_weighted(r, w, sizeof w / sizeof w[0])];
    if (rng_pct(r, 5))
        fn = 0x84000000 | rng_below(r, 32);
    uint64_t a1 = rng_pct(r, 80) ? rng_below(r, 3) : rng_next(r);
    uint64_t a2 = fn == 0xc4000003 || fn == 0x84000003 ? (rng_pct(r, 80) ? A_LOAD : any_target(g)) : rng_below(r, 4);
    uint64_t a3 = rng_below(r, 4);
    if (!room(g, mov_const_len(fn) + mov_const_len(a1) + mov_const_len(a2) + mov_const_len(a3) + 1))
        return;
    mov_const(g, 0, fn, RG_ALU);
    mov_const(g, 1, a1, RG_ALU);
    mov_const(g, 2, a2, RG_ALU);
    mov_const(g, 3, a3, RG_ALU);
    e(g, 0xd4000002u, RG_DEVICE, "hvc");
}

static void item_system(Gen *g)
{
    Rng *r = g->r;
    unsigned k = rng_below(r, 22), t = any_reg(g);
    switch (k) {
    case 0: e(g, 0xd503201fu | (unsigned[]){ 0, 1, 2, 4, 5 }[rng_below(r, 5)] << 5, RG_SYSTEM, "nop|yield|wfe|sev|sevl"); break;
    case 1: e(g, rng_pct(r, 40) ? 0xd503207fu : 0xd503203fu, RG_SYSTEM, "wfi|yield"); break;
    case 2: e(g, 0xd5033fdfu, RG_SYSTEM, "isb"); break;
    case 3: e(g, 0xd503309fu | rng_below(r, 16) << 8, RG_SYSTEM, "dsb|ssbb|pssbb"); break;
    case 4: e(g, 0xd50330bfu | rng_below(r, 16) << 8, RG_SYSTEM, "dmb"); break;
    case 5: case 6: {                                   /* dc cvau/civac/cvac/ivac, ic ivau */
        static const uint32_t op[5] = { 0xd50b7b20, 0xd50b7e20, 0xd50b7a20, 0xd5087620, 0xd50b7520 };
        unsigned i = rng_below(r, 5);
        unsigned n = g->nareg && rng_pct(r, 80) ? (unsigned)g->areg[rng_below(r, g->nareg)] : t;
        e(g, op[i] | n, RG_SYSTEM, i < 4 ? "dc" : "ic");
        break;
    }
    case 7: e(g, rng_pct(r, 50) ? 0xd508751fu : 0xd508711fu, RG_SYSTEM, "ic"); break;    /* ic iallu(is) */
    case 8: e(g, 0xd50340dfu | rng_below(r, 16) << 8 | (rng_pct(r, 60) ? 0x20 : 0), RG_SYSTEM, "msr"); break; /* daifset/clr */
    case 9: e(g, 0xd50040bfu | rng_below(r, 2) << 8, RG_SYSTEM, "msr"); break;          /* msr spsel, #imm */
    case 10: e(g, rng_pct(r, 50) ? 0xd508871fu : 0xd508831fu, RG_SYSTEM, "tlbi"); break;
    case 11: e(g, 0xd5087800u | t, RG_SYSTEM, "at|sys"); break;                         /* at s1e1r */
    case 12: case 13: item_psci(g); break;
    case 14: e(g, 0xd69f03e0u, RG_SYSTEM, "eret"); break;                               /* whatever ELR holds */
    case 15: {                                          /* eret to EL1 with a chosen target */
        uint64_t target = any_target(g);
        if (!room(g, mov_const_len(target) + 4))
            return;
        mov_const(g, 16, target, RG_ALU);
        e(g, a_msr(SYSREG(3, 0, 4, 0, 1), 16), RG_SYSREG, "msr");
        e(g, 0xd2800000u | (rng_pct(r, 85) ? 0x3c5u : rng_pct(r, 50) ? 0x3c4u : 0x000u) << 5 | 16, RG_ALU, "mov|movz");
        e(g, a_msr(SYSREG(3, 0, 4, 0, 0), 16), RG_SYSREG, "msr");
        e(g, 0xd69f03e0u, RG_SYSTEM, "eret");
        break;
    }
    case 16: e(g, 0xd5033f5fu | rng_below(r, 16) << 8, RG_SYSTEM, "clrex"); break;
    case 17: e(g, 0xd503209fu, RG_SYSTEM, "sev"); break;
    case 18: {                                          /* console byte to the PL011 */
        if (!room(g, 4))
            return;
        mov_const(g, 16, PL011, RG_ADDR);
        e(g, 0x52800000u | (0x20 + rng_below(r, 0x5f)) << 5 | 17, RG_ALU, "mov|movz");
        e(g, 0xb9000000u | 16 << 5 | 17, RG_DEVICE, "str");
        break;
    }
    default: {                                          /* cache maintenance sequence on code */
        uint64_t a = A_LOAD + OFF_BODY + 4 * rng_below(r, (A_SIZE - OFF_BODY) / 4);
        if (!room(g, mov_const_len(a) + 5))
            return;
        mov_const(g, 16, a, RG_ADDR);
        e(g, 0xd50b7b20u | 16, RG_SYSTEM, "dc");
        e(g, 0xd5033b9fu, RG_SYSTEM, "dsb");
        e(g, 0xd50b7520u | 16, RG_SYSTEM, "ic");
        e(g, 0xd5033b9fu, RG_SYSTEM, "dsb");
        e(g, 0xd5033fdfu, RG_SYSTEM, "isb");
        break;
    }
    }
}

static void item_exception(Gen *g)
{
    Rng *r = g->r;
    switch (rng_below(r, 9)) {
    case 0: case 1: e(g, 0xd4000001u | rng_below(r, 65536) << 5, RG_EXCEPTION, "svc"); break;
    case 2: e(g, 0xd4000002u | rng_below(r, 65536) << 5, RG_EXCEPTION, "hvc"); break;
    case 3: e(g, 0xd4000003u | rng_below(r, 65536) << 5, RG_EXCEPTION, "smc"); break;
    case 4: case 5: e(g, 0xd4200000u | rng_below(r, 65536) << 5, RG_EXCEPTION, "brk"); break;
    case 6: e(g, 0xd4400000u | (rng_pct(r, 30) ? 0xf000u : rng_below(r, 65536)) << 5, RG_EXCEPTION, "hlt"); break;
    case 7: e(g, rng_below(r, 65536), RG_EXCEPTION, NULL); break;                       /* udf #imm */
    default: e(g, 0xd5300000u | rng_below(r, 1u << 15) << 5 | any_reg(g), RG_EXCEPTION, "mrs"); break;
    }
}

static void item_fp(Gen *g)
{
    Rng *r = g->r;
    unsigned d = rng_below(r, 32), n = rng_below(r, 32), m = rng_below(r, 32);
    switch (rng_below(r, 6)) {
    case 0: e(g, 0x9e670000u | any_reg(g) << 5 | d, RG_FP, "fmov"); break;              /* fmov d, x */
    case 1: e(g, 0x1e602800u | m << 16 | n << 5 | d, RG_FP, "fadd"); break;             /* fadd d, d, d */
    case 2: e(g, 0x1e601800u | m << 16 | n << 5 | d, RG_FP, "fdiv"); break;
    case 3: e(g, 0x4ea08400u | m << 16 | n << 5 | d, RG_FP, "add"); break;              /* add v.4s */
    case 4: e(g, 0x3dc00000u | rng_below(r, 256) << 10 | base_reg(g) << 5 | d, RG_FP, "ldr"); break;  /* ldr q */
    default: e(g, 0x3d800000u | rng_below(r, 256) << 10 | base_reg(g) << 5 | d, RG_FP, "str"); break;
    }
}

static void item_random(Gen *g)
{
    e(g, (uint32_t)rng_next(g->r), RG_RANDOM, NULL);
}

static void item(Gen *g)
{
    /* alu addr load store atomic stack branch sysreg system exception fp random */
    const unsigned w[] = { 28, 9, 10, 8, 3, 3, 12, 9, 7, 3, 3, g->o->random_pct };
    switch (rng_weighted(g->r, w, sizeof w / sizeof w[0])) {
    case 0: item_alu(g); break;
    case 1: item_addr(g); break;
    case 2: item_load_store(g, false); break;
    case 3: item_load_store(g, true); break;
    case 4: item_atomic(g); break;
    case 5: item_stack(g); break;
    case 6: item_branch(g); break;
    case 7: item_sysreg(g); break;
    case 8: item_system(g); break;
    case 9: item_exception(g); break;
    case 10: item_fp(g); break;
    default: item_random(g); break;
    }
}

static void quiet_item(Gen *g)
{
    if (!room(g, 5))
        return;
    unsigned k = rng_below(g->r, 10);
    g->quiet = true;
    if (k < 5) {
        item_alu(g);
    } else if (k < 8) {                                 /* x17 = a RAM address, then the access */
        mov_const(g, 17, DATA_BASE + 0x10000 + 8 * rng_below(g->r, 0x2000), RG_ADDR);
        item_load_store(g, k == 7);
    } else if (k < 9) {
        item_addr(g);
    } else {
        e(g, a_mrs(sysregs[rng_below(g->r, NSYSREGS)], any_reg(g)), RG_SYSREG, "mrs");
    }
    g->quiet = false;
}

/* ------------------------------------------------------------------ handlers */

/* The end of a handler: return past the fault, as is, after a WFI, into the body, or fault. */
static void handler_tail(Gen *g, bool irq)
{
    Rng *r = g->r;
    unsigned act = rng_below(r, 100);
    if (irq)
        act = act < 80 ? 70 : act;
    if (act < 60) {
        if (rng_pct(r, 50)) {                           /* SVC/HVC/SMC already point past */
            e(g, a_mrs(SYSREG(3, 0, 5, 2, 0), 17), RG_SYSREG, "mrs");                   /* esr_el1 */
            e(g, 0xd35afe31u, RG_ALU, "lsr|ubfm");                                      /* lsr x17, x17, #26 */
            e(g, 0xf100563fu, RG_ALU, "cmp|subs");                                      /* cmp x17, #0x15 */
            e(g, 0x54000000u | 4u << 5, RG_BRANCH, cond_b);                             /* b.eq +4 insns */
        }
        e(g, a_mrs(SYSREG(3, 0, 4, 0, 1), 16), RG_SYSREG, "mrs");                       /* elr_el1 */
        e(g, 0x91001210u, RG_ALU, "add");                                              /* add x16, x16, #4 */
        e(g, a_msr(SYSREG(3, 0, 4, 0, 1), 16), RG_SYSREG, "msr");
    } else if (act < 88) {
    } else if (act < 90) {
        e(g, 0xd503207fu, RG_SYSTEM, "wfi");
    } else if (act < 97) {
        uint64_t t = A_LOAD + OFF_BODY + 4 * rng_below(r, (A_SIZE - OFF_BODY) / 4 - 1);
        e(g, 0x14000000u | (uint32_t)(rel_words(rg_here(g->img), t) & 0x3ffffff), RG_BRANCH, "b");
    } else {
        item_exception(g);
    }
    e(g, 0xd69f03e0u, RG_SYSTEM, "eret");
}

/* A handler body: random work, then a tail (inline, or a branch to a shared one). */
static void gen_vector(Gen *g, uint32_t off, bool irq)
{
    Rng *r = g->r;
    g->img->pos = off;
    g->limit = off + 0x80 - 4 * 9;                      /* room for the longest tail */
    if (rng_pct(r, 3))
        e(g, 0xd503207fu, RG_SYSTEM, "wfi");
    unsigned n = rng_below(r, 8);
    for (unsigned i = 0; i < n; i++)
        quiet_item(g);
    g->limit = off + 0x80;
    if (g->ntails && rng_pct(r, 30))
        e(g, 0x14000000u | (uint32_t)(rel_words(rg_here(g->img), g->tails[rng_below(r, g->ntails)]) & 0x3ffffff),
          RG_BRANCH, "b");
    else
        handler_tail(g, irq);
}

/* ------------------------------------------------------------------ prologue */

static void prologue(Gen *g)
{
    Rng *r = g->r;
    e(g, a_mrs(SYSREG(3, 0, 0, 0, 5), 9), RG_SYSREG, "mrs");                   /* x9 = MPIDR_EL1 */
    e(g, 0x92401d29u, RG_ALU, "and");                                          /* and x9, x9, #0xff */
    mov_const(g, 10, STACK_TOP, RG_ALU);
    e(g, 0xcb094140u | 10, RG_ALU, "sub");                                     /* sub x10, x10, x9, lsl #16 */
    e(g, 0x9100015fu, RG_ALU, "add|mov");                                      /* mov sp, x10 */
    if (g->o->vectors) {
        mov_const(g, 11, A_LOAD + OFF_VEC, RG_ALU);
        e(g, a_msr(SYSREG(3, 0, 12, 0, 0), 11), RG_SYSREG, "msr");             /* vbar_el1 */
        e(g, 0xd5033fdfu, RG_SYSTEM, "isb");
    }
    if (rng_pct(r, 70)) {                                                      /* CPACR_EL1.FPEN = 3 */
        mov_const(g, 12, 3u << 20, RG_ALU);
        e(g, a_msr(SYSREG(3, 0, 1, 0, 2), 12), RG_SYSREG, "msr");
    }
    for (unsigned reg = 0; reg < 31; reg++) {
        if (reg == 16 || reg == 17 || rng_pct(r, 20))
            continue;
        uint64_t v = rng_pct(r, 60) ? pool_addr(g) : rng_pct(r, 50) ? rng_below(r, 256) : rng_next(r);
        mov_const(g, reg, v, RG_ADDR);
        if (v > 0x1000)
            note_areg(g, reg);
    }
    e(g, 0x14000000u | (uint32_t)(rel_words(rg_here(g->img), A_LOAD + OFF_BODY) & 0x3ffffff), RG_BRANCH, "b");
}

static void a64_generate(Rng *r, RgImage *img, const RgOptions *o)
{
    Gen g = { .r = r, .img = img, .o = o };
    /* subroutines */
    img->pos = OFF_FUNCS;
    g.limit = OFF_BODY;
    for (unsigned i = 0; i < NFUNC; i++) {
        g.funcs[i] = rg_here(img);
        g.limit = img->pos + 4 * 24;
        for (unsigned k = 2 + rng_below(r, 12); k > 0; k--)
            quiet_item(&g);
        g.limit = OFF_BODY;
        e(&g, 0xd65f03c0u, RG_BRANCH, "ret");
    }
    if (o->vectors) {
        /* shared tails */
        img->pos = OFF_TAILS;
        g.limit = OFF_FUNCS;
        for (unsigned i = 0; i < 8; i++) {
            g.tails[g.ntails++] = rg_here(img);
            for (unsigned k = rng_below(r, 6); k > 0; k--)
                quiet_item(&g);
            handler_tail(&g, i >= 6);
        }
        for (unsigned v = 0; v < 16; v++)
            gen_vector(&g, OFF_VEC + 0x80 * v, (v & 3) == 1 || (v & 3) == 2);
    }
    img->pos = 0;
    g.limit = OFF_VEC;
    prologue(&g);
    img->pos = OFF_BODY;
    g.limit = A_SIZE - 4;
    while (rg_room(img, g.limit) >= 4 * 8)
        item(&g);
    while (rg_room(img, g.limit) >= 4)
        item_alu(&g);
    g.limit = A_SIZE;
    e(&g, 0x14000000u | (uint32_t)(rel_words(rg_here(img), A_LOAD + OFF_BODY) & 0x3ffffff), RG_BRANCH, "b");
}

const RgArch rg_arch_arm64 = { "arm64", A_LOAD, A_SIZE, false, a64_generate };
