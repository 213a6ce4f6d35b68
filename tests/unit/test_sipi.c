/* test_sipi.c — x86 APs started as Linux starts them: INIT, INIT de-assert and two STARTUP IPIs
 * through the local APIC's ICR; the AP runs a real-mode trampoline into long mode
 * (tests/unit/blobs/x86_64_sipi.s).  At 2 and 4 CPUs, twice, and across a checkpoint taken while
 * the APs wait for SIPI. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apic/lapic.h"
#include "cpu/x86_64.h"
#include "sim/checkpoint.h"
#include "testutil.h"

/* The fixture's addresses (x86_64_sipi.s). */
enum { COUNT = 0x30000, NCPUS = 0x30008, REPORT = 0x30100, REPORT_STRIDE = 32, LOAD = 0x100000 };
#define CR0_PE_PG 0x80000001ull
#define EFER_LME_LMA 0x500ull

/* A PC with n CPUs whose secondaries have no enable-method: they wait for SIPI. */
static Machine *sipi_machine(int n, uint64_t max_insns)
{
    char dts[2048];
    int k = snprintf(dts, sizeof dts, "/dts-v1/;\n/ { compatible = \"pmusim,x86_64\"; #address-cells = <2>; "
                     "#size-cells = <2>;\n memory@0 { device_type = \"memory\"; reg = <0 0 0 0x8000000>; };\n"
                     " interrupt-controller@fee00000 { compatible = \"intel,ce4100-lapic\"; "
                     "reg = <0 0xfee00000 0 0x1000>; interrupt-controller; #interrupt-cells = <2>; "
                     "clock-frequency = <100000000>; };\n cpus { #address-cells = <1>; #size-cells = <0>;\n");
    for (int i = 0; i < n; i++)
        k += snprintf(dts + k, sizeof dts - (size_t)k, "  cpu@%d { device_type = \"cpu\"; compatible = "
                      "\"pmusim,x86-64-generic\"; reg = <%d>; clock-frequency = <2000000000>; };\n", i, i);
    snprintf(dts + k, sizeof dts - (size_t)k, " };\n};\n");
    char *mpath = strdup(testutil_temp_file(dts, strlen(dts), ".dts"));
    MachineConfig cfg = { .arch = ARCH_X86_64, .raw = true, .load_addr = LOAD, .entry = LOAD, .entry_set = true,
                          .max_insns = max_insns, .machine_file = mpath, .console_file = "/dev/null" };
    cfg.kernel = testutil_temp_file(blob_x86_64_sipi, blob_x86_64_sipi_len, ".bin");
    Machine *m = calloc(1, sizeof *m);
    Error err = { { 0 } };
    ck_assert_msg(mach_create(m, &cfg, &err), "mach_create: %s", err.msg);
    unlink(cfg.kernel);
    unlink(mpath);
    free(mpath);
    tm_write(m, NCPUS, 8, (uint64_t)n);
    return m;
}

/* Every AP reported once, from long mode; the run ends with every CPU halted. */
static void check_reports(Machine *m, int n)
{
    ck_assert_uint_eq(tm_read(m, COUNT, 4), (uint64_t)n - 1);
    ck_assert_uint_eq(tm_read(m, REPORT, 8), 0);                       /* not the boot CPU */
    for (int i = 1; i < n; i++) {
        uint64_t r = REPORT + REPORT_STRIDE * (uint64_t)i;
        ck_assert_uint_eq(tm_read(m, r, 8), 1);                         /* the second SIPI: ignored */
        ck_assert_uint_eq(tm_read(m, r + 8, 8) & CR0_PE_PG, CR0_PE_PG);
        ck_assert_uint_eq(tm_read(m, r + 16, 8) & EFER_LME_LMA, EFER_LME_LMA);
        ck_assert_int_eq(m->cl.cpus[i]->state, CPU_HALTED);
    }
}

/* What a run leaves that must be the same every time: each CPU's cycles and instructions. */
static void fingerprint(Machine *m, uint64_t *out)
{
    for (int i = 0; i < m->cl.ncpus; i++) {
        out[2 * i] = m->cl.cpus[i]->cycles;
        out[2 * i + 1] = m->cl.cpus[i]->insns;
    }
}

static void run_n(int n, uint64_t *fp)
{
    Machine *m = sipi_machine(n, 0);
    ck_assert_int_eq(tm_run(m), EXIT_HUNG);
    ck_assert_str_eq(m->exit_reason, "all-cpus-asleep");
    check_reports(m, n);
    fingerprint(m, fp);
    tm_destroy(m);
}

START_TEST(init_sipi_sipi_brings_up_every_ap_through_real_mode)
{
    static const int ns[] = { 2, 4 };
    for (size_t k = 0; k < ARRAY_SIZE(ns); k++) {
        uint64_t a[2 * 4] = { 0 }, b[2 * 4] = { 0 };
        run_n(ns[k], a);
        run_n(ns[k], b);
        ck_assert_mem_eq(a, b, sizeof a);
        for (int i = 1; i < ns[k]; i++)
            ck_assert_uint_gt(a[2 * i + 1], 0);                         /* the APs ran */
    }
}
END_TEST

/* Save stopped machine m, restore it into a fresh one of n CPUs, run that to the end: every AP
 * reports once and every CPU's counts are those of the run that never stopped (whole). */
