/* power.c — a CPU's life and its interrupts: power on and off, the interrupt pins, exception
 * entries, the event queues, the PMU's branch events, and pmusim's own quiet runs (the CPU
 * core, cpu/cpu.h, with cpu.c). */
#include "cpu/cpu.h"

#include <stdio.h>

void vcpu_start(Cpu *c, uint64_t entry, uint64_t arg0, uint64_t arg1, uint64_t at, const char *why)
{
    if (at > c->cycles) {
        c->idle_cycles += at - c->cycles;
        c->cycles = at;
    }
    c->ops->reset(c, entry, arg0, arg1);
    c->state = CPU_RUNNING;
    c->stop_reason = "running";
    trace_cpu_start(c->cl->trace, c->cycles, c->index, entry, c->hwid, why);
}

static bool pin_set(void *opaque, int pin, bool level)
{
    Cpu *c = opaque;
    bool *p = pin == CPU_PIN_NMI ? &c->pins.nmi
            : pin == CPU_PIN_PMI ? &c->pins.pmi
            : pin == CPU_PIN_FIQ ? &c->pins.fiq
                                 : &c->pins.irq;
    if (pin != CPU_PIN_NMI) {
        bool was = *p;
        *p = level;
        if (level && !was)
            vcpu_request_stop(c);
    } else if (level) {
        *p = true;                  /* an edge: latched until the backend takes the NMI */
        vcpu_request_stop(c);
    }
    return true;
}

IrqLine vcpu_pin(Cpu *c, CpuPin pin)
{
    return irq_line(pin_set, c, pin);
}

void vcpu_stop(Cpu *c, CpuState state, const char *why)
{
    c->state = state;
    c->stop_reason = why;
    vcpu_request_stop(c);
    if (trace_on(c->cl->trace))
        trace_cpu_stop(c->cl->trace, c->cycles, c->index, c->ops->get_pc(c), why);
}

void vcpu_set_branch_tracking(Cpu *c, bool on)
{
    on |= c->priv.branches;         /* pmusim stat counts them all the run */
    if (on && !c->pev.track_branches)
        c->br_done = false;         /* the block being executed has not branched yet */
    c->pev.track_branches = on;
    if (on)
        c->lim.fast = 0;
}

/* ------------------------------------------------------------------ pmusim stat */

/* What the sources counted since the last change of level goes to the level left. */
static void priv_fold(Cpu *c)
{
    CpuPrivSplit *s = &c->priv;
    for (int k = 0; k < PMC_SRC_COUNT; k++) {
        uint64_t now = pmc_source(&c->port, (PmcSource)k);
        if (s->user)
            s->user_sum[k] += now - s->at[k];
        s->at[k] = now;
    }
}

void vcpu_priv_start(Cpu *c, bool branches, bool mem)
{
    CpuPrivSplit *s = &c->priv;
    *s = (CpuPrivSplit){ .on = true, .branches = branches, .mem = mem };
    priv_fold(c);
    if (branches)
        vcpu_set_branch_tracking(c, true);
    if (mem)
        vcpu_set_mem_tracking(c, true);
}

void vcpu_set_user(Cpu *c, bool user)
{
    if (!c->priv.on || c->priv.user == user)
        return;
    priv_fold(c);
    c->priv.user = user;
}

void vcpu_priv_count(Cpu *c, PmcSource s, uint64_t *all, uint64_t *user)
{
    if (c->priv.on)
        priv_fold(c);
    *all = pmc_source(&c->port, s);
    *user = c->priv.user_sum[s];
}

uint64_t vcpu_last_retired_pc(Cpu *c)
{
    const BlockEntry *e = c->blk;
    if (e && c->blk_counted && c->blk_counted <= e->n)
        return e->pc + e->info[c->blk_counted - 1].off;
    return c->prev_last_pc;
}

void vcpu_branch_retire(Cpu *c, uint64_t next)
{
    const BlockEntry *e = c->blk;
    if (!c->pev.track_branches || c->br_done || !e || !e->n || c->blk_counted != e->n || e->br == BR_NONE)
        return;
    c->br_done = true;
    const InsnInfo *last = &e->info[e->n - 1];
    uint64_t pc = e->pc + last->off;
    c->pev.branches++;
    bool miss = bp_resolve(&c->bp, (BranchKind)e->br, pc, pc + last->len, next);
    c->pev.br_misses += miss;
    if (c->cl->host.branch_retired)
        c->cl->host.branch_retired(c->cl->host.opaque, c, pc, miss);
}

static void schedule_seq(Cpu *c, Event *ev, uint64_t cycle, uint64_t seq)
{
    evq_insert(&c->events, ev, cycle, seq);
    uint64_t *lim = ev->lazy ? &c->lim.soft : &c->lim.cycles;
    if (cycle < *lim) {             /* a running CPU must notice it (from a hook) */
        *lim = cycle;
        if (cycle < c->lim.fast)
            c->lim.fast = cycle;
    }
}

void vcpu_schedule(Cpu *c, Event *ev, uint64_t cycle)
{
    schedule_seq(c, ev, cycle, clk_next_seq(c->cl->clock));
}

