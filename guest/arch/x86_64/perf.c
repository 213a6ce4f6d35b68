/* perf.c (x86_64) — the Intel architectural PMU driver (see perf.h).  Follows Linux
 * arch/x86/events/core.c (event setup, scheduling, x86_perf_event_set_period/update, the NMI
 * handler) and arch/x86/events/intel/core.c (intel_pmu_init, enable/disable,
 * intel_pmu_handle_irq); "core.c" and "intel/core.c" below are those two.  Linux's names are
 * kept so the two can be read side by side. */
#include "perf.h"
#include "lapic.h"
#include "nmi.h"
#include "percpu.h"
#include "x86.h"

#define ARCH_PERFMON_EVENTS_COUNT   7   /* architectural events CPUID.0xA:EBX describes */
#define PERF_EVENTS_MAX             (MAX_CPUS * 4)
#define IRQ_LOOPS_MAX               100

/* Per-CPU PMU state (Linux: struct cpu_hw_events). */
struct cpu_hw_events {
    struct perf_event *events[X86_PMC_IDX_MAX];     /* by counter index */
    u64 active_mask;                                /* counters that are counting an event */
    int enabled;                                    /* GLOBAL_CTRL holds intel_ctrl */
};

struct x86_pmu x86_pmu;

/* As Linux starts it: "enabled", so that the first x86_pmu_disable() clears GLOBAL_CTRL, whose
 * power-up value enables the general-purpose counters. */
static DEFINE_PER_CPU(struct cpu_hw_events, cpu_hw_events) = { .enabled = 1 };
static unsigned active_events;                      /* events in existence, all CPUs */

static struct perf_event perf_event_pool[PERF_EVENTS_MAX];
static bool perf_event_pool_used[PERF_EVENTS_MAX];

/* PERF_TYPE_HARDWARE -> event select, umask (Linux: intel_perfmon_event_map).  0x0300 is
 * Linux's pseudo-encoding of reference cycles, which only fixed counter 2 counts. */
