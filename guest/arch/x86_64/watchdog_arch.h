/* watchdog_arch.h (x86_64) — what watchdog.c needs of the architecture: the local APIC timer as
 * the detector's hrtimer, the PMU's overflow as an NMI through LVTPC, the TSC as the clock.
 * Each arch's header gives the same names (arch/arm64/watchdog_arch.h). */
#ifndef GUEST_WATCHDOG_ARCH_H
#define GUEST_WATCHDOG_ARCH_H

#include "guest.h"
#include "kallsyms.h"
#include "lapic.h"
#include "nmi.h"
#include "perf.h"
#include "x86.h"

/* The clock watchdog.c measures time with (busy_until, the report's timestamp): the TSC, at the
 * cpu clock. */
#define WD_CLOCK_NAME       "tsc"
#define WD_CLOCK_LINE       "tsc: Detected %lu.%03lu MHz processor\n"
#define WD_NO_CLOCK_LINE    "tsc: no cpu clock-frequency in the device tree\n"
#define WD_TIMER_NAME       "APIC timer"
#define WD_SPIN_ASM         "1:\tjmp 1b"
#define wd_timer_hz         lapic_bus_hz
#define wd_timer_set_periodic   lapic_timer_set_periodic

static inline u64 wd_clock(void) { return rdtsc(); }
static inline u64 wd_cycles_to_clock(u64 cycles, unsigned long khz) { return cycles; }
static inline void wd_relax(void) { cpu_relax(); }     /* busy_work's PAUSE */
static inline unsigned wd_nmi_count(unsigned cpu) { return per_cpu(irq_stat, cpu).__nmi_count; }

/* lapic_timer_set_periodic's range: 32 bits of count, divided by 1 or 16 */
static inline bool wd_timer_period_ok(u64 ticks) { return ticks && ticks / 16 <= 0xffffffffu; }

/* Boot CPU: the APIC, the NMI path and the PMU; 0, or the exit code. */
static inline int wd_arch_setup(void (*timer_fn)(struct trap_frame *regs))
{
    if (!lapic_init()) {
        printf("watchdog: no local APIC\n");
        return GUEST_EXIT_FAIL;
    }
    nmi_init();
    lapic_timer_event_handler = timer_fn;
    if (init_hw_perf_events()) {
        printf("NMI watchdog: Perf NMI watchdog permanently disabled\n");
        return GUEST_EXIT_FAIL;
    }
    return 0;
}

/* Each CPU: its local APIC, PMIs as NMIs (as Linux's setup_local_APIC does). */
static inline void wd_arch_cpu_start(void)
{
    setup_local_APIC();
    perf_events_lapic_init();
}

/* Linux: show_regs -> show_ip (arch/x86/kernel/dumpstack.c), "RIP: %04x:%pS" of the
 * interrupted frame. */
static inline void show_ip(const struct trap_frame *regs)
{
    unsigned long size, offset;
    const char *name = kallsyms_lookup(regs->rip, &size, &offset);

    if (name)
        printf_nmi("RIP: %04lx:%s+0x%lx/0x%lx\n", regs->cs, name, offset, size);
    else
        printf_nmi("RIP: %04lx:0x%lx\n", regs->cs, regs->rip);
}

#endif
