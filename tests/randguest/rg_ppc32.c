/* rg_ppc32.c — random PowerPC 7450 guests (loaded raw at 0x0, entry = 0, big-endian).
 *
 * Encodings: PowerPC Microprocessor Family: The Programming Environments for 32-bit
 * Microprocessors (PEM), chapter 8 and appendix A; SPR numbers and the performance monitor from
 * the MPC7450 RM (table 2-3, chapter 11).  Layout (physical addresses, MSR[IP] = 0):
 *
 *   0x0000  b prologue
 *   0x0100  exception vectors 0x100 .. 0x2F00 (0x100 each; 0xF00 branches out, 0xF20 AltiVec
 *           unavailable): random handlers that mostly return past the fault (SRR0 += 4, rfi)
 *   0x3000  prologue: per-CPU stack (PIR), registers, MSR, decrementer
 *   0x3800  shared handler tails, subroutines
 *   0x4800  body, then a branch back to its start (ends below the spin table at 0xF000)
 *
 * Data lives at 0x100000, stacks below 0x300000 (0x10000 per CPU).  r11/r12 are the handlers'
 * scratch registers (r12 saved in SPRG1 by some handlers); the body uses them only rarely.
 */
#include "rg.h"

#define P_SIZE 0xf000u
#define OFF_PROLOGUE 0x3000u
#define OFF_TAILS 0x3800u
#define OFF_BODY 0x4800u

#define DATA_BASE 0x100000u
#define DATA_SIZE 0x100000u
#define STACK_TOP 0x300000u
#define ISA 0x80000000u
#define ROM 0xfff00000u
#define SPIN_TABLE 0xf000u              /* ePAPR entries of 32 bytes (docs/machines.md) */

#define NFUNC 10

enum { SPR_XER = 1, SPR_LR = 8, SPR_CTR = 9, SPR_DEC = 22, SPR_SRR0 = 26, SPR_SRR1 = 27, SPR_SPRG0 = 272,
       SPR_SPRG1 = 273, SPR_PVR = 287, SPR_PIR = 1023, SPR_MMCR0 = 952, SPR_PMC1 = 953, SPR_PMC2 = 954,
       SPR_MMCR1 = 956, SPR_MMCR2 = 944 };

typedef struct Gen {
    Rng *r;
    RgImage *img;
    const RgOptions *o;
    uint32_t limit;
    uint32_t funcs[NFUNC];
    uint32_t tails[8];
    unsigned ntails;
    uint32_t pm_tail;           /* the 0xF00 handler (the vector has room for 8 instructions) */
    int areg[4];
    unsigned nareg;
    bool quiet;                 /* handlers and subroutines: r12 holds a RAM address for them */
} Gen;

/* ------------------------------------------------------------------ encoding */

static void e(Gen *g, uint32_t w, RgClass cls, const char *mn)
{
    rg_emit32(g->img, w, cls, mn);
}

static bool room(Gen *g, unsigned n)
{
    return rg_room(g->img, g->limit) >= 4 * n;
}

static uint32_t D(unsigned op, unsigned rt, unsigned ra, uint32_t imm)
{
    return op << 26 | (rt & 31) << 21 | (ra & 31) << 16 | (imm & 0xffff);
}

static uint32_t X(unsigned rt, unsigned ra, unsigned rb, unsigned xo, unsigned rc)
{
    return 31u << 26 | (rt & 31) << 21 | (ra & 31) << 16 | (rb & 31) << 11 | xo << 1 | rc;
}

static uint32_t spr_field(unsigned spr)
{
    return (spr & 0x1f) << 16 | ((spr >> 5) & 0x1f) << 11;
}

static uint32_t mtspr(unsigned spr, unsigned rs)
{
    return 31u << 26 | (rs & 31) << 21 | spr_field(spr) | 467u << 1;
}

static uint32_t mfspr(unsigned rt, unsigned spr)
{
    return 31u << 26 | (rt & 31) << 21 | spr_field(spr) | 339u << 1;
}

/* li rd, v (a sign-extended 16-bit value) or lis rd, hi; ori rd, rd, lo */
static void li32(Gen *g, unsigned rd, uint32_t v, RgClass cls)
{
    if (v < 0x8000 || v >= 0xffff8000u) {
        e(g, D(14, rd, 0, v), cls, "li|addi");
        return;
    }
    e(g, D(15, rd, 0, v >> 16), cls, "lis|addis");
    if (v & 0xffff)
        e(g, D(24, rd, rd, v & 0xffff), cls, "ori");
}

static uint32_t branch(uint32_t from, uint32_t to, bool link)
{
    return 18u << 26 | ((to - from) & 0x03fffffcu) | (link ? 1 : 0);
}

/* ------------------------------------------------------------------ operands */

/* r0..r31 without r1 (the stack) and r11/r12 (handler scratch), mostly */
static unsigned any_reg(Gen *g)
{
    if (rng_pct(g->r, 3))
        return (unsigned[]){ 1, 11, 12 }[rng_below(g->r, 3)];
    unsigned v = rng_below(g->r, 29);
    return v >= 1 ? (v >= 10 ? v + 3 : v + 1) : 0;
}

