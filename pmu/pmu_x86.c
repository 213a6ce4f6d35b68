/* pmu_x86.c — the Intel architectural PMU (see pmu_x86.h).
 *
 * MSRs (SDM vol. 4 table 2-2):
 *   0x0C1 + i  IA32_PMCi             writes set bits 31:0 and sign-extend them (no full-width
 *                                     writes: IA32_PERF_CAPABILITIES is not offered)
 *   0x186 + i  IA32_PERFEVTSELi      event 7:0, umask 15:8, USR 16, OS 17, EDGE 18, PC 19, INT 20,
 *                                     ANY 21 (version 3+), EN 22, INV 23, CMASK 31:24; 63:32 reserved
 *   0x309 + j  IA32_FIXED_CTRj       full width; bits above it reserved
 *   0x38D      IA32_FIXED_CTR_CTRL   4 bits per counter: OS 0, USR 1, ANY 2 (version 3+), PMI 3
 *   0x38E      IA32_PERF_GLOBAL_STATUS   read-only: PMCi overflow i, fixed j 32+j
 *   0x38F      IA32_PERF_GLOBAL_CTRL     enables, same layout
 *   0x390      IA32_PERF_GLOBAL_OVF_CTRL write 1 to clear status bits (also 62, 63); reads 0
 * Reserved bits #GP.  Power-up: GLOBAL_CTRL enables the general-purpose counters (SDM 20.2.2),
 * everything else is 0.
 *
 * Bank layout: general-purpose counter i is bank counter i, fixed counter j is
 * X86_PMU_FIXED_BASE + j, so GLOBAL_STATUS bit = i or 32 + j.
 */
#include "pmu/pmu_x86.h"

#include <stdio.h>
#include <string.h>

#include "base/state.h"

#define MSR_PMC0 0xc1u
#define MSR_PERFEVTSEL0 0x186u
#define MSR_FIXED_CTR0 0x309u
#define MSR_FIXED_CTR_CTRL 0x38du
#define MSR_GLOBAL_STATUS 0x38eu
#define MSR_GLOBAL_CTRL 0x38fu
#define MSR_GLOBAL_OVF_CTRL 0x390u

enum {
    SEL_USR = 1u << 16, SEL_OS = 1u << 17, SEL_EDGE = 1u << 18, SEL_INT = 1u << 20, SEL_ANY = 1u << 21,
    SEL_EN = 1u << 22, SEL_INV = 1u << 23,
};
enum { FIX_OS = 1, FIX_USR = 2, FIX_ANY = 4, FIX_PMI = 8 };

/* Architectural events (CPUID.0AH:EBX bit order). */
static const struct {
    uint8_t event, umask;
    PmcSource src;
    const char *name;
} arch_events[] = {
    { 0x3c, 0x00, PMC_SRC_CYCLES, "core cycles" },
    { 0xc0, 0x00, PMC_SRC_INSNS, "instructions retired" },
    { 0x3c, 0x01, PMC_SRC_CYCLES, "reference cycles" },
    { 0x2e, 0x4f, PMC_SRC_NONE, "LLC references" },
    { 0x2e, 0x41, PMC_SRC_NONE, "LLC misses" },
    { 0xc4, 0x00, PMC_SRC_BRANCHES, "branch instructions retired" },
    { 0xc5, 0x00, PMC_SRC_BRMISS, "branch misses retired" },
};
/* Fixed counters: instructions retired, core cycles, reference cycles. */
static const PmcSource fixed_src[X86_PMU_MAX_FIXED] = { PMC_SRC_INSNS, PMC_SRC_CYCLES, PMC_SRC_CYCLES };

static uint64_t width_mask(unsigned w)
{
    return w >= 64 ? UINT64_MAX : (1ull << w) - 1;
}

static uint64_t global_mask(const X86Pmu *p)
{
    return width_mask(p->cfg.ngp) | width_mask(p->cfg.nfixed) << 32;
}

static unsigned status_bit(unsigned i)
{
    return i < X86_PMU_FIXED_BASE ? i : 32 + (i - X86_PMU_FIXED_BASE);
}

static const char *counter_name(unsigned i, char *buf, size_t len)
{
    if (i < X86_PMU_FIXED_BASE)
        snprintf(buf, len, "IA32_PMC%u", i);
    else
        snprintf(buf, len, "IA32_FIXED_CTR%u", i - X86_PMU_FIXED_BASE);
    return buf;
}

