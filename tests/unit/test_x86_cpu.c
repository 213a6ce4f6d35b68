/* test_x86_cpu.c — the x86-64 CPU model Linux expects (fixture tests/unit/blobs/x86_64_cpu.s):
 * non-canonical accesses (#GP, #SS), non-canonical FS/GS bases (WRMSR, WRFSBASE), RDPMC's fast
 * read, IA32_MISC_ENABLE, the x2APIC state transitions of IA32_APIC_BASE, and CPUID (the
 * Skylake-client model of docs/machines.md, leaf 0xA describing the PMU, the TSC and crystal
 * clocks of leaves 0x15/0x16, the topology of leaf 0xB) and the MSRs Linux reads at boot. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cpu/x86_64.h"
#include "testutil.h"

#define IDT 0x200000
#define HANDLERS 0x100f00

enum { V_UD = 6, V_SS = 12, V_GP = 13, V_PF = 14, V_MC = 18 };

/* The fixture on a machine of `ncpus` CPUs of `model` (NULL: the default). */
static Machine *fixture_model(uint64_t entry, int ncpus, const char *model)
{
    Machine *m = tm_create_model(ARCH_X86_64, blob_x86_64_cpu, blob_x86_64_cpu_len, 0x100000, 0x100000 + entry, 0,
                                 ncpus, model);
    static const unsigned vecs[] = { V_UD, V_SS, V_GP, V_PF, V_MC };
    for (unsigned i = 0; i < ARRAY_SIZE(vecs); i++)
        tm_x86_gate(m, IDT, vecs[i], HANDLERS + 0x20 * i, 0);
    tm_write(m, 0x201000, 2, 16 * 32 - 1);
    tm_write(m, 0x201002, 8, IDT);
    return m;
}

static Machine *fixture(uint64_t entry, int ncpus)
{
    return fixture_model(entry, ncpus, NULL);
}

static uint64_t reg(Machine *m, int r)
{
    return vcpu_reg_read(m->cl.cpus[0], r);
}

/* Run the entry to its hlt; the vector taken (0: none), and the frame's return RIP. */
static unsigned run_entry(Machine *m, uint64_t *rip)
{
    ck_assert_int_eq(tm_run(m), EXIT_HUNG);
    ck_assert_str_eq(m->exit_reason, "all-cpus-asleep");
    unsigned vec = (unsigned)reg(m, UC_X86_REG_R15);
    uint64_t sp = reg(m, UC_X86_REG_R13);
    bool err = vec == V_GP || vec == V_SS || vec == V_PF;
    if (rip)
        *rip = vec ? tm_read(m, sp + (err ? 8 : 0), 8) : 0;
    if (err)
        ck_assert_uint_eq(tm_read(m, sp, 8), 0);         /* error code 0 */
    return vec;
}

static void expect_fault_at(uint64_t entry, unsigned want, const uint8_t *insn, unsigned len)
{
    Machine *m = fixture(entry, 1);
    uint64_t rip;
    unsigned vec = run_entry(m, &rip);
    ck_assert_msg(vec == want, "entry 0x%lx: vector %u, expected %u", (long)entry, vec, want);
    for (unsigned i = 0; i < len; i++)
        ck_assert_uint_eq(tm_read(m, rip + i, 1), insn[i]);
    tm_destroy(m);
}

static const uint8_t WRMSR[] = { 0x0f, 0x30 };

/* SDM vol. 3A 6.15: a memory reference to a non-canonical address is #GP(0), or #SS(0) when it
 * goes through the stack segment (RSP or RBP as the base): never a machine check. */
START_TEST(non_canonical_access_is_gp)
{
    static const uint8_t load[] = { 0x48, 0x8b, 0x18 };          /* mov (%rax), %rbx */
    expect_fault_at(0x000, V_GP, load, sizeof load);
}
END_TEST

START_TEST(non_canonical_stack_reference_is_ss)
{
    static const uint8_t load[] = { 0x48, 0x8b, 0x45, 0x00 };    /* mov 0(%rbp), %rax */
    expect_fault_at(0x080, V_SS, load, sizeof load);
}
END_TEST

