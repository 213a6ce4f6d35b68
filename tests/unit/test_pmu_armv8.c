/* test_pmu_armv8.c — the PMUv3.  On a running CPU (fixture tests/unit/blobs/arm64_pmu.s, with the
 * PMU's interrupt request connected straight to the CPU's IRQ pin where the machine will put the
 * GIC's PPI 23): overflows of INST_RETIRED, CPU_CYCLES, the 64-bit cycle counter, a CHAIN pair,
 * BR_PRED, MEM_ACCESS and SW_INCR on their exact instruction, the interrupt taken before the
 * next one; the EL filters; an overflow on the SVC that leaves EL0 as a user sample; the branch
 * and memory events of a known loop; a checkpoint in the middle of a count.  At register level, on a CPU that does not run (its clock set by hand):
 * enables, filters, the indirect registers, the request's level, PMCEID against what counts,
 * the one-time diagnostic, CHAIN, PMCR_EL0.LC and .D, resets, counters that do not exist, and a
 * checkpoint section of the first (counting-only) model. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/state.h"
#include "pmu/pmu_armv8.h"
#include "sim/checkpoint.h"
#include "testutil.h"
#include "tracer/profile.h"

ArmPmu *vcpu_arm64_pmu(Cpu *c);

#define LOAD 0x40080000ull
#define RESULTS 0x40100000ull
/* The fixture's records (arm64_pmu.s) and entries. */
enum { R_ELR = 0, R_OVS = 8, R_X2 = 16, R_CCNT = 24, R_OVS_AFTER = 32, R_IRQS = 40, R_EXPECT = 0x40, R_ESR = 0x48,
       R_COUNTERS = 0x50 };
enum { E_INSNS = 0x000, E_CYCLES = 0x200, E_CCNT64 = 0x400, E_CHAIN = 0x600, E_FILTER = 0x800, E_EVENTS = 0xa00,
       E_BRANCH = 0xc00, E_MEM = 0xe00, E_LONG = 0x1a00, E_SWINC = 0x1c00, E_SVC = 0x1e00 };
/* Entries B and C: where the MSR that sets PMCR_EL0.E is, how many instructions come before it,
 * and on which cycle counted the counter wraps (its preset). */
enum { CYC_EN = 0x300, CYC_EN_INSNS = 16, CCNT_EN = 0x500, CCNT_EN_INSNS = 14, TO_WRAP = 42 };

/* Register encodings (op0, op1, CRn, CRm, op2). */
#define PMCR 3, 3, 9, 12, 0
#define PMCNTENSET 3, 3, 9, 12, 1
#define PMCNTENCLR 3, 3, 9, 12, 2
#define PMOVSCLR 3, 3, 9, 12, 3
#define PMSWINC 3, 3, 9, 12, 4
#define PMSELR 3, 3, 9, 12, 5
#define PMCEID0 3, 3, 9, 12, 6
#define PMCEID1 3, 3, 9, 12, 7
#define PMCCNTR 3, 3, 9, 13, 0
#define PMXEVTYPER 3, 3, 9, 13, 1
#define PMXEVCNTR 3, 3, 9, 13, 2
#define PMINTENSET 3, 0, 9, 14, 1
#define PMOVSSET 3, 3, 9, 14, 3
#define PMCCFILTR 3, 3, 14, 15, 7
#define PMEVCNTR(n) 3, 3, 14, 8 + (n) / 8, (n) % 8
#define PMEVTYPER(n) 3, 3, 14, 12 + (n) / 8, (n) % 8
enum { PMCR_E = 1, PMCR_P = 2, PMCR_C = 4, PMCR_D = 8, PMCR_LC = 64 };
enum { EV_SW_INCR = 0x00, EV_INST_RETIRED = 0x08, EV_CPU_CYCLES = 0x11, EV_CHAIN = 0x1e };
#define CCNT_BIT (1u << 31)
#define FILTER_P (1u << 31)
#define FILTER_U (1u << 30)

/* The fixture at an entry; `irq`: the PMU's request drives the CPU's IRQ pin. */
static Machine *fixture_irq(unsigned entry, uint64_t max_insns, int ncpus, bool irq)
{
    Machine *m = tm_create(ARCH_ARM64, blob_arm64_pmu, blob_arm64_pmu_len, LOAD, LOAD + entry, max_insns, ncpus);
    for (int i = 0; irq && i < ncpus; i++)
        armv8_pmu_connect_irq(vcpu_arm64_pmu(m->cl.cpus[i]), vcpu_pin(m->cl.cpus[i], CPU_PIN_IRQ));
    return m;
}

static Machine *fixture(unsigned entry, uint64_t max_insns, int ncpus)
{
    return fixture_irq(entry, max_insns, ncpus, true);
}

static uint64_t result(Machine *m, unsigned off)
{
    return tm_read(m, RESULTS + off, 8);
}

/* A trace of m's run in a temporary file (read once m is destroyed). */
static void trace_to(Machine *m, char *path, size_t len)
{
    snprintf(path, len, "%s", testutil_temp_file("", 0, ".trace"));
    Error err = { { 0 } };
    TraceSink *s = trace_text_sink_open(path, 0, &err);
    ck_assert_msg(s != NULL, "%s", err.msg);
    trace_add_sink(&m->trace, s);
}

typedef struct Overflow {
    uint64_t cycle, pc, status;
    char counter[32];
    int pmi;
} Overflow;

