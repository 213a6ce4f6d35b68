/* test_clock.c — event queues (ordering, removal, rescheduling) and clock-domain arithmetic. */
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "testutil.h"

static int order[64], norder;

static void record(Event *ev, void *opaque)
{
    order[norder++] = (int)(intptr_t)opaque;
}

START_TEST(evq_fires_in_when_then_seq_order)
{
    EventQueue q;
    Event ev[5];
    evq_init(&q);
    norder = 0;
    uint64_t when[5] = { 30, 10, 20, 10, 10 };
    for (int i = 0; i < 5; i++) {
        event_init(&ev[i], "t", record, (void *)(intptr_t)i);
        evq_insert(&q, &ev[i], when[i], (uint64_t)(100 - i));   /* later insert = lower seq here */
    }
    ck_assert_int_eq(evq_run_due(&q, 25), 4);
    int want[4] = { 4, 3, 1, 2 };           /* when 10 by seq (96, 97, 99), then 20 */
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(order[i], want[i]);
    ck_assert_uint_eq(evq_next(&q), 30);
    evq_destroy(&q);
}
END_TEST

START_TEST(evq_next_exact_and_lazy_look_past_the_other_kind)
{
    EventQueue q;
    Event ev[4];
    evq_init(&q);
    uint64_t when[4] = { 10, 20, 30, 40 };
    bool lazy[4] = { true, true, false, true };
    for (int i = 0; i < 4; i++) {
        event_init(&ev[i], "t", record, (void *)(intptr_t)i);
        ev[i].lazy = lazy[i];
        evq_insert(&q, &ev[i], when[i], (uint64_t)i);
    }
    ck_assert_uint_eq(evq_next_exact(&q), 30);
    ck_assert_uint_eq(evq_next_lazy(&q), 10);
    evq_remove(&ev[2]);
    ck_assert_uint_eq(evq_next_exact(&q), UINT64_MAX);
    evq_remove(&ev[0]);
    evq_remove(&ev[1]);
    ev[3].lazy = false;
    ck_assert_uint_eq(evq_next_exact(&q), 40);
    ck_assert_uint_eq(evq_next_lazy(&q), UINT64_MAX);
    evq_destroy(&q);
}
END_TEST

START_TEST(evq_remove_and_reinsert_keep_heap_order)
{
    EventQueue q;
    Event ev[32];
    evq_init(&q);
    uint32_t x = 12345;
    for (int i = 0; i < 32; i++) {
        event_init(&ev[i], "t", record, (void *)(intptr_t)i);
        x = x * 1103515245u + 12345u;
        evq_insert(&q, &ev[i], x % 1000, (uint64_t)i);
    }
    for (int i = 0; i < 32; i += 3)
        evq_remove(&ev[i]);
    for (int i = 1; i < 32; i += 5)
        evq_insert(&q, &ev[i], 500, (uint64_t)(100 + i));     /* move */
    ck_assert(!event_pending(&ev[0]));
    uint64_t last_when = 0, last_seq = 0;
    int n = 0;
    Event *e;
    while ((e = evq_peek(&q))) {
        ck_assert(e->when > last_when || (e->when == last_when && e->seq > last_seq) || n == 0);
        last_when = e->when;
        last_seq = e->seq;
        evq_remove(e);
        n++;
    }
    ck_assert_int_eq(n, 32 - 11 + 2);           /* 6 and 21 were removed, then inserted again */
    evq_destroy(&q);
}
END_TEST

static EventQueue *resched_q;

static void resched(Event *ev, void *opaque)
{
    int *count = opaque;
    if (++*count < 5)
        evq_insert(resched_q, ev, ev->when + 10, (uint64_t)*count);
}

START_TEST(evq_callback_may_reschedule_itself)
{
    EventQueue q;
    Event ev;
    int count = 0;
    evq_init(&q);
    resched_q = &q;
    event_init(&ev, "t", resched, &count);
    evq_insert(&q, &ev, 0, 0);
    ck_assert_int_eq(evq_run_due(&q, 25), 3);       /* at 0, 10, 20 */
    ck_assert_uint_eq(evq_next(&q), 30);
    ck_assert_int_eq(evq_run_due(&q, 1000), 2);     /* 30, 40; then it stops */
    ck_assert(!event_pending(&ev));
    evq_destroy(&q);
}
END_TEST

START_TEST(muldiv64_converts_without_overflow)
{
    ck_assert_uint_eq(muldiv64(2000000000ull * 3600, 62500000, 1000000000), 450000000000ull);
    ck_assert_uint_eq(muldiv64(UINT64_MAX / 2, 4, 8), UINT64_MAX / 4);
    ck_assert_uint_eq(muldiv64(7, 1, 2), 3);
}
END_TEST

START_TEST(clock_sequence_numbers_increase)
{
    Clock c;
    clk_init(&c, 1000, 1000000000);
    uint64_t a = clk_next_seq(&c), b = clk_next_seq(&c);
    ck_assert_uint_lt(a, b);
    ck_assert_uint_eq(c.quantum, 1000);
    clk_destroy(&c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("clock");
    TCase *t = tcase_create("events");
    tcase_add_test(t, evq_fires_in_when_then_seq_order);
    tcase_add_test(t, evq_remove_and_reinsert_keep_heap_order);
    tcase_add_test(t, evq_next_exact_and_lazy_look_past_the_other_kind);
    tcase_add_test(t, evq_callback_may_reschedule_itself);
    tcase_add_test(t, muldiv64_converts_without_overflow);
    tcase_add_test(t, clock_sequence_numbers_increase);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