static u64 intel_perfmon_event_map[PERF_COUNT_HW_MAX] = {
    [PERF_COUNT_HW_CPU_CYCLES] = 0x003c,
    [PERF_COUNT_HW_INSTRUCTIONS] = 0x00c0,
    [PERF_COUNT_HW_CACHE_REFERENCES] = 0x4f2e,
    [PERF_COUNT_HW_CACHE_MISSES] = 0x412e,
    [PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = 0x00c4,
    [PERF_COUNT_HW_BRANCH_MISSES] = 0x00c5,
    [PERF_COUNT_HW_BUS_CYCLES] = 0x013c,
    [PERF_COUNT_HW_REF_CPU_CYCLES] = 0x0300,
};

/* CPUID.0xA:EBX bit -> the event it marks unavailable (Linux: intel_arch_events_map). */
static const enum perf_hw_id intel_arch_events_map[ARCH_PERFMON_EVENTS_COUNT] = {
    PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_BUS_CYCLES,
    PERF_COUNT_HW_CACHE_REFERENCES, PERF_COUNT_HW_CACHE_MISSES,
    PERF_COUNT_HW_BRANCH_INSTRUCTIONS, PERF_COUNT_HW_BRANCH_MISSES,
};

/* The events the fixed counters count (Linux: intel_gen_event_constraints). */
static const u64 fixed_counter_event[INTEL_PMC_MAX_FIXED] = { 0x00c0, 0x003c, 0x0300 };

static bool is_fixed_idx(int idx)
{
    return idx >= INTEL_PMC_IDX_FIXED;
}

static unsigned counter_bits(int idx)
{
    return is_fixed_idx(idx) ? x86_pmu.fixed_cntval_bits : x86_pmu.cntval_bits;
}

static u64 counter_mask(int idx)
{
    unsigned bits = counter_bits(idx);
    return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

/* ---- probing (Linux: intel_pmu_init, init_hw_perf_events) */

/* Linux: init_hw_perf_events's way out, with what was missing. */
static int no_pmu_driver(const char *what, unsigned value)
{
    printf("Performance Events: %s %u: no PMU driver, software events only.\n", what, value);
    return -1;
}

/* Linux: intel_pmu_init (intel/core.c), its architectural part: CPUID leaf 0xA.  Version 1 (no
 * global control MSRs) would need Linux's core_pmu, which this driver does not have.  Linux
 * assumes 3 fixed counters on version 2 parts that report none; here EDX is taken as it is. */
static int intel_pmu_init(void)
{
    unsigned max_leaf = cpuid(0).eax;

    if (max_leaf < 0xa)
        return no_pmu_driver("CPUID max leaf", max_leaf);
    struct cpuid_regs r = cpuid(0xa);
    unsigned version = r.eax & 0xff;

    if (version < 2)
        return no_pmu_driver("PMU version", version);
    x86_pmu.num_counters = (r.eax >> 8) & 0xff;
    x86_pmu.cntval_bits = (r.eax >> 16) & 0xff;
    x86_pmu.events_mask = r.ebx;
    x86_pmu.events_mask_len = (r.eax >> 24) & 0xff;
    x86_pmu.num_counters_fixed = r.edx & 0x1f;
    x86_pmu.fixed_cntval_bits = (r.edx >> 5) & 0xff;
    if (x86_pmu.events_mask_len < ARCH_PERFMON_EVENTS_COUNT)
        return no_pmu_driver("architectural events", x86_pmu.events_mask_len);
    /* below 32 bits, a general-purpose counter write would not be a plain sign extension */
    if (x86_pmu.cntval_bits < 32)
        return no_pmu_driver("counter width", x86_pmu.cntval_bits);
    if (x86_pmu.num_counters_fixed && x86_pmu.fixed_cntval_bits < 32)
        return no_pmu_driver("fixed counter width", x86_pmu.fixed_cntval_bits);
    if (x86_pmu.num_counters > INTEL_PMC_MAX_GENERIC)
        x86_pmu.num_counters = INTEL_PMC_MAX_GENERIC;
    if (x86_pmu.num_counters_fixed > INTEL_PMC_MAX_FIXED)
        x86_pmu.num_counters_fixed = INTEL_PMC_MAX_FIXED;
    /* A general-purpose counter write sets only bits 31:0, sign-extended (the full-width
     * aliases need IA32_PERF_CAPABILITIES, which this CPU does not advertise): Linux's default
     * max_period. */
    x86_pmu.max_period = (1ull << 31) - 1;
    x86_pmu.intel_ctrl = ((1ull << x86_pmu.num_counters) - 1) |
                         ((1ull << x86_pmu.num_counters_fixed) - 1) << INTEL_PMC_IDX_FIXED;
    /* Linux: intel_arch_events_quirk (without its warnings). */
    for (unsigned bit = 0; bit < ARCH_PERFMON_EVENTS_COUNT; bit++)
        if (x86_pmu.events_mask & (1u << bit))
            intel_perfmon_event_map[intel_arch_events_map[bit]] = 0;
    x86_pmu.version = version;
    return 0;
}

static int perf_event_nmi_handler(unsigned type, struct trap_frame *regs);

static struct nmiaction perf_event_nmi_action = { perf_event_nmi_handler, "PMI", NULL };

int init_hw_perf_events(void)
{
    if (intel_pmu_init())
        return -1;
    printf("Performance Events: PMU version %u, %u generic counters %u bits wide, "
           "%u fixed counters %u bits wide\n", x86_pmu.version, x86_pmu.num_counters,
           x86_pmu.cntval_bits, x86_pmu.num_counters_fixed, x86_pmu.fixed_cntval_bits);
    register_nmi_handler(NMI_LOCAL, &perf_event_nmi_action);
    return 0;
}

void perf_events_lapic_init(void)
{
    if (x86_pmu.version)
        apic_write(APIC_LVTPC, APIC_DM_NMI);
}

/* ---- global enable (Linux: __intel_pmu_disable_all, __intel_pmu_enable_all in intel/core.c;
 * x86_pmu_disable, x86_pmu_enable in core.c) */

static void __intel_pmu_disable_all(void)
{
    wrmsr(MSR_CORE_PERF_GLOBAL_CTRL, 0);
}

/* Every counter is globally enabled; an idle one is off in its own control bits. */
static void __intel_pmu_enable_all(void)
{
    wrmsr(MSR_CORE_PERF_GLOBAL_CTRL, x86_pmu.intel_ctrl);
}

static void x86_pmu_disable(void)
{
    struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);

    if (!cpuc->enabled)
        return;
    cpuc->enabled = 0;
    barrier();                          /* the PMI handler looks at enabled */
    __intel_pmu_disable_all();
}

static void x86_pmu_enable(void)
{
    struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);

    if (cpuc->enabled)
        return;
    cpuc->enabled = 1;
    barrier();
    __intel_pmu_enable_all();
}