/* The last sequence number: no other event has it, none is drawn after it. */
void vcpu_schedule_last(Cpu *c, Event *ev, uint64_t cycle)
{
    schedule_seq(c, ev, cycle, UINT64_MAX);
}

void vcpu_schedule_insns(Cpu *c, Event *ev, uint64_t insns)
{
    evq_insert(&c->insn_events, ev, insns, clk_next_seq(c->cl->clock));
    if (insns < c->lim.insns)
        c->lim.insns = insns;
}

void vcpu_quiet_run(Cpu *c, uint64_t pc)
{
    uint64_t fast = c->lim.fast;
    BlockEntry *blk = c->blk;
    uint32_t counted = c->blk_counted;
    c->quiet = true;
    c->lim.fast = 0;                /* keeps the block hook off its counting fast path */
    uc_emu_start(c->uc, c->ops->engine_pc ? c->ops->engine_pc(c, pc) : pc, 0, 0, 0);
    c->quiet = false;
    c->lim.fast = fast;
    c->blk = blk;
    c->blk_counted = counted;
}

void vcpu_exception_taken(Cpu *c, TraceKind kind, uint64_t vector, const char *name, uint64_t from, uint64_t to,
                         uint64_t info)
{
    Cluster *cl = c->cl;
    vcpu_branch_retire(c, from);
    c->br_done = true;              /* nothing of the interrupted block retires any more */
    c->exc.serialized++;
    c->exc.serialized_at = c->cycles;
    if (cl->watch.context_sync)
        cl->watch.context_sync(cl->watch.opaque, c);
    c->cycles += c->ctab->cost[IC_TRAP];
    /* Count entries with nothing retired in between, whatever their vectors: a storm that
     * alternates between handlers retires no instruction either, so --max-insns never ends it. */
    if (c->insns == c->exc.insns_at) {
        if (++c->exc.repeats == EXCEPTION_LOOP_LIMIT) {
            vcpu_diag(c, from, "exception-loop",
                      "%u exceptions in a row (the last to 0x%" PRIx64 ") with no instruction retiring: stopping the CPU",
                      EXCEPTION_LOOP_LIMIT, to);
            vcpu_stop(c, CPU_DEAD, "exception-loop");
            if (cl->ncpus == 1)
                vcpu_exit(c, EXIT_HUNG, "exception-loop");
            return;
        }
    } else {
        c->exc.repeats = 0;
    }
    c->exc.insns_at = c->insns;
    trace_exception(cl->trace, kind, c->cycles, c->index, vector, name, from, to, info);
}

/* ------------------------------------------------------------------ --inject stall */

void vcpu_stall_add(Cpu *c, uint64_t cycle, uint64_t len)
{
    CpuStall *s = &c->stall;
    if (s->n == MAX_CPU_STALLS)         /* sim/inject.h: fewer options than that in all */
        return;
    uint32_t i = s->n++;
    for (; i && s->at[i - 1].cycle > cycle; i--)
        s->at[i] = s->at[i - 1];
    s->at[i] = (CpuStallAt){ cycle, len };
}

uint64_t vcpu_stall_next(const Cpu *c)
{
    const CpuStall *s = &c->stall;
    return s->active || s->next >= s->n ? UINT64_MAX : s->at[s->next].cycle;
}

/* The stall begins at this instruction boundary: a CPU asleep in WFI or HLT is woken into it
 * (it spins, its cycles are busy); the PC stays on the instruction it would execute next. */
static void stall_begin(Cpu *c)
{
    CpuStall *s = &c->stall;
    uint64_t len = s->at[s->next++].len;
    s->active = true;
    s->end = len > UINT64_MAX - c->cycles ? UINT64_MAX : c->cycles + len;
    c->state = CPU_RUNNING;
    c->stop_reason = "stalled";
    if (trace_on(c->cl->trace))
        trace_inject(c->cl->trace, c->cycles, c->index, "stall", c->ops->get_pc(c),
                     s->end == UINT64_MAX ? NULL : &len);
}

static void stall_end(Cpu *c)
{
    c->stall.active = c->stall.in_nmi = false;
    c->stop_reason = "running";
    if (trace_on(c->cl->trace))
        trace_inject(c->cl->trace, c->cycles, c->index, "resume", c->ops->get_pc(c), NULL);
}

bool vcpu_stall_update(Cpu *c)
{
    CpuStall *s = &c->stall;
    if (s->active && c->cycles >= s->end)
        stall_end(c);
    if (!s->active && c->cycles >= vcpu_stall_next(c) && (c->state == CPU_RUNNING || c->state == CPU_HALTED))
        stall_begin(c);
    if (!s->active || !c->ops->nmi_take)
        return s->active;
    if (s->in_nmi && !c->ops->in_nmi(c))
        s->in_nmi = false;          /* its IRET: back into the spin */
    if (!s->in_nmi && c->ops->nmi_take(c))
        s->in_nmi = true;           /* the handler runs, with interrupts still masked */
    return !s->in_nmi;
}
