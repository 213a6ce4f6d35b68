/* test_arm64_paging.c — pmusim's AArch64 stage 1 walk (cpu/arm64_paging.c) on tables in a bare
 * RAM block: the granules, TTBR1, blocks per level, the table attributes, and every fault kind
 * with its level (Arm ARM DDI 0487 D8; ESR_EL1 DFSC values, D17.2).  The paging guest covers
 * the 4 KiB TTBR0 case end to end (tests/e2e/test_paging.sh). */
#include <stdlib.h>
#include <string.h>

#include "cpu/arm64_paging.h"
#include "testutil.h"

#define RAM 0x40000000ull
#define V (1ull << 0)
#define T (1ull << 1)                   /* table / page */
#define AP1 (1ull << 6)
#define AP2 (1ull << 7)
#define AF (1ull << 10)
#define PXN (1ull << 53)
#define PXN_TABLE (1ull << 59)
#define AP_RO_TABLE (1ull << 62)
#define MMFR0_PA44 4u
#define TCR_IPS40 (2ull << 32)

static GuestMem gm;
static Cpu *c;

static void setup(void)
{
    c = tm_bare_cpu(&gm, RAM, 16u << 20);
}

static void teardown(void)
{
    tm_bare_cpu_free(c, &gm);
}

static void put(uint64_t table, unsigned i, uint64_t desc)
{
    store_le(mem_ptr(&gm, table + 8 * i, 8), 8, desc);
}

/* Translates: the physical page; faults: ~0 with r.syndrome. */
static uint64_t walk(const A64PagingRegs *g, uint64_t va, MmuAccess acc, bool el0, MmuResult *r)
{
    return vcpu_a64_walk(c, g, va, acc, el0, r) ? r->pa : ~0ull;
}

/* 4 KiB granule, TTBR0, T0SZ 25: level 1 at RAM, level 2 at RAM + 0x1000, level 3 at + 0x2000. */
static A64PagingRegs regs_4k(void)
{
    uint64_t l1 = RAM, l2 = RAM + 0x1000, l3 = RAM + 0x2000;
    put(l1, 0, 0 | V | AF);                                 /* 1 GiB block */
    put(l1, 2, l2 | V | T);
    put(l2, 0, l3 | V | T);
    put(l2, 1, (RAM + 0x200000) | V | AF);                  /* 2 MiB block */
    put(l3, 1, (RAM + 0x100000) | V | T | AF);
    put(l3, 2, (RAM + 0x101000) | V | T | AF | AP1);        /* EL0 read/write */
    put(l3, 3, (RAM + 0x102000) | (1ull << 40) | V | T | AF);   /* above IPS */
    put(l3, 4, (RAM + 0x103000) | V | T);                   /* AF = 0 */
    put(l1, 3, (RAM + 0x3000) | V | T | AP_RO_TABLE);
    put(RAM + 0x3000, 0, (RAM + 0x400000) | V | AF);
    put(l1, 4, (RAM + 0x4000) | V | T | PXN_TABLE);
    put(RAM + 0x4000, 0, (RAM + 0x400000) | V | AF);
    put(l1, 5, 0x10000000 | V | T);                         /* a table outside RAM */
    return (A64PagingRegs){ .sctlr = 1, .tcr = 25 | TCR_IPS40 | 1ull << 23, .ttbr0 = l1, .mmfr0 = MMFR0_PA44 };
}

START_TEST(granule_4k_translations)
{
    A64PagingRegs g = regs_4k();
    MmuResult r;
    ck_assert_uint_eq(walk(&g, 0x80001234, MMU_READ, false, &r), RAM + 0x100000);
    ck_assert_uint_eq(r.perms, UC_PROT_ALL);
    ck_assert_uint_eq(walk(&g, 0x80205678, MMU_WRITE, false, &r), RAM + 0x205000);
    ck_assert_uint_eq(walk(&g, 0x3000, MMU_FETCH, false, &r), 0x3000);
    /* writable at EL0: privileged execute-never */
    ck_assert_uint_eq(walk(&g, 0x80002000, MMU_READ, true, &r), RAM + 0x101000);
    ck_assert_uint_eq(r.perms, UC_PROT_ALL);
    ck_assert_uint_eq(walk(&g, 0x80002000, MMU_READ, false, &r), RAM + 0x101000);
    ck_assert_uint_eq(r.perms, UC_PROT_READ | UC_PROT_WRITE);
    g.sctlr = 0;                                            /* MMU off: flat */
    ck_assert_uint_eq(walk(&g, 0x12345678, MMU_WRITE, false, &r), 0x12345000);
}
END_TEST