/* ---- one counter */

/* Linux: x86_perf_event_update (core.c).  The counter is read with RDPMC; the shift drops what lies
 * above its width, so a counter that wrapped past zero still gives the right delta. */
static u64 x86_perf_event_update(struct perf_event *event)
{
    struct hw_perf_event *hwc = &event->hw;
    unsigned shift = 64 - counter_bits(hwc->idx);
    u64 prev_raw_count = hwc->prev_count;
    u64 new_raw_count = rdpmc(hwc->event_base_rdpmc);
    u64 delta = ((new_raw_count << shift) - (prev_raw_count << shift)) >> shift;

    hwc->prev_count = new_raw_count;
    event->count += delta;
    hwc->period_left -= delta;
    return new_raw_count;
}

/* Linux: x86_perf_event_set_period (core.c).  Arms the counter to overflow after period_left more
 * events (at most max_period: a longer period takes several overflows, and only the one that
 * completes it is a sample).  Returns 1 when the previous period has completed. */
static int x86_perf_event_set_period(struct perf_event *event)
{
    struct hw_perf_event *hwc = &event->hw;
    s64 left = hwc->period_left;
    s64 period = hwc->sample_period;
    int ret = 0;

    if (left <= -period) {              /* far behind: start a fresh period */
        left = period;
        hwc->period_left = left;
        hwc->last_period = period;
        ret = 1;
    }
    if (left <= 0) {
        left += period;
        hwc->period_left = left;
        hwc->last_period = period;
        ret = 1;
    }
    if (left < 2)                       /* Linux: some CPUs misbehave with 1 event left */
        left = 2;
    if ((u64)left > x86_pmu.max_period)
        left = x86_pmu.max_period;
    hwc->prev_count = (u64)-left;
    wrmsr(hwc->event_base, (u64)-left & counter_mask(hwc->idx));
    return ret;
}

static void intel_pmu_enable_fixed(struct perf_event *event)
{
    struct hw_perf_event *hwc = &event->hw;
    unsigned shift = 4 * (hwc->idx - INTEL_PMC_IDX_FIXED);
    u64 bits = INTEL_FIXED_0_ENABLE_PMI;

    if (hwc->config & ARCH_PERFMON_EVENTSEL_USR)
        bits |= INTEL_FIXED_0_USER;
    if (hwc->config & ARCH_PERFMON_EVENTSEL_OS)
        bits |= INTEL_FIXED_0_KERNEL;
    u64 ctrl = rdmsr(hwc->config_base);
    ctrl &= ~(INTEL_FIXED_BITS_MASK << shift);
    wrmsr(hwc->config_base, ctrl | bits << shift);
}

static void intel_pmu_enable_event(struct perf_event *event)
{
    struct hw_perf_event *hwc = &event->hw;

    if (is_fixed_idx(hwc->idx))
        intel_pmu_enable_fixed(event);
    else
        wrmsr(hwc->config_base, hwc->config | ARCH_PERFMON_EVENTSEL_ENABLE);
}

/* A free counter for the event, -1 if none.  Fixed counters first, as Linux's scheduler does:
 * they leave the general-purpose ones to events that need them.  An event with edge, inv or
 * cmask bits is not the plain event a fixed counter counts. */
static int x86_schedule_event(const struct cpu_hw_events *cpuc, const struct hw_perf_event *hwc)
{
    u64 code = hwc->config & X86_RAW_EVENT_MASK;

    for (unsigned i = 0; i < x86_pmu.num_counters_fixed; i++)
        if (code == fixed_counter_event[i] && !cpuc->events[INTEL_PMC_IDX_FIXED + i])
            return INTEL_PMC_IDX_FIXED + i;
    if (code == 0x0300)
        return -1;
    for (unsigned i = 0; i < x86_pmu.num_counters; i++)
        if (!cpuc->events[i])
            return i;
    return -1;
}