/* The `pmu-overflow` lines of a trace, in order; how many. */
static int overflows(const char *path, Overflow *o, int max)
{
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strstr(line, " pmu-overflow ") || n == max)
            continue;
        Overflow *v = &o[n++];
        v->cycle = strtoull(line, NULL, 10);
        ck_assert(sscanf(strstr(line, "pc="), "pc=%" SCNx64, &v->pc) == 1);
        ck_assert(sscanf(strstr(line, "counter="), "counter=%31s", v->counter) == 1);
        ck_assert(sscanf(strstr(line, "status="), "status=%" SCNx64, &v->status) == 1);
        ck_assert(sscanf(strstr(line, "pmi="), "pmi=%d", &v->pmi) == 1);
    }
    fclose(f);
    return n;
}

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

/* Run an entry to its power-off; the interrupt it expects was taken once, acknowledged (the
 * request is low again), at the ELR the fixture stored. */
static Machine *run_to_interrupt(unsigned entry, char *trace, size_t len)
{
    Machine *m = fixture(entry, 0, 1);
    trace_to(m, trace, len);
    ck_assert_int_eq(tm_run(m), 0);
    ck_assert_str_eq(m->exit_reason, "psci-system-off");
    ck_assert_uint_eq(result(m, R_ESR), 0);
    ck_assert_uint_eq(result(m, R_IRQS), 1);
    ck_assert_uint_eq(result(m, R_OVS_AFTER), 0);
    ck_assert(!armv8_pmu_irq_level(vcpu_arm64_pmu(m->cl.cpus[0])));
    ck_assert(!m->cl.cpus[0]->pins.irq);
    return m;
}

/* ------------------------------------------------------------------ on a running CPU */

/* INST_RETIRED preset 10 below the wrap: the 10th instruction counted (the enabling MSR is the
 * first) overflows it; the interrupt is taken before the 11th (ELR_EL1); the trace names the
 * 10th; with --samples it is a kernel sample of PMEVCNTR0_EL0 at the 10th. */
START_TEST(inst_retired_overflows_on_the_exact_instruction)
{
    char trace[64];
    Machine *m = fixture(E_INSNS, 0, 1);
    m->profile = xcalloc(1, sizeof *m->profile);
    profile_init(m->profile);
    m->cfg.samples_file = "/dev/null";                 /* written at the end of the run */
    trace_to(m, trace, sizeof trace);
    ck_assert_int_eq(tm_run(m), 0);
    uint64_t expect = result(m, R_EXPECT);
    ck_assert_uint_eq(result(m, R_ELR), expect);
    ck_assert_uint_eq(result(m, R_OVS), 1);
    ck_assert_uint_eq(result(m, R_OVS_AFTER), 0);
    ck_assert_uint_eq(m->profile->nsamples, 1);
    ck_assert_uint_eq(m->profile->samples[0].pc, expect - 4);
    ck_assert(!m->profile->samples[0].user);
    ck_assert_str_eq(m->profile->samples[0].counter, "PMEVCNTR0_EL0");
    profile_destroy(m->profile);
    free(m->profile);
    m->profile = NULL;
    tm_destroy(m);
    Overflow o[4];
    ck_assert_int_eq(overflows(trace, o, 4), 1);
    ck_assert_uint_eq(o[0].pc, expect - 4);
    ck_assert_str_eq(o[0].counter, "PMEVCNTR0_EL0");
    ck_assert_uint_eq(o[0].status, 1);
    ck_assert_int_eq(o[0].pmi, 1);
    unlink(trace);
}
END_TEST

/* The cycle count after exactly n instructions of an entry, and the PC there (the next one),
 * the PMU's request not connected (the overflow takes no interrupt). */
static uint64_t cycles_after(unsigned entry, uint64_t n, uint64_t *pc)
{
    Machine *m = fixture_irq(entry, n, 1, false);
    ck_assert_int_eq(tm_run(m), EXIT_LIMIT);
    *pc = vcpu_reg_read(m->cl.cpus[0], UC_ARM64_REG_PC);
    uint64_t cyc = m->cl.cpus[0]->cycles;
    tm_destroy(m);
    return cyc;
}

/* A cycle-counting counter enabled by the MSR at en (after en_insns instructions), TO_WRAP
 * cycles below its wrap, overflows in the instruction during which the TO_WRAP-th cycle since
 * that MSR's sync passes (found by running the entry instruction by instruction), and the
 * interrupt is taken right after it: the trace's overflow is at that instruction and cycle. */
static void cycles_overflow_exactly(unsigned entry, unsigned en, unsigned en_insns, uint32_t bit, const char *name)
{
    uint64_t pc, at, n = en_insns;
    uint64_t c0 = cycles_after(entry, n, &pc), before = c0;
    ck_assert_uint_eq(pc, LOAD + en);                  /* the fixture's count */
    while ((at = cycles_after(entry, ++n, &pc)) - c0 < TO_WRAP)
        before = at;
    ck_assert_uint_lt(before - c0, TO_WRAP);
    char trace[64];
    Machine *m = run_to_interrupt(entry, trace, sizeof trace);
    ck_assert_uint_eq(result(m, R_ELR), pc);
    ck_assert_uint_eq(result(m, R_OVS), bit);
    tm_destroy(m);
    Overflow o[4];
    ck_assert_int_eq(overflows(trace, o, 4), 1);
    ck_assert_uint_eq(o[0].pc, pc - 4);
    ck_assert_uint_eq(o[0].cycle, at);
    ck_assert_str_eq(o[0].counter, name);
    unlink(trace);
}

START_TEST(cpu_cycles_overflow_on_the_exact_cycle)
{
    cycles_overflow_exactly(E_CYCLES, CYC_EN, CYC_EN_INSNS, 2, "PMEVCNTR1_EL0");
}
END_TEST

/* The cycle counter with PMCR_EL0.LC overflows at 2^64 (preset by a write while LC was still
 * 0, which keeps all 64 bits), on its exact cycle; the handler reads it just past zero. */
