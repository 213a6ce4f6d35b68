/* test_events.c — events scheduled on a CPU land on their exact instruction, in the middle of
 * a translated block if need be, both by cycle and by retired-instruction count. */
#include "testutil.h"

/* The x86 fixture's counting loop (entry 0x100200): `inc r14; cmp $200, r14; jne` is one
 * 3-instruction block costing 1 cycle per instruction, so every cycle is an instruction
 * boundary and an event at cycle C must fire with the CPU exactly at C. */
#define LOOP_ENTRY 0x100200

static uint64_t seen_cycles[8], seen_insns[8], seen_r14[8];
static int seen_id[8];
static int nseen;
static Cpu *cpu;

static void note(Event *ev, void *opaque)
{
    seen_cycles[nseen] = cpu->cycles;
    seen_insns[nseen] = cpu->insns;
    seen_r14[nseen] = vcpu_reg_read(cpu, UC_X86_REG_R14);
    seen_id[nseen] = (int)(intptr_t)opaque;
    nseen++;
}

static Machine *loop_machine(void)
{
    Machine *m = tm_create(ARCH_X86_64, blob_x86_64_exc, blob_x86_64_exc_len, 0x100000, LOOP_ENTRY, 0, 1);
    tm_write(m, 0x201000, 2, 0);            /* an empty IDT: nothing here faults */
    mach_boot(m);
    cpu = m->cl.cpus[0];
    nseen = 0;
    return m;
}

START_TEST(cycle_events_fire_on_their_exact_instruction)
{
    Machine *m = loop_machine();
    static Event ev[3];
    uint64_t when[3] = { 301, 302, 350 };   /* lidt costs 100: these are inside the loop */
    for (int i = 0; i < 3; i++) {
        event_init(&ev[i], "test", note, NULL);
        vcpu_schedule(cpu, &ev[i], when[i]);
    }
    mach_run(m);
    ck_assert_int_eq(nseen, 3);
    for (int i = 0; i < 3; i++)
        ck_assert_uint_eq(seen_cycles[i], when[i]);
    /* consecutive cycles are consecutive instructions, even inside one block */
    ck_assert_uint_eq(seen_insns[1], seen_insns[0] + 1);
    ck_assert_uint_eq(seen_insns[2], seen_insns[0] + 49);
    tm_destroy(m);
}
END_TEST

START_TEST(instruction_events_fire_after_exactly_n)
{
    Machine *m = loop_machine();
    static Event ev[2];
    uint64_t when[2] = { 100, 101 };
    for (int i = 0; i < 2; i++) {
        event_init(&ev[i], "test", note, NULL);
        vcpu_schedule_insns(cpu, &ev[i], when[i]);
    }
    mach_run(m);
    ck_assert_int_eq(nseen, 2);
    ck_assert_uint_eq(seen_insns[0], 100);
    ck_assert_uint_eq(seen_insns[1], 101);
    /* 4 setup instructions, then 3 per iteration: after 100, r14 was incremented 32 times */
    ck_assert_uint_eq(seen_r14[0], 32);
    tm_destroy(m);
}
END_TEST

START_TEST(simultaneous_events_fire_in_scheduling_order)
{
    Machine *m = loop_machine();
    static Event ev[3];
    for (int i = 0; i < 3; i++)
        event_init(&ev[i], "test", note, (void *)(intptr_t)i);
    vcpu_schedule(cpu, &ev[2], 400);
    vcpu_schedule(cpu, &ev[0], 400);
    vcpu_schedule(cpu, &ev[1], 400);
    mach_run(m);
    ck_assert_int_eq(nseen, 3);
    for (int i = 0; i < 3; i++)
        ck_assert_uint_eq(seen_cycles[i], 400);
    ck_assert_int_eq(seen_id[0], 2);
    ck_assert_int_eq(seen_id[1], 0);
    ck_assert_int_eq(seen_id[2], 1);
    tm_destroy(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("events");
    TCase *t = tcase_create("landing");
    tcase_add_test(t, cycle_events_fire_on_their_exact_instruction);
    tcase_add_test(t, instruction_events_fire_after_exactly_n);
    tcase_add_test(t, simultaneous_events_fire_in_scheduling_order);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
