/* pmu_x86.h — the Intel architectural performance-monitoring unit (version 2).
 *
 * @see Intel SDM vol. 3B chapter 20 "Performance Monitoring" (20.2.1 version 1, 20.2.2 version 2),
 *      vol. 4 (the MSRs), vol. 2A CPUID leaf 0AH; Linux arch/x86/events/intel/core.c.
 *
 * Per CPU: general-purpose counters IA32_PMCx with IA32_PERFEVTSELx, fixed counters
 * IA32_FIXED_CTR0..2 (instructions retired, core cycles, reference cycles) with
 * IA32_FIXED_CTR_CTRL, and IA32_PERF_GLOBAL_CTRL / STATUS / OVF_CTRL; RDPMC; CPUID leaf 0xA.
 * Counts and widths come from the CPU model (cpu.h CpuModel.pmu).  Counters are lazy with
 * predicted overflow (pmc.h): an overflow sets its GLOBAL_STATUS bit on the exact instruction
 * and, with the counter's INT/PMI bit, fires the local APIC's LVTPC entry (which masks itself).
 *
 * Events modelled (event select / umask; CPUID.0AH:EBX bit):
 *   0x3C/0x00 core cycles (bit 0)         unhalted cycles from the cycle model
 *   0xC0/0x00 instructions retired (1)    exact
 *   0x3C/0x01 reference cycles (2)        unhalted cycles: the reference clock is the core clock
 *   0xC4/0x00 branch instructions (5)     retired control transfers (cycle_model.h BranchKind)
 *   0xC5/0x00 branch misses (6)           the deterministic predictor of cycle_model.h
 * LLC references/misses (bits 3, 4) are reported unavailable; a counter programmed with them or
 * any other event counts nothing and gets a `pmu-event` diagnostic.
 *
 * Filters: USR/OS by CPL; EN; INT.  CMASK and INV follow from the cycle model, in which every
 * instruction takes at least one cycle and retires in one cycle, so no event occurs more than
 * once per cycle: CMASK=1 counts the event itself, CMASK>1 counts nothing, INV with CMASK=1
 * counts unhalted cycles minus the event, INV with CMASK>1 counts unhalted cycles.  EDGE is not
 * modelled (the counter counts nothing, with a diagnostic).
 */
#ifndef PMUSIM_PMU_X86_H
#define PMUSIM_PMU_X86_H

#include "base/irq.h"
#include "pmu/pmc.h"


#define X86_PMU_MAX_GP 8
#define X86_PMU_MAX_FIXED 3
#define X86_PMU_FIXED_BASE X86_PMU_MAX_GP      /* bank index of fixed counter 0 */

typedef struct X86PmuConfig {
    uint8_t version, ngp, gp_width, nfixed, fixed_width;
} X86PmuConfig;

typedef struct X86Pmu {
    const CpuPort *cpu;
    IrqLine pmi;                    /* the overflow interrupt: the local APIC's LVT_PC input */
    X86PmuConfig cfg;
    PmcBank bank;
    uint64_t evtsel[X86_PMU_MAX_GP];
    uint64_t fixed_ctrl, global_ctrl, global_status;
    unsigned cpl;                   /* privilege level the counters are filtering for */
    uint64_t pmi_status;            /* GLOBAL_STATUS bits that raised the last PMI */
    bool in_pmi;                    /* a PMI NMI was delivered and has not returned yet */
} X86Pmu;

typedef enum MsrResult { MSR_NOT_MINE, MSR_OK, MSR_GP } MsrResult;

void x86pmu_init(X86Pmu *p, const CpuPort *c, IrqLine pmi, const X86PmuConfig *cfg);
/* The MSR's name if it is a PMU MSR (for the trace), else NULL. */
const char *x86pmu_msr_name(const X86Pmu *p, uint32_t index);
/* Access at an exact instruction boundary (a trap hook); `pc` is the accessing instruction. */
MsrResult x86pmu_rdmsr(X86Pmu *p, uint32_t index, uint64_t *v);
MsrResult x86pmu_wrmsr(X86Pmu *p, uint32_t index, uint64_t v, uint64_t pc);
/* RDPMC with ECX = sel (privilege checks are the caller's); false: #GP. */
bool x86pmu_rdpmc(X86Pmu *p, uint32_t sel, uint64_t *v);
/* The counters' values now, for exporters (pmc_peek: no state changes): the general-purpose
 * ones, then the fixed ones, by their MSR names; returns how many (at most max). */
int x86pmu_readings(X86Pmu *p, PmcReading *out, int max);
/* CPUID leaf 0xA. */
void x86pmu_cpuid(const X86Pmu *p, uint32_t r[4]);
/* The CPU's privilege level changed (exception entry, IRET, SYSRET): counted so far at the old. */
void x86pmu_set_cpl(X86Pmu *p, unsigned cpl);
/* An NMI handler returned (IRET ended NMI blocking): the unacknowledged-overflow check. */
void x86pmu_nmi_return(X86Pmu *p, uint64_t pc);
/* An NMI is being delivered: remember whether it carries a PMI. */
void x86pmu_nmi_entry(X86Pmu *p);

void x86pmu_save(const X86Pmu *p, Blob *b);
bool x86pmu_load(X86Pmu *p, BlobReader *r);

#endif
