/* pmu_armv8.c — Arm PMUv3 register model, counting only (see pmu_armv8.h).
 *
 * Register map (op0 op1 CRn CRm op2; Arm ARM DDI 0487 D13.4):
 *   PMCR_EL0       3 3 9 12 0    PMCCNTR_EL0    3 3 9 13 0    PMUSERENR_EL0  3 3 9 14 0
 *   PMCNTENSET_EL0 3 3 9 12 1    PMXEVTYPER_EL0 3 3 9 13 1    PMINTENSET_EL1 3 0 9 14 1
 *   PMCNTENCLR_EL0 3 3 9 12 2    PMXEVCNTR_EL0  3 3 9 13 2    PMINTENCLR_EL1 3 0 9 14 2
 *   PMOVSCLR_EL0   3 3 9 12 3                                 PMOVSSET_EL0   3 3 9 14 3
 *   PMSWINC_EL0    3 3 9 12 4    PMEVCNTR<n>_EL0  3 3 14 (8 + n/8) (n%8)
 *   PMSELR_EL0     3 3 9 12 5    PMEVTYPER<n>_EL0 3 3 14 (12 + n/8) (n%8)
 *   PMCEID0_EL0    3 3 9 12 6    PMCCFILTR_EL0    3 3 14 15 7
 *   PMCEID1_EL0    3 3 9 12 7
 * PMCR_EL0: E 0, P 1 (reset event counters), C 2 (reset cycle counter), D 3 (cycle counter
 * counts every 64 cycles), X 4, DP 5, LC 6 (64-bit cycle counter overflow), N [15:11],
 * IDCODE [23:16], IMP [31:24] = 0x41.  PMEVTYPER<n>_EL0 and PMCCFILTR_EL0 filter by exception
 * level: P (bit 31) stops counting at EL1, U (bit 30) at EL0; NSK and NSU are RES0 without EL3
 * (DDI 0487 D13.4, PMEVTYPER<n>_EL0), so only P and U apply.  The CPU tells the model each EL
 * change (armv8_pmu_set_el), so every stretch between two syncs ran at one EL.
 * PMUSERENR_EL0: EN 0 (EL0 may access the PMU), SW 1 (PMSWINC), CR 2 (PMCCNTR reads), ER 3
 * (event counter reads, PMSELR).
 */
#include "pmu/pmu_armv8.h"

#include <string.h>

#include "base/state.h"

enum { PMCR_E = 1, PMCR_P = 2, PMCR_C = 4, PMCR_D = 8, PMCR_LC = 64, PMCR_WRITABLE = 0x79 };
enum { EV_SW_INCR = 0x00, EV_INST_RETIRED = 0x08, EV_CPU_CYCLES = 0x11 };
enum { FILTER_P = 1u << 31, FILTER_U = 1u << 30 };
#define CCNT_BIT (1u << 31)

void armv8_pmu_init(ArmPmu *p, uint8_t idcode)
{
    memset(p, 0, sizeof *p);
    p->idcode = idcode;
    p->el = 1;                      /* CPUs come out of reset at EL1 */
}

static uint32_t key(unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2)
{
    return op0 << 14 | op1 << 11 | crn << 7 | crm << 3 | op2;
}
#define K(op0, op1, crn, crm, op2) ((op0) << 14 | (op1) << 11 | (crn) << 7 | (crm) << 3 | (op2))

bool armv8_pmu_owns(unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2)
{
    if (op0 != 3)
        return false;
    if (op1 == 3 && crn == 9 && (crm == 12 || crm == 13 || crm == 14))
        return true;
    if (op1 == 0 && crn == 9 && crm == 14 && (op2 == 1 || op2 == 2))
        return true;
    return op1 == 3 && crn == 14 && crm >= 8;
}

enum { USERENR_EN = 1, USERENR_SW = 2, USERENR_CR = 4, USERENR_ER = 8 };

/* An EL0 access: the EL1 registers and a write of PMUSERENR_EL0 are UNDEFINED; the rest go
 * ahead as PMUSERENR_EL0 allows and are trapped to EL1 otherwise (DDI 0487 D13.4,
 * PMUSERENR_EL0, and each register's "Accessibility"). */
ArmEl0Access armv8_pmu_el0_access(const ArmPmu *p, unsigned op0, unsigned op1, unsigned crn, unsigned crm,
                                  unsigned op2, bool write)
{
    uint32_t k = key(op0, op1, crn, crm, op2), en = p->userenr;
    if (k == K(3, 0, 9, 14, 1) || k == K(3, 0, 9, 14, 2) || (k == K(3, 3, 9, 14, 0) && write))
        return ARMV8_EL0_UNDEF;             /* PMINTENSET_EL1, PMINTENCLR_EL1, PMUSERENR_EL0 */
    bool ok = k == K(3, 3, 9, 14, 0) || (en & USERENR_EN) ||
              (k == K(3, 3, 9, 12, 4) && write && (en & USERENR_SW)) ||
              (k == K(3, 3, 9, 13, 0) && !write && (en & USERENR_CR)) ||
              (k == K(3, 3, 9, 12, 5) && (en & USERENR_ER)) ||
              ((k == K(3, 3, 9, 13, 2) || (crn == 14 && crm >= 8 && crm <= 11)) && !write && (en & USERENR_ER));
    return ok ? ARMV8_EL0_OK : ARMV8_EL0_TRAP;
}

