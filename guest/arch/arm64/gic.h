/* gic.h (arm64) — a GICv3 driver as Linux's drivers/irqchip/irq-gic-v3.c runs it with
 * irqchip.gicv3_pseudo_nmi=1, and the priority-mask "irqflags" that go with it
 * (arch/arm64/include/asm/irqflags.h, ptrace.h).
 *
 * Register map (GIC architecture IHI 0069H, chapter 12; Linux include/linux/irqchip/arm-gic-v3.h):
 *   distributor (the tree's 1st reg)      GICD_CTLR 0x0000 (RWP 31, ARE_NS 4, EnableGrp1A 1,
 *                                         EnableGrp1 0), GICD_TYPER 0x0004 (ITLinesNumber 4:0),
 *                                         IGROUPR 0x0080, ISENABLER 0x0100, ICENABLER 0x0180,
 *                                         ICACTIVER 0x0380, IPRIORITYR 0x0400, ICFGR 0x0c00,
 *                                         IROUTER 0x6000 (64-bit per INTID)
 *   redistributor RD frame (2nd reg,      GICR_CTLR 0x0000 (RWP 3), GICR_TYPER 0x0008 (64-bit:
 *     128 KiB per CPU)                    affinity 63:32, Last 4), GICR_WAKER 0x0014
 *                                         (ProcessorSleep 1, ChildrenAsleep 2)
 *   redistributor SGI frame (RD + 64 KiB) GICR_IGROUPR0 0x0080, ISENABLER0 0x0100, ICENABLER0
 *                                         0x0180, ICACTIVER0 0x0380, IPRIORITYR 0x0400
 *   CPU interface (system registers)      ICC_PMR_EL1, ICC_IAR1_EL1, ICC_EOIR1_EL1, ICC_RPR_EL1,
 *                                         ICC_BPR1_EL1, ICC_CTLR_EL1 (EOImode 1, PMHE 6),
 *                                         ICC_SRE_EL1 (SRE 0), ICC_IGRPEN1_EL1 (Enable 0)
 *
 * Pseudo-NMI (Linux, irqflags.h with system_uses_irq_prio_masking()): PSTATE.I stays clear while
 * a CPU runs; "interrupts off" is ICC_PMR_EL1 = GIC_PRIO_IRQOFF (0x60), "on" GIC_PRIO_IRQON (0xe0).
 * Normal interrupts have priority GICD_INT_DEF_PRI (0xa0), masked by 0x60; an NMI has
 * GICD_INT_NMI_PRI (0x20), taken under 0x60 as well.  The IRQ entry tells them apart by the
 * running priority after the acknowledge (gic_rpr_is_nmi_prio). */
#ifndef GUEST_GIC_H
#define GUEST_GIC_H

#include "guest.h"
#include "percpu.h"
#include "trap.h"

#define GIC_PRIO_IRQON          0xe0    /* ptrace.h: PMR while interrupts are on */
#define GIC_PRIO_IRQOFF         0x60    /* ptrace.h: PMR while they are off (NMIs still pass) */
#define GICD_INT_DEF_PRI        0xa0    /* arm-gic-common.h: every normal interrupt */
#define GICD_INT_NMI_PRI        (GICD_INT_DEF_PRI & ~0x80)      /* irq-gic-v3.c: 0x20 */

#define GIC_NR_PRIVATE          32      /* SGIs 0..15 and PPIs 16..31 */
#define GIC_PPI_BASE            16      /* a tree's PPI n is INTID 16 + n */
#define ICC_IAR1_INTID_MASK     0xffffffu
#define GIC_INTID_SPECIAL       1020    /* 1020..1023: special, 1023 spurious */

/* Linux's pseudo-NMI local_irq_enable/disable (irqflags.h, __pmr_local_irq_*): the priority
 * mask only; PSTATE.I is left clear.  A write to ICC_PMR_EL1 is self-synchronising for the
 * interrupts it masks (IHI 0069H, 12.7.x "ICC_PMR_EL1"), and ICC_CTLR_EL1.PMHE is 0 here, so
 * Linux's pmr_sync() (a DSB) has nothing to do. */
static inline void local_irq_enable(void)
{
    asm volatile("msr icc_pmr_el1, %0" : : "r"((unsigned long)GIC_PRIO_IRQON) : "memory");
}

static inline void local_irq_disable(void)
{
    asm volatile("msr icc_pmr_el1, %0" : : "r"((unsigned long)GIC_PRIO_IRQOFF) : "memory");
}

/* A private interrupt's handler: runs on the CPU that took it, PSTATE.I set. */
typedef void (*gic_handler_t)(struct trap_frame *regs);

/* Per-CPU counts (Linux: irq_stat's __nmi_count, and the spurious count). */
struct gic_irq_stat {
    unsigned nmis, irqs, spurious;
};
DECLARE_PER_CPU(struct gic_irq_stat, gic_irq_stat);

/* Boot CPU, once: finds the GIC in the device tree, initialises the distributor (Linux:
 * gic_init_bases -> gic_dist_init) and installs the IRQ entry.  Prints Linux's "GICv3: ..."
 * lines.  false: no usable GICv3. */
bool gic_init(void);
/* Each CPU: wakes its redistributor, configures its SGIs/PPIs and its CPU interface with
 * interrupts masked by PMR, then clears PSTATE.I (Linux: gic_cpu_init, gic_cpu_sys_reg_init,
 * then local_daif_restore(DAIF_PROCCTX_NOIRQ)). */
void gic_cpu_init(void);
/* The INTID of entry `index` of a node's `interrupts` (a PPI: <1 n flags>), or -1. */
int gic_node_ppi(const char *compatible, unsigned index);
/* A private interrupt for every CPU (Linux: request_percpu_irq / request_percpu_nmi) and, on the
 * calling CPU, its priority and enable (enable_percpu_irq / enable_percpu_nmi). */
void gic_request_percpu(unsigned intid, gic_handler_t handler, bool nmi);
void gic_enable_percpu(unsigned intid);

#endif