START_TEST(cycle_counter_with_lc_overflows_at_64_bits)
{
    cycles_overflow_exactly(E_CCNT64, CCNT_EN, CCNT_EN_INSNS, CCNT_BIT, "PMCCNTR_EL0");
    char trace[64];
    Machine *m = run_to_interrupt(E_CCNT64, trace, sizeof trace);
    ck_assert_uint_lt(result(m, R_CCNT), m->cl.cpus[0]->cycles);
    tm_destroy(m);
    unlink(trace);
}
END_TEST

/* A chained pair: the even counter's wrap carries into the odd CHAIN counter and wraps it on
 * the same instruction; the odd one's interrupt (the only one enabled, as Linux has it) is
 * taken before the next. */
START_TEST(chain_pair_overflows_on_the_same_instruction)
{
    char trace[64];
    Machine *m = run_to_interrupt(E_CHAIN, trace, sizeof trace);
    uint64_t expect = result(m, R_EXPECT);
    ck_assert_uint_eq(result(m, R_ELR), expect);
    ck_assert_uint_eq(result(m, R_OVS), 0xc);
    tm_destroy(m);
    Overflow o[4];
    ck_assert_int_eq(overflows(trace, o, 4), 2);
    ck_assert_str_eq(o[0].counter, "PMEVCNTR2_EL0");
    ck_assert_str_eq(o[1].counter, "PMEVCNTR3_EL0");
    ck_assert_uint_eq(o[0].pc, expect - 4);
    ck_assert_uint_eq(o[1].pc, expect - 4);
    ck_assert_uint_eq(o[1].cycle, o[0].cycle);
    unlink(trace);
}
END_TEST

/* PMEVTYPER0_EL0.U: the 21 instructions at EL0 are not counted, so the counter overflows in the
 * EL1 handler after the SVC (at EL0 it would have overflowed at the 8th NOP there). */
START_TEST(u_filter_does_not_count_an_el0_stretch)
{
    char trace[64];
    Machine *m = run_to_interrupt(E_FILTER, trace, sizeof trace);
    ck_assert_uint_eq(result(m, R_ELR), result(m, R_EXPECT));
    ck_assert_uint_eq(result(m, R_OVS), 1);
    tm_destroy(m);
    unlink(trace);
}
END_TEST

/* An overflow on the SVC that leaves EL0 is a user sample at the SVC (the EL it ran at), though
 * no counter filters by EL; the interrupt waits for the EL1 handler's DAIFClr. */
START_TEST(an_overflow_on_the_svc_is_a_user_sample)
{
    char trace[64];
    Machine *m = fixture(E_SVC, 0, 1);
    m->profile = xcalloc(1, sizeof *m->profile);
    profile_init(m->profile);
    m->cfg.samples_file = "/dev/null";                 /* written at the end of the run */
    trace_to(m, trace, sizeof trace);
    ck_assert_int_eq(tm_run(m), 0);
    ck_assert_uint_eq(result(m, R_ELR), result(m, R_COUNTERS));
    ck_assert_uint_eq(result(m, R_OVS), 1);
    ck_assert_uint_eq(m->profile->nsamples, 1);
    ck_assert_uint_eq(m->profile->samples[0].pc, result(m, R_EXPECT));
    ck_assert(m->profile->samples[0].user);
    profile_destroy(m->profile);
    free(m->profile);
    m->profile = NULL;
    tm_destroy(m);
    unlink(trace);
}
END_TEST

/* 100 iterations of ldr, str, subs, b.ne: BR_PRED counts the 100 b.ne, BR_MIS_PRED the 2 the
 * predictor gets wrong (the first taken one and the final fall-through, from weakly not-taken:
 * docs/cycle-model.md), MEM_ACCESS and L1D_CACHE the 200 loads and stores, INST_RETIRED the 400
 * and the enabling MSR; event 0x03 (not modelled) nothing, with one diagnostic. */
START_TEST(branch_and_memory_events_on_a_known_loop)
{
    char trace[64];
    Machine *m = fixture(E_EVENTS, 0, 1);
    trace_to(m, trace, sizeof trace);
    ck_assert_int_eq(tm_run(m), 0);
    ck_assert_uint_eq(result(m, R_COUNTERS), 100);
    ck_assert_uint_eq(result(m, R_COUNTERS + 8), 2);
    ck_assert_uint_eq(result(m, R_COUNTERS + 16), 200);
    ck_assert_uint_eq(result(m, R_COUNTERS + 24), 200);
    ck_assert_uint_eq(result(m, R_COUNTERS + 32), 401);
    ck_assert_uint_eq(result(m, R_COUNTERS + 40), 0);
    tm_destroy(m);
    ck_assert_int_eq(count_in(trace, "what=pmu-event"), 1);
    ck_assert_int_eq(count_in(trace, "PMEVCNTR5_EL0 enabled with event 0x03"), 1);
    unlink(trace);
}
END_TEST

/* BR_PRED 50 below its wrap: the 50th b.ne (taken, x2 = 50) overflows it, and the interrupt is
 * taken at the loop's first instruction, where that branch went. */
START_TEST(branch_overflow_is_taken_where_the_branch_went)
{
    char trace[64];
    Machine *m = run_to_interrupt(E_BRANCH, trace, sizeof trace);
    ck_assert_uint_eq(result(m, R_ELR), result(m, R_EXPECT));
    ck_assert_uint_eq(result(m, R_X2), 50);
    tm_destroy(m);
    unlink(trace);
}
END_TEST

/* MEM_ACCESS 15 below its wrap: the 8th load, in the middle of its block, overflows it; the
 * interrupt is taken at the store after it (x2 = 93: seven iterations done). */
