/* arch_timer.c (arm64) — the physical EL1 timer (register map in arch_timer.h), after Linux
 * drivers/clocksource/arm_arch_timer.c: arch_timer_of_init, arch_timer_handler_phys,
 * arch_timer_set_next_event_phys. */
#include "arch_timer.h"
#include "fdt.h"
#include "gic.h"
#include "percpu.h"

#define ARCH_TIMER_CTRL_ENABLE      (1u << 0)
#define ARCH_TIMER_CTRL_IT_MASK     (1u << 1)
#define ARCH_TIMER_CTRL_IT_STAT     (1u << 2)
#define ARCH_TIMER_PHYS_NONSECURE_PPI   1       /* the entry of the timer node's interrupts */
#define HZ_PER_MHZ                  1000000
#define HZ_PER_10KHZ                10000
#define CENTI                       100

u64 arch_timer_rate;
void (*arch_timer_event_handler)(struct trap_frame *regs);
static int timer_ppi;
static DEFINE_PER_CPU(u64, timer_period);

static unsigned long read_ctl(void)
{
    unsigned long v;

    asm volatile("mrs %0, cntp_ctl_el0" : "=r"(v));
    return v;
}

static void write_ctl(unsigned long v)
{
    asm volatile("msr cntp_ctl_el0, %0; isb" : : "r"(v) : "memory");
}

static u64 read_cval(void)
{
    u64 v;

    asm volatile("mrs %0, cntp_cval_el0" : "=r"(v));
    return v;
}

static void write_cval(u64 v)
{
    asm volatile("msr cntp_cval_el0, %0" : : "r"(v) : "memory");
}

/* Linux masks the firing timer and lets the clock event re-arm it; the periodic re-arm is done
 * here, CVAL + period, so the ticks do not drift by the handler's latency (hrtimer_forward
 * keeps Linux's on the same grid).  The new CVAL lowers the level line before the EOI. */
static void arch_timer_handler_phys(struct trap_frame *regs)
{
    unsigned long ctl = read_ctl();

    if (!(ctl & ARCH_TIMER_CTRL_IT_STAT))
        return;
    write_cval(read_cval() + this_cpu_read(timer_period));
    write_ctl(ARCH_TIMER_CTRL_ENABLE);
    if (arch_timer_event_handler)
        arch_timer_event_handler(regs);
}

/* The rate: the /timer node's clock-frequency if it has one (Linux: arch_timer_detect_rate
 * prefers it to CNTFRQ_EL0), else CNTFRQ_EL0. */
static u64 arch_timer_detect_rate(void)
{
    int root = boot_fdt ? fdt_path(boot_fdt, "/timer") : -1, len;
    const void *p = root >= 0 ? fdt_prop(boot_fdt, root, "clock-frequency", &len) : NULL;
    u64 rate;

    if (p && len == 4)
        return fdt_read_cells(p, 1);
    asm volatile("mrs %0, cntfrq_el0" : "=r"(rate));
    return rate;
}

bool arch_timer_init(void)
{
    arch_timer_rate = arch_timer_detect_rate();
    timer_ppi = gic_node_ppi("arm,armv8-timer", ARCH_TIMER_PHYS_NONSECURE_PPI);
    if (!arch_timer_rate || timer_ppi < 0)
        return false;
    printf("arch_timer: cp15 timer(s) running at %lu.%02luMHz (phys).\n",
           (unsigned long)(arch_timer_rate / HZ_PER_MHZ),
           (unsigned long)(arch_timer_rate / HZ_PER_10KHZ % CENTI));
    gic_request_percpu(timer_ppi, arch_timer_handler_phys, false);
    return true;
}

int arch_timer_set_periodic(u64 ticks)
{
    if (!ticks)
        return -1;
    this_cpu_write(timer_period, ticks);
    write_ctl(ARCH_TIMER_CTRL_IT_MASK);
    write_cval(arch_counter_get_cntpct() + ticks);
    write_ctl(ARCH_TIMER_CTRL_ENABLE);
    gic_enable_percpu(timer_ppi);
    return 0;
}
