/* perf.c (arm64) — the PMUv3 perf driver (register map in perf.h), after Linux 6.12
 * drivers/perf/arm_pmuv3.c (armv8pmu_*) and drivers/perf/arm_pmu.c (armpmu_*). */
#include "perf.h"
#include "gic.h"
#include "percpu.h"
#include "smp.h"

#define ARMV8_PMU_PMCR_E        (1u << 0)
#define ARMV8_PMU_PMCR_P        (1u << 1)
#define ARMV8_PMU_PMCR_C        (1u << 2)
#define ARMV8_PMU_PMCR_LC       (1u << 6)
#define ARMV8_PMU_PMCR_N_SHIFT  11
#define ARMV8_PMU_PMCR_N_MASK   0x1f
#define ARMV8_PMU_EXCLUDE_EL1   (1u << 31)
#define ARMV8_PMU_EXCLUDE_EL0   (1u << 30)
#define ARMV8_PMU_EVTYPE_EVENT  0xffffu
#define ARMV8_PMU_OVERFLOWED_MASK   0xffffffffu
#define ID_AA64DFR0_PMUVER_SHIFT    8
#define ID_AA64DFR0_PMUVER_MASK     0xf
#define ID_AA64DFR0_PMUVER_IMP_DEF  0xf
#define ARMV8_PMU_MAX_PERIOD    0xffffffffull   /* a 32-bit event: arm_pmu_event_max_period */
#define ARMV8_PMU_LONG_BIAS     0xffffffff00000000ull
#define ARMV8_PMU_PPI_ENTRY     0               /* the pmu node's interrupts entry */
#define PERF_EVENTS_MAX         (2 * MAX_CPUS)

#define read_sysreg(r) ({ u64 __v; asm volatile("mrs %0, " #r : "=r"(__v)); __v; })
#define write_sysreg(v, r) asm volatile("msr " #r ", %0" : : "r"((u64)(v)) : "memory")

static unsigned num_event_counters;             /* PMCR_EL0.N */
static int pmu_ppi;
static DEFINE_PER_CPU(struct perf_event *, hw_events[ARMV8_PMU_CYCLE_IDX + 1]);
static struct perf_event perf_event_pool[PERF_EVENTS_MAX];
static bool perf_event_pool_used[PERF_EVENTS_MAX];

/* PERF_TYPE_HARDWARE -> PMUv3 event (Linux: armv8_pmuv3_perf_map); 0: not supported. */
static const u16 armv8_pmuv3_perf_map[PERF_COUNT_HW_MAX] = {
    [PERF_COUNT_HW_CPU_CYCLES] = ARMV8_PMUV3_PERFCTR_CPU_CYCLES,
    [PERF_COUNT_HW_INSTRUCTIONS] = ARMV8_PMUV3_PERFCTR_INST_RETIRED,
};

/* ---- counters */

static void armv8pmu_select(unsigned idx)
{
    write_sysreg(idx, pmselr_el0);
    asm volatile("isb");
}

/* A 32-bit event on the 64-bit cycle counter (PMCR.LC) runs with its top half all ones, so that
 * the counter overflows when the low half wraps (armv8pmu_bias_long_counter). */
static void armv8pmu_write_counter(struct perf_event *event, u64 value)
{
    if (event->hw.idx == ARMV8_PMU_CYCLE_IDX) {
        write_sysreg(value | ARMV8_PMU_LONG_BIAS, pmccntr_el0);
        return;
    }
    armv8pmu_select(event->hw.idx);
    write_sysreg(value, pmxevcntr_el0);
}

static u64 armv8pmu_read_counter(struct perf_event *event)
{
    if (event->hw.idx == ARMV8_PMU_CYCLE_IDX)
        return read_sysreg(pmccntr_el0) & ARMV8_PMU_MAX_PERIOD;
    armv8pmu_select(event->hw.idx);
    return read_sysreg(pmxevcntr_el0);
}

/* Linux: armpmu_event_update.  The delta is modulo the counter's 32 bits. */
static u64 armpmu_event_update(struct perf_event *event)
{
    struct hw_perf_event *hwc = &event->hw;
    u64 now = armv8pmu_read_counter(event);
    u64 delta = (now - hwc->prev_count) & ARMV8_PMU_MAX_PERIOD;

    hwc->prev_count = now;
    event->count += delta;
    hwc->period_left -= delta;
    return now;
}