/* WRMSR to IA32_FS_BASE, IA32_GS_BASE, IA32_KERNEL_GS_BASE with a non-canonical address:
 * #GP(0) (SDM vol. 2B WRMSR; vol. 4 table 2-2); a canonical one is taken. */
START_TEST(non_canonical_segment_base_msr_is_gp)
{
    for (uint64_t entry = 0x100; entry <= 0x180; entry += 0x40) {
        Machine *m = fixture(entry, 1);
        uint64_t rip;
        ck_assert_uint_eq(run_entry(m, &rip), V_GP);
        ck_assert_uint_eq(tm_read(m, rip, 2), 0x300f);
        ck_assert_uint_eq(reg(m, UC_X86_REG_R8), 0xffff800000000000ull);
        tm_destroy(m);
    }
}
END_TEST

/* FSGSBASE is advertised (CPUID.7.0:EBX[0]): with CR4.FSGSBASE the instructions work and a
 * non-canonical WRFSBASE is #GP(0) (SDM vol. 2A WRFSBASE); without it they are #UD. */
START_TEST(wrfsbase_non_canonical_is_gp)
{
    static const uint8_t wrfsbase[] = { 0xf3, 0x48, 0x0f, 0xae, 0xd0 };
    Machine *m = fixture(0x200, 1);
    uint64_t rip;
    ck_assert_uint_eq(run_entry(m, &rip), V_GP);
    for (unsigned i = 0; i < sizeof wrfsbase; i++)
        ck_assert_uint_eq(tm_read(m, rip + i, 1), wrfsbase[i]);
    ck_assert_uint_eq(reg(m, UC_X86_REG_R8), 0xffff800000001000ull);
    tm_destroy(m);
    static const uint8_t rdfsbase[] = { 0xf3, 0x48, 0x0f, 0xae, 0xc0 };
    expect_fault_at(0x280, V_UD, rdfsbase, sizeof rdfsbase);
}
END_TEST

/* RDPMC with ECX[31] (fast read): bits 31:0 in EAX, EDX cleared, for a fixed counter and a
 * general-purpose one alike (SDM vol. 2B RDPMC); without it the whole counter. */
START_TEST(rdpmc_fast_read_returns_low_32_bits)
{
    Machine *m = fixture(0x300, 1);
    ck_assert_uint_eq(run_entry(m, NULL), 0);
    ck_assert_uint_eq(reg(m, UC_X86_REG_R8), 0x456789ab);
    ck_assert_uint_eq(reg(m, UC_X86_REG_R9), 0);
    ck_assert_uint_eq(reg(m, UC_X86_REG_R10), 0x456789ab);
    ck_assert_uint_eq(reg(m, UC_X86_REG_R11), 0x123);
    ck_assert_uint_eq(reg(m, UC_X86_REG_RBX), 0x80000001);
    ck_assert_uint_eq(reg(m, UC_X86_REG_RSI), 0);
    ck_assert_uint_eq(reg(m, UC_X86_REG_RDI), 0x80000001);
    ck_assert_uint_eq(reg(m, UC_X86_REG_RBP), 0xffff);
    tm_destroy(m);
}
END_TEST

/* IA32_MISC_ENABLE (SDM vol. 4, table 2-2 and the 06_5EH table): fast strings set, performance
 * monitoring available, BTS and PEBS unavailable; Limit CPUID Maxval and XD Bit Disable
 * writable with their effects on CPUID; a reserved bit #GPs. */
START_TEST(misc_enable_is_writable)
{
    Machine *m = fixture(0x400, 1);
    uint64_t rip;
    ck_assert_uint_eq(run_entry(m, &rip), V_GP);
    ck_assert_uint_eq(tm_read(m, rip, 2), 0x300f);
    uint64_t power_up = reg(m, UC_X86_REG_R8);
    ck_assert_uint_eq(power_up, 1u << 0 | 1u << 7 | 1u << 11 | 1u << 12);
    ck_assert_uint_eq(reg(m, UC_X86_REG_R9), 2);                        /* leaf 0 limited to 2 */
    ck_assert_uint_eq(reg(m, UC_X86_REG_R10) & (1u << 20), 0);          /* NX gone */
    ck_assert_uint_eq(reg(m, UC_X86_REG_R11), power_up);
    tm_destroy(m);
}
END_TEST

