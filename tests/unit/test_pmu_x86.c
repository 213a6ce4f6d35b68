/* test_pmu_x86.c — the architectural PMU on a running x86 CPU (fixture
 * tests/unit/blobs/x86_64_pmu.s): exact instruction, branch and cycle counts of a code region,
 * the loop family and jrcxz as branches,
 * USR/OS filtering across IRETQ and INT, overflow NMIs on the exact instruction through LVTPC
 * (masked after delivery, lost while masked), OVF_CTRL, reserved bits, CPUID leaf 0xA, RDPMC. */
#include <stdio.h>
#include <string.h>

#include "cpu/x86_64.h"
#include "testutil.h"

#define IDT 0x200000
#define GDT 0x202000
#define TSS 0x203000

static Machine *fixture(uint64_t entry, uint64_t max_insns)
{
    Machine *m = tm_create(ARCH_X86_64, blob_x86_64_pmu, blob_x86_64_pmu_len, 0x100000, entry, max_insns, 1);
    tm_x86_gate(m, IDT, 2, 0x100600, 0);                /* NMI */
    tm_x86_gate(m, IDT, 0x80, 0x1002c0, 3);             /* int $0x80 from ring 3 */
    tm_write(m, 0x201000, 2, 16 * 256 - 1);
    tm_write(m, 0x201002, 8, IDT);
    /* GDT: kernel code/data, user code (0x18) and data (0x20), a 64-bit TSS at 0x28. */
    static const uint64_t gdt[] = { 0, 0x00af9a000000ffffull, 0x00cf92000000ffffull, 0x00affa000000ffffull,
                                    0x00cff2000000ffffull };
    for (unsigned i = 0; i < 5; i++)
        tm_write(m, GDT + 8 * i, 8, gdt[i]);
    tm_write(m, GDT + 0x28, 8, 0x0000890000000067ull | (uint64_t)(TSS & 0xffffff) << 16);
    tm_write(m, GDT + 0x30, 8, 0);
    tm_write(m, TSS + 4, 8, 0x300000);                  /* RSP0 */
    tm_write(m, 0x201010, 2, 0x37);
    tm_write(m, 0x201012, 8, GDT);
    /* Make the first 4 MiB of the boot identity map user-accessible. */
    uint64_t pml4 = 0x9000, pdpt = tm_read(m, pml4, 8) & ~0xfffull, pd = tm_read(m, pdpt, 8) & ~0xfffull;
    tm_write(m, pml4, 8, tm_read(m, pml4, 8) | 4);
    tm_write(m, pdpt, 8, tm_read(m, pdpt, 8) | 4);
    tm_write(m, pd, 8, tm_read(m, pd, 8) | 4);
    tm_write(m, pd + 8, 8, tm_read(m, pd + 8, 8) | 4);
    return m;
}

static uint64_t reg(Machine *m, int r)
{
    return vcpu_reg_read(m->cl.cpus[0], r);
}

/* Count the lines of a trace file that contain `what`. */
static int count_in(const char *path, const char *what)
{
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f))
        n += strstr(line, what) != NULL;
    fclose(f);
    return n;
}

/* Cycles after exactly n instructions of entry A, checking that the last one was a WRMSR, so
 * the counts below are the fixture's. */
static uint64_t cycles_after(uint64_t n)
{
    Machine *m = fixture(0x100000, n);
    ck_assert_int_eq(tm_run(m), EXIT_LIMIT);
    ck_assert_uint_eq(tm_read(m, reg(m, UC_X86_REG_RIP) - 2, 2), 0x300f);
    uint64_t cyc = m->cl.cpus[0]->cycles;
    tm_destroy(m);
    return cyc;
}

START_TEST(counts_of_a_region_are_exact)
{
    Machine *m = fixture(0x100000, 0);
    ck_assert_int_eq(tm_run(m), EXIT_HUNG);             /* ends in hlt */
    uint64_t insns = reg(m, UC_X86_REG_R8), branches = reg(m, UC_X86_REG_R9), misses = reg(m, UC_X86_REG_R10);
    uint64_t inv = reg(m, UC_X86_REG_R11), fixed_insns = reg(m, UC_X86_REG_R12);
    uint64_t fixed_cycles = reg(m, UC_X86_REG_R13), fixed_ref = reg(m, UC_X86_REG_R14);
    tm_destroy(m);
    /* the region's 2004 and the disabling WRMSR (a WRMSR takes effect when it retires) */
    ck_assert_uint_eq(insns, 2005);
    ck_assert_uint_eq(fixed_insns, 2005);
    ck_assert_uint_eq(branches, 1000);
    /* 2-bit counter from weakly not-taken: the first taken jnz and the final fall-through miss */
    ck_assert_uint_eq(misses, 2);
    /* 27 instructions up to and including the enabling WRMSR, 2005 more with the disabling one */
    uint64_t c1 = cycles_after(27), c2 = cycles_after(27 + 2005);
    ck_assert_uint_eq(fixed_cycles, c2 - c1);
    ck_assert_uint_eq(fixed_ref, c2 - c1);
    ck_assert_uint_eq(inv, c2 - c1 - 2005);             /* cycles without a retirement */
}
END_TEST

