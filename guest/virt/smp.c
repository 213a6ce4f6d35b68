/* smp — a second CPU through PSCI, as on QEMU's virt board: AFFINITY_INFO says it is OFF,
 * CPU_ON starts it at a physical entry with x0 = the context id, AFFINITY_INFO says ON and a
 * second CPU_ON ALREADY_ON, CPU_OFF stops it and AFFINITY_INFO says OFF again; twice, so that a
 * CPU turned off can be turned on again.  Errors for an MPIDR no CPU has.
 *
 * virt-cpus: 2
 */
#include "runtime/virt.h"

#define SPIN_LIMIT      100000000UL     /* polls before a wait counts as failed */
#define NO_SUCH_MPIDR   0x7fUL          /* Aff0 127: no cpu node has it */

enum { CPU1_NONE, CPU1_RUNNING, CPU1_GO_OFF };

static u64 cpu1_stack[512] __attribute__((aligned(16)));
static volatile u32 cpu1_state;
static volatile u64 cpu1_context, cpu1_mpidr;

/* cpu 1: report, wait for the word, turn itself off.  MMU off: plain loads and stores (Device
 * memory is never cached), ordered by DMB. */
void virt_secondary_main(u64 context)
{
    u64 mpidr;

    asm volatile("mrs %0, mpidr_el1" : "=r"(mpidr));
    cpu1_mpidr = mpidr;
    cpu1_context = context;
    asm volatile("dmb sy" ::: "memory");
    cpu1_state = CPU1_RUNNING;
    while (cpu1_state != CPU1_GO_OFF)
        cpu_relax();
    virt_psci(PSCI_CPU_OFF, 0, 0, 0);
}

static bool wait_running(void)
{
    for (u64 i = 0; i < SPIN_LIMIT; i++)
        if (cpu1_state == CPU1_RUNNING)
            return true;
    return false;
}

static bool wait_off(u64 mpidr)
{
    for (u64 i = 0; i < SPIN_LIMIT; i++)
        if (virt_psci(PSCI_AFFINITY_INFO, mpidr, 0, 0) == PSCI_AFF_OFF)
            return true;
    return false;
}

/* One life of cpu 1, from OFF to OFF. */
static void round_trip(u64 mpidr, unsigned n)
{
    u64 context = (u64)&cpu1_stack[512];            /* its stack's top */

    cpu1_state = CPU1_NONE;
    virt_check(virt_psci(PSCI_AFFINITY_INFO, mpidr, 0, 0) == PSCI_AFF_OFF, "round %u: AFFINITY_INFO(cpu 1): OFF", n);
    virt_check(virt_psci(PSCI_CPU_ON, mpidr, (u64)virt_secondary_entry, context) == PSCI_SUCCESS,
               "round %u: CPU_ON(cpu 1): SUCCESS", n);
    virt_check(wait_running(), "round %u: cpu 1 runs", n);
    asm volatile("dmb sy" ::: "memory");
    virt_check(cpu1_context == context, "round %u: cpu 1 started with x0 = the context id", n);
    printf("round %u: cpu 1's MPIDR_EL1: 0x%lx\n", n, (u64)cpu1_mpidr);
    virt_check(virt_psci(PSCI_AFFINITY_INFO, mpidr, 0, 0) == PSCI_AFF_ON, "round %u: AFFINITY_INFO(cpu 1): ON", n);
    virt_check(virt_psci(PSCI_CPU_ON, mpidr, (u64)virt_secondary_entry, context) == PSCI_ALREADY_ON,
               "round %u: CPU_ON(cpu 1) again: ALREADY_ON", n);
    cpu1_state = CPU1_GO_OFF;
    virt_check(wait_off(mpidr), "round %u: after its CPU_OFF, AFFINITY_INFO(cpu 1): OFF", n);
}

int main(void)
{
    int cpu1 = boot_fdt ? fdt_next_cpu(boot_fdt, fdt_first_cpu(boot_fdt)) : -1;
    u64 mpidr = 0;
    const char *method = cpu1 >= 0 ? fdt_prop_str(boot_fdt, cpu1, "enable-method") : NULL;

    printf("virt-smp: %u cpus in /cpus\n", boot_fdt ? fdt_count_cpus(boot_fdt) : 0);
    virt_check(cpu1 >= 0 && virt_prop_u64(boot_fdt, cpu1, "reg", &mpidr), "/cpus: a second cpu, reg 0x%lx", mpidr);
    virt_check(method && !strcmp(method, "psci"), "its enable-method: psci");
    if (cpu1 >= 0) {
        round_trip(mpidr, 1);
        round_trip(mpidr, 2);
    }
    virt_check(virt_psci(PSCI_AFFINITY_INFO, NO_SUCH_MPIDR, 0, 0) == PSCI_INVALID_PARAMETERS,
               "AFFINITY_INFO(no such MPIDR): INVALID_PARAMETERS");
    virt_check(virt_psci(PSCI_CPU_ON, NO_SUCH_MPIDR, (u64)virt_secondary_entry, 0) == PSCI_INVALID_PARAMETERS,
               "CPU_ON(no such MPIDR): INVALID_PARAMETERS");
    return virt_done("virt-smp");
}
