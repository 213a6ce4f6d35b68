/* pmc.c — lazy performance counters with predicted overflow (see pmc.h). */
#include "pmu/pmc.h"

#include "base/state.h"
#include "base/trace_events.h"

uint64_t pmc_source(const CpuPort *c, PmcSource s)
{
    switch (s) {
    case PMC_SRC_CYCLES: return *c->cycles - *c->idle_cycles;
    case PMC_SRC_INSNS: return *c->insns;
    case PMC_SRC_BRANCHES: return c->ev->branches;
    case PMC_SRC_BRMISS: return c->ev->br_misses;
    case PMC_SRC_LOADS:
    case PMC_SRC_STORES:
    case PMC_SRC_MEMOPS: {
        uint64_t l, st, m;
        c->mem_count(c->opaque, &l, &st, &m);
        return s == PMC_SRC_LOADS ? l : s == PMC_SRC_STORES ? st : m;
    }
    default: return 0;
    }
}

static uint64_t bank_source(PmcBank *b, PmcSource s)
{
    if (s == PMC_SRC_EXT)
        return b->ext_value ? b->ext_value(b) : 0;
    return pmc_source(b->cpu, s);
}

uint64_t pmc_peek(PmcBank *b, unsigned i)
{
    const Pmc *p = &b->ctr[i];
    if (!p->active || p->src == PMC_SRC_NONE)
        return p->value;
    uint64_t d = (bank_source(b, p->src) - b->at[p->src]) - (bank_source(b, p->sub) - b->at[p->sub]);
    return (p->value + d) & p->mask;
}

void pmc_rebase_ext(PmcBank *b)
{
    b->at[PMC_SRC_EXT] = bank_source(b, PMC_SRC_EXT);
}

static void pmc_event(Event *ev, void *opaque)
{
    PmcBank *b = opaque;
    pmc_sync(b);
    pmc_arm(b);
}

void pmc_bank_init(PmcBank *b, const CpuPort *c, unsigned n, PmcOverflowFn overflow, void *opaque, const char *name)
{
    *b = (PmcBank){ .cpu = c, .n = n, .overflow = overflow, .opaque = opaque };
    for (unsigned i = 0; i < PMC_MAX; i++) {
        event_init(&b->ctr[i].ev, name, pmc_event, b);
        b->ctr[i].ev.deferrable = true;     /* counters of running time do not wake a CPU */
    }
    event_init(&b->check, name, pmc_event, b);
    c->ev->branch_limit_ev = &b->check;
    event_init(&b->mem_check, name, pmc_event, b);
    c->ev->mem_limit_ev = &b->mem_check;
}

uint64_t pmc_left(const Pmc *p)
{
    uint64_t period = p->mask + 1;                  /* 0 for a 64-bit counter: 2^64 */
    uint64_t trip = p->trip ? p->trip : period;
    if (!p->trip) {
        /* A 64-bit counter at 0 wraps after 2^64 increments, which no run reaches: the
         * furthest point there is (not 0, which would mean "now"). */
        uint64_t left = trip - p->value;
        return left ? left : UINT64_MAX;
    }
    if (p->value < trip)
        return trip - p->value;
    return period - p->value + trip;                /* already past it: after the wrap */
}

/* base + n, or UINT64_MAX (never) where a 64-bit counter's distance would pass it. */
static uint64_t at_or_never(uint64_t base, uint64_t n)
{
    return n > UINT64_MAX - base ? UINT64_MAX : base + n;
}

void pmc_sync(PmcBank *b)
{
    uint64_t now[PMC_SRC_COUNT];
    for (int s = 0; s < PMC_SRC_COUNT; s++)
        now[s] = bank_source(b, (PmcSource)s);
    uint32_t wrapped = 0;
    for (unsigned i = 0; i < b->n; i++) {
        Pmc *p = &b->ctr[i];
        if (!p->active || p->src == PMC_SRC_NONE)
            continue;
        uint64_t d = (now[p->src] - b->at[p->src]) - (now[p->sub] - b->at[p->sub]);
        if (d && d >= pmc_left(p))
            wrapped |= 1u << i;
        p->value = (p->value + d) & p->mask;
    }
    for (int s = 0; s < PMC_SRC_COUNT; s++)
        b->at[s] = now[s];
    if (wrapped)
        b->overflow(b, wrapped);
}

/* Which of its CPU's queues predicts a counter's wrap: 1 cycles, 2 instructions, 0 none. */
static int pmc_queue(const Pmc *p)
{
    if (!p->active || p->src == PMC_SRC_NONE)
        return 0;
    if (p->src == PMC_SRC_CYCLES || p->src == PMC_SRC_EXT || p->sub != PMC_SRC_NONE)
        return 1;                   /* exact, or a lower bound: advances at most once a cycle */
    if (p->src == PMC_SRC_INSNS)
        return 2;
    return 0;                       /* branch and load/store sources: the block hook checks */
}

static bool is_mem_source(unsigned s)
{
    return s == PMC_SRC_LOADS || s == PMC_SRC_STORES || s == PMC_SRC_MEMOPS;
}

/* Load/store sources have no queue either: the block hook finds the instruction that reaches
 * one of these limits when its block starts (cpu.c mem_limit_check). */