/* Does a counter with this filter count at the EL the CPU is at? */
static bool el_counts(const ArmPmu *p, uint64_t filter)
{
    return !(filter & (p->el == 0 ? FILTER_U : FILTER_P));
}

static bool event_counts(const ArmPmu *p, unsigned i)
{
    return (p->pmcr & PMCR_E) && (p->cnten & (1u << i)) && el_counts(p, p->evtyper[i]);
}

static bool cycle_counts(const ArmPmu *p)
{
    return (p->pmcr & PMCR_E) && (p->cnten & CCNT_BIT) && el_counts(p, p->ccfiltr);
}

/* Bring every counter up to `cycles`/`insns`; record overflows in PMOVSSET. */
static void sync(ArmPmu *p, uint64_t cycles, uint64_t insns)
{
    uint64_t dc = cycles - p->sync_cycles, di = insns - p->sync_insns;
    for (unsigned i = 0; i < ARMV8_PMU_COUNTERS; i++) {
        if (!event_counts(p, i))
            continue;
        unsigned ev = p->evtyper[i] & 0xffff;
        uint64_t add = ev == EV_CPU_CYCLES ? dc : ev == EV_INST_RETIRED ? di : 0;
        uint64_t old = p->evcnt[i];
        p->evcnt[i] = (old + add) & 0xffffffffull;
        if (old + add > 0xffffffffull)
            p->ovs |= 1u << i;
    }
    if (cycle_counts(p)) {
        uint64_t add = p->pmcr & PMCR_D ? (cycles >> 6) - (p->sync_cycles >> 6) : dc;
        uint64_t old = p->ccnt, now = old + add;
        bool wrap = p->pmcr & PMCR_LC ? now < old : (old & 0xffffffffull) + add > 0xffffffffull;
        p->ccnt = now;
        if (wrap)
            p->ovs |= CCNT_BIT;
    }
    p->sync_cycles = cycles;
    p->sync_insns = insns;
}

void armv8_pmu_set_el(ArmPmu *p, uint64_t cycles, uint64_t insns, unsigned el)
{
    if (el == p->el)
        return;
    sync(p, cycles, insns);         /* what ran so far ran at the old EL */
    p->el = el;
}

static uint32_t counter_mask(void)
{
    return CCNT_BIT | ((1u << ARMV8_PMU_COUNTERS) - 1);
}

/* The register an access really names: PMXEVTYPER/PMXEVCNTR are the counter PMSELR selects
 * (PMXEVTYPER with PMSELR = 31 is PMCCFILTR). */
static uint32_t resolve(const ArmPmu *p, uint32_t k)
{
    if (k == K(3, 3, 9, 13, 1))
        return p->selr == 31 ? K(3, 3, 14, 15, 7) : K(3, 3, 14, 12 + p->selr / 8, p->selr % 8);
    if (k == K(3, 3, 9, 13, 2))
        return p->selr == 31 ? 0 : K(3, 3, 14, 8 + p->selr / 8, p->selr % 8);
    return k;
}

/* PMEVCNTR<n>/PMEVTYPER<n>: the storage, or NULL (not a counter register).  *undef: n is a
 * counter this PMU does not have. */
static uint64_t *counter_reg(ArmPmu *p, uint32_t k, bool *undef)
{
    unsigned n = ((k >> 3) & 3) * 8 + (k & 7);
    bool cnt = k >= K(3, 3, 14, 8, 0) && k <= K(3, 3, 14, 11, 7);
    bool typ = k >= K(3, 3, 14, 12, 0) && k <= K(3, 3, 14, 15, 6);
    *undef = (cnt || typ) && n >= ARMV8_PMU_COUNTERS;
    if (*undef || !(cnt || typ))
        return NULL;
    return cnt ? &p->evcnt[n] : &p->evtyper[n];
}

