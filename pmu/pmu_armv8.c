/* pmu_armv8.c — the Arm PMUv3 (see pmu_armv8.h).
 *
 * Register map (op0 op1 CRn CRm op2; Arm ARM DDI 0487 D13.4):
 *   PMCR_EL0       3 3 9 12 0    PMCCNTR_EL0    3 3 9 13 0    PMUSERENR_EL0  3 3 9 14 0
 *   PMCNTENSET_EL0 3 3 9 12 1    PMXEVTYPER_EL0 3 3 9 13 1    PMINTENSET_EL1 3 0 9 14 1
 *   PMCNTENCLR_EL0 3 3 9 12 2    PMXEVCNTR_EL0  3 3 9 13 2    PMINTENCLR_EL1 3 0 9 14 2
 *   PMOVSCLR_EL0   3 3 9 12 3                                 PMOVSSET_EL0   3 3 9 14 3
 *   PMSWINC_EL0    3 3 9 12 4    PMEVCNTR<n>_EL0  3 3 14 (8 + n/8) (n%8)
 *   PMSELR_EL0     3 3 9 12 5    PMEVTYPER<n>_EL0 3 3 14 (12 + n/8) (n%8)
 *   PMCEID0_EL0    3 3 9 12 6    PMCCFILTR_EL0    3 3 14 15 7
 *   PMCEID1_EL0    3 3 9 12 7
 * PMCR_EL0: E 0, P 1 (reset the event counters; write-only), C 2 (reset the cycle counter;
 * write-only), D 3 (the cycle counter counts every 64th cycle), X 4 (export: nothing to export
 * to), DP 5 (no effect: counting is never prohibited without EL2 and EL3), LC 6 (the cycle
 * counter overflows at 64 bits, else at 32), N [15:11], IDCODE [23:16], IMP [31:24] = 0x41.
 * PMEVTYPER<n>_EL0: P 31, U 30, evtCount [9:0]; PMCCFILTR_EL0: P 31, U 30; NSK 29, NSU 28 are
 * RES0 without EL3, NSH 27 without EL2, M 26 without EL3, evtCount[15:10] without
 * FEAT_PMUv3p1 (DDI 0487 D13.4, PMEVTYPER<n>_EL0): they read as zero.
 * PMUSERENR_EL0: EN 0 (EL0 may access the PMU), SW 1 (PMSWINC), CR 2 (PMCCNTR reads), ER 3
 * (event counter reads, PMSELR).
 * PMSELR_EL0.SEL [4:0]: n selects counter n for PMXEVTYPER/PMXEVCNTR, 31 the cycle counter's
 * filter for PMXEVTYPER; any other value, and 31 for PMXEVCNTR, makes them UNDEFINED (one of the
 * CONSTRAINED UNPREDICTABLE choices).  MRS of PMSWINC_EL0 and MSR of PMCEID0/1_EL0 are
 * UNDEFINED (their encodings are write-only and read-only).
 *
 * Every access and every change of EL goes: sync the bank (count up to now under the old
 * rules), change, configure, re-arm (QEMU's pmu_op_start / pmu_op_finish bracket).
 */
#include "pmu/pmu_armv8.h"

#include <string.h>

#include "base/a64sysreg.h"
#include "base/state.h"

enum {
    PMCR_E = 1, PMCR_P = 2, PMCR_C = 4, PMCR_D = 8, PMCR_X = 16, PMCR_DP = 32, PMCR_LC = 64,
    PMCR_WRITABLE = PMCR_E | PMCR_D | PMCR_X | PMCR_DP | PMCR_LC,
};
enum { PMCR_N_SHIFT = 11, PMCR_IDCODE_SHIFT = 16, PMCR_IMP_SHIFT = 24, PMCR_IMP_ARM = 0x41 };
enum {
    EV_SW_INCR = 0x00, EV_L1D_CACHE = 0x04, EV_INST_RETIRED = 0x08, EV_BR_MIS_PRED = 0x10,
    EV_CPU_CYCLES = 0x11, EV_BR_PRED = 0x12, EV_MEM_ACCESS = 0x13, EV_CHAIN = 0x1e,
};
enum { FILTER_P = 1u << 31, FILTER_U = 1u << 30, FILTER_BITS = FILTER_P | FILTER_U };
enum { USERENR_EN = 1, USERENR_SW = 2, USERENR_CR = 4, USERENR_ER = 8, USERENR_BITS = 0xf };
#define EVTYPER_EVENT (ARMV8_PMU_EVENTS - 1)
#define SEL_CCNT 31                 /* PMSELR_EL0.SEL naming the cycle counter */
#define SEL_MASK 31
#define CCNT_BIT (1u << 31)
#define COUNTER32 0xffffffffull
#define CCNT_DIV_SHIFT 6            /* PMCR_EL0.D: once every 64 cycles */

