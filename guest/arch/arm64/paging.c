/* paging.c (arm64) — the paging guest's MMU: the EL1&0 stage 1 regime with a 4 KiB granule and
 * a 39-bit TTBR0_EL1 range, walk from level 1 (Arm ARM DDI 0487 D8, "Translation table walk").
 * The guest maps itself flat with two 1 GiB level 1 blocks (devices below 0x40000000, RAM
 * above: docs/machines.md, the virt board) and puts the demand window at virtual 0x80000000
 * (level 1 slot 2), level 2 and level 3 tables deep.  With the MMU on its RAM is Normal memory
 * (unaligned accesses allowed); the guests still build with -mstrict-align, for the MMU-off
 * guests they share code with. */
#include "paging.h"
#include "paging_user.h"

/* Descriptor bits (DDI 0487 D8, "VMSAv8-64 translation table format descriptors") */
#define D_VALID     (1ul << 0)
#define D_TABLE     (1ul << 1)          /* a table, or a page at level 3 */
#define D_ATTR(n)   ((unsigned long)(n) << 2)   /* AttrIndx: MAIR_EL1 byte n */
#define D_USER      (1ul << 6)          /* AP[1]: EL0 may access */
#define D_RO        (1ul << 7)          /* AP[2] */
#define D_ISH       (3ul << 8)          /* SH: Inner Shareable */
#define D_AF        (1ul << 10)
#define D_PXN       (1ul << 53)
#define D_UXN       (1ul << 54)
#define D_OA40      (1ul << 40)         /* above TCR_EL1.IPS's 40 bits: an Address size fault */
enum { ATTR_DEVICE = 0, ATTR_NORMAL = 1 };
#define MAIR_VALUE  (0x04ul << 8 * ATTR_DEVICE | 0xfful << 8 * ATTR_NORMAL)   /* Device-nGnRE, Normal WB */
/* TCR_EL1: T0SZ 25 (39 bits), IRGN0/ORGN0 write-back, SH0 inner, TG0 4 KiB, EPD1 (no TTBR1
 * walks), IPS 0b010 (40 bits) */
#define TCR_VALUE   (25ul | 1ul << 8 | 1ul << 10 | 3ul << 12 | 1ul << 23 | 2ul << 32)
#define SCTLR_M     (1ul << 0)
#define SCTLR_A     (1ul << 1)
#define SCTLR_C     (1ul << 2)
#define SCTLR_I     (1ul << 12)
#define SCTLR_WXN   (1ul << 19)
#define GiB         (1ul << 30)

static u64 l1[512] __attribute__((aligned(4096)));
static u64 l2[512] __attribute__((aligned(4096)));
static u64 l3[512] __attribute__((aligned(4096)));

unsigned long paging_window = 2 * GiB;

void paging_arch_init(void)
{
    l1[0] = 0 | D_VALID | D_ATTR(ATTR_DEVICE) | D_AF | D_PXN | D_UXN;
    l1[1] = GiB | D_VALID | D_ATTR(ATTR_NORMAL) | D_ISH | D_AF | D_UXN;
    l1[2] = (u64)l2 | D_VALID | D_TABLE;
    l2[0] = (u64)l3 | D_VALID | D_TABLE;
    unsigned long sctlr;
    asm volatile("dsb ish; msr mair_el1, %0; msr tcr_el1, %1; msr ttbr0_el1, %2; isb; tlbi vmalle1; dsb nsh; isb"
                 : : "r"(MAIR_VALUE), "r"(TCR_VALUE), "r"((unsigned long)l1) : "memory");
    asm volatile("mrs %0, sctlr_el1" : "=r"(sctlr));
    sctlr = (sctlr & ~(SCTLR_A | SCTLR_WXN)) | SCTLR_M | SCTLR_C | SCTLR_I;
    asm volatile("msr sctlr_el1, %0; isb" : : "r"(sctlr) : "memory");
}