static uint64_t cur_pc(const X86Pmu *p)
{
    return port_pc(p->cpu);
}

/* ------------------------------------------------------------------ configuration */

/* What general-purpose counter i counts with its current event select. */
static void gp_source(const X86Pmu *p, unsigned i, uint8_t *src, uint8_t *sub, const char **why)
{
    uint64_t sel = p->evtsel[i];
    unsigned event = sel & 0xff, umask = (sel >> 8) & 0xff, cmask = (unsigned)(sel >> 24) & 0xff;
    *src = *sub = PMC_SRC_NONE;
    *why = NULL;
    PmcSource ev = PMC_SRC_NONE;
    for (size_t k = 0; k < ARRAY_SIZE(arch_events); k++)
        if (arch_events[k].event == event && arch_events[k].umask == umask)
            ev = arch_events[k].src;
    if (ev == PMC_SRC_NONE) {
        *why = event == 0 && umask == 0 ? "no event selected" : "event not modelled (reported unavailable)";
        return;
    }
    if (sel & SEL_EDGE) {
        *why = "EDGE is not modelled";
        return;
    }
    if (cmask == 0) {
        *src = (uint8_t)ev;
    } else if (!(sel & SEL_INV)) {
        /* at most one event per cycle: CMASK=1 passes every event, larger CMASK none */
        *src = cmask == 1 ? (uint8_t)ev : PMC_SRC_NONE;
    } else {
        *src = PMC_SRC_CYCLES;      /* cycles in which fewer than CMASK events occurred */
        *sub = cmask == 1 ? (uint8_t)ev : PMC_SRC_NONE;
        if (ev == PMC_SRC_CYCLES && cmask == 1)
            *src = *sub = PMC_SRC_NONE;
    }
}

/* Derive every counter's counting state from the registers (after a sync); report the
 * general-purpose counters in `report` (bit i) that are enabled with nothing to count. */
static void configure(X86Pmu *p, uint64_t report)
{
    for (unsigned i = 0; i < p->cfg.ngp; i++) {
        Pmc *c = &p->bank.ctr[i];
        uint64_t sel = p->evtsel[i];
        const char *why;
        gp_source(p, i, &c->src, &c->sub, &why);
        bool enabled = (sel & SEL_EN) && (p->global_ctrl >> i & 1);
        c->active = enabled && (p->cpl == 0 ? sel & SEL_OS : sel & SEL_USR);
        c->sampling = sel & SEL_INT;
        if ((report >> i & 1) && enabled && why)
            port_diag(p->cpu, cur_pc(p), "pmu-event",
                         "IA32_PMC%u enabled with event 0x%02x umask 0x%02x: %s; it counts nothing", i,
                         (unsigned)(sel & 0xff), (unsigned)(sel >> 8) & 0xff, why);
    }
    for (unsigned j = 0; j < p->cfg.nfixed; j++) {
        Pmc *c = &p->bank.ctr[X86_PMU_FIXED_BASE + j];
        unsigned f = (unsigned)(p->fixed_ctrl >> (4 * j)) & 0xf;
        c->src = (uint8_t)fixed_src[j];
        c->sub = PMC_SRC_NONE;
        c->active = (p->global_ctrl >> (32 + j) & 1) && (p->cpl == 0 ? f & FIX_OS : f & FIX_USR);
        c->sampling = f & FIX_PMI;
    }
}

/* Every change goes: sync (count up to now under the old rules), change, configure, re-arm. */
static void begin(X86Pmu *p)
{
    pmc_sync(&p->bank);
}

static void commit(X86Pmu *p, uint64_t report)
{
    configure(p, report);
    pmc_arm(&p->bank);
}

/* ------------------------------------------------------------------ overflow and PMI */

