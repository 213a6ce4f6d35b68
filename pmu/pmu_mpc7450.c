/* pmu_mpc7450.c — the MPC7450/7447A performance monitor (see pmu_mpc7450.h).
 *
 * SPRs (MPC7450 RM table 11-1; user aliases are the supervisor number - 16, read-only):
 *   MMCR0 952 (936)   PMC1 953 (937)   PMC2 954 (938)   SIAR 955 (939)   MMCR1 956 (940)
 *   PMC3 957 (941)    PMC4 958 (942)   MMCR2 944 (928)  PMC5 945 (929)   PMC6 946 (930)
 *   BAMR 951 (935)
 * Access rules: the supervisor numbers have SPR bit 0x10 set, so mfspr/mtspr of them in
 * problem state is a privileged-instruction program exception; an mtspr of a user alias or of
 * SIAR (written only by hardware) is an illegal-instruction program exception (as QEMU's
 * 7450 model has them).  PMCnSEL fields (Linux mpc7450-pmu.c): PMC1 MMCR0[6:12] (7 bits),
 * PMC2 MMCR0[0:5], PMC3 MMCR1[27:31], PMC4 MMCR1[22:26], PMC5 MMCR1[17:21], PMC6 MMCR1[11:16]
 * (shift, width from the LSB: 6/7, 0/6, 27/5, 22/5, 17/5, 11/6).
 */
#include "pmu/pmu_mpc7450.h"

#include <stdio.h>
#include <string.h>

#include "base/state.h"

enum { MSR_PR = 1u << 14 };

static const struct {
    uint16_t spr;
    const char *name;
} sprs[] = {
#define SPR(n) { SPRN_##n, #n }
    SPR(MMCR0), SPR(PMC1), SPR(PMC2), SPR(SIAR), SPR(MMCR1), SPR(PMC3), SPR(PMC4), SPR(MMCR2), SPR(PMC5),
    SPR(PMC6), SPR(BAMR), SPR(UMMCR0), SPR(UPMC1), SPR(UPMC2), SPR(USIAR), SPR(UMMCR1), SPR(UPMC3),
    SPR(UPMC4), SPR(UMMCR2), SPR(UPMC5), SPR(UPMC6), SPR(UBAMR),
#undef SPR
};

static const unsigned sel_shift[MPC7450_PMCS] = { 6, 0, 27, 22, 17, 11 };
static const uint32_t sel_mask[MPC7450_PMCS] = { 0x7f, 0x3f, 0x1f, 0x1f, 0x1f, 0x3f };

const char *mpc7450_pmu_spr_name(unsigned spr)
{
    for (size_t i = 0; i < ARRAY_SIZE(sprs); i++)
        if (sprs[i].spr == spr)
            return sprs[i].name;
    return NULL;
}

bool mpc7450_pmu_owns(unsigned spr)
{
    return mpc7450_pmu_spr_name(spr) != NULL;
}

/* The supervisor number of an SPR the monitor owns (either alias). */
static unsigned supervisor_spr(unsigned spr)
{
    return spr < SPRN_MMCR2 ? spr + SPRN_USER_ALIAS : spr;
}

/* PMCn (0-based) of an SPR number (either alias), or -1. */
static int pmc_of(unsigned spr)
{
    static const uint16_t pmc_spr[MPC7450_PMCS] = { SPRN_PMC1, SPRN_PMC2, SPRN_PMC3, SPRN_PMC4, SPRN_PMC5, SPRN_PMC6 };
    unsigned s = supervisor_spr(spr);
    for (int i = 0; i < MPC7450_PMCS; i++)
        if (pmc_spr[i] == s)
            return i;
    return -1;
}

static unsigned selector(const Mpc7450Pmu *p, unsigned i)
{
    uint32_t reg = i < 2 ? p->mmcr0 : p->mmcr1;
    return (reg >> sel_shift[i]) & sel_mask[i];
}

/* The events modelled (pmu_mpc7450.h has the sources): selector, the PMCs that have it (bit i =
 * PMC i+1), what it counts. */
