/* gic_cpuif.c — the GIC's CPU interface: GICv3's ICC_*_EL1 system registers and GICv2's GICC
 * page (see gic.h).
 *
 * GICv3 system registers (op0 = 3, op1 = 0; IHI 0069H 12.2 "AArch64 System register
 * descriptions of the CPU interface"), CRn CRm op2:
 *   ICC_PMR_EL1     4  6 0  RW        ICC_DIR_EL1     12 11 1  WO     ICC_IAR1_EL1    12 12 0  RO
 *   ICC_IAR0_EL1   12  8 0  RO        ICC_RPR_EL1     12 11 3  RO     ICC_EOIR1_EL1   12 12 1  WO
 *   ICC_EOIR0_EL1  12  8 1  WO        ICC_SGI1R_EL1   12 11 5  WO     ICC_HPPIR1_EL1  12 12 2  RO
 *   ICC_HPPIR0_EL1 12  8 2  RO        ICC_ASGI1R_EL1  12 11 6  WO     ICC_BPR1_EL1    12 12 3  RW
 *   ICC_BPR0_EL1   12  8 3  RW        ICC_SGI0R_EL1   12 11 7  WO     ICC_CTLR_EL1    12 12 4  RW
 *   ICC_AP0R<n>_EL1 12 8 4+n RW       ICC_AP1R<n>_EL1 12 9 n   RW     ICC_SRE_EL1     12 12 5  RW
 *                                                                     ICC_IGRPEN0/1_EL1 12 12 6/7 RW
 * With 5 priority bits only AP0R0 and AP1R0 exist; AP0R1-3 and AP1R1-3 are UNDEFINED, as are
 * reads of the write-only registers and writes of the read-only ones.
 * ICC_CTLR_EL1: CBPR 0, EOImode 1, PMHE 6 (writable), PRIbits [10:8] = 4 (five bits), IDbits
 * [13:11] = 0 (16-bit INTIDs).  ICC_SRE_EL1 is RAO/WI (SRE, DFB, DIB: the system register
 * interface is the only one).
 *
 * GICv2 GICC page (IHI 0048B 4.4, a GIC without the Security Extensions):
 *   0x00 CTLR (EnableGrp0 0, EnableGrp1 1, AckCtl 2, FIQEn 3, CBPR 4, EOImode 9)  0x04 PMR
 *   0x08 BPR  0x0C IAR  0x10 EOIR  0x14 RPR  0x18 HPPIR  0x1C ABPR  0x20 AIAR  0x24 AEOIR
 *   0x28 AHPPIR  0xD0 APR0  0xE0 NSAPR0  0xFC IIDR  0x1000 DIR
 * The interface keeps one representation for both versions: ctlr in ICC_CTLR_EL1's layout
 * (CBPR, EOImode) plus FIQEn in bit 3, the group enables in grpen0/grpen1.
 */
#include "gic/gic.h"

#include "base/a64sysreg.h"

#define SYSREG A64_SYSREG
enum {
    ICC_PMR = SYSREG(3, 0, 4, 6, 0), ICC_IAR0 = SYSREG(3, 0, 12, 8, 0), ICC_EOIR0 = SYSREG(3, 0, 12, 8, 1),
    ICC_HPPIR0 = SYSREG(3, 0, 12, 8, 2), ICC_BPR0 = SYSREG(3, 0, 12, 8, 3), ICC_AP0R0 = SYSREG(3, 0, 12, 8, 4),
    ICC_AP0R3 = SYSREG(3, 0, 12, 8, 7), ICC_AP1R0 = SYSREG(3, 0, 12, 9, 0), ICC_AP1R3 = SYSREG(3, 0, 12, 9, 3),
    ICC_DIR = SYSREG(3, 0, 12, 11, 1), ICC_RPR = SYSREG(3, 0, 12, 11, 3), ICC_SGI1R = SYSREG(3, 0, 12, 11, 5),
    ICC_ASGI1R = SYSREG(3, 0, 12, 11, 6), ICC_SGI0R = SYSREG(3, 0, 12, 11, 7), ICC_IAR1 = SYSREG(3, 0, 12, 12, 0),
    ICC_EOIR1 = SYSREG(3, 0, 12, 12, 1), ICC_HPPIR1 = SYSREG(3, 0, 12, 12, 2), ICC_BPR1 = SYSREG(3, 0, 12, 12, 3),
    ICC_CTLR = SYSREG(3, 0, 12, 12, 4), ICC_SRE = SYSREG(3, 0, 12, 12, 5), ICC_IGRPEN0 = SYSREG(3, 0, 12, 12, 6),
    ICC_IGRPEN1 = SYSREG(3, 0, 12, 12, 7),
};
typedef enum { ACC_RW, ACC_RO, ACC_WO, ACC_NONE } IccAccess;

