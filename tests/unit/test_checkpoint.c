/* test_checkpoint.c — the checkpoint reader refuses states the engine cannot take (with the
 * file and offset), and what it writes is the machine's state, not the history of restores;
 * sections of an older model's version load, of a newer one are refused. */
#include <stdio.h>
#include <stdlib.h>
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

/* Every segment register's descriptor is read by the engine from the GDT (Unicorn 2.1.1; 2.0.1
 * read FS's and GS's only); a GDT the page tables do not map made the engine fault outside
 * uc_emu_start and longjmp to a stale jump buffer (SIGSEGV).  CS, restored first, is refused. */
START_TEST(x86_fs_descriptor_outside_the_mapping_is_refused)
{
    Machine *m = x86_machine();
    uc_x86_mmr gdtr = { 0 };
    uc_reg_read(m->cl.cpus[0]->uc, UC_X86_REG_GDTR, &gdtr);
    gdtr.base = UNMAPPED_GDT;
    uc_reg_write(m->cl.cpus[0]->uc, UC_X86_REG_GDTR, &gdtr);
    char msg[512];
    save_and_restore(m, x86_machine, msg, sizeof msg);
    ck_assert_msg(strstr(msg, "cs selector 0x8 cannot be restored") && strstr(msg, "not mapped"), "%s", msg);
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
    ck_assert_msg(strstr(msg, "MSR (LE or ILE set"), "%s", msg);
    tm_destroy(m);
}
END_TEST

static Machine *arm64_machine(void)
{
    Machine *m = tm_create(ARCH_ARM64, blob_arm64_el0, blob_arm64_el0_len, 0x40080000, 0x40080000, 0, 1);
    mach_boot(m);
    return m;
}

/* AArch32 and EL2/EL3 are not modelled (an ERET there is an illegal return): a checkpoint whose
 * PSTATE has them is refused before the engine acts on it. */
START_TEST(arm64_pstate_aarch32_is_refused)
{
    Machine *m = arm64_machine();
    vcpu_reg_write(m->cl.cpus[0], UC_ARM64_REG_PSTATE, 0x3d3);       /* AArch32 Supervisor, DAIF */
    char msg[512];
    save_and_restore(m, arm64_machine, msg, sizeof msg);
    ck_assert_msg(strstr(msg, "PSTATE (AArch32, EL2, EL3 or a reserved mode"), "%s", msg);
    tm_destroy(m);
}
END_TEST

/* A model whose version 2 added a field between two of version 1's. */
typedef struct Widget {
    uint32_t a;
    uint64_t added;
    uint16_t c;
} Widget;

static const StateField widget_v1[] = { STATE_FIELD(Widget, a), STATE_FIELD(Widget, c) };
static const StateField widget_v2[] = { STATE_FIELD(Widget, a), STATE_FIELD_V(Widget, added, 2), STATE_FIELD(Widget, c) };

/* w saved as section "widget" of `version` with `table`. */
static void save_widget(Blob *b, const Widget *w, uint32_t version, const StateField *table, size_t n)
{
    blob_init(b);
    size_t at = blob_begin(b, "widget", version);
    blob_fields(b, w, table, n);
    blob_end(b, at);
}

/* A widget the version-2 model loads from b, starting from a fresh one's values. */
static Widget load_widget_v2(const Blob *b)
{
    Widget w = { 1, 0xfeed, 3 };
    BlobReader r;
    BrOuter outer;
    br_init(&r, b->data, b->len, 0);
    ck_assert(br_begin(&r, &outer, "widget", 2));
    ck_assert(br_fields(&r, &w, widget_v2, ARRAY_SIZE(widget_v2)));
    ck_assert_msg(br_end(&r, &outer), "%s", r.bad);
    return w;
}

START_TEST(state_field_added_later_keeps_the_fresh_value_from_an_old_section)
{
    Widget saved = { 7, 0x1234, 9 };
    Blob b;
    save_widget(&b, &saved, 1, widget_v1, ARRAY_SIZE(widget_v1));
    Widget w = load_widget_v2(&b);
    ck_assert_uint_eq(w.a, 7);
    ck_assert_uint_eq(w.c, 9);
    ck_assert_uint_eq(w.added, 0xfeed);
    blob_free(&b);
    save_widget(&b, &saved, 2, widget_v2, ARRAY_SIZE(widget_v2));
    w = load_widget_v2(&b);
    ck_assert_uint_eq(w.added, 0x1234);
    blob_free(&b);
}
END_TEST

