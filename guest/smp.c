/* smp: starts every CPU of the device tree; each one, in logical order, reports its hardware
 * id and a per-CPU value it wrote itself, read back through the per-CPU register.
 *
 * CPU i prints only when `turn` equals i and then passes the turn on, so the output order is
 * fixed however the CPUs run; no timing is involved. */
#include "guest.h"
#include "percpu.h"
#include "smp.h"

static DEFINE_PER_CPU(u32, token);
static u32 turn;

static u32 token_of(unsigned cpu)
{
    return 0x100 + cpu * 0x11;
}

static void wait_turn(unsigned t)
{
    while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != t)
        cpu_relax();
}

static void report(unsigned cpu)
{
    this_cpu_write(token, token_of(cpu));
    wait_turn(cpu);
    printf("cpu %u: hwid=0x%lx %s=0x%lx percpu=0x%x\n", cpu, cpu_logical_map[cpu],
           ARCH_HWID_NAME, arch_cpu_hwid(), this_cpu_read(token));
    __atomic_store_n(&turn, cpu + 1, __ATOMIC_RELEASE);
}

int main(void)
{
    if (!boot_fdt)
        printf("smp: no dtb, probing\n");
    unsigned n = smp_init();
    printf("smp: %u cpus\n", n);
    smp_boot_secondaries(report);
    report(0);
    wait_turn(n);
    for (unsigned cpu = 0; cpu < n; cpu++)
        if (per_cpu(token, cpu) != token_of(cpu)) {
            printf("smp: cpu %u: per-CPU value 0x%x, expected 0x%x\n", cpu,
                   per_cpu(token, cpu), token_of(cpu));
            return GUEST_EXIT_FAIL;
        }
    printf("smp: all %u cpus up\n", n);
    return 0;
}