typedef struct IccReg {
    uint32_t key;
    const char *name;
    IccAccess acc;
} IccReg;

static const IccReg icc_regs[] = {
    { ICC_PMR, "ICC_PMR_EL1", ACC_RW }, { ICC_IAR0, "ICC_IAR0_EL1", ACC_RO }, { ICC_EOIR0, "ICC_EOIR0_EL1", ACC_WO },
    { ICC_HPPIR0, "ICC_HPPIR0_EL1", ACC_RO }, { ICC_BPR0, "ICC_BPR0_EL1", ACC_RW },
    { ICC_AP0R0, "ICC_AP0R0_EL1", ACC_RW }, { ICC_AP1R0, "ICC_AP1R0_EL1", ACC_RW },
    { ICC_DIR, "ICC_DIR_EL1", ACC_WO }, { ICC_RPR, "ICC_RPR_EL1", ACC_RO }, { ICC_SGI1R, "ICC_SGI1R_EL1", ACC_WO },
    { ICC_ASGI1R, "ICC_ASGI1R_EL1", ACC_WO }, { ICC_SGI0R, "ICC_SGI0R_EL1", ACC_WO },
    { ICC_IAR1, "ICC_IAR1_EL1", ACC_RO }, { ICC_EOIR1, "ICC_EOIR1_EL1", ACC_WO },
    { ICC_HPPIR1, "ICC_HPPIR1_EL1", ACC_RO }, { ICC_BPR1, "ICC_BPR1_EL1", ACC_RW },
    { ICC_CTLR, "ICC_CTLR_EL1", ACC_RW }, { ICC_SRE, "ICC_SRE_EL1", ACC_RW },
    { ICC_IGRPEN0, "ICC_IGRPEN0_EL1", ACC_RW }, { ICC_IGRPEN1, "ICC_IGRPEN1_EL1", ACC_RW },
};

/* ICC_CTLR_EL1 (and the normalized GICC_CTLR): CBPR, EOImode, FIQEn (GICv2 only), PMHE */
enum { CTLR_CBPR = 1, CTLR_EOIMODE = 2, CTLR_FIQEN = 8, CTLR_PMHE = 64 };
#define CTLR_PRIBITS ((uint64_t)(GIC_PRIO_BITS - 1) << 8)
#define ICC_SRE_RAO 7u
/* ICC_SGI1R_EL1: TargetList [15:0], Aff1 [23:16], INTID [27:24], Aff2 [39:32], IRM 40, RS [47:44], Aff3 [55:48] */
#define SGIR_IRM (1ull << 40)
#define INTID_MASK 0xffffffu

static const IccReg *icc_find(uint32_t key)
{
    for (size_t i = 0; i < sizeof icc_regs / sizeof icc_regs[0]; i++)
        if (icc_regs[i].key == key)
            return &icc_regs[i];
    return NULL;
}

bool gic_icc_owns(unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2)
{
    uint32_t k = SYSREG(op0, op1, crn, crm, op2);
    return icc_find(k) || (k >= ICC_AP0R0 && k <= ICC_AP0R3) || (k >= ICC_AP1R0 && k <= ICC_AP1R3);
}

static uint8_t min_bpr(bool group1)
{
    return (uint8_t)(7 - GIC_PRIO_BITS + group1);
}

static uint64_t bpr1_read(const GicCpu *gc)
{
    if (!(gc->ctlr & CTLR_CBPR))
        return gc->bpr1;
    return gc->bpr0 + 1u > 7 ? 7 : gc->bpr0 + 1u;       /* IHI 0069H 12.2.6: BPR0 + 1, saturated */
}

static uint64_t hppir(Gic *g, int n, bool group1)
{
    bool g1 = false;
    unsigned id = gic_cpu_hppi(g, n, &g1);
    return id != GIC_INTID_SPURIOUS && g1 == group1 ? id : GIC_INTID_SPURIOUS;
}

