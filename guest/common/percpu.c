/* percpu.c — per-CPU areas (see percpu.h). */
#include "percpu.h"

/* Linker script: the template, and MAX_CPUS areas of PERCPU_AREA_SIZE bytes (it checks that
 * the template fits). */
extern char __per_cpu_start[], __per_cpu_end[], __percpu_areas[];

uintptr_t percpu_offset[MAX_CPUS];
DEFINE_PER_CPU(unsigned, cpu_number);

/* All areas are ready before any secondary starts, so one CPU may set up another's data. */
void percpu_setup(void)
{
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        char *area = __percpu_areas + cpu * PERCPU_AREA_SIZE;
        memcpy(area, __per_cpu_start, __per_cpu_end - __per_cpu_start);
        percpu_offset[cpu] = (uintptr_t)area - (uintptr_t)__per_cpu_start;
    }
}

void percpu_activate(unsigned cpu)
{
    arch_percpu_set_offset(percpu_offset[cpu]);
    this_cpu_write(cpu_number, cpu);
}