static void overflow(PmcBank *b, uint32_t wrapped)
{
    X86Pmu *p = b->opaque;
    const CpuPort *c = p->cpu;
    uint64_t pc = cur_pc(p);
    bool pmi = false;
    for (unsigned i = 0; i < PMC_MAX; i++) {
        if (!(wrapped >> i & 1))
            continue;
        uint64_t bit = 1ull << status_bit(i);
        char name[32];
        if (p->global_status & bit)
            port_diag(c, pc, "pmu-unacked",
                         "%s overflowed again while its IA32_PERF_GLOBAL_STATUS bit was still set",
                         counter_name(i, name, sizeof name));
        p->global_status |= bit;
        bool want = i < X86_PMU_FIXED_BASE ? p->evtsel[i] & SEL_INT
                                           : (p->fixed_ctrl >> (4 * (i - X86_PMU_FIXED_BASE))) & FIX_PMI;
        pmi |= want;
        pmc_trace_overflow(b, pc, counter_name(i, name, sizeof name), p->global_status, want);
    }
    if (!pmi)
        return;
    uint64_t at = c->last_retired_pc(c->opaque);
    char name[32];
    counter_name((unsigned)__builtin_ctz(wrapped), name, sizeof name);
    if (!irq_pulse(&p->pmi)) {
        port_diag(c, pc, "pmi-lost",
                     "PMI for IA32_PERF_GLOBAL_STATUS 0x%" PRIx64 " found LVTPC masked: the interrupt is lost",
                     p->global_status);
        return;
    }
    p->pmi_status = p->global_status;
    c->sample(c->opaque, at, p->cpl == 3, name);
}

void x86pmu_nmi_entry(X86Pmu *p)
{
    p->in_pmi = p->pmi_status != 0;
}

void x86pmu_nmi_return(X86Pmu *p, uint64_t pc)
{
    if (!p->in_pmi)
        return;
    p->in_pmi = false;
    uint64_t left = p->global_status & p->pmi_status;
    p->pmi_status = 0;
    if (left)
        port_diag(p->cpu, pc, "pmi-unacked",
                     "the NMI handler returned with IA32_PERF_GLOBAL_STATUS 0x%" PRIx64
                     " still set (no write to IA32_PERF_GLOBAL_OVF_CTRL): Linux would loop "
                     "(\"perfevents: irq loop stuck!\")",
                     left);
}

void x86pmu_set_cpl(X86Pmu *p, unsigned cpl)
{
    if (cpl == p->cpl)
        return;
    begin(p);
    p->cpl = cpl;
    commit(p, 0);
}

/* ------------------------------------------------------------------ MSRs */

void x86pmu_init(X86Pmu *p, const CpuPort *c, IrqLine pmi, const X86PmuConfig *cfg)
{
    memset(p, 0, sizeof *p);
    p->cpu = c;
    p->pmi = pmi;
    p->cfg = *cfg;
    pmc_bank_init(&p->bank, c, X86_PMU_FIXED_BASE + cfg->nfixed, overflow, p, "pmu-overflow");
    for (unsigned i = 0; i < cfg->ngp; i++)
        p->bank.ctr[i].mask = width_mask(cfg->gp_width);
    for (unsigned j = 0; j < cfg->nfixed; j++)
        p->bank.ctr[X86_PMU_FIXED_BASE + j].mask = width_mask(cfg->fixed_width);
    p->global_ctrl = width_mask(cfg->ngp);
    configure(p, 0);
}

const char *x86pmu_msr_name(const X86Pmu *p, uint32_t index)
{
    static const char *const pmc[] = { "IA32_PMC0", "IA32_PMC1", "IA32_PMC2", "IA32_PMC3",
                                       "IA32_PMC4", "IA32_PMC5", "IA32_PMC6", "IA32_PMC7" };
    static const char *const sel[] = { "IA32_PERFEVTSEL0", "IA32_PERFEVTSEL1", "IA32_PERFEVTSEL2",
                                       "IA32_PERFEVTSEL3", "IA32_PERFEVTSEL4", "IA32_PERFEVTSEL5",
                                       "IA32_PERFEVTSEL6", "IA32_PERFEVTSEL7" };
    static const char *const fix[] = { "IA32_FIXED_CTR0", "IA32_FIXED_CTR1", "IA32_FIXED_CTR2" };
    if (index >= MSR_PMC0 && index < MSR_PMC0 + p->cfg.ngp)
        return pmc[index - MSR_PMC0];
    if (index >= MSR_PERFEVTSEL0 && index < MSR_PERFEVTSEL0 + p->cfg.ngp)
        return sel[index - MSR_PERFEVTSEL0];
    if (index >= MSR_FIXED_CTR0 && index < MSR_FIXED_CTR0 + p->cfg.nfixed)
        return fix[index - MSR_FIXED_CTR0];
    switch (index) {
    case MSR_FIXED_CTR_CTRL: return "IA32_FIXED_CTR_CTRL";
    case MSR_GLOBAL_STATUS: return "IA32_PERF_GLOBAL_STATUS";
    case MSR_GLOBAL_CTRL: return "IA32_PERF_GLOBAL_CTRL";
    case MSR_GLOBAL_OVF_CTRL: return "IA32_PERF_GLOBAL_OVF_CTRL";
    default: return NULL;
    }
}

