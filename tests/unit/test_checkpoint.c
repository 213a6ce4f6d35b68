/* test_checkpoint.c — the checkpoint reader refuses states the engine cannot take (with the
 * file and offset). */
#include <string.h>
#include <unistd.h>

#include "sim/checkpoint.h"
#include "testutil.h"

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

/* FS's descriptor is read by the engine from the GDT; a GDT the page tables do not map made the
 * engine fault outside uc_emu_start and longjmp to a stale jump buffer (SIGSEGV). */
START_TEST(x86_fs_descriptor_outside_the_mapping_is_refused)
{
    Machine *m = x86_machine();
    uc_x86_mmr gdtr = { 0 };
    uc_reg_read(m->cpus[0]->uc, UC_X86_REG_GDTR, &gdtr);
    gdtr.base = UNMAPPED_GDT;
    uc_reg_write(m->cpus[0]->uc, UC_X86_REG_GDTR, &gdtr);
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

int main(void)
{
    Suite *s = suite_create("checkpoint");
    TCase *t = tcase_create("restore");
    tcase_set_timeout(t, 120);      /* a checkpoint of the built-in x86 board holds all its RAM */
    tcase_add_test(t, x86_fs_descriptor_outside_the_mapping_is_refused);
    tcase_add_test(t, x86_fs_descriptor_in_place_restores);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
