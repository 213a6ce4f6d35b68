/* paging.c (x86_64) — the paging guest's MMU: 4-level paging (Intel SDM vol. 3A §4.5).  The
 * guest keeps the boot identity map (PML4 slot 0, docs/guest-abi.md) and puts the demand window
 * in PML4 slot 1 (virtual 0x8000000000), four 4 KiB page tables deep. */
#include "paging.h"

#define PTE_P   (1ul << 0)
#define PTE_RW  (1ul << 1)
#define PTE_A   (1ul << 5)
#define PTE_D   (1ul << 6)
#define PTE_RSVD51 (1ul << 51)      /* above the CPU's 40 physical address bits: reserved */
#define PTE_XD  (1ul << 63)
#define MSR_EFER 0xc0000080u
#define EFER_NXE (1u << 11)

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

void paging_arch_init(void)
{
    unsigned long cr3;
    asm volatile("mov %%cr3, %0" : "=r"(cr3));
    pml4[0] = ((const u64 *)(cr3 & ~0xffful))[0];      /* the boot identity map */
    pml4[1] = (u64)pdpt | PTE_P | PTE_RW;
    pdpt[0] = (u64)pd | PTE_P | PTE_RW;
    pd[0] = (u64)pt | PTE_P | PTE_RW;
    wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
    asm volatile("mov %0, %%cr3" : : "r"((unsigned long)pml4) : "memory");
}

void paging_map(unsigned i, unsigned long pa, enum paging_prot prot)
{
    static const u64 bits[] = {
        [PG_NONE] = 0, [PG_RO] = PTE_P | PTE_XD, [PG_RW] = PTE_P | PTE_RW | PTE_XD,
        [PG_RWX] = PTE_P | PTE_RW, [PG_RW_NX_RESERVED] = PTE_P | PTE_RW | PTE_XD | PTE_RSVD51,
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
