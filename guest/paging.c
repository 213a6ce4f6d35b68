/* paging: demand paging under the guest's own MMU, as a kernel does it.  Each case touches a
 * page of the demand window (include/paging.h) that is absent or mapped without the right; the
 * page fault handler records the faulting address and syndrome the architecture reports, maps
 * the page as the case says and returns, and the instruction runs again.  Then the code cases:
 * a virtual page mapped to other code (the CPU must run the new code, not what it translated
 * before), and code rewritten through a second virtual alias of its physical page.  On arm64
 * also an Access flag fault (AF is the guest's to set), a post-indexed load (FAR is the base)
 * and a store pair whose second word is on the absent page (FAR is that page's first byte). */
#include "paging.h"

/* The syndromes each case must report, per architecture, in the order of syn_case; and the
 * accessed/dirty state a write leaves. */
enum syn_case { S_READ_NP, S_WRITE_NP, S_WRITE_RO, S_FETCH_NX, S_READ_BAD, S_AF_POST, S_PAIR_NP, S_READ_SEA,
                S_USER_READ_NP, S_USER_WRITE_RO, S_USER_READ_SUPER };
#if defined(__x86_64__)
/* #PF error code: P 1, W/R 2, U/S 4, RSVD 8, I/D 16 (Intel SDM vol. 3A §4.7) */
static const unsigned long syn[] = { 0x0, 0x2, 0x3, 0x11, 0x9, 0, 0, 0, 0x4, 0x7, 0x5 };
#define HAVE_USER_CASES           /* arch/x86_64/paging_user.S */
#define WRITTEN 3u                  /* A and D */
#elif defined(__aarch64__)
/* ESR_EL1 (Arm ARM DDI 0487 D17.2): EC 0x25 Data Abort / 0x21 Instruction Abort from the
 * current EL (bits 31:26), IL (bit 25), FnV (bit 10), WnR (bit 6), the fault status code with
 * the level (3): 0b000111 translation, 0b001111 permission, 0b000011 address size, 0b001011
 * access flag; 0b010000 synchronous external abort. */
static const unsigned long syn[] = { 0x96000007, 0x96000047, 0x9600004f, 0x8600000f, 0x96000003, 0x9600000b,
                                     0x96000047, 0x96000410,
                                     /* from EL0: EC 0x24 Data Abort from a lower EL; IL = 1 (ISV
                                      * is 0 for faults reported in ESR_EL1) */
                                     0x92000007, 0x9200004f, 0x9200000f };
#define HAVE_USER_CASES           /* arch/arm64/paging_user.S */
#define WRITTEN 1u                  /* AF only: no dirty state without FEAT_HAFDBS's DBM */
#elif defined(__powerpc__)
/* DSI: DSISR (PEM table 6-11): 0x40000000 no translation, 0x08000000 protection, 0x04000000
 * direct-store segment, 0x02000000 a store.  ISI: SRR1 bits 0-15 (PEM table 6-13): 0x10000000
 * a fetch from guarded storage.  The "reserved" case is a direct-store segment here
 * (arch/ppc32/paging.c). */
static const unsigned long syn[] = { 0x40000000, 0x42000000, 0x0a000000, 0x10000000, 0x04000000, 0, 0, 0,
                                     0x40000000, 0x0a000000, 0x08000000 };
#define HAVE_USER_CASES           /* arch/ppc32/paging_user.S */
#define WRITTEN 3u                  /* R and C */
#define BAD_CASE "read, direct-store segment"
#endif
#ifndef BAD_CASE
#define BAD_CASE "read, reserved bit"
#endif

static u8 pool[PAGING_PAGES][PAGING_PAGE] __attribute__((aligned(4096)));

static struct {
    unsigned page;                  /* the window page the handler maps ... */
    enum paging_prot prot;          /* ... so */
    unsigned taken;
    unsigned long addr, syndrome;
} fix;

static unsigned failed;

static unsigned long window_page(unsigned i)
{
    return paging_window + i * PAGING_PAGE;
}

static void on_fault(struct trap_frame *f)
{
    fix.taken++;
    fix.addr = paging_fault_address(f);
    fix.syndrome = paging_fault_syndrome(f);
    paging_map(fix.page, (unsigned long)pool[fix.page], fix.prot);
}