MsrResult x86pmu_rdmsr(X86Pmu *p, uint32_t index, uint64_t *v)
{
    if (!x86pmu_msr_name(p, index))
        return MSR_NOT_MINE;
    begin(p);
    if (index >= MSR_PMC0 && index < MSR_PMC0 + p->cfg.ngp)
        *v = p->bank.ctr[index - MSR_PMC0].value;
    else if (index >= MSR_PERFEVTSEL0 && index < MSR_PERFEVTSEL0 + p->cfg.ngp)
        *v = p->evtsel[index - MSR_PERFEVTSEL0];
    else if (index >= MSR_FIXED_CTR0 && index < MSR_FIXED_CTR0 + p->cfg.nfixed)
        *v = p->bank.ctr[X86_PMU_FIXED_BASE + index - MSR_FIXED_CTR0].value;
    else if (index == MSR_FIXED_CTR_CTRL)
        *v = p->fixed_ctrl;
    else if (index == MSR_GLOBAL_STATUS)
        *v = p->global_status;
    else if (index == MSR_GLOBAL_CTRL)
        *v = p->global_ctrl;
    else
        *v = 0;                     /* OVF_CTRL */
    commit(p, 0);
    return MSR_OK;
}

static MsrResult reserved(X86Pmu *p, uint64_t pc, uint32_t index, uint64_t v, uint64_t bad)
{
    port_diag(p->cpu, pc, "pmu-reserved",
                 "wrmsr %s = 0x%" PRIx64 " sets reserved bits 0x%" PRIx64 ": #GP", x86pmu_msr_name(p, index), v,
                 bad);
    return MSR_GP;
}

MsrResult x86pmu_wrmsr(X86Pmu *p, uint32_t index, uint64_t v, uint64_t pc)
{
    if (!x86pmu_msr_name(p, index))
        return MSR_NOT_MINE;
    uint64_t ok_bits;
    if (index >= MSR_PERFEVTSEL0 && index < MSR_PERFEVTSEL0 + p->cfg.ngp)
        ok_bits = 0xffffffffull & ~(p->cfg.version >= 3 ? 0 : (uint64_t)SEL_ANY);
    else if (index >= MSR_FIXED_CTR0 && index < MSR_FIXED_CTR0 + p->cfg.nfixed)
        ok_bits = width_mask(p->cfg.fixed_width);
    else if (index == MSR_FIXED_CTR_CTRL)
        ok_bits = width_mask(4 * p->cfg.nfixed) &
                  (p->cfg.version >= 3 ? 0xfffull : 0xbbbull);
    else if (index == MSR_GLOBAL_CTRL)
        ok_bits = global_mask(p);
    else if (index == MSR_GLOBAL_OVF_CTRL)
        ok_bits = global_mask(p) | 3ull << 62;
    else if (index == MSR_GLOBAL_STATUS)
        return reserved(p, pc, index, v, ~0ull);   /* read-only (version 2) */
    else
        ok_bits = UINT64_MAX;       /* IA32_PMCx: only bits 31:0 are used */
    if (v & ~ok_bits)
        return reserved(p, pc, index, v, v & ~ok_bits);

    begin(p);
    uint64_t report = 0;            /* counters whose enabling this write may have changed */
    if (index >= MSR_PMC0 && index < MSR_PMC0 + p->cfg.ngp) {
        Pmc *c = &p->bank.ctr[index - MSR_PMC0];
        c->value = (uint64_t)(int64_t)(int32_t)(uint32_t)v & c->mask;
    } else if (index >= MSR_PERFEVTSEL0 && index < MSR_PERFEVTSEL0 + p->cfg.ngp) {
        p->evtsel[index - MSR_PERFEVTSEL0] = v;
        report = 1ull << (index - MSR_PERFEVTSEL0);
    } else if (index >= MSR_FIXED_CTR0 && index < MSR_FIXED_CTR0 + p->cfg.nfixed) {
        p->bank.ctr[X86_PMU_FIXED_BASE + index - MSR_FIXED_CTR0].value = v;
    } else if (index == MSR_FIXED_CTR_CTRL) {
        p->fixed_ctrl = v;
    } else if (index == MSR_GLOBAL_CTRL) {
        report = v & ~p->global_ctrl;
        p->global_ctrl = v;
    } else if (index == MSR_GLOBAL_OVF_CTRL) {
        p->global_status &= ~v;
    }
    commit(p, report);
    return MSR_OK;
}