/* Linux: armpmu_event_set_period.  1 if a sample period completed. */
static int armpmu_event_set_period(struct perf_event *event)
{
    struct hw_perf_event *hwc = &event->hw;
    s64 left = hwc->period_left, period = hwc->sample_period;
    int ret = 0;

    if (left <= -period) {
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
    if (left > (s64)(ARMV8_PMU_MAX_PERIOD >> 1))
        left = ARMV8_PMU_MAX_PERIOD >> 1;
    hwc->prev_count = (u64)-left & ARMV8_PMU_MAX_PERIOD;
    armv8pmu_write_counter(event, hwc->prev_count);
    return ret;
}

/* ---- scheduling (armv8pmu_get_event_idx, armv8pmu_enable_event, armpmu_add) */

static int armv8pmu_get_event_idx(struct perf_event *event)
{
    struct perf_event **slots = this_cpu_ptr(&hw_events[0]);
    u32 evtype = event->hw.config_base & ARMV8_PMU_EVTYPE_EVENT;

    if (evtype == ARMV8_PMUV3_PERFCTR_CPU_CYCLES && !slots[ARMV8_PMU_CYCLE_IDX])
        return ARMV8_PMU_CYCLE_IDX;
    for (unsigned i = 0; i < num_event_counters; i++)
        if (!slots[i])
            return i;
    return -1;
}

/* The counter's type and filters, its interrupt, then the counter itself. */
static void armv8pmu_enable_event(struct perf_event *event)
{
    unsigned idx = event->hw.idx;
    u32 bit = 1u << idx;

    write_sysreg(bit, pmcntenclr_el0);
    if (idx == ARMV8_PMU_CYCLE_IDX) {
        write_sysreg(event->hw.config_base & ~ARMV8_PMU_EVTYPE_EVENT, pmccfiltr_el0);
    } else {
        armv8pmu_select(idx);
        write_sysreg(event->hw.config_base, pmxevtyper_el0);
    }
    write_sysreg(bit, pmintenset_el1);
    write_sysreg(bit, pmcntenset_el0);
}

static void armv8pmu_start(void)
{
    write_sysreg(read_sysreg(pmcr_el0) | ARMV8_PMU_PMCR_E, pmcr_el0);
    asm volatile("isb");
}

static void armv8pmu_stop(void)
{
    write_sysreg(read_sysreg(pmcr_el0) & ~ARMV8_PMU_PMCR_E, pmcr_el0);
    asm volatile("isb");
}

static int armpmu_add(struct perf_event *event)
{
    int idx = armv8pmu_get_event_idx(event);

    if (idx < 0)
        return -1;
    event->hw.idx = idx;
    this_cpu_write(hw_events[idx], event);
    armpmu_event_set_period(event);
    armv8pmu_enable_event(event);
    return 0;
}

/* ---- events */

/* Linux: armpmu_event_init -> __hw_perf_event_init, armv8pmu_set_event_filter. */
static int armpmu_event_init(struct perf_event *event)
{
    const struct perf_event_attr *attr = &event->attr;
    struct hw_perf_event *hwc = &event->hw;
    u64 evtype;

    if (attr->type == PERF_TYPE_HARDWARE)
        evtype = attr->config < PERF_COUNT_HW_MAX ? armv8_pmuv3_perf_map[attr->config] : 0;
    else if (attr->type == PERF_TYPE_RAW)
        evtype = attr->config & ARMV8_PMU_EVTYPE_EVENT;
    else
        return -1;
    if (!evtype && attr->type == PERF_TYPE_HARDWARE)
        return -1;
    hwc->config_base = evtype;
    if (attr->exclude_kernel)
        hwc->config_base |= ARMV8_PMU_EXCLUDE_EL1;
    if (attr->exclude_user)
        hwc->config_base |= ARMV8_PMU_EXCLUDE_EL0;
    hwc->idx = -1;
    /* A counting event still takes an interrupt when its counter wraps, to fold it into count. */
    hwc->sample_period = attr->sample_period ? attr->sample_period : ARMV8_PMU_MAX_PERIOD >> 1;
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

struct perf_event *perf_event_create_kernel_counter(const struct perf_event_attr *attr,
                                                    unsigned cpu,
                                                    perf_overflow_handler_t overflow_handler,
                                                    void *context)
{
    if (cpu != smp_processor_id() || !num_event_counters)
        return NULL;
    struct perf_event *event = perf_event_alloc();
    if (!event)
        return NULL;
    event->attr = *attr;
    event->cpu = cpu;
    event->overflow_handler = overflow_handler;
    event->overflow_handler_context = context;
    if (armpmu_event_init(event) || (!attr->disabled && perf_event_enable(event))) {
        perf_event_release_kernel(event);
        return NULL;
    }
    return event;
}

int perf_event_enable(struct perf_event *event)
{
    if (event->active)
        return 0;
    armv8pmu_stop();
    int err = armpmu_add(event);
    if (!err)
        event->active = true;
    armv8pmu_start();
    return err;
}

/* Linux: armpmu_del -> armv8pmu_disable_event, then the count brought up to date.  Also from
 * the event's own overflow handler, which runs on its CPU with the PMU stopped
 * (armv8pmu_handle_irq): Linux defers that case to irq_work (perf_event_disable_inatomic); here
 * the counter stops at once, so that its last overflow is the last one handled. */
void perf_event_disable(struct perf_event *event)
{
    if (!event->active)
        return;
    u32 bit = 1u << event->hw.idx;

    write_sysreg(bit, pmcntenclr_el0);
    write_sysreg(bit, pmintenclr_el1);
    asm volatile("isb");
    armpmu_event_update(event);
    this_cpu_write(hw_events[event->hw.idx], NULL);
    event->hw.idx = -1;
    event->active = false;
}

void perf_event_release_kernel(struct perf_event *event)
{
    if (event->active)
        return;
    __atomic_store_n(&perf_event_pool_used[event - perf_event_pool], false, __ATOMIC_RELEASE);
}

/* ---- the overflow NMI (Linux: armv8pmu_handle_irq) */

/* Read and clear the overflow flags (armv8pmu_getreset_flags). */
static u32 armv8pmu_getreset_flags(void)
{
    u32 value = read_sysreg(pmovsclr_el0) & ARMV8_PMU_OVERFLOWED_MASK;

    write_sysreg(value, pmovsclr_el0);
    asm volatile("isb");
    return value;
}

static void armv8pmu_handle_one(struct perf_event *event, struct trap_frame *regs)
{
    struct perf_sample_data data;

    armpmu_event_update(event);
    data.period = event->hw.last_period;
    if (!armpmu_event_set_period(event))
        return;
    if (event->attr.sample_period && event->overflow_handler)
        event->overflow_handler(event, &data, regs);
}

static void armv8pmu_handle_irq(struct trap_frame *regs)
{
    u32 pmovsr = armv8pmu_getreset_flags();

    if (!pmovsr)
        return;
    armv8pmu_stop();
    for (unsigned idx = 0; idx <= ARMV8_PMU_CYCLE_IDX; idx++) {
        struct perf_event *event = this_cpu_read(hw_events[idx]);
        if (event && (pmovsr & 1u << idx))
            armv8pmu_handle_one(event, regs);
    }
    armv8pmu_start();
}

/* ---- probing and per-CPU setup */

int init_hw_perf_events(void)
{
    u64 dfr0 = read_sysreg(id_aa64dfr0_el1);
    unsigned pmuver = dfr0 >> ID_AA64DFR0_PMUVER_SHIFT & ID_AA64DFR0_PMUVER_MASK;

    pmu_ppi = gic_node_ppi("arm,armv8-pmuv3", ARMV8_PMU_PPI_ENTRY);
    if (!pmuver || pmuver == ID_AA64DFR0_PMUVER_IMP_DEF || pmu_ppi < 0) {
        printf("hw perfevents: no PMUv3 or no interrupt for it\n");
        return -1;
    }
    num_event_counters = read_sysreg(pmcr_el0) >> ARMV8_PMU_PMCR_N_SHIFT & ARMV8_PMU_PMCR_N_MASK;
    gic_request_percpu(pmu_ppi, armv8pmu_handle_irq, true);
    /* + 1: the cycle counter (Linux counts it among the "counters available") */
    printf("hw perfevents: enabled with armv8_pmuv3 PMU driver, %u counters available\n",
           num_event_counters + 1);
    return 0;
}

/* Linux: armv8pmu_reset: everything off and clear, both counter kinds reset, 64-bit cycle
 * counter; no EL0 access. */
void armv8pmu_cpu_init(void)
{
    write_sysreg(ARMV8_PMU_OVERFLOWED_MASK, pmcntenclr_el0);
    write_sysreg(ARMV8_PMU_OVERFLOWED_MASK, pmintenclr_el1);
    write_sysreg(ARMV8_PMU_OVERFLOWED_MASK, pmovsclr_el0);
    write_sysreg(0, pmuserenr_el0);
    write_sysreg(ARMV8_PMU_PMCR_P | ARMV8_PMU_PMCR_C | ARMV8_PMU_PMCR_LC, pmcr_el0);
    asm volatile("isb");
    gic_enable_percpu(pmu_ppi);
}