/* SDM vol. 3A 11.12.5: xAPIC -> x2APIC -> disabled -> xAPIC -> x2APIC are allowed; while
 * disabled CPUID.1:EDX.APIC is 0; the x2APIC ID is the APIC ID. */
START_TEST(x2apic_allowed_transitions)
{
    Machine *m = fixture(0x500, 1);
    ck_assert_uint_eq(run_entry(m, NULL), 0);
    ck_assert_uint_eq(reg(m, UC_X86_REG_R8), 0xfee00d00);
    ck_assert_uint_eq(reg(m, UC_X86_REG_R9), 0xfee00100);
    ck_assert_uint_eq(reg(m, UC_X86_REG_RBX) & (1u << 9), 0);
    ck_assert_uint_eq(reg(m, UC_X86_REG_R10), 0xfee00900);
    ck_assert_uint_eq(reg(m, UC_X86_REG_R11), 0xfee00d00);
    ck_assert_uint_eq(reg(m, UC_X86_REG_R12), 0);
    tm_destroy(m);
}
END_TEST

/* ... and x2APIC -> xAPIC, disabled -> x2APIC and EXTD without EN are #GP(0). */
START_TEST(x2apic_illegal_transitions_are_gp)
{
    static const struct { uint64_t entry, first; } cases[] = {
        { 0x600, 0xfee00d00 },              /* x2APIC, then xAPIC */
        { 0x680, 0xfee00100 },              /* disabled, then x2APIC */
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        Machine *m = fixture(cases[i].entry, 1);
        uint64_t rip;
        ck_assert_uint_eq(run_entry(m, &rip), V_GP);
        ck_assert_uint_eq(tm_read(m, rip, 2), 0x300f);
        ck_assert_uint_eq(reg(m, UC_X86_REG_R8), cases[i].first);      /* the first write was taken */
        ck_assert_uint_eq(reg(m, UC_X86_REG_RAX), cases[i].first == 0xfee00d00 ? 0xfee00900 : 0xfee00d00);
        tm_destroy(m);
    }
    expect_fault_at(0x700, V_GP, WRMSR, sizeof WRMSR);  /* EXTD without EN */
}
END_TEST

/* CPUID (docs/machines.md "CPU models"): a Skylake-client core, 06_5E stepping 3, GenuineIntel,
 * the highest basic leaf 0x16, and the data of that leaf beyond it (SDM vol. 2A CPUID). */
static void cpuid(Machine *m, int cpu, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
    vcpu_x86_cpuid_values(m->cl.cpus[cpu], leaf, sub, r);
}

START_TEST(cpuid_names_a_skylake_client_core)
{
    Machine *m = fixture(0, 1);
    uint32_t r[4], hi[4];
    cpuid(m, 0, 0, 0, r);
    ck_assert_uint_eq(r[0], 0x16);
    ck_assert(!memcmp(&r[1], "Genu", 4) && !memcmp(&r[3], "ineI", 4) && !memcmp(&r[2], "ntel", 4));
    cpuid(m, 0, 1, 0, r);
    ck_assert_uint_eq(r[0], 0x000506e3);
    ck_assert_uint_eq(r[2] & (1u << 31), 0);                            /* no hypervisor */
    ck_assert_uint_eq(r[2] & (1u << 28 | 1u << 26 | 1u << 30), 0);      /* no AVX, XSAVE, RDRAND */
    cpuid(m, 0, 0x17, 0, r);
    cpuid(m, 0, 0x16, 0, hi);
    ck_assert(!memcmp(r, hi, sizeof r));
    cpuid(m, 0, 7, 0, r);
    ck_assert_uint_eq(r[1], 1u << 0 | 1u << 1 | 1u << 7 | 1u << 20);   /* FSGSBASE TSC_ADJUST SMEP SMAP */
    char brand[49] = { 0 };
    for (uint32_t l = 0; l < 3; l++)
        cpuid(m, 0, 0x80000002 + l, 0, (uint32_t *)(brand + 16 * l));
    ck_assert_str_eq(brand, "pmusim Skylake-client CPU @ 2.00GHz");
    tm_destroy(m);
}
END_TEST