#define PMCS(first, last) ((1u << (last)) - (1u << ((first) - 1)))
static const struct {
    uint8_t sel;
    uint8_t pmcs;
    PmcSource src;
} events[] = {
    { 0, PMCS(1, 6), PMC_SRC_NONE },        /* nothing: the register holds its value */
    { 1, PMCS(1, 6), PMC_SRC_CYCLES },      /* processor cycles */
    { 2, PMCS(1, 4), PMC_SRC_INSNS },       /* instructions completed */
    { 3, PMCS(1, 4), PMC_SRC_EXT },         /* 0->1 transitions of the MMCR0[TBSEL] timebase bit */
    { 0x22, PMCS(1, 1), PMC_SRC_BRANCHES }, /* branches completed */
    { 26, PMCS(2, 2), PMC_SRC_LOADS },      /* load instructions completed */
    { 20, PMCS(1, 2), PMC_SRC_STORES },     /* store instructions completed */
    { 25, PMCS(2, 2), PMC_SRC_MEMOPS },     /* load/store instructions completed */
    { 0x1c, PMCS(4, 4), PMC_SRC_BRMISS },   /* branches mispredicted */
};
#undef PMCS

/* What PMC i counts with its selector; NULL why = modelled (or 0: nothing by design). */
static PmcSource event_source(unsigned i, unsigned sel, const char **why)
{
    *why = NULL;
    for (size_t k = 0; k < ARRAY_SIZE(events); k++)
        if (events[k].sel == sel && (events[k].pmcs >> i & 1))
            return events[k].src;
    *why = "selector not modelled";
    return PMC_SRC_NONE;
}

/* The timebase bit MMCR0[TBSEL] selects, counted from the LSB: TBL[31], [23], [19], [15]. */
static unsigned tb_bit(const Mpc7450Pmu *p)
{
    static const uint8_t bit[4] = { 0, 8, 12, 16 };
    return bit[(p->mmcr0 & MMCR0_TBSEL) >> 23];
}

/* 0 -> 1 transitions of that bit from TB 0 to tb: the values = 2^k mod 2^(k+1) passed. */
static uint64_t transitions(const Mpc7450Pmu *p, uint64_t tb)
{
    unsigned k = tb_bit(p);
    return (tb + (1ull << k)) >> (k + 1);
}

static uint64_t ext_value(PmcBank *b)
{
    Mpc7450Pmu *p = b->opaque;
    return transitions(p, p->tb_now(p->cpu->opaque));
}

static uint64_t ext_cycle_at(PmcBank *b, uint64_t value)
{
    Mpc7450Pmu *p = b->opaque;
    unsigned k = tb_bit(p);
    return p->cycle_of_tb(p->cpu->opaque, (value << (k + 1)) - (1ull << k));
}

static bool frozen_by_msr(const Mpc7450Pmu *p)
{
    uint32_t m = p->mmcr0;
    bool pr = p->msr & MSR_PR, pmm = p->msr & MSR_PMM;
    return (m & MMCR0_FC) || ((m & MMCR0_FCS) && !pr) || ((m & MMCR0_FCP) && pr) || ((m & MMCR0_FCM1) && pmm) ||
           ((m & MMCR0_FCM0) && !pmm);
}

static void configure(Mpc7450Pmu *p)
{
    bool frozen = frozen_by_msr(p);
    for (unsigned i = 0; i < MPC7450_PMCS; i++) {
        Pmc *c = &p->bank.ctr[i];
        const char *why;
        unsigned sel = selector(p, i);
        c->src = (uint8_t)event_source(i, sel, &why);
        c->sub = PMC_SRC_NONE;
        c->active = !frozen && !(i > 0 && (p->mmcr0 & MMCR0_TRIGGER));
        c->sampling = p->mmcr0 & (i == 0 ? MMCR0_PMC1CE : MMCR0_PMCnCE);
        if (why && !(p->reported >> i & 1)) {
            p->reported |= 1u << i;
            port_diag(p->cpu, port_pc(p->cpu), "pmu-event",
                         "PMC%u selector %u is not modelled: the counter counts nothing", i + 1, sel);
        } else if (!why) {
            p->reported &= ~(1u << i);
        }
    }
}

/* With TBEE, the next transition of the TBSEL bit is an event. */
static void arm_tb_event(Mpc7450Pmu *p)
{
    evq_remove(&p->tb_ev);
    if (p->mmcr0 & MMCR0_TBEE) {
        uint64_t at = ext_cycle_at(&p->bank, ext_value(&p->bank) + 1);
        uint64_t now = port_cycles(p->cpu);
        port_schedule(p->cpu, &p->tb_ev, at > now ? at : now);
    }
}

static void commit(Mpc7450Pmu *p)
{
    configure(p);
    pmc_arm(&p->bank);
    arm_tb_event(p);
}

