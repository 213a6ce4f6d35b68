/* test_checkpoint.c — the checkpoint reader refuses states the engine cannot take (with the
 * file and offset), and what it writes is the machine's state, not the history of restores. */
#include <string.h>
#include <unistd.h>

#include "sim/checkpoint.h"
#include "testutil.h"

/* MSR[LE] and MSR[ME] (MPC7450 RM table 2-11, bits 31 and 19 in IBM numbering). */
#define PPC_MSR_LE 0x1u
#define PPC_MSR_ME 0x1000u
/* A canonical linear address no page table of the x86 fixture maps. */
#define UNMAPPED_GDT 0x7fff00000000ull

/* Save m, restore the file into a new machine made by `make`; the restore's error, or "" if it
 * loaded. */
static const char *save_and_restore(Machine *m, Machine *(*make)(void), char *msg, size_t len)
{
    const char *path = testutil_temp_file("", 0, ".ck");
    Error err = { { 0 } };
    ck_assert_msg(checkpoint_save(m, path, &err), "checkpoint_save: %s", err.msg);
    Machine *n = make();
    bool ok = checkpoint_restore(n, path, &err);
    snprintf(msg, len, "%s", ok ? "" : err.msg);
    ck_assert_msg(ok || strstr(err.msg, path), "the refusal does not name the file: %s", err.msg);
    tm_destroy(n);
    unlink(path);
    return msg;
}

static Machine *x86_machine(void)
{
    Machine *m = tm_create(ARCH_X86_64, blob_x86_64_exc, blob_x86_64_exc_len, 0x100000, 0x100000, 0, 1);
    mach_boot(m);
    return m;
}

static Machine *ppc_machine(void)
{
    Machine *m = tm_create(ARCH_PPC32, blob_ppc32_exc, blob_ppc32_exc_len, 0, 0x3000, 0, 1);
    mach_boot(m);
    return m;
}

/* An idle event's last schedule is history: it is saved as 0, so a refused restore that queued
 * it (and the restore after, which unqueued it) leaves no trace in the next checkpoint. */
START_TEST(idle_event_is_saved_without_its_last_schedule)
{
    EventQueue q;
    Event ev;
    evq_init(&q);
    event_init(&ev, "test", NULL, NULL);
    evq_insert(&q, &ev, 1234, 56);
    evq_remove(&ev);
    Blob b;
    blob_init(&b);
    blob_event(&b, &ev);
    static const uint8_t idle[17];
    ck_assert_uint_eq(b.len, sizeof idle);
    ck_assert_msg(!memcmp(b.data, idle, sizeof idle), "an idle event saved its old when/seq");
    blob_free(&b);
    evq_destroy(&q);
}
END_TEST

/* FS's descriptor is read by the engine from the GDT; a GDT the page tables do not map made the
 * engine fault outside uc_emu_start and longjmp to a stale jump buffer (SIGSEGV). */
START_TEST(x86_fs_descriptor_outside_the_mapping_is_refused)
{
    Machine *m = x86_machine();
    uc_x86_mmr gdtr = { 0 };
    uc_reg_read(m->cl.cpus[0]->uc, UC_X86_REG_GDTR, &gdtr);
    gdtr.base = UNMAPPED_GDT;
    uc_reg_write(m->cl.cpus[0]->uc, UC_X86_REG_GDTR, &gdtr);
    char msg[512];
    save_and_restore(m, x86_machine, msg, sizeof msg);
    ck_assert_msg(strstr(msg, "fs selector 0x10 cannot be restored") && strstr(msg, "not mapped"), "%s", msg);
    tm_destroy(m);
}
END_TEST

/* The same machine with its GDT in place restores (the check refuses only what faults). */
START_TEST(x86_fs_descriptor_in_place_restores)
{
    Machine *m = x86_machine();
    char msg[512];
    ck_assert_str_eq(save_and_restore(m, x86_machine, msg, sizeof msg), "");
    tm_destroy(m);
}
END_TEST

/* MSR[LE] is not modelled (mtmsr and rfi clear it): a checkpoint with it is refused, and the
 * SPR stubs that ran before the MSR was read did not depend on the engine's old MSR. */
START_TEST(ppc_msr_le_is_refused)
{
    Machine *m = ppc_machine();
    vcpu_reg_write(m->cl.cpus[0], UC_PPC_REG_MSR, PPC_MSR_ME | PPC_MSR_LE);
    char msg[512];
    save_and_restore(m, ppc_machine, msg, sizeof msg);
    ck_assert_msg(strstr(msg, "MSR (LE, ILE, IR or DR set"), "%s", msg);
    tm_destroy(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("checkpoint");
    TCase *t = tcase_create("restore");
    tcase_set_timeout(t, 120);      /* a checkpoint of the built-in x86 board holds all its RAM */
    tcase_add_test(t, idle_event_is_saved_without_its_last_schedule);
    tcase_add_test(t, x86_fs_descriptor_outside_the_mapping_is_refused);
    tcase_add_test(t, x86_fs_descriptor_in_place_restores);
    tcase_add_test(t, ppc_msr_le_is_refused);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
