/* test_pmu_armv8.c — the PMUv3 counting model: enables, events, filters, the indirect
 * registers, overflow status, software increment, resets, and counters that do not exist. */
#include "pmu/pmu_armv8.h"
#include "testutil.h"

/* Register encodings (op0, op1, CRn, CRm, op2). */
#define PMCR 3, 3, 9, 12, 0
#define PMCNTENSET 3, 3, 9, 12, 1
#define PMCNTENCLR 3, 3, 9, 12, 2
#define PMOVSCLR 3, 3, 9, 12, 3
#define PMSWINC 3, 3, 9, 12, 4
#define PMSELR 3, 3, 9, 12, 5
#define PMCCNTR 3, 3, 9, 13, 0
#define PMXEVTYPER 3, 3, 9, 13, 1
#define PMXEVCNTR 3, 3, 9, 13, 2
#define PMOVSSET 3, 3, 9, 14, 3
#define PMEVCNTR(n) 3, 3, 14, 8 + (n) / 8, (n) % 8
#define PMEVTYPER(n) 3, 3, 14, 12 + (n) / 8, (n) % 8

static uint64_t rd(ArmPmu *p, unsigned a, unsigned b, unsigned c, unsigned d, unsigned e, uint64_t cyc, uint64_t ins)
{
    uint64_t v = 0xdead;
    ck_assert(armv8_pmu_read(p, a, b, c, d, e, cyc, ins, &v));
    return v;
}

#define RD(p, ...) rd(p, __VA_ARGS__)
#define WR(p, ...) ck_assert(armv8_pmu_write(p, __VA_ARGS__))

START_TEST(pmcr_reports_six_counters_and_the_model)
{
    ArmPmu p;
    armv8_pmu_init(&p, 0x01);
    uint64_t pmcr = RD(&p, PMCR, 0, 0);
    ck_assert_uint_eq((pmcr >> 11) & 0x1f, ARMV8_PMU_COUNTERS);
    ck_assert_uint_eq(pmcr >> 24, 0x41);
    ck_assert_uint_eq((pmcr >> 16) & 0xff, 0x01);
}
END_TEST

START_TEST(counters_count_cycles_and_instructions_only_while_enabled)
{
    ArmPmu p;
    armv8_pmu_init(&p, 0);
    WR(&p, PMEVTYPER(0), 0, 0, 0x08);                   /* INST_RETIRED */
    WR(&p, PMEVTYPER(1), 0, 0, 0x11);                   /* CPU_CYCLES */
    WR(&p, PMCNTENSET, 0, 0, 1u << 31 | 3);
    WR(&p, PMCR, 100, 10, 1);                           /* E at cycle 100, 10 insns */
    ck_assert_uint_eq(RD(&p, PMEVCNTR(0), 1100, 510), 500);
    ck_assert_uint_eq(RD(&p, PMEVCNTR(1), 1100, 510), 1000);
    ck_assert_uint_eq(RD(&p, PMCCNTR, 1100, 510), 1000);
    WR(&p, PMCNTENCLR, 2000, 900, 1);                   /* counter 0 stops at 890 */
    ck_assert_uint_eq(RD(&p, PMEVCNTR(0), 5000, 3000), 890);
    ck_assert_uint_eq(RD(&p, PMEVCNTR(1), 5000, 3000), 4900);
    WR(&p, PMCR, 6000, 3000, 0);                        /* E off: nothing counts */
    ck_assert_uint_eq(RD(&p, PMCCNTR, 9000, 4000), 5900);
}
END_TEST

START_TEST(el1_filter_bit_stops_counting)
{
    ArmPmu p;
    armv8_pmu_init(&p, 0);
    WR(&p, PMEVTYPER(2), 0, 0, 1u << 31 | 0x11);        /* P: do not count at EL1 */
    WR(&p, PMCNTENSET, 0, 0, 4);
    WR(&p, PMCR, 0, 0, 1);
    ck_assert_uint_eq(RD(&p, PMEVCNTR(2), 1000, 1000), 0);
}
END_TEST