/* loop, loope, loopne and jrcxz are conditional branches (Intel SDM vol. 2A, LOOP/LOOPcc): the
 * branch events count each of them.  Capstone leaves the loop family out of its jump group, so
 * the classifier names them by id (cycle_model.c x86_branch_kind). */
START_TEST(loop_and_jrcxz_count_as_branches)
{
    Machine *m = fixture(0x100800, 0);
    ck_assert_int_eq(tm_run(m), EXIT_HUNG);
    ck_assert_uint_eq(reg(m, UC_X86_REG_R8), 1030);
    ck_assert_uint_eq(reg(m, UC_X86_REG_R9), 1021);
    /* each loop: its first taken and its final fall-through; the jrcxz: taken from weakly
     * not-taken */
    ck_assert_uint_eq(reg(m, UC_X86_REG_R10), 7);
    tm_destroy(m);
}
END_TEST

START_TEST(usr_and_os_filters_follow_the_privilege_level)
{
    Machine *m = fixture(0x100200, 0);
    ck_assert_int_eq(tm_run(m), EXIT_HUNG);
    ck_assert_uint_eq(reg(m, UC_X86_REG_R8), 6);       /* ring 3: 5 adds/movs and int $0x80 */
    /* ring 0: 5 pushes, iretq, 3 in the handler and the disabling WRMSR */
    ck_assert_uint_eq(reg(m, UC_X86_REG_R9), 10);
    tm_destroy(m);
}
END_TEST

START_TEST(overflow_nmi_lands_after_the_overflowing_instruction)
{
    Machine *m = fixture(0x100400, 0);
    const char *trace = testutil_temp_file("", 0, ".trace");
    Error err = { { 0 } };
    TraceSink *s = trace_text_sink_open(trace, 0, &err);
    ck_assert_ptr_nonnull(s);
    trace_add_sink(&m->trace, s);
    ck_assert_int_eq(tm_run(m), EXIT_HUNG);
    uint64_t c_after = tm_read(m, 0x1007f0, 8), c_second = tm_read(m, 0x1007f8, 8);
    ck_assert_uint_eq(reg(m, UC_X86_REG_R14), c_after);        /* first PMI: after the 100th nop */
    ck_assert_uint_eq(reg(m, UC_X86_REG_R13), 2);              /* the masked one was lost */
    ck_assert_uint_eq(reg(m, UC_X86_REG_RBX) & 1, 1);          /* ... but its status bit is set */
    ck_assert_uint_eq(reg(m, UC_X86_REG_RBP), 0);              /* cleared by OVF_CTRL */
    ck_assert_uint_eq(reg(m, UC_X86_REG_R11), c_second);       /* after the unmask: after the 5th nop */
    ck_assert_uint_eq(vcpu_x86_lapic(m->cl.cpus[0])->lvt[LVT_PC], 0x10400);  /* masked by the last PMI */
    tm_destroy(m);
    ck_assert_int_eq(count_in(trace, "what=pmi-lost"), 1);
    ck_assert_int_eq(count_in(trace, " nmi "), 2);
    ck_assert_int_eq(count_in(trace, "what=pmu-unacked"), 1);  /* the second overflow found bit 0 set */
    ck_assert_int_eq(count_in(trace, "what=pmi-unacked"), 2);  /* neither handler acknowledges */
    unlink(trace);
}
END_TEST

/* Register-level checks on a CPU that does not run. */
static Machine *idle(void)
{
    Machine *m = fixture(0x100000, 0);
    mach_boot(m);
    return m;
}

static uint64_t reading(const PmcReading *r, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(r[i].name, name))
            return r[i].value;
    ck_abort_msg("no reading %s", name);
    return 0;
}

/* --trace-json's counters (vcpu_pmu_readings, pmc_peek): in the middle of region A the values a
 * read would return, by MSR name, without a sync: the bank is the same bytes after them. */
START_TEST(readings_are_the_counts_without_a_sync)
{
    const uint64_t n = 1000;            /* instructions after the enabling WRMSR (see above) */
    Machine *m = fixture(0x100000, 27 + n);
    ck_assert_int_eq(tm_run(m), EXIT_LIMIT);
    X86Pmu *p = x86pmu_of(m->cl.cpus[0]);
    PmcBank before = p->bank;
    PmcReading r[16];
    int k = vcpu_pmu_readings(m->cl.cpus[0], r, 16);
    ck_assert_int_eq(k, p->cfg.ngp + p->cfg.nfixed);
    ck_assert_str_eq(r[0].name, "IA32_PMC0");
    ck_assert_uint_eq(reading(r, k, "IA32_PMC0"), n);
    ck_assert_uint_eq(reading(r, k, "IA32_FIXED_CTR0"), n);
    ck_assert_int_eq(memcmp(&before, &p->bank, sizeof before), 0);
    uint64_t cycles = m->cl.cpus[0]->cycles;
    tm_destroy(m);
    ck_assert_uint_eq(reading(r, k, "IA32_FIXED_CTR1"), cycles - cycles_after(27));
}
END_TEST

