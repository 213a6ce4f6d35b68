/* test_pmu_mpc7450.c — the MPC7450 performance monitor on a running CPU (fixture
 * tests/unit/blobs/ppc32_pmu.s): a counter preset to 0x80000000 - N counting instructions raises
 * 0xF00 with SIAR on exactly the N-th instruction and SRR0 on the next; PMXE is cleared; with
 * MSR[EE] = 0 the exception is held and taken right after the mtmsr that sets EE; FCECE freezes
 * the counters (not while TRIGGER is set, which an enabled condition releases instead); TBEE
 * transitions; SIAR kept while FC is set; user aliases are read-only; and the SPR access rules
 * at register level. */
#include "pmu/pmu_mpc7450.h"
#include "testutil.h"
#include "tracer/profile.h"

static Machine *fixture(uint64_t entry)
{
    return tm_create(ARCH_PPC32, blob_ppc32_pmu, blob_ppc32_pmu_len, 0, entry, 0, 1);
}

static uint32_t r(Machine *m, unsigned n)
{
    return (uint32_t)vcpu_reg_read(m->cl.cpus[0], UC_PPC_REG_0 + (int)n);
}

START_TEST(overflow_exception_on_the_nth_instruction)
{
    Machine *m = fixture(0x3000);
    ck_assert_int_eq(tm_run(m), 1);                     /* the handler's debug-exit, code 0 */
    ck_assert_uint_eq(r(m, 20), tm_read(m, 0x2ff0, 4));     /* SIAR: the 100th nop */
    ck_assert_uint_eq(r(m, 21), tm_read(m, 0x2ff4, 4));     /* SRR0: the next instruction */
    ck_assert_uint_eq(r(m, 22) & MMCR0_PMXE, 0);            /* hardware cleared PMXE */
    ck_assert_uint_eq(r(m, 22) & MMCR0_FC, 0);
    ck_assert_uint_eq(r(m, 23), 0x80000003u);               /* still counting in the handler */
    tm_destroy(m);
}
END_TEST

START_TEST(exception_held_while_ee_is_clear_and_fcece_freezes)
{
    Machine *m = fixture(0x3400);
    ck_assert_int_eq(tm_run(m), 1);
    ck_assert_uint_eq(r(m, 25) & 0x00080000u, 0x00080000u); /* mtspr UPMC1: illegal */
    ck_assert_uint_eq(r(m, 24), 0x80000000u);               /* frozen when it became negative */
    ck_assert_uint_eq(r(m, 21), tm_read(m, 0x2ff8, 4));     /* taken right after mtmsr EE */
    ck_assert_uint_eq(r(m, 22) & (MMCR0_FC | MMCR0_PMXE), MMCR0_FC);
    ck_assert_uint_eq(r(m, 23), 0x80000000u);               /* frozen in the handler too */
    tm_destroy(m);
}
END_TEST

/* Register level, on a CPU that does not run. */
static Mpc7450Pmu *pmu_of(Machine *m)
{
    extern Mpc7450Pmu *vcpu_ppc32_pmu(Cpu *c);
    return vcpu_ppc32_pmu(m->cl.cpus[0]);
}

START_TEST(spr_access_rules)
{
    Machine *m = fixture(0x3000);
    mach_boot(m);
    Mpc7450Pmu *p = pmu_of(m);
    uint32_t v;
    ck_assert_int_eq(mpc7450_pmu_mfspr(p, 953, true, &v), SPR_PRIVILEGED);    /* PMC1 in user mode */
    ck_assert_int_eq(mpc7450_pmu_mtspr(p, 952, true, 0), SPR_PRIVILEGED);
    ck_assert_int_eq(mpc7450_pmu_mfspr(p, 937, true, &v), SPR_OK);            /* UPMC1 in user mode */
    ck_assert_int_eq(mpc7450_pmu_mtspr(p, 937, false, 0), SPR_ILLEGAL);       /* aliases read-only */
    ck_assert_int_eq(mpc7450_pmu_mtspr(p, 955, false, 0), SPR_ILLEGAL);       /* SIAR read-only */
    ck_assert_int_eq(mpc7450_pmu_mtspr(p, 953, false, 1234), SPR_OK);
    ck_assert_int_eq(mpc7450_pmu_mfspr(p, 937, true, &v), SPR_OK);
    ck_assert_uint_eq(v, 1234);                                                /* the alias reads PMC1 */
    ck_assert_int_eq(mpc7450_pmu_mfspr(p, 1, false, &v), SPR_NOT_MINE);
    tm_destroy(m);
}
END_TEST