static void expect(const char *name, unsigned long offset, unsigned long syndrome, unsigned used)
{
    bool good = fix.taken == 1 && fix.addr == paging_window + offset && fix.syndrome == syndrome &&
                paging_used_bits(fix.page) == used;
    printf("paging: %s: fault at window+0x%lx syndrome=0x%lx, accessed/dirty %u: %s\n", name,
           fix.addr - paging_window, fix.syndrome, paging_used_bits(fix.page), good ? "ok" : "WRONG");
    failed += !good;
}

/* Arm the handler: the next fault maps window page i with prot. */
static void arm(unsigned i, enum paging_prot now, enum paging_prot fixed)
{
    paging_map(i, (unsigned long)pool[i], now);
    fix.page = i, fix.prot = fixed, fix.taken = 0, fix.addr = fix.syndrome = 0;
}

typedef unsigned (*code_fn)(void);

static unsigned call_window(unsigned i)
{
    return ((code_fn)window_page(i))();
}

static void data_cases(void)
{
    arm(0, PG_NONE, PG_RW);
    unsigned long v = *(volatile unsigned long *)(window_page(0) + 0x10);
    expect("read, not present", 0x10, syn[S_READ_NP], 1);
    failed += v != 0;
    arm(1, PG_NONE, PG_RW);
    *(volatile u32 *)(window_page(1) + 0x123) = 0x55;
    expect("write, not present", 0x1123, syn[S_WRITE_NP], WRITTEN);
    arm(2, PG_RO, PG_RW);
    *(volatile u8 *)(window_page(2) + 0xfff) = 1;
    expect("write, read-only", 0x2fff, syn[S_WRITE_RO], WRITTEN);
    arm(4, PG_RW_NX_RESERVED, PG_RW);
    v = *(volatile unsigned long *)(window_page(4) + 0x8);
    expect(BAD_CASE, 0x4008, syn[S_READ_BAD], 1);
#if defined(__powerpc__)
    /* dcbz translates its block as a store (the data cache is on: arch/ppc32/paging.c); DAR is
     * the EA it computed, and the block is zeroed once the page is there */
    arm(14, PG_NONE, PG_RW);
    pool[14][0x5f] = 1;
    asm volatile("dcbz 0, %0" : : "r"(window_page(14) + 0x44) : "memory");
    expect("dcbz, not present", 0xe044, syn[S_WRITE_NP], WRITTEN);
    failed += pool[14][0x5f] != 0;
    /* on a caching-inhibited page an alignment exception: DAR the EA, DSISR dcbz's opcode bits
     * (0x5f << 10, PEM table 6-14; Linux align.c's DCBZ) with rA = 0 */
    trap_set_handler(TRAP_VEC(0x600), on_fault);
    arm(15, PG_RW_UNCACHED, PG_RW);
    asm volatile("dcbz 0, %0" : : "r"(window_page(15) + 0x84) : "memory");
    expect("dcbz, caching-inhibited page: alignment", 0xf084, 0x17c00, WRITTEN);
#endif
#if defined(__aarch64__)
    arm(9, PG_RW_NO_AF, PG_RW);
    unsigned long base = window_page(9) + 0x18;
    asm volatile("ldr %0, [%1], #16" : "=r"(v), "+r"(base) : : "memory");
    expect("read post-indexed, access flag", 0x9018, syn[S_AF_POST], 1);
    failed += base != window_page(9) + 0x28;
    arm(10, PG_NONE, PG_RW);
    asm volatile("stp %0, %0, [%1]" : : "r"(0ul), "r"(window_page(10) - 8) : "memory");
    expect("write pair, second word absent", 0xa000, syn[S_PAIR_NP], WRITTEN);
    /* A page with no memory behind it: a synchronous external abort.  pmusim knows only the
     * physical address, so FAR_EL1 keeps what it held and ISS.FnV says it is not valid. */
    paging_map(11, 0x20000000ul, PG_RW);
    fix.page = 11, fix.prot = PG_RW, fix.taken = 0, fix.addr = fix.syndrome = 0;
    asm volatile("msr far_el1, %0" : : "r"(window_page(11) + 0x40));
    v = *(volatile unsigned long *)(window_page(11) + 0x80);
    expect("read, no memory behind the page (FAR kept)", 0xb040, syn[S_READ_SEA], 1);
#endif
}