START_TEST(cpuid_leaf_0xa_describes_the_pmu)
{
    Machine *m = idle();
    uint32_t r[4];
    vcpu_x86_cpuid_values(m->cl.cpus[0], 0xa, 0, r);
    ck_assert_uint_eq(r[0], 2 | 4 << 8 | 48 << 16 | 7u << 24);
    ck_assert_uint_eq(r[1], 0x18);                      /* LLC references and misses unavailable */
    ck_assert_uint_eq(r[3], 3 | 48 << 5);
    tm_destroy(m);
}
END_TEST

START_TEST(reserved_bits_and_read_only_status_gp)
{
    Machine *m = idle();
    const char *trace = testutil_temp_file("", 0, ".trace");
    Error err = { { 0 } };
    TraceSink *s = trace_text_sink_open(trace, 0, &err);
    ck_assert_ptr_nonnull(s);
    trace_add_sink(&m->trace, s);
    X86Pmu *p = x86pmu_of(m->cl.cpus[0]);
    ck_assert_int_eq(x86pmu_wrmsr(p, 0x186, 1ull << 32, 0), MSR_GP);           /* bits 63:32 */
    ck_assert_int_eq(x86pmu_wrmsr(p, 0x186, 1ull << 21, 0), MSR_GP);           /* ANY on version 2 */
    ck_assert_int_eq(x86pmu_wrmsr(p, 0x38f, 1ull << 4, 0), MSR_GP);            /* no PMC4 */
    ck_assert_int_eq(x86pmu_wrmsr(p, 0x38f, 1ull << 35, 0), MSR_GP);           /* no fixed 3 */
    ck_assert_int_eq(x86pmu_wrmsr(p, 0x38d, 0x4, 0), MSR_GP);                  /* AnyThread */
    ck_assert_int_eq(x86pmu_wrmsr(p, 0x38e, 0, 0), MSR_GP);                    /* status is read-only */
    ck_assert_int_eq(x86pmu_wrmsr(p, 0x309, 1ull << 48, 0), MSR_GP);           /* beyond 48 bits */
    ck_assert_int_eq(x86pmu_wrmsr(p, 0xc5, 0, 0), MSR_NOT_MINE);               /* PMC4 does not exist */
    uint64_t v;
    ck_assert_int_eq(x86pmu_rdmsr(p, 0x38f, &v), MSR_OK);
    ck_assert_uint_eq(v, 0xf);                          /* power-up: general-purpose counters enabled */
    ck_assert_int_eq(x86pmu_wrmsr(p, 0xc1, 0xfffffff0ull, 0), MSR_OK);         /* sign-extends bit 31 */
    ck_assert_int_eq(x86pmu_rdmsr(p, 0xc1, &v), MSR_OK);
    ck_assert_uint_eq(v, 0xfffffffffff0ull);
    ck_assert(x86pmu_rdpmc(p, 0, &v) && v == 0xfffffffffff0ull);
    ck_assert(x86pmu_rdpmc(p, 1u << 30 | 2, &v));
    ck_assert(!x86pmu_rdpmc(p, 4, &v));
    ck_assert(!x86pmu_rdpmc(p, 1u << 30 | 3, &v));
    /* enabled counters with no event, and with an event pmusim does not model */
    ck_assert_int_eq(x86pmu_wrmsr(p, 0x187, 1u << 22 | 1u << 17, 0), MSR_OK);
    ck_assert_int_eq(x86pmu_wrmsr(p, 0x188, 1u << 22 | 1u << 17 | 0x4f2e, 0), MSR_OK);
    ck_assert_int_eq(x86pmu_wrmsr(p, 0x189, 1u << 22 | 1u << 17 | 0xc0, 0), MSR_OK);
    tm_destroy(m);
    ck_assert_int_eq(count_in(trace, "what=pmu-reserved"), 7);
    ck_assert_int_eq(count_in(trace, "what=pmu-event"), 2);
    ck_assert_int_eq(count_in(trace, "no event selected"), 1);
    ck_assert_int_eq(count_in(trace, "event 0x2e umask 0x4f: event not modelled"), 1);
    unlink(trace);
}
END_TEST

Suite *pmu_x86_suite(void)
{
    Suite *s = suite_create("pmu_x86");
    TCase *t = tcase_create("guest");
    tcase_add_test(t, counts_of_a_region_are_exact);
    tcase_add_test(t, loop_and_jrcxz_count_as_branches);
    tcase_add_test(t, usr_and_os_filters_follow_the_privilege_level);
    tcase_add_test(t, overflow_nmi_lands_after_the_overflowing_instruction);
    tcase_add_test(t, readings_are_the_counts_without_a_sync);
    tcase_add_test(t, cpuid_leaf_0xa_describes_the_pmu);
    tcase_add_test(t, reserved_bits_and_read_only_status_gp);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return testutil_run(pmu_x86_suite());
}