/* An enabled condition (MPC7450 RM ch. 11, MMCR0 field descriptions; the same text is MPC7400
 * UM table 11-3): a counter becoming negative with its CE bit, or a TBEE transition.  `before`
 * is MMCR0 as the instruction that raised it found it: the conditions of one instruction all
 * see the same FC, PMXE and TRIGGER, because hardware updates them after the instruction.
 *   - FCECE sets FC only if TRIGGER was 0; with TRIGGER = 1 FCECE acts as 0 (FCECE row).
 *   - Any enabled condition releases TRIGGER, as PMC1 becoming negative does (TRIGGER row).
 *   - With PMXE, the exception becomes pending and PMXE is cleared (PMXE row).
 *   - SIAR is not updated while MMCR0[FC] disables counting (FC row, and the SIAR description,
 *     MPC7400 UM §11.3.2.4); the exception is signalled all the same.
 * Conditions of one instruction share the exception, and each is a sample (at SIAR's value): a
 * driver finds every such counter negative in its handler. */
static bool enabled_condition(Mpc7450Pmu *p, uint64_t at, const char *what, uint32_t before)
{
    const CpuPort *c = p->cpu;
    if ((p->mmcr0 & MMCR0_FCECE) && !(before & MMCR0_TRIGGER))
        p->mmcr0 |= MMCR0_FC;
    p->mmcr0 &= ~MMCR0_TRIGGER;
    if (!(before & MMCR0_PMXE))
        return false;
    if (!(before & MMCR0_FC))
        p->siar = (uint32_t)at;
    c->sample(c->opaque, p->siar, p->msr & MSR_PR, what);
    p->pending = true;
    irq_raise(&p->pmi);                 /* stops the running block: the CPU looks at MSR[EE] */
    p->mmcr0 &= ~MMCR0_PMXE;
    return true;
}

static void tb_event(Event *ev, void *opaque)
{
    Mpc7450Pmu *p = opaque;
    uint64_t at = p->cpu->last_retired_pc(p->cpu->opaque);
    pmc_sync(&p->bank);
    bool signal = enabled_condition(p, at, "TBEE", p->mmcr0);
    pmc_trace_overflow(&p->bank, at, "TBEE", p->mmcr0, signal);
    commit(p);                                          /* FC, TRIGGER may have changed */
}

void mpc7450_pmu_tb_write(Mpc7450Pmu *p, bool before)
{
    if (before) {
        pmc_sync(&p->bank);
        return;
    }
    pmc_rebase_ext(&p->bank);
    commit(p);
}

/* Counters became negative at the current instruction (the last one that retired). */
static void went_negative(PmcBank *b, uint32_t which)
{
    Mpc7450Pmu *p = b->opaque;
    const CpuPort *c = p->cpu;
    uint64_t at = c->last_retired_pc(c->opaque);
    uint32_t before = p->mmcr0;
    for (unsigned i = 0; i < MPC7450_PMCS; i++) {
        if (!(which >> i & 1))
            continue;
        if (i == 0)
            p->mmcr0 &= ~MMCR0_TRIGGER;                 /* PMC2-6 start counting, CE or not */
        char name[8];
        snprintf(name, sizeof name, "PMC%u", i + 1);
        uint32_t ce = i == 0 ? MMCR0_PMC1CE : MMCR0_PMCnCE;
        bool signal = (p->mmcr0 & ce) && enabled_condition(p, at, name, before);
        pmc_trace_overflow(b, at, name, p->mmcr0, signal);
    }
    configure(p);                                       /* FC, TRIGGER may have changed */
}

void mpc7450_pmu_init(Mpc7450Pmu *p, const CpuPort *c, IrqLine pmi, uint64_t (*tb_now)(void *cpu),
                      uint64_t (*cycle_of_tb)(void *cpu, uint64_t tb))
{
    memset(p, 0, sizeof *p);
    p->cpu = c;
    p->pmi = pmi;
    p->tb_now = tb_now;
    p->cycle_of_tb = cycle_of_tb;
    pmc_bank_init(&p->bank, c, MPC7450_PMCS, went_negative, p, "pmu-overflow");
    p->bank.ext_value = ext_value;
    p->bank.ext_cycle_at = ext_cycle_at;
    event_init(&p->tb_ev, "pmu-tbee", tb_event, p);
    for (unsigned i = 0; i < MPC7450_PMCS; i++) {
        p->bank.ctr[i].mask = 0xffffffffu;
        p->bank.ctr[i].trip = 0x80000000u;
    }
    configure(p);
}

void mpc7450_pmu_set_msr(Mpc7450Pmu *p, uint32_t msr)
{
    if (((msr ^ p->msr) & (MSR_PR | MSR_PMM)) == 0)
        return;
    pmc_sync(&p->bank);
    p->msr = msr & (MSR_PR | MSR_PMM);
    commit(p);
}