/* What each modelled event counts (pmu_armv8.h); SW_INCR and CHAIN are counted by hand. */
static const struct {
    uint16_t event;
    PmcSource src;
} events[] = {
    { EV_SW_INCR, PMC_SRC_NONE }, { EV_L1D_CACHE, PMC_SRC_MEMOPS }, { EV_INST_RETIRED, PMC_SRC_INSNS },
    { EV_BR_MIS_PRED, PMC_SRC_BRMISS }, { EV_CPU_CYCLES, PMC_SRC_CYCLES }, { EV_BR_PRED, PMC_SRC_BRANCHES },
    { EV_MEM_ACCESS, PMC_SRC_MEMOPS }, { EV_CHAIN, PMC_SRC_NONE },
};

/* PMCEID0_EL0 bit e: event e is implemented (events 0x00-0x1f); PMCEID1_EL0: 0x20-0x3f. */
static uint64_t pmceid(unsigned half)
{
    uint64_t v = 0;
    for (size_t k = 0; k < ARRAY_SIZE(events); k++)
        if (events[k].event / 32 == half)
            v |= 1ull << (events[k].event % 32);
    return v;
}

static uint32_t key(unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2)
{
    return A64_SYSREG(op0, op1, crn, crm, op2);
}
#define K A64_SYSREG
enum {
    R_PMCR = K(3, 3, 9, 12, 0), R_PMCNTENSET = K(3, 3, 9, 12, 1), R_PMCNTENCLR = K(3, 3, 9, 12, 2),
    R_PMOVSCLR = K(3, 3, 9, 12, 3), R_PMSWINC = K(3, 3, 9, 12, 4), R_PMSELR = K(3, 3, 9, 12, 5),
    R_PMCEID0 = K(3, 3, 9, 12, 6), R_PMCEID1 = K(3, 3, 9, 12, 7), R_PMCCNTR = K(3, 3, 9, 13, 0),
    R_PMXEVTYPER = K(3, 3, 9, 13, 1), R_PMXEVCNTR = K(3, 3, 9, 13, 2), R_PMUSERENR = K(3, 3, 9, 14, 0),
    R_PMINTENSET = K(3, 0, 9, 14, 1), R_PMINTENCLR = K(3, 0, 9, 14, 2), R_PMOVSSET = K(3, 3, 9, 14, 3),
    R_PMEVCNTR0 = K(3, 3, 14, 8, 0), R_PMEVTYPER0 = K(3, 3, 14, 12, 0), R_PMCCFILTR = K(3, 3, 14, 15, 7),
    R_NONE = 0,
};

bool armv8_pmu_owns(unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2)
{
    if (op0 != 3)
        return false;
    if (op1 == 3 && crn == 9 && (crm == 12 || crm == 13 || crm == 14))
        return true;
    if (op1 == 0 && crn == 9 && crm == 14 && (op2 == 1 || op2 == 2))
        return true;
    return op1 == 3 && crn == 14 && crm >= 8;
}

/* An EL0 access: the EL1 registers and a write of PMUSERENR_EL0 are UNDEFINED; the rest go
 * ahead as PMUSERENR_EL0 allows and are trapped to EL1 otherwise (DDI 0487 D13.4,
 * PMUSERENR_EL0, and each register's "Accessibility"). */
ArmEl0Access armv8_pmu_el0_access(const ArmPmu *p, unsigned op0, unsigned op1, unsigned crn, unsigned crm,
                                  unsigned op2, bool write)
{
    uint32_t k = key(op0, op1, crn, crm, op2), en = p->userenr;
    if (k == R_PMINTENSET || k == R_PMINTENCLR || (k == R_PMUSERENR && write))
        return ARMV8_EL0_UNDEF;
    bool ok = k == R_PMUSERENR || (en & USERENR_EN) || (k == R_PMSWINC && write && (en & USERENR_SW)) ||
              (k == R_PMCCNTR && !write && (en & USERENR_CR)) || (k == R_PMSELR && (en & USERENR_ER)) ||
              ((k == R_PMXEVCNTR || (crn == 14 && crm >= 8 && crm <= 11)) && !write && (en & USERENR_ER));
    return ok ? ARMV8_EL0_OK : ARMV8_EL0_TRAP;
}