START_TEST(memory_overflow_inside_a_block)
{
    char trace[64];
    Machine *m = run_to_interrupt(E_MEM, trace, sizeof trace);
    ck_assert_uint_eq(result(m, R_ELR), result(m, R_EXPECT));
    ck_assert_uint_eq(result(m, R_X2), 93);
    ck_assert_uint_eq(result(m, R_OVS), 4);
    tm_destroy(m);
    unlink(trace);
}
END_TEST

/* A write of PMSWINC_EL0 wraps a SW_INCR counter at 0xffffffff: the overflow is that MSR's,
 * and the interrupt is taken right after it. */
START_TEST(pmswinc_overflows_at_its_write)
{
    char trace[64];
    Machine *m = run_to_interrupt(E_SWINC, trace, sizeof trace);
    uint64_t expect = result(m, R_EXPECT);
    ck_assert_uint_eq(result(m, R_ELR), expect);
    ck_assert_uint_eq(result(m, R_OVS), 0x20);
    tm_destroy(m);
    Overflow o[2];
    ck_assert_int_eq(overflows(trace, o, 2), 1);
    ck_assert_uint_eq(o[0].pc, expect - 4);
    ck_assert_str_eq(o[0].counter, "PMEVCNTR5_EL0");
    unlink(trace);
}
END_TEST

/* A checkpoint 100,000 instructions into a count of 150,001 (its overflow predicted on the
 * instruction queue, the 64-bit cycle counter beside it): the restored run overflows on the
 * same instruction and cycle, with the same registers, and ends on the same cycle. */
START_TEST(checkpoint_mid_count_overflows_on_the_same_instruction)
{
    char t1[64], t2[64];
    Machine *a = fixture(E_LONG, 0, 1);
    trace_to(a, t1, sizeof t1);
    ck_assert_int_eq(tm_run(a), 0);
    Machine *m = fixture(E_LONG, 100000, 1);
    ck_assert_int_eq(tm_run(m), EXIT_LIMIT);
    char path[64];
    snprintf(path, sizeof path, "%s", testutil_temp_file("", 0, ".ck"));
    Error err = { { 0 } };
    ck_assert_msg(checkpoint_save(m, path, &err), "checkpoint_save: %s", err.msg);
    Machine *n = fixture(E_LONG, 0, 1);
    trace_to(n, t2, sizeof t2);
    ck_assert_msg(checkpoint_restore(n, path, &err), "checkpoint_restore: %s", err.msg);
    ck_assert_int_eq(mach_run(n), 0);
    for (unsigned off = R_ELR; off <= R_IRQS; off += 8)
        ck_assert_uint_eq(result(n, off), result(a, off));
    ck_assert_uint_eq(result(a, R_IRQS), 1);
    ck_assert_uint_eq(n->cl.cpus[0]->cycles, a->cl.cpus[0]->cycles);
    ck_assert_uint_eq(n->cl.cpus[0]->insns, a->cl.cpus[0]->insns);
    tm_destroy(a);
    tm_destroy(m);
    tm_destroy(n);
    Overflow o1[2], o2[2];
    ck_assert_int_eq(overflows(t1, o1, 2), 1);
    ck_assert_int_eq(overflows(t2, o2, 2), 1);
    ck_assert_uint_eq(o2[0].pc, o1[0].pc);
    ck_assert_uint_eq(o2[0].cycle, o1[0].cycle);
    unlink(t1);
    unlink(t2);
    unlink(path);
}
END_TEST

/* ------------------------------------------------------------------ at register level */

static Machine *idle(int ncpus)
{
    Machine *m = fixture(E_INSNS, 0, ncpus);
    mach_boot(m);
    ck_assert_uint_eq(m->cl.cpus[0]->cycles, 0);       /* the clock the tests set starts here */
    ck_assert_uint_eq(m->cl.cpus[0]->insns, 0);
    return m;
}

/* The CPU's clock and count are (cyc, ins) from now on: what falls due fires. */
static void at(Cpu *c, uint64_t cyc, uint64_t ins)
{
    c->cycles = cyc;
    c->insns = ins;
    evq_run_due(&c->events, cyc);
    evq_run_due(&c->insn_events, ins);
}

static uint64_t rd(ArmPmu *p, unsigned a, unsigned b, unsigned c, unsigned d, unsigned e)
{
    uint64_t v = 0xdead;
    ck_assert(armv8_pmu_read(p, a, b, c, d, e, &v));
    return v;
}

#define RD(p, ...) rd(p, __VA_ARGS__)
#define WR(p, ...) ck_assert(armv8_pmu_write(p, __VA_ARGS__))

START_TEST(pmcr_reports_six_counters_and_the_model)
{
    Machine *m = idle(1);
    uint64_t pmcr = RD(vcpu_arm64_pmu(m->cl.cpus[0]), PMCR);
    ck_assert_uint_eq((pmcr >> 11) & 0x1f, ARMV8_PMU_COUNTERS);
    ck_assert_uint_eq(pmcr >> 24, 0x41);
    ck_assert_uint_eq((pmcr >> 16) & 0xff, m->cl.cpus[0]->model->pmu_idcode);
    tm_destroy(m);
}
END_TEST