int mpc7450_pmu_readings(Mpc7450Pmu *p, PmcReading *out, int max)
{
    static const unsigned spr[MPC7450_PMCS] = { SPRN_PMC1, SPRN_PMC2, SPRN_PMC3, SPRN_PMC4, SPRN_PMC5, SPRN_PMC6 };
    int n = 0;
    for (unsigned i = 0; i < MPC7450_PMCS && n < max; i++)
        out[n++] = (PmcReading){ mpc7450_pmu_spr_name(spr[i]), pmc_peek(&p->bank, i) };
    return n;
}

void mpc7450_pmu_taken(Mpc7450Pmu *p)
{
    p->pending = false;
    irq_lower(&p->pmi);
}

PpcSprResult mpc7450_pmu_mfspr(Mpc7450Pmu *p, unsigned spr, bool user, uint32_t *v)
{
    if (!mpc7450_pmu_owns(spr))
        return SPR_NOT_MINE;
    if (user && spr >= SPRN_MMCR2)
        return SPR_PRIVILEGED;
    pmc_sync(&p->bank);
    unsigned s = supervisor_spr(spr);
    int pmc = pmc_of(spr);
    if (pmc >= 0)
        *v = (uint32_t)p->bank.ctr[pmc].value;
    else
        *v = s == SPRN_MMCR0 ? p->mmcr0 : s == SPRN_MMCR1 ? p->mmcr1 : s == SPRN_MMCR2 ? p->mmcr2
           : s == SPRN_SIAR ? p->siar : p->bamr;
    pmc_arm(&p->bank);
    return SPR_OK;
}

PpcSprResult mpc7450_pmu_mtspr(Mpc7450Pmu *p, unsigned spr, bool user, uint32_t v)
{
    if (!mpc7450_pmu_owns(spr))
        return SPR_NOT_MINE;
    if (user && spr >= SPRN_MMCR2)
        return SPR_PRIVILEGED;
    if (spr < SPRN_MMCR2 || spr == SPRN_SIAR)
        return SPR_ILLEGAL;                             /* user aliases and SIAR are read-only */
    pmc_sync(&p->bank);
    int pmc = pmc_of(spr);
    if (pmc >= 0)
        p->bank.ctr[pmc].value = v;
    else if (spr == SPRN_MMCR0) {
        p->mmcr0 = v;
        pmc_rebase_ext(&p->bank);                       /* TBSEL may name another bit */
    }
    else if (spr == SPRN_MMCR1)
        p->mmcr1 = v & 0xfffff800u;
    else if (spr == SPRN_MMCR2)
        p->mmcr2 = v & 0xc0000000u;                     /* threshold multiplier bits */
    else
        p->bamr = v;
    commit(p);
    return SPR_OK;
}

/* Raise when a field is added (base/state.h). */
#define MPC7450_PMU_STATE_VERSION 1u

static const StateField pmu_fields[] = {
    STATE_FIELD(Mpc7450Pmu, mmcr0), STATE_FIELD(Mpc7450Pmu, mmcr1), STATE_FIELD(Mpc7450Pmu, mmcr2),
    STATE_FIELD(Mpc7450Pmu, siar), STATE_FIELD(Mpc7450Pmu, bamr), STATE_FIELD(Mpc7450Pmu, msr), STATE_BOOL(Mpc7450Pmu, pending),
    STATE_UPTO(Mpc7450Pmu, reported, 0x3f),
};

void mpc7450_pmu_save(const Mpc7450Pmu *p, Blob *b)
{
    size_t at = blob_begin(b, "mpc7450-pmu", MPC7450_PMU_STATE_VERSION);
    blob_fields(b, p, pmu_fields, ARRAY_SIZE(pmu_fields));
    pmc_save(&p->bank, b);
    blob_event(b, &p->tb_ev);
    blob_end(b, at);
}

bool mpc7450_pmu_load(Mpc7450Pmu *p, BlobReader *r)
{
    BrOuter outer;
    if (!br_begin(r, &outer, "mpc7450-pmu", MPC7450_PMU_STATE_VERSION) ||
        !br_fields(r, p, pmu_fields, ARRAY_SIZE(pmu_fields)) || !pmc_load(&p->bank, r))
        return false;
    br_event(r, &p->tb_ev, p->cpu->events);
    irq_set(&p->pmi, p->pending);       /* the pin follows the restored level */
    return br_end(r, &outer);
}