/* ------------------------------------------------------------------ counting state */

static uint32_t status_bit(unsigned i)
{
    return i == ARMV8_PMU_CCNT ? CCNT_BIT : 1u << i;
}

static const char *counter_name(unsigned i)
{
    static const char *const names[] = { "PMEVCNTR0_EL0", "PMEVCNTR1_EL0", "PMEVCNTR2_EL0", "PMEVCNTR3_EL0",
                                         "PMEVCNTR4_EL0", "PMEVCNTR5_EL0", "PMCCNTR_EL0" };
    return names[i];
}

static unsigned event_of(const ArmPmu *p, unsigned i)
{
    return p->evtyper[i] & EVTYPER_EVENT;
}

/* Is counter i (a bank index) enabled: PMCR_EL0.E and its PMCNTENSET_EL0 bit? */
static bool enabled(const ArmPmu *p, unsigned i)
{
    return (p->pmcr & PMCR_E) && (p->cnten & status_bit(i));
}

/* ... and does its filter let it count at the CPU's EL? */
static bool counts(const ArmPmu *p, unsigned i)
{
    uint32_t filter = i == ARMV8_PMU_CCNT ? p->ccfiltr : p->evtyper[i];
    return enabled(p, i) && !(filter & (p->el == 0 ? FILTER_U : FILTER_P));
}

/* Odd counter i counts CHAIN: the overflows of counter i - 1. */
static bool chained_above(const ArmPmu *p, unsigned i)
{
    return i % 2 == 0 && i + 1 < ARMV8_PMU_COUNTERS && event_of(p, i + 1) == EV_CHAIN;
}

/* What event counter i counts; why = NULL if the event is modelled. */
static PmcSource event_source(unsigned i, unsigned ev, const char **why)
{
    *why = NULL;
    if (ev == EV_CHAIN && i % 2 == 0) {
        *why = "CHAIN on an even-numbered counter, which has no counter below it to chain";
        return PMC_SRC_NONE;
    }
    for (size_t k = 0; k < ARRAY_SIZE(events); k++)
        if (events[k].event == ev)
            return events[k].src;
    *why = "the event is not modelled (PMCEID0_EL0/PMCEID1_EL0 do not advertise it)";
    return PMC_SRC_NONE;
}

/* A counter enabled with an event that counts nothing: once per event number per CPU. */
static void report(ArmPmu *p, unsigned i, unsigned ev, const char *why)
{
    if (p->reported[ev / 64] >> (ev % 64) & 1)
        return;
    p->reported[ev / 64] |= 1ull << (ev % 64);
    port_diag(p->cpu, port_pc(p->cpu), "pmu-event", "%s enabled with event 0x%02x: %s; it counts nothing",
              counter_name(i), ev, why);
}

/* Derive each counter's source and counting state from the registers (after a sync).  A chained
 * pair samples while its even half counts, if its odd half has the interrupt. */
static void configure(ArmPmu *p)
{
    for (unsigned i = 0; i < ARMV8_PMU_COUNTERS; i++) {
        Pmc *c = &p->bank.ctr[i];
        const char *why;
        unsigned ev = event_of(p, i);
        c->src = (uint8_t)event_source(i, ev, &why);
        c->active = counts(p, i);
        c->sampling = (p->inten & status_bit(i)) ||
                      (chained_above(p, i) && counts(p, i + 1) && (p->inten & status_bit(i + 1)));
        if (why && enabled(p, i))
            report(p, i, ev, why);
    }
    Pmc *cc = &p->bank.ctr[ARMV8_PMU_CCNT];
    cc->src = p->pmcr & PMCR_D ? PMC_SRC_EXT : PMC_SRC_CYCLES;
    cc->active = counts(p, ARMV8_PMU_CCNT);
    cc->sampling = p->inten & CCNT_BIT;
}