static void code_cases(void)
{
    paging_put_return(pool[3], 42, false);
    arm(3, PG_RW, PG_RWX);
    unsigned r = call_window(3);
    expect("fetch, no-execute", 0x3000, syn[S_FETCH_NX], 1);
    failed += r != 42;

    paging_put_return(pool[5], 1, false);
    paging_put_return(pool[6], 2, true);
    paging_map(5, (unsigned long)pool[5], PG_RWX);
    unsigned before = call_window(5);
    paging_map(5, (unsigned long)pool[6], PG_RWX);      /* the same virtual page, other code */
    unsigned after = call_window(5);
    printf("paging: remapped code: %u then %u: %s\n", before, after, before == 1 && after == 2 ? "ok" : "WRONG");
    failed += before != 1 || after != 2;

    paging_put_return(pool[7], 3, false);
    paging_map(7, (unsigned long)pool[7], PG_RWX);
    paging_map(8, (unsigned long)pool[7], PG_RW);       /* a second virtual page, writable */
    before = call_window(7);
    paging_put_return((void *)window_page(8), 4, true);
    after = call_window(7);
    printf("paging: code written through an alias: %u then %u: %s\n", before, after,
           before == 3 && after == 4 ? "ok" : "WRONG");
    failed += before != 3 || after != 4;
}

#ifdef HAVE_USER_CASES
/* User mode: the faults of the architecture's user program (paging_run_user), each fixed by
 * the handler in turn, then its system call. */
static const struct { unsigned page; enum paging_prot fixed; } user_plan[] = {
    { 10, PG_USER_RW }, { 12, PG_USER_RW }, { 13, PG_USER_RO },
};
static struct { unsigned long addr, syndrome; } user_seen[3];
static unsigned user_taken;

static void on_user_fault(struct trap_frame *f)
{
    if (user_taken >= 3)
        panic("paging: an unexpected user fault at 0x%lx\n", paging_fault_address(f));
    user_seen[user_taken].addr = paging_fault_address(f);
    user_seen[user_taken].syndrome = paging_fault_syndrome(f);
    paging_map(user_plan[user_taken].page, (unsigned long)pool[user_plan[user_taken].page],
               user_plan[user_taken].fixed);
    user_taken++;
}

static void user_cases(void)
{
    static const unsigned long offset[] = { 0xa020, 0xc008, 0xd000 };
    static const char *const what[] = { "user read, not present", "user write, read-only",
                                        "user read, supervisor page" };
    paging_map(9, (unsigned long)pool[9], PG_USER_RX);
    paging_map(10, 0, PG_NONE);
    paging_map(11, (unsigned long)pool[11], PG_USER_RW);      /* the user stack */
    paging_map(12, (unsigned long)pool[12], PG_USER_RO);
    paging_map(13, (unsigned long)pool[13], PG_RW);
    trap_set_handler(paging_user_fault_trapno(), on_user_fault);
    unsigned long calls = paging_run_user(pool[9], window_page(9), window_page(12));
    trap_set_handler(paging_user_fault_trapno(), on_fault);
    for (unsigned i = 0; i < 3; i++) {
        bool good = i < user_taken && user_seen[i].addr == paging_window + offset[i] &&
                    user_seen[i].syndrome == syn[S_USER_READ_NP + i];
        printf("paging: %s: fault at window+0x%lx syndrome=0x%lx: %s\n", what[i],
               user_seen[i].addr - paging_window, user_seen[i].syndrome, good ? "ok" : "WRONG");
        failed += !good;
    }
    unsigned long answer = *(volatile unsigned long *)window_page(10);
    printf("paging: user system calls %lu, answer %lu: %s\n", calls, answer,
           calls == 1 && answer == 42 ? "ok" : "WRONG");
    failed += calls != 1 || answer != 42;
}
#endif

int main(void)
{
    paging_arch_init();
    trap_set_handler(paging_fault_trapno(), on_fault);
    trap_set_handler(paging_fetch_fault_trapno(), on_fault);
    data_cases();
    code_cases();
#ifdef HAVE_USER_CASES
    user_cases();
#endif
    if (failed) {
        printf("paging: %u failed\n", failed);
        return GUEST_EXIT_FAIL;
    }
    printf("paging: all done\n");
    return 0;
}
