/* x86.h (x86_64) — the instructions the x86 drivers share: MSRs, RDTSC, RDPMC, CPUID and the
 * interrupt flag (Linux: asm/msr.h, asm/processor.h, asm/irqflags.h).  Not for assembly. */
#ifndef GUEST_X86_H
#define GUEST_X86_H

#include "guest.h"

static inline u64 rdmsr(u32 msr)
{
    u32 lo, hi;

    asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return (u64)hi << 32 | lo;
}

/* "memory": a WRMSR can start or stop what other code observes (counters, interrupts). */
static inline void wrmsr(u32 msr, u64 v)
{
    asm volatile("wrmsr" : : "c"(msr), "a"((u32)v), "d"((u32)(v >> 32)) : "memory");
}

static inline u64 rdtsc(void)
{
    u32 lo, hi;

    asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (u64)hi << 32 | lo;
}

/* counter: a general-purpose counter's index, or INTEL_PMC_FIXED_RDPMC_BASE | fixed index. */
static inline u64 rdpmc(u32 counter)
{
    u32 lo, hi;

    asm volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
    return (u64)hi << 32 | lo;
}

struct cpuid_regs {
    u32 eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid_count(u32 leaf, u32 subleaf)
{
    struct cpuid_regs r;

    asm volatile("cpuid" : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
                 : "a"(leaf), "c"(subleaf));
    return r;
}

static inline struct cpuid_regs cpuid(u32 leaf)
{
    return cpuid_count(leaf, 0);
}

static inline void local_irq_enable(void)
{
    asm volatile("sti" ::: "memory");
}

static inline void local_irq_disable(void)
{
    asm volatile("cli" ::: "memory");
}

#endif
