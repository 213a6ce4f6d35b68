/* gic_regs.c — the GIC's memory-mapped distributor and redistributors (see gic.h).
 *
 * Register map (offsets; IHI 0069H 12.9 "The GIC Distributor register descriptions", 12.10 and
 * 12.11 for the redistributor's RD_base and SGI_base frames; IHI 0048B 4.3 for GICv2):
 *   GICD  0x0000 CTLR      0x0004 TYPER     0x0008 IIDR      0x000C TYPER2 (v3, RAZ)
 *         0x0080 IGROUPR   0x0100 ISENABLER 0x0180 ICENABLER 0x0200 ISPENDR  0x0280 ICPENDR
 *         0x0300 ISACTIVER 0x0380 ICACTIVER (one bit per INTID, 32 per register)
 *         0x0400 IPRIORITYR (a byte per INTID)  0x0800 ITARGETSR (v2, a byte per INTID)
 *         0x0C00 ICFGR (two bits per INTID: bit 1 = edge)  0x0D00 IGRPMODR (v3, RAZ/WI: DS = 1)
 *         0x0E00 NSACR (RAZ/WI)  0x0F00 SGIR (v2)  0x0F10 CPENDSGIR, 0x0F20 SPENDSGIR (v2)
 *         0x6000 IROUTER<n> (v3, 64 bits, n = 32..)   0xFFE8 PIDR2 (v3; v2: 0x0FE8)
 *   GICR  one 128 KiB pair per CPU: RD_base 0x0000 CTLR 0x0004 IIDR 0x0008 TYPER (64 bits)
 *         0x0014 WAKER 0xFFE8 PIDR2; SGI_base (+0x10000) the bit registers and IPRIORITYR,
 *         ICFGR of INTIDs 0..31 at the GICD offsets.
 * On GICv3 affinity routing is always on (GICD_CTLR.ARE RAO/WI), so the distributor's
 * registers of INTIDs 0..31 are RAZ/WI there: the redistributor holds them.  On GICv2 they are
 * banked: each CPU reaches its own.
 */
#include "gic/gic.h"

#include <stdio.h>
#include <string.h>

enum {
    GIRQ_ENABLED = 1, GIRQ_PENDING = 2, GIRQ_LEVEL = 4, GIRQ_ACTIVE = 8, GIRQ_GROUP1 = 16, GIRQ_EDGE = 32,
};
enum {
    GICD_CTLR = 0x0000, GICD_TYPER = 0x0004, GICD_IIDR = 0x0008, GICD_IGROUPR = 0x0080, GICD_ISENABLER = 0x0100,
    GICD_ICENABLER = 0x0180, GICD_ISPENDR = 0x0200, GICD_ICPENDR = 0x0280, GICD_ISACTIVER = 0x0300,
    GICD_ICACTIVER = 0x0380, GICD_IPRIORITYR = 0x0400, GICD_ITARGETSR = 0x0800, GICD_ICFGR = 0x0C00,
    GICD_SGIR = 0x0F00, GICD_CPENDSGIR = 0x0F10, GICD_SPENDSGIR = 0x0F20, GICD_IROUTER = 0x6000,
    GICD_PIDR2_V3 = 0xFFE8, GICD_PIDR2_V2 = 0x0FE8,
};
enum { GICR_CTLR = 0x0000, GICR_IIDR = 0x0004, GICR_TYPER = 0x0008, GICR_WAKER = 0x0014, GICR_PIDR2 = 0xFFE8 };
#define GICR_FRAME 0x20000u         /* RD_base + SGI_base per CPU */
#define GICR_SGI_BASE 0x10000u
/* GICD_CTLR (DS = 1): EnableGrp0, EnableGrp1, ARE (RAO/WI), DS (RAO/WI) */
enum { CTLR_GRP0 = 1, CTLR_GRP1 = 2, CTLR_ARE = 1 << 4, CTLR_DS = 1 << 6 };
/* GICD_TYPER: ITLinesNumber [4:0], CPUNumber [7:5], IDbits [23:19] (v3), No1N (bit 25, v3) */
#define TYPER_ITLINES ((GIC_NR_IRQS / 32) - 1)
#define TYPER_IDBITS_10 (9u << 19)
#define TYPER_NO1N (1u << 25)
/* GICD_IIDR and GICR_IIDR: implementer Arm (0x43B), revision 0, product 0 */
#define GIC_IIDR 0x0000043Bu
/* PIDR2.ArchRev [7:4], what Linux reads to tell a GICv3 from a GICv4 (gic_validate_dist_version) */
enum { PIDR2_V2 = 0x2B, PIDR2_V3 = 0x3B };
/* GICR_TYPER: Last (bit 4), Processor_Number [23:8], Affinity_Value [63:32] */
#define GICR_TYPER_LAST (1u << 4)
/* GICR_WAKER: ProcessorSleep (bit 1), ChildrenAsleep (bit 2, read-only, follows it) */
enum { WAKER_SLEEP = 2, WAKER_ASLEEP = 4 };
/* IROUTER: Aff3 [39:32], Aff2 [23:16], Aff1 [15:8], Aff0 [7:0]; IRM (bit 31) RAZ/WI with No1N */
#define IROUTER_MASK 0xff00ffffffull
/* GICD_SGIR: TargetListFilter [25:24], CPUTargetList [23:16], SGIINTID [3:0] (IHI 0048B 4.3.15) */
enum { SGIR_LIST = 0, SGIR_OTHERS = 1, SGIR_SELF = 2 };

