/* oprofile_perf.h (arm64) — oprofile on the perf events of the PMUv3 driver (perf.h), in the shape
 * of Linux's drivers/oprofile/oprofile_perf.c, which the ARM oprofile used (arch/arm/oprofile/
 * common.c: oprofile_perf_init): one pinned kernel counter per enabled oprofile counter, of type
 * PERF_TYPE_RAW (the PMUv3 event number), sample_period = count; its overflow handler
 * (op_overflow_handler) records one sample, the interrupted PC from ELR_EL1 (Linux:
 * oprofile_add_sample -> profile_pc(regs)), kernel unless the interrupted EL was EL0
 * (!user_mode(regs)).  The overflow is the PMU's PPI taken as a pseudo-NMI (gic.h), so samples
 * land in code that masks interrupts with ICC_PMR_EL1 as well. */
#ifndef GUEST_OPROFILE_PERF_H
#define GUEST_OPROFILE_PERF_H

#include "guest.h"
#include "perf.h"
#include "trap.h"

#define OP_MAX_COUNTER  2               /* the scenario uses two at most (event=both) */

/* Linux: struct op_counter_config (drivers/oprofile/oprofile_perf.c) */
struct op_counter_config {
    bool enabled;
    unsigned long event;                /* PMUv3 event number (PMEVTYPER<n>_EL0.evtCount) */
    unsigned long count;                /* events per sample */
    bool kernel, user;                  /* count at EL1, at EL0 */
    struct perf_event_attr attr;
};

extern struct op_counter_config counter_config[OP_MAX_COUNTER];

/* Boot CPU, after init_hw_perf_events and armv8pmu_cpu_init: one counter per enabled config,
 * counting from here on.  0, or -1 (reported) if a counter cannot be had. */
int oprofile_perf_start(void);
/* Every counter stopped and released; also from oprofile_add_sample in the overflow NMI. */
void oprofile_perf_stop(void);

/* ---- provided by the oprofile core (the scenario) ---- */
/* Linux: oprofile_add_sample(regs, event); event = the counter index. */
void oprofile_add_sample(struct trap_frame *regs, unsigned long event);

#endif
