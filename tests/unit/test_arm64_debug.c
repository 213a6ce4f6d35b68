/* test_arm64_debug.c — AArch64 self-hosted debug (cpu/arm64_debug.c, Arm ARM DDI 0487 D2):
 * breakpoints, watchpoints and software step with their ESR_EL1, ELR_EL1 and FAR_EL1, their
 * masking (OS Lock, MDSCR_EL1.MDE/KDE, PSTATE.D, the EL filters), BRK, and a checkpoint taken in
 * the middle of a step.  Fixtures: tests/unit/blobs/arm64_debug_*.s, whose vectors
 * (arm64_debug_vectors.inc) record each exception as (vector entry, ESR, ELR, SPSR, FAR). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/checkpoint.h"
#include "testutil.h"

enum { LOAD = 0x40080000, LABELS = 0x40080f00, COUNT = 0x40100000, TABLE = 0x40100040 };
/* The vector table entries (VBAR_EL1 + 0x80 * n): the current EL with SP_ELx, a lower EL. */
enum { KIND_CUR = 4, KIND_LOWER = 8 };
/* ESR_EL1.EC (DDI 0487 D17.2.37) */
enum { EC_UNKNOWN = 0x00, EC_SVC64 = 0x15, EC_BKPT_LOW = 0x30, EC_BKPT_CUR = 0x31, EC_STEP_LOW = 0x32,
       EC_STEP_CUR = 0x33, EC_WATCH_LOW = 0x34, EC_WATCH_CUR = 0x35, EC_BRK64 = 0x3c, EC_DABT_LOW = 0x24 };
/* DFSC of a synchronous external abort (nothing at the physical address) */
#define DFSC_EXTERNAL 0x10u
/* ISS: IFSC/DFSC "Debug exception", a Software Step's ISV and EX, a Watchpoint's WnR */
#define ISS_DEBUG 0x22u
#define ISS_ISV (1u << 24)
#define ISS_EX (1u << 6)
#define ISS_WNR (1u << 6)
/* ESR_EL1 of an exception from an A64 instruction: EC, IL, ISS */
#define ESR(ec, iss) ((uint64_t)(ec) << 26 | 1u << 25 | (iss))
#define SPSR_SS (1u << 21)

typedef struct Rec {
    uint64_t kind, esr, elr, spsr, far;
} Rec;

static Rec rec(Machine *m, unsigned i)
{
    uint64_t a = TABLE + 64ull * i;
    Rec r = { tm_read(m, a, 8), tm_read(m, a + 8, 8), tm_read(m, a + 16, 8), tm_read(m, a + 24, 8),
              tm_read(m, a + 32, 8) };
    return r;
}

/* The fixture's label i (its table at 0x40080f00). */
static uint64_t label(Machine *m, unsigned i)
{
    return tm_read(m, LABELS + 8ull * i, 8);
}

static uint64_t xreg(Machine *m, int r)
{
    return vcpu_reg_read(m->cl.cpus[0], r);
}

/* Record i is `kind` with this ESR, return address and FAR (0: none was written). */
static void expect(Machine *m, unsigned i, uint64_t kind, uint64_t esr, uint64_t elr, uint64_t far)
{
    Rec r = rec(m, i);
    ck_assert_msg(r.kind == kind && r.esr == esr && r.elr == elr && r.far == far,
                  "record %u: kind %" PRIu64 " esr 0x%" PRIx64 " elr 0x%" PRIx64 " far 0x%" PRIx64
                  "; want kind %" PRIu64 " esr 0x%" PRIx64 " elr 0x%" PRIx64 " far 0x%" PRIx64,
                  i, r.kind, r.esr, r.elr, r.far, kind, esr, elr, far);
}

static Machine *run_fixture(const unsigned char *blob, unsigned len, uint64_t max_insns)
{
    Machine *m = tm_create(ARCH_ARM64, blob, len, LOAD, LOAD, max_insns, 1);
    tm_run(m);
    return m;
}

