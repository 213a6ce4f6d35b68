/* arch.c (arm64) — console, PSCI (exit, CPU_ON, probing), vector base, per-CPU register. */
#include "guest.h"
#include "smp.h"
#include "trap.h"

#define PL011_BASE          0x09000000UL
#define PL011_DR            0x00
#define PL011_FR            0x18
#define PL011_FR_TXFF       (1 << 5)

/* PSCI 1.0 function ids (SMC64 calling convention where there is a choice), through HVC. */
#define PSCI_CPU_ON         0xc4000003UL
#define PSCI_AFFINITY_INFO  0xc4000004UL
#define PSCI_SYSTEM_OFF     0x84000008UL

extern const char vectors[];            /* vectors.S */
extern const char secondary_boot[];     /* start.S's secondary_entry, or boot_high.S's */
extern const char __kernel_voffset[];   /* link.ld.S: virtual - physical */

_Static_assert(sizeof(struct trap_frame) == S_FRAME_SIZE, "vectors.S frame layout");

static inline u32 mmio_read32(unsigned long a) { return *(volatile u32 *)a; }
static inline void mmio_write32(unsigned long a, u32 v) { *(volatile u32 *)a = v; }

/* SMCCC: x0..x3 in, x0 out; x4..x17 may be clobbered. */
static int psci_call(unsigned long fn, unsigned long a1, unsigned long a2, unsigned long a3)
{
    register unsigned long x0 asm("x0") = fn;
    register unsigned long x1 asm("x1") = a1;
    register unsigned long x2 asm("x2") = a2;
    register unsigned long x3 asm("x3") = a3;

    asm volatile("hvc #0"
                 : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
                 :
                 : "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14",
                   "x15", "x16", "x17", "memory");
    return (int)x0;                     /* PSCI return values are 32-bit signed */
}

void arch_putc(char c)
{
    while (mmio_read32(PL011_BASE + PL011_FR) & PL011_FR_TXFF)
        cpu_relax();
    mmio_write32(PL011_BASE + PL011_DR, (u8)c);
}

/* SYSTEM_OFF has no status to report; a failed guest parks instead, and pmusim ends the run
 * with "hung" (4) once every CPU sleeps. */
__noreturn void arch_exit(int code)
{
    if (code == 0)
        psci_call(PSCI_SYSTEM_OFF, 0, 0, 0);
    arch_cpu_park();
}

__noreturn void arch_cpu_park(void)
{
    for (;;)
        asm volatile("wfi");            /* DAIF stays masked: nothing wakes it */
}

void arch_boot_init(void)
{
    /* Nothing shared to build: the vector table is static. */
}

void arch_cpu_init(void)
{
    asm volatile("msr vbar_el1, %0\n\tisb" : : "r"(vectors) : "memory");
}

void arch_percpu_set_offset(uintptr_t off)
{
    asm volatile("msr tpidr_el1, %0" : : "r"(off) : "memory");
}

unsigned long arch_cpu_hwid(void)
{
    unsigned long mpidr;

    asm volatile("mrs %0, mpidr_el1" : "=r"(mpidr));
    return mpidr & MPIDR_HWID_MASK;
}

unsigned arch_trap_nr(const struct trap_frame *f)
{
    unsigned type = f->kind & 3;

    return type ? TRAP_IRQ + type - 1 : ESR_EC(f->esr);
}

void arch_dump_frame(const struct trap_frame *f)
{
    printf_unlocked("kind %lu esr 0x%lx (ec 0x%lx) far 0x%lx elr 0x%lx spsr 0x%lx sp 0x%lx\n",
                    f->kind, f->esr, ESR_EC(f->esr), f->far, f->elr, f->spsr, f->sp);
    for (unsigned i = 0; i < 31; i++)
        printf_unlocked("x%u 0x%lx%c", i, f->x[i], i % 4 == 3 || i == 30 ? '\n' : ' ');
}

/* Without a device tree: logical cpu i has QEMU virt's MPIDR (Aff0 = i % 16, Aff1 = i / 16)
 * for as long as PSCI knows that MPIDR. */
unsigned arch_smp_probe(void)
{
    unsigned n;

    for (n = 0; n < MAX_CPUS; n++) {
        unsigned long mpidr = (n / 16) << 8 | n % 16;
        if (psci_call(PSCI_AFFINITY_INFO, mpidr, 0, 0) < 0)
            break;
        cpu_logical_map[n] = mpidr;
    }
    return n;
}

int arch_cpu_release(unsigned cpu)
{
    const char *method = cpu_desc[cpu].enable_method;

    if (method && strcmp(method, "psci"))
        return -1;
    /* PSCI takes a physical entry address (DEN0022 §5.1.4 CPU_ON) */
    uintptr_t entry = (uintptr_t)secondary_boot - (uintptr_t)__kernel_voffset;
    return psci_call(PSCI_CPU_ON, cpu_logical_map[cpu], entry, cpu) ? -1 : 0;
}
