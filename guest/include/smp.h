/* smp.h — CPU discovery and secondary start.
 *
 * Logical CPU i is the i-th cpu node of /cpus in tree order (the boot CPU is cpu 0, the first
 * node); cpu_logical_map[i] is its `reg`, the hardware id.  Without a device tree the
 * architecture may probe (arm64: PSCI AFFINITY_INFO), else there is one CPU. */
#ifndef GUEST_SMP_H
#define GUEST_SMP_H

#include "guest.h"

/* How a secondary is started, from its cpu node. */
struct cpu_desc {
    const char *enable_method;      /* NULL if absent */
    u64 release_addr;               /* cpu-release-addr, 0 if absent */
};

extern unsigned nr_cpus;
extern unsigned long cpu_logical_map[MAX_CPUS];
extern struct cpu_desc cpu_desc[MAX_CPUS];

/* Fills the tables above (panics beyond MAX_CPUS) and returns nr_cpus. */
unsigned smp_init(void);
/* CPUs that have run cpu_init(): the boot CPU and the secondaries started so far. */
unsigned num_online_cpus(void);
bool cpu_online(unsigned cpu);
/* Releases every secondary; each runs cpu_init() and then fn(cpu), and parks when fn returns. */
void smp_boot_secondaries(void (*fn)(unsigned cpu));

/* ---- implemented by arch/<arch>/arch.c ---- */
/* Fills cpu_logical_map[] without a device tree; returns the count (0: not supported). */
unsigned arch_smp_probe(void);
/* Starts logical cpu at the arch's secondary entry; 0 on success. */
int arch_cpu_release(unsigned cpu);
/* The start code of secondaries calls this with its logical id on its own stack. */
__noreturn void secondary_start(unsigned cpu);

#endif
