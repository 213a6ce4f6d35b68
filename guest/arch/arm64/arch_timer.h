/* arch_timer.h (arm64) — the EL1 physical generic timer as a periodic clock event (Linux:
 * drivers/clocksource/arm_arch_timer.c, with the periodic tick a hrtimer would give).
 *
 * Register map (Arm ARM DDI 0487, D11 "The Generic Timer in AArch64 state"; system registers):
 *   CNTFRQ_EL0     the counter's rate in Hz (the tree's /timer clock-frequency wins, as in Linux)
 *   CNTPCT_EL0     the physical count
 *   CNTP_CTL_EL0   ENABLE 0, IMASK 1, ISTATUS 2 (read-only)
 *   CNTP_CVAL_EL0  the compare value: the line is high while CNTPCT >= CVAL, enabled, unmasked
 * Its interrupt is the PPI of entry 1 of the timer node's `interrupts` (Linux's
 * ARCH_TIMER_PHYS_NONSECURE_PPI; INTID 30 on QEMU virt). */
#ifndef GUEST_ARCH_TIMER_H
#define GUEST_ARCH_TIMER_H

#include "guest.h"
#include "trap.h"

extern u64 arch_timer_rate;             /* Hz, set by arch_timer_init */

/* Boot CPU, after gic_init: the rate and the PPI, Linux's "arch_timer: ..." line, the handler
 * registered.  false: no usable timer in the tree. */
bool arch_timer_init(void);
/* The periodic event: every `ticks` counter ticks, arch_timer_event_handler runs on the CPU
 * whose timer it is (PSTATE.I set).  Starts this CPU's timer; -1 for 0 ticks. */
extern void (*arch_timer_event_handler)(struct trap_frame *regs);
int arch_timer_set_periodic(u64 ticks);

static inline u64 arch_counter_get_cntpct(void)
{
    u64 v;

    asm volatile("isb; mrs %0, cntpct_el0" : "=r"(v) : : "memory");
    return v;
}

#endif
