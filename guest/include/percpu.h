/* percpu.h — per-CPU variables, Linux style.
 *
 * DEFINE_PER_CPU puts the variable's template in .data.percpu.  At boot every CPU's area gets
 * a copy of the template; percpu_offset[cpu] is the distance from the template to that CPU's
 * copy, and each CPU keeps its own offset in an architecture register (x86_64 GS_BASE, arm64
 * TPIDR_EL1, ppc32 SPRG3).  this_cpu_*() reach the running CPU's copy through that register;
 * per_cpu() reaches any CPU's copy through the table.  Nothing here disables preemption: the
 * guests have none. */
#ifndef GUEST_PERCPU_H
#define GUEST_PERCPU_H

#include "guest.h"

#define DEFINE_PER_CPU(type, name)  __attribute__((section(".data.percpu"))) __typeof__(type) name
#define DECLARE_PER_CPU(type, name) extern __typeof__(type) name

extern uintptr_t percpu_offset[MAX_CPUS];

#define per_cpu_ptr(ptr, cpu)   ((__typeof__(ptr))((uintptr_t)(ptr) + percpu_offset[cpu]))
#define per_cpu(var, cpu)       (*per_cpu_ptr(&(var), cpu))
#define this_cpu_ptr(ptr)       ((__typeof__(ptr))((uintptr_t)(ptr) + arch_percpu_offset()))

/* An architecture with segment-relative addressing (x86_64) provides its own single-instruction
 * accessors for scalars. */
#ifndef this_cpu_read
#define this_cpu_read(var)      (*this_cpu_ptr(&(var)))
#define this_cpu_write(var, v)  (*this_cpu_ptr(&(var)) = (v))
#endif
/* A read and a write: not atomic against an interrupt that changes the same variable. */
#define this_cpu_add(var, n)    this_cpu_write(var, this_cpu_read(var) + (n))
#define this_cpu_inc(var)       this_cpu_add(var, 1)

DECLARE_PER_CPU(unsigned, cpu_number);
#define smp_processor_id()      this_cpu_read(cpu_number)

void percpu_setup(void);            /* boot CPU: fill every area from the template */
void percpu_activate(unsigned cpu); /* on cpu: point the register at its area */

#endif
