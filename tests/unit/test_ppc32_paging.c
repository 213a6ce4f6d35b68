/* test_ppc32_paging.c — pmusim's MPC7450-family MMU walk (cpu/ppc32_paging.c) on a page table in
 * a bare RAM block: real mode, the BATs (the high ones only when enabled), the segment
 * registers' keys, N and T bits, the primary and secondary hash, R and C, and every fault with
 * its DSISR or SRR1 bits (PEM tables 6-11, 6-13, 7-8, 7-10).  The paging guest covers it end to
 * end (tests/e2e/test_paging.sh). */
#include <stdlib.h>
#include <string.h>

#include "cpu/ppc32_paging.h"
#include "testutil.h"

#define HTAB 0x100000u                  /* 64 KiB: HTABMASK 0 */
#define MSR_DR 0x10u
#define MSR_IR 0x20u
#define MSR_PR 0x4000u
#define SR_KP 0x20000000u
#define SR_N 0x10000000u
#define SR_T 0x80000000u
#define VSID 0x123u

static GuestMem gm;
static Cpu *c;

static void setup(void)
{
    c = tm_bare_cpu(&gm, 0, 16u << 20);
}

static void teardown(void)
{
    tm_bare_cpu_free(c, &gm);
}

static void put_pte(uint32_t pa, uint32_t w0, uint32_t w1)
{
    store_be(mem_ptr(&gm, pa, 8), 4, w0);
    store_be(mem_ptr(&gm, pa + 4, 4), 4, w1);
}

static uint32_t pte_w1(uint32_t pa)
{
    return (uint32_t)load_be(mem_ptr(&gm, pa + 4, 4), 4);
}

/* Translates: the physical page; faults: ~0 with r.kind and r.syndrome. */
static uint64_t walk(const PpcMmuRegs *g, uint32_t ea, MmuAccess acc, MmuResult *r, PpcXlate *x)
{
    return vcpu_ppc_walk(c, g, ea, acc, false, r, x) ? r->pa : ~0ull;
}

/* Translation on: SR1 user key 1 (VSID 0x123), SR2 no-execute, SR3 direct-store; DBAT0 maps
 * 0xc0000000 (256 MiB) to 0 for the supervisor, read/write; IBAT0 the same read-only; DBAT1
 * 0xd0000000 (128 KiB) read-only; DBAT5 0xe0000000 (128 KiB) to 0x400000. */
static PpcMmuRegs regs(void)
{
    PpcMmuRegs g = { .msr = MSR_IR | MSR_DR, .nbats = 4, .sdr1 = HTAB };
    g.dbat[0][0] = 0xc0000000u | 0x7ffu << 2 | 2, g.dbat[0][1] = 0x00000000u | 0x2 << 3 | 2;
    g.ibat[0][0] = g.dbat[0][0], g.ibat[0][1] = 1;
    g.dbat[1][0] = 0xd0000000u | 2, g.dbat[1][1] = 0x00000000u | 1;
    g.dbat[5][0] = 0xe0000000u | 2, g.dbat[5][1] = 0x00400000u | 2;
    g.sr[1] = SR_KP | VSID;
    g.sr[2] = SR_N | VSID;
    g.sr[3] = SR_T | VSID;
    /* 0x1000_5000: page index 5, primary hash 0x123 ^ 5 = 0x126: PTEG HTAB + 0x126 * 64 */
    put_pte(HTAB + 0x126 * 64 + 8, 0x80000000u | VSID << 7, 0x00200000u | 2);           /* PP 10 */
    /* 0x1000_6000: secondary hash ~(0x123 ^ 6) & 0x7ffff = 0x7feda: PTEG HTAB + 0x2da * 64, H = 1 */
    put_pte(HTAB + 0x2da * 64 + 56, 0x80000000u | VSID << 7 | 0x40, 0x00201000u | 0);  /* PP 00 */
    /* 0x1000_7000 (hash 0x124): guarded, read-only (PP 11) */
    put_pte(HTAB + 0x124 * 64, 0x80000000u | VSID << 7, 0x00202000u | 1 << 3 | 3);
    /* 0x2000_5000 (SR2: no-execute segment, same VSID, same PTE) */
    return g;
}

