/* pmu_armv8.h — Arm PMUv3 system registers: a deterministic counting model.
 *
 * First cut of the PMUv3 model: the cycle counter and the event counters count simulated
 * cycles (CPU_CYCLES, 0x11), retired instructions (INST_RETIRED, 0x08) and software increments
 * (SW_INCR, 0x00); overflow sets PMOVSSET.  Overflow interrupts wait for the GIC model.  The
 * engine's own PMU counts host time, so every PMU register access is trapped to this model.
 * @see Arm ARM DDI 0487, chapter D7 (D11 in later issues) "The Performance Monitors Extension".
 */
#ifndef PMUSIM_PMU_ARMV8_H
#define PMUSIM_PMU_ARMV8_H

#include "base/common.h"

typedef struct Blob Blob;
typedef struct BlobReader BlobReader;

#define ARMV8_PMU_COUNTERS 6        /* Cortex-A53/A57/A72: PMCR_EL0.N = 6 */

typedef struct ArmPmu {
    uint64_t pmcr;                  /* E, D, X, DP, LC (writable bits) */
    uint32_t cnten, inten, ovs;     /* bit 31 = the cycle counter */
    uint32_t selr, userenr;
    uint64_t evtyper[ARMV8_PMU_COUNTERS];
    uint64_t ccfiltr;
    /* Counters are lazy: value = base + (source now - source at the last sync) while counting. */
    uint64_t evcnt[ARMV8_PMU_COUNTERS];
    uint64_t ccnt;
    uint64_t sync_cycles, sync_insns;
    uint8_t idcode;                 /* PMCR_EL0.IDCODE */
    uint8_t el;                     /* the CPU's EL since the last sync (not saved: PSTATE's) */
} ArmPmu;

void armv8_pmu_init(ArmPmu *p, uint8_t idcode);
/* Is (op0, op1, crn, crm, op2) a PMU register? */
bool armv8_pmu_owns(unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2);
/* Access at the given time (cycles, retired instructions); false = UNDEFINED. */
bool armv8_pmu_read(ArmPmu *p, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2,
                    uint64_t cycles, uint64_t insns, uint64_t *val);
bool armv8_pmu_write(ArmPmu *p, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2,
                     uint64_t cycles, uint64_t insns, uint64_t val);
/* The CPU goes to exception level `el` at this time: the counters catch up at the old one
 * (the filters' P and U bits count at EL1 and EL0 only as they allow). */
void armv8_pmu_set_el(ArmPmu *p, uint64_t cycles, uint64_t insns, unsigned el);
/* What an access from EL0 gets (DDI 0487 D13.4, PMUSERENR_EL0): it goes ahead, is UNDEFINED,
 * or is trapped to EL1 (ESR EC 0x18).  The generic timer's registers use the same verdicts
 * (cpu/arm64.c). */
typedef enum { ARMV8_EL0_OK, ARMV8_EL0_UNDEF, ARMV8_EL0_TRAP } ArmEl0Access;
ArmEl0Access armv8_pmu_el0_access(const ArmPmu *p, unsigned op0, unsigned op1, unsigned crn, unsigned crm,
                                  unsigned op2, bool write);
void armv8_pmu_save(const ArmPmu *p, Blob *b);
bool armv8_pmu_load(ArmPmu *p, BlobReader *r);

#endif