START_TEST(granule_4k_faults)
{
    A64PagingRegs g = regs_4k();
    MmuResult r;
    struct { uint64_t va; MmuAccess acc; bool el0; unsigned fsc; } cases[] = {
        { 0x80001000, MMU_READ, true, 0x0f },               /* EL0, AP[1] = 0: permission, level 3 */
        { 0x80005000, MMU_READ, false, 0x07 },              /* invalid page: translation, level 3 */
        { 1ull << 40, MMU_READ, false, 0x04 },              /* outside TTBR0's range: level 0 */
        { 0xffffff8000000000ull, MMU_READ, false, 0x04 },   /* TTBR1 range with EPD1 */
        { 0x80003000, MMU_READ, false, 0x03 },              /* output address above IPS */
        { 0x80004000, MMU_WRITE, false, 0x0b },             /* AF = 0 */
        { 0xc0000000, MMU_WRITE, false, 0x0e },             /* APTable read-only: level 2 block */
        { 0x100000000ull, MMU_FETCH, false, 0x0e },         /* PXNTable */
        { 0x140000000ull, MMU_READ, false, 0x16 },          /* table outside RAM: external abort, level 2 */
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_uint_eq(walk(&g, cases[i].va, cases[i].acc, cases[i].el0, &r), ~0ull);
        ck_assert_msg(r.syndrome == cases[i].fsc, "case %u: fsc 0x%llx", i, (unsigned long long)r.syndrome);
    }
    ck_assert_uint_eq(walk(&g, 0xc0000000, MMU_READ, false, &r), RAM + 0x400000);
    ck_assert_uint_eq(walk(&g, 0x140000000ull, MMU_READ, false, &r), ~0ull);
    ck_assert_uint_eq(r.entry_pa, 0x10000000);
    g.ttbr0 = 1ull << 42;                                   /* the table base above IPS: level 0 */
    ck_assert_uint_eq(walk(&g, 0x1000, MMU_READ, false, &r), ~0ull);
    ck_assert_uint_eq(r.syndrome, 0x00);
}
END_TEST

/* 64 KiB granule, TTBR1, T1SZ 16: start level 1 (VA bits 47:42), level 2 blocks of 512 MiB. */
START_TEST(granule_64k_ttbr1)
{
    uint64_t l1 = RAM + 0x10000, l2 = RAM + 0x20000, l3 = RAM + 0x30000;
    put(l1, 0, l2 | V | T);
    put(l1, 1, RAM | V | AF);                               /* a level 1 block: not with 64 KiB */
    put(l2, 0, l3 | V | T);
    put(l2, 1, RAM | V | AF);
    put(l3, 1, (RAM + 0x100000) | V | T | AF);
    A64PagingRegs g = { .sctlr = 1, .tcr = 16ull << 16 | 3ull << 30 | 1ull << 7 | TCR_IPS40, .ttbr1 = l1,
                        .mmfr0 = MMFR0_PA44 };
    MmuResult r;
    ck_assert_uint_eq(walk(&g, 0xffff000000012345ull, MMU_READ, false, &r), RAM + 0x102000);
    ck_assert_uint_eq(walk(&g, 0xffff000020001000ull, MMU_READ, false, &r), RAM + 0x1000);
    ck_assert_uint_eq(walk(&g, 0xffff040000000000ull, MMU_READ, false, &r), ~0ull);
    ck_assert_uint_eq(r.syndrome, 0x05);
    ck_assert_uint_eq(walk(&g, 0x1000, MMU_READ, false, &r), ~0ull);          /* EPD0 */
    ck_assert_uint_eq(r.syndrome, 0x04);
}
END_TEST

/* 16 KiB granule, TTBR0, T0SZ 28: start level 2 (VA bits 35:25). */
START_TEST(granule_16k)
{
    uint64_t l2 = RAM + 0x40000, l3 = RAM + 0x44000;
    put(l2, 0, l3 | V | T);
    put(l3, 3, (RAM + 0x108000) | V | T | AF | AP2 | PXN);
    A64PagingRegs g = { .sctlr = 1, .tcr = 28 | 2ull << 14 | TCR_IPS40, .ttbr0 = l2, .mmfr0 = MMFR0_PA44 };
    MmuResult r;
    ck_assert_uint_eq(walk(&g, 0xd123, MMU_READ, false, &r), RAM + 0x109000);
    ck_assert_uint_eq(r.perms, UC_PROT_READ);
    ck_assert_uint_eq(walk(&g, 0xc123, MMU_WRITE, false, &r), ~0ull);
    ck_assert_uint_eq(r.syndrome, 0x0f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("arm64_paging");
    TCase *t = tcase_create("walk");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, granule_4k_translations);
    tcase_add_test(t, granule_4k_faults);
    tcase_add_test(t, granule_64k_ttbr1);
    tcase_add_test(t, granule_16k);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