static void x86_assign_hw_event(struct perf_event *event, int idx)
{
    struct hw_perf_event *hwc = &event->hw;

    hwc->idx = idx;
    if (is_fixed_idx(idx)) {
        hwc->config_base = MSR_ARCH_PERFMON_FIXED_CTR_CTRL;
        hwc->event_base = MSR_ARCH_PERFMON_FIXED_CTR0 + (idx - INTEL_PMC_IDX_FIXED);
        hwc->event_base_rdpmc = (idx - INTEL_PMC_IDX_FIXED) | INTEL_PMC_FIXED_RDPMC_BASE;
    } else {
        hwc->config_base = MSR_ARCH_PERFMON_EVENTSEL0 + idx;
        hwc->event_base = MSR_ARCH_PERFMON_PERFCTR0 + idx;
        hwc->event_base_rdpmc = idx;
    }
}

/* Linux: x86_pmu_add + x86_pmu_start (core.c), with the PMU globally disabled. */
static int x86_pmu_add(struct perf_event *event)
{
    struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);
    int idx = x86_schedule_event(cpuc, &event->hw);

    if (idx < 0)
        return -1;
    x86_assign_hw_event(event, idx);
    x86_perf_event_set_period(event);
    cpuc->events[idx] = event;
    cpuc->active_mask |= 1ull << idx;
    intel_pmu_enable_event(event);
    return 0;
}

/* ---- events */

/* Linux: __x86_pmu_event_init and x86_setup_perfctr (core.c). */
static int x86_pmu_event_init(struct perf_event *event)
{
    const struct perf_event_attr *attr = &event->attr;
    struct hw_perf_event *hwc = &event->hw;
    u64 code;

    if (!x86_pmu.version)
        return -1;
    if (attr->type == PERF_TYPE_HARDWARE && attr->config < PERF_COUNT_HW_MAX)
        code = intel_perfmon_event_map[attr->config];
    else if (attr->type == PERF_TYPE_RAW)
        code = attr->config & X86_RAW_EVENT_MASK;
    else
        return -1;
    if (!code)
        return -1;                      /* not counted by this PMU */
    hwc->config = ARCH_PERFMON_EVENTSEL_INT | code;
    if (!attr->exclude_user)
        hwc->config |= ARCH_PERFMON_EVENTSEL_USR;
    if (!attr->exclude_kernel)
        hwc->config |= ARCH_PERFMON_EVENTSEL_OS;
    hwc->idx = -1;
    /* A counting event still takes a PMI when its counter wraps, to fold it into count. */
    hwc->sample_period = attr->sample_period ? attr->sample_period : x86_pmu.max_period;
    hwc->last_period = hwc->sample_period;
    hwc->period_left = hwc->sample_period;
    return 0;
}

static struct perf_event *perf_event_alloc(void)
{
    for (unsigned i = 0; i < PERF_EVENTS_MAX; i++) {
        bool free = false;
        if (__atomic_compare_exchange_n(&perf_event_pool_used[i], &free, true, false,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            memset(&perf_event_pool[i], 0, sizeof(perf_event_pool[i]));
            return &perf_event_pool[i];
        }
    }
    return NULL;
}

static void perf_event_free(struct perf_event *event)
{
    __atomic_store_n(&perf_event_pool_used[event - perf_event_pool], false, __ATOMIC_RELEASE);
}

struct perf_event *perf_event_create_kernel_counter(const struct perf_event_attr *attr,
                                                    unsigned cpu,
                                                    perf_overflow_handler_t overflow_handler,
                                                    void *context)
{
    if (cpu != smp_processor_id())      /* no cross-CPU calls: each CPU programs its own PMU */
        return NULL;
    struct perf_event *event = perf_event_alloc();
    if (!event)
        return NULL;
    event->attr = *attr;
    event->cpu = cpu;
    event->overflow_handler = overflow_handler;
    event->overflow_handler_context = context;
    if (x86_pmu_event_init(event)) {
        perf_event_free(event);
        return NULL;
    }
    __atomic_add_fetch(&active_events, 1, __ATOMIC_RELAXED);
    if (!attr->disabled && perf_event_enable(event)) {
        perf_event_release_kernel(event);
        return NULL;
    }
    return event;
}

int perf_event_enable(struct perf_event *event)
{
    if (event->active)
        return 0;
    x86_pmu_disable();
    int err = x86_pmu_add(event);
    if (!err)
        event->active = true;
    x86_pmu_enable();
    return err;
}

void perf_event_release_kernel(struct perf_event *event)
{
    if (event->active)
        return;
    __atomic_sub_fetch(&active_events, 1, __ATOMIC_RELAXED);
    perf_event_free(event);
}

/* ---- the PMI */

/* Linux: __perf_event_overflow (kernel/events/core.c), without throttling.  Counting events have no
 * samples. */
static void perf_event_overflow(struct perf_event *event, struct perf_sample_data *data,
                                struct trap_frame *regs)
{
    if (event->attr.sample_period && event->overflow_handler)
        event->overflow_handler(event, data, regs);
}

/* Linux: intel_pmu_save_and_restart (intel/core.c).  1 if a sample period completed. */
static int intel_pmu_save_and_restart(struct perf_event *event)
{
    x86_perf_event_update(event);
    return x86_perf_event_set_period(event);
}

/* Linux: handle_pmi_common (intel/core.c).  Status bits other than the counters' (CondChgd, OvfBuf,
 * ...) have been acknowledged with the rest and are not looked at. */
static int handle_pmi_common(struct trap_frame *regs, u64 status)
{
    struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);
    int handled = 0;