bool armv8_pmu_read(ArmPmu *p, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2,
                    uint64_t cycles, uint64_t insns, uint64_t *val)
{
    sync(p, cycles, insns);
    uint32_t k = resolve(p, key(op0, op1, crn, crm, op2));
    bool undef;
    uint64_t *r = counter_reg(p, k, &undef);
    if (r || undef) {
        if (r)
            *val = *r;
        return r != NULL;
    }
    switch (k) {
    case K(3, 3, 9, 12, 0):
        *val = 0x41ull << 24 | (uint64_t)p->idcode << 16 | ARMV8_PMU_COUNTERS << 11 | (p->pmcr & PMCR_WRITABLE);
        return true;
    case K(3, 3, 9, 12, 1):
    case K(3, 3, 9, 12, 2): *val = p->cnten; return true;
    case K(3, 3, 9, 12, 3):
    case K(3, 3, 9, 14, 3): *val = p->ovs; return true;
    case K(3, 3, 9, 12, 4): *val = 0; return true;                 /* PMSWINC: write-only */
    case K(3, 3, 9, 12, 5): *val = p->selr; return true;
    case K(3, 3, 9, 12, 6): *val = 1u << EV_SW_INCR | 1u << EV_INST_RETIRED; return true;
    case K(3, 3, 9, 12, 7): *val = 0; return true;
    case K(3, 3, 9, 13, 0): *val = p->ccnt; return true;
    case K(3, 3, 9, 14, 0): *val = p->userenr; return true;
    case K(3, 0, 9, 14, 1):
    case K(3, 0, 9, 14, 2): *val = p->inten; return true;
    case K(3, 3, 14, 15, 7): *val = p->ccfiltr; return true;
    default: return false;
    }
}

bool armv8_pmu_write(ArmPmu *p, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2,
                     uint64_t cycles, uint64_t insns, uint64_t val)
{
    sync(p, cycles, insns);
    uint32_t k = resolve(p, key(op0, op1, crn, crm, op2));
    bool undef;
    uint64_t *r = counter_reg(p, k, &undef);
    if (r || undef) {
        if (r)      /* counters are 32 bits; PMEVTYPER keeps P, U, NSK, NSU, NSH, M and evtCount */
            *r = k <= K(3, 3, 14, 11, 7) ? (uint32_t)val : (uint32_t)val & 0xfc00ffffu;
        return r != NULL;
    }
    uint32_t m = counter_mask();
    switch (k) {
    case K(3, 3, 9, 12, 0):
        if (val & PMCR_P)
            memset(p->evcnt, 0, sizeof p->evcnt);
        if (val & PMCR_C)
            p->ccnt = 0;
        p->pmcr = val & PMCR_WRITABLE;
        return true;
    case K(3, 3, 9, 12, 1): p->cnten |= (uint32_t)val & m; return true;
    case K(3, 3, 9, 12, 2): p->cnten &= ~((uint32_t)val & m); return true;
    case K(3, 3, 9, 12, 3): p->ovs &= ~((uint32_t)val & m); return true;
    case K(3, 3, 9, 14, 3): p->ovs |= (uint32_t)val & m; return true;
    case K(3, 3, 9, 12, 4):                                         /* PMSWINC */
        for (unsigned i = 0; i < ARMV8_PMU_COUNTERS; i++)
            if ((val & (1u << i)) && event_counts(p, i) && (p->evtyper[i] & 0xffff) == EV_SW_INCR) {
                if (p->evcnt[i] == 0xffffffffull)
                    p->ovs |= 1u << i;
                p->evcnt[i] = (p->evcnt[i] + 1) & 0xffffffffull;
            }
        return true;
    case K(3, 3, 9, 12, 5): p->selr = (uint32_t)val & 31; return true;
    case K(3, 3, 9, 13, 0): p->ccnt = val; return true;
    case K(3, 3, 9, 14, 0): p->userenr = (uint32_t)val & 0xf; return true;
    case K(3, 0, 9, 14, 1): p->inten |= (uint32_t)val & m; return true;
    case K(3, 0, 9, 14, 2): p->inten &= ~((uint32_t)val & m); return true;
    case K(3, 3, 14, 15, 7): p->ccfiltr = val & 0xfc000000u; return true;
    default: return false;                                          /* PMCEIDn are read-only */
    }
}

/* Raise when a field is added (base/state.h). */
#define ARMV8_PMU_STATE_VERSION 1u

static const StateField pmu_fields[] = {
    STATE_FIELD(ArmPmu, pmcr),
    STATE_FIELD(ArmPmu, cnten),
    STATE_FIELD(ArmPmu, inten),
    STATE_FIELD(ArmPmu, ovs),
    STATE_UPTO(ArmPmu, selr, 31),
    STATE_UPTO(ArmPmu, userenr, 0xf),
    STATE_ARRAY(ArmPmu, evtyper),
    STATE_ARRAY(ArmPmu, evcnt),
    STATE_FIELD(ArmPmu, ccfiltr),
    STATE_FIELD(ArmPmu, ccnt),
    STATE_FIELD(ArmPmu, sync_cycles),
    STATE_FIELD(ArmPmu, sync_insns),
};

void armv8_pmu_save(const ArmPmu *p, Blob *b)
{
    size_t at = blob_begin(b, "armv8-pmu", ARMV8_PMU_STATE_VERSION);
    blob_fields(b, p, pmu_fields, ARRAY_SIZE(pmu_fields));
    blob_end(b, at);
}

bool armv8_pmu_load(ArmPmu *p, BlobReader *r)
{
    BrOuter outer;
    return br_begin(r, &outer, "armv8-pmu", ARMV8_PMU_STATE_VERSION) &&
           br_fields(r, p, pmu_fields, ARRAY_SIZE(pmu_fields)) && br_end(r, &outer);
}
