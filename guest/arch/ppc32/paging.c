/* paging.c (ppc32) — the paging guest's MMU on the MPC7450 family (PEM ch. 7; MPC7450 RM ch. 5).
 * As Linux maps lowmem (arch/powerpc/mm/book3s32/mmu.c, setbat), the guest maps itself with BATs
 * for the supervisor only: IBAT0/DBAT0 RAM 0-128 MiB, cacheable and coherent (WIMG 0010), and
 * DBAT1 the ISA I/O window at 0x80000000 (128 KiB), caching-inhibited and guarded (WIMG 0101),
 * all identity.  The demand window is at 0x90000000, in segment 9 (SR9: VSID 0x900, Ks = 0,
 * Kp = 1, as Linux's user segments), mapped through a 64 KiB hashed page table (HTABMASK 0).
 * Even window pages go into their primary PTEG, odd ones into the secondary (H = 1).  No-execute
 * is per segment on this MMU (SR[N]) and per page only through G (an instruction fetch from a
 * guarded page is an ISI with SRR1[3]): the non-executable window pages are guarded.  The
 * "reserved" mapping of the common cases is a direct-store segment (SR9[T] = 1, which the 7450
 * family does not support: a DSI with DSISR[5]); mapping the page again clears T. */
#include "paging.h"
#include "ppc.h"

#define SPRN_SDR1   25
#define SPRN_HID0   1008
#define HID0_DCE    0x4000
#define SPRN_IBAT0U 528
#define SPRN_IBAT0L 529
#define SPRN_DBAT0U 536
#define SPRN_DBAT0L 537
#define SPRN_DBAT1U 538
#define SPRN_DBAT1L 539
#define MSR_IR      0x20
#define MSR_DR      0x10
/* BAT upper: BEPI, BL ((size / 128 KiB) - 1) << 2, Vs; lower: BRPN, WIMG << 3, PP 10 (PEM §7.4.3) */
#define BATU(ea, size)      ((ea) | (((size) >> 17) - 1) << 2 | 2)
#define BATL(pa, wimg)      ((pa) | (wimg) << 3 | 2)
#define WIMG_I      4
#define WIMG_M      2
#define WIMG_G      1
/* Segment register (PEM §7.5.2.1): T, Ks, Kp, N, VSID */
#define SR_T        0x80000000ul
#define SR_KP       0x20000000ul
#define WINDOW_VSID 0x900ul
#define WINDOW_SR   (SR_KP | WINDOW_VSID)
/* PTE (PEM §7.6.1): word 0 V, VSID << 7, H, API; word 1 RPN, R, C, WIMG << 3, PP */
#define PTE0_V      0x80000000ul
#define PTE0_H      0x40ul
#define PTE1_R      0x100ul
#define PTE1_C      0x80ul
#define HTAB_SIZE   65536ul
#define MiB         (1ul << 20)

static u32 htab[HTAB_SIZE / 4] __attribute__((aligned(HTAB_SIZE)));

unsigned long paging_window = 0x90000000ul;

#define mtspr_n(n, v) asm volatile("mtspr %0, %1" : : "i"(n), "r"((unsigned long)(v)) : "memory")

void paging_arch_init(void)
{
    mtspr_n(SPRN_IBAT0U, 0);
    mtspr_n(SPRN_IBAT0L, BATL(0ul, WIMG_M));
    mtspr_n(SPRN_IBAT0U, BATU(0ul, 128 * MiB));
    mtspr_n(SPRN_DBAT0U, 0);
    mtspr_n(SPRN_DBAT0L, BATL(0ul, WIMG_M));
    mtspr_n(SPRN_DBAT0U, BATU(0ul, 128 * MiB));
    mtspr_n(SPRN_DBAT1U, 0);
    mtspr_n(SPRN_DBAT1L, BATL(0x80000000ul, WIMG_I | WIMG_G));
    mtspr_n(SPRN_DBAT1U, BATU(0x80000000ul, 128 * 1024));
    mtspr_n(SPRN_SDR1, (unsigned long)htab);            /* HTABORG; HTABMASK 0: 64 KiB */
    asm volatile("mtsr 9, %0; isync" : : "r"(WINDOW_SR) : "memory");
    /* the data cache on (HID0[DCE], off at reset), for dcbz (MPC7450 RM §3.4.1.3, as Linux's
     * __setup_cpu_745x enables it) */
    unsigned long hid0 = mfspr(SPRN_HID0) | HID0_DCE;
    asm volatile("sync; mtspr %0, %1; sync" : : "i"(SPRN_HID0), "r"(hid0) : "memory");
    unsigned long msr;
    asm volatile("mfmsr %0; ori %0, %0, %1; mtmsr %0; isync" : "=&r"(msr) : "i"(MSR_IR | MSR_DR) : "memory");
}

