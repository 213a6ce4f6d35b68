/* arch.c (x86_64) — console, exit, descriptor tables, per-CPU register, SMP release. */
#include "guest.h"
#include "percpu.h"
#include "smp.h"
#include "trap.h"

#define COM1                0x3f8       /* 16550A: THR at +0, LSR at +5 */
#define UART_LSR            5
#define LSR_THRE            0x20
#define DEBUG_EXIT_PORT     0xf4        /* isa-debug-exit: status (code << 1) | 1 */
#define MSR_GS_BASE         0xc0000101
#define GATE_INTR           0x8e        /* present, DPL 0, 64-bit interrupt gate */

struct idt_gate {
    u16 off0, sel;
    u8 ist, type;
    u16 off1;
    u32 off2, reserved;
} __attribute__((packed));

extern const char idt_stubs[];          /* entry.S */
extern const char secondary_entry[];    /* start.S */
extern u8 boot_gdt_ptr[];               /* boot32.S */

static struct idt_gate idt[NR_TRAPS] __attribute__((aligned(16)));
DEFINE_PER_CPU(uintptr_t, this_cpu_off);

_Static_assert(sizeof(struct trap_frame) == 22 * 8, "entry.S pushes 22 quadwords");

void arch_putc(char c)
{
    while (!(inb(COM1 + UART_LSR) & LSR_THRE))
        cpu_relax();
    outb(COM1, c);
}

__noreturn void arch_exit(int code)
{
    outb(DEBUG_EXIT_PORT, code);
    arch_cpu_park();
}

__noreturn void arch_cpu_park(void)
{
    for (;;)
        asm volatile("cli; hlt");
}

void arch_boot_init(void)
{
    for (unsigned v = 0; v < NR_TRAPS; v++) {
        uintptr_t a = (uintptr_t)idt_stubs + v * IDT_STUB_SIZE;
        idt[v] = (struct idt_gate){ (u16)a, KERNEL_CS, 0, GATE_INTR, (u16)(a >> 16), a >> 32, 0 };
    }
}

/* Our own GDT (the same selectors as pmusim's, which QEMU does not have) and the IDT.
 * Reloading GS zeroes GS_BASE: percpu_activate() comes after. */
void arch_cpu_init(void)
{
    struct {
        u16 limit;
        u64 base;
    } __attribute__((packed)) idtr = { sizeof(idt) - 1, (uintptr_t)idt };

    asm volatile("lgdt %0\n\t"
                 "pushq %1\n\t"
                 "leaq 1f(%%rip), %%rax\n\t"
                 "pushq %%rax\n\t"
                 "lretq\n"
                 "1:\tmovl %2, %%eax\n\t"
                 "movl %%eax, %%ds\n\t"
                 "movl %%eax, %%es\n\t"
                 "movl %%eax, %%ss\n\t"
                 "movl %%eax, %%fs\n\t"
                 "movl %%eax, %%gs"
                 : : "m"(*boot_gdt_ptr), "i"(KERNEL_CS), "i"(KERNEL_DS) : "rax", "memory");
    asm volatile("lidt %0" : : "m"(idtr));
}

void arch_percpu_set_offset(uintptr_t off)
{
    asm volatile("wrmsr" : : "c"(MSR_GS_BASE), "a"((u32)off), "d"((u32)(off >> 32)) : "memory");
    this_cpu_write(this_cpu_off, off);
}

unsigned long arch_cpu_hwid(void)
{
    u32 a = 1, b, c = 0, d;

    asm volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
    return b >> 24;                     /* CPUID.1:EBX[31:24], the initial APIC ID */
}

unsigned arch_trap_nr(const struct trap_frame *f)
{
    return f->vector;
}

void arch_dump_frame(const struct trap_frame *f)
{
    printf_unlocked("vector %lu error 0x%lx rip 0x%lx cs 0x%lx rflags 0x%lx rsp 0x%lx\n",
                    f->vector, f->error, f->rip, f->cs, f->rflags, f->rsp);
    printf_unlocked("rax 0x%lx rbx 0x%lx rcx 0x%lx rdx 0x%lx rsi 0x%lx rdi 0x%lx rbp 0x%lx\n",
                    f->rax, f->rbx, f->rcx, f->rdx, f->rsi, f->rdi, f->rbp);
    printf_unlocked("r8 0x%lx r9 0x%lx r10 0x%lx r11 0x%lx r12 0x%lx r13 0x%lx r14 0x%lx r15 0x%lx\n",
                    f->r8, f->r9, f->r10, f->r11, f->r12, f->r13, f->r14, f->r15);
}

unsigned arch_smp_probe(void)
{
    return 0;                           /* spin tables exist only in the device tree */
}

/* Spin table (Linux arm64 semantics): a non-zero entry address in the 64-bit little-endian
 * release word starts the CPU there. */
int arch_cpu_release(unsigned cpu)
{
    const struct cpu_desc *d = &cpu_desc[cpu];

    if (!d->enable_method || strcmp(d->enable_method, "spin-table") || !d->release_addr)
        return -1;
    __atomic_store_n((u64 *)(uintptr_t)d->release_addr, (u64)(uintptr_t)secondary_entry,
                     __ATOMIC_RELEASE);
    return 0;
}