START_TEST(counters_count_cycles_and_instructions_only_while_enabled)
{
    Machine *m = idle(1);
    Cpu *c = m->cl.cpus[0];
    ArmPmu *p = vcpu_arm64_pmu(c);
    WR(p, PMEVTYPER(0), EV_INST_RETIRED);
    WR(p, PMEVTYPER(1), EV_CPU_CYCLES);
    WR(p, PMCNTENSET, CCNT_BIT | 3);
    at(c, 100, 10);
    WR(p, PMCR, PMCR_E);
    at(c, 1100, 510);
    ck_assert_uint_eq(RD(p, PMEVCNTR(0)), 500);
    ck_assert_uint_eq(RD(p, PMEVCNTR(1)), 1000);
    ck_assert_uint_eq(RD(p, PMCCNTR), 1000);
    at(c, 2000, 900);
    WR(p, PMCNTENCLR, 1);                               /* counter 0 stops at 890 */
    at(c, 5000, 3000);
    ck_assert_uint_eq(RD(p, PMEVCNTR(0)), 890);
    ck_assert_uint_eq(RD(p, PMEVCNTR(1)), 4900);
    at(c, 6000, 3000);
    WR(p, PMCR, 0);                                     /* E off: nothing counts */
    at(c, 9000, 4000);
    ck_assert_uint_eq(RD(p, PMCCNTR), 5900);
    tm_destroy(m);
}
END_TEST

/* P stops counting at EL1, U at EL0; the CPU's EL changes reach the model (armv8_pmu_set_el). */
START_TEST(el_filters_follow_the_cpus_el)
{
    Machine *m = idle(1);
    Cpu *c = m->cl.cpus[0];
    ArmPmu *p = vcpu_arm64_pmu(c);
    WR(p, PMEVTYPER(2), FILTER_P | EV_CPU_CYCLES);
    WR(p, PMEVTYPER(3), FILTER_U | EV_CPU_CYCLES);
    WR(p, PMCCFILTR, FILTER_U);
    WR(p, PMCNTENSET, CCNT_BIT | 0xc);
    WR(p, PMCR, PMCR_E);
    at(c, 1000, 1000);
    armv8_pmu_set_el(p, 0);
    at(c, 1600, 1000);
    armv8_pmu_set_el(p, 1);
    at(c, 1700, 1000);
    ck_assert_uint_eq(RD(p, PMEVCNTR(2)), 600);         /* EL0's only */
    ck_assert_uint_eq(RD(p, PMEVCNTR(3)), 1100);        /* EL1's only */
    ck_assert_uint_eq(RD(p, PMCCNTR), 1100);
    WR(p, PMEVTYPER(2), 0xffffffffu);                   /* NSK, NSU, NSH, M, evtCount[15:10]: RES0 */
    ck_assert_uint_eq(RD(p, PMEVTYPER(2)), FILTER_P | FILTER_U | 0x3ff);
    WR(p, PMCCFILTR, 0xffffffffu);
    ck_assert_uint_eq(RD(p, PMCCFILTR), FILTER_P | FILTER_U);
    tm_destroy(m);
}
END_TEST

static int nlevels;
static bool levels[8];

static bool record_level(void *opaque, int n, bool level)
{
    if (nlevels < 8)
        levels[nlevels++] = level;
    return true;
}

/* Overflow sets PMOVSSET at the wrap (exactly: the predicted event); the request is a level,
 * E && (PMOVSSET & PMINTENSET), driven only when it changes. */
START_TEST(overflow_status_and_the_request_level)
{
    Machine *m = idle(1);
    Cpu *c = m->cl.cpus[0];
    ArmPmu *p = vcpu_arm64_pmu(c);
    nlevels = 0;
    armv8_pmu_connect_irq(p, irq_line(record_level, NULL, 0));
    ck_assert(nlevels == 1 && !levels[0]);             /* connecting drives the level it has */
    nlevels = 0;
    WR(p, PMEVTYPER(0), EV_INST_RETIRED);
    WR(p, PMEVCNTR(0), 0xffffff00u);
    WR(p, PMCNTENSET, 1);
    WR(p, PMCR, PMCR_E);
    at(c, 0, 0xff);
    ck_assert_uint_eq(RD(p, PMOVSSET), 0);
    at(c, 0, 0x100);
    ck_assert_uint_eq(RD(p, PMOVSSET), 1);
    ck_assert_uint_eq(RD(p, PMEVCNTR(0)), 0);
    ck_assert_int_eq(nlevels, 0);                       /* no interrupt enabled */
    WR(p, PMINTENSET, 1);
    WR(p, PMCR, 0);
    WR(p, PMCR, PMCR_E);
    WR(p, PMOVSCLR, 1);
    ck_assert_uint_eq(RD(p, PMOVSSET), 0);
    ck_assert_int_eq(nlevels, 4);
    ck_assert(levels[0] && !levels[1] && levels[2] && !levels[3]);
    WR(p, PMOVSSET, 1);                                 /* software sets it: the request too */
    ck_assert(armv8_pmu_irq_level(p));
    tm_destroy(m);
}
END_TEST

/* A counter whose interrupt is enabled overflowing again before its PMOVSSET bit was cleared:
 * the driver did not handle the first (pmu-unacked); without the interrupt, nothing is said. */
START_TEST(overflow_again_before_the_bit_is_cleared_is_diagnosed)
{
    Machine *m = idle(1);
    char trace[64];
    trace_to(m, trace, sizeof trace);
    Cpu *c = m->cl.cpus[0];
    ArmPmu *p = vcpu_arm64_pmu(c);
    WR(p, PMEVTYPER(0), EV_CPU_CYCLES);
    WR(p, PMEVTYPER(1), EV_CPU_CYCLES);
    WR(p, PMEVCNTR(0), 0xfffffff0u);
    WR(p, PMEVCNTR(1), 0xfffffff0u);
    WR(p, PMINTENSET, 1);
    WR(p, PMCNTENSET, 3);
    WR(p, PMCR, PMCR_E);
    at(c, 16, 0);
    WR(p, PMEVCNTR(0), 0xfffffff0u);
    WR(p, PMEVCNTR(1), 0xfffffff0u);
    at(c, 32, 0);
    ck_assert_uint_eq(RD(p, PMOVSSET), 3);
    tm_destroy(m);
    ck_assert_int_eq(count_in(trace, "what=pmu-unacked"), 1);
    ck_assert_int_eq(count_in(trace, "PMEVCNTR0_EL0 overflowed again"), 1);
    ck_assert_int_eq(count_in(trace, " pmu-overflow "), 4);
    unlink(trace);
}
END_TEST