/* Leaf 0x15 gives the TSC as the crystal (the APIC timer's 100 MHz clock) times 20/1 = the
 * 2 GHz core clock, leaf 0x16 the same in MHz: what Linux's native_calibrate_tsc computes. */
START_TEST(cpuid_tsc_and_crystal_clocks_are_exact)
{
    Machine *m = fixture(0, 1);
    uint32_t r[4];
    cpuid(m, 0, 0x15, 0, r);
    ck_assert_uint_eq(r[2], m->cl.lapic_hz);
    ck_assert_uint_eq((uint64_t)r[2] * r[1] / r[0], m->cl.clock->freq_hz);
    ck_assert_uint_eq(r[0], 1);
    ck_assert_uint_eq(r[1], 20);
    cpuid(m, 0, 0x16, 0, r);
    ck_assert_uint_eq(r[0], 2000);
    ck_assert_uint_eq(r[1], 2000);
    ck_assert_uint_eq(r[2], 100);
    tm_destroy(m);
}
END_TEST

/* Leaves 1, 4 and 0xB agree with --cpus and the APIC IDs: one core per CPU, one thread per
 * core, the L3 shared by all. */
START_TEST(cpuid_topology_follows_the_cpus)
{
    Machine *m = fixture(0, 3);
    uint32_t r[4];
    for (int i = 0; i < 3; i++) {
        cpuid(m, i, 1, 0, r);
        ck_assert_uint_eq(r[1] >> 24, (uint32_t)i);
        ck_assert_uint_eq(r[1] >> 16 & 0xff, 4);
        cpuid(m, i, 0xb, 0, r);
        ck_assert_uint_eq(r[0], 0);
        ck_assert_uint_eq(r[1], 1);
        ck_assert_uint_eq(r[2] >> 8 & 0xff, 1);
        ck_assert_uint_eq(r[3], (uint32_t)i);
        cpuid(m, i, 0xb, 1, r);
        ck_assert_uint_eq(r[0], 2);
        ck_assert_uint_eq(r[1], 3);
        ck_assert_uint_eq(r[2] >> 8 & 0xff, 2);
        cpuid(m, i, 0xb, 2, r);
        ck_assert_uint_eq(r[2] >> 8 & 0xff, 0);
    }
    cpuid(m, 0, 4, 3, r);
    ck_assert_uint_eq(r[0] & 0x1f, 3);
    ck_assert_uint_eq(r[0] >> 5 & 7, 3);
    ck_assert_uint_eq(r[0] >> 14 & 0xfff, 3);
    ck_assert_uint_eq(r[0] >> 26, 3);
    cpuid(m, 0, 4, 4, r);
    ck_assert_uint_eq(r[0] & 0x1f, 0);
    tm_destroy(m);
}
END_TEST

/* The MSRs Linux 6.12 reads with plain rdmsr on this model answer (docs/guest-abi.md): the
 * microcode revision, the platform ID, the locked feature control; the LBR stack Linux resets. */
START_TEST(linux_boot_msrs_answer)
{
    Machine *m = fixture(0x780, 1);
    ck_assert_uint_eq(run_entry(m, NULL), 0);
    ck_assert_uint_eq(reg(m, UC_X86_REG_R8), 0xf0ull << 32);
    ck_assert_uint_eq(reg(m, UC_X86_REG_R9), 0);
    ck_assert_uint_eq(reg(m, UC_X86_REG_R10), 1);                      /* locked */
    ck_assert_uint_eq(reg(m, UC_X86_REG_R11), 20ull << 8 | 20ull << 40);
    int64_t adjust = (int64_t)reg(m, UC_X86_REG_RBX);
    ck_assert_int_lt(adjust, 0);                                        /* minus the TSC it had */
    ck_assert_uint_ge(reg(m, UC_X86_REG_RSI), (uint64_t)-adjust);
    ck_assert_uint_eq(reg(m, UC_X86_REG_RDI), 0);
    ck_assert_uint_eq(reg(m, UC_X86_REG_RBP), 0x1000);
    ck_assert_uint_eq(reg(m, UC_X86_REG_R12), 0x3f80408fffull);
    tm_destroy(m);
}
END_TEST