/* Freeze conditions and TRIGGER, counting cycles by setting the CPU's clock by hand. */
START_TEST(freeze_conditions_and_trigger)
{
    Machine *m = fixture(0x3000);
    mach_boot(m);
    Cpu *c = m->cl.cpus[0];
    Mpc7450Pmu *p = pmu_of(m);
    uint32_t v;
    /* PMC1 and PMC2 count cycles (selector 1); FCP: frozen in problem state */
    mpc7450_pmu_mtspr(p, 952, false, MMCR0_FCP | 1u << 6 | 1u);
    c->cycles += 100;
    mpc7450_pmu_mfspr(p, 953, false, &v);
    ck_assert_uint_eq(v, 100);
    mpc7450_pmu_set_msr(p, 1u << 14);                   /* PR = 1 */
    c->cycles += 100;
    mpc7450_pmu_mfspr(p, 953, false, &v);
    ck_assert_uint_eq(v, 100);                          /* frozen */
    mpc7450_pmu_set_msr(p, MSR_PMM);                    /* PR = 0, PMM = 1 */
    mpc7450_pmu_mtspr(p, 952, false, MMCR0_FCM1 | 1u << 6 | 1u);
    c->cycles += 50;
    mpc7450_pmu_mfspr(p, 953, false, &v);
    ck_assert_uint_eq(v, 100);                          /* frozen by FCM1 with PMM set */
    mpc7450_pmu_set_msr(p, 0);
    c->cycles += 50;
    mpc7450_pmu_mfspr(p, 953, false, &v);
    ck_assert_uint_eq(v, 150);
    /* TRIGGER: PMC2 holds until PMC1 goes negative */
    mpc7450_pmu_mtspr(p, 953, false, 0x80000000u - 10);
    mpc7450_pmu_mtspr(p, 954, false, 0);
    mpc7450_pmu_mtspr(p, 952, false, MMCR0_TRIGGER | 1u << 6 | 1u);
    c->cycles += 5;
    mpc7450_pmu_mfspr(p, 954, false, &v);
    ck_assert_uint_eq(v, 0);
    c->cycles += 5;                                     /* PMC1 negative now */
    evq_run_due(&c->events, c->cycles);
    c->cycles += 7;
    mpc7450_pmu_mfspr(p, 954, false, &v);
    ck_assert_uint_eq(v, 7);
    mpc7450_pmu_mfspr(p, 952, false, &v);
    ck_assert_uint_eq(v & MMCR0_TRIGGER, 0);            /* cleared by the transition */
    tm_destroy(m);
}
END_TEST

/* Event 3 counts 0 -> 1 transitions of the TBSEL bit; TBEE makes each one an enabled
 * condition.  The board's timebase is 100 MHz against a 1 GHz core: 10 cycles a tick. */
START_TEST(timebase_transitions_and_tbee)
{
    Machine *m = fixture(0x3000);
    mach_boot(m);
    Cpu *c = m->cl.cpus[0];
    Mpc7450Pmu *p = pmu_of(m);
    uint32_t v;
    mpc7450_pmu_mtspr(p, 953, false, 0);
    mpc7450_pmu_mtspr(p, 952, false, 3u << 6);          /* PMC1: TBSEL=0 (TBL[31]) transitions */
    c->cycles += 1000;                                  /* 100 ticks: TB values 1, 3, ..., 99 */
    mpc7450_pmu_mfspr(p, 953, false, &v);
    ck_assert_uint_eq(v, 50);
    mpc7450_pmu_mtspr(p, 953, false, 0);
    mpc7450_pmu_mtspr(p, 952, false, 1u << 23 | 3u << 6);   /* TBSEL=01: TBL[23], every 512 ticks */
    c->cycles += 10 * 1024;                             /* TB 100 -> 1124: bit 8 rises at 256, 768 */
    mpc7450_pmu_mfspr(p, 953, false, &v);
    ck_assert_uint_eq(v, 2);
    /* TBEE with PMXE: the next transition of TBL[23] raises the exception, SIAR and all */
    mpc7450_pmu_mtspr(p, 952, false, 1u << 23 | MMCR0_TBEE | MMCR0_PMXE);
    ck_assert(!p->pending);
    c->cycles = 12790;                                  /* TB 1279: the next 0 -> 1 of bit 8 is at 1280 */
    evq_run_due(&c->events, c->cycles);
    ck_assert(!p->pending);
    ck_assert(!c->pins.pmi);
    c->cycles = 12800;
    evq_run_due(&c->events, c->cycles);
    ck_assert(p->pending);
    ck_assert(c->pins.pmi);                             /* the line to the CPU's pin is high */
    mpc7450_pmu_taken(p);
    ck_assert(!c->pins.pmi);                            /* and low once the exception is taken */
    mpc7450_pmu_mfspr(p, 952, false, &v);
    ck_assert_uint_eq(v & MMCR0_PMXE, 0);
    tm_destroy(m);
}
END_TEST

