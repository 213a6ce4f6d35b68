/* arch.h (arm64) — primitives, trap frame and trap numbers; safe to include from assembly. */
#ifndef GUEST_ARCH_H
#define GUEST_ARCH_H

#define ARCH_NAME       "arm64"
#define ARCH_HWID_NAME  "mpidr"

/* The Aff3..Aff0 fields: the cpu node's reg (bit 31 is RES1, bit 30 U, bit 24 MT). */
#define MPIDR_HWID_MASK 0xff00ffffffUL

/* Trap numbers: a synchronous exception's class (ESR_EL1.EC), then the asynchronous kinds. */
#define TRAP_EC_UNKNOWN     0x00        /* undefined instruction */
#define TRAP_EC_SVC64       0x15
#define TRAP_EC_HVC64       0x16
#define TRAP_EC_IABT_LOW    0x20        /* instruction abort from EL0 */
#define TRAP_EC_IABT_CUR    0x21        /* instruction abort at the current EL */
#define TRAP_EC_DABT_LOW    0x24        /* data abort from EL0 */
#define TRAP_EC_DABT_CUR    0x25        /* data abort at the current EL */
#define TRAP_EC_BRK64       0x3c
#define TRAP_IRQ            64
#define TRAP_FIQ            65
#define TRAP_SERROR         66
#define NR_TRAPS            67

/* struct trap_frame offsets for vectors.S */
#define S_X(n)          ((n) * 8)
#define S_SP            248
#define S_ELR           256
#define S_SPSR          264
#define S_ESR           272
#define S_FAR           280
#define S_KIND          288
#define S_FRAME_SIZE    304             /* a multiple of 16: SP stays aligned */

/* The vector table entries by where the exception came from (struct trap_frame.kind >> 2). */
#define KIND_CUR_SP0    0
#define KIND_CUR_SPX    1
#define KIND_LOWER_A64  2
#define KIND_LOWER_A32  3

#ifndef __ASSEMBLER__

/* kind is the vector table entry, 0..15: (source << 2) | type, type 0 sync, 1 IRQ, 2 FIQ,
 * 3 SError; source 0 current EL SP0, 1 current EL SPx, 2 lower EL AArch64, 3 lower AArch32. */
struct trap_frame {
    unsigned long x[31];
    unsigned long sp;               /* the interrupted SP: SP_EL1 from EL1h, else SP_EL0 */
    unsigned long elr, spsr, esr, far, kind, pad;
};

#define ESR_EC(esr)     (((esr) >> 26) & 0x3f)
#define ESR_ISS(esr)    ((esr) & 0x1ffffff)

static inline unsigned long trap_pc(const struct trap_frame *f) { return f->elr; }
static inline void trap_set_pc(struct trap_frame *f, unsigned long pc) { f->elr = pc; }

static inline void cpu_relax(void) { asm volatile("yield" ::: "memory"); }

/* IRQs off; the previous DAIF for arch_local_irq_restore (Linux: arch_local_irq_save). */
static inline unsigned long arch_local_irq_save(void)
{
    unsigned long flags;
    asm volatile("mrs %0, daif; msr daifset, #2" : "=r"(flags) : : "memory");
    return flags;
}

static inline void arch_local_irq_restore(unsigned long flags)
{
    asm volatile("msr daif, %0" : : "r"(flags) : "memory");
}

static inline bool arch_irqs_disabled_flags(unsigned long flags) { return flags & 0x80; }

/* The trace clock: CNTVCT_EL0, at CNTFRQ_EL0. */
static inline u64 arch_trace_clock(void)
{
    u64 v;
    asm volatile("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
    return v;
}

static inline uintptr_t arch_percpu_offset(void)
{
    uintptr_t off;
    asm volatile("mrs %0, tpidr_el1" : "=r"(off));
    return off;
}

#endif
#endif