void paging_map(unsigned i, unsigned long pa, enum paging_prot prot)
{
    static const u64 bits[] = {
        [PG_NONE] = 0,
        [PG_RO] = D_VALID | D_TABLE | D_ATTR(ATTR_NORMAL) | D_ISH | D_AF | D_RO | D_PXN | D_UXN,
        [PG_RW] = D_VALID | D_TABLE | D_ATTR(ATTR_NORMAL) | D_ISH | D_AF | D_PXN | D_UXN,
        [PG_RWX] = D_VALID | D_TABLE | D_ATTR(ATTR_NORMAL) | D_ISH | D_AF | D_UXN,
        [PG_RW_NX_RESERVED] = D_VALID | D_TABLE | D_ATTR(ATTR_NORMAL) | D_ISH | D_AF | D_PXN | D_UXN | D_OA40,
        [PG_RW_NO_AF] = D_VALID | D_TABLE | D_ATTR(ATTR_NORMAL) | D_ISH | D_PXN | D_UXN,
        [PG_USER_RO] = D_VALID | D_TABLE | D_ATTR(ATTR_NORMAL) | D_ISH | D_AF | D_USER | D_RO | D_PXN | D_UXN,
        [PG_USER_RW] = D_VALID | D_TABLE | D_ATTR(ATTR_NORMAL) | D_ISH | D_AF | D_USER | D_PXN | D_UXN,
        [PG_USER_RX] = D_VALID | D_TABLE | D_ATTR(ATTR_NORMAL) | D_ISH | D_AF | D_USER | D_RO | D_PXN,
    };
    l3[i] = prot == PG_NONE ? 0 : pa | bits[prot];
    /* the store before the invalidation, the invalidation before what follows (DDI 0487 D8,
     * "Ordering and completion of TLB maintenance instructions") */
    asm volatile("dsb ishst; tlbi vaae1, %0; dsb ish; isb" : : "r"((paging_window + i * PAGING_PAGE) >> 12) : "memory");
}

unsigned paging_fault_trapno(void)
{
    return TRAP_EC_DABT_CUR;
}

unsigned paging_fetch_fault_trapno(void)
{
    return TRAP_EC_IABT_CUR;
}

unsigned paging_user_fault_trapno(void)
{
    return TRAP_EC_DABT_LOW;
}

unsigned long paging_fault_address(const struct trap_frame *f)
{
    return f->far;
}

unsigned long paging_fault_syndrome(const struct trap_frame *f)
{
    return f->esr;
}

/* No hardware update of the Access flag (no FEAT_HAFDBS) and no dirty state without DBM: the
 * handler sets AF, and D stays 0. */
unsigned paging_used_bits(unsigned i)
{
    return l3[i] & D_AF ? 1u : 0;
}

/* movz w0, #v; ret, or movz x0, #v; ret: the same size and count (a fixed-width ISA), only
 * the encodings differ.  Then the code is made visible to instruction fetches (DDI 0487
 * B2, "Concurrent modification and execution of instructions": DC CVAU, IC IVAU, DSB, ISB). */
void paging_put_return(void *p, unsigned v, bool other_form)
{
    volatile u32 *w = p;
    w[0] = other_form ? 0xd2800000u | v << 5            /* movz x0, #v */
                      : 0x52800000u | v << 5;           /* movz w0, #v */
    w[1] = 0xd65f03c0u;                                 /* ret */
    asm volatile("dc cvau, %0; dsb ish; ic ivau, %0; dsb ish; isb" : : "r"(p) : "memory");
}

/* User mode (paging_user.S).  SVC_ANSWER answers x0 + 1; SVC_EXIT returns to the kernel for
 * good: its ERET goes to paging_user_return at EL1h, on the stack paging_enter_user left in
 * SP_EL1. */
extern const u8 paging_user_prog[], paging_user_prog_end[];
void paging_enter_user(unsigned long pc, unsigned long sp);
void paging_user_return(void);
static unsigned long user_calls;

static void on_svc(struct trap_frame *f)
{
    if (f->kind >> 2 != KIND_LOWER_A64)
        panic("paging: an SVC from EL1 at 0x%lx\n", f->elr);
    switch (ESR_ISS(f->esr) & 0xffff) {
    case SVC_ANSWER:
        f->x[0]++;
        user_calls++;
        return;
    case SVC_EXIT:
        f->elr = (unsigned long)paging_user_return;
        f->spsr = SPSR_EL1H_MASKED;
        return;
    }
    panic("paging: unknown system call %lu\n", ESR_ISS(f->esr) & 0xffff);
}

/* The program is copied through the kernel's map and made visible to instruction fetches word
 * by word (the smallest cache line the architecture allows is one word, CTR_EL0). */
unsigned long paging_run_user(void *code_page, unsigned long code_va, unsigned long stack_top)
{
    u32 *d = code_page;
    for (const u8 *p = paging_user_prog; p < paging_user_prog_end; p += 4, d++) {
        *d = *(const u32 *)p;
        asm volatile("dc cvau, %0" : : "r"(d) : "memory");
    }
    asm volatile("dsb ish" : : : "memory");
    for (u32 *w = code_page; w < d; w++)
        asm volatile("ic ivau, %0" : : "r"(w) : "memory");
    asm volatile("dsb ish; isb" : : : "memory");
    trap_set_handler(TRAP_EC_SVC64, on_svc);
    user_calls = 0;
    paging_enter_user(code_va, stack_top);
    return user_calls;
}
