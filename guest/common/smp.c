/* smp.c — CPU discovery from /cpus and secondary start (see smp.h). */
#include "smp.h"
#include "fdt.h"

unsigned nr_cpus;
unsigned long cpu_logical_map[MAX_CPUS];
struct cpu_desc cpu_desc[MAX_CPUS];

static void (*secondary_fn)(unsigned cpu);
static unsigned cpus_online = 1;
static bool online[MAX_CPUS] = { true };

unsigned num_online_cpus(void)
{
    return __atomic_load_n(&cpus_online, __ATOMIC_ACQUIRE);
}

bool cpu_online(unsigned cpu)
{
    return cpu < MAX_CPUS && __atomic_load_n(&online[cpu], __ATOMIC_ACQUIRE);
}

static unsigned cpus_from_fdt(const void *fdt)
{
    unsigned cells = fdt_address_cells(fdt, fdt_path(fdt, "/cpus"));
    unsigned n = 0;
    int node, len;

    fdt_for_each_cpu(fdt, node) {
        if (n == MAX_CPUS)
            panic("smp: more than %u cpu nodes", MAX_CPUS);
        const void *reg = fdt_prop(fdt, node, "reg", &len);
        if (!reg || cells < 1 || cells > 2 || len < (int)(4 * cells))
            panic("smp: %s: bad reg", fdt_name(fdt, node));
        cpu_logical_map[n] = fdt_read_cells(reg, cells);
        cpu_desc[n].enable_method = fdt_prop_str(fdt, node, "enable-method");
        /* ePAPR makes cpu-release-addr 64-bit; accept one cell too. */
        const void *rel = fdt_prop(fdt, node, "cpu-release-addr", &len);
        cpu_desc[n].release_addr = rel && (len == 4 || len == 8) ? fdt_read_cells(rel, len / 4) : 0;
        n++;
    }
    return n;
}

unsigned smp_init(void)
{
    nr_cpus = boot_fdt ? cpus_from_fdt(boot_fdt) : arch_smp_probe();
    if (!nr_cpus) {
        nr_cpus = 1;
        cpu_logical_map[0] = arch_cpu_hwid();
    }
    return nr_cpus;
}

void smp_boot_secondaries(void (*fn)(unsigned cpu))
{
    secondary_fn = fn;
    /* Everything written so far (tables, per-CPU areas) before any release. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (unsigned cpu = 1; cpu < nr_cpus; cpu++)
        if (arch_cpu_release(cpu))
            panic("smp: cannot start cpu %u (hwid 0x%lx)", cpu, cpu_logical_map[cpu]);
}

__noreturn void secondary_start(unsigned cpu)
{
    cpu_init(cpu);
    __atomic_store_n(&online[cpu], true, __ATOMIC_RELEASE);
    __atomic_add_fetch(&cpus_online, 1, __ATOMIC_RELEASE);
    __atomic_load_n(&secondary_fn, __ATOMIC_ACQUIRE)(cpu);
    arch_cpu_park();
}