/* The per-INTID bit registers: which flag, and whether a write sets, clears or stores. */
typedef enum { BITS_STORE, BITS_SET, BITS_CLEAR } BitsOp;
typedef struct BitReg {
    uint32_t off;
    const char *name;
    uint8_t flag;
    BitsOp op;
} BitReg;

static const BitReg bit_regs[] = {
    { GICD_IGROUPR, "IGROUPR", GIRQ_GROUP1, BITS_STORE },
    { GICD_ISENABLER, "ISENABLER", GIRQ_ENABLED, BITS_SET },
    { GICD_ICENABLER, "ICENABLER", GIRQ_ENABLED, BITS_CLEAR },
    { GICD_ISPENDR, "ISPENDR", GIRQ_PENDING, BITS_SET },
    { GICD_ICPENDR, "ICPENDR", GIRQ_PENDING, BITS_CLEAR },
    { GICD_ISACTIVER, "ISACTIVER", GIRQ_ACTIVE, BITS_SET },
    { GICD_ICACTIVER, "ICACTIVER", GIRQ_ACTIVE, BITS_CLEAR },
};

/* The register an offset names, for the trace: "GICD_ISENABLER1", "GICR_WAKER[1]". */
typedef struct RegName {
    char s[40];
} RegName;

/* One access: who, where, and the name it is traced under. */
typedef struct Access {
    Gic *g;
    int n;                          /* the accessing CPU */
    int frame;                      /* the CPU whose private state it reaches */
    uint64_t pc;
    uint32_t off;
    unsigned size;
    bool priv;                      /* registers of INTIDs 0..31 only (the SGI_base frame) */
    RegName name;
} Access;

static const BitReg *bit_reg(uint32_t off)
{
    for (size_t i = 0; i < ARRAY_SIZE(bit_regs); i++)
        if (off >= bit_regs[i].off && off < bit_regs[i].off + 0x80)
            return &bit_regs[i];
    return NULL;
}

/* Does this access reach INTID `id`: a GICv3 distributor does not hold INTIDs 0..31, the
 * SGI_base frame holds nothing else, and no GIC holds more than GIC_NR_IRQS. */
static bool reaches(const Access *a, unsigned id)
{
    if (id >= GIC_NR_IRQS)
        return false;
    if (a->priv)
        return id < GIC_PRIV;
    return id >= GIC_PRIV || a->g->version == GIC_V2;
}

static uint32_t bits_read(const Access *a, const BitReg *r)
{
    unsigned first = (a->off - r->off) * 8;
    uint32_t v = 0;
    for (unsigned i = 0; i < 32; i++) {
        if (!reaches(a, first + i))
            continue;
        const GicIrq *q = gic_irq(a->g, a->frame, first + i);
        bool on = r->flag == GIRQ_PENDING ? gic_pending(q) : (q->flags & r->flag) != 0;
        v |= (uint32_t)on << i;
    }
    return v;
}