/* Window page i's PTE: the primary PTEG for even i, the secondary for odd (PEM §7.6.1.3: hash =
 * VSID[5:23] ^ page index; the PTEG at HTABORG | (hash & 0x3ff) << 6 with HTABMASK 0). */
static u32 *pte_of(unsigned i, unsigned long *w0)
{
    unsigned long ea = paging_window + i * PAGING_PAGE, pidx = (ea >> 12) & 0xffff;
    unsigned long hash = (WINDOW_VSID ^ pidx) & 0x7ffff, h = i & 1;
    if (h)
        hash = ~hash & 0x7ffff;
    *w0 = PTE0_V | WINDOW_VSID << 7 | (h ? PTE0_H : 0) | pidx >> 10;
    return &htab[(hash & 0x3ff) * 16];                  /* PTE 0 of the PTEG */
}

/* PP with Ks = 0, Kp = 1 (PEM table 7-10): 00 supervisor only, 01 user read-only, 10 both
 * read/write, 11 both read-only.  G makes a page non-executable. */
static unsigned long pte1_bits(enum paging_prot prot)
{
    static const unsigned char pp[] = { [PG_RO] = 3, [PG_RW] = 0, [PG_RWX] = 0, [PG_RW_NX_RESERVED] = 0,
                                        [PG_USER_RO] = 1, [PG_USER_RW] = 2, [PG_USER_RX] = 3,
                                        [PG_RW_UNCACHED] = 0 };
    bool exec = prot == PG_RWX || prot == PG_USER_RX;
    unsigned long wimg = prot == PG_RW_UNCACHED ? WIMG_I : WIMG_M;
    return (wimg | (exec ? 0 : WIMG_G)) << 3 | pp[prot];
}

/* Linux's protocol for a PTE in use (hash_page / flush_hash_pages, PEM §7.6.3.3): invalidate
 * word 0, sync, tlbie, sync, tlbsync, sync; then word 1, eieio, word 0, sync. */
void paging_map(unsigned i, unsigned long pa, enum paging_prot prot)
{
    unsigned long w0, ea = paging_window + i * PAGING_PAGE;
    volatile u32 *pte = pte_of(i, &w0);
    pte[0] = 0;
    asm volatile("sync; tlbie %0; sync; tlbsync; sync" : : "r"(ea) : "memory");
    unsigned long sr = prot == PG_RW_NX_RESERVED ? WINDOW_SR | SR_T : WINDOW_SR;
    asm volatile("mtsrin %0, %1; isync" : : "r"(sr), "r"(ea) : "memory");
    if (prot == PG_NONE)
        return;
    pte[1] = pa | pte1_bits(prot);
    asm volatile("eieio" : : : "memory");
    pte[0] = w0;
    asm volatile("sync" : : : "memory");
}

unsigned paging_fault_trapno(void)
{
    return TRAP_VEC(0x300);
}

/* A user program's data faults are DSIs too (the MSR[PR] of SRR1 tells them apart). */
unsigned paging_user_fault_trapno(void)
{
    return TRAP_VEC(0x300);
}

unsigned paging_fetch_fault_trapno(void)
{
    return TRAP_VEC(0x400);
}

/* DSI and alignment: DAR; ISI: SRR0, the instruction that could not be fetched (PEM §6.4.3,
 * §6.4.4, §6.4.6). */
unsigned long paging_fault_address(const struct trap_frame *f)
{
    return f->vector == 0x400 ? f->srr0 : f->dar;
}