START_TEST(real_mode_and_bats)
{
    PpcMmuRegs g = regs();
    MmuResult r;
    PpcXlate x;
    g.msr = 0;
    ck_assert_uint_eq(walk(&g, 0x80001234, MMU_WRITE, &r, &x), 0x80001000);
    ck_assert_uint_eq(r.perms, UC_PROT_ALL);
    g.msr = MSR_DR;                                     /* fetches still real */
    ck_assert_uint_eq(walk(&g, 0xc0003000, MMU_FETCH, &r, &x), 0xc0003000);
    ck_assert_uint_eq(walk(&g, 0xc0123456, MMU_WRITE, &r, &x), 0x123000);
    ck_assert(x.bat);
    ck_assert_uint_eq(x.wimg, 2);
    g.msr |= MSR_IR;
    ck_assert_uint_eq(walk(&g, 0xc0003000, MMU_FETCH, &r, &x), 0x3000);
    ck_assert_uint_eq(r.perms, UC_PROT_READ | UC_PROT_EXEC);
    ck_assert_uint_eq(walk(&g, 0xd0010000, MMU_READ, &r, &x), 0x10000);
    ck_assert_uint_eq(walk(&g, 0xd0010000, MMU_WRITE, &r, &x), ~0ull);     /* BAT PP 01 */
    ck_assert_int_eq(r.kind, PPC_MMU_DSI);
    ck_assert_uint_eq(r.syndrome, 0x0a000000);
    ck_assert_uint_eq(walk(&g, 0xd0020000, MMU_READ, &r, &x), ~0ull);      /* past BL: SR13, no PTE */
    ck_assert_uint_eq(r.syndrome, 0x40000000);
    /* a guarded IBAT: no fetch (the 74xx manuals' table 5-3: "matching xBAT[G] = 1") */
    g.ibat[1][0] = 0xd0000000u | 2, g.ibat[1][1] = 0x00000000u | 1 << 3 | 2;
    ck_assert_uint_eq(walk(&g, 0xd0000000, MMU_FETCH, &r, &x), ~0ull);
    ck_assert_int_eq(r.kind, PPC_MMU_ISI);
    ck_assert_uint_eq(r.syndrome, 0x10000000);
    /* BATs 4-7 only when enabled (HID0[HIGH_BAT_EN]) */
    ck_assert_uint_eq(walk(&g, 0xe0001000, MMU_READ, &r, &x), ~0ull);
    g.nbats = 8;
    ck_assert_uint_eq(walk(&g, 0xe0001000, MMU_READ, &r, &x), 0x401000);
    /* Vs only: not in problem state */
    g.msr |= MSR_PR;
    ck_assert_uint_eq(walk(&g, 0xc0123456, MMU_READ, &r, &x), ~0ull);
    ck_assert_uint_eq(r.syndrome, 0x40000000);
}
END_TEST