/* GICv2's SGIs are always enabled (IHI 0048B 4.3.5: ISENABLER0[15:0] RAO/WI) and their pending
 * state is per source (SPENDSGIR/CPENDSGIR): ISPENDR sets nothing, ICPENDR clears every source. */
static bool bit_fixed(const Access *a, const BitReg *r, unsigned id)
{
    return a->g->version == GIC_V2 && id < GIC_SGIS && (r->flag == GIRQ_ENABLED || (r->flag == GIRQ_PENDING && r->op == BITS_SET));
}

static void bits_write(Access *a, const BitReg *r, uint32_t v)
{
    unsigned first = (a->off - r->off) * 8;
    for (unsigned i = 0; i < 32; i++) {
        unsigned id = first + i;
        bool bit = v >> i & 1;
        if (!reaches(a, id) || (r->op != BITS_STORE && !bit) || bit_fixed(a, r, id))
            continue;
        GicIrq *q = gic_irq(a->g, a->frame, id);
        if (r->op == BITS_CLEAR || (r->op == BITS_STORE && !bit))
            q->flags &= (uint8_t)~r->flag;
        else
            q->flags |= r->flag;
        if (a->g->version == GIC_V2 && id < GIC_SGIS && r->flag == GIRQ_PENDING)
            a->g->cpu[a->frame].sgi_src[id] = 0;
    }
}

static uint32_t prio_read(const Access *a, uint32_t base)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < a->size; i++) {
        unsigned id = a->off - base + i;
        if (reaches(a, id))
            v |= (uint32_t)gic_irq(a->g, a->frame, id)->prio << (8 * i);
    }
    return v;
}

/* IPRIORITYR: the bits below the implemented ones are RAZ/WI (IHI 0069H 12.9.24). */
static void prio_write(Access *a, uint32_t base, uint32_t v)
{
    for (unsigned i = 0; i < a->size; i++) {
        unsigned id = a->off - base + i;
        uint8_t p = (uint8_t)(v >> (8 * i));
        if (!reaches(a, id))
            continue;
        if (p & ~GIC_PRIO_MASK)
            gic_diag(a->g, a->n, a->pc, "gic-priority-bits", "priority 0x%02x for INTID %u: this GIC implements %d "
                     "bits, the low ones read as zero", p, id, GIC_PRIO_BITS);
        gic_irq(a->g, a->frame, id)->prio = p & GIC_PRIO_MASK;
    }
}

static uint32_t cfg_read(const Access *a)
{
    unsigned first = (a->off - GICD_ICFGR) * 4;
    uint32_t v = 0;
    for (unsigned i = 0; i < 16; i++)
        if (reaches(a, first + i) && (gic_irq(a->g, a->frame, first + i)->flags & GIRQ_EDGE))
            v |= 2u << (2 * i);
    return v;
}

/* ICFGR: SGIs are always edge-triggered (ICFGR0 read-only). */
static void cfg_write(Access *a, uint32_t v)
{
    unsigned first = (a->off - GICD_ICFGR) * 4;
    for (unsigned i = 0; i < 16; i++) {
        unsigned id = first + i;
        if (!reaches(a, id) || id < GIC_SGIS)
            continue;
        GicIrq *q = gic_irq(a->g, a->frame, id);
        q->flags = (v >> (2 * i + 1) & 1) ? q->flags | GIRQ_EDGE : q->flags & ~GIRQ_EDGE;
    }
}

static uint32_t dist_typer(const Gic *g)
{
    uint32_t cpus = (uint32_t)(g->ncpus > GIC_V2_MAX_CPUS ? GIC_V2_MAX_CPUS : g->ncpus) - 1;
    uint32_t v = TYPER_ITLINES | cpus << 5;
    return g->version == GIC_V3 ? v | TYPER_IDBITS_10 | TYPER_NO1N : v;
}

static uint32_t ctlr_read(const Gic *g)
{
    return g->version == GIC_V3 ? g->ctlr | CTLR_ARE | CTLR_DS : g->ctlr;
}

