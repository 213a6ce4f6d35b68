/* rg_x86_64.c — random x86-64 guests (loaded raw at 0x100000, entry = load address).
 *
 * Encodings: Intel SDM vol. 2 (REX §2.2.1, ModRM/SIB tables 2-1..2-3, the opcode map in
 * appendix A).  Image layout (offsets from 0x100000):
 *
 *   0x0000  prologue: per-CPU stack (RSI = APIC ID), GDT/TSS/IDT, user pages, registers
 *   0x0800  subroutines (random bodies ending in RET), the SYSCALL entry
 *   0x1800  exception handlers (fault handlers with/without error code, interrupt handlers)
 *   0x3800  GDT (null, code, data, user code32/data/code64, TSS), GDTR, IDTR, TSS
 *   0x4000  IDT: 256 16-byte gates, random (mostly present interrupt/trap gates)
 *   0x5000  body: 16-byte bundles of instructions, each padded with one NOP
 *
 * Bundles make exceptions resumable without decoding: a fault handler may return to the next
 * bundle (RIP + 16 rounded down to 16).  Branch targets are bundle starts (and, rarely, any
 * byte).  Data lives at 0x200000, stacks below 0x3c0000 (0x10000 per CPU), IST stacks above.
 */
#include <string.h>

#include "rg.h"

#define X_LOAD 0x100000ull
#define X_SIZE 0x10000u
#define OFF_FUNCS 0x0800u
#define OFF_HANDLERS 0x1800u
#define OFF_GDT 0x3800u
#define OFF_GDTR 0x3880u
#define OFF_IDTR 0x3890u
#define OFF_TSS 0x3900u
#define OFF_IDT 0x4000u
#define OFF_BODY 0x5000u
#define BUNDLE 16u

#define DATA_BASE 0x200000ull
#define DATA_SIZE 0x100000u
#define STACK_TOP 0x3c0000ull           /* CPU n: STACK_TOP - n * 0x10000 */
#define IST1_TOP 0x3e0000ull
#define IST2_TOP 0x3f0000ull
#define LAPIC 0xfee00000ull
#define SPIN_TABLE 0xf000ull            /* docs/machines.md: cpu-release-addr = 0xf000 + 8 i */

/* GDT selectors (Linux's layout, so SYSCALL/SYSRET work with STAR = 0x0020_0008 << 32) */
enum { SEL_KCODE = 0x08, SEL_KDATA = 0x10, SEL_UCODE32 = 0x20, SEL_UDATA = 0x28, SEL_UCODE = 0x30, SEL_TSS = 0x40 };

enum { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };

#define NFUNC 12
#define NHANDLER 6

typedef struct XI {
    uint8_t b[16];
    unsigned n;
} XI;

/* A memory operand: base/index -1 = none; base -2 = RIP-relative. */
typedef struct XMem {
    int base, index;
    unsigned scale;             /* 0..3 (x1, x2, x4, x8) */
    int32_t disp;
} XMem;

/* A short sequence of instructions kept inside one bundle. */
typedef struct Seq {
    XI in[6];
    RgClass cls[6];
    const char *mn[6];
    unsigned n;
} Seq;

typedef struct Gen {
    Rng *r;
    RgImage *img;
    const RgOptions *o;
    bool bundled;               /* emitting the body (bundles) */
    uint32_t limit;             /* end of the region being emitted */
    uint64_t funcs[NFUNC];
    uint64_t syscall_entry;
    uint64_t h_err[NHANDLER], h_noerr[NHANDLER], h_irq[NHANDLER];
    int areg[4];                /* registers that recently got an address */
    unsigned nareg;
    bool tss, user;             /* a TSS is loaded; pages 0-4 MiB are user-accessible */
    bool quiet;                 /* handlers and subroutines: memory operands that stay valid */
} Gen;

/* ------------------------------------------------------------------ encoding */

static void xb(XI *x, unsigned v)
{
    x->b[x->n++] = (uint8_t)v;
}

static void ximm(XI *x, uint64_t v, unsigned len)
{
    for (unsigned i = 0; i < len; i++)
        xb(x, (unsigned)(v >> (8 * i)) & 0xff);
}

/* Opcode bytes packed big-end first: 0x0faf = 0F AF. */
static void xop(XI *x, unsigned opc)
{
    if (opc > 0xffff)
        xb(x, opc >> 16);
    if (opc > 0xff)
        xb(x, (opc >> 8) & 0xff);
    xb(x, opc & 0xff);
}

static void xrex(XI *x, bool w, unsigned r, unsigned xi, unsigned b)
{
    unsigned rex = 0x40 | (w ? 8 : 0) | ((r >> 3) & 1) << 2 | ((xi >> 3) & 1) << 1 | ((b >> 3) & 1);
    if (rex != 0x40)
        xb(x, rex);
}

/* op reg, rm (register form, ModRM.mod = 11) */
static void x_rr(XI *x, bool w, unsigned opc, unsigned reg, unsigned rm)
{
    xrex(x, w, reg, 0, rm);
    xop(x, opc);
    xb(x, 0xc0 | (reg & 7) << 3 | (rm & 7));
}

/* op reg, [mem] (SDM vol. 2 table 2-2 and 2-3) */
static void x_rm(XI *x, bool w, unsigned opc, unsigned reg, const XMem *m)
{
    unsigned b = m->base >= 0 ? (unsigned)m->base : 0, i = m->index >= 0 ? (unsigned)m->index : 0;
    xrex(x, w, reg, i, b);
    xop(x, opc);
    if (m->base == -2) {                                /* [rip + disp32] */
        xb(x, (reg & 7) << 3 | 5);
        ximm(x, (uint32_t)m->disp, 4);
        return;
    }
    if (m->base < 0) {                                  /* [index*s + disp32] or [disp32] */
        xb(x, (reg & 7) << 3 | 4);
        xb(x, m->scale << 6 | (m->index >= 0 ? (i & 7) : 4) << 3 | 5);
        ximm(x, (uint32_t)m->disp, 4);
        return;
    }
    unsigned mod = m->disp == 0 && (b & 7) != 5 ? 0 : m->disp >= -128 && m->disp <= 127 ? 1 : 2;
    bool sib = m->index >= 0 || (b & 7) == 4;
    xb(x, mod << 6 | (reg & 7) << 3 | (sib ? 4 : (b & 7)));
    if (sib)
        xb(x, m->scale << 6 | (m->index >= 0 ? (i & 7) : 4) << 3 | (b & 7));
    if (mod == 1)
        xb(x, (unsigned)m->disp & 0xff);
    else if (mod == 2)
        ximm(x, (uint32_t)m->disp, 4);
}

static XI x_mov_imm(unsigned reg, uint64_t v)
{
    XI x = { .n = 0 };
    if (v <= 0xffffffffull) {                           /* mov r32, imm32 (zero-extends) */
        xrex(&x, false, 0, 0, reg);
        xb(&x, 0xb8 + (reg & 7));
        ximm(&x, v, 4);
    } else {                                            /* movabs r64, imm64 */
        xrex(&x, true, 0, 0, reg);
        xb(&x, 0xb8 + (reg & 7));
        ximm(&x, v, 8);
    }
    return x;
}

static const char *mov_imm_mn(uint64_t v)
{
    return v <= 0xffffffffull ? "mov" : "movabs";
}