START_TEST(state_section_newer_than_the_model_is_refused_at_its_version)
{
    Widget saved = { 7, 0x1234, 9 };
    Blob b;
    save_widget(&b, &saved, 3, widget_v2, ARRAY_SIZE(widget_v2));
    BlobReader r;
    BrOuter outer;
    br_init(&r, b.data, b.len, 100);
    ck_assert(!br_begin(&r, &outer, "widget", 2));
    ck_assert(r.newer);
    ck_assert_uint_eq(r.fail_at, 100 + 4 + 6);      /* name length, "widget", then the version */
    ck_assert_str_eq(r.bad, "the widget section has version 3; this pmusim reads it up to version 2 (the checkpoint"
                            " was taken by a newer pmusim)");
    blob_free(&b);
}
END_TEST

START_TEST(state_section_of_another_name_is_refused)
{
    Widget saved = { 0 };
    Blob b;
    save_widget(&b, &saved, 1, widget_v1, ARRAY_SIZE(widget_v1));
    BlobReader r;
    BrOuter outer;
    br_init(&r, b.data, b.len, 0);
    ck_assert(!br_begin(&r, &outer, "gadget", 1));
    ck_assert_uint_eq(r.fail_at, 0);
    ck_assert_str_eq(r.bad, "expected the gadget section, found \"widget\"");
    blob_free(&b);
}
END_TEST

/* file's bytes, and back with the CRC-32 trailer made right */
static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    uint8_t *p = xcalloc(1, *len);
    ck_assert_uint_eq(fread(p, 1, *len, f), *len);
    fclose(f);
    return p;
}

static void write_with_crc(const char *path, uint8_t *p, size_t len)
{
    store_le(p + len - 4, 4, blob_crc32(0, p, len - 4));
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(p, 1, len, f), len);
    fclose(f);
}

/* A checkpoint whose CPU backend section is of a version this pmusim does not know yet. */
START_TEST(checkpoint_section_newer_than_the_model_names_file_offset_and_versions)
{
    Machine *m = ppc_machine();
    const char *path = testutil_temp_file("", 0, ".ck");
    Error err = { { 0 } };
    ck_assert_msg(checkpoint_save(m, path, &err), "%s", err.msg);
    size_t len;
    uint8_t *p = read_all(path, &len);
    size_t at = 0;                  /* the version after the section's name */
    while (at + 9 <= len && memcmp(p + at, "\005\000\000\000ppc32", 9))
        at++;
    ck_assert_uint_lt(at + 9, len);
    at += 9;
    store_le(p + at, 4, 99);
    write_with_crc(path, p, len);
    Machine *n = ppc_machine();
    ck_assert(!checkpoint_restore(n, path, &err));
    char want[256];
    snprintf(want, sizeof want, "%s: offset %zu: the ppc32 section has version 99; this pmusim reads it up to version",
             path, at);
    ck_assert_msg(strstr(err.msg, want) && strstr(err.msg, "(inside cpu0)"), "%s", err.msg);
    free(p);
    unlink(path);
    tm_destroy(n);
    tm_destroy(m);
}
END_TEST

/* A checkpoint taken at EL0 (tests/unit/blobs/arm64_el0.s, stopped after the instruction abort
 * returned, before the MRS that is UNDEFINED at EL0): the restored CPU runs the user program at
 * EL0 (the MRS is UNDEFINED: the engine's cached EL follows the restored PSTATE), its
 * exceptions are taken on the SP_EL1 the saving run had (the engine keeps it in a bank while
 * EL0 runs), and the user's stack pops its value. */
enum { A64_EL0_MRS = 0x4008004c, A64_EL0_INSNS = 137, A64_SP_EL1 = 0x40200000, A64_SP_EL0 = 0x40180000 };

