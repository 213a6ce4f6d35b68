/* test_icache.c — the strict instruction-cache model, step by step: after a write to code a CPU
 * keeps executing the old word (emulated) until the line is cleaned (DC CVAU / dcbst + barrier),
 * the I-caches invalidated (IC IVAU / icbi + barrier; the other CPUs then refetch) and, on the
 * invalidating CPU, the pipeline synchronised (ISB / isync); maintenance in the wrong order does
 * not count.  The model is driven directly: maintenance instructions are placed in RAM and
 * "executed" through icache_trap, as the trap hook does. */
#include <string.h>
#include <unicorn/unicorn.h>

#include "cpu/icache.h"
#include "testutil.h"

static Machine *m;
static ICache ic;
static uint64_t base;

#define SITE (base + 0x2000u)
#define CODE (base + 0x2100u)          /* where the maintenance instructions are */

static void setup(Arch arch, const unsigned char *blob, unsigned len)
{
    base = arch == ARCH_ARM64 ? 0x40080000u : 0;
    m = tm_create(arch, blob, len, base, base, 0, 2);
    for (int i = 0; i < 2; i++)
        m->cl.cpus[i]->state = CPU_RUNNING;
    icache_init(&ic, &m->cl);
}

static void teardown(void)
{
    icache_destroy(&ic);
    tm_destroy(m);
}

static void put32(uint64_t addr, uint32_t w)
{
    tm_write(m, addr, 4, w);            /* in the guest's byte order */
}

/* cpu writes w over the word at SITE, as the code-write chokepoint reports it. */
static void patch(int cpu, uint32_t w)
{
    CodeWrite cw = { .cpu = cpu, .addr = SITE, .va = SITE, .size = 4 };
    memcpy(cw.old_bytes, mem_ptr(&m->mem, SITE, 4), 4);
    put32(SITE, w);
    memcpy(cw.new_bytes, mem_ptr(&m->mem, SITE, 4), 4);
    icache_on_write(&ic, &cw);
}

/* cpu executes the instruction w (placed at CODE). */
static void exec(int cpu, uint32_t w)
{
    put32(CODE, w);
    ck_assert_int_eq(icache_trap(&ic, m->cl.cpus[cpu], CODE), TRAP_NATIVE);
}

/* Does cpu execute the old word at SITE (the trap emulates it)? */
static bool stale(int cpu)
{
    return icache_trap(&ic, m->cl.cpus[cpu], SITE) == TRAP_DONE;
}

START_TEST(arm64_needs_clean_invalidate_and_isb)
{
    setup(ARCH_ARM64, blob_arm64_exc, blob_arm64_exc_len);
    put32(SITE, 0xd503201fu);                                   /* nop */
    patch(0, 0x94000040u);                                      /* bl +0x100 */
    vcpu_reg_write(m->cl.cpus[0], UC_ARM64_REG_X0, SITE);
    ck_assert(stale(0) && stale(1));
    ck_assert_uint_eq(vcpu_reg_read(m->cl.cpus[0], UC_ARM64_REG_PC), SITE + 4);  /* the old NOP ran */
    exec(0, 0xd50b7520u);                                       /* ic ivau, x0: too early */
    exec(0, 0xd5033b9fu);                                       /* dsb ish */
    ck_assert(stale(0) && stale(1));
    exec(0, 0xd50b7b20u);                                       /* dc cvau, x0 */
    ck_assert(stale(1));                                        /* not before the barrier */
    exec(0, 0xd5033b9fu);                                       /* dsb ish */
    ck_assert(stale(0) && stale(1));                            /* cleaned, still in the I-caches */
    exec(0, 0xd50b7520u);                                       /* ic ivau, x0 */
    exec(0, 0xd5033b9fu);                                       /* dsb ish */
    ck_assert(!stale(1));                                       /* broadcast: cpu 1 refetches */
    ck_assert(stale(0));                                        /* its own pipeline: no ISB yet */
    exec(0, 0xd5033fdfu);                                       /* isb */
    ck_assert(!stale(0));
    ck_assert_int_eq(ic.n, 0);                                  /* forgotten: every CPU is fresh */
    teardown();
}
END_TEST

START_TEST(ppc32_needs_dcbst_sync_icbi_sync_isync)
{
    setup(ARCH_PPC32, blob_ppc32_exc, blob_ppc32_exc_len);
    put32(SITE, 0x48000101u);                                   /* bl +0x100 */
    patch(1, 0x60000000u);                                      /* nop */
    vcpu_reg_write(m->cl.cpus[1], UC_PPC_REG_0 + 3, SITE);
    ck_assert(stale(1));
    ck_assert_uint_eq(vcpu_reg_read(m->cl.cpus[1], UC_PPC_REG_LR), SITE + 4);    /* the old bl ran */
    exec(1, 0x7c00186cu);                                       /* dcbst 0, r3 */
    exec(1, 0x7c0004acu);                                       /* sync */
    exec(1, 0x7c001facu);                                       /* icbi 0, r3 */
    ck_assert(stale(0));                                        /* not before the barrier */
    exec(1, 0x7c0004acu);                                       /* sync */
    ck_assert(!stale(0) && stale(1));
    exec(1, 0x4c00012cu);                                       /* isync */
    ck_assert(!stale(1));
    teardown();
}
END_TEST

START_TEST(an_exception_synchronises_the_context)
{
    setup(ARCH_ARM64, blob_arm64_exc, blob_arm64_exc_len);
    put32(SITE, 0xd503201fu);
    patch(0, 0x14000010u);                                      /* b +0x40 */
    vcpu_reg_write(m->cl.cpus[0], UC_ARM64_REG_X0, SITE);
    exec(0, 0xd50b7b20u);
    exec(0, 0xd5033b9fu);
    exec(0, 0xd50b7520u);
    exec(0, 0xd5033b9fu);
    ck_assert(stale(0));
    icache_context_sync(&ic, m->cl.cpus[0]);                       /* what exception entry does */
    ck_assert(!stale(0));
    teardown();
}
END_TEST

Suite *icache_suite(void)
{
    Suite *s = suite_create("icache");
    TCase *t = tcase_create("strict");
    tcase_add_test(t, arm64_needs_clean_invalidate_and_isb);
    tcase_add_test(t, ppc32_needs_dcbst_sync_icbi_sync_isync);
    tcase_add_test(t, an_exception_synchronises_the_context);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return testutil_run(icache_suite());
}