/* No feature is advertised that the engine would not execute: every bit of leaves 1, 7 and
 * 0x80000001 that pmusim sets is set by the engine's own CPUID for the same engine CPU model
 * (its TCG-filtered feature words), except those pmusim itself provides: the local APIC, x2APIC
 * and the TSC-deadline timer, the topology (HTT), self-snoop (no caches), IA32_TSC_ADJUST and
 * RDTSCP (trap sites). */
static void engine_cpuid(int uc_model, uint32_t leaf, uint32_t r[4])
{
    uc_engine *uc;
    ck_assert_int_eq(uc_open(UC_ARCH_X86, UC_MODE_64, &uc), UC_ERR_OK);
    ck_assert_int_eq(uc_ctl_set_cpu_model(uc, uc_model), UC_ERR_OK);
    ck_assert_int_eq(uc_mem_map(uc, 0x1000, 0x1000, UC_PROT_ALL), UC_ERR_OK);
    static const uint8_t insn[] = { 0x0f, 0xa2 };
    uc_mem_write(uc, 0x1000, insn, sizeof insn);
    uint64_t a = leaf, zero = 0, v;
    uc_reg_write(uc, UC_X86_REG_RAX, &a);
    uc_reg_write(uc, UC_X86_REG_RCX, &zero);
    ck_assert_int_eq(uc_emu_start(uc, 0x1000, 0x1000 + sizeof insn, 0, 1), UC_ERR_OK);
    static const int regs[4] = { UC_X86_REG_RAX, UC_X86_REG_RBX, UC_X86_REG_RCX, UC_X86_REG_RDX };
    for (int i = 0; i < 4; i++) {
        uc_reg_read(uc, regs[i], &v);
        r[i] = (uint32_t)v;
    }
    uc_close(uc);
}

static void check_model_features(const char *model)
{
    static const struct { uint32_t leaf; int reg; uint32_t pmusim_own; } words[] = {
        { 1, 2, 1u << 21 | 1u << 24 },              /* ECX: x2APIC, TSC-deadline */
        { 1, 3, 1u << 9 | 1u << 27 | 1u << 28 },    /* EDX: APIC, SS, HTT */
        { 7, 1, 1u << 1 },                          /* EBX: IA32_TSC_ADJUST */
        { 0x80000001, 2, 0 },
        { 0x80000001, 3, 1u << 27 },                /* EDX: RDTSCP */
    };
    Machine *m = fixture_model(0, 1, model);
    Cpu *c = m->cl.cpus[0];
    const CpuModel *md = c->model;
    for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
        uint32_t ours[4], engine[4];
        vcpu_x86_cpuid_values(c, words[i].leaf, 0, ours);
        engine_cpuid(md->uc_model, words[i].leaf, engine);
        uint32_t extra = ours[words[i].reg] & ~engine[words[i].reg] & ~words[i].pmusim_own;
        ck_assert_msg(extra == 0, "%s: leaf 0x%x register %d: bits 0x%x advertised, not in the engine's model",
                      model, words[i].leaf, words[i].reg, extra);
    }
    tm_destroy(m);
}

START_TEST(cpuid_advertises_only_what_the_engine_executes)
{
    check_model_features("generic");
    check_model_features("core2duo");
}
END_TEST

/* `core2duo` is a Core 2 (06_0FH stepping 6): max leaf 0xA, no SSE4, no x2APIC, no RDTSCP (its
 * trap site #UDs), no IA32_TSC_ADJUST or MSR_PLATFORM_INFO (#GP), a 4-deep LBR at 0x40/0x60. */
START_TEST(core2duo_is_a_core2)
{
    Machine *m = fixture_model(0, 1, "core2duo");
    uint32_t r[4];
    cpuid(m, 0, 0, 0, r);
    ck_assert_uint_eq(r[0], 0xa);
    cpuid(m, 0, 1, 0, r);
    ck_assert_uint_eq(r[0], 0x6f6);
    ck_assert_uint_eq(r[2], 1u << 0 | 1u << 9 | 1u << 13);
    cpuid(m, 0, 0x80000001, 0, r);
    ck_assert_uint_eq(r[3] & (1u << 27), 0);
    tm_destroy(m);
    m = fixture_model(0x980, 1, "core2duo");
    uint64_t rip;
    ck_assert_uint_eq(run_entry(m, &rip), V_GP);
    ck_assert_uint_eq(tm_read(m, rip, 2), 0x320f);                      /* rdmsr of 0x3b */
    ck_assert_uint_eq(reg(m, UC_X86_REG_R8), 0);                        /* LBR FROM_IP 3 */
    ck_assert_uint_eq(reg(m, UC_X86_REG_R9), 0xf0ull << 32);
    tm_destroy(m);
    m = fixture_model(0xa00, 1, "core2duo");
    static const uint8_t rdtscp[] = { 0x0f, 0x01, 0xf9 };
    ck_assert_uint_eq(run_entry(m, &rip), V_UD);
    for (unsigned i = 0; i < sizeof rdtscp; i++)
        ck_assert_uint_eq(tm_read(m, rip + i, 1), rdtscp[i]);
    tm_destroy(m);
}
END_TEST

