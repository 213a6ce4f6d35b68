/* lapic.h (x86_64) — the local APIC in xAPIC mode: MMIO registers, LVT entries, the timer as a
 * periodic clock event, EOI (Intel SDM vol. 3A ch. 11; Linux arch/x86/include/asm/apicdef.h and
 * arch/x86/kernel/apic/apic.c, whose names these are).  Every CPU sees its own APIC at the same
 * address. */
#ifndef GUEST_LAPIC_H
#define GUEST_LAPIC_H

#include "guest.h"
#include "percpu.h"
#include "trap.h"

#define MSR_IA32_APICBASE           0x1b
#define MSR_IA32_APICBASE_BSP       (1u << 8)
#define MSR_IA32_APICBASE_ENABLE    (1u << 11)
#define MSR_IA32_APICBASE_BASE      0xfffff000u         /* bits 31:12 of the MMIO page */
#define APIC_DEFAULT_PHYS_BASE      0xfee00000u

/* Register offsets (SDM table 11-1). */
#define APIC_ID         0x20            /* APIC ID in bits 31:24 */
#define APIC_LVR        0x30            /* version */
#define APIC_TASKPRI    0x80            /* TPR */
#define APIC_EOI        0xb0
#define APIC_SPIV       0xf0            /* spurious interrupt vector register (SVR) */
#define APIC_ESR        0x280
#define APIC_ICR        0x300
#define APIC_ICR2       0x310
#define APIC_LVTT       0x320           /* LVT timer */
#define APIC_LVTTHMR    0x330           /* LVT thermal */
#define APIC_LVTPC      0x340           /* LVT performance counter */
#define APIC_LVT0       0x350
#define APIC_LVT1       0x360
#define APIC_LVTERR     0x370
#define APIC_TMICT      0x380           /* timer initial count */
#define APIC_TMCCT      0x390           /* timer current count */
#define APIC_TDCR       0x3e0           /* timer divide configuration */

#define APIC_SPIV_APIC_ENABLED  (1u << 8)
#define APIC_VECTOR_MASK        0xffu
#define APIC_DM_FIXED           0x000u  /* LVT delivery mode, bits 10:8 */
#define APIC_DM_NMI             0x400u
#define APIC_LVT_MASKED         (1u << 16)
#define APIC_LVT_TIMER_PERIODIC (1u << 17)
#define APIC_TDR_DIV_1          0xbu
#define APIC_TDR_DIV_16         0x3u

/* Linux's vectors (arch/x86/include/asm/irq_vectors.h). */
#define LOCAL_TIMER_VECTOR      0xec
#define SPURIOUS_APIC_VECTOR    0xff

/* Per-CPU interrupt statistics (Linux: arch/x86/include/asm/hardirq.h).  Each member is written
 * by one kind of handler on its own CPU only; other CPUs may read them. */
typedef struct {
    unsigned __nmi_count;
    unsigned apic_timer_irqs;
    unsigned apic_perf_irqs;
    unsigned irq_spurious_count;
} irq_cpustat_t;

DECLARE_PER_CPU(irq_cpustat_t, irq_stat);
#define inc_irq_stat(member)    this_cpu_inc(irq_stat.member)

/* The timer's clock (the bus clock of the APIC's device-tree node), in Hz; set by lapic_init. */
extern u64 lapic_bus_hz;

/* Boot CPU, before any other call: finds the APIC (IA32_APIC_BASE, the device tree for the
 * timer clock) and installs the timer and spurious-interrupt handlers.  false: no local APIC. */
bool lapic_init(void);
/* Each CPU: TPR 0, software enable with the spurious vector (Linux: setup_local_APIC). */
void setup_local_APIC(void);

u32 apic_read(u32 reg);
void apic_write(u32 reg, u32 v);
/* End of a fixed interrupt.  NMIs have none. */
static inline void apic_eoi(void) { apic_write(APIC_EOI, 0); }
static inline unsigned read_apic_id(void) { return apic_read(APIC_ID) >> 24; }

/* The timer as a periodic clock event: every `ticks` bus clock ticks it calls
 * lapic_timer_event_handler (on the CPU whose timer it is, interrupts off).  Returns -1 if the
 * period does not fit the 32-bit count even with divide-by-16, or is 0 ticks. */
extern void (*lapic_timer_event_handler)(struct trap_frame *regs);
int lapic_timer_set_periodic(u64 ticks);

#endif
