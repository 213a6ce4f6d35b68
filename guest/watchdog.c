/* watchdog (x86_64, arm64): Linux's NMI hard-lockup detector and a CPU that locks up under it.
 * x86_64: the local APIC and the architectural PMU's overflow as an NMI; arm64: the GICv3 with
 * the PMUv3's overflow as a pseudo-NMI (irqchip.gicv3_pseudo_nmi=1).  What differs is behind
 * arch/<arch>/watchdog_arch.h.
 *
 * Each CPU runs the detector as Linux does (kernel/watchdog.c, kernel/watchdog_hld.c,
 * arch/x86/kernel/apic/hw_nmi.c, arch/arm64/watchdog_hld.c): a periodic timer (Linux's watchdog
 * hrtimer, here the LAPIC timer or the generic timer) counts hrtimer_interrupts every watchdog_thresh * 2/5; a pinned perf event counting CPU
 * cycles overflows every watchdog_thresh worth of cycles into an NMI (arch/<arch>/perf.c), whose
 * callback reports a hard lockup when the count has not moved since the previous NMI.  One CPU
 * then disables interrupts and spins; the others keep busy.  CPU 0 ends the run after
 * watchdog_runs thresholds with a per-CPU summary.
 *
 * Bootargs (/chosen/bootargs, all optional; unknown words are ignored, as by Linux):
 *   nolockup            no CPU locks up
 *   watchdog_thresh=N   the threshold, 1..60 (default 10)
 *   watchdog_unit=U     its unit: s, ms or us (default ms).  Linux's is always seconds; ms keeps
 *                       a simulated run short
 *   watchdog_runs=K     thresholds CPU 0 runs, from when every CPU is up, >= 3 (default 5): the
 *                       lockup is reported within two
 *   lockup_cpu=N        the CPU that locks up, 1..cpus-1 (default the last; none with 1 CPU).
 *                       CPU 0 runs the scenario, so it cannot be the one
 *   lockup_by=inject    that CPU does not lock itself up: it keeps busy like the others until
 *                       pmusim's fault injection stalls it (--inject stall:cpu=N:cycle=C,
 *                       docs/debugging.md "Fault injection"); the summary still expects the
 *                       lockup reported on it
 *   watchdog_detector=buddy
 *                       Linux's buddy detector (kernel/watchdog_buddy.c, what Debian's arm64
 *                       kernel runs) instead of the perf NMI: no PMU event, each CPU's timer
 *                       checks that the next CPU's timer ran; the report comes from that CPU
 * A bad value is reported and ignored.
 *
 * The output is the same on every run: only CPU 0 prints at boot, the lockup CPU prints its
 * line and the NMI's report, CPU 0 prints the summary at least a threshold after the report;
 * the other CPUs never print.  The counts in the summary follow from the simulated timing. */
#include "guest.h"
#include "cmdline.h"
#include "fdt.h"
#include "percpu.h"
#include "smp.h"
#include "watchdog_arch.h"

#define MIN_RUNS            3
#define START_TIMEOUT_MS    100         /* for the secondaries to start their detectors */

/* ---- parameters (Linux: __setup handlers, init/main.c obsolete_checksetup) */

static const struct {
    const char *name;
    u64 per_second;
} units[] = { { "s", 1 }, { "ms", 1000 }, { "us", 1000000 } };

static unsigned watchdog_thresh = 10;
static unsigned watchdog_unit = 1;                  /* index in units[]: ms */
static unsigned watchdog_runs = 5;
static bool nolockup;
static int lockup_cpu = -1;                         /* -1: the default */
static bool lockup_injected;                        /* lockup_by=inject */
static bool buddy;                                  /* watchdog_detector=buddy */

static bool nolockup_setup(const char *val, size_t len)
{
    nolockup = true;
    return true;
}

static bool watchdog_thresh_setup(const char *val, size_t len)
{
    unsigned v;

    if (!parse_uint(val, len, 60, &v) || !v)
        return false;
    watchdog_thresh = v;
    return true;
}