/* Two counters becoming negative on the same instruction share one exception, and each is a
 * sample (the handler finds both negative); a condition while PMXE is clear is none. */
START_TEST(simultaneous_overflows_are_one_exception_two_samples)
{
    Machine *m = fixture(0x3000);
    mach_boot(m);
    m->profile = xcalloc(1, sizeof *m->profile);
    profile_init(m->profile);
    Cpu *c = m->cl.cpus[0];
    Mpc7450Pmu *p = pmu_of(m);
    uint32_t v;
    mpc7450_pmu_mtspr(p, 953, false, 0x80000000u - 10);
    mpc7450_pmu_mtspr(p, 954, false, 0x80000000u - 10);
    mpc7450_pmu_mtspr(p, 957, false, 0x80000000u - 12);
    mpc7450_pmu_mtspr(p, 956, false, 1u << 27);         /* PMC3: cycles */
    mpc7450_pmu_mtspr(p, 952, false, MMCR0_PMXE | MMCR0_PMC1CE | MMCR0_PMCnCE | 1u << 6 | 1u);
    c->cycles += 10;
    evq_run_due(&c->events, c->cycles);
    ck_assert(p->pending);
    ck_assert_uint_eq(m->profile->nsamples, 2);
    ck_assert_str_eq(m->profile->samples[0].counter, "PMC1");
    ck_assert_str_eq(m->profile->samples[1].counter, "PMC2");
    mpc7450_pmu_mfspr(p, 952, false, &v);
    ck_assert_uint_eq(v & MMCR0_PMXE, 0);
    c->cycles += 2;                                     /* PMC3 negative, PMXE clear: no sample */
    evq_run_due(&c->events, c->cycles);
    mpc7450_pmu_mfspr(p, 957, false, &v);
    ck_assert_uint_eq(v, 0x80000000u);
    ck_assert_uint_eq(m->profile->nsamples, 2);
    tm_destroy(m);
}
END_TEST

/* Load and store instructions completed (PMC2 selector 26, PMC1 selector 20): the counter goes
 * negative on exactly the N-th load or store, also in the middle of a block. */
START_TEST(loads_and_stores_completed_overflow_on_the_nth)
{
    Machine *m = fixture(0x3800);
    ck_assert_int_eq(tm_run(m), 1);
    ck_assert_uint_eq(r(m, 20), tm_read(m, 0x3fe4, 4));     /* SIAR: the lwz */
    ck_assert_uint_eq(r(m, 21), tm_read(m, 0x3fe4, 4) + 4); /* SRR0: the addi after it */
    ck_assert_uint_eq(r(m, 8), 9);                          /* in the 10th iteration */
    tm_destroy(m);
    m = fixture(0x3c00);
    ck_assert_int_eq(tm_run(m), 1);
    ck_assert_uint_eq(r(m, 20), tm_read(m, 0x3fe8, 4));     /* SIAR: the 3rd store (sth) */
    ck_assert_uint_eq(r(m, 21), tm_read(m, 0x3fe8, 4) + 4);
    ck_assert_uint_eq(r(m, 23), 0x80000000u);               /* no store since: the handler reads it first */
    tm_destroy(m);
}
END_TEST

/* MMCR0[FCECE] with TRIGGER = 1 (MPC7450 RM ch. 11, MMCR0 FCECE: "treated as if it were 0"): an
 * enabled condition then releases the trigger instead of freezing; once TRIGGER is clear the
 * next enabled condition freezes.  The manual's first TRIGGER use, with PMC1CE set. */
START_TEST(fcece_with_trigger_releases_then_freezes)
{
    Machine *m = fixture(0x3000);
    mach_boot(m);
    Cpu *c = m->cl.cpus[0];
    Mpc7450Pmu *p = pmu_of(m);
    uint32_t v;
    mpc7450_pmu_mtspr(p, 953, false, 0x80000000u - 10);
    mpc7450_pmu_mtspr(p, 954, false, 0x80000000u - 5);
    mpc7450_pmu_mtspr(p, 952, false, MMCR0_FCECE | MMCR0_TRIGGER | MMCR0_PMC1CE | MMCR0_PMCnCE | 1u << 6 | 1u);
    c->cycles += 10;                                    /* PMC1 negative: an enabled condition */
    evq_run_due(&c->events, c->cycles);
    mpc7450_pmu_mfspr(p, 952, false, &v);
    ck_assert_uint_eq(v & (MMCR0_FC | MMCR0_TRIGGER), 0);   /* released, not frozen */
    c->cycles += 5;                                     /* PMC2 counted 5: negative, TRIGGER = 0 */
    evq_run_due(&c->events, c->cycles);
    mpc7450_pmu_mfspr(p, 952, false, &v);
    ck_assert_uint_eq(v & MMCR0_FC, MMCR0_FC);
    c->cycles += 100;
    mpc7450_pmu_mfspr(p, 953, false, &v);
    ck_assert_uint_eq(v, 0x80000005u);                  /* frozen from the PMC2 condition on */
    mpc7450_pmu_mfspr(p, 954, false, &v);
    ck_assert_uint_eq(v, 0x80000000u);
    tm_destroy(m);
}
END_TEST

