/* arch.h (ppc32) — primitives, trap frame and trap numbers; safe to include from assembly. */
#ifndef GUEST_ARCH_H
#define GUEST_ARCH_H

#define ARCH_NAME       "ppc32"
#define ARCH_HWID_NAME  "pir"

#define MSR_ME          0x1000          /* machine check enable; IP = 0: vectors at 0x0000_0nnn */
#define SPRN_SPRG3      275
#define SPRN_PIR        1023

/* Trap numbers: the vector offset / 0x20 (0xf20 follows 0xf00 on the 7450). */
#define TRAP_VEC(off)   ((off) >> 5)
#define TRAP_MCHECK     TRAP_VEC(0x200)
#define TRAP_PROGRAM    TRAP_VEC(0x700)
#define TRAP_SYSCALL    TRAP_VEC(0xc00)
#define NR_TRAPS        TRAP_VEC(0x3000)

/* Program check reasons in SRR1 (bits 11..15 in the 32-bit numbering). */
#define SRR1_FP_ENABLED 0x00100000
#define SRR1_ILLEGAL    0x00080000
#define SRR1_PRIV       0x00040000
#define SRR1_TRAP       0x00020000
#define SRR1_NEXT       0x00010000      /* SRR0 holds the next instruction */
#define SRR1_REASON     0x001f0000

/* struct trap_frame offsets for vectors.S.  The frame sits EXC_FRAME_HDR bytes above r1,
 * after the back chain and LR save words every ABI stack frame starts with. */
#define TF_GPR(n)       ((n) * 4)
#define TF_LR           128
#define TF_CTR          132
#define TF_XER          136
#define TF_CR           140
#define TF_SRR0         144
#define TF_SRR1         148
#define TF_DAR          152
#define TF_DSISR        156
#define TF_VECTOR       160
#define TF_SIZE         168
#define EXC_FRAME_HDR   8
#define EXC_FRAME_SIZE  (EXC_FRAME_HDR + TF_SIZE)   /* 176: keeps r1 16-byte aligned */

#ifndef __ASSEMBLER__

struct trap_frame {
    unsigned long gpr[32];
    unsigned long lr, ctr, xer, cr, srr0, srr1, dar, dsisr;
    unsigned long vector;               /* the vector offset, 0x100..0x2f00 */
    unsigned long pad;
};

static inline unsigned long trap_pc(const struct trap_frame *f) { return f->srr0; }
static inline void trap_set_pc(struct trap_frame *f, unsigned long pc) { f->srr0 = pc; }

static inline void cpu_relax(void) { barrier(); }

/* MSR[EE] off; the previous MSR for arch_local_irq_restore (Linux: arch_local_irq_save). */
static inline unsigned long arch_local_irq_save(void)
{
    unsigned long msr, off;
    asm volatile("mfmsr %0; rlwinm %1, %0, 0, 17, 15; mtmsr %1" : "=&r"(msr), "=&r"(off) : : "memory");
    return msr;
}

static inline void arch_local_irq_restore(unsigned long flags)
{
    if (flags & 0x8000) {
        unsigned long msr;
        asm volatile("mfmsr %0; ori %0, %0, 0x8000; mtmsr %0" : "=&r"(msr) : : "memory");
    }
}

static inline bool arch_irqs_disabled_flags(unsigned long flags) { return !(flags & 0x8000); }

/* The trace clock: the 64-bit timebase, at the cpu node's timebase-frequency.  TBU, TBL, TBU
 * again until TBU did not change (Linux get_tb()). */
static inline u64 arch_trace_clock(void)
{
    unsigned long hi, lo, hi2;
    do {
        asm volatile("mftbu %0" : "=r"(hi));
        asm volatile("mftb %0" : "=r"(lo));
        asm volatile("mftbu %0" : "=r"(hi2));
    } while (hi != hi2);
    return (u64)hi << 32 | lo;
}

static inline uintptr_t arch_percpu_offset(void)
{
    uintptr_t off;
    asm volatile("mfspr %0, %1" : "=r"(off) : "i"(SPRN_SPRG3));
    return off;
}

#endif
#endif