static uint32_t pool_addr(Gen *g)
{
    static const unsigned w[] = { 40, 6, 1, 2, 5, 8, 1, 3, 3, 4, 3, 2 };
    Rng *r = g->r;
    uint32_t a;
    switch (rng_weighted(r, w, sizeof w / sizeof w[0])) {
    case 0: a = DATA_BASE + rng_below(r, DATA_SIZE); break;
    case 1: a = rng_below(r, P_SIZE); break;                            /* the image: vectors, code */
    case 2: a = SPIN_TABLE + rng_below(r, 0x80); break;
    case 3: a = 0x10000 + rng_below(r, 0x2000); break;                  /* the DTB */
    case 4: a = STACK_TOP - 0x2000 + rng_below(r, 0x2000); break;
    case 5: a = ISA + 0x3f8 + rng_below(r, 8); break;                   /* the UART */
    case 6: a = ISA + (rng_pct(r, 90) ? 0x441 + 2 * rng_below(r, 2) : 0x501 + rng_below(r, 2)); break;
    case 7: a = ISA + rng_below(r, 0x10000); break;                     /* other ports */
    case 8: a = ROM + rng_below(r, 0x100000); break;
    case 9: a = 0x08000000u + rng_below(r, 0x78000000u); break;         /* unmapped */
    case 10: a = 0x80010000u + rng_below(r, 0x7fef0000u); break;
    default: a = (uint32_t)rng_next(r); break;
    }
    if (rng_pct(r, 60) && a < ISA)
        a &= ~3u;
    return a;
}

static uint32_t body_target(Gen *g)
{
    Rng *r = g->r;
    uint32_t nw = (P_SIZE - OFF_BODY) / 4 - 1;
    uint32_t cur = g->img->pos >= OFF_BODY ? (g->img->pos - OFF_BODY) / 4 : 0;
    int64_t t = rng_pct(r, 70) ? (int64_t)cur + 1 + rng_below(r, 160) : (int64_t)cur - (int64_t)rng_below(r, 160);
    if (t < 0)
        t = rng_below(r, 64);
    if (t >= nw)
        t = nw - 1 - rng_below(r, 64);
    return OFF_BODY + 4 * (uint32_t)t;
}

static uint32_t any_target(Gen *g)
{
    Rng *r = g->r;
    unsigned k = rng_below(r, 100);
    if (k < 85)
        return body_target(g);
    if (k < 93)
        return g->funcs[rng_below(r, NFUNC)];
    if (k < 96)
        return OFF_PROLOGUE;
    return pool_addr(g) & ~3u;
}

static void note_areg(Gen *g, unsigned reg)
{
    if (reg == 0)
        return;                                         /* r0 as a base register means 0 */
    if (g->nareg < 4)
        g->areg[g->nareg++] = (int)reg;
    else
        g->areg[rng_below(g->r, 4)] = (int)reg;
}

static unsigned base_reg(Gen *g)
{
    unsigned k = rng_below(g->r, 100);
    if (g->quiet && k < 90)
        return 12;
    if (k < 75 && g->nareg)
        return (unsigned)g->areg[rng_below(g->r, g->nareg)];
    if (k < 85)
        return 1;
    if (k < 90)
        return 0;                                       /* EA = displacement: low memory, vectors */
    return any_reg(g);
}

/* ------------------------------------------------------------------ items */