static uint32_t itargets_read(const Access *a)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < a->size; i++) {
        unsigned id = a->off - GICD_ITARGETSR + i;
        uint8_t t = id < GIC_PRIV ? (uint8_t)(1u << a->n) : id < GIC_NR_IRQS ? a->g->itargets[id - GIC_PRIV] : 0;
        v |= (uint32_t)t << (8 * i);
    }
    return v;
}

static void itargets_write(Access *a, uint32_t v)
{
    uint8_t cpus = (uint8_t)((1u << a->g->ncpus) - 1);
    for (unsigned i = 0; i < a->size; i++) {
        unsigned id = a->off - GICD_ITARGETSR + i;
        if (id >= GIC_PRIV && id < GIC_NR_IRQS)
            a->g->itargets[id - GIC_PRIV] = (uint8_t)(v >> (8 * i)) & cpus;
    }
}

static uint32_t sgi_pend_read(const Access *a, uint32_t base)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < a->size; i++)
        v |= (uint32_t)a->g->cpu[a->n].sgi_src[(a->off - base + i) % GIC_SGIS] << (8 * i);
    return v;
}

/* SPENDSGIR/CPENDSGIR (GICv2): set or clear the pending state of an SGI per source CPU. */
static void sgi_pend_write(Access *a, uint32_t base, uint32_t v, bool set)
{
    GicCpu *gc = &a->g->cpu[a->n];
    for (unsigned i = 0; i < a->size; i++) {
        unsigned id = (a->off - base + i) % GIC_SGIS;
        uint8_t b = (uint8_t)(v >> (8 * i)) & (uint8_t)((1u << a->g->ncpus) - 1);
        gc->sgi_src[id] = set ? gc->sgi_src[id] | b : gc->sgi_src[id] & (uint8_t)~b;
        gic_set_pending(a->g, a->n, id, gc->sgi_src[id] != 0);
    }
}

/* GICD_SGIR (GICv2): an SGI to the listed CPUs, all but the sender, or the sender. */
static void sgir_write(Access *a, uint32_t v)
{
    unsigned filter = v >> 24 & 3;
    uint32_t all = (1u << a->g->ncpus) - 1, me = 1u << a->n;
    uint32_t targets = filter == SGIR_LIST ? (v >> 16 & 0xff) & all : filter == SGIR_OTHERS ? all & ~me : me;
    if (filter == 3)
        gic_diag(a->g, a->n, a->pc, "gic-reserved", "GICD_SGIR.TargetListFilter = 0b11 is reserved: no SGI sent");
    else
        gic_send_sgi(a->g, a->n, a->pc, v & 0xf, targets, false);
}

static void name_array(Access *a, const char *reg, uint32_t base, unsigned bytes_per_reg)
{
    snprintf(a->name.s, sizeof a->name.s, "GICD_%s%u", reg, (a->off - base) / bytes_per_reg);
}

/* ------------------------------------------------------------------ the distributor */

typedef enum { R_NONE, R_OK } Found;

static Found dist_array_read(Access *a, uint64_t *v)
{
    const BitReg *br = bit_reg(a->off);
    if (br && a->off < br->off + 0x80) {
        name_array(a, br->name, br->off, 4);
        *v = bits_read(a, br);
    } else if (a->off >= GICD_IPRIORITYR && a->off < GICD_IPRIORITYR + 0x400) {
        name_array(a, "IPRIORITYR", GICD_IPRIORITYR, 4);
        *v = prio_read(a, GICD_IPRIORITYR);
    } else if (a->off >= GICD_ICFGR && a->off < GICD_ICFGR + 0x100) {
        name_array(a, "ICFGR", GICD_ICFGR, 4);
        *v = cfg_read(a);
    } else if (a->g->version == GIC_V2 && a->off >= GICD_ITARGETSR && a->off < GICD_ITARGETSR + 0x400) {
        name_array(a, "ITARGETSR", GICD_ITARGETSR, 4);
        *v = itargets_read(a);
    } else if (a->g->version == GIC_V2 && a->off >= GICD_CPENDSGIR && a->off < GICD_SPENDSGIR + 0x10) {
        uint32_t base = a->off < GICD_SPENDSGIR ? GICD_CPENDSGIR : GICD_SPENDSGIR;
        name_array(a, base == GICD_CPENDSGIR ? "CPENDSGIR" : "SPENDSGIR", base, 4);
        *v = sgi_pend_read(a, base);
    } else if (a->g->version == GIC_V3 && a->off >= GICD_IROUTER + 8 * GIC_PRIV && a->off < GICD_IROUTER + 8 * GIC_NR_IRQS) {
        unsigned id = (a->off - GICD_IROUTER) / 8;
        snprintf(a->name.s, sizeof a->name.s, "GICD_IROUTER%u", id);
        *v = a->g->irouter[id - GIC_PRIV] >> (a->off & 4 ? 32 : 0);
    } else {
        return R_NONE;
    }
    return R_OK;
}