static bool watchdog_unit_setup(const char *val, size_t len)
{
    for (unsigned i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (param_is(val, len, units[i].name)) {
            watchdog_unit = i;
            return true;
        }
    return false;
}

static bool watchdog_runs_setup(const char *val, size_t len)
{
    unsigned v;

    if (!parse_uint(val, len, 1000000, &v) || v < MIN_RUNS)
        return false;
    watchdog_runs = v;
    return true;
}

static bool lockup_cpu_setup(const char *val, size_t len)
{
    unsigned v;

    if (!parse_uint(val, len, MAX_CPUS, &v) || v < 1 || v >= nr_cpus)
        return false;
    lockup_cpu = v;
    return true;
}

static bool lockup_by_setup(const char *val, size_t len)
{
    if (!param_is(val, len, "inject"))
        return false;
    lockup_injected = true;
    return true;
}

static bool watchdog_detector_setup(const char *val, size_t len)
{
    if (param_is(val, len, "buddy"))
        buddy = true;
    else if (!param_is(val, len, "perf"))
        return false;
    return true;
}

static const struct kernel_param setup_params[] = {
    { "nolockup", nolockup_setup },
    { "watchdog_thresh=", watchdog_thresh_setup },
    { "watchdog_unit=", watchdog_unit_setup },
    { "watchdog_runs=", watchdog_runs_setup },
    { "lockup_cpu=", lockup_cpu_setup },
    { "lockup_by=", lockup_by_setup },
    { "watchdog_detector=", watchdog_detector_setup },
};

/* ---- time */

static unsigned long cpu_khz;

/* Linux: tsc_init (arch/x86/kernel/tsc.c).  Linux measures the clock; the board states it: the
 * first cpu node's clock-frequency, which is also the rate of the cycles the PMU counts (and on
 * x86 of RDTSC). */
static int tsc_init(void)
{
    int node = boot_fdt ? fdt_first_cpu(boot_fdt) : -1, len;
    const void *p = node >= 0 ? fdt_prop(boot_fdt, node, "clock-frequency", &len) : NULL;

    if (p && (len == 4 || len == 8))
        cpu_khz = fdt_read_cells(p, len / 4) / 1000;
    if (!cpu_khz) {
        printf(WD_NO_CLOCK_LINE);
        return -1;
    }
    printf(WD_CLOCK_LINE, cpu_khz / 1000, cpu_khz % 1000);
    return 0;
}

/* Linux: hw_nmi_get_sample_period (arch/x86/kernel/apic/hw_nmi.c, arch/arm64/watchdog_hld.c),
 * cpu_khz * 1000 * watchdog_thresh for a threshold in seconds; cycles per threshold in any
 * unit. */
static u64 hw_nmi_get_sample_period(unsigned thresh)
{
    return (u64)cpu_khz * 1000 * thresh / units[watchdog_unit].per_second;
}

/* Linux: set_sample_period (kernel/watchdog.c), watchdog_thresh * 2 / 5 (get_softlockup_thresh()
 * * NSEC_PER_SEC / 5), in ns and in ticks of the timer's clock. */
static u64 watchdog_sample_period_ns(void)
{
    return (u64)watchdog_thresh * 400000000 / units[watchdog_unit].per_second;
}

static u64 watchdog_sample_period_ticks(void)
{
    return wd_timer_hz * watchdog_thresh * 2 / 5 / units[watchdog_unit].per_second;
}

/* ---- the detector (kernel/watchdog.c, kernel/watchdog_hld.c) */

static DEFINE_PER_CPU(unsigned long, hrtimer_interrupts);
static DEFINE_PER_CPU(unsigned long, hrtimer_interrupts_saved);
static DEFINE_PER_CPU(bool, hard_watchdog_warn);
static DEFINE_PER_CPU(struct perf_event *, watchdog_ev);
static DEFINE_PER_CPU(unsigned, hardlockup_reports);  /* for the summary */
static unsigned watchdog_cpus;                         /* CPUs whose detector is on */

static const struct perf_event_attr wd_hw_attr_template = {
    .type = PERF_TYPE_HARDWARE,
    .config = PERF_COUNT_HW_CPU_CYCLES,
    .pinned = true,
    .disabled = true,
};

/* Linux: is_hardlockup (kernel/watchdog.c).  The NMI comes every watchdog_thresh, the timer 2.5
 * times as often: a count that has not moved means interrupts have been off for a whole period. */
static bool is_hardlockup(void)
{
    unsigned long hrint = this_cpu_read(hrtimer_interrupts);

    if (this_cpu_read(hrtimer_interrupts_saved) == hrint)
        return true;
    this_cpu_write(hrtimer_interrupts_saved, hrint);
    return false;
}

/* ---- the buddy detector (kernel/watchdog_buddy.c, watchdog_hardlockup_check in
 * kernel/watchdog.c) */

#define BUDDY_CHECK_EVERY 3     /* timer ticks: 3 * thresh * 2/5, just over watchdog_thresh */

static unsigned buddy_cpus;                             /* mask of CPUs whose detector is on */
static DEFINE_PER_CPU(bool, buddy_touched);             /* skip the next check of this CPU */

/* Linux: watchdog_next_cpu: the next CPU of the mask after cpu, round; -1 if none but cpu. */
static int buddy_next_cpu(unsigned cpu)
{
    unsigned mask = __atomic_load_n(&buddy_cpus, __ATOMIC_ACQUIRE);

    for (unsigned i = 1; i < nr_cpus; i++) {
        unsigned next = (cpu + i) % nr_cpus;
        if (mask & (1u << next))
            return next;
    }
    return -1;
}

/* Linux: watchdog_hardlockup_enable (buddy): touch this CPU and the next, so that neither is
 * checked before its timer has run, then join the mask. */
static void buddy_enable(void)
{
    unsigned cpu = smp_processor_id();
    int next = buddy_next_cpu(cpu);

    per_cpu(buddy_touched, cpu) = true;
    if (next >= 0)
        per_cpu(buddy_touched, next) = true;
    __atomic_fetch_or(&buddy_cpus, 1u << cpu, __ATOMIC_RELEASE);
}

/* Linux: is_hardlockup of another CPU (its count written by that CPU's timer, the saved one
 * only by the CPU checking it). */
static bool buddy_is_hardlockup(unsigned cpu)
{
    unsigned long hrint = __atomic_load_n(&per_cpu(hrtimer_interrupts, cpu), __ATOMIC_RELAXED);

    if (per_cpu(hrtimer_interrupts_saved, cpu) == hrint)
        return true;
    per_cpu(hrtimer_interrupts_saved, cpu) = hrint;
    return false;
}

/* Linux: watchdog_hardlockup_check(next_cpu, NULL) from watchdog_buddy_check_hardlockup, in the
 * timer interrupt of the checking CPU.  Linux then asks the locked CPU for its backtrace (an
 * IPI it cannot take with interrupts masked); this prints the checking CPU and the time. */
static void buddy_check(unsigned long hrint)
{
    int cpu = hrint % BUDDY_CHECK_EVERY ? -1 : buddy_next_cpu(smp_processor_id());

    if (cpu < 0)
        return;
    if (per_cpu(buddy_touched, cpu)) {
        per_cpu(buddy_touched, cpu) = false;
        return;
    }
    if (!buddy_is_hardlockup(cpu)) {
        per_cpu(hard_watchdog_warn, cpu) = false;
        return;
    }
    if (per_cpu(hard_watchdog_warn, cpu))
        return;
    printf_nmi("watchdog: Watchdog detected hard LOCKUP on cpu %d\n", cpu);
    printf_nmi("watchdog: cpu %u: lockup of cpu %d found at " WD_CLOCK_NAME "=%llu\n", smp_processor_id(), cpu,
               (unsigned long long)wd_clock());
    __atomic_fetch_add(&per_cpu(hardlockup_reports, cpu), 1, __ATOMIC_RELAXED);
    per_cpu(hard_watchdog_warn, cpu) = true;
}

/* Linux: watchdog_timer_fn -> watchdog_interrupt_count (kernel/watchdog.c): the "kick" the
 * NMI looks for. */
static void watchdog_timer_fn(struct trap_frame *regs)
{
    this_cpu_inc(hrtimer_interrupts);
}

/* The same with the buddy detector (watchdog_hardlockup_kick): then the check of the next CPU.
 * A handler of its own, so that the perf detector's runs execute what they always did. */
static void watchdog_buddy_timer_fn(struct trap_frame *regs)
{
    this_cpu_inc(hrtimer_interrupts);
    buddy_check(this_cpu_read(hrtimer_interrupts));
}

/* Linux: watchdog_overflow_callback (kernel/watchdog_hld.c), the event's overflow handler, in
 * NMI context.  A lockup is reported once until the CPU's timer runs again.  The tsc line is
 * pmusim's addition: the exact simulated time of the NMI that found it (the TSC, or CNTPCT). */
static void watchdog_overflow_callback(struct perf_event *event, struct perf_sample_data *data,
                                       struct trap_frame *regs)
{
    u64 tsc = wd_clock();

    if (!is_hardlockup()) {
        this_cpu_write(hard_watchdog_warn, false);
        return;
    }
    if (this_cpu_read(hard_watchdog_warn))
        return;
    unsigned cpu = smp_processor_id();
    printf_nmi("NMI watchdog: Watchdog detected hard LOCKUP on cpu %u\n", cpu);
    show_ip(regs);
    printf_nmi("NMI watchdog: cpu %u: lockup NMI at " WD_CLOCK_NAME "=%llu\n", cpu,
               (unsigned long long)tsc);
    this_cpu_inc(hardlockup_reports);
    this_cpu_write(hard_watchdog_warn, true);
}

/* Linux: hardlockup_detector_event_create (kernel/watchdog_hld.c). */
static int hardlockup_detector_event_create(void)
{
    struct perf_event_attr wd_attr = wd_hw_attr_template;

    wd_attr.sample_period = hw_nmi_get_sample_period(watchdog_thresh);
    struct perf_event *evt = perf_event_create_kernel_counter(&wd_attr, smp_processor_id(),
                                                              watchdog_overflow_callback, NULL);
    if (!evt)
        return -1;
    this_cpu_write(watchdog_ev, evt);
    return 0;
}

/* Linux: hardlockup_detector_perf_init (kernel/watchdog_hld.c), on the boot CPU before any detector
 * starts: can the PMU count the event at all? */
static int hardlockup_detector_perf_init(void)
{
    if (hardlockup_detector_event_create()) {
        printf("NMI watchdog: Perf NMI watchdog permanently disabled\n");
        return -1;
    }
    perf_event_release_kernel(this_cpu_read(watchdog_ev));
    this_cpu_write(watchdog_ev, NULL);
    return 0;
}

/* Linux: hardlockup_detector_perf_enable (kernel/watchdog_hld.c).  The first CPU to get here prints
 * the message. */
static void hardlockup_detector_perf_enable(void)
{
    if (hardlockup_detector_event_create()) {
        printf("NMI watchdog: cpu %u: cannot create the perf event\n", smp_processor_id());
        return;
    }
    if (!__atomic_fetch_add(&watchdog_cpus, 1, __ATOMIC_RELAXED))
        printf("NMI watchdog: Enabled. Permanently consumes one hw-PMU counter.\n");
    if (perf_event_enable(this_cpu_read(watchdog_ev)))
        printf("NMI watchdog: cpu %u: no PMU counter free for the watchdog\n", smp_processor_id());
}

/* Linux: watchdog_enable (kernel/watchdog.c).  The timer starts first, so that the first NMI finds
 * it running. */
static void watchdog_enable(void)
{
    wd_timer_set_periodic(watchdog_sample_period_ticks());
    if (buddy)
        buddy_enable();
    else
        hardlockup_detector_perf_enable();
}

/* ---- the scenario */

static unsigned cpus_started;
static DEFINE_PER_CPU(u64, work_result);

/* Each CPU: its interrupt controller and PMU interrupt, the detector, then interrupts on. */
static void watchdog_cpu_start(void)
{
    wd_arch_cpu_start();
    watchdog_enable();
    local_irq_enable();
}

/* The hard lockup, as Linux's lkdtm HARDLOCKUP test makes one: interrupts off, spinning.
 * noinline so that the NMI's RIP falls in its own symbol.  lkdtm spins on cpu_relax(); the
 * engine ends a translated block at every PAUSE and leaves its CPU loop (QEMU's helper_pause),
 * which makes a PAUSE loop about 7 times slower to simulate than a bare jump to itself, so this
 * is the bare jump, written in asm so that the compiler keeps it as it is.  On arm64 the
 * interrupts go off as Linux's pseudo-NMI local_irq_disable does it: ICC_PMR_EL1. */
static __attribute__((noinline)) __noreturn void lockup_spin(void)
{
    local_irq_disable();
    asm volatile(WD_SPIN_ASM);
    __builtin_unreachable();
}

/* Deterministic busy work: xorshift steps with a PAUSE each (a NOP on arm64: watchdog_arch.h).
 * Never HLT or WFI: CPU_CLK_UNHALTED does not count halted cycles, so a halted CPU's NMIs would
 * stop. */
static __attribute__((noinline)) u64 busy_work(u64 x, unsigned steps)
{
    for (unsigned i = 0; i < steps; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        wd_relax();
    }
    return x;
}

static void busy_step(void)
{
    this_cpu_write(work_result, busy_work(this_cpu_read(work_result) | 1, 1000));
}

/* Busy until `ticks` of the clock have passed since start, by this CPU's clock. */
static void busy_until(u64 start, u64 ticks)
{
    while (wd_clock() - start < ticks)
        busy_step();
}

static void secondary_main(unsigned cpu)
{
    watchdog_cpu_start();
    if ((int)cpu == lockup_cpu && !lockup_injected) {
        printf("watchdog: cpu %u: disabling interrupts and spinning\n", cpu);
        __atomic_add_fetch(&cpus_started, 1, __ATOMIC_RELEASE);
        lockup_spin();
    }
    __atomic_add_fetch(&cpus_started, 1, __ATOMIC_RELEASE);
    for (;;)
        busy_step();
}

/* The boot CPU's part before the detector starts: the clocks, the CPUs, the APIC, the PMU and
 * the parameters.  0, or the exit code. */
static int watchdog_setup(void)
{
    if (tsc_init())
        return GUEST_EXIT_FAIL;
    smp_init();
    parse_bootargs(cmdline_bootargs(), setup_params, sizeof(setup_params) / sizeof(setup_params[0]),
                   "watchdog");
    int err = wd_arch_setup(buddy ? watchdog_buddy_timer_fn : watchdog_timer_fn);
    if (err)
        return err;
    if (nolockup || nr_cpus == 1)
        lockup_cpu = -1;
    else if (lockup_cpu < 0)
        lockup_cpu = nr_cpus - 1;
    if (!wd_timer_period_ok(watchdog_sample_period_ticks())) {
        printf("watchdog: the " WD_TIMER_NAME " cannot tick every %llu ns\n",
               (unsigned long long)watchdog_sample_period_ns());
        return GUEST_EXIT_FAIL;
    }
#define CONFIG_LINE "watchdog: thresh=%u%s hrtimer_period=%lluns sample_period=%llu cpus=%u " \
        "lockup_cpu="
#define CONFIG_ARGS watchdog_thresh, units[watchdog_unit].name, \
        (unsigned long long)watchdog_sample_period_ns(), \
        (unsigned long long)hw_nmi_get_sample_period(watchdog_thresh), nr_cpus
    if (lockup_cpu < 0)
        printf(CONFIG_LINE "none\n", CONFIG_ARGS);
    else
        printf(CONFIG_LINE "%d\n", CONFIG_ARGS, lockup_cpu);
    if (buddy)
        printf("watchdog: hard-lockup detector: buddy (each cpu checks the next one's timer)\n");
    if (lockup_injected && lockup_cpu >= 0)
        printf("watchdog: cpu %d locks up by fault injection\n", lockup_cpu);
    return buddy || !hardlockup_detector_perf_init() ? 0 : GUEST_EXIT_FAIL;
}

/* One line per CPU, then whether each CPU took NMIs and the right CPUs reported lockups. */
static int watchdog_summary(void)
{
    int failed = 0;

    for (unsigned cpu = 0; cpu < nr_cpus; cpu++) {
        unsigned nmis = wd_nmi_count(cpu);
        unsigned lockups = per_cpu(hardlockup_reports, cpu);
        bool locked_up = (int)cpu == lockup_cpu;

        printf("watchdog: cpu %u: hrtimer_interrupts=%lu nmis=%u lockups=%u\n", cpu,
               per_cpu(hrtimer_interrupts, cpu), nmis, lockups);
        if ((!nmis && !buddy) || (lockups > 0) != locked_up)
            failed = 1;
    }
    return failed;
}

int main(void)
{
    int err = watchdog_setup();

    if (err)
        return err;
    u64 thresh_ticks = wd_cycles_to_clock(hw_nmi_get_sample_period(watchdog_thresh), cpu_khz);
    /* Secondaries start within a scheduling round; waiting longer means one never will. */
    u64 start_timeout = wd_cycles_to_clock((u64)cpu_khz * START_TIMEOUT_MS, cpu_khz);

    watchdog_cpu_start();
    smp_boot_secondaries(secondary_main);
    u64 start = wd_clock();
    while (__atomic_load_n(&cpus_started, __ATOMIC_ACQUIRE) < nr_cpus - 1) {
        if (wd_clock() - start >= start_timeout) {
            printf("watchdog: only %u of %u cpus started\n",
                   __atomic_load_n(&cpus_started, __ATOMIC_ACQUIRE) + 1, nr_cpus);
            return GUEST_EXIT_FAIL;
        }
        busy_step();
    }
    busy_until(wd_clock(), watchdog_runs * thresh_ticks);
    if (watchdog_summary()) {
        printf("watchdog: FAILED\n");
        return GUEST_EXIT_FAIL;
    }
    printf("watchdog: done\n");
    return 0;
}
