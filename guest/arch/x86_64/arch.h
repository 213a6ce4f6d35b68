/* arch.h (x86_64) — primitives, trap frame and trap numbers; safe to include from assembly. */
#ifndef GUEST_ARCH_H
#define GUEST_ARCH_H

#define ARCH_NAME       "x86_64"
#define ARCH_HWID_NAME  "apicid"

/* Selectors of boot_gdt (boot32.S), the same as pmusim's boot GDT. */
#define KERNEL_CS       0x08
#define KERNEL_DS       0x10

/* entry.S: one stub per vector, this many bytes apart. */
#define IDT_STUB_SIZE   16

/* Trap numbers are IDT vectors. */
#define NR_TRAPS        256
#define TRAP_BP         3
#define TRAP_UD         6
#define TRAP_GP         13
#define TRAP_PF         14

#ifndef __ASSEMBLER__

/* Built by entry.S, lowest address first: the GPRs idt_common pushes, the vector and error
 * code (0 when the CPU pushes none) from the stub, then the CPU's interrupt frame. */
struct trap_frame {
    unsigned long r15, r14, r13, r12, r11, r10, r9, r8;
    unsigned long rbp, rdi, rsi, rdx, rcx, rbx, rax;
    unsigned long vector, error;
    unsigned long rip, cs, rflags, rsp, ss;
};

static inline unsigned long trap_pc(const struct trap_frame *f) { return f->rip; }
static inline void trap_set_pc(struct trap_frame *f, unsigned long pc) { f->rip = pc; }

static inline void cpu_relax(void) { asm volatile("pause" ::: "memory"); }

/* Interrupts off; the previous state for arch_local_irq_restore (Linux: arch_local_irq_save). */
static inline unsigned long arch_local_irq_save(void)
{
    unsigned long flags;
    asm volatile("pushfq; popq %0; cli" : "=r"(flags) : : "memory");
    return flags;
}

static inline void arch_local_irq_restore(unsigned long flags)
{
    if (flags & 0x200)
        asm volatile("sti" ::: "memory");
}

static inline bool arch_irqs_disabled_flags(unsigned long flags) { return !(flags & 0x200); }

/* The trace clock: the TSC, at the first cpu node's clock-frequency. */
static inline u64 arch_trace_clock(void)
{
    u32 lo, hi;
    asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (u64)hi << 32 | lo;
}

static inline void outb(u16 port, u8 v) { asm volatile("outb %0, %1" : : "a"(v), "Nd"(port)); }
static inline u8 inb(u16 port)
{
    u8 v;
    asm volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

/* Per-CPU access is one %gs-relative instruction: GS_BASE holds the CPU's per-CPU offset. */
#define this_cpu_read(var) ({                                               \
    __typeof__(var) v__;                                                    \
    asm volatile("mov %%gs:%1, %0" : "=r"(v__) : "m"(var));                 \
    v__; })
#define this_cpu_write(var, v)                                              \
    asm volatile("mov %1, %%gs:%0" : "=m"(var) : "r"((__typeof__(var))(v)))

extern uintptr_t this_cpu_off;      /* per-CPU: the offset itself, as Linux keeps it */
static inline uintptr_t arch_percpu_offset(void) { return this_cpu_read(this_cpu_off); }

#endif
#endif