START_TEST(overflow_sets_status_and_wraps_at_32_bits)
{
    ArmPmu p;
    armv8_pmu_init(&p, 0);
    WR(&p, PMEVTYPER(0), 0, 0, 0x08);
    WR(&p, PMEVCNTR(0), 0, 0, 0xffffff00u);
    WR(&p, PMCNTENSET, 0, 0, 1);
    WR(&p, PMCR, 0, 0, 1);
    ck_assert_uint_eq(RD(&p, PMOVSSET, 0, 0xff), 0);
    ck_assert_uint_eq(RD(&p, PMEVCNTR(0), 0, 0x100), 0);
    ck_assert_uint_eq(RD(&p, PMOVSSET, 0, 0x100), 1);
    WR(&p, PMOVSCLR, 0, 0x100, 1);
    ck_assert_uint_eq(RD(&p, PMOVSSET, 0, 0x100), 0);
}
END_TEST

START_TEST(selected_counter_through_pmxev_registers)
{
    ArmPmu p;
    armv8_pmu_init(&p, 0);
    WR(&p, PMSELR, 0, 0, 3);
    WR(&p, PMXEVTYPER, 0, 0, 0x11);
    WR(&p, PMXEVCNTR, 0, 0, 42);
    ck_assert_uint_eq(RD(&p, PMEVTYPER(3), 0, 0), 0x11);
    ck_assert_uint_eq(RD(&p, PMEVCNTR(3), 0, 0), 42);
    WR(&p, PMSELR, 0, 0, 31);                           /* PMXEVTYPER is PMCCFILTR */
    WR(&p, PMXEVTYPER, 0, 0, 1u << 31);
    ck_assert_uint_eq(RD(&p, 3, 3, 14, 15, 7, 0, 0), 1u << 31);
}
END_TEST

START_TEST(software_increment_and_reset_bits)
{
    ArmPmu p;
    armv8_pmu_init(&p, 0);
    WR(&p, PMEVTYPER(5), 0, 0, 0x00);                   /* SW_INCR */
    WR(&p, PMCNTENSET, 0, 0, 1u << 5 | 1u << 31);
    WR(&p, PMCR, 0, 0, 1);
    WR(&p, PMSWINC, 0, 0, 1u << 5);
    WR(&p, PMSWINC, 0, 0, 1u << 5 | 1u << 4);           /* counter 4 is not SW_INCR */
    ck_assert_uint_eq(RD(&p, PMEVCNTR(5), 10, 10), 2);
    WR(&p, PMCR, 10, 10, 1 | 2 | 4);                    /* P and C reset */
    ck_assert_uint_eq(RD(&p, PMEVCNTR(5), 20, 20), 0);
    ck_assert_uint_eq(RD(&p, PMCCNTR, 20, 20), 10);
}
END_TEST

START_TEST(missing_counters_are_undefined)
{
    ArmPmu p;
    uint64_t v;
    armv8_pmu_init(&p, 0);
    ck_assert(!armv8_pmu_read(&p, PMEVCNTR(6), 0, 0, &v));
    ck_assert(!armv8_pmu_write(&p, PMEVTYPER(30), 0, 0, 0));
    ck_assert(!armv8_pmu_write(&p, 3, 3, 9, 12, 6, 0, 0, 0));   /* PMCEID0 is read-only */
    ck_assert(armv8_pmu_owns(PMCR) && !armv8_pmu_owns(3, 0, 0, 0, 5));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pmu_armv8");
    TCase *t = tcase_create("pmuv3");
    tcase_add_test(t, pmcr_reports_six_counters_and_the_model);
    tcase_add_test(t, counters_count_cycles_and_instructions_only_while_enabled);
    tcase_add_test(t, el1_filter_bit_stops_counting);
    tcase_add_test(t, overflow_sets_status_and_wraps_at_32_bits);
    tcase_add_test(t, selected_counter_through_pmxev_registers);
    tcase_add_test(t, software_increment_and_reset_bits);
    tcase_add_test(t, missing_counters_are_undefined);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