/* ECX: bit 30 selects the fixed counters, bits 29:0 the index; bit 31 is the "fast" read, which
 * returns bits 31:0 of the counter in EAX and clears EDX, for a general-purpose counter and a
 * fixed one alike (SDM vol. 2B RDPMC: "Setting ECX[31] selects 'fast' read mode ... RDPMC
 * returns bits 31:0 of the PMC in EAX while clearing EDX to zero"). */
enum { RDPMC_FAST = 1u << 31, RDPMC_FIXED = 1u << 30, RDPMC_INDEX = 0x3fffffffu };

bool x86pmu_rdpmc(X86Pmu *p, uint32_t sel, uint64_t *v)
{
    bool fixed = sel & RDPMC_FIXED;
    uint32_t idx = sel & RDPMC_INDEX;
    if (fixed ? idx >= p->cfg.nfixed : idx >= p->cfg.ngp)
        return false;
    begin(p);
    *v = p->bank.ctr[fixed ? X86_PMU_FIXED_BASE + idx : idx].value;
    if (sel & RDPMC_FAST)
        *v &= UINT32_MAX;
    commit(p, 0);
    return true;
}

int x86pmu_readings(X86Pmu *p, PmcReading *out, int max)
{
    int n = 0;
    for (unsigned i = 0; i < p->cfg.ngp && n < max; i++)
        out[n++] = (PmcReading){ x86pmu_msr_name(p, MSR_PMC0 + i), pmc_peek(&p->bank, i), &p->bank.ctr[i] };
    for (unsigned j = 0; j < p->cfg.nfixed && n < max; j++)
        out[n++] = (PmcReading){ x86pmu_msr_name(p, MSR_FIXED_CTR0 + j), pmc_peek(&p->bank, X86_PMU_FIXED_BASE + j),
                                 &p->bank.ctr[X86_PMU_FIXED_BASE + j] };
    return n;
}

void x86pmu_cpuid(const X86Pmu *p, uint32_t r[4])
{
    uint32_t unavailable = 0;
    for (size_t k = 0; k < ARRAY_SIZE(arch_events); k++)
        if (arch_events[k].src == PMC_SRC_NONE)
            unavailable |= 1u << k;
    r[0] = p->cfg.version | (uint32_t)p->cfg.ngp << 8 | (uint32_t)p->cfg.gp_width << 16 |
           (uint32_t)ARRAY_SIZE(arch_events) << 24;
    r[1] = unavailable;
    r[2] = 0;
    r[3] = p->cfg.version >= 2 ? p->cfg.nfixed | (uint32_t)p->cfg.fixed_width << 5 : 0;
}

/* ------------------------------------------------------------------ checkpoints */

/* Raise when a field is added (base/state.h). */
#define X86PMU_STATE_VERSION 1u

static const StateField pmu_fields[] = {
    STATE_ARRAY(X86Pmu, evtsel), STATE_FIELD(X86Pmu, fixed_ctrl), STATE_FIELD(X86Pmu, global_ctrl),
    STATE_FIELD(X86Pmu, global_status), STATE_UPTO(X86Pmu, cpl, 3), STATE_FIELD(X86Pmu, pmi_status),
    STATE_BOOL(X86Pmu, in_pmi),
};

void x86pmu_save(const X86Pmu *p, Blob *b)
{
    size_t at = blob_begin(b, "x86-pmu", X86PMU_STATE_VERSION);
    blob_fields(b, p, pmu_fields, ARRAY_SIZE(pmu_fields));
    pmc_save(&p->bank, b);
    blob_end(b, at);
}

bool x86pmu_load(X86Pmu *p, BlobReader *r)
{
    BrOuter outer;
    return br_begin(r, &outer, "x86-pmu", X86PMU_STATE_VERSION) && br_fields(r, p, pmu_fields, ARRAY_SIZE(pmu_fields)) &&
           pmc_load(&p->bank, r) && br_end(r, &outer);
}
