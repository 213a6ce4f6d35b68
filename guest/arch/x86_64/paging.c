/* paging.c (x86_64) — the paging guest's MMU: 4-level paging (Intel SDM vol. 3A §4.5).  The
 * guest keeps the boot identity map (PML4 slot 0, docs/guest-abi.md) and puts the demand window
 * in PML4 slot 1 (virtual 0x8000000000), four 4 KiB page tables deep. */
#include "paging.h"

#define PTE_P   (1ul << 0)
#define PTE_RW  (1ul << 1)
#define PTE_US  (1ul << 2)
#define PTE_A   (1ul << 5)
#define PTE_D   (1ul << 6)
#define PTE_RSVD51 (1ul << 51)      /* above the CPU's 40 physical address bits: reserved */
#define PTE_XD  (1ul << 63)
#define MSR_EFER 0xc0000080u
#define MSR_STAR 0xc0000081u
#define MSR_LSTAR 0xc0000082u
#define MSR_FMASK 0xc0000084u
#define EFER_SCE (1u << 0)
#define EFER_NXE (1u << 11)
#define KERNEL_CS_SEL 0x08
#define USER32_CS_SEL 0x1b              /* STAR[63:48]: SYSRET's base (paging_user.S) */
#define TSS_SEL 0x30
#define VEC_SYSCALL80 0x80

static u64 pml4[512] __attribute__((aligned(4096)));
static u64 pdpt[512] __attribute__((aligned(4096)));
static u64 pd[512] __attribute__((aligned(4096)));
static u64 pt[512] __attribute__((aligned(4096)));

unsigned long paging_window = 1ul << 39;

static u64 rdmsr(u32 msr)
{
    u32 lo, hi;
    asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return (u64)hi << 32 | lo;
}

static void wrmsr(u32 msr, u64 v)
{
    asm volatile("wrmsr" : : "c"(msr), "a"((u32)v), "d"((u32)(v >> 32)));
}

/* The GDT (paging_user.S has the layout), the 64-bit TSS whose RSP0 is the stack an interrupt
 * from CPL 3 switches to (Intel SDM vol. 3A §7.7), SYSCALL's MSRs, and an int $0x80 gate user
 * code may use (DPL 3). */
static u64 gdt[8] = {
    0, 0x00af9a000000ffff, 0x00cf92000000ffff,          /* null, kernel code 64, kernel data */
    0x00cffa000000ffff, 0x00cff2000000ffff, 0x00affa000000ffff,     /* user code 32, data, code 64 */
};
static u32 tss[26] __attribute__((aligned(16)));
static u8 kernel_stack[8192] __attribute__((aligned(16)));

void paging_syscall_entry(void);

static void user_mode_init(void)
{
    unsigned long t = (unsigned long)tss, top = (unsigned long)(kernel_stack + sizeof kernel_stack);
    tss[1] = (u32)top, tss[2] = (u32)(top >> 32);       /* RSP0 */
    gdt[6] = (sizeof tss - 1) | (t & 0xffffff) << 16 | 0x89ul << 40 | ((t >> 24) & 0xff) << 56;
    gdt[7] = t >> 32;
    struct { u16 limit; u64 base; } __attribute__((packed)) gdtr = { sizeof gdt - 1, (u64)gdt }, idtr;
    asm volatile("lgdt %0; ltr %w1" : : "m"(gdtr), "r"(TSS_SEL) : "memory");
    asm volatile("sidt %0" : "=m"(idtr));
    ((u8 *)idtr.base)[VEC_SYSCALL80 * 16 + 5] |= 3 << 5;    /* the gate's DPL */
    wrmsr(MSR_STAR, (u64)USER32_CS_SEL << 48 | (u64)KERNEL_CS_SEL << 32);
    wrmsr(MSR_LSTAR, (u64)paging_syscall_entry);
    wrmsr(MSR_FMASK, 0x200);                            /* IF */
}