static Found dist_read(Access *a, uint64_t *v)
{
    const char *n = NULL;
    switch (a->off) {
    case GICD_CTLR: n = "GICD_CTLR"; *v = ctlr_read(a->g); break;
    case GICD_TYPER: n = "GICD_TYPER"; *v = dist_typer(a->g); break;
    case GICD_IIDR: n = "GICD_IIDR"; *v = GIC_IIDR; break;
    case GICD_PIDR2_V3:
    case GICD_PIDR2_V2:
        if ((a->off == GICD_PIDR2_V3) != (a->g->version == GIC_V3))
            return R_NONE;
        n = "GICD_PIDR2";
        *v = a->g->version == GIC_V3 ? PIDR2_V3 : PIDR2_V2;
        break;
    default:
        return dist_array_read(a, v);
    }
    snprintf(a->name.s, sizeof a->name.s, "%s", n);
    return R_OK;
}

static Found dist_array_write(Access *a, uint64_t v)
{
    const BitReg *br = bit_reg(a->off);
    if (br) {
        name_array(a, br->name, br->off, 4);
        bits_write(a, br, (uint32_t)v);
    } else if (a->off >= GICD_IPRIORITYR && a->off < GICD_IPRIORITYR + 0x400) {
        name_array(a, "IPRIORITYR", GICD_IPRIORITYR, 4);
        prio_write(a, GICD_IPRIORITYR, (uint32_t)v);
    } else if (a->off >= GICD_ICFGR && a->off < GICD_ICFGR + 0x100) {
        name_array(a, "ICFGR", GICD_ICFGR, 4);
        cfg_write(a, (uint32_t)v);
    } else if (a->g->version == GIC_V2 && a->off >= GICD_ITARGETSR && a->off < GICD_ITARGETSR + 0x400) {
        name_array(a, "ITARGETSR", GICD_ITARGETSR, 4);
        itargets_write(a, (uint32_t)v);
    } else if (a->g->version == GIC_V2 && a->off >= GICD_CPENDSGIR && a->off < GICD_SPENDSGIR + 0x10) {
        uint32_t base = a->off < GICD_SPENDSGIR ? GICD_CPENDSGIR : GICD_SPENDSGIR;
        name_array(a, base == GICD_CPENDSGIR ? "CPENDSGIR" : "SPENDSGIR", base, 4);
        sgi_pend_write(a, base, (uint32_t)v, base == GICD_SPENDSGIR);
    } else if (a->g->version == GIC_V3 && a->off >= GICD_IROUTER + 8 * GIC_PRIV && a->off < GICD_IROUTER + 8 * GIC_NR_IRQS) {
        unsigned id = (a->off - GICD_IROUTER) / 8;
        uint64_t *r = &a->g->irouter[id - GIC_PRIV];
        snprintf(a->name.s, sizeof a->name.s, "GICD_IROUTER%u", id);
        if (a->size == 8)
            *r = v & IROUTER_MASK;
        else
            *r = (a->off & 4 ? (*r & 0xffffffffull) | v << 32 : (*r & ~0xffffffffull) | (uint32_t)v) & IROUTER_MASK;
    } else {
        return R_NONE;
    }
    return R_OK;
}