/* A TBEE transition is an enabled condition, so it releases TRIGGER like PMC1 becoming negative
 * (MMCR0 TRIGGER and TBEE descriptions).  TBSEL = 01: TBL[23], first 0 -> 1 at TB 256, cycle
 * 2560 on the board's 100 MHz timebase and 1 GHz core. */
START_TEST(tbee_transition_releases_trigger)
{
    Machine *m = fixture(0x3000);
    mach_boot(m);
    Cpu *c = m->cl.cpus[0];
    Mpc7450Pmu *p = pmu_of(m);
    uint32_t v;
    mpc7450_pmu_mtspr(p, 954, false, 0);
    mpc7450_pmu_mtspr(p, 952, false, MMCR0_TRIGGER | MMCR0_TBEE | 1u << 23 | 1u);  /* PMC2: cycles */
    c->cycles = 2559;
    evq_run_due(&c->events, c->cycles);
    mpc7450_pmu_mfspr(p, 954, false, &v);
    ck_assert_uint_eq(v, 0);                            /* held by TRIGGER */
    c->cycles = 2560;
    evq_run_due(&c->events, c->cycles);
    c->cycles += 9;
    mpc7450_pmu_mfspr(p, 954, false, &v);
    ck_assert_uint_eq(v, 9);                            /* counting from the transition */
    mpc7450_pmu_mfspr(p, 952, false, &v);
    ck_assert_uint_eq(v & MMCR0_TRIGGER, 0);
    ck_assert(!p->pending);                             /* PMXE clear: no exception */
    tm_destroy(m);
}
END_TEST

/* SIAR is not updated while MMCR0[FC] disables counting (MMCR0 FC description; MPC7400 UM
 * §11.3.2.4), though a TBEE transition still signals the exception; with FC clear the same
 * transition sets SIAR to the last completed instruction. */
START_TEST(tbee_while_frozen_signals_without_siar)
{
    Machine *m = fixture(0x3000);
    mach_boot(m);
    Cpu *c = m->cl.cpus[0];
    Mpc7450Pmu *p = pmu_of(m);
    uint32_t v;
    p->siar = 0x1234;                                   /* an earlier sample's address */
    mpc7450_pmu_mtspr(p, 952, false, MMCR0_FC | MMCR0_PMXE | MMCR0_TBEE | 1u << 23);
    c->cycles = 2560;
    evq_run_due(&c->events, c->cycles);
    ck_assert(p->pending);
    mpc7450_pmu_mfspr(p, 952, false, &v);
    ck_assert_uint_eq(v & MMCR0_PMXE, 0);
    mpc7450_pmu_mfspr(p, 955, false, &v);
    ck_assert_uint_eq(v, 0x1234);                       /* SIAR kept */
    mpc7450_pmu_taken(p);
    mpc7450_pmu_mtspr(p, 952, false, MMCR0_PMXE | MMCR0_TBEE | 1u << 23);
    c->cycles = 2560 + 5120;                            /* the next transition, TB 768 */
    evq_run_due(&c->events, c->cycles);
    ck_assert(p->pending);
    mpc7450_pmu_mfspr(p, 955, false, &v);
    ck_assert_uint_eq(v, (uint32_t)vcpu_last_retired_pc(c));
    ck_assert_uint_ne(v, 0x1234);
    tm_destroy(m);
}
END_TEST

Suite *pmu_mpc7450_suite(void)
{
    Suite *s = suite_create("pmu_mpc7450");
    TCase *t = tcase_create("pmu");
    tcase_add_test(t, overflow_exception_on_the_nth_instruction);
    tcase_add_test(t, exception_held_while_ee_is_clear_and_fcece_freezes);
    tcase_add_test(t, spr_access_rules);
    tcase_add_test(t, freeze_conditions_and_trigger);
    tcase_add_test(t, timebase_transitions_and_tbee);
    tcase_add_test(t, simultaneous_overflows_are_one_exception_two_samples);
    tcase_add_test(t, loads_and_stores_completed_overflow_on_the_nth);
    tcase_add_test(t, fcece_with_trigger_releases_then_freezes);
    tcase_add_test(t, tbee_transition_releases_trigger);
    tcase_add_test(t, tbee_while_frozen_signals_without_siar);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return testutil_run(pmu_mpc7450_suite());
}