static void item_alu(Gen *g)
{
    Rng *r = g->r;
    unsigned d = any_reg(g), a = any_reg(g), b = any_reg(g), k = rng_below(r, 14), rc = rng_pct(r, 15);
    uint32_t imm = rng_pct(r, 50) ? rng_below(r, 256) : (uint32_t)rng_next(r);
    switch (k) {
    case 0: case 1: {                                   /* D-form arithmetic and logic */
        static const uint8_t ops[10] = { 14, 15, 12, 13, 8, 7, 24, 25, 26, 27 };
        static const char *const mn[10] = { "addi|li|subi|la", "addis|lis|subis", "addic|subic", "addic.|subic.", "subfic",
                                            "mulli", "ori|nop", "oris", "xori", "xoris" };
        unsigned i = rng_below(r, 10);
        if (i >= 6)                                     /* logical: rS in the rt field, rA is the target */
            e(g, D(ops[i], a, d, imm), RG_ALU, mn[i]);
        else
            e(g, D(ops[i], d, a, imm), RG_ALU, mn[i]);
        break;
    }
    case 2: {                                           /* andi. / andis. */
        bool s = rng_pct(r, 40);
        e(g, D(s ? 29 : 28, a, d, imm), RG_ALU, s ? "andis." : "andi.");
        break;
    }
    case 3: case 4: {                                   /* XO-form arithmetic */
        static const uint16_t xo[11] = { 266, 40, 10, 138, 8, 136, 235, 75, 11, 491, 459 };
        static const char *const mn[11] = { "add*", "subf*|sub*", "addc*", "adde*", "subfc*|subc*", "subfe*",
                                            "mullw*", "mulhw*", "mulhwu*", "divw*", "divwu*" };
        unsigned i = rng_below(r, 11), oe = i != 7 && i != 8 && rng_pct(r, 10);   /* mulhw(u): no OE */
        e(g, X(d, a, b, xo[i] | oe << 9, rc), RG_ALU, oe ? NULL : mn[i]);         /* Capstone 4: no "o" forms */
        break;
    }
    case 5: case 6: {                                   /* X-form logic and shifts: rS, rA, rB */
        static const uint16_t xo[11] = { 28, 444, 316, 124, 60, 412, 476, 284, 24, 536, 792 };
        static const char *const mn[11] = { "and*", "or*|mr*", "xor*", "nor*|not*", "andc*", "orc*", "nand*", "eqv*",
                                            "slw*", "srw*", "sraw*" };
        unsigned i = rng_below(r, 11);
        e(g, X(a, d, b, xo[i], rc), RG_ALU, mn[i]);
        break;
    }
    case 7: {                                           /* one-operand: neg, cntlzw, extsb, extsh, srawi */
        unsigned i = rng_below(r, 5);
        if (i == 0)
            e(g, X(d, a, 0, 104, rc), RG_ALU, "neg*");
        else if (i == 4)
            e(g, X(a, d, rng_below(r, 32), 824, rc), RG_ALU, "srawi*");
        else
        {
            static const uint16_t xo1[4] = { 0, 26, 954, 922 };
            static const char *const mn1[4] = { "", "cntlz*", "extsb*", "extsh*" };
            e(g, X(a, d, 0, xo1[i], rc), RG_ALU, mn1[i]);
        }
        break;
    }
    case 8: case 9: {                                   /* rlwinm / rlwimi / rlwnm */
        unsigned i = rng_below(r, 3), sh = rng_below(r, 32), mb = rng_below(r, 32), me = rng_below(r, 32);
        static const uint8_t op[3] = { 21, 20, 23 };
        static const char *const mn[3] = { "rlwinm*|slwi*|srwi*|clrlwi*|clrrwi*|rotlwi*|rotrwi*|extlwi*|extrwi*|clrlslwi*",
                                           "rlwimi*|inslwi*|insrwi*", "rlwnm*|rotlw*" };
        e(g, op[i] << 26 | a << 21 | d << 16 | (i == 2 ? b : sh) << 11 | mb << 6 | me << 1 | rc, RG_ALU, mn[i]);
        break;
    }
    case 10: {                                          /* compares into a CR field */
        unsigned bf = rng_below(r, 8), i = rng_below(r, 4);
        if (i == 0)
            e(g, D(11, bf << 2, a, imm), RG_ALU, "cmpwi|cmpw*|cmp*");
        else if (i == 1)
            e(g, D(10, bf << 2, a, imm), RG_ALU, "cmplwi|cmplw*|cmpl*");
        else
            e(g, X(bf << 2, a, b, i == 2 ? 0 : 32, 0), RG_ALU, "cmpw|cmplw|cmp*");
        break;
    }
    case 11: {                                          /* CR logic, mcrf, mfcr, mtcrf */
        unsigned i = rng_below(r, 4);
        if (i == 0)
            e(g, 19u << 26 | rng_below(r, 32) << 21 | rng_below(r, 32) << 16 | rng_below(r, 32) << 11 |
                     (unsigned[]){ 257, 449, 193, 129, 289, 225, 417, 33 }[rng_below(r, 8)] << 1,
              RG_ALU, "cr*");
        else if (i == 1)
            e(g, 19u << 26 | rng_below(r, 8) << 23 | rng_below(r, 8) << 18, RG_ALU, "mcrf");
        else if (i == 2)
            e(g, X(d, 0, 0, 19, 0), RG_ALU, "mfcr");
        else
            e(g, 31u << 26 | a << 21 | rng_below(r, 256) << 12 | 144u << 1, RG_ALU, "mtcrf|mtcr");
        break;
    }
    case 12:                                            /* li / lis */
        li32(g, d, imm, RG_ALU);
        break;
    default:                                            /* mr, mtlr/mtctr/mflr */
        if (rng_pct(r, 50))
            e(g, X(a, d, a, 444, 0), RG_ALU, "mr|or");
        else
            e(g, rng_pct(r, 50) ? mtspr(rng_pct(r, 50) ? SPR_LR : SPR_CTR, a) : mfspr(d, rng_pct(r, 50) ? SPR_LR : SPR_CTR),
              RG_ALU, "mt*|mf*");
        break;
    }
}

static void item_addr(Gen *g)
{
    unsigned d = any_reg(g);
    uint32_t a = pool_addr(g);
    if (d == 0)
        d = 3;
    if (!room(g, 2))
        return;
    li32(g, d, a, RG_ADDR);
    note_areg(g, d);
}