    inc_irq_stat(apic_perf_irqs);
    status &= x86_pmu.intel_ctrl;
    for (unsigned bit = 0; bit < X86_PMC_IDX_MAX; bit++) {
        if (!(status & (1ull << bit)))
            continue;
        handled++;
        if (!(cpuc->active_mask & (1ull << bit)))
            continue;
        struct perf_event *event = cpuc->events[bit];
        if (!intel_pmu_save_and_restart(event))
            continue;
        struct perf_sample_data data = { event->hw.last_period };
        perf_event_overflow(event, &data, regs);
    }
    return handled;
}

static u64 intel_pmu_get_status(void)
{
    return rdmsr(MSR_CORE_PERF_GLOBAL_STATUS);
}

static void intel_pmu_ack_status(u64 ack)
{
    wrmsr(MSR_CORE_PERF_GLOBAL_OVF_CTRL, ack);
}

/* Linux: intel_pmu_reset (intel/core.c), the way out of a stuck PMI loop: every counter and control
 * to 0. */
static void intel_pmu_reset(void)
{
    printf_nmi("clearing PMU state on CPU#%u\n", smp_processor_id());
    for (unsigned i = 0; i < x86_pmu.num_counters; i++) {
        wrmsr(MSR_ARCH_PERFMON_EVENTSEL0 + i, 0);
        wrmsr(MSR_ARCH_PERFMON_PERFCTR0 + i, 0);
    }
    for (unsigned i = 0; i < x86_pmu.num_counters_fixed; i++)
        wrmsr(MSR_ARCH_PERFMON_FIXED_CTR0 + i, 0);
    intel_pmu_ack_status(intel_pmu_get_status());
    wrmsr(MSR_CORE_PERF_GLOBAL_CTRL, 0);
}

/* Linux: intel_pmu_handle_irq (intel/core.c), in its order, with the late LVTPC ack of big cores
 * since Haswell: the PMU is disabled while the counters are re-armed, each round acknowledges what
 * it handles, and the LVTPC entry, which the PMI masked, is unmasked only at the very end, when no
 * re-armed counter can raise a PMI into the middle of the handler.  noinline: its own symbol in
 * pmusim's traces, as in Linux's stacks. */
static __attribute__((noinline)) int intel_pmu_handle_irq(struct trap_frame *regs)
{
    struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);
    int pmu_enabled = cpuc->enabled;
    int handled = 0, loops = 0;
    u64 status;

    cpuc->enabled = 0;
    __intel_pmu_disable_all();
    status = intel_pmu_get_status();
    if (!status)
        goto done;
again:
    intel_pmu_ack_status(status);
    if (++loops > IRQ_LOOPS_MAX) {
        static bool warned;
        if (!warned) {
            printf_nmi("perfevents: irq loop stuck!\n");
            warned = true;
        }
        intel_pmu_reset();
        goto done;
    }
    handled += handle_pmi_common(regs, status);
    status = intel_pmu_get_status();
    if (status)
        goto again;
done:
    cpuc->enabled = pmu_enabled;
    if (pmu_enabled)
        __intel_pmu_enable_all();
    apic_write(APIC_LVTPC, APIC_DM_NMI);
    return handled;
}

/* Linux: perf_event_nmi_handler (core.c), registered on NMI_LOCAL. */
static int perf_event_nmi_handler(unsigned type, struct trap_frame *regs)
{
    if (!__atomic_load_n(&active_events, __ATOMIC_RELAXED))
        return NMI_DONE;
    return intel_pmu_handle_irq(regs);
}