START_TEST(selected_counter_through_pmxev_registers)
{
    Machine *m = idle(1);
    ArmPmu *p = vcpu_arm64_pmu(m->cl.cpus[0]);
    uint64_t v;
    WR(p, PMSELR, 3);
    WR(p, PMXEVTYPER, EV_CPU_CYCLES);
    WR(p, PMXEVCNTR, 42);
    ck_assert_uint_eq(RD(p, PMEVTYPER(3)), EV_CPU_CYCLES);
    ck_assert_uint_eq(RD(p, PMEVCNTR(3)), 42);
    WR(p, PMSELR, 31);                                  /* PMXEVTYPER is PMCCFILTR */
    WR(p, PMXEVTYPER, FILTER_P);
    ck_assert_uint_eq(RD(p, PMCCFILTR), FILTER_P);
    ck_assert(!armv8_pmu_read(p, PMXEVCNTR, &v));       /* no counter 31 */
    WR(p, PMSELR, ARMV8_PMU_COUNTERS);
    ck_assert(!armv8_pmu_write(p, PMXEVTYPER, 0));
    ck_assert(!armv8_pmu_read(p, PMXEVCNTR, &v));
    tm_destroy(m);
}
END_TEST

START_TEST(software_increment_and_reset_bits)
{
    Machine *m = idle(1);
    Cpu *c = m->cl.cpus[0];
    ArmPmu *p = vcpu_arm64_pmu(c);
    WR(p, PMEVTYPER(5), EV_SW_INCR);
    WR(p, PMEVTYPER(4), EV_CPU_CYCLES);
    WR(p, PMCNTENSET, 1u << 5 | 1u << 4 | CCNT_BIT);
    WR(p, PMSWINC, 1u << 5);                            /* E clear: nothing counts */
    WR(p, PMCR, PMCR_E);
    WR(p, PMSWINC, 1u << 5);
    WR(p, PMSWINC, 1u << 5 | 1u << 4);                  /* counter 4 is not SW_INCR */
    at(c, 10, 10);
    ck_assert_uint_eq(RD(p, PMEVCNTR(5)), 2);
    ck_assert_uint_eq(RD(p, PMEVCNTR(4)), 10);
    WR(p, PMCR, PMCR_E | PMCR_P | PMCR_C);              /* P and C reset; they read as 0 */
    ck_assert_uint_eq(RD(p, PMCR) & (PMCR_P | PMCR_C), 0);
    at(c, 20, 20);
    ck_assert_uint_eq(RD(p, PMEVCNTR(5)), 0);
    ck_assert_uint_eq(RD(p, PMEVCNTR(4)), 10);
    ck_assert_uint_eq(RD(p, PMCCNTR), 10);
    WR(p, PMEVTYPER(5), FILTER_P | EV_SW_INCR);         /* filtered at EL1: not counted */
    WR(p, PMSWINC, 1u << 5);
    ck_assert_uint_eq(RD(p, PMEVCNTR(5)), 0);
    tm_destroy(m);
}
END_TEST

START_TEST(missing_counters_and_wrong_directions_are_undefined)
{
    Machine *m = idle(1);
    ArmPmu *p = vcpu_arm64_pmu(m->cl.cpus[0]);
    uint64_t v;
    ck_assert(!armv8_pmu_read(p, PMEVCNTR(6), &v));
    ck_assert(!armv8_pmu_write(p, PMEVTYPER(30), 0));
    ck_assert(!armv8_pmu_write(p, PMCEID0, 0));         /* read-only */
    ck_assert(!armv8_pmu_read(p, PMSWINC, &v));         /* write-only */
    ck_assert(!armv8_pmu_read(p, 3, 3, 9, 13, 3, &v));  /* an owned encoding with no register */
    ck_assert(armv8_pmu_owns(PMCR) && !armv8_pmu_owns(3, 0, 0, 0, 5));
    tm_destroy(m);
}
END_TEST

/* Diagnosed event numbers, from the trace's pmu-event lines. */
static void diagnosed(const char *path, bool seen[64])
{
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[512];
    while (fgets(line, sizeof line, f)) {
        const char *e = strstr(line, "enabled with event 0x");
        unsigned ev;
        if (strstr(line, "what=pmu-event") && e && sscanf(e, "enabled with event 0x%x", &ev) == 1 && ev < 64)
            seen[ev] = true;
    }
    fclose(f);
}

/* PMCEID0/1 advertise exactly the events that count: each of events 0x00-0x3f enabled on an odd
 * counter (where CHAIN is valid) gets the not-modelled diagnostic exactly when its PMCEID bit is
 * clear. */
START_TEST(pmceid_advertises_exactly_the_events_that_count)
{
    Machine *m = idle(1);
    char trace[64];
    trace_to(m, trace, sizeof trace);
    ArmPmu *p = vcpu_arm64_pmu(m->cl.cpus[0]);
    uint64_t ceid = RD(p, PMCEID0) | RD(p, PMCEID1) << 32;
    ck_assert_uint_eq(ceid, 0x400f0111u);
    WR(p, PMCNTENSET, 2);
    WR(p, PMCR, PMCR_E);
    for (unsigned ev = 0; ev < 64; ev++)
        WR(p, PMEVTYPER(1), ev);
    tm_destroy(m);
    bool seen[64] = { false };
    diagnosed(trace, seen);
    for (unsigned ev = 0; ev < 64; ev++)
        ck_assert_msg(seen[ev] == !(ceid >> ev & 1), "event 0x%02x: advertised %d, diagnosed %d", ev,
                      (int)(ceid >> ev & 1), seen[ev]);
    unlink(trace);
}
END_TEST

