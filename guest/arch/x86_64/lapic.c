/* lapic.c (x86_64) — the local APIC (see lapic.h); follows Linux arch/x86/kernel/apic/apic.c. */
#include "lapic.h"
#include "fdt.h"
#include "x86.h"

#define CPUID_1_EDX_APIC        (1u << 9)
#define DEFAULT_BUS_HZ          100000000u      /* the pc board's APIC clock */

DEFINE_PER_CPU(irq_cpustat_t, irq_stat);
u64 lapic_bus_hz;
void (*lapic_timer_event_handler)(struct trap_frame *regs);

static volatile u32 *apic_mmio;

u32 apic_read(u32 reg)
{
    return apic_mmio[reg / 4];
}

void apic_write(u32 reg, u32 v)
{
    apic_mmio[reg / 4] = v;
}

/* Linux: sysvec_apic_timer_interrupt -> local_apic_timer_interrupt -> the clock event's
 * handler.  Linux acks first; acking last is the same here: the interrupt gate keeps IF clear
 * until IRETQ, so the next tick cannot nest either way. */
static void sysvec_apic_timer_interrupt(struct trap_frame *regs)
{
    inc_irq_stat(apic_timer_irqs);
    if (lapic_timer_event_handler)
        lapic_timer_event_handler(regs);
    apic_eoi();
}

/* No EOI: a spurious interrupt never went in service (SDM 11.9). */
static void sysvec_spurious_apic_interrupt(struct trap_frame *regs)
{
    inc_irq_stat(irq_spurious_count);
}

/* The timer clock of the APIC node whose reg is the MMIO base; the board default if absent. */
static u64 bus_hz_from_fdt(u64 base)
{
    const void *fdt = boot_fdt;
    int root, node, len;

    if (!fdt || (root = fdt_path(fdt, "/")) < 0)
        return DEFAULT_BUS_HZ;
    unsigned cells = fdt_address_cells(fdt, root);
    for (node = fdt_first_subnode(fdt, root); node >= 0; node = fdt_next_subnode(fdt, node)) {
        const void *reg = fdt_prop(fdt, node, "reg", &len);
        if (!reg || len < (int)(4 * cells) || fdt_read_cells(reg, cells) != base)
            continue;
        const void *clk = fdt_prop(fdt, node, "clock-frequency", &len);
        if (clk && (len == 4 || len == 8))
            return fdt_read_cells(clk, len / 4);
    }
    return DEFAULT_BUS_HZ;
}

bool lapic_init(void)
{
    if (!(cpuid(1).edx & CPUID_1_EDX_APIC))
        return false;
    u64 base = rdmsr(MSR_IA32_APICBASE) & MSR_IA32_APICBASE_BASE;
    apic_mmio = (volatile u32 *)(uintptr_t)base;
    lapic_bus_hz = bus_hz_from_fdt(base);
    trap_set_handler(LOCAL_TIMER_VECTOR, sysvec_apic_timer_interrupt);
    trap_set_handler(SPURIOUS_APIC_VECTOR, sysvec_spurious_apic_interrupt);
    return true;
}

/* Linux: setup_local_APIC.  The global enable in IA32_APIC_BASE comes first (firmware may leave
 * it off); LVT entries can only be unmasked once the SVR enables the APIC. */
void setup_local_APIC(void)
{
    u64 msr = rdmsr(MSR_IA32_APICBASE);

    if (!(msr & MSR_IA32_APICBASE_ENABLE))
        wrmsr(MSR_IA32_APICBASE, msr | MSR_IA32_APICBASE_ENABLE);
    apic_write(APIC_TASKPRI, 0);            /* accept every interrupt class */
    apic_write(APIC_SPIV, APIC_SPIV_APIC_ENABLED | SPURIOUS_APIC_VECTOR);
}

/* Linux: __setup_APIC_LVTT and lapic_timer_set_periodic, in that order (LVTT, TDCR, TMICT:
 * writing the initial count starts the timer). */
int lapic_timer_set_periodic(u64 ticks)
{
    u32 div = APIC_TDR_DIV_1;

    if (ticks > 0xffffffffu) {
        div = APIC_TDR_DIV_16;
        ticks /= 16;
    }
    if (!ticks || ticks > 0xffffffffu)
        return -1;
    apic_write(APIC_LVTT, LOCAL_TIMER_VECTOR | APIC_LVT_TIMER_PERIODIC);
    apic_write(APIC_TDCR, div);
    apic_write(APIC_TMICT, (u32)ticks);
    return 0;
}