START_TEST(arm64_checkpoint_at_el0_keeps_the_el_and_sp_el1)
{
    Machine *m = tm_create(ARCH_ARM64, blob_arm64_el0, blob_arm64_el0_len, 0x40080000, 0x40080000, A64_EL0_INSNS, 1);
    ck_assert_int_eq(tm_run(m), EXIT_LIMIT);
    ck_assert_uint_eq(vcpu_reg_read(m->cl.cpus[0], UC_ARM64_REG_PC), A64_EL0_MRS);
    ck_assert_uint_eq(vcpu_reg_read(m->cl.cpus[0], UC_ARM64_REG_PSTATE) & 0xf, 0);     /* EL0t */
    const char *path = testutil_temp_file("", 0, ".ck");
    Error err = { { 0 } };
    ck_assert_msg(checkpoint_save(m, path, &err), "checkpoint_save: %s", err.msg);
    Machine *n = tm_create(ARCH_ARM64, blob_arm64_el0, blob_arm64_el0_len, 0x40080000, 0x40080000, 0, 1);
    ck_assert_msg(checkpoint_restore(n, path, &err), "checkpoint_restore: %s", err.msg);
    ck_assert_int_eq(mach_run(n), 0);
    ck_assert_uint_eq(tm_read(n, 0x40100000, 8), 6);                 /* records: 4 before, 2 after */
    uint64_t undef = 0x40100040 + 4 * 64, last = undef + 64;
    ck_assert_uint_eq(tm_read(n, undef + 8, 8), 0x02000000);           /* ESR: EC 0, IL */
    ck_assert_uint_eq(tm_read(n, undef + 16, 8), A64_EL0_MRS);
    ck_assert_uint_eq(tm_read(n, undef + 40, 8), A64_SP_EL1);
    ck_assert_uint_eq(tm_read(n, last + 8, 8), 0x56000001);            /* svc #1 */
    ck_assert_uint_eq(tm_read(n, last + 40, 8), A64_SP_EL1);
    ck_assert_uint_eq(tm_read(n, last + 48, 8), A64_SP_EL0);
    ck_assert_uint_eq(vcpu_reg_read(n->cl.cpus[0], UC_ARM64_REG_X4), 0x55);
    unlink(path);
    tm_destroy(n);
    tm_destroy(m);
}
END_TEST

/* Guest RAM is reserved, not allocated: a page nothing touched is not backed by the host, and
 * checkpoints do not read it (base/mem.h mem_pages_backed).  Where the host cannot say (no
 * /proc), every page counts as backed. */
START_TEST(ram_never_touched_is_not_backed)
{
    GuestMem gm;
    memset(&gm, 0, sizeof gm);
    Error err = { { 0 } };
    ck_assert_msg(mem_add(&gm, 0x40000000, 16 << 20, false, &err), "mem_add: %s", err.msg);
    *mem_ptr(&gm, 0x40003000, 1) = 0x5a;                        /* page 3 written */
    static uint8_t backed[4096];
    if (mem_pages_backed(&gm.blk[0], 0, 4096, backed)) {
        ck_assert_uint_eq(backed[3], 1);
        ck_assert_uint_eq(backed[4095], 0);
        ck_assert_uint_eq(backed[100], 0);
    } else {
        ck_assert_uint_eq(backed[4095], 1);
    }
    mem_destroy(&gm);
}
END_TEST

/* The same bytes either way: a page high in 1 GiB of RAM written before the checkpoint comes
 * back, one written in the restoring machine before the restore (zero in the checkpoint) is
 * cleared, one never touched stays zero. */
START_TEST(checkpoint_restores_pages_high_in_ram)
{
    enum { HIGH = 0x7ff00000, DIRTY = 0x7fe00000 };
    Machine *m = tm_create(ARCH_ARM64, blob_arm64_el0, blob_arm64_el0_len, 0x40080000, 0x40080000, 10, 1);
    ck_assert_int_eq(tm_run(m), EXIT_LIMIT);
    tm_write(m, HIGH, 8, 0x1122334455667788ull);
    const char *path = testutil_temp_file("", 0, ".ck");
    Error err = { { 0 } };
    ck_assert_msg(checkpoint_save(m, path, &err), "checkpoint_save: %s", err.msg);
    Machine *n = tm_create(ARCH_ARM64, blob_arm64_el0, blob_arm64_el0_len, 0x40080000, 0x40080000, 0, 1);
    tm_write(n, DIRTY, 8, 0xdeadbeefull);
    ck_assert_msg(checkpoint_restore(n, path, &err), "checkpoint_restore: %s", err.msg);
    ck_assert_uint_eq(tm_read(n, HIGH, 8), 0x1122334455667788ull);
    ck_assert_uint_eq(tm_read(n, DIRTY, 8), 0);
    ck_assert_uint_eq(tm_read(n, 0x7f000000, 8), 0);
    unlink(path);
    tm_destroy(n);
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
    tcase_add_test(t, arm64_pstate_aarch32_is_refused);
    tcase_add_test(t, state_field_added_later_keeps_the_fresh_value_from_an_old_section);
    tcase_add_test(t, state_section_newer_than_the_model_is_refused_at_its_version);
    tcase_add_test(t, state_section_of_another_name_is_refused);
    tcase_add_test(t, checkpoint_section_newer_than_the_model_names_file_offset_and_versions);
    tcase_add_test(t, arm64_checkpoint_at_el0_keeps_the_el_and_sp_el1);
    tcase_add_test(t, ram_never_touched_is_not_backed);
    tcase_add_test(t, checkpoint_restores_pages_high_in_ram);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