/* The same with a trace: its lines containing `what` are counted into *n. */
static Machine *run_traced(const unsigned char *blob, unsigned len, const char *what, int *n)
{
    Machine *m = tm_create(ARCH_ARM64, blob, len, LOAD, LOAD, 0, 1);
    const char *path = testutil_temp_file("", 0, ".trace");
    Error err = { { 0 } };
    TraceSink *sink = trace_text_sink_open(path, 0, &err);
    ck_assert_msg(sink, "%s", err.msg);
    trace_add_sink(&m->trace, sink);
    tm_run(m);
    ck_assert_msg(trace_close(&m->trace, &err), "%s", err.msg);     /* (mach_run has closed it) */
    FILE *f = fopen(path, "r");
    char line[1024];
    for (*n = 0; f && fgets(line, sizeof line, f);)
        *n += strstr(line, what) != NULL;
    if (f)
        fclose(f);
    remove(path);
    return m;
}

/* ------------------------------------------------------------------ breakpoints */

/* The engine's own DBGBCR0_EL1 (op0 2, op1 0, CRn 0, CRm 0, op2 5). */
static uint64_t engine_dbgbcr0(Machine *m)
{
    uc_arm64_cp_reg r = { 0, 0, 2, 0, 5, 0 };
    ck_assert_int_eq(uc_reg_read(m->cl.cpus[0]->uc, UC_ARM64_REG_CP_REG, &r), UC_ERR_OK);
    return r.val;
}

/* The crash this model replaces: the engine's DBGBCR write inserted a CPU breakpoint and flushed
 * every translation (tb_flush, zeroing the code buffer) from inside the block making the write,
 * which then returned into zeroed code (SIGSEGV).  The write is pmusim's now: the run goes on
 * past it and the engine's register never changes. */
START_TEST(arm64_arming_a_breakpoint_does_not_reach_the_engine)
{
    Machine *m = run_fixture(blob_arm64_debug_bkpt, blob_arm64_debug_bkpt_len, 12);  /* past msr dbgbcr0_el1 */
    ck_assert_str_eq(m->exit_reason, "max-insns");
    ck_assert_uint_eq(m->cl.cpus[0]->insns, 12);
    ck_assert_uint_eq(engine_dbgbcr0(m), 0);
    tm_destroy(m);
}
END_TEST

/* arm64_debug_bkpt.s: the OS Lock set out of reset, then MDE, KDE, PSTATE.D and PMC each keep a
 * breakpoint from being taken; the taken ones have EC 0x31 (EL1) or 0x30 (EL0), IFSC 0x22 and
 * ELR the instruction, which has not run (x22 stays 1), and leave FAR_EL1 alone.  At EL0 a
 * watchpoint is EC 0x34, and MDSCR_EL1 is UNDEFINED while MDCCSR_EL0 reads 0. */