/* The interrupt request follows PMCR_EL0.E and PMOVSSET & PMINTENSET (a level). */
static void update_irq(ArmPmu *p)
{
    bool level = (p->pmcr & PMCR_E) && (p->ovs & p->inten);
    if (level == p->irq_level)
        return;
    p->irq_level = level;
    irq_set(&p->irq, level);
}

static void begin(ArmPmu *p)
{
    pmc_sync(&p->bank);
}

static void commit(ArmPmu *p)
{
    configure(p);
    pmc_arm(&p->bank);
    update_irq(p);
}

/* ------------------------------------------------------------------ overflow */

/* Counter i wrapped: an odd counter above it counting CHAIN counts it (DDI 0487 D13, "Chaining
 * event counters"), if it counts at this EL itself.  Its status bit if that wrapped it too. */
static uint32_t chain_carry(ArmPmu *p, unsigned i)
{
    if (!chained_above(p, i) || !counts(p, i + 1))
        return 0;
    Pmc *c = &p->bank.ctr[i + 1];
    c->value = (c->value + 1) & c->mask;
    return c->value == 0 ? status_bit(i + 1) : 0;
}

/* The counters of `status` (PMOVSSET bits) overflowed at the instruction pc: set their bits,
 * drive the request, trace each, and make each whose interrupt is enabled a sample.  A driver
 * that left a bit set since the last overflow did not handle it (Linux clears PMOVSCLR first
 * thing in armv8pmu_handle_irq). */
static void overflowed(ArmPmu *p, uint32_t status, uint64_t pc)
{
    const CpuPort *c = p->cpu;
    uint32_t again = status & p->ovs & p->inten;
    p->ovs |= status;
    update_irq(p);
    for (unsigned i = 0; i <= ARMV8_PMU_CCNT; i++) {
        uint32_t bit = status_bit(i);
        if (!(status & bit))
            continue;
        if (again & bit)
            port_diag(c, pc, "pmu-unacked", "%s overflowed again while its PMOVSSET_EL0 bit was still set",
                      counter_name(i));
        pmc_trace_overflow(&p->bank, pc, counter_name(i), p->ovs, p->irq_level);
        if (p->inten & bit)
            c->sample(c->opaque, pc, p->el == 0, counter_name(i));
    }
}

/* The bank reports counters (bank indices) that wrapped at the instruction that just retired. */
static void wrapped(PmcBank *b, uint32_t which)
{
    ArmPmu *p = b->opaque;
    uint32_t status = 0;
    for (unsigned i = 0; i <= ARMV8_PMU_CCNT; i++) {
        if (!(which >> i & 1))
            continue;
        if (i == ARMV8_PMU_CCNT && !(p->pmcr & PMCR_LC))
            p->ccnt_hi++;               /* bits [31:0] wrapped into the upper half */
        status |= status_bit(i) | chain_carry(p, i);
    }
    overflowed(p, status, p->cpu->last_retired_pc(p->cpu->opaque));
}

/* PMCR_EL0.D: the cycle counter follows the cycles divided by 64 (PMC_SRC_EXT). */
static uint64_t div64_value(PmcBank *b)
{
    return pmc_source(b->cpu, PMC_SRC_CYCLES) >> CCNT_DIV_SHIFT;
}

/* The first cycle at which that reaches `value`: a lower bound (the CPU may sleep meanwhile),
 * which pmc_arm re-predicts when it is reached. */
static uint64_t div64_cycle_at(PmcBank *b, uint64_t value)
{
    const CpuPort *c = b->cpu;
    uint64_t now = *c->cycles, have = pmc_source(c, PMC_SRC_CYCLES);
    uint64_t need = value >= UINT64_MAX >> CCNT_DIV_SHIFT ? UINT64_MAX : value << CCNT_DIV_SHIFT;
    if (need <= have)
        return now;
    return need - have > UINT64_MAX - now ? UINT64_MAX : now + (need - have);
}

/* ------------------------------------------------------------------ registers */