/* DSI and alignment: DSISR; ISI: SRR1 bits 0-15 (16-31 are the MSR's). */
unsigned long paging_fault_syndrome(const struct trap_frame *f)
{
    return f->vector == 0x400 ? f->srr1 & 0xffff0000ul : f->dsisr;
}

/* R and C, set by the table search (PEM §7.5.3). */
unsigned paging_used_bits(unsigned i)
{
    unsigned long w0;
    u32 w1 = ((volatile u32 *)pte_of(i, &w0))[1];
    return (w1 & PTE1_R ? 1u : 0) | (w1 & PTE1_C ? 2u : 0);
}

/* li r3, v; blr; nop, or li r3, 0; ori r3, r3, v; blr: the same size, two instructions against
 * three.  Then the code is made visible to instruction fetches (PEM §5.1.5.2: dcbst, sync, icbi,
 * sync, isync). */
void paging_put_return(void *p, unsigned v, bool other_form)
{
    volatile u32 *w = p;
    w[0] = other_form ? 0x38600000u : 0x38600000u | v;   /* li r3, v / li r3, 0 */
    w[1] = other_form ? 0x60630000u | v : 0x4e800020u;   /* ori r3, r3, v / blr */
    w[2] = other_form ? 0x4e800020u : 0x60000000u;       /* blr / nop */
    asm volatile("dcbst 0, %0; sync; icbi 0, %0; sync; isync" : : "r"(p) : "memory");
}

/* User mode (paging_user.S): the user program comes back with sc; r0 = 1 asks for r3 + 1, r0 = 0
 * ends it.  The exception vectors build their frame on the interrupted r1 in real mode (no
 * stack switch, unlike Linux's SPRG-based one), so user code runs with r1 on a kernel stack it
 * never touches (the window stack at stack_top is not used: the program needs none). */
extern unsigned long paging_kernel_sp, paging_syscalls;
extern const u8 paging_user_prog[], paging_user_prog_end[];
void paging_user_return(void);
void paging_enter_user(unsigned long pc, unsigned long sp, unsigned long msr);

static u8 user_trap_stack[8192] __attribute__((aligned(16)));

static void on_sc(struct trap_frame *f)
{
    if (f->gpr[0] == 1) {
        f->gpr[3]++;
        paging_syscalls++;
        return;
    }
    f->srr0 = (unsigned long)paging_user_return;
    f->srr1 = MSR_ME | MSR_IR | MSR_DR;
    f->gpr[1] = paging_kernel_sp;
}

/* The user program's mfmsr: a privileged-instruction program check (SRR1[13], PEM §6.4.7). */
static unsigned long user_program_srr1;

static void on_program(struct trap_frame *f)
{
    user_program_srr1 = f->srr1;
    f->srr0 += 4;
}

unsigned long paging_run_user(void *code_page, unsigned long code_va, unsigned long stack_top)
{
    (void)stack_top;
    const u8 *p = paging_user_prog;
    for (u8 *d = code_page; p < paging_user_prog_end;)
        *d++ = *p++;
    for (unsigned long a = (unsigned long)code_page; a < (unsigned long)code_page + PAGING_PAGE; a += 32)
        asm volatile("dcbst 0, %0; sync; icbi 0, %0" : : "r"(a) : "memory");
    asm volatile("sync; isync" : : : "memory");
    trap_set_handler(TRAP_SYSCALL, on_sc);
    trap_set_handler(TRAP_PROGRAM, on_program);
    paging_syscalls = 0;
    paging_enter_user(code_va, (unsigned long)(user_trap_stack + sizeof user_trap_stack),
                      MSR_PR | MSR_ME | MSR_IR | MSR_DR);
    unsigned long reason = user_program_srr1 & SRR1_REASON;
    bool good = reason == SRR1_PRIV;
    printf("paging: user mfmsr: program check, SRR1 reason 0x%lx: %s\n", reason, good ? "ok" : "WRONG");
    return good ? paging_syscalls : paging_syscalls + 100;     /* a wrong count fails the driver's check */
}