static void restore_and_finish(Machine *m, int n, const uint64_t *whole)
{
    uint64_t restored[2 * 8];
    ck_assert_int_le(n, 8);
    const char *path = testutil_temp_file("", 0, ".ck");
    Error err = { { 0 } };
    ck_assert_msg(checkpoint_save(m, path, &err), "checkpoint_save: %s", err.msg);
    Machine *r = sipi_machine(n, 0);
    ck_assert_msg(checkpoint_restore(r, path, &err), "checkpoint_restore: %s", err.msg);
    ck_assert_int_eq(mach_run(r), EXIT_HUNG);
    check_reports(r, n);
    fingerprint(r, restored);
    ck_assert_mem_eq(whole, restored, 2 * (size_t)n * sizeof *whole);
    unlink(path);
    tm_destroy(r);
    tm_destroy(m);
}

/* Stopped before the boot CPU's first INIT: the APs wait for SIPI in the checkpoint, and the
 * restored machine brings them up on the same cycles as a run that never stopped. */
START_TEST(checkpoint_while_aps_wait_for_sipi)
{
    enum { N = 4, EARLY = 3 };
    uint64_t whole[2 * N];
    run_n(N, whole);
    Machine *m = sipi_machine(N, EARLY);
    ck_assert_int_eq(tm_run(m), EXIT_LIMIT);
    for (int i = 1; i < N; i++) {
        ck_assert_int_eq(m->cl.cpus[i]->state, CPU_OFF);
        ck_assert_uint_eq(m->cl.cpus[i]->insns, 0);
    }
    restore_and_finish(m, N, whole);
}
END_TEST

/* The AP's retired instructions when the run stops at --max-insns `limit`. */
static uint64_t ap_insns_at(uint64_t limit)
{
    Machine *m = sipi_machine(2, limit);
    ck_assert_int_eq(tm_run(m), EXIT_LIMIT);
    uint64_t n = m->cl.cpus[1]->insns;
    tm_destroy(m);
    return n;
}

/* Stopped while an AP runs its trampoline in real mode (the first --max-insns at which the AP
 * has retired an instruction: its first ones are real mode's), the restored machine finishes as
 * a run that never stopped. */
START_TEST(checkpoint_in_real_mode)
{
    enum { N = 2 };
    uint64_t whole[2 * N], lo = 1, hi = 1;
    run_n(N, whole);
    while (ap_insns_at(hi) == 0)
        lo = hi, hi *= 2;
    while (lo + 1 < hi) {                          /* the AP ran at hi, not at lo */
        uint64_t mid = lo + (hi - lo) / 2;
        *(ap_insns_at(mid) ? &hi : &lo) = mid;
    }
    Machine *m = sipi_machine(N, hi);
    ck_assert_int_eq(tm_run(m), EXIT_LIMIT);
    ck_assert_uint_gt(m->cl.cpus[1]->insns, 0);
    ck_assert_uint_eq(vcpu_reg_read(m->cl.cpus[1], UC_X86_REG_CR0) & 1, 0);     /* real mode */
    restore_and_finish(m, N, whole);
}
END_TEST

/* The ICR of cpu0's APIC, as a guest writes it (xAPIC: ICR2 then ICR, SDM vol. 3A §11.6.1). */
enum { ICR_LO = 0x300, ICR_HI = 0x310, DM_INIT_ASSERT = 0xc500, DM_INIT_DEASSERT = 0x8500, DM_STARTUP = 0x600 };

static void icr(Machine *m, unsigned dest, uint32_t lo)
{
    lapic_write(vcpu_x86_lapic(m->cl.cpus[0]), 0, ICR_HI, 4, dest << 24);
    lapic_write(vcpu_x86_lapic(m->cl.cpus[0]), 0, ICR_LO, 4, lo);
}

/* A STARTUP in the wait-for-SIPI state is taken once (the second of a pair is ignored); an
 * INIT, not its de-assert, forgets one not yet taken; neither reaches the boot CPU. */
START_TEST(startup_is_taken_once_and_init_forgets_it)
{
    Machine *m = sipi_machine(2, 0);
    mach_boot(m);
    Cpu *ap = m->cl.cpus[1];
    ck_assert_int_eq(ap->desc->enable, ENABLE_SIPI);
    ck_assert_int_eq(ap->state, CPU_OFF);
    icr(m, 1, DM_STARTUP | 0x9a);
    icr(m, 1, DM_STARTUP | 0x9b);
    ck_assert(ap->start.pending);
    ck_assert_uint_eq(ap->start.entry, 0x9a000);
    icr(m, 1, DM_INIT_DEASSERT);
    ck_assert(ap->start.pending);
    icr(m, 1, DM_INIT_ASSERT);
    ck_assert(!ap->start.pending);
    ck_assert_int_eq(ap->state, CPU_OFF);
    icr(m, 0, DM_INIT_ASSERT);                  /* the boot CPU: an `unsupported` diagnostic only */
    icr(m, 0, DM_STARTUP | 0x9a);
    ck_assert_int_eq(m->cl.cpus[0]->state, CPU_RUNNING);
    ck_assert(!m->cl.cpus[0]->start.pending);
    tm_destroy(m);
}
END_TEST

Suite *sipi_suite(void)
{
    Suite *s = suite_create("sipi");
    TCase *t = tcase_create("sipi");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, init_sipi_sipi_brings_up_every_ap_through_real_mode);
    tcase_add_test(t, checkpoint_while_aps_wait_for_sipi);
    tcase_add_test(t, startup_is_taken_once_and_init_forgets_it);
    tcase_add_test(t, checkpoint_in_real_mode);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return testutil_run(sipi_suite());
}
