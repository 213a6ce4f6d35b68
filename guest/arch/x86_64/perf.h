/* perf.h (x86_64) — a perf-like driver for the Intel architectural PMU, version 2 and up (Intel
 * SDM vol. 3B ch. 20; Linux include/linux/perf_event.h, arch/x86/events/core.c and
 * arch/x86/events/intel/core.c, whose names these are).
 *
 * Kernel counters only, each counting on the CPU that creates it, on a fixed counter when one
 * counts its event, else on a general-purpose one.  A sampling event (sample_period > 0)
 * overflows every sample_period events into a PMI, delivered as an NMI through the local APIC's
 * LVTPC entry; intel_pmu_handle_irq re-arms the counter and calls the event's overflow_handler
 * in NMI context.  init_hw_perf_events (perf_event.h), on the boot CPU, prints "Performance Events:
 * ..." and registers the PMI handler on NMI_LOCAL (nmi_init() must have run). */
#ifndef GUEST_PERF_H
#define GUEST_PERF_H

#include "guest.h"
#include "trap.h"

/* MSRs (SDM vol. 4 table 2-2). */
#define MSR_ARCH_PERFMON_PERFCTR0       0xc1            /* IA32_PMC0.. */
#define MSR_ARCH_PERFMON_EVENTSEL0      0x186           /* IA32_PERFEVTSEL0.. */
#define MSR_ARCH_PERFMON_FIXED_CTR0     0x309           /* instructions; +1 core, +2 ref cycles */
#define MSR_ARCH_PERFMON_FIXED_CTR_CTRL 0x38d
#define MSR_CORE_PERF_GLOBAL_STATUS     0x38e
#define MSR_CORE_PERF_GLOBAL_CTRL       0x38f
#define MSR_CORE_PERF_GLOBAL_OVF_CTRL   0x390

/* IA32_PERFEVTSELx */
#define ARCH_PERFMON_EVENTSEL_EVENT     0x000000ffull
#define ARCH_PERFMON_EVENTSEL_UMASK     0x0000ff00ull
#define ARCH_PERFMON_EVENTSEL_USR       (1ull << 16)
#define ARCH_PERFMON_EVENTSEL_OS        (1ull << 17)
#define ARCH_PERFMON_EVENTSEL_EDGE      (1ull << 18)
#define ARCH_PERFMON_EVENTSEL_INT       (1ull << 20)
#define ARCH_PERFMON_EVENTSEL_ENABLE    (1ull << 22)
#define ARCH_PERFMON_EVENTSEL_INV       (1ull << 23)
#define ARCH_PERFMON_EVENTSEL_CMASK     0xff000000ull
#define X86_RAW_EVENT_MASK  (ARCH_PERFMON_EVENTSEL_EVENT | ARCH_PERFMON_EVENTSEL_UMASK | \
                             ARCH_PERFMON_EVENTSEL_EDGE | ARCH_PERFMON_EVENTSEL_INV | \
                             ARCH_PERFMON_EVENTSEL_CMASK)

/* IA32_FIXED_CTR_CTRL: four bits per fixed counter */
#define INTEL_FIXED_0_KERNEL            0x1ull
#define INTEL_FIXED_0_USER              0x2ull
#define INTEL_FIXED_0_ENABLE_PMI        0x8ull
#define INTEL_FIXED_BITS_MASK           0xfull

/* Counter indices, as in GLOBAL_CTRL/STATUS: 0.. general purpose, 32.. fixed. */
#define INTEL_PMC_IDX_FIXED             32
#define X86_PMC_IDX_MAX                 64
#define INTEL_PMC_MAX_GENERIC           32
#define INTEL_PMC_MAX_FIXED             3
#define INTEL_PMC_FIXED_RDPMC_BASE      (1u << 30)      /* RDPMC ECX of a fixed counter */

struct hw_perf_event {
    u64 config;                 /* IA32_PERFEVTSELx bits: event, umask, USR, OS, INT */
    int idx;                    /* the counter, -1 while not scheduled */
    u32 config_base;            /* its control MSR: PERFEVTSELx or FIXED_CTR_CTRL */
    u32 event_base;             /* its counter MSR */
    u32 event_base_rdpmc;       /* its RDPMC index */
    u64 sample_period;
    u64 last_period;            /* the period of the sample being delivered */
    s64 period_left;            /* events until the next sample */
    u64 prev_count;             /* the raw counter value at the last update */
};

#include "perf_event.h"

/* What CPUID leaf 0xA says (Linux: struct x86_pmu, the parts used here). */
struct x86_pmu {
    unsigned version;           /* 0: no driver */
    unsigned num_counters, cntval_bits;
    unsigned num_counters_fixed, fixed_cntval_bits;
    u64 max_period;             /* the longest period a counter is programmed with */
    u64 intel_ctrl;             /* GLOBAL_CTRL bits of every counter */
    u32 events_mask;            /* CPUID.0xA:EBX: a set bit is an unavailable event */
    unsigned events_mask_len;
};
extern struct x86_pmu x86_pmu;

/* Each CPU, once its local APIC is enabled: PMIs are NMIs.  (Linux calls this from
 * setup_local_APIC.) */
void perf_events_lapic_init(void);


#endif
