/* arch.c (ppc32) — ISA console and exit devices, per-CPU register, ePAPR spin tables. */
#include "guest.h"
#include "smp.h"
#include "trap.h"

#define ISA_IO              0x80000000UL    /* ISA port P at ISA_IO + P */
#define COM1                0x3f8           /* 16550A: THR at +0, LSR at +5 */
#define UART_LSR            5
#define LSR_THRE            0x20
#define DEBUG_EXIT_PORT     0x501           /* isa-debug-exit: status (code << 1) | 1 */
#define IB700_START_PORT    0x443           /* ib700: a write starts it, timeout entry v & 15 */
#define IB700_TIMEOUT_0S    0x0f

/* ePAPR spin table entry, big-endian like the CPU: 64-bit fields as two words. */
struct spin_table {
    u32 entry_hi, entry_lo;             /* released when bit 0 of entry_lo is clear */
    u32 r3_hi, r3_lo;
    u32 rsvd, pir;
};

extern const char secondary_boot[];     /* start.S's secondary_entry, or boot_high.S's */
extern const char __kernel_voffset[];   /* link.ld.S: virtual - physical */

_Static_assert(sizeof(struct trap_frame) == TF_SIZE, "vectors.S frame layout");
_Static_assert(__builtin_offsetof(struct trap_frame, vector) == TF_VECTOR, "vectors.S frame layout");

static inline void io_write8(unsigned port, u8 v)
{
    *(volatile u8 *)(ISA_IO + port) = v;
    asm volatile("eieio" ::: "memory");
}

static inline u8 io_read8(unsigned port)
{
    u8 v = *(volatile u8 *)(ISA_IO + port);
    asm volatile("eieio" ::: "memory");
    return v;
}

void arch_putc(char c)
{
    while (!(io_read8(COM1 + UART_LSR) & LSR_THRE))
        cpu_relax();
    io_write8(COM1, c);
}

/* isa-debug-exit first (it carries the code); without it, the ib700 watchdog with a zero
 * timeout powers the machine off (status 0). */
__noreturn void arch_exit(int code)
{
    io_write8(DEBUG_EXIT_PORT, code);
    asm volatile("sync" ::: "memory");
    io_write8(IB700_START_PORT, IB700_TIMEOUT_0S);
    arch_cpu_park();
}

__noreturn void arch_cpu_park(void)
{
    for (;;)
        barrier();
}

void arch_boot_init(void)
{
    /* Nothing to build: the vectors are linked at their physical addresses. */
}

void arch_cpu_init(void)
{
    /* Nothing per CPU: start.S set MSR (IP = 0 selects the vectors at 0). */
}

void arch_percpu_set_offset(uintptr_t off)
{
    asm volatile("mtspr %0, %1" : : "i"(SPRN_SPRG3), "r"(off) : "memory");
}

unsigned long arch_cpu_hwid(void)
{
    unsigned long pir;

    asm volatile("mfspr %0, %1" : "=r"(pir) : "i"(SPRN_PIR));
    return pir;
}

unsigned arch_trap_nr(const struct trap_frame *f)
{
    return TRAP_VEC(f->vector);
}

void arch_dump_frame(const struct trap_frame *f)
{
    printf_unlocked("vector 0x%lx srr0 0x%lx srr1 0x%lx dar 0x%lx dsisr 0x%lx lr 0x%lx\n",
                    f->vector, f->srr0, f->srr1, f->dar, f->dsisr, f->lr);
    for (unsigned i = 0; i < 32; i++)
        printf_unlocked("r%u 0x%lx%c", i, f->gpr[i], i % 8 == 7 ? '\n' : ' ');
}

unsigned arch_smp_probe(void)
{
    return 0;                           /* spin tables exist only in the device tree */
}

/* r3 first, entry address last: the CPU may start as soon as bit 0 of the entry clears. */
int arch_cpu_release(unsigned cpu)
{
    const struct cpu_desc *d = &cpu_desc[cpu];
    volatile struct spin_table *t = (volatile struct spin_table *)(uintptr_t)d->release_addr;

    if (!d->enable_method || strcmp(d->enable_method, "spin-table") || !t)
        return -1;
    t->r3_hi = 0;
    t->r3_lo = cpu;
    t->entry_hi = 0;
    asm volatile("sync" ::: "memory");
    /* the CPU starts in real mode: a physical address (ePAPR 1.1 §5.5.2) */
    t->entry_lo = (uintptr_t)secondary_boot - (uintptr_t)__kernel_voffset;
    asm volatile("sync" ::: "memory");
    return 0;
}
