/* watchdog_arch.h (arm64) — what watchdog.c needs of the architecture (the names of
 * arch/x86_64/watchdog_arch.h): the GICv3 with pseudo-NMIs (gic.h), the physical generic timer
 * as the detector's hrtimer (arch_timer.h), the PMUv3's overflow at NMI priority (perf.h), the
 * generic counter as the clock.  As Linux with irqchip.gicv3_pseudo_nmi=1: interrupts are
 * masked by ICC_PMR_EL1 (local_irq_disable), which the PMU's NMI passes. */
#ifndef GUEST_WATCHDOG_ARCH_H
#define GUEST_WATCHDOG_ARCH_H

#include "guest.h"
#include "arch_timer.h"
#include "gic.h"
#include "kallsyms.h"
#include "percpu.h"
#include "perf.h"

/* Linux arm64 has no cpu_khz and prints no clock line: hw_nmi_get_sample_period
 * (arch/arm64/watchdog_hld.c) takes cpufreq's maximum, which here is the cpu node's clock. */
#define WD_CLOCK_NAME       "cntpct"
#define WD_CLOCK_LINE       "watchdog: cpu clock %lu.%03lu MHz (cpu node clock-frequency)\n"
#define WD_NO_CLOCK_LINE    "watchdog: no cpu clock-frequency in the device tree\n"
#define WD_TIMER_NAME       "arch timer"
/* lkdtm's `for (;;) cpu_relax();` shape, two instructions, with NOP for cpu_relax's YIELD: the
 * engine ends a translated block at every YIELD and leaves its CPU loop (QEMU's DISAS_YIELD ->
 * EXCP_YIELD), which makes a YIELD loop several times slower to simulate (as x86's PAUSE). */
#define WD_SPIN_ASM         "1:\tnop\n\tb 1b"
#define wd_timer_hz         arch_timer_rate
#define wd_timer_set_periodic   arch_timer_set_periodic
#define HZ_PER_KHZ          1000

/* The clock is CNTPCT_EL0, at the timer's rate. */
static inline u64 wd_clock(void) { return arch_counter_get_cntpct(); }
static inline u64 wd_cycles_to_clock(u64 cycles, unsigned long khz)
{
    return cycles * arch_timer_rate / ((u64)khz * HZ_PER_KHZ);
}
static inline unsigned wd_nmi_count(unsigned cpu) { return per_cpu(gic_irq_stat, cpu).nmis; }
/* busy_work's pause between steps: NOP, not YIELD, for the reason above. */
static inline void wd_relax(void) { asm volatile("nop" ::: "memory"); }
/* CVAL is 64 bits: any period of at least a tick. */
static inline bool wd_timer_period_ok(u64 ticks) { return ticks != 0; }

/* Boot CPU: the GIC's distributor, the timer, the PMU; 0, or the exit code. */
static inline int wd_arch_setup(void (*timer_fn)(struct trap_frame *regs))
{
    if (!gic_init()) {
        printf("watchdog: no GICv3\n");
        return GUEST_EXIT_FAIL;
    }
    if (!arch_timer_init()) {
        printf("watchdog: no generic timer with a PPI\n");
        return GUEST_EXIT_FAIL;
    }
    arch_timer_event_handler = timer_fn;
    if (init_hw_perf_events()) {
        printf("NMI watchdog: Perf NMI watchdog permanently disabled\n");
        return GUEST_EXIT_FAIL;
    }
    return 0;
}

/* Each CPU: its redistributor and CPU interface (PMR masking from here on), its PMU. */
static inline void wd_arch_cpu_start(void)
{
    gic_cpu_init();
    armv8pmu_cpu_init();
}

/* Linux: show_regs -> __show_regs (arch/arm64/kernel/process.c), "pc : %pS". */
static inline void show_ip(const struct trap_frame *regs)
{
    unsigned long size, offset;
    const char *name = kallsyms_lookup(regs->elr, &size, &offset);

    if (name)
        printf_nmi("pc : %s+0x%lx/0x%lx\n", name, offset, size);
    else
        printf_nmi("pc : 0x%lx\n", regs->elr);
}

#endif