static void item_load_store(Gen *g, bool store)
{
    Rng *r = g->r;
    unsigned a = base_reg(g), t = any_reg(g), k = rng_below(r, g->quiet ? 6 : 10);   /* quiet: D-form only */
    int32_t disp = rng_pct(r, 60) ? (int32_t)rng_below(r, 64) * 4 - 64 : (int32_t)rng_range(r, -0x8000, 0x7fff);
    if (k < 6) {                                        /* D-form, with update sometimes */
        static const uint8_t ld[5] = { 32, 34, 40, 42, 32 }, st[5] = { 36, 38, 44, 36, 36 };
        static const char *const ldn[5] = { "lwz", "lbz", "lhz", "lha", "lwz" };
        static const char *const stn[5] = { "stw", "stb", "sth", "stw", "stw" };
        static const char *const ldu[5] = { "lwzu", "lbzu", "lhzu", "lhau", "lwzu" };
        static const char *const stu[5] = { "stwu", "stbu", "sthu", "stwu", "stwu" };
        unsigned i = rng_below(r, 5);
        bool upd = rng_pct(r, 15) && a != 0 && (store || a != t);
        uint32_t op = (store ? st[i] : ld[i]) + (upd ? 1 : 0);
        e(g, D(op, t, a, (uint32_t)disp), store ? RG_STORE : RG_LOAD,
          store ? (upd ? stu[i] : stn[i]) : (upd ? ldu[i] : ldn[i]));
    } else if (k < 9) {                                 /* X-form indexed */
        static const uint16_t ld[5] = { 23, 87, 279, 343, 534 }, st[5] = { 151, 215, 407, 407, 662 };
        static const char *const ldn[5] = { "lwzx", "lbzx", "lhzx", "lhax", "lwbrx" };
        static const char *const stn[5] = { "stwx", "stbx", "sthx", "sthx", "stwbrx" };
        unsigned i = rng_below(r, 5), b = any_reg(g);
        e(g, X(t, a, b, store ? st[i] : ld[i], 0), store ? RG_STORE : RG_LOAD, store ? stn[i] : ldn[i]);
    } else {                                            /* lmw / stmw of a few registers */
        unsigned first = 26 + rng_below(r, 6);
        if (a >= first || a == 0)
            a = g->nareg && (unsigned)g->areg[0] < first ? (unsigned)g->areg[0] : 3;
        e(g, D(store ? 47 : 46, first, a, (uint32_t)disp & ~3u), store ? RG_STORE : RG_LOAD, store ? "stmw" : "lmw");
    }
}

static void item_atomic(Gen *g)
{
    Rng *r = g->r;
    unsigned a = base_reg(g), b = any_reg(g), t = any_reg(g);
    if (rng_pct(r, 50))
        e(g, X(t, a, b, 20, 0), RG_ATOMIC, "lwarx");
    else
        e(g, X(t, a, b, 150, 1), RG_ATOMIC, "stwcx.");
}

static void item_branch(Gen *g)
{
    Rng *r = g->r;
    unsigned k = rng_below(r, 20);
    uint32_t here = (uint32_t)rg_here(g->img);
    static const uint8_t bos[] = { 12, 4, 12, 4, 16, 18, 0, 2, 8, 10, 20 };
    unsigned bo = bos[rng_below(r, sizeof bos)], bi = rng_below(r, 32);
    if (k < 7) {                                        /* bc */
        uint32_t t = body_target(g);
        e(g, 16u << 26 | bo << 21 | bi << 16 | ((t - here) & 0xfffc) | (rng_pct(r, 5) ? 1 : 0), RG_BRANCH, "b*");
    } else if (k < 10) {                                /* b */
        e(g, branch(here, body_target(g), false), RG_BRANCH, "b");
    } else if (k < 13) {                                /* bl to a subroutine (mostly) */
        e(g, branch(here, rng_pct(r, 85) ? g->funcs[rng_below(r, NFUNC)] : body_target(g), true), RG_BRANCH, "bl");
    } else if (k < 16) {                                /* bctr / bctrl / blr through a loaded target */
        unsigned reg = any_reg(g);
        uint32_t t = any_target(g);
        if (!room(g, 4))
            return;
        li32(g, reg, t, RG_ADDR);
        bool lr = k == 15;
        e(g, mtspr(lr ? SPR_LR : SPR_CTR, reg), RG_ALU, lr ? "mtlr" : "mtctr");
        e(g, lr ? 0x4e800020u : (rng_pct(r, 50) ? 0x4e800420u : 0x4e800421u), RG_BRANCH, "b*");
    } else if (k == 16) {                               /* blr / bclr with a condition */
        e(g, 19u << 26 | (rng_pct(r, 70) ? 20u : bo) << 21 | bi << 16 | 16u << 1, RG_BRANCH, "b*");
    } else {                                            /* counted loop: li; mtctr; bdnz . */
        unsigned reg = any_reg(g);
        if (!room(g, 3))
            return;
        e(g, D(14, reg, 0, 1 + rng_below(r, 40)), RG_ALU, "li|addi");
        e(g, mtspr(SPR_CTR, reg), RG_ALU, "mtctr");
        e(g, 16u << 26 | 16u << 21 | 0u, RG_BRANCH, "b*");                  /* bdnz . */
    }
}

static const uint16_t sprs[] = {
    1, 8, 9, 18, 19, 22, 22, 22, 25, 26, 27, 272, 273, 274, 275, 276, 277, 278, 279, 282, 284, 285, 287,
    528, 529, 536, 537, 1008, 1009, 1010, 1011, 1014, 1015, 1016, 1017, 1018, 1019, 1023, 256,
    944, 945, 946, 951, 952, 952, 953, 953, 954, 955, 956, 957, 958, 928, 929, 930, 935, 936, 937, 938,
    939, 940, 941, 942, 268, 269,
};