START_TEST(page_table_and_rc)
{
    PpcMmuRegs g = regs();
    MmuResult r;
    PpcXlate x;
    uint32_t pte = HTAB + 0x126 * 64 + 8;
    ck_assert(vcpu_ppc_walk(c, &g, 0x10005678, MMU_READ, true, &r, &x));  /* a probe: no R */
    ck_assert_uint_eq(pte_w1(pte) & 0x180, 0);
    ck_assert_uint_eq(walk(&g, 0x10005678, MMU_READ, &r, &x), 0x200000);
    ck_assert_uint_eq(r.perms, UC_PROT_READ | UC_PROT_EXEC);    /* no write before C is set */
    ck_assert_uint_eq(r.entry_pa, pte);
    ck_assert_uint_eq(pte_w1(pte) & 0x180, 0x100);             /* R */
    ck_assert_uint_eq(walk(&g, 0x10005678, MMU_WRITE, &r, &x), 0x200000);
    ck_assert_uint_eq(r.perms, UC_PROT_ALL);
    ck_assert_uint_eq(pte_w1(pte) & 0x180, 0x180);             /* R and C */
    /* the secondary PTEG; PP 00: supervisor read/write (Ks = 0), nothing in problem state (Kp) */
    ck_assert_uint_eq(walk(&g, 0x10006000, MMU_WRITE, &r, &x), 0x201000);
    g.msr |= MSR_PR;
    ck_assert_uint_eq(walk(&g, 0x10006000, MMU_READ, &r, &x), ~0ull);
    ck_assert_int_eq(r.kind, PPC_MMU_DSI);
    ck_assert_uint_eq(r.syndrome, 0x08000000);
    ck_assert_uint_eq(walk(&g, 0x10006000, MMU_FETCH, &r, &x), ~0ull);
    ck_assert_int_eq(r.kind, PPC_MMU_ISI);
    ck_assert_uint_eq(r.syndrome, 0x08000000);
    ck_assert_uint_eq(walk(&g, 0x10005000, MMU_READ, &r, &x), 0x200000);   /* PP 10: user read/write */
    /* PP 11: read-only for both keys; guarded: no fetch */
    ck_assert_uint_eq(walk(&g, 0x10007000, MMU_WRITE, &r, &x), ~0ull);
    ck_assert_uint_eq(r.syndrome, 0x0a000000);
    ck_assert_uint_eq(walk(&g, 0x10007000, MMU_FETCH, &r, &x), ~0ull);
    ck_assert_uint_eq(r.syndrome, 0x10000000);
    ck_assert_uint_eq(walk(&g, 0x10007000, MMU_READ, &r, &x), 0x202000);
    ck_assert_uint_eq(x.wimg, 1);
    ck_assert_uint_eq(r.perms, UC_PROT_READ);
}
END_TEST

START_TEST(segment_faults)
{
    PpcMmuRegs g = regs();
    MmuResult r;
    ck_assert_uint_eq(walk(&g, 0x20005000, MMU_READ, &r, NULL), 0x200000);
    ck_assert_uint_eq(r.perms, UC_PROT_READ);          /* no write before C, no execute (N) */
    ck_assert_uint_eq(walk(&g, 0x20005000, MMU_FETCH, &r, NULL), ~0ull);   /* N = 1 */
    ck_assert_int_eq(r.kind, PPC_MMU_ISI);
    ck_assert_uint_eq(r.syndrome, 0x10000000);
    ck_assert_uint_eq(walk(&g, 0x30005000, MMU_WRITE, &r, NULL), ~0ull);   /* T = 1 */
    ck_assert_int_eq(r.kind, PPC_MMU_DSI);
    ck_assert_uint_eq(r.syndrome, 0x06000000);
    ck_assert_uint_eq(r.entry, SR_T | VSID);
    ck_assert_uint_eq(walk(&g, 0x30005000, MMU_FETCH, &r, NULL), ~0ull);
    ck_assert_uint_eq(r.syndrome, 0x10000000);
    /* no PTE: DSI / ISI with "no translation" */
    ck_assert_uint_eq(walk(&g, 0x10008000, MMU_WRITE, &r, NULL), ~0ull);
    ck_assert_uint_eq(r.syndrome, 0x42000000);
    ck_assert_uint_eq(walk(&g, 0x10008000, MMU_FETCH, &r, NULL), ~0ull);
    ck_assert_int_eq(r.kind, PPC_MMU_ISI);
    ck_assert_uint_eq(r.syndrome, 0x40000000);
    /* a page table with no memory behind it: the table search's bus error */
    g.sdr1 = 0x20000000u;
    ck_assert_uint_eq(walk(&g, 0x10005000, MMU_READ, &r, NULL), ~0ull);
    ck_assert_int_eq(r.kind, PPC_MMU_MCHECK);
    ck_assert_uint_eq(r.entry_pa, 0x20000000u + 0x126 * 64);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ppc32_paging");
    TCase *t = tcase_create("walk");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, real_mode_and_bats);
    tcase_add_test(t, page_table_and_rc);
    tcase_add_test(t, segment_faults);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