static uint64_t icc_value(Gic *g, int n, uint64_t pc, uint32_t key)
{
    GicCpu *gc = &g->cpu[n];
    switch (key) {
    case ICC_PMR: return gc->pmr;
    case ICC_IAR0: return gic_cpu_ack(g, n, pc, false);
    case ICC_IAR1: return gic_cpu_ack(g, n, pc, true);
    case ICC_HPPIR0: return hppir(g, n, false);
    case ICC_HPPIR1: return hppir(g, n, true);
    case ICC_BPR0: return gc->bpr0;
    case ICC_BPR1: return bpr1_read(gc);
    case ICC_AP0R0: return gc->apr[0];
    case ICC_AP1R0: return gc->apr[1];
    case ICC_RPR: return gic_running_prio(gc);
    case ICC_CTLR: return (gc->ctlr & (CTLR_CBPR | CTLR_EOIMODE | CTLR_PMHE)) | CTLR_PRIBITS;
    case ICC_SRE: return ICC_SRE_RAO;
    case ICC_IGRPEN0: return gc->grpen0;
    case ICC_IGRPEN1: return gc->grpen1;
    default: return 0;
    }
}

/* The CPUs an ICC_SGI1R_EL1 value names: all but the sender with IRM, else those whose
 * affinity is Aff3.Aff2.Aff1 and RS * 16 + a TargetList bit (IHI 0069H 12.2.21). */
static uint32_t sgi_targets(const Gic *g, int n, uint64_t v)
{
    uint32_t t = 0;
    for (int k = 0; k < g->ncpus; k++) {
        const CpuPort *p = g->cpu[k].port;
        if (!p)
            continue;
        uint64_t h = p->hwid, aff0 = h & 0xff;
        bool match = (h >> 8 & 0xff) == (v >> 16 & 0xff) && (h >> 16 & 0xff) == (v >> 32 & 0xff) &&
                     (h >> 32 & 0xff) == (v >> 48 & 0xff) && aff0 >> 4 == (v >> 44 & 0xf) && (v >> (aff0 & 15) & 1);
        if (v & SGIR_IRM ? k != n : match)
            t |= 1u << k;
    }
    return t;
}

static void pmr_write(Gic *g, int n, uint64_t pc, const char *reg, uint64_t v)
{
    if (v & 0xff & ~GIC_PRIO_MASK)
        gic_diag(g, n, pc, "gic-priority-bits", "%s = 0x%02x: this GIC implements %d priority bits, the low ones read "
                 "as zero", reg, (unsigned)(v & 0xff), GIC_PRIO_BITS);
    g->cpu[n].pmr = (uint8_t)(v & GIC_PRIO_MASK);
}

static uint8_t bpr_value(uint64_t v, bool group1)
{
    uint8_t b = (uint8_t)(v & 7);
    return b < min_bpr(group1) ? min_bpr(group1) : b;    /* below the minimum: the minimum (12.2.5) */
}

static void icc_store(Gic *g, int n, uint64_t pc, const IccReg *r, uint64_t v)
{
    GicCpu *gc = &g->cpu[n];
    switch (r->key) {
    case ICC_PMR: pmr_write(g, n, pc, r->name, v); break;
    case ICC_EOIR0: gic_cpu_eoi(g, n, pc, (unsigned)(v & INTID_MASK), false); break;
    case ICC_EOIR1: gic_cpu_eoi(g, n, pc, (unsigned)(v & INTID_MASK), true); break;
    case ICC_DIR: gic_cpu_dir(g, n, pc, (unsigned)(v & INTID_MASK)); break;
    case ICC_BPR0: gc->bpr0 = bpr_value(v, false); break;
    case ICC_BPR1:
        if (!(gc->ctlr & CTLR_CBPR))
            gc->bpr1 = bpr_value(v, true);
        break;
    case ICC_AP0R0: gc->apr[0] = (uint32_t)v; break;
    case ICC_AP1R0: gc->apr[1] = (uint32_t)v; break;
    case ICC_SGI1R: gic_send_sgi(g, n, pc, (unsigned)(v >> 24 & 0xf), sgi_targets(g, n, v), true); break;
    case ICC_SGI0R: gic_send_sgi(g, n, pc, (unsigned)(v >> 24 & 0xf), sgi_targets(g, n, v), false); break;
    case ICC_ASGI1R:
        gic_diag(g, n, pc, "gic-asgi1r", "ICC_ASGI1R_EL1 with a single Security state generates no SGI");
        break;
    case ICC_CTLR: gc->ctlr = (uint32_t)v & (CTLR_CBPR | CTLR_EOIMODE | CTLR_PMHE); break;
    case ICC_IGRPEN0: gc->grpen0 = v & 1; break;
    case ICC_IGRPEN1: gc->grpen1 = v & 1; break;
    default: break;                                         /* ICC_SRE_EL1: RAO/WI */
    }
}