static uint32_t spr_value(Gen *g, unsigned spr)
{
    Rng *r = g->r;
    if (rng_pct(r, 15))
        return (uint32_t)rng_next(r);
    switch (spr) {
    case SPR_DEC: return rng_pct(r, 70) ? rng_below(r, 3000) : (uint32_t)rng_next(r);
    case 952: case 936: {                               /* MMCR0 */
        uint32_t v = 0x04000000u * rng_pct(r, 70) | 0x8000u * rng_pct(r, 70) | 0x4000u * rng_pct(r, 40) |
                     (1 + rng_below(r, 3)) << 6 | rng_below(r, 4);
        static const uint32_t extra[] = { 0x80000000u, 0x40000000u, 0x20000000u, 0x10000000u, 0x08000000u,
                                          0x02000000u, 0x01800000u, 0x00400000u, 0x00002000u, 0x00800000u };
        for (unsigned i = rng_below(r, 3); i > 0; i--)
            v |= extra[rng_below(r, 10)];
        if (rng_pct(r, 10))
            v = (v & ~0x1fc0u) | rng_below(r, 128) << 6;
        return v;
    }
    case 956: case 940: return (uint32_t)rng_next(r) & 0xfffffe00u;        /* MMCR1 */
    case 944: case 928: return rng_below(r, 2) << 31;                      /* MMCR2 */
    case 953: case 954: case 957: case 958: case 945: case 946:
        return rng_pct(r, 70) ? 0x80000000u - rng_below(r, 3000) : rng_below(r, 1000);
    case SPR_SRR0: return any_target(g);
    case SPR_SRR1: return 0x1000u | 0x8000u * rng_pct(r, 40) | 0x4000u * rng_pct(r, 10) | 0x2000u * rng_pct(r, 30) | 2;
    case 284: case 285: return rng_pct(r, 50) ? rng_below(r, 100000) : (uint32_t)rng_next(r);
    case 1008: return (uint32_t)rng_next(r) & 0x0000c0ffu;                 /* HID0: harmless bits mostly */
    default: return rng_pct(r, 50) ? pool_addr(g) : rng_below(r, 0x10000);
    }
}

static void item_sysreg(Gen *g)
{
    Rng *r = g->r;
    unsigned spr = rng_pct(r, 5) ? rng_below(r, 1024) : sprs[rng_below(r, sizeof sprs / sizeof sprs[0])];
    unsigned t = any_reg(g);
    unsigned k = rng_below(r, 10);
    if (k < 4) {
        e(g, mfspr(t, spr), RG_SYSREG, "mf*");
    } else if (k < 5) {                                 /* mftb / mftbu */
        e(g, 31u << 26 | t << 21 | spr_field(rng_pct(r, 50) ? 268 : 269) | 371u << 1, RG_SYSREG, "mftb*");
    } else if (k < 6) {                                 /* mfmsr, mfsr */
        if (rng_pct(r, 60))
            e(g, X(t, 0, 0, 83, 0), RG_SYSREG, "mfmsr");
        else
            e(g, X(t, rng_below(r, 16), 0, 595, 0), RG_SYSREG, "mfsr");
    } else {
        uint32_t v = spr_value(g, spr);
        if (!room(g, 3))
            return;
        li32(g, t, v, RG_ALU);
        e(g, mtspr(spr, t), RG_SYSREG, "mt*");
    }
}

/* An MSR value: supervisor with ME mostly, EE/FP/VEC/PMM often, the rest rarely. */
static uint32_t msr_value(Gen *g)
{
    Rng *r = g->r;
    uint32_t v = 0x1000u * rng_pct(r, 95) | 0x2u;
    v |= 0x8000u * rng_pct(r, 50) | 0x2000u * rng_pct(r, 40) | 0x02000000u * rng_pct(r, 30) | 0x4u * rng_pct(r, 20);
    v |= 0x4000u * rng_pct(r, 12) | 0x400u * rng_pct(r, 2) | 0x200u * rng_pct(r, 2) | 0x40u * rng_pct(r, 2) |
         0x30u * rng_pct(r, 3) | 0x1u * rng_pct(r, 1) | 0x40000u * rng_pct(r, 2);
    return v;
}