START_TEST(arm64_breakpoints_follow_the_os_lock_mde_kde_d_and_pmc)
{
    Machine *m = run_fixture(blob_arm64_debug_bkpt, blob_arm64_debug_bkpt_len, 2000);
    ck_assert_str_eq(m->exit_reason, "psci-system-off");
    ck_assert_uint_eq(tm_read(m, COUNT, 8), 10);
    expect(m, 0, KIND_CUR, ESR(EC_BKPT_CUR, ISS_DEBUG), label(m, 0), 0);
    ck_assert_uint_eq(rec(m, 0).spsr, 0x1c5);                   /* EL1h, A I F masked, D clear */
    expect(m, 1, KIND_CUR, ESR(EC_BKPT_CUR, ISS_DEBUG), label(m, 1), 0);     /* before the BRK */
    expect(m, 2, KIND_CUR, ESR(EC_BRK64, 0x66), label(m, 2), 0);            /* BRK, D masked */
    expect(m, 3, KIND_CUR, ESR(EC_BKPT_CUR, ISS_DEBUG), label(m, 3), 0);     /* armed with no ISB */
    expect(m, 4, KIND_CUR, ESR(EC_BKPT_CUR, ISS_DEBUG), label(m, 4), 0);     /* linked, context 0x55 */
    expect(m, 5, KIND_LOWER, ESR(EC_BKPT_LOW, ISS_DEBUG), label(m, 5), 0);   /* unlinked context, EL0 */
    expect(m, 6, KIND_LOWER, ESR(EC_BKPT_LOW, ISS_DEBUG), label(m, 6), 0);   /* address, EL0 */
    expect(m, 7, KIND_LOWER, ESR(EC_WATCH_LOW, ISS_DEBUG | ISS_WNR), label(m, 8), 0x40110000);
    expect(m, 8, KIND_LOWER, ESR(EC_UNKNOWN, 0), label(m, 7), 0);            /* MRS MDSCR_EL1 at EL0 */
    expect(m, 9, KIND_LOWER, ESR(EC_SVC64, 1), label(m, 7) + 8, 0);
    ck_assert_uint_eq(tm_read(m, 0x40110000, 8), 0);            /* the watched store did not complete */
    ck_assert_uint_eq(xreg(m, UC_ARM64_REG_X20), 0xa);          /* OSLSR_EL1: OSLM 0b10, locked */
    ck_assert_uint_eq(xreg(m, UC_ARM64_REG_X21), 0x8);          /* unlocked */
    ck_assert_uint_eq(xreg(m, UC_ARM64_REG_X22), 1);
    ck_assert_uint_eq(xreg(m, UC_ARM64_REG_X23), 0x2001e5);     /* DBGBCR5_EL1 as written */
    uint64_t dfr0 = xreg(m, UC_ARM64_REG_X24);                  /* DebugVer, BRPs, WRPs, CTX_CMPs */
    ck_assert_uint_eq(dfr0 & 0xf0f0f00f, 0x10305006);
    ck_assert_uint_eq(xreg(m, UC_ARM64_REG_X25), 0x55);
    ck_assert_uint_eq(xreg(m, UC_ARM64_REG_X26), 0x34567855);  /* OSECCR_EL1 */
    ck_assert_uint_eq(xreg(m, UC_ARM64_REG_X6), 0);             /* MDCCSR_EL0 */
    ck_assert_uint_eq(xreg(m, UC_ARM64_REG_X7), 7);
    tm_destroy(m);
}
END_TEST

/* ------------------------------------------------------------------ watchpoints */

/* arm64_debug_watch.s: EC 0x35 from EL1, WnR for the stores, FAR the access's first byte, ELR the
 * access, which does not complete; the accesses no watchpoint matches run, on the same page; a
 * reserved watchpoint or breakpoint is disabled, with a debug-reserved diag. */
START_TEST(arm64_watchpoints_on_stores_and_loads)
{
    int reserved;
    Machine *m = run_traced(blob_arm64_debug_watch, blob_arm64_debug_watch_len, "what=debug-reserved", &reserved);
    ck_assert_str_eq(m->exit_reason, "psci-system-off");
    ck_assert_uint_eq(tm_read(m, COUNT, 8), 8);
    expect(m, 0, KIND_CUR, ESR(EC_WATCH_CUR, ISS_DEBUG | ISS_WNR), label(m, 0), 0x40110008);
    expect(m, 1, KIND_CUR, ESR(EC_WATCH_CUR, ISS_DEBUG), label(m, 1), 0x40110008);
    expect(m, 2, KIND_CUR, ESR(EC_WATCH_CUR, ISS_DEBUG | ISS_WNR), label(m, 2), 0x4011000a);    /* byte 2 */
    expect(m, 3, KIND_CUR, ESR(EC_WATCH_CUR, ISS_DEBUG | ISS_WNR), label(m, 3), 0x40110008);
    expect(m, 4, KIND_CUR, ESR(EC_WATCH_CUR, ISS_DEBUG | ISS_WNR), label(m, 4), 0x40110000);    /* STP */
    expect(m, 5, KIND_CUR, ESR(EC_WATCH_CUR, ISS_DEBUG), label(m, 5), 0x40110008);              /* LDTR */
    expect(m, 6, KIND_CUR, ESR(EC_WATCH_CUR, ISS_DEBUG), label(m, 6), 0x40110ffc);              /* MASK */
    expect(m, 7, KIND_CUR, ESR(EC_WATCH_CUR, ISS_DEBUG | ISS_WNR), label(m, 7), 0x40110008);    /* STXR */
    ck_assert_uint_eq(xreg(m, UC_ARM64_REG_X22), 0x11);         /* the watched store did not complete */
    ck_assert_uint_eq(xreg(m, UC_ARM64_REG_X20), 0x3311);       /* only the unwatched byte store did */
    ck_assert_uint_eq(xreg(m, UC_ARM64_REG_X21), 0x33);         /* the stores beside it ran, the last under a
                                                                   reserved (disabled) watchpoint */
    ck_assert_int_eq(reserved, 2);                              /* LSC 0b00; BT 0b0010 on breakpoint 1 */
    tm_destroy(m);
}
END_TEST

