/* ppc.h (ppc32) — MSR, special-purpose registers and the timebase of the MPC7450, for C.
 * Numbers from the MPC7450 RISC Microprocessor Family Reference Manual (MPC7450UM) ch. 2 and
 * Linux's arch/powerpc/include/asm/reg.h. */
#ifndef GUEST_PPC_H
#define GUEST_PPC_H

#include "guest.h"

/* MSR */
#define MSR_EE          0x00008000      /* external and decrementer interrupts */
#define MSR_PR          0x00004000      /* problem (user) state */
#define MSR_PMM         0x00000004      /* performance monitor mark */

/* SPRs */
#define SPRN_DEC        22
#define SPRN_SRR0       26
#define SPRN_SRR1       27
#define SPRN_MMCR2      944
#define SPRN_PMC5       945
#define SPRN_PMC6       946
#define SPRN_MMCR0      952
#define SPRN_PMC1       953
#define SPRN_PMC2       954
#define SPRN_SIAR       955
#define SPRN_MMCR1      956
#define SPRN_PMC3       957
#define SPRN_PMC4       958

#define mfspr(rn) ({ unsigned long _v; asm volatile("mfspr %0, %1" : "=r"(_v) : "i"(rn)); _v; })
#define mtspr(rn, v) asm volatile("mtspr %0, %1" : : "i"(rn), "r"((unsigned long)(v)) : "memory")

static inline unsigned long mfmsr(void)
{
    unsigned long v;
    asm volatile("mfmsr %0" : "=r"(v));
    return v;
}

static inline void mtmsr(unsigned long v)
{
    asm volatile("mtmsr %0; isync" : : "r"(v) : "memory");
}

static inline void local_irq_enable(void) { mtmsr(mfmsr() | MSR_EE); }
static inline void local_irq_disable(void) { mtmsr(mfmsr() & ~MSR_EE); }

/* The 64-bit timebase (Linux get_tb()): arch.h reads it. */
static inline u64 get_tb(void)
{
    return arch_trace_clock();
}

#endif
