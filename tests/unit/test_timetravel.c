/* test_timetravel.c — the time-travel API (sim/timetravel.h) on the SMP guests of the three
 * architectures (2 CPUs): going to any position of the run, backwards and forwards, gives the
 * state the run had there byte for byte; a position passed or an ended run is said so;
 * reverse-stepi from the end of the run and at the first instruction; reverse-continue without
 * a breakpoint ends at the start of history, in the start's state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/checkpoint.h"
#include "sim/timetravel.h"
#include "testutil.h"


#define POINTS 8
#define STEP 997                    /* instructions of CPU 0 between two positions */

typedef struct Run {
    Machine *m;
    TimeTravel tt;
    Blob start, at[POINTS], now;
    TtPos pos[POINTS];
    int n;
} Run;

static bool same_state(Run *r, const Blob *want)
{
    checkpoint_save_blob(r->m, &r->now);
    return r->now.len == want->len && !memcmp(r->now.data, want->data, want->len);
}

/* Forward through POINTS positions of CPU 0 (fewer if the run ends), keeping each state. */
static void forward(Run *r)
{
    checkpoint_save_blob(r->m, &r->start);
    for (r->n = 0; r->n < POINTS; r->n++) {
        TtPos p = { 0, (uint64_t)(r->n + 1) * STEP, 0 };
        if (tt_run_to(&r->tt, p) != TT_REACHED)
            break;
        r->pos[r->n] = tt_pos_now(r->m, 0);
        ck_assert_uint_eq(r->pos[r->n].insns, p.insns);
        checkpoint_save_blob(r->m, &r->at[r->n]);
    }
    ck_assert_int_ge(r->n, 3);
    ck_assert_int_eq(tt_run_to_where(&r->tt, &(TtWhere){ .end = true }), TT_REACHED);
    ck_assert(r->m->cl.stopping);
}

/* Snapshots at the positions (inside rounds, a CPU paused), then each restored (the latest at
 * or before a position is the one there) and the run on from it to the next position. */
static void mid_round(Run *r)
{
    int kept = r->tt.n;
    for (int i = 0; i < r->n; i++) {
        ck_assert_int_eq(tt_goto(&r->tt, r->pos[i]), TT_REACHED);
        tt_snapshot(&r->tt);
    }
    ck_assert_int_gt(r->tt.n, kept);
    for (int i = r->n - 2; i >= 0; i--) {
        uint64_t restored = r->tt.restored;
        ck_assert_int_eq(tt_goto(&r->tt, r->pos[i]), TT_REACHED);
        ck_assert_uint_eq(r->tt.restored, restored + 1);
        ck_assert_msg(same_state(r, &r->at[i]), "the snapshot at point %d does not restore its state", i);
        ck_assert_int_eq(tt_run_to(&r->tt, r->pos[i + 1]), TT_REACHED);
        ck_assert_msg(same_state(r, &r->at[i + 1]), "on from point %d, point %d's state differs", i, i + 1);
    }
}

static void travel(Machine *m)
{
    Run r = { .m = m };
    mach_boot(m);
    tt_init(&r.tt, m);
    forward(&r);
    uint64_t end_insns = m->cl.cpus[0]->insns;
    ck_assert_int_eq(tt_run_to(&r.tt, r.pos[0]), TT_ENDED);
    for (int i = r.n - 1; i >= 0; i--) {
        ck_assert_int_eq(tt_goto(&r.tt, r.pos[i]), TT_REACHED);
        ck_assert_msg(same_state(&r, &r.at[i]), "the state at point %d differs from the forward run's", i);
    }
    ck_assert_int_eq(tt_goto(&r.tt, r.pos[r.n - 1]), TT_REACHED);       /* forwards again */
    ck_assert(same_state(&r, &r.at[r.n - 1]));
    ck_assert_int_eq(tt_run_to(&r.tt, r.pos[0]), TT_PASSED);
    mid_round(&r);
    /* from the end of the run */
    ck_assert_int_eq(tt_run_to_where(&r.tt, &(TtWhere){ .end = true }), TT_REACHED);
    TtPos back;
    ck_assert_int_eq(tt_reverse_stepi(&r.tt, 0, &back), TT_REACHED);
    ck_assert_uint_eq(back.insns, end_insns - 1);
    ck_assert_uint_eq(m->cl.cpus[0]->insns, end_insns - 1);
    ck_assert(!m->cl.stopping);
    /* no breakpoint: back to the start of history */
    ck_assert_int_eq(tt_reverse_continue(&r.tt, NULL), TT_NO_HISTORY);
    ck_assert_msg(same_state(&r, &r.start), "not at the start's state");
    ck_assert_int_eq(tt_reverse_stepi(&r.tt, 0, NULL), TT_NO_HISTORY);
    tt_destroy(&r.tt);
    blob_free(&r.start);
    blob_free(&r.now);
    for (int i = 0; i < r.n; i++)
        blob_free(&r.at[i]);
}

/* The guest `smp.elf` of arch on 2 CPUs. */
static Machine *smp_machine(Arch arch)
{
    char rel[64];
    snprintf(rel, sizeof rel, "guest/%s/smp.elf", isa_name(arch));
    MachineConfig cfg = { .kernel = testutil_build_path(rel), .arch = arch, .ncpus = 2, .console_file = "/dev/null" };
    Machine *m = calloc(1, sizeof *m);
    Error err = { { 0 } };
    if (!mach_create(m, &cfg, &err))
        ck_abort_msg("mach_create: %s", err.msg);
    return m;
}

static const Arch arches[] = { ARCH_X86_64, ARCH_ARM64, ARCH_PPC32 };

START_TEST(travel_smp)
{
    Machine *m = smp_machine(arches[_i]);
    travel(m);
    tm_destroy(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("timetravel");
    TCase *tc = tcase_create("timetravel");
    tcase_add_loop_test(tc, travel_smp, 0, ARRAY_SIZE(arches));
    suite_add_tcase(s, tc);
    return testutil_run(s);
}