/* arm64_debug_mmu.s: with the MMU on and RAM mapped twice, breakpoints and watchpoints compare
 * virtual addresses: the watched alias is taken (FAR the alias), the same physical bytes through
 * the identity map are not; the breakpoint on func's alias stops only the call through it. */
START_TEST(arm64_breakpoints_and_watchpoints_match_virtual_addresses)
{
    Machine *m = run_fixture(blob_arm64_debug_mmu, blob_arm64_debug_mmu_len, 2000);
    ck_assert_str_eq(m->exit_reason, "psci-system-off");
    ck_assert_uint_eq(tm_read(m, COUNT, 8), 2);
    expect(m, 0, KIND_CUR, ESR(EC_WATCH_CUR, ISS_DEBUG | ISS_WNR), label(m, 0), 0x80110008);
    expect(m, 1, KIND_CUR, ESR(EC_BKPT_CUR, ISS_DEBUG), label(m, 1), 0);
    ck_assert_uint_eq(label(m, 1) >> 28, 8);                    /* the alias */
    ck_assert_uint_eq(xreg(m, UC_ARM64_REG_X20), 0x22);
    ck_assert_uint_eq(xreg(m, UC_ARM64_REG_X21), 1);
    tm_destroy(m);
}
END_TEST

/* ------------------------------------------------------------------ software step */

/* arm64_debug_step.s: one instruction per step exception, each ELR the next instruction; an SVC
 * completes (SPSR.SS 0, then a step with ISV clear), an aborted load does not (SPSR.SS 1, the
 * next instruction stepped); the kernel steps itself with KDE; clearing PSTATE.D with the step
 * enabled takes it at once. */
START_TEST(arm64_software_step_runs_one_instruction_per_exception)
{
    Machine *m = run_fixture(blob_arm64_debug_step, blob_arm64_debug_step_len, 2000);
    uint64_t user = label(m, 0), kstep = label(m, 2), dclr = label(m, 3);
    uint64_t step = ESR(EC_STEP_LOW, ISS_DEBUG | ISS_ISV);
    ck_assert_str_eq(m->exit_reason, "psci-system-off");
    ck_assert_uint_eq(tm_read(m, COUNT, 8), 13);
    expect(m, 0, KIND_LOWER, step, user + 4, 0);
    expect(m, 1, KIND_LOWER, step, user + 8, 0);
    expect(m, 2, KIND_LOWER, step, user + 12, 0);
    expect(m, 3, KIND_LOWER, ESR(EC_SVC64, 0), user + 16, 0);
    ck_assert_uint_eq(rec(m, 3).spsr & SPSR_SS, 0);             /* the SVC completed: SS 0 */
    expect(m, 4, KIND_LOWER, ESR(EC_STEP_LOW, ISS_DEBUG), user + 16, 0);          /* active-pending: no ISV */
    expect(m, 5, KIND_LOWER, ESR(EC_STEP_LOW, ISS_DEBUG | ISS_ISV | ISS_EX), user + 20, 0);  /* LDXR */
    expect(m, 6, KIND_LOWER, step, user + 24, 0);
    expect(m, 7, KIND_LOWER, step, user + 28, 0);
    expect(m, 8, KIND_LOWER, ESR(EC_DABT_LOW, DFSC_EXTERNAL), user + 28, 0x0b000000);
    ck_assert_uint_eq(rec(m, 8).spsr & SPSR_SS, SPSR_SS);       /* the load did not complete: SS 1 */
    expect(m, 9, KIND_LOWER, ESR(EC_SVC64, 2), user + 36, 0);   /* the SVC after it was stepped */
    expect(m, 10, KIND_CUR, ESR(EC_STEP_CUR, ISS_DEBUG | ISS_ISV), kstep + 4, 0);
    ck_assert_uint_eq(rec(m, 10).spsr, 0x1c5);
    expect(m, 11, KIND_CUR, ESR(EC_STEP_CUR, ISS_DEBUG | ISS_ISV), kstep + 8, 0);
    expect(m, 12, KIND_CUR, ESR(EC_STEP_CUR, ISS_DEBUG), dclr + 4, 0);          /* D cleared by the MSR */
    ck_assert_uint_eq(xreg(m, UC_ARM64_REG_X4), 0x44);
    ck_assert_uint_eq(xreg(m, UC_ARM64_REG_X8), 8);
    ck_assert_uint_eq(xreg(m, UC_ARM64_REG_X19), 20);
    tm_destroy(m);
}
END_TEST