void armv8_pmu_init(ArmPmu *p, const CpuPort *port, uint8_t idcode, IrqLine irq)
{
    memset(p, 0, sizeof *p);
    p->cpu = port;
    p->irq = irq;
    p->idcode = idcode;
    p->el = 1;                      /* CPUs come out of reset at EL1 */
    pmc_bank_init(&p->bank, port, ARMV8_PMU_CCNT + 1, wrapped, p, "pmu-overflow");
    p->bank.ext_value = div64_value;
    p->bank.ext_cycle_at = div64_cycle_at;
    for (unsigned i = 0; i <= ARMV8_PMU_CCNT; i++)
        p->bank.ctr[i].mask = COUNTER32;    /* PMCR_EL0.LC resets to 0: the cycle counter too */
    configure(p);
}

void armv8_pmu_connect_irq(ArmPmu *p, IrqLine irq)
{
    p->irq = irq;
    irq_set(&p->irq, p->irq_level);
}

/* The register an access really names: PMXEVTYPER/PMXEVCNTR are the counter PMSELR selects
 * (PMXEVTYPER with SEL = 31 is PMCCFILTR); R_NONE for a selection that names no register.
 * Counter n's CRm (8 + n/8, 12 + n/8) and op2 (n%8) are the key's bits 4:3 and 2:0: its key is
 * the first counter's plus n. */
static uint32_t resolve(const ArmPmu *p, uint32_t k)
{
    unsigned n = p->selr;
    if (k == R_PMXEVTYPER)
        return n == SEL_CCNT ? R_PMCCFILTR : n < ARMV8_PMU_COUNTERS ? R_PMEVTYPER0 + n : R_NONE;
    if (k == R_PMXEVCNTR)
        return n < ARMV8_PMU_COUNTERS ? R_PMEVCNTR0 + n : R_NONE;
    return k;
}

/* PMEVCNTR<n> / PMEVTYPER<n> (n < 31): n, or -1 (another register, or a counter this PMU
 * lacks). */
static int counter_index(uint32_t k, bool *typer)
{
    bool cnt = k >= R_PMEVCNTR0 && k < R_PMEVTYPER0;
    *typer = k >= R_PMEVTYPER0 && k < R_PMCCFILTR;
    unsigned n = k - (cnt ? R_PMEVCNTR0 : R_PMEVTYPER0);
    return (cnt || *typer) && n < ARMV8_PMU_COUNTERS ? (int)n : -1;
}

/* Does the access name a register this PMU has, in a direction it allows? */
static bool accessible(uint32_t k, bool write)
{
    bool typer;
    if (counter_index(k, &typer) >= 0)
        return true;
    switch (k) {
    case R_PMCR: case R_PMCNTENSET: case R_PMCNTENCLR: case R_PMOVSCLR: case R_PMSELR: case R_PMCCNTR:
    case R_PMUSERENR: case R_PMINTENSET: case R_PMINTENCLR: case R_PMOVSSET: case R_PMCCFILTR:
        return true;
    case R_PMSWINC: return write;
    case R_PMCEID0: case R_PMCEID1: return !write;
    default: return false;
    }
}

static uint64_t ccnt_read(const ArmPmu *p)
{
    uint64_t lo = p->bank.ctr[ARMV8_PMU_CCNT].value;
    return p->pmcr & PMCR_LC ? lo : (uint64_t)p->ccnt_hi << 32 | lo;
}

static void ccnt_write(ArmPmu *p, uint64_t v)
{
    Pmc *c = &p->bank.ctr[ARMV8_PMU_CCNT];
    c->value = p->pmcr & PMCR_LC ? v : v & COUNTER32;
    p->ccnt_hi = p->pmcr & PMCR_LC ? 0 : (uint32_t)(v >> 32);
}

static uint64_t reg_read(const ArmPmu *p, uint32_t k)
{
    bool typer;
    int n = counter_index(k, &typer);
    if (n >= 0)
        return typer ? p->evtyper[n] : p->bank.ctr[n].value;
    switch (k) {
    case R_PMCR:
        return (uint32_t)PMCR_IMP_ARM << PMCR_IMP_SHIFT | (uint32_t)p->idcode << PMCR_IDCODE_SHIFT |
               ARMV8_PMU_COUNTERS << PMCR_N_SHIFT | (p->pmcr & PMCR_WRITABLE);
    case R_PMCNTENSET: case R_PMCNTENCLR: return p->cnten;
    case R_PMOVSCLR: case R_PMOVSSET: return p->ovs;
    case R_PMINTENSET: case R_PMINTENCLR: return p->inten;
    case R_PMSELR: return p->selr;
    case R_PMCEID0: return pmceid(0);
    case R_PMCEID1: return pmceid(1);
    case R_PMCCNTR: return ccnt_read(p);
    case R_PMUSERENR: return p->userenr;
    default: return p->ccfiltr;     /* R_PMCCFILTR (accessible() let nothing else through) */
    }
}

