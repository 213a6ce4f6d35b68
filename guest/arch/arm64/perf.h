/* perf.h (arm64) — a perf-like driver for the PMUv3 (Arm ARM DDI 0487 D13 "The Performance
 * Monitors Extension"; Linux include/linux/perf_event.h, drivers/perf/arm_pmu.c and
 * drivers/perf/arm_pmuv3.c, whose names these are), with the API of arch/x86_64/perf.h.
 *
 * Register map (system registers):
 *   PMCR_EL0        E 0, P 1 (event counters reset), C 2 (cycle counter reset), LC 6 (the cycle
 *                   counter overflows at 64 bits), N 15:11 (event counters)
 *   PMCNTENSET/CLR_EL0, PMINTENSET/CLR_EL1, PMOVSSET/CLR_EL0: bit n event counter n, bit 31
 *                   the cycle counter
 *   PMCCNTR_EL0, PMCCFILTR_EL0 (P 31 excludes EL1, U 30 excludes EL0)
 *   PMSELR_EL0 + PMXEVTYPER_EL0 / PMXEVCNTR_EL0: event counter n's type and count
 *   PMUSERENR_EL0   EL0 access (0: none)
 *   ID_AA64DFR0_EL1 PMUVer 11:8 (0 none, 0xf IMPLEMENTATION DEFINED)
 *
 * Kernel counters only, each counting on the CPU that creates it: CPU cycles on the cycle
 * counter, anything else on an event counter.  A sampling event overflows every sample_period
 * events into the PMU's PPI (entry 0 of the pmu node's `interrupts`), requested as a pseudo-NMI
 * (gic.h); armv8pmu_handle_irq re-arms the counter and calls the event's overflow_handler in
 * NMI context.  init_hw_perf_events (perf_event.h), on the boot CPU after gic_init, prints Linux's
 * "hw perfevents: ..." line and requests the PPI as an NMI. */
#ifndef GUEST_PERF_H
#define GUEST_PERF_H

#include "guest.h"
#include "trap.h"

#define ARMV8_PMU_CYCLE_IDX             31
#define ARMV8_PMU_MAX_GENERAL_COUNTERS  31
#define ARMV8_PMUV3_PERFCTR_INST_RETIRED 0x08
#define ARMV8_PMUV3_PERFCTR_CPU_CYCLES  0x11

struct hw_perf_event {
    u32 config_base;            /* PMEVTYPER / PMCCFILTR value: event number and EL filters */
    int idx;                    /* the counter, -1 while not scheduled */
    u64 sample_period;
    u64 last_period;            /* the period of the sample being delivered */
    s64 period_left;            /* events until the next sample */
    u64 prev_count;             /* the counter value at the last update */
};

#include "perf_event.h"

/* Each CPU, once its GIC CPU interface is up: resets the PMU and enables the NMI (Linux:
 * armv8pmu_reset, arm_perf_starting_cpu). */
void armv8pmu_cpu_init(void);

/* Stops the counter and frees it (Linux: perf_event_disable); also from the overflow handler. */
void perf_event_disable(struct perf_event *event);

#endif