/* ------------------------------------------------------------------ checkpoints */

/* Run `blob` to `at` instructions, checkpoint, restore into a new machine and run to the end:
 * the records and the instruction count are the uninterrupted run's. */
static void checkpoint_at(const unsigned char *blob, unsigned len, uint64_t at, const Machine *whole)
{
    Machine *m = run_fixture(blob, len, at);
    const char *path = testutil_temp_file("", 0, ".ck");
    Error err = { { 0 } };
    ck_assert_msg(checkpoint_save(m, path, &err), "checkpoint_save: %s", err.msg);
    Machine *n = tm_create(ARCH_ARM64, blob, len, LOAD, LOAD, 0, 1);
    ck_assert_msg(checkpoint_restore(n, path, &err), "checkpoint_restore: %s", err.msg);
    mach_run(n);
    ck_assert_msg(n->cl.cpus[0]->insns == whole->cl.cpus[0]->insns, "restored at %" PRIu64 ": %" PRIu64
                  " instructions, not %" PRIu64, at, n->cl.cpus[0]->insns, whole->cl.cpus[0]->insns);
    ck_assert_msg(!memcmp(mem_ptr(&n->mem, COUNT, 64 * 33), mem_ptr((GuestMem *)&whole->mem, COUNT, 64 * 33), 64 * 33),
                  "restored at %" PRIu64 ": the records differ", at);
    unlink(path);
    tm_destroy(n);
    tm_destroy(m);
}

/* The step state (PSTATE.SS, the pending step, its ISV) and the armed breakpoints and
 * watchpoints survive a checkpoint: taken right after the ERETs that start a step at EL0 (20, 74,
 * and 276, the return from the abort), and at EL1 (323, 352), with its exception due after the
 * next instruction, inside a handler (30), with watchpoints and breakpoints armed (watch 20, 40;
 * bkpt 70, 110). */
START_TEST(arm64_checkpoint_keeps_the_step_and_the_armed_debug_events)
{
    static const uint64_t step_at[] = { 20, 30, 74, 276, 323, 352 }, watch_at[] = { 20, 40 }, bkpt_at[] = { 70, 110 };
    static const struct {
        const unsigned char *blob;
        const unsigned *len;
        const uint64_t *at;
        size_t n;
    } runs[] = {
        { blob_arm64_debug_step, &blob_arm64_debug_step_len, step_at, ARRAY_SIZE(step_at) },
        { blob_arm64_debug_watch, &blob_arm64_debug_watch_len, watch_at, ARRAY_SIZE(watch_at) },
        { blob_arm64_debug_bkpt, &blob_arm64_debug_bkpt_len, bkpt_at, ARRAY_SIZE(bkpt_at) },
    };
    for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
        Machine *whole = run_fixture(runs[i].blob, *runs[i].len, 0);
        for (size_t k = 0; k < runs[i].n; k++)
            checkpoint_at(runs[i].blob, *runs[i].len, runs[i].at[k], whole);
        tm_destroy(whole);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("arm64-debug");
    TCase *t = tcase_create("debug");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, arm64_arming_a_breakpoint_does_not_reach_the_engine);
    tcase_add_test(t, arm64_breakpoints_follow_the_os_lock_mde_kde_d_and_pmc);
    tcase_add_test(t, arm64_watchpoints_on_stores_and_loads);
    tcase_add_test(t, arm64_breakpoints_and_watchpoints_match_virtual_addresses);
    tcase_add_test(t, arm64_software_step_runs_one_instruction_per_exception);
    tcase_add_test(t, arm64_checkpoint_keeps_the_step_and_the_armed_debug_events);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