/* PMCR_EL0.LC changes the cycle counter's overflow between bits 31 and 63 and keeps its value. */
static void set_lc(ArmPmu *p, bool lc)
{
    uint64_t v = ccnt_read(p);
    p->pmcr = lc ? p->pmcr | PMCR_LC : p->pmcr & ~(uint32_t)PMCR_LC;
    p->bank.ctr[ARMV8_PMU_CCNT].mask = lc ? UINT64_MAX : COUNTER32;
    ccnt_write(p, v);
}

static void pmcr_write(ArmPmu *p, uint64_t v)
{
    if (v & PMCR_P)
        for (unsigned i = 0; i < ARMV8_PMU_COUNTERS; i++)
            p->bank.ctr[i].value = 0;
    if (v & PMCR_C)
        ccnt_write(p, 0);
    set_lc(p, v & PMCR_LC);
    p->pmcr = (uint32_t)v & PMCR_WRITABLE;
}

/* PMSWINC_EL0: each counting SW_INCR counter it names counts one, at this instruction. */
static void swinc(ArmPmu *p, uint64_t v)
{
    uint32_t status = 0;
    for (unsigned i = 0; i < ARMV8_PMU_COUNTERS; i++) {
        if (!(v >> i & 1) || !counts(p, i) || event_of(p, i) != EV_SW_INCR)
            continue;
        Pmc *c = &p->bank.ctr[i];
        c->value = (c->value + 1) & c->mask;
        if (c->value == 0)
            status |= status_bit(i) | chain_carry(p, i);
    }
    if (status)
        overflowed(p, status, port_pc(p->cpu));
}

static void reg_write(ArmPmu *p, uint32_t k, uint64_t v)
{
    uint32_t m = CCNT_BIT | ((1u << ARMV8_PMU_COUNTERS) - 1), w = (uint32_t)v & m;
    bool typer;
    int n = counter_index(k, &typer);
    if (n >= 0) {
        if (typer)
            p->evtyper[n] = (uint32_t)v & (FILTER_BITS | EVTYPER_EVENT);
        else
            p->bank.ctr[n].value = v & COUNTER32;
        return;
    }
    switch (k) {
    case R_PMCR: pmcr_write(p, v); break;
    case R_PMCNTENSET: p->cnten |= w; break;
    case R_PMCNTENCLR: p->cnten &= ~w; break;
    case R_PMOVSCLR: p->ovs &= ~w; break;
    case R_PMOVSSET: p->ovs |= w; break;
    case R_PMINTENSET: p->inten |= w; break;
    case R_PMINTENCLR: p->inten &= ~w; break;
    case R_PMSWINC: swinc(p, v); break;
    case R_PMSELR: p->selr = (uint32_t)v & SEL_MASK; break;
    case R_PMCCNTR: ccnt_write(p, v); break;
    case R_PMUSERENR: p->userenr = (uint32_t)v & USERENR_BITS; break;
    case R_PMCCFILTR: p->ccfiltr = (uint32_t)v & FILTER_BITS; break;
    default: break;
    }
}

bool armv8_pmu_read(ArmPmu *p, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2, uint64_t *val)
{
    uint32_t k = resolve(p, key(op0, op1, crn, crm, op2));
    if (!accessible(k, false))
        return false;
    begin(p);
    *val = reg_read(p, k);
    commit(p);
    return true;
}

bool armv8_pmu_write(ArmPmu *p, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2, uint64_t val)
{
    uint32_t k = resolve(p, key(op0, op1, crn, crm, op2));
    if (!accessible(k, true))
        return false;
    begin(p);
    reg_write(p, k, val);
    commit(p);
    return true;
}

/* Does an enabled counter count at one of EL0 and EL1 and not at the other, or raise an
 * interrupt on overflow?  The latter's overflow on the instruction that changes the EL (an SVC,
 * an ERET) is a sample of the EL that instruction ran at: it must be found before p->el moves
 * on (the sample's mode=, docs/profiling.md). */