/* A triple fault ends the run (exit=triple-fault) with the faults and the CPU state in its
 * diagnostic: here a non-canonical load with an IDT of limit 0 (#GP, whose delivery #GPs, then
 * #DF). */
START_TEST(triple_fault_reports_the_cpu_state)
{
    Machine *m = fixture(0x000, 1);
    tm_write(m, 0x201000, 2, 0);                        /* IDT limit 0 */
    const char *trace = testutil_temp_file("", 0, ".trace");
    Error err = { { 0 } };
    TraceSink *sink = trace_text_sink_open(trace, 0, &err);
    ck_assert_ptr_nonnull(sink);
    trace_add_sink(&m->trace, sink);
    ck_assert_int_eq(tm_run(m), EXIT_HUNG);
    ck_assert_str_eq(m->exit_reason, "triple-fault");
    ck_assert_int_eq(m->cl.cpus[0]->state, CPU_DEAD);
    tm_destroy(m);
    FILE *f = fopen(trace, "r");
    ck_assert_ptr_nonnull(f);
    char line[1024];
    bool found = false;
    while (fgets(line, sizeof line, f))
        if (strstr(line, "what=triple-fault")) {
            found = true;
            ck_assert_msg(strstr(line, "(#GP, then #GP, then #DF)") && strstr(line, "rsp=0x300000") &&
                              strstr(line, "cr3=0x9000") && strstr(line, "idtr=0x200000+0x0"),
                          "%s", line);
        }
    fclose(f);
    unlink(trace);
    ck_assert(found);
}
END_TEST

/* SYSRET is consistent with what CPUID advertises (SYSCALL/SYSRET, 0x80000001:EDX[11]): a
 * return to a non-canonical RIP is #GP(0) in ring 0, as on Intel parts. */
START_TEST(sysret_to_non_canonical_rcx_is_gp)
{
    static const uint8_t sysretq[] = { 0x48, 0x0f, 0x07 };
    expect_fault_at(0xa80, V_GP, sysretq, sizeof sysretq);
}
END_TEST

Suite *x86_cpu_suite(void);

Suite *x86_cpu_suite(void)
{
    Suite *s = suite_create("x86_cpu");
    TCase *t = tcase_create("fidelity");
    tcase_add_test(t, non_canonical_access_is_gp);
    tcase_add_test(t, non_canonical_stack_reference_is_ss);
    tcase_add_test(t, non_canonical_segment_base_msr_is_gp);
    tcase_add_test(t, wrfsbase_non_canonical_is_gp);
    tcase_add_test(t, rdpmc_fast_read_returns_low_32_bits);
    tcase_add_test(t, misc_enable_is_writable);
    tcase_add_test(t, x2apic_allowed_transitions);
    tcase_add_test(t, x2apic_illegal_transitions_are_gp);
    tcase_add_test(t, cpuid_names_a_skylake_client_core);
    tcase_add_test(t, cpuid_tsc_and_crystal_clocks_are_exact);
    tcase_add_test(t, cpuid_topology_follows_the_cpus);
    tcase_add_test(t, linux_boot_msrs_answer);
    tcase_add_test(t, cpuid_advertises_only_what_the_engine_executes);
    tcase_add_test(t, core2duo_is_a_core2);
    tcase_add_test(t, triple_fault_reports_the_cpu_state);
    tcase_add_test(t, sysret_to_non_canonical_rcx_is_gp);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return testutil_run(x86_cpu_suite());
}