/* An unmodelled event counts nothing and is diagnosed once per event number per CPU (another
 * counter, or enabling it again, says nothing more; the second CPU says it once too). */
START_TEST(unmodelled_event_counts_nothing_diagnosed_once_per_cpu)
{
    Machine *m = idle(2);
    char trace[64];
    trace_to(m, trace, sizeof trace);
    for (int i = 0; i < 2; i++) {
        Cpu *c = m->cl.cpus[i];
        ArmPmu *p = vcpu_arm64_pmu(c);
        WR(p, PMEVTYPER(0), 0x03);
        WR(p, PMEVTYPER(2), 0x03);
        WR(p, PMCNTENSET, 5);
        WR(p, PMCR, PMCR_E);
        WR(p, PMCR, 0);
        WR(p, PMCR, PMCR_E);
        at(c, c->cycles + 500, c->insns + 500);
        ck_assert_uint_eq(RD(p, PMEVCNTR(0)), 0);
        ck_assert_uint_eq(RD(p, PMEVCNTR(2)), 0);
    }
    tm_destroy(m);
    ck_assert_int_eq(count_in(trace, "what=pmu-event"), 2);
    ck_assert_int_eq(count_in(trace, " cpu0 diag what=pmu-event"), 1);
    ck_assert_int_eq(count_in(trace, " cpu1 diag what=pmu-event"), 1);
    unlink(trace);
}
END_TEST

/* CHAIN on counter 1 counts counter 0's wraps, at them: the first carry takes it to 0xffffffff,
 * the second wraps it (both status bits then).  Not while counter 1 is disabled or filtered at
 * this EL; on an even counter CHAIN counts nothing (with the diagnostic). */
START_TEST(chain_counts_the_even_counters_wraps)
{
    Machine *m = idle(1);
    char trace[64];
    trace_to(m, trace, sizeof trace);
    Cpu *c = m->cl.cpus[0];
    ArmPmu *p = vcpu_arm64_pmu(c);
    WR(p, PMEVTYPER(0), EV_CPU_CYCLES);
    WR(p, PMEVTYPER(1), EV_CHAIN);
    WR(p, PMEVCNTR(0), 0xfffffff0u);
    WR(p, PMEVCNTR(1), 0xfffffffeu);
    WR(p, PMCNTENSET, 3);
    WR(p, PMCR, PMCR_E);
    at(c, 16, 0);
    ck_assert_uint_eq(RD(p, PMEVCNTR(1)), 0xffffffffu);
    ck_assert_uint_eq(RD(p, PMOVSSET), 1);
    WR(p, PMEVCNTR(0), 0xfffffff0u);
    at(c, 32, 0);
    ck_assert_uint_eq(RD(p, PMEVCNTR(1)), 0);
    ck_assert_uint_eq(RD(p, PMOVSSET), 3);
    WR(p, PMEVCNTR(0), 0xfffffff0u);
    WR(p, PMCNTENCLR, 2);
    at(c, 48, 0);
    ck_assert_uint_eq(RD(p, PMEVCNTR(1)), 0);           /* disabled: no carry */
    WR(p, PMEVTYPER(1), FILTER_P | EV_CHAIN);
    WR(p, PMCNTENSET, 2);
    WR(p, PMEVCNTR(0), 0xfffffff0u);
    at(c, 64, 0);
    ck_assert_uint_eq(RD(p, PMEVCNTR(1)), 0);           /* filtered at EL1: no carry */
    WR(p, PMEVTYPER(2), EV_CHAIN);
    WR(p, PMCNTENSET, 4);
    at(c, 100, 0);
    ck_assert_uint_eq(RD(p, PMEVCNTR(2)), 0);
    tm_destroy(m);
    ck_assert_int_eq(count_in(trace, "PMEVCNTR2_EL0 enabled with event 0x1e: CHAIN on an even"), 1);
    unlink(trace);
}
END_TEST

/* PMCR_EL0.LC = 0: the cycle counter overflows when bits [31:0] wrap and goes on into [63:32];
 * LC = 1: at 2^64.  Changing LC keeps the value. */
START_TEST(lc_chooses_the_cycle_counters_overflow)
{
    Machine *m = idle(1);
    Cpu *c = m->cl.cpus[0];
    ArmPmu *p = vcpu_arm64_pmu(c);
    WR(p, PMCCNTR, 0x5fffffff0ull);
    WR(p, PMCNTENSET, CCNT_BIT);
    WR(p, PMCR, PMCR_E);
    at(c, 15, 0);
    ck_assert_uint_eq(RD(p, PMOVSSET), 0);
    at(c, 16, 0);
    ck_assert_uint_eq(RD(p, PMOVSSET), CCNT_BIT);
    ck_assert_uint_eq(RD(p, PMCCNTR), 0x600000000ull);
    WR(p, PMOVSCLR, CCNT_BIT);
    WR(p, PMCR, PMCR_E | PMCR_LC);
    ck_assert_uint_eq(RD(p, PMCCNTR), 0x600000000ull);
    WR(p, PMCCNTR, 0xfffffffffffffff0ull);
    at(c, 31, 0);
    ck_assert_uint_eq(RD(p, PMOVSSET), 0);
    at(c, 32, 0);
    ck_assert_uint_eq(RD(p, PMOVSSET), CCNT_BIT);
    ck_assert_uint_eq(RD(p, PMCCNTR), 0);
    WR(p, PMCR, PMCR_E | PMCR_LC | PMCR_C);             /* at 0 with LC: 2^64 away, never */
    at(c, 1000, 0);
    ck_assert_uint_eq(RD(p, PMCCNTR), 968);
    tm_destroy(m);
}
END_TEST