void paging_arch_init(void)
{
    unsigned long cr3;
    asm volatile("mov %%cr3, %0" : "=r"(cr3));
    pml4[0] = ((const u64 *)(cr3 & ~0xffful))[0];      /* the boot identity map */
    pml4[1] = (u64)pdpt | PTE_P | PTE_RW | PTE_US;     /* the window: user pages in it */
    pdpt[0] = (u64)pd | PTE_P | PTE_RW | PTE_US;
    pd[0] = (u64)pt | PTE_P | PTE_RW | PTE_US;
    wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE | EFER_SCE);
    asm volatile("mov %0, %%cr3" : : "r"((unsigned long)pml4) : "memory");
    user_mode_init();
}

/* int $0x80 from the user program: back to paging_enter_user's caller, at CPL 0. */
extern unsigned long paging_kernel_rsp, paging_syscalls;
extern const u8 paging_user_prog[], paging_user_prog_end[];
void paging_user_return(void);

static void on_int80(struct trap_frame *f)
{
    f->rip = (unsigned long)paging_user_return;
    f->cs = KERNEL_CS_SEL, f->ss = 0x10, f->rsp = paging_kernel_rsp, f->rflags = 0x2;
}

void paging_enter_user(unsigned long rip, unsigned long rsp);

unsigned long paging_run_user(void *code_page, unsigned long code_va, unsigned long stack_top)
{
    const u8 *p = paging_user_prog;
    for (u8 *d = code_page; p < paging_user_prog_end;)
        *d++ = *p++;
    trap_set_handler(VEC_SYSCALL80, on_int80);
    paging_syscalls = 0;
    paging_enter_user(code_va, stack_top);
    return paging_syscalls;
}

void paging_map(unsigned i, unsigned long pa, enum paging_prot prot)
{
    static const u64 bits[] = {
        [PG_NONE] = 0, [PG_RO] = PTE_P | PTE_XD, [PG_RW] = PTE_P | PTE_RW | PTE_XD,
        [PG_RWX] = PTE_P | PTE_RW, [PG_RW_NX_RESERVED] = PTE_P | PTE_RW | PTE_XD | PTE_RSVD51,
        [PG_USER_RO] = PTE_P | PTE_US | PTE_XD, [PG_USER_RW] = PTE_P | PTE_RW | PTE_US | PTE_XD,
        [PG_USER_RX] = PTE_P | PTE_US,
    };
    pt[i] = prot == PG_NONE ? 0 : pa | bits[prot];
    asm volatile("invlpg (%0)" : : "r"(paging_window + i * PAGING_PAGE) : "memory");
}

unsigned paging_fault_trapno(void)
{
    return TRAP_PF;
}

unsigned paging_fetch_fault_trapno(void)
{
    return TRAP_PF;
}

unsigned paging_user_fault_trapno(void)
{
    return TRAP_PF;
}

unsigned long paging_fault_address(const struct trap_frame *f)
{
    unsigned long cr2;
    asm volatile("mov %%cr2, %0" : "=r"(cr2));
    return cr2;
}

unsigned long paging_fault_syndrome(const struct trap_frame *f)
{
    return f->error;
}

unsigned paging_used_bits(unsigned i)
{
    return (pt[i] & PTE_A ? 1u : 0) | (pt[i] & PTE_D ? 2u : 0);
}

void paging_put_return(void *p, unsigned v, bool other_form)
{
    static const u8 forms[2][6] = {
        { 0xb8, 0, 0, 0, 0, 0xc3 },     /* mov $v, %eax; ret */
        { 0x6a, 0, 0x58, 0x90, 0x90, 0xc3 },    /* push $v; pop %rax; nop; nop; ret */
    };
    volatile u8 *b = p;
    for (unsigned i = 0; i < sizeof forms[0]; i++)
        b[i] = forms[other_form][i];
    b[1] = (u8)v;
}
