/* pmu_mpc7450.h — the MPC7450/7447A performance monitor.
 *
 * @see MPC7450 RISC Microprocessor Family Reference Manual, chapter 11 "Performance Monitor";
 *      Linux arch/powerpc/perf/mpc7450-pmu.c (PMCSEL fields, event classes) and the old
 *      arch/powerpc/oprofile/op_model_7450.c (the driver pattern).
 *
 * Per CPU: MMCR0, MMCR1, MMCR2, PMC1-PMC6 (32 bits; "negative" = bit 0, 0x80000000, set) and
 * SIAR, plus the user-mode read-only aliases.  Counters are lazy (pmc.h) and signal when they
 * become negative.  Counting is frozen by MMCR0[FC], by FCS/FCP against MSR[PR], by FCM1/FCM0
 * against MSR[PMM], and for PMC2-6 by TRIGGER until PMC1 becomes negative or an enabled
 * condition occurs.  A counter becoming negative with PMC1CE (PMC1) or PMCnCE (PMC2-6) set, and
 * with TBEE a transition of the TBSEL bit, is an enabled condition (RM ch. 11, MMCR0 fields):
 * it clears TRIGGER; it sets FC if FCECE is set and TRIGGER was 0 (with TRIGGER = 1, FCECE acts
 * as 0); with MMCR0[PMXE] the performance-monitor exception (0xF00) becomes pending, hardware
 * clears PMXE and sets SIAR to the address of the instruction that caused it, unless MMCR0[FC]
 * had disabled counting (then SIAR keeps its value).  The exception is taken when MSR[EE] = 1,
 * before a pending decrementer (RM table 4-3), with SRR0 = the next instruction.
 *
 * Events (PMCnSEL; docs/guest-abi.md has the table): 0 nothing (the register holds its value),
 * 1 processor cycles (any PMC), 2 instructions completed and 3 0->1 transitions of the timebase
 * bit MMCR0[TBSEL] selects (PMC1-4), PMC1 event 34 (0x22) branches completed, PMC4 event 28
 * (0x1c) branches mispredicted (the predictor of cycle_model.h), PMC2 event 26 load
 * instructions, PMC1-2 event 20 store instructions, PMC2 event 25 load or store instructions
 * completed (the numbers: Apple's Shark "PPC 7450 (G4+) Performance Counter Event List", which
 * agrees with the 34 and 28 above and with the event classes of Linux's mpc7450-pmu.c).  Any
 * other selector counts nothing and is reported once (`pmu-event`).
 */
#ifndef PMUSIM_PMU_MPC7450_H
#define PMUSIM_PMU_MPC7450_H

#include "base/irq.h"
#include "pmu/pmc.h"

#define MPC7450_PMCS 6

/* The monitor's SPR numbers, as Linux's asm/reg.h spells them (MPC7450 RM table 11-1).  The
 * user-mode aliases are read-only and numbered 16 below; the supervisor numbers have SPR bit
 * 0x10 set, so reaching them from problem state is a privileged-instruction program exception. */
enum {
    SPRN_MMCR2 = 944, SPRN_PMC5 = 945, SPRN_PMC6 = 946, SPRN_BAMR = 951, SPRN_MMCR0 = 952, SPRN_PMC1 = 953,
    SPRN_PMC2 = 954, SPRN_SIAR = 955, SPRN_MMCR1 = 956, SPRN_PMC3 = 957, SPRN_PMC4 = 958,
    SPRN_UMMCR2 = 928, SPRN_UPMC5 = 929, SPRN_UPMC6 = 930, SPRN_UBAMR = 935, SPRN_UMMCR0 = 936, SPRN_UPMC1 = 937,
    SPRN_UPMC2 = 938, SPRN_USIAR = 939, SPRN_UMMCR1 = 940, SPRN_UPMC3 = 941, SPRN_UPMC4 = 942,
    SPRN_USER_ALIAS = 16,           /* supervisor number - user alias */
};

/* MMCR0 (IBM bit numbers in the comments). */
enum {
    MMCR0_FC = 0x80000000u, MMCR0_FCS = 0x40000000u, MMCR0_FCP = 0x20000000u, MMCR0_FCM1 = 0x10000000u,
    MMCR0_FCM0 = 0x08000000u, MMCR0_PMXE = 0x04000000u, MMCR0_FCECE = 0x02000000u, MMCR0_TBSEL = 0x01800000u,
    MMCR0_TBEE = 0x00400000u, MMCR0_THRESHOLD = 0x003f0000u, MMCR0_PMC1CE = 0x00008000u,
    MMCR0_PMCnCE = 0x00004000u, MMCR0_TRIGGER = 0x00002000u, MMCR0_PMC1SEL = 0x00001fc0u,
    MMCR0_PMC2SEL = 0x0000003fu,
};
#define MSR_PMM 0x4u                /* MSR bit 29: performance monitor mark */

typedef struct Mpc7450Pmu {
    const CpuPort *cpu;
    PmcBank bank;
    uint32_t mmcr0, mmcr1, mmcr2, siar, bamr;
    uint32_t msr;                   /* MSR[PR, PMM] the counters are frozen by */
    bool pending;                   /* the performance-monitor exception is pending: pmi is high */
    IrqLine pmi;                    /* to the CPU's performance-monitor exception pin */
    uint32_t reported;              /* unmodelled selectors already reported, a bit per PMC */
    Event tb_ev;                    /* the next transition of the TBSEL bit, while TBEE is set */
    /* the time base of the CPU (CpuPort.opaque) now, and the cycle at which it reaches tb */
    uint64_t (*tb_now)(void *cpu);
    uint64_t (*cycle_of_tb)(void *cpu, uint64_t tb);
} Mpc7450Pmu;

typedef enum PpcSprResult { SPR_NOT_MINE, SPR_OK, SPR_PRIVILEGED, SPR_ILLEGAL } PpcSprResult;

void mpc7450_pmu_init(Mpc7450Pmu *p, const CpuPort *c, IrqLine pmi, uint64_t (*tb_now)(void *cpu),
                      uint64_t (*cycle_of_tb)(void *cpu, uint64_t tb));
/* The timebase is about to be written (before: true) / has been written (false). */
void mpc7450_pmu_tb_write(Mpc7450Pmu *p, bool before);
/* Is spr a performance-monitor SPR (supervisor or user alias)? */
bool mpc7450_pmu_owns(unsigned spr);
/* mfspr/mtspr at an exact instruction boundary; `user` = MSR[PR]. */
PpcSprResult mpc7450_pmu_mfspr(Mpc7450Pmu *p, unsigned spr, bool user, uint32_t *v);
PpcSprResult mpc7450_pmu_mtspr(Mpc7450Pmu *p, unsigned spr, bool user, uint32_t v);
const char *mpc7450_pmu_spr_name(unsigned spr);
/* MSR is about to change (exception entry, rfi, mtmsr): what ran so far counted under the old. */
void mpc7450_pmu_set_msr(Mpc7450Pmu *p, uint32_t msr);
/* PMC1..PMC6's values now, for exporters (pmc_peek: no state changes); returns how many (at
 * most max). */
int mpc7450_pmu_readings(Mpc7450Pmu *p, PmcReading *out, int max);
/* The exception is being taken: clear pending, lower pmi (the backend performs the entry). */
void mpc7450_pmu_taken(Mpc7450Pmu *p);

void mpc7450_pmu_save(const Mpc7450Pmu *p, Blob *b);
bool mpc7450_pmu_load(Mpc7450Pmu *p, BlobReader *r);

#endif