static void pmc_mem_limits(PmcBank *b)
{
    const CpuPort *c = b->cpu;
    uint64_t lim[PMC_SRC_COUNT];
    bool any = false;
    for (int s = 0; s < PMC_SRC_COUNT; s++)
        lim[s] = UINT64_MAX;
    for (unsigned i = 0; i < b->n; i++) {
        const Pmc *p = &b->ctr[i];
        if (!p->active || !is_mem_source(p->src))
            continue;
        any = true;
        uint64_t at = at_or_never(b->at[p->src], pmc_left(p));
        if (at < lim[p->src])
            lim[p->src] = at;
    }
    c->track_mem(c->opaque, any);
    evq_remove(&b->mem_check);
    c->ev->lim_loads = lim[PMC_SRC_LOADS];
    c->ev->lim_stores = lim[PMC_SRC_STORES];
    c->ev->lim_memops = lim[PMC_SRC_MEMOPS];
}

/* Branch sources have no queue: the block hook compares the CPU's branch counts with these
 * limits and fires b->check when one is reached. */
static void pmc_branch_limits(PmcBank *b)
{
    const CpuPort *c = b->cpu;
    uint64_t lim[PMC_SRC_COUNT] = { [PMC_SRC_BRANCHES] = UINT64_MAX, [PMC_SRC_BRMISS] = UINT64_MAX };
    for (unsigned i = 0; i < b->n; i++) {
        const Pmc *p = &b->ctr[i];
        if (!p->active || (p->src != PMC_SRC_BRANCHES && p->src != PMC_SRC_BRMISS) || p->sub != PMC_SRC_NONE)
            continue;
        uint64_t at = at_or_never(b->at[p->src], pmc_left(p));
        if (at < lim[p->src])
            lim[p->src] = at;
    }
    c->ev->lim_branches = lim[PMC_SRC_BRANCHES];
    c->ev->lim_br_misses = lim[PMC_SRC_BRMISS];
    c->track_branches(c->opaque, pmc_needs_branches(b));
}

void pmc_arm(PmcBank *b)
{
    const CpuPort *c = b->cpu;
    uint64_t now = *c->cycles;
    bool window = false;
    for (unsigned i = 0; i < b->n; i++) {
        Pmc *p = &b->ctr[i];
        window |= p->active && p->sampling && p->src != PMC_SRC_NONE;
        evq_remove(&p->ev);
        uint64_t left = pmc_left(p);                /* increments until the trip */
        switch (pmc_queue(p)) {
        case 1:
            if (p->src == PMC_SRC_EXT && b->ext_cycle_at && p->sub == PMC_SRC_NONE) {
                uint64_t at = b->ext_cycle_at(b, at_or_never(b->at[PMC_SRC_EXT], left));
                port_schedule(c, &p->ev, at > now ? at : now);
            } else {
                port_schedule(c, &p->ev, at_or_never(now, left));
            }
            break;
        case 2: c->schedule_insns(c->opaque, &p->ev, at_or_never(*c->insns, left)); break;
        default: break;
        }
    }
    c->profile_window(c->opaque, window);
    pmc_branch_limits(b);
    pmc_mem_limits(b);
}

bool pmc_needs_branches(const PmcBank *b)
{
    for (unsigned i = 0; i < b->n; i++) {
        const Pmc *p = &b->ctr[i];
        if (p->active && (p->src == PMC_SRC_BRANCHES || p->src == PMC_SRC_BRMISS || p->sub == PMC_SRC_BRANCHES ||
                          p->sub == PMC_SRC_BRMISS))
            return true;
    }
    return false;
}

void pmc_trace_overflow(const PmcBank *b, uint64_t pc, const char *counter, uint64_t status, bool pmi)
{
    const CpuPort *c = b->cpu;
    trace_pmu_overflow(c->trace, *c->cycles, c->index, pc, counter, status, pmi);
}

/* Raise when the saved state changes (base/state.h). */
#define PMC_STATE_VERSION 1u

void pmc_save(const PmcBank *b, Blob *blob)
{
    size_t at = blob_begin(blob, "pmc", PMC_STATE_VERSION);
    for (int s = 0; s < PMC_SRC_COUNT; s++)
        blob_u64(blob, b->at[s]);
    for (unsigned i = 0; i < b->n; i++) {
        const Pmc *p = &b->ctr[i];
        blob_u64(blob, p->value);
        blob_u64(blob, p->mask);
        blob_u8(blob, p->src);
        blob_u8(blob, p->sub);
        blob_u8(blob, p->active);
        blob_u8(blob, p->sampling);
        blob_event(blob, &p->ev);
    }
    blob_end(blob, at);
}

bool pmc_load(PmcBank *b, BlobReader *r)
{
    const CpuPort *c = b->cpu;
    BrOuter outer;
    if (!br_begin(r, &outer, "pmc", PMC_STATE_VERSION))
        return false;
    for (int s = 0; s < PMC_SRC_COUNT; s++)
        b->at[s] = br_u64(r);
    for (unsigned i = 0; r->ok && i < b->n; i++) {
        Pmc *p = &b->ctr[i];
        p->value = br_u64(r);
        p->mask = br_u64(r);
        p->src = br_u8(r);
        p->sub = br_u8(r);
        uint8_t active = br_u8(r), sampling = br_u8(r);
        p->active = active;
        p->sampling = sampling;
        if (r->ok && (active > 1 || sampling > 1 || p->src >= PMC_SRC_COUNT || p->sub >= PMC_SRC_COUNT || p->value > p->mask))
            return br_fail(r, "performance counter");
        int q = pmc_queue(p);
        br_event(r, &p->ev, q == 2 ? c->insn_events : c->events);
    }
    if (r->ok) {
        pmc_branch_limits(b);
        pmc_mem_limits(b);
    }
    return br_end(r, &outer);
}