static Found dist_write(Access *a, uint64_t v)
{
    if (a->off == GICD_CTLR) {
        snprintf(a->name.s, sizeof a->name.s, "GICD_CTLR");
        a->g->ctlr = (uint32_t)v & (CTLR_GRP0 | CTLR_GRP1);
        return R_OK;
    }
    if (a->g->version == GIC_V2 && a->off == GICD_SGIR) {
        snprintf(a->name.s, sizeof a->name.s, "GICD_SGIR");
        sgir_write(a, (uint32_t)v);
        return R_OK;
    }
    if (a->off == GICD_TYPER || a->off == GICD_IIDR || a->off == GICD_PIDR2_V3 || a->off == GICD_PIDR2_V2) {
        dist_read(a, &v);
        gic_diag(a->g, a->n, a->pc, "gic-read-only", "write of %s, a read-only register: ignored", a->name.s);
        return R_OK;
    }
    return dist_array_write(a, v);
}

/* ------------------------------------------------------------------ the redistributors */

static uint64_t redist_typer(const Gic *g, int k)
{
    uint64_t h = g->cpu[k].port ? g->cpu[k].port->hwid : (uint64_t)k;
    uint64_t aff = (h & 0xffffff) | (h >> 8 & 0xff000000);
    return aff << 32 | (uint64_t)k << 8 | (k == g->ncpus - 1 ? GICR_TYPER_LAST : 0);
}

static Found rd_read(Access *a, uint64_t *v)
{
    const char *n;
    switch (a->off & ~4u) {
    case GICR_CTLR: n = a->off ? "IIDR" : "CTLR"; *v = a->off ? GIC_IIDR : 0; break;
    case GICR_TYPER: n = "TYPER"; *v = redist_typer(a->g, a->frame) >> (a->off & 4 ? 32 : 0); break;
    case GICR_WAKER & ~4u:
        if (a->off != GICR_WAKER)
            return R_NONE;
        n = "WAKER";
        *v = a->g->cpu[a->frame].waker;
        break;
    case GICR_PIDR2:
        if (a->off != GICR_PIDR2)
            return R_NONE;
        n = "PIDR2";
        *v = PIDR2_V3;
        break;
    default: return R_NONE;
    }
    snprintf(a->name.s, sizeof a->name.s, "GICR_%s[%d]", n, a->frame);
    return R_OK;
}

static Found rd_write(Access *a, uint64_t v)
{
    uint64_t dummy;
    if (a->off == GICR_WAKER) {
        GicCpu *gc = &a->g->cpu[a->frame];
        snprintf(a->name.s, sizeof a->name.s, "GICR_WAKER[%d]", a->frame);
        gc->waker = (uint32_t)v & WAKER_SLEEP ? WAKER_SLEEP | WAKER_ASLEEP : 0;
        return R_OK;
    }
    if (a->off == GICR_CTLR) {
        snprintf(a->name.s, sizeof a->name.s, "GICR_CTLR[%d]", a->frame);
        return R_OK;                        /* no LPIs: EnableLPIs RAZ/WI */
    }
    if (rd_read(a, &dummy) == R_NONE)
        return R_NONE;
    gic_diag(a->g, a->n, a->pc, "gic-read-only", "write of %s, a read-only register: ignored", a->name.s);
    return R_OK;
}

static Found sgi_frame(Access *a, bool write, uint64_t *v)
{
    a->priv = true;
    Found f = write ? dist_array_write(a, *v) : dist_array_read(a, v);
    size_t len = strlen(a->name.s);
    if (f == R_OK) {
        a->name.s[3] = 'R';                 /* GICD_ -> GICR_ */
        snprintf(a->name.s + len, sizeof a->name.s - len, "[%d]", a->frame);
    }
    return f;
}

/* ------------------------------------------------------------------ dispatch */

/* The access sizes the registers allow: 32 bits; 8 for the byte arrays; 64 for IROUTER and
 * GICR_TYPER (IHI 0069H 12.1.3 "GIC memory-mapped register access"). */
static bool size_ok(const Access *a, GicRegion r)
{
    uint32_t off = r == GIC_REGION_REDIST ? a->off % GICR_SGI_BASE : a->off;
    bool sgi = r == GIC_REGION_REDIST && a->off >= GICR_SGI_BASE;
    bool bytes = (off >= GICD_IPRIORITYR && off < GICD_IPRIORITYR + 0x400) ||
                 (off >= GICD_ITARGETSR && off < GICD_ITARGETSR + 0x400) || (off >= GICD_CPENDSGIR && off < 0x0F30);
    bool dword = (r == GIC_REGION_DIST && off >= GICD_IROUTER && off < 0x8000) ||
                 (r == GIC_REGION_REDIST && !sgi && off == GICR_TYPER);
    if (a->size == 4)
        return (off & 3) == 0;
    return (a->size == 1 && bytes) || (a->size == 8 && dword && (off & 7) == 0);
}