/* PMCR_EL0.D: the cycle counter counts once every 64 cycles (the event counters do not). */
START_TEST(d_divides_the_cycle_counter_by_64)
{
    Machine *m = idle(1);
    Cpu *c = m->cl.cpus[0];
    ArmPmu *p = vcpu_arm64_pmu(c);
    WR(p, PMEVTYPER(0), EV_CPU_CYCLES);
    WR(p, PMCNTENSET, CCNT_BIT | 1);
    WR(p, PMCR, PMCR_E | PMCR_D);
    at(c, 64 * 10, 0);
    ck_assert_uint_eq(RD(p, PMCCNTR), 10);
    ck_assert_uint_eq(RD(p, PMEVCNTR(0)), 640);
    WR(p, PMCCNTR, 0xfffffffeu);
    at(c, 64 * 11 + 63, 0);
    ck_assert_uint_eq(RD(p, PMOVSSET), 0);
    at(c, 64 * 12, 0);
    ck_assert_uint_eq(RD(p, PMOVSSET), CCNT_BIT);
    tm_destroy(m);
}
END_TEST

/* A section of the first model (version 1: the registers, the counters as of its last sync at
 * 5000 cycles and 2000 instructions) loads: what it owed since then is counted (INST_RETIRED
 * and the cycle counter, both counting at EL1), and the counters count on. */
START_TEST(version_1_section_loads)
{
    Machine *m = idle(1);
    Cpu *c = m->cl.cpus[0];
    ArmPmu *p = vcpu_arm64_pmu(c);
    Blob b;
    blob_init(&b);
    size_t sec = blob_begin(&b, "armv8-pmu", 1);
    blob_u64(&b, PMCR_E);                               /* pmcr */
    blob_u32(&b, CCNT_BIT | 1);                         /* cnten */
    blob_u32(&b, 0);                                    /* inten */
    blob_u32(&b, 0);                                    /* ovs */
    blob_u32(&b, 0);                                    /* selr */
    blob_u32(&b, 0);                                    /* userenr */
    for (int i = 0; i < ARMV8_PMU_COUNTERS; i++)
        blob_u64(&b, i == 0 ? EV_INST_RETIRED : 0);     /* evtyper */
    for (int i = 0; i < ARMV8_PMU_COUNTERS; i++)
        blob_u64(&b, i == 0 ? 100 : 0);                 /* evcnt */
    blob_u64(&b, 0);                                    /* ccfiltr */
    blob_u64(&b, 1000);                                 /* ccnt */
    blob_u64(&b, 5000);                                 /* sync_cycles */
    blob_u64(&b, 2000);                                 /* sync_insns */
    blob_end(&b, sec);
    c->cycles = 6000;
    c->insns = 2500;
    BlobReader r;
    br_init(&r, b.data, b.len, 0);
    ck_assert(armv8_pmu_load(p, &r));
    ck_assert_uint_eq(RD(p, PMEVCNTR(0)), 600);
    ck_assert_uint_eq(RD(p, PMCCNTR), 2000);
    at(c, 7000, 2600);
    ck_assert_uint_eq(RD(p, PMEVCNTR(0)), 700);
    ck_assert_uint_eq(RD(p, PMCCNTR), 3000);
    blob_free(&b);
    tm_destroy(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pmu_armv8");
    TCase *g = tcase_create("guest");
    tcase_set_timeout(g, 120);
    tcase_add_test(g, inst_retired_overflows_on_the_exact_instruction);
    tcase_add_test(g, cpu_cycles_overflow_on_the_exact_cycle);
    tcase_add_test(g, cycle_counter_with_lc_overflows_at_64_bits);
    tcase_add_test(g, chain_pair_overflows_on_the_same_instruction);
    tcase_add_test(g, u_filter_does_not_count_an_el0_stretch);
    tcase_add_test(g, an_overflow_on_the_svc_is_a_user_sample);
    tcase_add_test(g, branch_and_memory_events_on_a_known_loop);
    tcase_add_test(g, branch_overflow_is_taken_where_the_branch_went);
    tcase_add_test(g, memory_overflow_inside_a_block);
    tcase_add_test(g, pmswinc_overflows_at_its_write);
    tcase_add_test(g, checkpoint_mid_count_overflows_on_the_same_instruction);
    suite_add_tcase(s, g);
    TCase *t = tcase_create("registers");
    tcase_add_test(t, pmcr_reports_six_counters_and_the_model);
    tcase_add_test(t, counters_count_cycles_and_instructions_only_while_enabled);
    tcase_add_test(t, el_filters_follow_the_cpus_el);
    tcase_add_test(t, overflow_status_and_the_request_level);
    tcase_add_test(t, overflow_again_before_the_bit_is_cleared_is_diagnosed);
    tcase_add_test(t, selected_counter_through_pmxev_registers);
    tcase_add_test(t, software_increment_and_reset_bits);
    tcase_add_test(t, missing_counters_and_wrong_directions_are_undefined);
    tcase_add_test(t, pmceid_advertises_exactly_the_events_that_count);
    tcase_add_test(t, unmodelled_event_counts_nothing_diagnosed_once_per_cpu);
    tcase_add_test(t, chain_counts_the_even_counters_wraps);
    tcase_add_test(t, lc_chooses_the_cycle_counters_overflow);
    tcase_add_test(t, d_divides_the_cycle_counter_by_64);
    tcase_add_test(t, version_1_section_loads);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