static bool el_matters(const ArmPmu *p)
{
    for (unsigned i = 0; i <= ARMV8_PMU_CCNT; i++) {
        uint32_t filter = i == ARMV8_PMU_CCNT ? p->ccfiltr : p->evtyper[i];
        if (enabled(p, i) && !(filter & FILTER_P) != !(filter & FILTER_U))
            return true;
        if (enabled(p, i) && (p->inten & status_bit(i)))
            return true;
    }
    return false;
}

int armv8_pmu_readings(ArmPmu *p, PmcReading *out, int max)
{
    int n = 0;
    for (unsigned i = 0; i < ARMV8_PMU_COUNTERS && n < max; i++)
        out[n++] = (PmcReading){ counter_name(i), pmc_peek(&p->bank, i) };
    uint64_t lo = pmc_peek(&p->bank, ARMV8_PMU_CCNT);
    if (n < max)                    /* as ccnt_read: [63:32] apart while PMCR_EL0.LC = 0 */
        out[n++] = (PmcReading){ counter_name(ARMV8_PMU_CCNT),
                                 p->pmcr & PMCR_LC ? lo : (uint64_t)p->ccnt_hi << 32 | lo };
    return n;
}

void armv8_pmu_set_el(ArmPmu *p, unsigned el)
{
    if (el == p->el)
        return;
    if (!el_matters(p)) {           /* every counter counts on as it did (a kernel's watchdog,
                                       PMCR_EL0.E clear): nothing to bring up to date */
        p->el = (uint8_t)el;
        return;
    }
    begin(p);                       /* what ran so far ran at the old EL */
    p->el = (uint8_t)el;
    commit(p);
}

/* ------------------------------------------------------------------ checkpoints */

/* Raise when a field is added (base/state.h).  2: the counters in a pmc bank (the predicted
 * overflows), PMCCNTR's upper half while LC = 0, the event numbers diagnosed; version 1 (the
 * counting-only model) is read by load_v1. */
#define ARMV8_PMU_STATE_VERSION 2u

static const StateField pmu_fields[] = {
    STATE_FIELD(ArmPmu, pmcr),
    STATE_FIELD(ArmPmu, cnten),
    STATE_FIELD(ArmPmu, inten),
    STATE_FIELD(ArmPmu, ovs),
    STATE_UPTO(ArmPmu, selr, SEL_MASK),
    STATE_UPTO(ArmPmu, userenr, USERENR_BITS),
    STATE_ARRAY(ArmPmu, evtyper),
    STATE_FIELD(ArmPmu, ccfiltr),
    STATE_FIELD(ArmPmu, ccnt_hi),
    STATE_ARRAY(ArmPmu, reported),
};

void armv8_pmu_save(const ArmPmu *p, Blob *b)
{
    size_t at = blob_begin(b, "armv8-pmu", ARMV8_PMU_STATE_VERSION);
    blob_fields(b, p, pmu_fields, ARRAY_SIZE(pmu_fields));
    pmc_save(&p->bank, b);
    blob_end(b, at);
}

/* Version 1: the registers, and each counter's value as of the last sync (at sync_cycles
 * cycles, counting idle ones, and sync_insns instructions). */
typedef struct ArmPmuV1 {
    uint64_t pmcr;
    uint32_t cnten, inten, ovs, selr, userenr;
    uint64_t evtyper[ARMV8_PMU_COUNTERS], evcnt[ARMV8_PMU_COUNTERS];
    uint64_t ccfiltr, ccnt, sync_cycles, sync_insns;
} ArmPmuV1;

static const StateField pmu_fields_v1[] = {
    STATE_FIELD(ArmPmuV1, pmcr), STATE_FIELD(ArmPmuV1, cnten), STATE_FIELD(ArmPmuV1, inten),
    STATE_FIELD(ArmPmuV1, ovs), STATE_UPTO(ArmPmuV1, selr, SEL_MASK), STATE_UPTO(ArmPmuV1, userenr, USERENR_BITS),
    STATE_ARRAY(ArmPmuV1, evtyper), STATE_ARRAY(ArmPmuV1, evcnt), STATE_FIELD(ArmPmuV1, ccfiltr),
    STATE_FIELD(ArmPmuV1, ccnt), STATE_FIELD(ArmPmuV1, sync_cycles), STATE_FIELD(ArmPmuV1, sync_insns),
};