/* The standard NOP of each length (SDM vol. 2B "NOP", table 4-12), longer ones with 0x66s. */
static XI x_nop(unsigned len)
{
    static const uint8_t nops[10][10] = {
        { 0 }, { 0x90 }, { 0x66, 0x90 }, { 0x0f, 0x1f, 0x00 }, { 0x0f, 0x1f, 0x40, 0x00 },
        { 0x0f, 0x1f, 0x44, 0x00, 0x00 }, { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
        { 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 }, { 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
        { 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
    };
    XI x = { .n = 0 };
    unsigned base = len > 9 ? 9 : len;
    for (unsigned i = base; i < len; i++)
        xb(&x, 0x66);
    for (unsigned i = 0; i < base; i++)
        xb(&x, nops[base][i]);
    return x;
}

/* ------------------------------------------------------------------ emitting */

static void seq_add(Seq *s, XI x, RgClass cls, const char *mn)
{
    s->in[s->n] = x;
    s->cls[s->n] = cls;
    s->mn[s->n] = mn;
    s->n++;
}

static unsigned seq_len(const Seq *s)
{
    unsigned n = 0;
    for (unsigned i = 0; i < s->n; i++)
        n += s->in[i].n;
    return n;
}

static void pad_to(Gen *g, uint32_t off)
{
    while (g->img->pos < off) {
        unsigned n = off - g->img->pos;
        XI x = x_nop(n > 15 ? 15 : n);
        rg_emit_bytes(g->img, x.b, x.n, RG_PAD, "nop");
    }
}

/* Emit a sequence: in the body it stays inside one bundle (padding the current one first when it
 * does not fit); elsewhere it must fit before the region's limit.  False: no room. */
static bool emit(Gen *g, const Seq *s)
{
    RgImage *img = g->img;
    unsigned len = seq_len(s);
    if (g->bundled) {
        uint32_t bend = (img->pos + BUNDLE) & ~(BUNDLE - 1);
        if (img->pos % BUNDLE == 0)
            bend = img->pos + BUNDLE;
        if (len <= BUNDLE && img->pos + len > bend) {
            if (bend + len > g->limit)
                return false;
            pad_to(g, bend);
        }
    }
    if (img->pos + len > g->limit)
        return false;
    for (unsigned i = 0; i < s->n; i++)
        rg_emit_bytes(img, s->in[i].b, s->in[i].n, s->cls[i], s->mn[i]);
    return true;
}

static bool emit1(Gen *g, XI x, RgClass cls, const char *mn)
{
    Seq s = { .n = 0 };
    seq_add(&s, x, cls, mn);
    return emit(g, &s);
}

/* ------------------------------------------------------------------ operands */

/* Any register but RSP (so the stack stays usable most of the time). */
static unsigned any_reg(Gen *g)
{
    unsigned r = rng_below(g->r, 15);
    return r >= RSP ? r + 1 : r;
}

/* An address from the pools: RAM data, the image itself (code writes), the stacks, the boot
 * structures and DTB, the local APIC, unassigned space below 4 GiB, unmapped space above,
 * non-canonical addresses, random values. */
static uint64_t pool_addr(Gen *g)
{
    static const unsigned w[] = { 40, 6, 5, 2, 2, 10, 7, 3, 2, 2, 2 };
    Rng *r = g->r;
    uint64_t a;
    switch (rng_weighted(r, w, sizeof w / sizeof w[0])) {
    case 0: a = DATA_BASE + rng_below(r, DATA_SIZE); break;
    case 1: a = X_LOAD + rng_below(r, X_SIZE); break;
    case 2: a = STACK_TOP - 0x2000 + rng_below(r, 0x2000); break;
    case 3: a = 0x8000 + rng_below(r, 0x8000); break;          /* GDT, page tables, spin table */
    case 4: a = 0x10000 + rng_below(r, 0x2000); break;         /* the DTB */
    case 5: a = LAPIC + 0x10 * rng_below(r, 0x40); break;
    case 6: a = 0x8000000 + rng_below(r, 0xf6000000u); break;  /* unassigned below 4 GiB */
    case 7: a = 0x100000000ull + (rng_next(r) & 0xffffffffull); break;
    case 8: a = 0x8000000000000000ull | (rng_next(r) & 0xffffffffffffull); break;
    case 9: a = rng_below(r, 0x1000); break;
    default: a = rng_next(r); break;
    }
    if (rng_pct(r, 60))
        a &= ~7ull;
    return a;
}

/* A branch target in the body: a bundle start near the current one, rarely any byte. */
static uint64_t body_target(Gen *g)
{
    Rng *r = g->r;
    uint32_t nb = (X_SIZE - OFF_BODY) / BUNDLE - 1;     /* the last bundle holds the wrap-around jmp */
    uint32_t cur = g->img->pos >= OFF_BODY ? (g->img->pos - OFF_BODY) / BUNDLE : 0;
    int64_t t;
    if (rng_pct(r, 70))
        t = (int64_t)cur + 1 + rng_below(r, 48);
    else
        t = (int64_t)cur - (int64_t)rng_below(r, 48);
    if (t < 0)
        t = rng_below(r, 16);
    if (t >= nb)
        t = nb - 1 - rng_below(r, 16);
    uint64_t a = X_LOAD + OFF_BODY + (uint64_t)t * BUNDLE;
    if (rng_pct(r, 3))
        a += rng_below(r, BUNDLE);
    return a;
}

static uint64_t any_target(Gen *g)
{
    Rng *r = g->r;
    unsigned k = rng_below(r, 100);
    if (k < 85)
        return body_target(g);
    if (k < 93)
        return g->funcs[rng_below(r, NFUNC)];
    if (k < 97)
        return X_LOAD;                                  /* the prologue again */
    return pool_addr(g);                                /* data, devices, unmapped */
}

static XMem mem_from(Gen *g, unsigned base)
{
    Rng *r = g->r;
    XMem m = { (int)base, -1, 0, 0 };
    unsigned k = rng_below(r, 10);
    if (k < 4)
        m.disp = 0;
    else if (k < 8)
        m.disp = (int32_t)rng_range(r, -128, 127) & ~3;
    else
        m.disp = (int32_t)rng_range(r, -0x1000, 0x1000);
    if (rng_pct(r, 15)) {
        m.index = (int)any_reg(g);
        m.scale = rng_below(r, 4);
    }
    return m;
}

/* A memory operand: mostly based on a register that holds a pool address. */
static XMem pick_mem(Gen *g)
{
    Rng *r = g->r;
    unsigned k = rng_below(r, 100);
    if (g->quiet && k < 90) {                           /* absolute: whatever the body left in registers */
        XMem m = { -1, -1, 0, (int32_t)(DATA_BASE + 0x10000 + rng_below(r, 0x10000)) };
        return m;
    }
    if (k < 75 && g->nareg)
        return mem_from(g, (unsigned)g->areg[rng_below(r, g->nareg)]);
    if (k < 83)
        return mem_from(g, RSP);
    if (k < 88) {
        XMem m = { -2, -1, 0, (int32_t)rng_range(r, -0x4000, 0x4000) };   /* RIP-relative: the image */
        return m;
    }
    if (k < 92) {
        XMem m = { -1, -1, 0, (int32_t)(DATA_BASE + rng_below(r, 0x10000)) };
        return m;
    }
    return mem_from(g, any_reg(g));
}

static void note_areg(Gen *g, unsigned reg)
{
    if (g->nareg < 4)
        g->areg[g->nareg++] = (int)reg;
    else
        g->areg[rng_below(g->r, 4)] = (int)reg;
}

/* ------------------------------------------------------------------ items */

static const unsigned alu_rr_ops[8] = { 0x01, 0x09, 0x11, 0x19, 0x21, 0x29, 0x31, 0x39 };
static const char *const alu_names[8] = { "add", "or", "adc", "sbb", "and", "sub", "xor", "cmp" };
static const char *const shift_names[8] = { "rol", "ror", "rcl", "rcr", "shl", "shr", "sal", "sar" };
static const char *const cc_j[16] = { "jo", "jno", "jb", "jae", "je", "jne", "jbe", "ja",
                                      "js", "jns", "jp", "jnp", "jl", "jge", "jle", "jg" };

static void item_alu(Gen *g)
{
    Rng *r = g->r;
    unsigned d = any_reg(g), s = any_reg(g), k = rng_below(r, 16), op;
    bool w = rng_pct(r, 75);
    XI x = { .n = 0 };
    const char *mn;
    switch (k) {
    case 0: case 1: case 2:                             /* op r, r */
        op = rng_below(r, 8);
        x_rr(&x, w, alu_rr_ops[op], s, d);
        mn = alu_names[op];
        break;
    case 3: case 4:                                     /* op r, imm8 / imm32 */
        op = rng_below(r, 8);
        if (rng_pct(r, 50)) {
            x_rr(&x, w, 0x83, op, d);
            xb(&x, rng_below(r, 256));
        } else {
            x_rr(&x, w, 0x81, op, d);
            ximm(&x, rng_next(r), 4);
        }
        mn = alu_names[op];
        break;
    case 5:                                             /* shifts by imm8 or CL */
        op = rng_below(r, 8);
        if (op == 6)
            op = 4;                                     /* /6 is an undocumented alias of shl */
        if (rng_pct(r, 70)) {
            x_rr(&x, w, 0xc1, op, d);
            xb(&x, rng_below(r, 64));
        } else {
            x_rr(&x, w, 0xd3, op, d);
        }
        mn = shift_names[op];
        break;
    case 6:                                             /* mov r, imm */
        x = x_mov_imm(d, rng_pct(r, 50) ? rng_below(r, 0x1000) : rng_next(r));
        mn = x.n > 6 ? "movabs" : "mov";
        break;
    case 7:                                             /* mov r, r */
        x_rr(&x, w, 0x89, s, d);
        mn = "mov";
        break;
    case 8:                                             /* inc, dec, not, neg */
        op = rng_below(r, 4);
        x_rr(&x, w, op < 2 ? 0xff : 0xf7, op < 2 ? op : op, d);
        mn = (const char *const[]){ "inc", "dec", "not", "neg" }[op];
        break;
    case 9:                                             /* imul r, r; mul/imul rdx:rax */
        if (rng_pct(r, 50)) {
            x_rr(&x, w, 0x0faf, d, s);
            mn = "imul";
        } else {
            op = 4 + rng_below(r, 2);
            x_rr(&x, w, 0xf7, op, s);
            mn = op == 4 ? "mul" : "imul";
        }
        break;
    case 10:                                            /* div/idiv: #DE on 0 or overflow */
        op = 6 + rng_below(r, 2);
        x_rr(&x, w, 0xf7, op, s);
        mn = op == 6 ? "div" : "idiv";
        break;
    case 11:                                            /* test, xchg, cmovcc */
        op = rng_below(r, 3);
        if (op == 0)
            x_rr(&x, w, 0x85, s, d), mn = "test";
        else if (op == 1)
            x_rr(&x, w, 0x87, s, d), mn = "xchg";
        else
            x_rr(&x, w, 0x0f40 + rng_below(r, 16), d, s), mn = "cmov*";
        break;
    case 12:                                            /* movzx/movsx, bswap */
        op = rng_below(r, 5);
        if (op < 4) {
            static const unsigned o[4] = { 0x0fb6, 0x0fb7, 0x0fbe, 0x0fbf };
            x_rr(&x, true, o[op], d, s);
            mn = op < 2 ? "movzx" : "movsx";
        } else {
            xrex(&x, w, 0, 0, d);
            xb(&x, 0x0f);
            xb(&x, 0xc8 + (d & 7));
            mn = "bswap";
        }
        break;
    case 13:                                            /* bsf, bsr, popcnt, lzcnt/tzcnt-as-bsr */
        op = rng_below(r, 3);
        if (op == 2) {
            xb(&x, 0xf3);
            x_rr(&x, true, 0x0fb8, d, s);
            mn = "popcnt";
        } else {
            x_rr(&x, true, op ? 0x0fbd : 0x0fbc, d, s);
            mn = op ? "bsr" : "bsf";
        }
        break;
    case 14:                                            /* setcc r8 (REX form), lea */
        if (rng_pct(r, 50)) {
            xb(&x, 0x40 | ((d >> 3) & 1));
            xop(&x, 0x0f90 + rng_below(r, 16));
            xb(&x, 0xc0 | (d & 7));
            mn = "set*";
        } else {
            XMem m = mem_from(g, any_reg(g));
            x_rm(&x, true, 0x8d, d, &m);
            mn = "lea";
        }
        break;
    default:                                            /* flags and accumulator forms */
        op = rng_below(r, 7);
        static const uint8_t one[7][2] = { { 0xf8, 0 }, { 0xf9, 0 }, { 0xf5, 0 }, { 0x9f, 0 }, { 0x9e, 0 },
                                           { 0x48, 0x99 }, { 0x48, 0x98 } };
        static const char *const nm[7] = { "clc", "stc", "cmc", "lahf", "sahf", "cqo", "cdqe" };
        xb(&x, one[op][0]);
        if (one[op][1])
            xb(&x, one[op][1]);
        mn = nm[op];
        break;
    }
    emit1(g, x, RG_ALU, mn);
}

static void item_addr(Gen *g)
{
    unsigned d = any_reg(g);
    uint64_t a = pool_addr(g);
    if (emit1(g, x_mov_imm(d, a), RG_ADDR, mov_imm_mn(a)))
        note_areg(g, d);
}

static void item_load(Gen *g)
{
    Rng *r = g->r;
    XMem m = pick_mem(g);
    unsigned d = any_reg(g), k = rng_below(r, 8);
    XI x = { .n = 0 };
    const char *mn = "mov";
    switch (k) {
    case 0: case 1: case 2: x_rm(&x, true, 0x8b, d, &m); break;            /* mov r64, m64 */
    case 3: x_rm(&x, false, 0x8b, d, &m); break;                            /* mov r32, m32 */
    case 4: xb(&x, 0x66); x_rm(&x, false, 0x8b, d, &m); break;              /* mov r16, m16 */
    case 5: x_rm(&x, true, 0x0fb6, d, &m); mn = "movzx"; break;
    case 6: x_rm(&x, true, 0x63, d, &m); mn = "movsxd"; break;
    default: {                                                              /* op r, m */
        unsigned op = rng_below(r, 8);
        x_rm(&x, true, alu_rr_ops[op] + 2, d, &m);
        mn = alu_names[op];
        break;
    }
    }
    emit1(g, x, RG_LOAD, mn);
}

static void item_store(Gen *g)
{
    Rng *r = g->r;
    XMem m = pick_mem(g);
    unsigned s = any_reg(g), k = rng_below(r, 7);
    XI x = { .n = 0 };
    switch (k) {
    case 0: case 1: x_rm(&x, true, 0x89, s, &m); break;
    case 2: x_rm(&x, false, 0x89, s, &m); break;
    case 3: x_rm(&x, false, 0x88, s, &m); break;
    case 4: xb(&x, 0x66); x_rm(&x, false, 0x89, s, &m); break;
    case 5: x_rm(&x, true, 0xc7, 0, &m); ximm(&x, rng_next(r), 4); break;  /* mov m64, imm32 */
    default: x_rm(&x, false, 0xc6, 0, &m); xb(&x, rng_below(r, 256)); break;
    }
    emit1(g, x, RG_STORE, "mov");
}

static void item_atomic(Gen *g)
{
    Rng *r = g->r;
    XMem m = pick_mem(g);
    unsigned s = any_reg(g), k = rng_below(r, 6);
    XI x = { .n = 0 };
    const char *mn;
    bool lock = rng_pct(r, 60) && k != 5;
    if (lock)
        xb(&x, 0xf0);
    switch (k) {
    case 0: {
        static const char *const locked[7] = { "lock add", "lock or", "lock adc", "lock sbb", "lock and", "lock sub",
                                               "lock xor" };
        unsigned op = rng_below(r, 7);
        x_rm(&x, true, alu_rr_ops[op], s, &m);
        mn = lock ? locked[op] : alu_names[op];
        break;
    }
    case 1: x_rm(&x, true, 0x0fb1, s, &m); mn = lock ? "lock cmpxchg" : "cmpxchg"; break;
    case 2: x_rm(&x, true, 0x0fc1, s, &m); mn = lock ? "lock xadd" : "xadd"; break;
    case 3: x_rm(&x, true, 0xff, rng_below(r, 2), &m); mn = lock ? "lock inc|lock dec" : "inc|dec"; break;
    case 4: x_rm(&x, true, 0x0fab, s, &m); mn = lock ? "lock bts" : "bts"; break;
    default: x_rm(&x, true, 0x87, s, &m); mn = "xchg"; break;                 /* implicitly locked */
    }
    emit1(g, x, RG_ATOMIC, mn);
}

static void item_stack(Gen *g)
{
    Rng *r = g->r;
    unsigned reg = any_reg(g), k = rng_below(r, 6);
    XI x = { .n = 0 };
    if (k < 2) {
        xrex(&x, false, 0, 0, reg);
        xb(&x, 0x50 + (reg & 7));
        emit1(g, x, RG_STORE, "push");
    } else if (k < 4) {
        xrex(&x, false, 0, 0, reg);
        xb(&x, 0x58 + (reg & 7));
        emit1(g, x, RG_LOAD, "pop");
    } else if (k == 4) {
        xb(&x, 0x68);
        ximm(&x, rng_next(r), 4);
        emit1(g, x, RG_STORE, "push");
    } else {
        XMem m = pick_mem(g);
        x_rm(&x, false, 0xff, 6, &m);
        emit1(g, x, RG_LOAD, "push");
    }
}

static int32_t rel_to(uint64_t from_end, uint64_t target)
{
    return (int32_t)(int64_t)(target - from_end);
}

static void item_branch(Gen *g)
{
    Rng *r = g->r;
    unsigned k = rng_below(r, 20);
    uint64_t here = rg_here(g->img);
    Seq s = { .n = 0 };
    XI x = { .n = 0 };
    /* In the body a sequence may be moved to the next bundle: compute rel from the bundle it
     * will land in (emit pads first when it does not fit). */
    if (k < 6) {                                        /* jcc rel8/rel32 */
        unsigned cc = rng_below(r, 16);
        uint64_t t = body_target(g);
        uint32_t pos = g->img->pos;
        uint32_t room = BUNDLE - pos % BUNDLE;
        unsigned len = 6;
        int64_t d8 = (int64_t)(t - (here + 2));
        if (d8 >= -128 && d8 <= 127 && room >= 2) {
            xb(&x, 0x70 + cc);
            xb(&x, (unsigned)d8 & 0xff);
        } else {
            if (room < len)
                here = X_LOAD + ((pos + BUNDLE) & ~(BUNDLE - 1));
            xop(&x, 0x0f80 + cc);
            ximm(&x, (uint32_t)rel_to(here + 6, t), 4);
        }
        emit1(g, x, RG_BRANCH, cc_j[cc]);
        return;
    }
    uint32_t pos = g->img->pos, room = BUNDLE - pos % BUNDLE;
    if (k < 9) {                                        /* jmp rel32 / call rel32 */
        bool call = k >= 7;
        uint64_t t = call && rng_pct(r, 80) ? g->funcs[rng_below(r, NFUNC)] : body_target(g);
        if (room < 5)
            here = X_LOAD + ((pos + BUNDLE) & ~(BUNDLE - 1));
        xb(&x, call ? 0xe8 : 0xe9);
        ximm(&x, (uint32_t)rel_to(here + 5, t), 4);
        emit1(g, x, RG_BRANCH, call ? "call" : "jmp");
        return;
    }
    if (k < 13) {                                       /* indirect jmp/call through a register */
        unsigned reg = any_reg(g);
        bool call = k >= 11;
        uint64_t t = any_target(g);
        seq_add(&s, x_mov_imm(reg, t), RG_ADDR, mov_imm_mn(t));
        x_rr(&x, false, 0xff, call ? 2 : 4, reg);
        seq_add(&s, x, RG_BRANCH, call ? "call" : "jmp");
        emit(g, &s);
        return;
    }
    if (k == 13) {                                      /* jmp/call [mem] */
        XMem m = pick_mem(g);
        x_rm(&x, false, 0xff, rng_pct(r, 50) ? 2 : 4, &m);
        emit1(g, x, RG_BRANCH, "call|jmp");
        return;
    }
    if (k == 14) {                                      /* ret, ret imm16 */
        if (rng_pct(r, 80)) {
            xb(&x, 0xc3);
        } else {
            xb(&x, 0xc2);
            ximm(&x, rng_below(r, 64) & ~7u, 2);
        }
        emit1(g, x, RG_BRANCH, "ret");
        return;
    }
    if (k < 17) {                                       /* loop / jrcxz, short backwards or forwards */
        int d = (int)rng_range(r, -96, 96);
        if (room < 2)
            return;
        xb(&x, rng_pct(r, 70) ? 0xe2 : 0xe3);
        xb(&x, (unsigned)d & 0xff);
        emit1(g, x, RG_BRANCH, "loop|jrcxz");
        return;
    }
    /* a counted loop: mov ecx, n; body bundle; dec ecx; jnz back */
    unsigned n = 1 + rng_below(r, 20);
    seq_add(&s, x_mov_imm(RCX, n), RG_ALU, "mov");
    emit(g, &s);
    uint64_t top = rg_here(g->img);
    s.n = 0;
    x_rr(&x, false, 0xff, 1, RCX);
    seq_add(&s, x, RG_ALU, "dec");
    XI j = { .n = 0 };
    xb(&j, 0x75);
    xb(&j, (unsigned)(int)(top - (rg_here(g->img) + 2 + 2)) & 0xff);
    seq_add(&s, j, RG_BRANCH, "jne");
    uint32_t p = g->img->pos;
    if (p % BUNDLE + 4 > BUNDLE || top + 128 < rg_here(g->img) + 4)
        return;                                         /* would move: drop the loop back */
    emit(g, &s);
}

/* Load ECX/EAX/EDX and do rdmsr/wrmsr on an MSR from the model's table, the PMU, x2APIC, or a
 * random one. */
static uint32_t pick_msr(Gen *g)
{
    static const uint32_t msrs[] = {
        0x10, 0x1b, 0x3a, 0x8b, 0xfe, 0x174, 0x175, 0x176, 0x179, 0x1a0, 0x277, 0xc0000080, 0xc0000081,
        0xc0000082, 0xc0000083, 0xc0000084, 0xc0000100, 0xc0000101, 0xc0000102, 0xc0000103, 0x6e0,
        0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0x186, 0x187, 0x188, 0x189, 0x18a, 0x309, 0x30a, 0x30b, 0x30c,
        0x38d, 0x38e, 0x38f, 0x390, 0x345, 0x4c1, 0x802, 0x803, 0x808, 0x80b, 0x80f, 0x828, 0x830,
        0x832, 0x834, 0x838, 0x839, 0x83e, 0x83f,
    };
    Rng *r = g->r;
    if (rng_pct(r, 90))
        return msrs[rng_below(r, sizeof msrs / sizeof msrs[0])];
    return (uint32_t)rng_next(r);
}

static uint64_t msr_value(Gen *g, uint32_t msr)
{
    Rng *r = g->r;
    if (rng_pct(r, 15))
        return rng_next(r);
    switch (msr) {
    case 0x186: case 0x187: case 0x188: case 0x189: {   /* PERFEVTSEL: event, umask, USR/OS, INT, EN */
        static const uint8_t ev[] = { 0x3c, 0xc0, 0xc4, 0xc5, 0x2e, 0x3c, 0xc0 };
        uint64_t v = ev[rng_below(r, sizeof ev)] | (uint64_t)(rng_pct(r, 20) ? 1 : 0) << 8;
        v |= (uint64_t)rng_below(r, 4) << 16 | (uint64_t)(rng_pct(r, 50)) << 20 | (uint64_t)(rng_pct(r, 85)) << 22;
        if (rng_pct(r, 10))
            v |= 1ull << 18 | (uint64_t)rng_below(r, 3) << 24 | (uint64_t)rng_pct(r, 50) << 23;
        return v;
    }
    case 0xc1: case 0xc2: case 0xc3: case 0xc4: case 0x309: case 0x30a: case 0x30b:
        return rng_pct(r, 70) ? (uint64_t)-(int64_t)rng_range(r, 1, 3000) & 0xffffffffffffull : rng_below(r, 1000);
    case 0x38f: return rng_below(r, 16) | (uint64_t)rng_below(r, 8) << 32;
    case 0x38d: return rng_below(r, 0x1000);
    case 0x390: return rng_below(r, 16) | (uint64_t)rng_below(r, 8) << 32 | (uint64_t)rng_pct(r, 20) << 63;
    case 0x1b: return LAPIC | 1u << 11 | (rng_pct(r, 20) ? 1u << 10 : 0) | (rng_pct(r, 5) ? 0 : 1u << 8);
    case 0xc0000080: return 0x500 | (rng_pct(r, 50) ? 1 : 0) | (rng_pct(r, 50) ? 0x800 : 0);
    case 0xc0000081: return (uint64_t)(SEL_UCODE32) << 48 | (uint64_t)SEL_KCODE << 32;
    case 0xc0000082: case 0xc0000083: return g->syscall_entry;
    case 0xc0000084: return rng_pct(r, 50) ? 0x200 : 0x4700;
    case 0xc0000100: case 0xc0000101: case 0xc0000102: return DATA_BASE + rng_below(r, DATA_SIZE);
    case 0x6e0: return rng_below(r, 200000);
    case 0x808: return rng_below(r, 256);               /* x2APIC TPR */
    case 0x80b: return 0;                               /* EOI */
    case 0x80f: return 0x100 | rng_below(r, 256);       /* SVR */
    case 0x830: return (uint64_t)rng_below(r, 2) << 32 | rng_below(r, 4) << 18 | (rng_pct(r, 20) ? 0x400 : 0) |
                       (32 + rng_below(r, 224));
    case 0x832: case 0x834: return (rng_pct(r, 30) ? 0x400 : 32 + rng_below(r, 224)) | (uint64_t)rng_below(r, 3) << 17;
    case 0x838: return rng_below(r, 5000);
    default: return rng_below(r, 0x10000);
    }
}

/* wrmsr of v to msr: ecx, then eax/edx, then the wrmsr, of class cls. */
static void wrmsr_seq(Gen *g, RgClass cls, uint32_t msr, uint64_t v)
{
    Seq s = { .n = 0 };
    XI x = { .n = 0 };
    seq_add(&s, x_mov_imm(RCX, msr), RG_ALU, "mov");
    seq_add(&s, x_mov_imm(RAX, (uint32_t)v), RG_ALU, "mov");
    emit(g, &s);
    s.n = 0;
    seq_add(&s, x_mov_imm(RDX, v >> 32), RG_ALU, "mov");
    xop(&x, 0x0f30);
    seq_add(&s, x, cls, "wrmsr");
    emit(g, &s);
}

static void item_sysreg(Gen *g)
{
    Rng *r = g->r;
    unsigned k = rng_below(r, 14);
    Seq s = { .n = 0 };
    XI x = { .n = 0 };
    if (k < 3) {                                        /* rdmsr */
        uint32_t msr = pick_msr(g);
        seq_add(&s, x_mov_imm(RCX, msr), RG_ALU, "mov");
        xop(&x, 0x0f32);
        seq_add(&s, x, RG_SYSREG, "rdmsr");
        emit(g, &s);
    } else if (k < 7) {                                 /* wrmsr: ecx, then eax/edx, then wrmsr */
        uint32_t msr = pick_msr(g);
        wrmsr_seq(g, RG_SYSREG, msr, msr_value(g, msr));
    } else if (k == 7) {                                /* rdpmc */
        static const uint32_t sel[] = { 0, 1, 2, 3, 4, 0x40000000, 0x40000001, 0x40000002, 0x40000003, 0x80000000 };
        seq_add(&s, x_mov_imm(RCX, rng_pct(r, 90) ? sel[rng_below(r, 10)] : (uint32_t)rng_next(r)), RG_ALU, "mov");
        xop(&x, 0x0f33);
        seq_add(&s, x, RG_SYSREG, "rdpmc");
        emit(g, &s);
    } else if (k == 8) {                                /* rdtsc, rdtscp */
        if (rng_pct(r, 60))
            xop(&x, 0x0f31), emit1(g, x, RG_SYSREG, "rdtsc");
        else
            xop(&x, 0x0f01f9), emit1(g, x, RG_SYSREG, "rdtscp");
    } else if (k == 9) {                                /* cpuid with a leaf from the model */
        static const uint32_t leaves[] = { 0, 1, 2, 4, 7, 0xa, 0xb, 0xd, 0x80000000, 0x80000001, 0x80000002,
                                           0x80000004, 0x80000007, 0x80000008, 0x40000000 };
        uint32_t leaf = rng_pct(r, 90) ? leaves[rng_below(r, 15)] : (uint32_t)rng_next(r);
        seq_add(&s, x_mov_imm(RAX, leaf), RG_ALU, "mov");
        seq_add(&s, x_mov_imm(RCX, rng_below(r, 3)), RG_ALU, "mov");
        xop(&x, 0x0fa2);
        seq_add(&s, x, RG_SYSREG, "cpuid");
        emit(g, &s);
    } else if (k < 12) {                                /* mov from crN */
        static const unsigned crs[] = { 0, 2, 3, 4, 8 };
        unsigned cr = crs[rng_below(r, 5)], d = any_reg(g);
        x_rr(&x, false, 0x0f20, cr, d);                 /* REX.R selects cr8 */
        emit1(g, x, RG_SYSREG, "mov");
    } else {                                            /* mov to crN: mostly a small change */
        unsigned t = any_reg(g), which = rng_below(r, 10);
        unsigned cr = which < 3 ? 4 : which < 5 ? 0 : which < 7 ? 8 : which < 9 ? 3 : 2;
        x_rr(&x, false, 0x0f20, cr, t);                 /* read it */
        seq_add(&s, x, RG_SYSREG, "mov");
        x.n = 0;
        uint32_t flip;
        switch (cr) {
        case 4: flip = (uint32_t[]){ 0x100, 0x4, 0x600, 0x80, 0x10000, 0x200000 }[rng_below(r, 6)]; break;
        case 0: flip = (uint32_t[]){ 0x8, 0x10000, 0x40000, 0x2, 0x4, 0x20000000 }[rng_below(r, 6)]; break;
        case 8: flip = rng_below(r, 16); break;
        case 3: flip = rng_pct(r, 80) ? 0 : 0x1000 * rng_below(r, 8); break;
        default: flip = (uint32_t)rng_next(r); break;
        }
        if (rng_pct(r, 5))
            flip = (uint32_t)rng_next(r);
        x_rr(&x, false, 0x81, 6, t);                    /* xor r32, imm32 */
        ximm(&x, flip, 4);
        seq_add(&s, x, RG_ALU, "xor");
        x.n = 0;
        x_rr(&x, false, 0x0f22, cr, t);
        seq_add(&s, x, RG_SYSREG, "mov");
        emit(g, &s);
    }
}

static void item_system(Gen *g)
{
    Rng *r = g->r;
    unsigned k = rng_below(r, 30);
    XI x = { .n = 0 };
    Seq s = { .n = 0 };
    switch (k) {
    case 0: case 1: xb(&x, 0xfa); emit1(g, x, RG_SYSTEM, "cli"); break;
    case 2: case 3: case 4: xb(&x, 0xfb); emit1(g, x, RG_SYSTEM, "sti"); break;
    case 5: xb(&x, 0x9c); emit1(g, x, RG_SYSTEM, "pushfq"); break;
    case 6: xb(&x, 0x9d); emit1(g, x, RG_SYSTEM, "popfq"); break;
    case 7:                                             /* hlt: sleeps for good unless an interrupt comes */
        if (rng_pct(r, 50))
            xb(&x, 0xf4), emit1(g, x, RG_SYSTEM, "hlt");
        else
            xb(&x, 0xf3), xb(&x, 0x90), emit1(g, x, RG_SYSTEM, "pause");
        break;
    case 8: {                                           /* lidt: ours again, or random memory */
        XMem m = rng_pct(r, 70) ? (XMem){ -1, -1, 0, (int32_t)(X_LOAD + OFF_IDTR) } : pick_mem(g);
        x_rm(&x, false, 0x0f01, 3, &m);
        emit1(g, x, RG_SYSTEM, "lidt");
        break;
    }
    case 9: {                                           /* sidt / sgdt / str / sldt */
        XMem m = pick_mem(g);
        unsigned op = rng_below(r, 2);
        x_rm(&x, false, 0x0f01, op, &m);
        emit1(g, x, RG_SYSTEM, op ? "sidt" : "sgdt");
        break;
    }
    case 10: {                                          /* lgdt ours again (rarely random) */
        XMem m = rng_pct(r, 80) ? (XMem){ -1, -1, 0, (int32_t)(X_LOAD + OFF_GDTR) } : pick_mem(g);
        x_rm(&x, false, 0x0f01, 2, &m);
        emit1(g, x, RG_SYSTEM, "lgdt");
        break;
    }
    case 11: {                                          /* mov ss/ds/es, r */
        unsigned reg = any_reg(g);
        static const uint16_t sels[] = { SEL_KDATA, SEL_KDATA, 0, SEL_UDATA | 3, SEL_KCODE, 0x1234 };
        seq_add(&s, x_mov_imm(reg, sels[rng_below(r, 6)]), RG_ALU, "mov");
        x_rr(&x, false, 0x8e, rng_pct(r, 50) ? 3 : rng_pct(r, 50) ? 0 : 2, reg);
        seq_add(&s, x, RG_SYSTEM, "mov");
        emit(g, &s);
        break;
    }
    case 12: xop(&x, 0x0f05); emit1(g, x, RG_SYSTEM, "syscall"); break;
    case 13: xop(&x, 0x0f01f8); emit1(g, x, RG_SYSTEM, "swapgs"); break;
    case 14: xop(&x, rng_pct(r, 80) ? 0x0f09 : 0x0f08); emit1(g, x, RG_SYSTEM, "wbinvd|invd"); break;
    case 15: { XMem m = pick_mem(g); x_rm(&x, false, 0x0f01, 7, &m); emit1(g, x, RG_SYSTEM, "invlpg"); break; }
    case 16: { XMem m = pick_mem(g); x_rm(&x, false, 0x0fae, 7, &m); emit1(g, x, RG_SYSTEM, "clflush"); break; }
    case 17: {
        static const unsigned f[3] = { 0x0faee8, 0x0faef0, 0x0faef8 };
        unsigned i = rng_below(r, 3);
        xop(&x, f[i]);
        emit1(g, x, RG_SYSTEM, (const char *const[]){ "lfence", "mfence", "sfence" }[i]);
        break;
    }
    case 18: xb(&x, 0xf3); xb(&x, 0x90); emit1(g, x, RG_SYSTEM, "pause"); break;
    case 19:                                            /* monitor / mwait (mwait sleeps like hlt) */
        xop(&x, rng_pct(r, 60) ? 0x0f01c8 : 0x0f01c9);
        emit1(g, x, RG_SYSTEM, "monitor|mwait");
        break;
    case 20: case 21: {                                 /* in / out: console, debug-exit (rarely), others */
        static const uint16_t ports[] = { 0x3f8, 0x3f9, 0x3fa, 0x3fb, 0x3fc, 0x3fd, 0x3fe, 0x3ff, 0x80, 0x20,
                                          0x21, 0x40, 0x60, 0x70, 0x71, 0xcf8, 0xcfc, 0xf5, 0xf6 };
        uint16_t port = rng_pct(r, 85) ? ports[rng_below(r, sizeof ports / sizeof ports[0])] : (uint16_t)rng_next(r);
        if (rng_below(r, 1000) < 2)
            port = 0xf4;                                /* isa-debug-exit: ends the run */
        bool out = k == 21;
        if (port < 256 && rng_pct(r, 50)) {
            xb(&x, out ? 0xe6 + rng_below(r, 2) : 0xe4 + rng_below(r, 2));
            xb(&x, port);
            emit1(g, x, RG_SYSTEM, out ? "out" : "in");
        } else {
            seq_add(&s, x_mov_imm(RDX, port), RG_ALU, "mov");
            unsigned w = rng_below(r, 3);
            if (w == 1)
                xb(&x, 0x66);
            xb(&x, (out ? 0xee : 0xec) + (w ? 1 : 0));
            seq_add(&s, x, RG_SYSTEM, out ? "out" : "in");
            emit(g, &s);
        }
        break;
    }
    case 22: {                                          /* ins/outs/string ops, small counts */
        static const uint16_t strops[] = { 0xa4, 0xa5, 0xaa, 0xab, 0xac, 0xa6, 0xae, 0x6c, 0x6e };
        static const char *const strmn[] = { "rep movsb", "rep movsq", "rep stosb", "rep stosq", "rep lodsb",
                                             "repe cmpsb", "repe scasb", "rep insb", "rep outsb" };
        unsigned i = rng_below(r, 9);
        seq_add(&s, x_mov_imm(RCX, rng_below(r, 40)), RG_ALU, "mov");
        xb(&x, 0xf3);
        if (i == 1 || i == 3)
            xb(&x, 0x48);
        xb(&x, strops[i]);
        seq_add(&s, x, i < 7 ? RG_STORE : RG_SYSTEM, strmn[i]);
        emit(g, &s);
        break;
    }
    case 23: xb(&x, rng_pct(r, 85) ? 0xfc : 0xfd); emit1(g, x, RG_SYSTEM, "cld|std"); break;
    case 24: {                                          /* rdrand / rdseed: #UD on this model */
        x_rr(&x, true, 0x0fc7, rng_pct(r, 50) ? 6 : 7, any_reg(g));
        emit1(g, x, RG_EXCEPTION, "rdrand|rdseed");
        break;
    }
    case 25: {                                          /* drop to CPL 3 through iretq */
        if (!g->tss)
            break;
        uint64_t t = body_target(g);
        seq_add(&s, x_mov_imm(RAX, t), RG_ALU, "mov");
        xb(&x, 0x6a), xb(&x, SEL_UDATA | 3);                      /* push ss */
        seq_add(&s, x, RG_STORE, "push");
        x.n = 0;
        xb(&x, 0x54);                                             /* push rsp */
        seq_add(&s, x, RG_STORE, "push");
        emit(g, &s);
        s.n = 0;
        x.n = 0;
        xb(&x, 0x9c);                                             /* pushfq */
        seq_add(&s, x, RG_SYSTEM, "pushfq");
        x.n = 0;
        xb(&x, 0x6a), xb(&x, rng_pct(r, 90) ? SEL_UCODE | 3 : SEL_KCODE); /* push cs */
        seq_add(&s, x, RG_STORE, "push");
        x.n = 0;
        xb(&x, 0x50);                                             /* push rax */
        seq_add(&s, x, RG_STORE, "push");
        x.n = 0;
        xb(&x, 0x48), xb(&x, 0xcf);
        seq_add(&s, x, RG_SYSTEM, "iretq");
        emit(g, &s);
        break;
    }
    case 26: xb(&x, 0x48), xb(&x, 0xcf); emit1(g, x, RG_SYSTEM, "iretq"); break;   /* whatever the stack holds */
    case 27: xb(&x, 0x48), xop(&x, 0x0f07); emit1(g, x, RG_SYSTEM, "sysret*"); break;
    case 28: {                                          /* ltr / lldt of a selector */
        unsigned reg = any_reg(g);
        seq_add(&s, x_mov_imm(reg, rng_pct(r, 70) ? SEL_TSS : rng_below(r, 0x50)), RG_ALU, "mov");
        x_rr(&x, false, 0x0f00, rng_pct(r, 70) ? 3 : 2, reg);
        seq_add(&s, x, RG_SYSTEM, "ltr|lldt");
        emit(g, &s);
        break;
    }
    default: {                                          /* enter / leave */
        if (rng_pct(r, 50)) {
            xb(&x, 0xc8);
            ximm(&x, rng_below(r, 64) * 8, 2);
            xb(&x, rng_below(r, 3));
            emit1(g, x, RG_SYSTEM, "enter");
        } else {
            xb(&x, 0xc9);
            emit1(g, x, RG_SYSTEM, "leave");
        }
        break;
    }
    }
}

static void item_exception(Gen *g)
{
    Rng *r = g->r;
    unsigned k = rng_below(r, 10);
    XI x = { .n = 0 };
    switch (k) {
    case 0: case 1: xop(&x, 0x0f0b); emit1(g, x, RG_EXCEPTION, "ud2"); break;
    case 2: case 3: xb(&x, 0xcc); emit1(g, x, RG_EXCEPTION, "int3"); break;
    case 4: case 5: case 6: {
        unsigned v = rng_pct(r, 50) ? 32 + rng_below(r, 224) : rng_below(r, 256);
        xb(&x, 0xcd);
        xb(&x, v);
        emit1(g, x, RG_EXCEPTION, "int");
        break;
    }
    case 7: xb(&x, 0xce); emit1(g, x, RG_EXCEPTION, NULL); break;          /* into: #UD in 64-bit mode */
    case 8: xb(&x, 0xf1); emit1(g, x, RG_EXCEPTION, NULL); break;          /* int1 (icebp) */
    default: {                                                              /* privileged at CPL 3, #GP */
        XI y = { .n = 0 };
        xb(&y, 0x8e), xb(&y, 0xc8);                                         /* mov cs, ax: #UD */
        emit1(g, y, RG_EXCEPTION, NULL);
        break;
    }
    }
}

static void item_fp(Gen *g)
{
    Rng *r = g->r;
    unsigned k = rng_below(r, 8), a = rng_below(r, 8), b = rng_below(r, 8);
    XI x = { .n = 0 };
    const char *mn;
    switch (k) {
    case 0: xb(&x, 0x66); x_rr(&x, true, 0x0f6e, a, any_reg(g)); mn = "movq"; break;
    case 1: x_rr(&x, false, 0x0f58, a, b); mn = "addps"; break;
    case 2: xb(&x, 0xf2); x_rr(&x, false, 0x0f5e, a, b); mn = "divsd"; break;
    case 3: xb(&x, 0x66); x_rr(&x, false, 0x0fef, a, b); mn = "pxor"; break;
    case 4: { XMem m = pick_mem(g); xb(&x, 0xf3); x_rm(&x, false, 0x0f6f, a, &m); mn = "movdqu"; break; }
    case 5: { XMem m = pick_mem(g); xb(&x, 0xf3); x_rm(&x, false, 0x0f7f, a, &m); mn = "movdqu"; break; }
    case 6: xb(&x, 0xd9); xb(&x, 0xe8 + rng_below(r, 2)); mn = "fld1|fldl2t"; break;
    default: xb(&x, 0xde); xb(&x, 0xc1 + rng_below(r, 7)); mn = "faddp"; break;
    }
    emit1(g, x, RG_FP, mn);
}

/* mov reg, LAPIC; then mov dword [reg + off], imm32 */
static void lapic_write(Gen *g, unsigned reg, unsigned off, uint32_t v)
{
    Seq s = { .n = 0 };
    XI x = { .n = 0 };
    seq_add(&s, x_mov_imm(reg, LAPIC), RG_ADDR, "mov");
    XMem m = { (int)reg, -1, 0, (int32_t)off };
    x_rm(&x, false, 0xc7, 0, &m);
    ximm(&x, v, 4);
    seq_add(&s, x, RG_DEVICE, "mov");
    emit(g, &s);
}


static void item_device(Gen *g)
{
    Rng *r = g->r;
    unsigned reg = any_reg(g), k = rng_below(r, 10);
    switch (k) {
    case 0: case 1:                                     /* APIC on, timer one-shot/periodic */
        lapic_write(g, reg, 0xf0, 0x100 | 0xff);
        lapic_write(g, reg, 0x3e0, rng_below(r, 12));
        lapic_write(g, reg, 0x320, (32 + rng_below(r, 224)) | (rng_pct(r, 50) ? 1u << 17 : 0) |
                                       (rng_pct(r, 10) ? 1u << 16 : 0) | (rng_pct(r, 10) ? 2u << 17 : 0));
        lapic_write(g, reg, 0x380, 1 + rng_below(r, 3000));
        if (rng_pct(r, 70)) {
            XI x = { .n = 0 };
            xb(&x, 0xfb);
            emit1(g, x, RG_SYSTEM, "sti");
        }
        break;
    case 2: case 3: {                                   /* PMU overflow into LVTPC (NMI or a vector) */
        lapic_write(g, reg, 0x340, rng_pct(r, 60) ? 0x400 : 32 + rng_below(r, 224));
        unsigned c = rng_below(r, 4);
        static const uint8_t ev[] = { 0x3c, 0xc0, 0xc4, 0xc5 };
        wrmsr_seq(g, RG_DEVICE, 0x186 + c, ev[rng_below(r, 4)] | 3u << 16 | 1u << 20 | 1u << 22);
        wrmsr_seq(g, RG_DEVICE, 0xc1 + c, (uint64_t)-(int64_t)rng_range(r, 5, 2000) & 0xffffffffffffull);
        if (rng_pct(r, 40)) {
            wrmsr_seq(g, RG_DEVICE, 0x38d, 0xaaa & (rng_next(r) | 0x888));
            wrmsr_seq(g, RG_DEVICE, 0x309 + rng_below(r, 3), (uint64_t)-(int64_t)rng_range(r, 5, 2000) & 0xffffffffffffull);
        }
        wrmsr_seq(g, RG_DEVICE, 0x38f, 0xf | 7ull << 32);
        break;
    }
    case 4: case 5:                                     /* IPI: self, other CPU, NMI, broadcast */
        lapic_write(g, reg, 0xf0, 0x1ff);
        lapic_write(g, reg, 0x310, rng_below(r, 3) << 24);
        lapic_write(g, reg, 0x300, (32 + rng_below(r, 224)) | (rng_pct(r, 25) ? 0x400 : 0) |
                                       rng_below(r, 4) << 18 | (rng_pct(r, 10) ? 0x800 : 0));
        break;
    case 6:                                             /* TPR, EOI, LVT entries, ESR */
        lapic_write(g, reg, (unsigned[]){ 0x80, 0xb0, 0x280, 0x350, 0x360, 0x370, 0xd0, 0xe0 }[rng_below(r, 8)],
                    (uint32_t)rng_next(r) & 0x1ffff);
        break;
    case 7: {                                           /* release CPU 1 (the prologue, mostly) */
        Seq s = { .n = 0 };
        XI x = { .n = 0 };
        uint64_t t = rng_pct(r, 80) ? X_LOAD : body_target(g);
        seq_add(&s, x_mov_imm(RAX, t), RG_ALU, "mov");
        seq_add(&s, x_mov_imm(reg == RAX ? RBX : reg, SPIN_TABLE + 8 * (rng_pct(r, 90) ? 1 : 2)), RG_ADDR, "mov");
        XMem m = { (int)(reg == RAX ? RBX : reg), -1, 0, 0 };
        x_rm(&x, true, 0x89, RAX, &m);
        seq_add(&s, x, RG_DEVICE, "mov");
        emit(g, &s);
        break;
    }
    default: {                                          /* console bytes */
        Seq s = { .n = 0 };
        XI x = { .n = 0 };
        seq_add(&s, x_mov_imm(RAX, 0x20 + rng_below(r, 0x5f)), RG_ALU, "mov");
        xb(&x, 0x66), xb(&x, 0xba), ximm(&x, 0x3f8, 2);           /* mov dx, 0x3f8 */
        seq_add(&s, x, RG_ALU, "mov");
        x.n = 0;
        xb(&x, 0xee);
        seq_add(&s, x, RG_DEVICE, "out");
        emit(g, &s);
        break;
    }
    }
}

static void item_random(Gen *g)
{
    Rng *r = g->r;
    uint8_t b[8];
    unsigned n = 1 + rng_below(r, 6);
    for (unsigned i = 0; i < n; i++)
        b[i] = (uint8_t)rng_next(r);
    XI x = { .n = 0 };
    for (unsigned i = 0; i < n; i++)
        xb(&x, b[i]);
    emit1(g, x, RG_RANDOM, NULL);
}

/* One body item, drawn by weight. */
static void item(Gen *g)
{
    /* alu addr load store atomic stack branch sysreg system exception fp device random */
    const unsigned w[] = { 26, 9, 10, 8, 3, 3, 12, 6, 6, 3, 3, 2, g->o->random_pct };
    switch (rng_weighted(g->r, w, sizeof w / sizeof w[0])) {
    case 0: item_alu(g); break;
    case 1: item_addr(g); break;
    case 2: item_load(g); break;
    case 3: item_store(g); break;
    case 4: item_atomic(g); break;
    case 5: item_stack(g); break;
    case 6: item_branch(g); break;
    case 7: item_sysreg(g); break;
    case 8: item_system(g); break;
    case 9: item_exception(g); break;
    case 10: item_fp(g); break;
    case 11: item_device(g); break;
    default: item_random(g); break;
    }
}

/* ------------------------------------------------------------------ handlers and tables */

/* A small straight-line item for handlers and subroutines (ALU, loads, stores, a sysreg). */
static void quiet_item(Gen *g)
{
    unsigned k = rng_below(g->r, 10);
    g->quiet = true;
    if (k < 5)
        item_alu(g);
    else if (k < 7)
        item_load(g);
    else if (k < 8)
        item_store(g);
    else if (k < 9)
        item_addr(g);
    else
        item_sysreg(g);
    g->quiet = false;
}

/* A handler: saves a few registers (or not), does random work, drops the error code, then
 * returns past the fault (next bundle), returns as is, sleeps, or abandons the frame. */
static uint64_t gen_handler(Gen *g, bool errcode, bool irq)
{
    Rng *r = g->r;
    RgImage *img = g->img;
    uint64_t start = rg_here(img);
    unsigned pushes = rng_pct(r, 40) ? 1 + rng_below(r, 3) : 0;
    static const unsigned saved[3] = { RAX, RCX, RDX };
    XI x;
    for (unsigned i = 0; i < pushes; i++) {
        x = (XI){ .n = 0 };
        xb(&x, 0x50 + saved[i]);
        emit1(g, x, RG_STORE, "push");
    }
    unsigned n = rng_below(r, 5);
    for (unsigned i = 0; i < n; i++)
        quiet_item(g);
    if (irq || rng_pct(r, 20)) {                        /* EOI */
        Seq s = { .n = 0 };
        x = (XI){ .n = 0 };
        seq_add(&s, x_mov_imm(RCX, LAPIC + 0xb0), RG_ADDR, "mov");
        XMem m = { RCX, -1, 0, 0 };
        x_rm(&x, false, 0xc7, 0, &m);
        ximm(&x, 0, 4);
        seq_add(&s, x, RG_DEVICE, "mov");
        emit(g, &s);
    }
    if (rng_pct(r, 10)) {                               /* mov rax, cr2 */
        x = (XI){ .n = 0 };
        x_rr(&x, false, 0x0f20, 2, RAX);
        emit1(g, x, RG_SYSREG, "mov");
    }
    unsigned frame = 8 * pushes + (errcode ? 8 : 0);
    if (rng_pct(r, 15)) {                               /* saved RFLAGS: set IF or clear TF */
        x = (XI){ .n = 0 };
        XMem m = { RSP, -1, 0, (int32_t)(frame + 16) };
        bool setif = rng_pct(r, 60);
        x_rm(&x, true, 0x81, setif ? 1 : 4, &m);
        ximm(&x, setif ? 0x200 : ~0x100u, 4);
        emit1(g, x, RG_ALU, setif ? "or" : "and");
    }
    for (unsigned i = pushes; i-- > 0;) {
        x = (XI){ .n = 0 };
        xb(&x, 0x58 + saved[i]);
        emit1(g, x, RG_LOAD, "pop");
    }
    if (errcode && rng_pct(r, 95)) {                    /* add rsp, 8 */
        x = (XI){ .n = 0 };
        x_rr(&x, true, 0x83, 0, RSP);
        xb(&x, 8);
        emit1(g, x, RG_ALU, "add");
    }
    unsigned act = rng_below(r, 100);
    if (irq)
        act = act < 80 ? 70 : act;                      /* interrupts: mostly return as is */
    if (act < 60) {                                     /* skip to the next bundle */
        x = (XI){ .n = 0 };
        XMem m = { RSP, -1, 0, 0 };
        x_rm(&x, true, 0x83, 0, &m);
        xb(&x, BUNDLE);
        emit1(g, x, RG_ALU, "add");
        x = (XI){ .n = 0 };
        x_rm(&x, true, 0x83, 4, &m);
        xb(&x, (uint8_t)-(int)BUNDLE);
        emit1(g, x, RG_ALU, "and");
    } else if (act < 88) {
        /* return as is */
    } else if (act < 90) {                              /* sleep until an interrupt */
        x = (XI){ .n = 0 };
        xb(&x, 0xfb);
        emit1(g, x, RG_SYSTEM, "sti");
        x = (XI){ .n = 0 };
        xb(&x, 0xf4);
        emit1(g, x, RG_SYSTEM, "hlt");
    } else if (act < 97) {                              /* abandon the frame: jmp into the body */
        x = (XI){ .n = 0 };
        uint64_t t = X_LOAD + OFF_BODY + BUNDLE * rng_below(r, (X_SIZE - OFF_BODY) / BUNDLE - 1);
        xb(&x, 0xe9);
        ximm(&x, (uint32_t)rel_to(rg_here(img) + 5, t), 4);
        emit1(g, x, RG_BRANCH, "jmp");
    } else {
        item_exception(g);                              /* a fault inside the handler */
    }
    x = (XI){ .n = 0 };
    xb(&x, 0x48), xb(&x, 0xcf);
    emit1(g, x, RG_SYSTEM, "iretq");
    return start;
}

static void gen_tables(Gen *g)
{
    Rng *r = g->r;
    RgImage *img = g->img;
    uint64_t tss = X_LOAD + OFF_TSS;
    /* GDT @see SDM vol. 3A §3.4.5, §7.2.3 (64-bit TSS descriptor) */
    rg_put_le(img, OFF_GDT + 0x08, 0x00af9a000000ffffull, 8);           /* kernel code64 */
    rg_put_le(img, OFF_GDT + 0x10, 0x00cf92000000ffffull, 8);           /* kernel data */
    rg_put_le(img, OFF_GDT + 0x20, 0x00cffa000000ffffull, 8);           /* user code32 */
    rg_put_le(img, OFF_GDT + 0x28, 0x00cff2000000ffffull, 8);           /* user data */
    rg_put_le(img, OFF_GDT + 0x30, 0x00affa000000ffffull, 8);           /* user code64 */
    uint64_t lo = 0x67 | (tss & 0xffffff) << 16 | 0x89ull << 40 | ((tss >> 24) & 0xff) << 56;
    rg_put_le(img, OFF_GDT + SEL_TSS, lo, 8);
    rg_put_le(img, OFF_GDT + SEL_TSS + 8, tss >> 32, 8);
    rg_put_le(img, OFF_GDTR, 0x4f, 2);
    rg_put_le(img, OFF_GDTR + 2, X_LOAD + OFF_GDT, 8);
    /* TSS: RSP0, IST1, IST2 */
    rg_put_le(img, OFF_TSS + 4, STACK_TOP - 0x8000, 8);
    rg_put_le(img, OFF_TSS + 0x24, IST1_TOP, 8);
    rg_put_le(img, OFF_TSS + 0x2c, IST2_TOP, 8);
    /* IDT: mostly present gates to the handlers of the right kind */
    rg_put_le(img, OFF_IDTR, rng_pct(r, 97) ? 0xfff : rng_below(r, 0x1000), 2);
    rg_put_le(img, OFF_IDTR + 2, X_LOAD + OFF_IDT, 8);
    for (unsigned v = 0; v < 256; v++) {
        bool err = v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21;
        uint64_t h = v < 32 ? (err ? g->h_err : g->h_noerr)[rng_below(r, NHANDLER)]
                            : (rng_pct(r, 85) ? g->h_irq : g->h_noerr)[rng_below(r, NHANDLER)];
        unsigned type = rng_pct(r, 70) ? 0x8e : 0x8f;   /* present, DPL 0, interrupt / trap gate */
        if (rng_pct(r, 20))
            type |= 0x60;                               /* DPL 3: int n from user mode */
        unsigned k = rng_below(r, 100);
        if (k < 2)
            type &= 0x7f;                               /* not present: #NP */
        else if (k < 3)
            type = 0x80 | rng_below(r, 16);             /* a bad type: #GP */
        unsigned sel = rng_pct(r, 98) ? SEL_KCODE : rng_below(r, 0x50);
        unsigned ist = g->tss && rng_pct(r, 10) ? 1 + rng_below(r, 2) : 0;
        if (v == 2 || v == 8)
            ist = g->tss && rng_pct(r, 50) ? 1 + (v == 8) : 0;
        uint64_t lo_ = (h & 0xffff) | (uint64_t)sel << 16 | (uint64_t)ist << 32 | (uint64_t)type << 40 |
                       ((h >> 16) & 0xffff) << 48;
        rg_put_le(img, OFF_IDT + 16 * v, lo_, 8);
        rg_put_le(img, OFF_IDT + 16 * v + 8, h >> 32, 8);
    }
}

/* ------------------------------------------------------------------ prologue */

static void prologue(Gen *g)
{
    Rng *r = g->r;
    XI x;
    Seq s = { .n = 0 };
    /* rsp = STACK_TOP - (apic_id & 7) * 0x10000 */
    x = (XI){ .n = 0 };
    x_rr(&x, true, 0x89, RSI, RAX);
    seq_add(&s, x, RG_ALU, "mov");
    x = (XI){ .n = 0 };
    x_rr(&x, true, 0x83, 4, RAX), xb(&x, 7);
    seq_add(&s, x, RG_ALU, "and");
    x = (XI){ .n = 0 };
    x_rr(&x, true, 0xc1, 4, RAX), xb(&x, 16);
    seq_add(&s, x, RG_ALU, "shl");
    emit(g, &s);
    s.n = 0;
    seq_add(&s, x_mov_imm(RSP, STACK_TOP), RG_ALU, "mov");
    x = (XI){ .n = 0 };
    x_rr(&x, true, 0x29, RAX, RSP);
    seq_add(&s, x, RG_ALU, "sub");
    emit(g, &s);
    if (g->o->vectors) {
        XMem gdtr = { -1, -1, 0, (int32_t)(X_LOAD + OFF_GDTR) }, idtr = { -1, -1, 0, (int32_t)(X_LOAD + OFF_IDTR) };
        x = (XI){ .n = 0 };
        x_rm(&x, false, 0x0f01, 2, &gdtr);
        emit1(g, x, RG_SYSTEM, "lgdt");
        if (g->tss) {
            /* The TSS descriptor is per machine: CPU 1 finds it busy.  Clear the busy bit first
             * (type 0xb -> 0x9) so each CPU's ltr succeeds. */
            x = (XI){ .n = 0 };
            XMem d = { -1, -1, 0, (int32_t)(X_LOAD + OFF_GDT + SEL_TSS + 5) };
            x_rm(&x, false, 0xc6, 0, &d), xb(&x, 0x89);
            emit1(g, x, RG_STORE, "mov");
            s.n = 0;
            seq_add(&s, x_mov_imm(RAX, SEL_TSS), RG_ALU, "mov");
            x = (XI){ .n = 0 };
            x_rr(&x, false, 0x0f00, 3, RAX);
            seq_add(&s, x, RG_SYSTEM, "ltr");
            emit(g, &s);
        }
        x = (XI){ .n = 0 };
        x_rm(&x, false, 0x0f01, 3, &idtr);
        emit1(g, x, RG_SYSTEM, "lidt");
    }
    if (g->user) {                                      /* U/S at every level for 0-4 MiB */
        static const uint32_t ptes[] = { 0x9000, 0xa000, 0xb000, 0xb008 };
        for (unsigned i = 0; i < 4; i++) {
            x = (XI){ .n = 0 };
            XMem m = { -1, -1, 0, (int32_t)ptes[i] };
            x_rm(&x, true, 0x83, 1, &m), xb(&x, 4);
            emit1(g, x, RG_ALU, "or");
        }
        s.n = 0;
        x = (XI){ .n = 0 };
        x_rr(&x, false, 0x0f20, 3, RAX);
        seq_add(&s, x, RG_SYSREG, "mov");
        x = (XI){ .n = 0 };
        x_rr(&x, false, 0x0f22, 3, RAX);
        seq_add(&s, x, RG_SYSREG, "mov");
        emit(g, &s);
    }
    if (rng_pct(r, 60)) {                               /* CR4.OSFXSR|OSXMMEXCPT: SSE usable */
        s.n = 0;
        x = (XI){ .n = 0 };
        x_rr(&x, false, 0x0f20, 4, RAX);
        seq_add(&s, x, RG_SYSREG, "mov");
        x = (XI){ .n = 0 };
        x_rr(&x, false, 0x81, 1, RAX), ximm(&x, 0x600 | (rng_pct(r, 30) ? 0x100 : 0), 4);
        seq_add(&s, x, RG_ALU, "or");
        x = (XI){ .n = 0 };
        x_rr(&x, false, 0x0f22, 4, RAX);
        seq_add(&s, x, RG_SYSREG, "mov");
        emit(g, &s);
    }
    if (rng_pct(r, 40)) {                               /* SYSCALL: EFER.SCE, STAR, LSTAR, FMASK */
        wrmsr_seq(g, RG_DEVICE, 0xc0000080, 0x501);
        wrmsr_seq(g, RG_DEVICE, 0xc0000081, (uint64_t)SEL_UCODE32 << 48 | (uint64_t)SEL_KCODE << 32);
        wrmsr_seq(g, RG_DEVICE, 0xc0000082, g->syscall_entry);
    }
    for (unsigned reg = 0; reg < 16; reg++) {           /* registers: addresses or random values */
        if (reg == RSP || rng_pct(r, 20))
            continue;
        if (rng_pct(r, 60)) {
            uint64_t a = pool_addr(g);
            emit1(g, x_mov_imm(reg, a), RG_ADDR, mov_imm_mn(a));
            note_areg(g, reg);
        } else {
            uint64_t v = rng_pct(r, 50) ? rng_below(r, 256) : rng_next(r);
            emit1(g, x_mov_imm(reg, v), RG_ALU, mov_imm_mn(v));
        }
    }
    if (rng_pct(r, 30)) {
        x = (XI){ .n = 0 };
        xb(&x, 0xfb);
        emit1(g, x, RG_SYSTEM, "sti");
    }
    x = (XI){ .n = 0 };
    xb(&x, 0xe9);
    ximm(&x, (uint32_t)rel_to(rg_here(g->img) + 5, X_LOAD + OFF_BODY), 4);
    emit1(g, x, RG_BRANCH, "jmp");
}

/* ------------------------------------------------------------------ the image */

static void x86_generate(Rng *r, RgImage *img, const RgOptions *o)
{
    Gen g = { .r = r, .img = img, .o = o };
    g.tss = o->vectors && rng_pct(r, 70);
    g.user = g.tss && rng_pct(r, 50);
    /* subroutines and the SYSCALL entry */
    img->pos = OFF_FUNCS;
    g.limit = OFF_HANDLERS;
    for (unsigned i = 0; i < NFUNC; i++) {
        g.funcs[i] = rg_here(img);
        unsigned n = 2 + rng_below(r, 8);
        for (unsigned k = 0; k < n; k++)
            quiet_item(&g);
        XI x = { .n = 0 };
        xb(&x, 0xc3);
        emit1(&g, x, RG_BRANCH, "ret");
    }
    g.syscall_entry = rg_here(img);
    for (unsigned k = rng_below(r, 4); k > 0; k--)
        item_alu(&g);
    XI sr = { .n = 0 };
    xb(&sr, 0x48), xop(&sr, 0x0f07);
    emit1(&g, sr, RG_SYSTEM, "sysret*");
    /* handlers */
    if (o->vectors) {
        img->pos = OFF_HANDLERS;
        g.limit = OFF_GDT;
        for (unsigned i = 0; i < NHANDLER; i++) {
            g.h_err[i] = gen_handler(&g, true, false);
            g.h_noerr[i] = gen_handler(&g, false, false);
            g.h_irq[i] = gen_handler(&g, false, true);
        }
        gen_tables(&g);
    }
    /* prologue */
    img->pos = 0;
    g.limit = OFF_FUNCS;
    prologue(&g);
    /* body */
    img->pos = OFF_BODY;
    g.limit = X_SIZE - BUNDLE;
    g.bundled = true;
    while (rg_room(img, g.limit) >= BUNDLE)
        item(&g);
    pad_to(&g, X_SIZE - BUNDLE);
    g.bundled = false;
    g.limit = X_SIZE;
    XI x = { .n = 0 };
    xb(&x, 0xe9);
    ximm(&x, (uint32_t)rel_to(rg_here(img) + 5, X_LOAD + OFF_BODY), 4);
    emit1(&g, x, RG_BRANCH, "jmp");
}

const RgArch rg_arch_x86_64 = { "x86_64", X_LOAD, X_SIZE, false, x86_generate };