static Found region_access(Access *a, GicRegion r, bool write, uint64_t *v)
{
    if (r == GIC_REGION_DIST)
        return write ? dist_write(a, *v) : dist_read(a, v);
    if (a->frame >= a->g->ncpus)
        return R_NONE;
    if (a->off >= GICR_SGI_BASE) {
        a->off -= GICR_SGI_BASE;
        return sgi_frame(a, write, v);
    }
    return write ? rd_write(a, *v) : rd_read(a, v);
}

static Access access_of(Gic *g, GicRegion r, int n, uint64_t pc, uint64_t off, unsigned size)
{
    Access a = { .g = g, .n = n, .frame = n, .pc = pc, .off = (uint32_t)off, .size = size };
    if (r == GIC_REGION_REDIST) {
        a.frame = (int)(off / GICR_FRAME);
        a.off = (uint32_t)(off % GICR_FRAME);
    }
    return a;
}

static bool check(Access *a, GicRegion r, bool write, uint64_t val)
{
    if (size_ok(a, r))
        return true;
    gic_diag(a->g, a->n, a->pc, "gic-access", "%s of %u bytes at %s +0x%" PRIx32 ": not an access this register "
             "allows; %s", write ? "write" : "read", a->size, r == GIC_REGION_DIST ? "GICD" : "GICR", a->off,
             write ? "ignored" : "reads 0");
    (void)val;
    return false;
}

uint64_t gic_mmio_read(Gic *g, GicRegion r, int n, uint64_t pc, uint64_t off, unsigned size)
{
    if (r == GIC_REGION_CPUIF)
        return gic_cpuif_mmio_read(g, n, pc, off, size);
    Access a = access_of(g, r, n, pc, off, size);
    uint64_t v = 0;
    if (!check(&a, r, false, 0))
        return 0;
    if (region_access(&a, r, false, &v) == R_NONE) {
        gic_diag(g, n, pc, "gic-reserved", "read of %s +0x%" PRIx64 ": no register there, reads 0",
                 r == GIC_REGION_DIST ? "GICD" : "GICR", off);
        return 0;
    }
    v &= size == 8 ? ~0ull : (1ull << (8 * size)) - 1;
    gic_trace_read(g, n, pc, a.name.s, v);
    return v;
}

void gic_mmio_write(Gic *g, GicRegion r, int n, uint64_t pc, uint64_t off, unsigned size, uint64_t val)
{
    if (r == GIC_REGION_CPUIF) {
        gic_cpuif_mmio_write(g, n, pc, off, size, val);
        return;
    }
    Access a = access_of(g, r, n, pc, off, size), probe = a;
    uint64_t old = 0;
    if (!check(&a, r, true, val))
        return;
    bool known = region_access(&probe, r, false, &old) == R_OK;
    if (region_access(&a, r, true, &val) == R_NONE) {
        gic_diag(g, n, pc, "gic-reserved", "write of 0x%" PRIx64 " at %s +0x%" PRIx64 ": no register there, ignored",
                 val, r == GIC_REGION_DIST ? "GICD" : "GICR", off);
        return;
    }
    gic_trace_write(g, n, pc, a.name.s, known ? old : 0, val);
    gic_update(g);
}

uint64_t gic_mmio_peek(Gic *g, GicRegion r, int n, uint64_t off, unsigned size)
{
    if (r == GIC_REGION_CPUIF)
        return 0;
    Access a = access_of(g, r, n, 0, off, size);
    uint64_t v = 0;
    if (!size_ok(&a, r) || region_access(&a, r, false, &v) == R_NONE)
        return 0;
    return v;
}

uint64_t gic_region_size(GicVersion v, GicRegion r, int ncpus)
{
    if (r == GIC_REGION_DIST)
        return v == GIC_V3 ? 0x10000 : 0x1000;
    if (r == GIC_REGION_REDIST)
        return (uint64_t)ncpus * GICR_FRAME;
    return 0x2000;
}