/* The access the instruction makes is allowed: the register exists at this priority width and
 * is not read-only for a write or write-only for a read. */
static const IccReg *icc_allowed(unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2, bool write)
{
    const IccReg *r = icc_find(SYSREG(op0, op1, crn, crm, op2));
    if (!r || (write && r->acc == ACC_RO) || (!write && r->acc == ACC_WO))
        return NULL;
    return r;
}

bool gic_icc_read(Gic *g, int n, uint64_t pc, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2,
                  uint64_t *val)
{
    const IccReg *r = icc_allowed(op0, op1, crn, crm, op2, false);
    if (!r || !g || g->version != GIC_V3)
        return false;
    *val = icc_value(g, n, pc, r->key);
    gic_trace_read(g, n, pc, r->name, *val);
    return true;
}

bool gic_icc_write(Gic *g, int n, uint64_t pc, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2,
                   uint64_t val)
{
    const IccReg *r = icc_allowed(op0, op1, crn, crm, op2, true);
    if (!r || !g || g->version != GIC_V3)
        return false;
    uint64_t old = r->acc == ACC_RW ? icc_value(g, n, pc, r->key) : 0;
    icc_store(g, n, pc, r, val);
    gic_trace_write(g, n, pc, r->name, old, val);
    gic_update(g);
    return true;
}

bool gic_icc_access_ok(const Gic *g, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2, bool write)
{
    return g && g->version == GIC_V3 && icc_allowed(op0, op1, crn, crm, op2, write);
}

/* ------------------------------------------------------------------ GICv2's GICC page */

enum {
    GICC_CTLR = 0x00, GICC_PMR = 0x04, GICC_BPR = 0x08, GICC_IAR = 0x0C, GICC_EOIR = 0x10, GICC_RPR = 0x14,
    GICC_HPPIR = 0x18, GICC_ABPR = 0x1C, GICC_AIAR = 0x20, GICC_AEOIR = 0x24, GICC_AHPPIR = 0x28, GICC_APR0 = 0xD0,
    GICC_NSAPR0 = 0xE0, GICC_IIDR = 0xFC, GICC_DIR = 0x1000,
};
/* GICC_CTLR bits (no Security Extensions): EnableGrp0, EnableGrp1, FIQEn, CBPR, EOImode */
enum { V2_GRP0 = 1, V2_GRP1 = 2, V2_FIQEN = 8, V2_CBPR = 16, V2_EOIMODE = 1 << 9 };
/* GICC_IIDR: a GICv2 (ArchitectureVersion 2) by Arm */
#define GICC_IIDR_VALUE 0x0002043Bu

static const IccReg gicc_regs[] = {
    { GICC_CTLR, "GICC_CTLR", ACC_RW }, { GICC_PMR, "GICC_PMR", ACC_RW }, { GICC_BPR, "GICC_BPR", ACC_RW },
    { GICC_IAR, "GICC_IAR", ACC_RO }, { GICC_EOIR, "GICC_EOIR", ACC_WO }, { GICC_RPR, "GICC_RPR", ACC_RO },
    { GICC_HPPIR, "GICC_HPPIR", ACC_RO }, { GICC_ABPR, "GICC_ABPR", ACC_RW }, { GICC_AIAR, "GICC_AIAR", ACC_RO },
    { GICC_AEOIR, "GICC_AEOIR", ACC_WO }, { GICC_AHPPIR, "GICC_AHPPIR", ACC_RO }, { GICC_APR0, "GICC_APR0", ACC_RW },
    { GICC_NSAPR0, "GICC_NSAPR0", ACC_RW }, { GICC_IIDR, "GICC_IIDR", ACC_RO }, { GICC_DIR, "GICC_DIR", ACC_WO },
};

static const IccReg *gicc_find(uint64_t off)
{
    for (size_t i = 0; i < sizeof gicc_regs / sizeof gicc_regs[0]; i++)
        if (gicc_regs[i].key == off)
            return &gicc_regs[i];
    return NULL;
}

static uint64_t v2_ctlr(const GicCpu *gc)
{
    return (gc->grpen0 ? V2_GRP0 : 0) | (gc->grpen1 ? V2_GRP1 : 0) | (gc->ctlr & CTLR_FIQEN ? V2_FIQEN : 0) |
           (gc->ctlr & CTLR_CBPR ? V2_CBPR : 0) | (gc->ctlr & CTLR_EOIMODE ? V2_EOIMODE : 0);
}

