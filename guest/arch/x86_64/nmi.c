/* nmi.c (x86_64) — NMI dispatch (see nmi.h), following Linux arch/x86/kernel/nmi.c. */
#include "nmi.h"
#include "lapic.h"
#include "percpu.h"

static struct nmiaction *nmi_desc[NMI_MAX];

DEFINE_PER_CPU(struct nmi_stats, nmi_stats);
static DEFINE_PER_CPU(bool, swallow_nmi);
static DEFINE_PER_CPU(unsigned long, last_nmi_rip);

void register_nmi_handler(unsigned type, struct nmiaction *action)
{
    struct nmiaction **p = &nmi_desc[type];

    while (*p)
        p = &(*p)->next;
    action->next = NULL;
    __atomic_store_n(p, action, __ATOMIC_RELEASE);
}

/* NMIs are edge-triggered: while one is being handled a second one is latched and any further
 * ones are lost, so every handler runs, and each claims what it finds pending. */
static int nmi_handle(unsigned type, struct trap_frame *regs)
{
    int handled = 0;

    for (struct nmiaction *a = __atomic_load_n(&nmi_desc[type], __ATOMIC_ACQUIRE); a; a = a->next)
        handled += a->handler(type, regs);
    return handled;
}

static void unknown_nmi_error(unsigned char reason, struct trap_frame *regs)
{
    int handled = nmi_handle(NMI_UNKNOWN, regs);

    if (handled) {
        this_cpu_add(nmi_stats.unknown, handled);
        return;
    }
    this_cpu_inc(nmi_stats.unknown);
    printf_nmi("Uhhuh. NMI received for unknown reason %02x on CPU %u.\n", reason,
               smp_processor_id());
    printf_nmi("Dazed and confused, but trying to continue\n");
}

/* CPU-local sources first.  Linux then asks the chipset (port 0x61) for a platform NMI
 * reason; the board has no such source, so the reason is 0.  A second NMI at the same RIP right
 * after one whose handlers claimed several events is assumed to be the latched copy of an event
 * already handled, and swallowed. */
static void default_do_nmi(struct trap_frame *regs)
{
    bool b2b = false;

    if (regs->rip == this_cpu_read(last_nmi_rip))
        b2b = true;
    else
        this_cpu_write(swallow_nmi, false);
    this_cpu_write(last_nmi_rip, regs->rip);

    int handled = nmi_handle(NMI_LOCAL, regs);
    this_cpu_add(nmi_stats.normal, handled);
    if (handled) {
        if (handled > 1)
            this_cpu_write(swallow_nmi, true);
        return;
    }
    if (b2b && this_cpu_read(swallow_nmi))
        this_cpu_inc(nmi_stats.swallow);
    else
        unknown_nmi_error(0, regs);
}

/* Linux's exc_nmi also tracks nested NMIs (an IRET from a fault inside the handler would
 * unblock them); nothing here faults or IRETs before the entry code's final IRETQ. */
static void exc_nmi(struct trap_frame *regs)
{
    inc_irq_stat(__nmi_count);
    default_do_nmi(regs);
}

void nmi_init(void)
{
    trap_set_handler(TRAP_NMI, exc_nmi);
}