static void item_system(Gen *g)
{
    Rng *r = g->r;
    unsigned k = rng_below(r, 20), t = any_reg(g);
    unsigned a = g->nareg && rng_pct(r, 80) ? (unsigned)g->areg[rng_below(r, g->nareg)] : any_reg(g), b = 0;
    switch (k) {
    case 0: case 1: {                                   /* mtmsr */
        if (!room(g, 4))
            return;
        li32(g, t, msr_value(g), RG_ALU);
        e(g, X(t, 0, 0, 146, 0), RG_SYSTEM, "mtmsr");
        if (rng_pct(r, 50))
            e(g, 0x4c00012cu, RG_SYSTEM, "isync");
        break;
    }
    case 2: e(g, 0x4c00012cu, RG_SYSTEM, "isync"); break;
    case 3: e(g, X(0, 0, 0, 598, 0), RG_SYSTEM, "sync|msync|hwsync"); break;
    case 4: e(g, X(0, 0, 0, 854, 0), RG_SYSTEM, "eieio"); break;
    case 5: case 6: {                                   /* cache blocks */
        static const uint16_t xo[6] = { 54, 86, 470, 1014, 278, 982 };
        static const char *const mn[6] = { "dcbst", "dcbf", "dcbi", "dcbz", "dcbt", "icbi" };
        unsigned i = rng_below(r, 6);
        e(g, X(0, b, a, xo[i], 0), RG_SYSTEM, mn[i]);
        break;
    }
    case 7: {                                           /* the code-patch sequence: dcbst; sync; icbi; sync; isync */
        if (!room(g, 7))
            return;
        li32(g, 12, OFF_BODY + 4 * rng_below(r, (P_SIZE - OFF_BODY) / 4), RG_ADDR);
        e(g, X(0, 0, 12, 54, 0), RG_SYSTEM, "dcbst");
        e(g, X(0, 0, 0, 598, 0), RG_SYSTEM, "sync|msync|hwsync");
        e(g, X(0, 0, 12, 982, 0), RG_SYSTEM, "icbi");
        e(g, X(0, 0, 0, 598, 0), RG_SYSTEM, "sync|msync|hwsync");
        e(g, 0x4c00012cu, RG_SYSTEM, "isync");
        break;
    }
    case 8: e(g, X(0, 0, a, 306, 0), RG_SYSTEM, "tlbie"); break;
    case 9: e(g, X(0, 0, 0, 566, 0), RG_SYSTEM, "tlbsync"); break;
    case 10: e(g, X(t, rng_below(r, 16), 0, 210, 0), RG_SYSTEM, "mtsr"); break;
    case 11: e(g, 0x4c000064u, RG_SYSTEM, "rfi"); break;                   /* whatever SRR0/1 hold */
    case 12: {                                          /* rfi to a chosen target and MSR */
        if (!room(g, 7))
            return;
        li32(g, 12, any_target(g), RG_ALU);
        e(g, mtspr(SPR_SRR0, 12), RG_SYSREG, "mt*");
        li32(g, 12, msr_value(g), RG_ALU);
        e(g, mtspr(SPR_SRR1, 12), RG_SYSREG, "mt*");
        e(g, 0x4c000064u, RG_SYSTEM, "rfi");
        break;
    }
    case 13: {                                          /* decrementer interrupt soon */
        if (!room(g, 6))
            return;
        li32(g, 12, rng_below(r, 2000), RG_ALU);
        e(g, mtspr(SPR_DEC, 12), RG_DEVICE, "mt*");
        li32(g, 12, 0x9002u | (rng_pct(r, 40) ? 0x2000u : 0), RG_ALU);
        e(g, X(12, 0, 0, 146, 0), RG_SYSTEM, "mtmsr");
        break;
    }
    case 14: {                                          /* performance monitor interrupt soon */
        if (!room(g, 9))
            return;
        li32(g, 12, 0x80000000u - 1 - rng_below(r, 2000), RG_ALU);
        e(g, mtspr(rng_pct(r, 70) ? SPR_PMC1 : SPR_PMC2, 12), RG_DEVICE, "mt*");
        li32(g, 12, 0x04000000u | 0xc000u | (rng_pct(r, 50) ? 2u : 1u) << 6 | (1 + rng_below(r, 2)), RG_ALU);
        e(g, mtspr(SPR_MMCR0, 12), RG_DEVICE, "mt*");
        li32(g, 12, 0x9002u, RG_ALU);
        e(g, X(12, 0, 0, 146, 0), RG_SYSTEM, "mtmsr");
        break;
    }
    case 15: {                                          /* console byte */
        if (!room(g, 4))
            return;
        li32(g, 12, ISA + 0x3f8, RG_ADDR);
        e(g, D(14, 11, 0, 0x20 + rng_below(r, 0x5f)), RG_ALU, "li|addi");
        e(g, D(38, 11, 12, 0), RG_DEVICE, "stb");
        break;
    }
    case 16: {                                          /* release CPU 1 through the spin table */
        if (!room(g, 4))
            return;
        li32(g, 12, SPIN_TABLE + 32 * (rng_pct(r, 90) ? 1 : 2), RG_ADDR);
        li32(g, 11, rng_pct(r, 80) ? OFF_PROLOGUE : body_target(g), RG_ALU);
        e(g, D(36, 11, 12, 4), RG_DEVICE, "stw");
        break;
    }
    case 17: {                                          /* watchdog or debug exit (rarely) */
        if (!room(g, 4))
            return;
        bool exit = rng_pct(r, 5);
        li32(g, 12, ISA + (exit ? 0x501 : rng_pct(r, 50) ? 0x443 : 0x441), RG_ADDR);
        e(g, D(14, 11, 0, rng_below(r, 16)), RG_ALU, "li|addi");
        e(g, D(38, 11, 12, 0), RG_DEVICE, "stb");
        break;
    }
    default: e(g, 0x44000002u, RG_SYSTEM, "sc"); break;
    }
}

