/* pmu_armv8.h — the Arm Performance Monitors Extension, PMUv3 as an Armv8.0 core has it
 * (ID_AA64DFR0_EL1.PMUVer = 1): six 32-bit event counters, the 64-bit cycle counter, and the
 * overflow interrupt request.
 * @see Arm ARM DDI 0487, chapter D13 (D11 in later issues) "The Performance Monitors Extension";
 *      Linux drivers/perf/arm_pmuv3.c, the driver this model is written against.
 *
 * Counters are lazy with predicted overflow (pmu/pmc.h): an overflow sets its PMOVSSET_EL0 bit
 * on the exact instruction (for CPU_CYCLES, the instruction in whose cycles the counter wraps),
 * traced as `pmu-overflow`.  The interrupt request is a level, asserted while PMCR_EL0.E is set
 * and (PMOVSSET_EL0 & PMINTENSET_EL1) != 0 (DDI 0487 D13, "Generating overflow interrupt
 * requests"; QEMU's pmu_update_irq): the machine connects it to the GIC's PPI 23.  With
 * --samples, an overflow of a counter whose PMINTENSET_EL1 bit is set is a sample.
 *
 * Events (PMCEID0_EL0 = 0x400f0111 advertises exactly these; PMCEID1_EL0 = 0):
 *   0x00 SW_INCR       writes of PMSWINC_EL0
 *   0x04 L1D_CACHE     retired instructions that load or store: pmusim has no caches, so every
 *                      memory instruction is one L1 data cache access (a pair or vector load is
 *                      one, as are the exclusives; DC ZVA and the other cache operations none)
 *   0x08 INST_RETIRED  retired instructions, exact
 *   0x10 BR_MIS_PRED   retired branches the deterministic predictor got wrong (cycle_model.h,
 *                      docs/cycle-model.md "Branch prediction")
 *   0x11 CPU_CYCLES    cycles of the cycle model while the CPU is neither in WFI nor off (the
 *                      Arm ARM leaves counting in WFI IMPLEMENTATION DEFINED; the Cortex-A53,
 *                      A57 and A72 stop their clock there)
 *   0x12 BR_PRED       retired branches, all of which go through the predictor: b, b.cond,
 *                      cbz, cbnz, tbz, tbnz, bl, br, blr, ret, and eret, svc, hvc, smc
 *   0x13 MEM_ACCESS    as L1D_CACHE: one per retired load or store instruction
 *   0x1E CHAIN         on an odd counter: one per overflow of the even counter below it (a
 *                      64-bit chained pair, as Linux makes one for a 64-bit event); its own
 *                      overflow is on the same instruction.  On an even counter: nothing.
 * A counter enabled with any other event counts nothing and gets a `pmu-event` diagnostic, once
 * per event number per CPU.  "Speculatively executed" is "retired" here: nothing is speculated.
 *
 * Filters: PMEVTYPER<n>_EL0 and PMCCFILTR_EL0 P (no counting at EL1) and U (none at EL0); NSK,
 * NSU, NSH and M are RES0 without EL2 and EL3.  The CPU tells the model each change of EL
 * (armv8_pmu_set_el), so every stretch between two syncs ran at one EL.
 */
#ifndef PMUSIM_PMU_ARMV8_H
#define PMUSIM_PMU_ARMV8_H

#include "base/irq.h"
#include "pmu/pmc.h"

#define ARMV8_PMU_COUNTERS 6        /* Cortex-A53/A57/A72: PMCR_EL0.N = 6 */
#define ARMV8_PMU_CCNT ARMV8_PMU_COUNTERS  /* the cycle counter's place in the bank */
#define ARMV8_PMU_EVENTS 1024       /* evtCount[9:0]: [15:10] are RES0 without FEAT_PMUv3p1 */

typedef struct ArmPmu {
    const CpuPort *cpu;
    IrqLine irq;                    /* the overflow interrupt request (a level) */
    PmcBank bank;                   /* PMEVCNTR<n>_EL0 = counter n, PMCCNTR_EL0 = ARMV8_PMU_CCNT */
    uint32_t pmcr;                  /* PMCR_EL0's writable bits: E, D, X, DP, LC */
    uint32_t cnten, inten, ovs;     /* PMCNTENSET, PMINTENSET, PMOVSSET: bit n, 31 = the cycle counter */
    uint32_t selr, userenr;         /* PMSELR_EL0.SEL, PMUSERENR_EL0 */
    uint32_t evtyper[ARMV8_PMU_COUNTERS];   /* P, U, evtCount */
    uint32_t ccfiltr;               /* PMCCFILTR_EL0: P, U */
    uint32_t ccnt_hi;               /* PMCCNTR_EL0[63:32] while PMCR_EL0.LC = 0 (the bank's counter
                                       is then [31:0], whose wrap is the overflow) */
    uint64_t reported[ARMV8_PMU_EVENTS / 64];   /* event numbers already diagnosed */
    uint8_t idcode;                 /* PMCR_EL0.IDCODE */
    uint8_t el;                     /* the CPU's EL since the last sync (not saved: PSTATE's) */
    bool irq_level;                 /* the request as last driven on `irq` */
} ArmPmu;

void armv8_pmu_init(ArmPmu *p, const CpuPort *port, uint8_t idcode, IrqLine irq);
/* Connect the request to another line (a controller made after the CPU), driving its level. */
void armv8_pmu_connect_irq(ArmPmu *p, IrqLine irq);
/* Is (op0, op1, crn, crm, op2) a PMU register? */
bool armv8_pmu_owns(unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2);
/* An MRS or MSR of a PMU register by the instruction at the CPU's PC, with the CPU's counts
 * exact up to (not including) it (a trap site); false = UNDEFINED, with nothing changed. */
bool armv8_pmu_read(ArmPmu *p, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2,
                    uint64_t *val);
bool armv8_pmu_write(ArmPmu *p, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2,
                     uint64_t val);
/* PMEVCNTR0..5_EL0 and PMCCNTR_EL0 (all 64 bits) now, for exporters (pmc_peek: no state
 * changes); returns how many (at most max). */
int armv8_pmu_readings(ArmPmu *p, PmcReading *out, int max);
/* The CPU goes to exception level `el`; its counts are exact up to that point, and what ran
 * before it ran at the old EL (the filters' P and U bits count at EL1 and EL0 as they allow). */
void armv8_pmu_set_el(ArmPmu *p, unsigned el);
/* What an access from EL0 gets (DDI 0487 D13.4, PMUSERENR_EL0): it goes ahead, is UNDEFINED,
 * or is trapped to EL1 (ESR EC 0x18).  The generic timer's registers use the same verdicts
 * (cpu/arm64.c). */
typedef enum { ARMV8_EL0_OK, ARMV8_EL0_UNDEF, ARMV8_EL0_TRAP } ArmEl0Access;
ArmEl0Access armv8_pmu_el0_access(const ArmPmu *p, unsigned op0, unsigned op1, unsigned crn, unsigned crm,
                                  unsigned op2, bool write);
/* The overflow interrupt request now. */
static inline bool armv8_pmu_irq_level(const ArmPmu *p) { return p->irq_level; }
void armv8_pmu_save(const ArmPmu *p, Blob *b);
bool armv8_pmu_load(ArmPmu *p, BlobReader *r);

#endif