/* What version 1 still owed since its last sync, added as it would have (it counted CPU_CYCLES
 * and INST_RETIRED, and idle cycles too); then the bank counts on from now. */
static void v1_catch_up(ArmPmu *p, const ArmPmuV1 *o)
{
    const CpuPort *c = p->cpu;
    uint64_t dc = *c->cycles - o->sync_cycles, di = *c->insns - o->sync_insns;
    for (unsigned i = 0; i < ARMV8_PMU_COUNTERS; i++) {
        unsigned ev = event_of(p, i);
        uint64_t add = ev == EV_CPU_CYCLES ? dc : ev == EV_INST_RETIRED ? di : 0, v = p->bank.ctr[i].value;
        if (!counts(p, i) || !add)
            continue;
        p->ovs |= v + add > COUNTER32 ? status_bit(i) : 0;
        p->bank.ctr[i].value = (v + add) & COUNTER32;
    }
    if (counts(p, ARMV8_PMU_CCNT)) {
        uint64_t old = ccnt_read(p), add = dc;
        if (p->pmcr & PMCR_D)
            add = (*c->cycles >> CCNT_DIV_SHIFT) - (o->sync_cycles >> CCNT_DIV_SHIFT);
        bool wrap = p->pmcr & PMCR_LC ? old + add < old : (old & COUNTER32) + add > COUNTER32;
        p->ovs |= wrap ? CCNT_BIT : 0;
        ccnt_write(p, old + add);
    }
    for (int s = 0; s < PMC_SRC_COUNT; s++)
        p->bank.at[s] = s == PMC_SRC_EXT ? div64_value(&p->bank) : pmc_source(c, (PmcSource)s);
}

static bool load_v1(ArmPmu *p, BlobReader *r)
{
    ArmPmuV1 o;
    memset(&o, 0, sizeof o);
    if (!br_fields(r, &o, pmu_fields_v1, ARRAY_SIZE(pmu_fields_v1)))
        return false;
    p->pmcr = (uint32_t)o.pmcr & PMCR_WRITABLE;
    p->cnten = o.cnten, p->inten = o.inten, p->ovs = o.ovs, p->selr = o.selr, p->userenr = o.userenr;
    for (unsigned i = 0; i < ARMV8_PMU_COUNTERS; i++) {
        p->evtyper[i] = (uint32_t)o.evtyper[i] & (FILTER_BITS | EVTYPER_EVENT);
        p->bank.ctr[i].value = o.evcnt[i] & COUNTER32;
    }
    p->ccfiltr = (uint32_t)o.ccfiltr & FILTER_BITS;
    p->bank.ctr[ARMV8_PMU_CCNT].mask = p->pmcr & PMCR_LC ? UINT64_MAX : COUNTER32;
    ccnt_write(p, o.ccnt);
    v1_catch_up(p, &o);
    configure(p);
    pmc_arm(&p->bank);
    return true;
}

/* The widths the registers imply (PMCR_EL0.LC) are the bank's. */
static bool widths_agree(const ArmPmu *p)
{
    for (unsigned i = 0; i < ARMV8_PMU_COUNTERS; i++)
        if (p->bank.ctr[i].mask != COUNTER32)
            return false;
    return p->bank.ctr[ARMV8_PMU_CCNT].mask == (p->pmcr & PMCR_LC ? UINT64_MAX : COUNTER32) &&
           (!(p->pmcr & PMCR_LC) || p->ccnt_hi == 0);
}

bool armv8_pmu_load(ArmPmu *p, BlobReader *r)
{
    BrOuter outer;
    if (!br_begin(r, &outer, "armv8-pmu", ARMV8_PMU_STATE_VERSION))
        return false;
    if (r->version == 1) {
        if (!load_v1(p, r))
            return false;
    } else if (!br_fields(r, p, pmu_fields, ARRAY_SIZE(pmu_fields)) || !pmc_load(&p->bank, r)) {
        return false;
    } else if (!widths_agree(p)) {
        return br_fail(r, "armv8-pmu counter widths (PMCR_EL0.LC)");
    }
    p->irq_level = (p->pmcr & PMCR_E) && (p->ovs & p->inten);
    irq_set(&p->irq, p->irq_level);     /* the request follows the restored state */
    return br_end(r, &outer);
}