static void item_exception(Gen *g)
{
    Rng *r = g->r;
    switch (rng_below(r, 8)) {
    case 0: case 1: e(g, 0x44000002u, RG_EXCEPTION, "sc"); break;
    case 2:                                             /* twi / tw, TO = 31 (always) half the time */
        e(g, D(3, rng_pct(r, 50) ? 31 : rng_below(r, 32), any_reg(g), (uint32_t)rng_next(r)), RG_EXCEPTION, "tw*|trap");
        break;
    case 3:
        e(g, X(rng_pct(r, 50) ? 31 : rng_below(r, 32), any_reg(g), any_reg(g), 4, 0), RG_EXCEPTION, "tw*|trap");
        break;
    case 4: e(g, 0, RG_EXCEPTION, NULL); break;                            /* illegal */
    case 5: e(g, 1u << 26 | (uint32_t)rng_below(r, 1u << 26), RG_EXCEPTION, NULL); break;
    default: e(g, X(any_reg(g), 0, 0, 146, 0), RG_EXCEPTION, "mtmsr"); break;  /* privileged in user mode */
    }
}

static void item_fp(Gen *g)
{
    Rng *r = g->r;
    unsigned d = rng_below(r, 32), a = rng_below(r, 32), b = rng_below(r, 32);
    switch (rng_below(r, 5)) {
    case 0: e(g, 63u << 26 | d << 21 | a << 16 | b << 11 | 21u << 1, RG_FP, "fadd"); break;
    case 1: e(g, 63u << 26 | d << 21 | a << 16 | b << 11 | 18u << 1, RG_FP, "fdiv"); break;
    case 2: e(g, D(50, d, base_reg(g), rng_below(r, 64) * 8), RG_FP, "lfd"); break;
    case 3: e(g, D(54, d, base_reg(g), rng_below(r, 64) * 8), RG_FP, "stfd"); break;
    default: e(g, 4u << 26 | d << 21 | a << 16 | b << 11, RG_FP, "vaddubm"); break;   /* AltiVec */
    }
}

static void item_random(Gen *g)
{
    e(g, (uint32_t)rng_next(g->r), RG_RANDOM, NULL);
}

static void item(Gen *g)
{
    /* alu addr load store atomic branch sysreg system exception fp random */
    const unsigned w[] = { 30, 9, 10, 8, 2, 12, 10, 7, 3, 3, g->o->random_pct };
    switch (rng_weighted(g->r, w, sizeof w / sizeof w[0])) {
    case 0: item_alu(g); break;
    case 1: item_addr(g); break;
    case 2: item_load_store(g, false); break;
    case 3: item_load_store(g, true); break;
    case 4: item_atomic(g); break;
    case 5: item_branch(g); break;
    case 6: item_sysreg(g); break;
    case 7: item_system(g); break;
    case 8: item_exception(g); break;
    case 9: item_fp(g); break;
    default: item_random(g); break;
    }
}

static void quiet_item(Gen *g)
{
    if (!room(g, 3))
        return;
    unsigned k = rng_below(g->r, 10);
    g->quiet = true;
    if (k < 5) {
        item_alu(g);
    } else if (k < 8) {                                 /* r12 = a RAM address, then the access */
        e(g, D(15, 12, 0, (DATA_BASE >> 16) + 1 + rng_below(g->r, 8)), RG_ADDR, "lis|addis");
        item_load_store(g, k == 7);
    } else if (k < 9) {
        item_addr(g);
    } else {
        e(g, mfspr(any_reg(g), sprs[rng_below(g->r, sizeof sprs / sizeof sprs[0])]), RG_SYSREG, "mf*");
    }
    g->quiet = false;
}

/* ------------------------------------------------------------------ handlers */

/* Return past the fault (SRR0 += 4) or as is (interrupts, sc), after some bookkeeping. */
static void handler_tail(Gen *g, unsigned vector)
{
    Rng *r = g->r;
    bool irq = vector == 0x900 || vector == 0xf00 || vector == 0x500 || vector == 0xc00;
    unsigned act = rng_below(r, 100);
    if (irq)
        act = act < 80 ? 70 : act;
    if (vector == 0x900 && rng_pct(r, 70)) {            /* next decrementer interrupt */
        li32(g, 11, rng_below(r, 5000), RG_ALU);
        e(g, mtspr(SPR_DEC, 11), RG_DEVICE, "mt*");
    }
    if (vector == 0xf00 && rng_pct(r, 80)) {            /* re-arm: PMC1 near negative, PMXE again */
        li32(g, 11, 0x80000000u - 1 - rng_below(r, 3000), RG_ALU);
        e(g, mtspr(SPR_PMC1, 11), RG_DEVICE, "mt*");
        li32(g, 11, 0x04000000u | 0x8000u | (rng_pct(r, 50) ? 2u : 1u) << 6, RG_ALU);
        e(g, mtspr(SPR_MMCR0, 11), RG_DEVICE, "mt*");
    }
    if (rng_pct(r, 10)) {                               /* return with EE set */
        e(g, mfspr(11, SPR_SRR1), RG_SYSREG, "mf*");
        e(g, D(24, 11, 11, 0x8000), RG_ALU, "ori");
        e(g, mtspr(SPR_SRR1, 11), RG_SYSREG, "mt*");
    }
    if (act < 60) {
        e(g, mfspr(11, SPR_SRR0), RG_SYSREG, "mf*");
        e(g, D(14, 11, 11, 4), RG_ALU, "addi");
        e(g, mtspr(SPR_SRR0, 11), RG_SYSREG, "mt*");
    } else if (act < 90) {
    } else if (act < 97) {
        e(g, branch((uint32_t)rg_here(g->img), OFF_BODY + 4 * rng_below(r, (P_SIZE - OFF_BODY) / 4 - 1), false),
          RG_BRANCH, "b");
        return;
    } else {
        item_exception(g);
    }
    e(g, 0x4c000064u, RG_SYSTEM, "rfi");
}