/* GICv2's HPPIR names an SGI's source CPU in bits [12:10] (the lowest pending one). */
static uint64_t v2_hppir(Gic *g, int n)
{
    bool g1;
    unsigned id = gic_cpu_hppi(g, n, &g1);
    if (id < GIC_SGIS && g->cpu[n].sgi_src[id])
        return id | (unsigned)__builtin_ctz(g->cpu[n].sgi_src[id]) << 10;
    return id;
}

static uint64_t gicc_value(Gic *g, int n, uint64_t pc, uint64_t off)
{
    GicCpu *gc = &g->cpu[n];
    switch (off) {
    case GICC_CTLR: return v2_ctlr(gc);
    case GICC_PMR: return gc->pmr;
    case GICC_BPR: return gc->bpr0;
    case GICC_ABPR: return bpr1_read(gc);
    case GICC_IAR: case GICC_AIAR: return gic_cpu_ack(g, n, pc, off == GICC_AIAR);
    case GICC_HPPIR: case GICC_AHPPIR: return v2_hppir(g, n);
    case GICC_RPR: return gic_running_prio(gc);
    case GICC_APR0: return gc->apr[0];
    case GICC_NSAPR0: return gc->apr[1];
    case GICC_IIDR: return GICC_IIDR_VALUE;
    default: return 0;
    }
}

static void gicc_store(Gic *g, int n, uint64_t pc, uint64_t off, uint32_t v)
{
    GicCpu *gc = &g->cpu[n];
    switch (off) {
    case GICC_CTLR:
        gc->grpen0 = v & V2_GRP0;
        gc->grpen1 = v & V2_GRP1;
        gc->ctlr = (v & V2_FIQEN ? CTLR_FIQEN : 0) | (v & V2_CBPR ? CTLR_CBPR : 0) | (v & V2_EOIMODE ? CTLR_EOIMODE : 0);
        break;
    case GICC_PMR: pmr_write(g, n, pc, "GICC_PMR", v); break;
    case GICC_BPR: gc->bpr0 = bpr_value(v, false); break;
    case GICC_ABPR: gc->bpr1 = bpr_value(v, true); break;
    case GICC_EOIR: case GICC_AEOIR: gic_cpu_eoi(g, n, pc, v & 0x3ff, off == GICC_AEOIR); break;
    case GICC_DIR: gic_cpu_dir(g, n, pc, v & 0x3ff); break;
    case GICC_APR0: gc->apr[0] = v; break;
    case GICC_NSAPR0: gc->apr[1] = v; break;
    default: break;
    }
}

/* An access to the GICC page: 32-bit registers only (IHI 0048B 4.1.4); a read of a write-only
 * register or a write of a read-only one is a diag and reads 0 or is ignored. */
static const IccReg *gicc_check(Gic *g, int n, uint64_t pc, uint64_t off, unsigned size, bool write)
{
    const IccReg *r = gicc_find(off);
    const char *why = size != 4 ? "the registers are 32-bit" : !r ? "no register there"
                    : write && r->acc == ACC_RO ? "a read-only register" : !write && r->acc == ACC_WO ? "a write-only register"
                    : NULL;
    if (!why)
        return r;
    gic_diag(g, n, pc, write && r && r->acc == ACC_RO ? "gic-read-only" : "gic-access",
             "%s of %u bytes at GICC +0x%" PRIx64 ": %s; %s", write ? "write" : "read", size, off, why,
             write ? "ignored" : "reads 0");
    return NULL;
}

uint64_t gic_cpuif_mmio_read(Gic *g, int n, uint64_t pc, uint64_t off, unsigned size)
{
    const IccReg *r = gicc_check(g, n, pc, off, size, false);
    if (!r)
        return 0;
    uint64_t v = gicc_value(g, n, pc, off);
    gic_trace_read(g, n, pc, r->name, v);
    return v;
}

void gic_cpuif_mmio_write(Gic *g, int n, uint64_t pc, uint64_t off, unsigned size, uint64_t val)
{
    const IccReg *r = gicc_check(g, n, pc, off, size, true);
    if (!r)
        return;
    uint64_t old = r->acc == ACC_RW ? gicc_value(g, n, pc, off) : 0;
    gicc_store(g, n, pc, off, (uint32_t)val);
    gic_trace_write(g, n, pc, r->name, old, val);
    gic_update(g);
}