static void gen_handler(Gen *g, unsigned vector, uint32_t end)
{
    Rng *r = g->r;
    bool save = rng_pct(r, 50);                         /* keep the body's r12 in SPRG1 */
    if (save)
        e(g, mtspr(SPR_SPRG1, 12), RG_SYSREG, "mt*");
    g->limit = end - 4 * 20;
    for (unsigned n = rng_below(r, 8); n > 0; n--)
        quiet_item(g);
    g->limit = end;
    if (save)
        e(g, mfspr(12, SPR_SPRG1), RG_SYSREG, "mf*");
    if (g->ntails && rng_pct(r, 25) && vector != 0x900 && vector != 0xf00)
        e(g, branch((uint32_t)rg_here(g->img), g->tails[rng_below(r, g->ntails)], false), RG_BRANCH, "b");
    else
        handler_tail(g, vector);
}

/* ------------------------------------------------------------------ prologue */

static void prologue(Gen *g)
{
    Rng *r = g->r;
    e(g, mfspr(9, SPR_PIR), RG_SYSREG, "mf*");
    e(g, 21u << 26 | 9u << 21 | 10u << 16 | 16u << 11 | 0u << 6 | 15u << 1, RG_ALU, "rlwinm|slwi");   /* slwi r10, r9, 16 */
    li32(g, 1, STACK_TOP, RG_ALU);
    e(g, X(1, 10, 1, 40, 0), RG_ALU, "subf|sub");                                              /* r1 = r1 - r10 */
    for (unsigned reg = 0; reg < 32; reg++) {
        if (reg == 1 || reg == 9 || rng_pct(r, 20))
            continue;
        uint32_t v = rng_pct(r, 60) ? pool_addr(g) : rng_pct(r, 50) ? rng_below(r, 256) : (uint32_t)rng_next(r);
        li32(g, reg, v, RG_ADDR);
        if (v > 0x1000)
            note_areg(g, reg);
    }
    if (rng_pct(r, 40)) {
        li32(g, 12, rng_below(r, 5000), RG_ALU);
        e(g, mtspr(SPR_DEC, 12), RG_DEVICE, "mt*");
    }
    if (rng_pct(r, 60)) {
        li32(g, 12, 0x1002u | 0x8000u * rng_pct(r, 60) | 0x2000u * rng_pct(r, 60) | 0x02000000u * rng_pct(r, 40), RG_ALU);
        e(g, X(12, 0, 0, 146, 0), RG_SYSTEM, "mtmsr");
    }
    e(g, branch((uint32_t)rg_here(g->img), OFF_BODY, false), RG_BRANCH, "b");
}

static void ppc_generate(Rng *r, RgImage *img, const RgOptions *o)
{
    Gen g = { .r = r, .img = img, .o = o };
    /* subroutines and shared tails */
    img->pos = OFF_TAILS;
    g.limit = OFF_BODY;
    for (unsigned i = 0; i < NFUNC; i++) {
        g.funcs[i] = (uint32_t)rg_here(img);
        g.limit = img->pos + 4 * 24;
        for (unsigned k = 2 + rng_below(r, 10); k > 0; k--)
            quiet_item(&g);
        g.limit = OFF_BODY;
        e(&g, 0x4e800020u, RG_BRANCH, "blr");
    }
    if (o->vectors) {
        for (unsigned i = 0; i < 6; i++) {
            g.tails[g.ntails++] = (uint32_t)rg_here(img);
            handler_tail(&g, 0x700);
        }
        g.pm_tail = (uint32_t)rg_here(img);
        g.limit = img->pos + 4 * 40;
        gen_handler(&g, 0xf00, g.limit);
        g.limit = OFF_BODY;
        for (unsigned v = 0x100; v < 0x3000; v += 0x100) {
            img->pos = v;
            if (v == 0xf00) {                           /* 8 words until the AltiVec-unavailable vector */
                e(&g, branch(v, g.pm_tail, false), RG_BRANCH, "b");
                img->pos = 0xf20;
                gen_handler(&g, 0xf20, 0x1000);
                continue;
            }
            gen_handler(&g, v, v + 0x100);
        }
    }
    img->pos = 0;
    g.limit = 4;
    e(&g, branch(0, OFF_PROLOGUE, false), RG_BRANCH, "b");
    img->pos = OFF_PROLOGUE;
    g.limit = OFF_TAILS;
    prologue(&g);
    img->pos = OFF_BODY;
    g.limit = P_SIZE - 4;
    while (rg_room(img, g.limit) >= 4 * 10)
        item(&g);
    while (rg_room(img, g.limit) >= 4)
        e(&g, D(24, 0, 0, 0), RG_ALU, "nop|ori");
    g.limit = P_SIZE;
    e(&g, branch((uint32_t)rg_here(img), OFF_BODY, false), RG_BRANCH, "b");
}

const RgArch rg_arch_ppc32 = { "ppc32", 0, P_SIZE, true, ppc_generate };
