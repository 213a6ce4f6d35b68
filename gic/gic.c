/* gic.c — the GIC's core: interrupt state, routing, the highest-priority pending interrupt of
 * each CPU interface, signalling, SGIs between CPUs, checkpoints (see gic.h).
 *
 * The state machine of one interrupt (IHI 0069H 4.1.2): inactive, pending, active, active and
 * pending.  A level-sensitive interrupt is pending while its line is high or a write to
 * ISPENDR latched it; an edge-triggered one from its rising edge (or ISPENDR) until it is
 * acknowledged (IHI 0069H 4.1.1 "Physical interrupts").  Acknowledging makes it active, and a
 * still-high level line makes it active and pending; deactivation ends the active state.
 *
 * A CPU interface signals its highest-priority pending interrupt (HPPI) when it may preempt
 * (IHI 0069H 4.8 "Preemption"): its priority is below ICC_PMR_EL1 and its group priority below
 * the running priority, both compared as the binary point of its group masks them.  Ties go to
 * the lowest INTID (the architecture leaves the choice IMPLEMENTATION DEFINED; QEMU does the
 * same).
 */
#include "gic/gic.h"

#include <stdarg.h>
#include <string.h>

#include "base/state.h"
#include "base/trace_events.h"

enum {
    GIRQ_ENABLED = 1, GIRQ_PENDING = 2, GIRQ_LEVEL = 4, GIRQ_ACTIVE = 8, GIRQ_GROUP1 = 16, GIRQ_EDGE = 32,
    GIRQ_ALL = 63,
};
/* GICD_CTLR: EnableGrp0, EnableGrp1 (IHI 0069H 12.9.4, single security state) */
enum { GICD_CTLR_GRP0 = 1, GICD_CTLR_GRP1 = 2 };
/* GICv2 GICC_CTLR.FIQEn: Group 0 signalled as FIQ (IHI 0048B 4.4.1); kept in bit 3 of the
 * interface's ctlr, which holds ICC_CTLR_EL1's layout for both versions (gic_cpuif.c) */
#define GICC_CTLR_FIQEN (1u << 3)
/* ICC_CTLR_EL1.CBPR: BPR0 controls Group 1 too; EOImode: EOIR only drops the priority */
enum { ICC_CTLR_CBPR = 1, ICC_CTLR_EOIMODE = 2 };
/* ICC_SGI1R_EL1's IRM bit's effect is decided by the caller: targets is a CPU bit mask */

static void sgi_arrive(Event *ev, void *opaque);

void gic_init(Gic *g, GicVersion v, int ncpus, Trace *trace)
{
    memset(g, 0, sizeof *g);
    g->version = v;
    g->ncpus = ncpus;
    g->trace = trace;
    for (int n = 0; n < GIC_MAX_CPUS; n++) {
        GicCpu *gc = &g->cpu[n];
        gc->gic = g;
        gc->index = n;
        event_init(&gc->sgi_ev, "gic-sgi", sgi_arrive, gc);
        for (unsigned i = 0; i < GIC_SGIS; i++)
            gc->priv[i].flags = GIRQ_EDGE | (v == GIC_V2 ? GIRQ_ENABLED : 0);   /* GICv2 SGIs: always enabled */
        gc->waker = 6;                              /* GICR_WAKER: ProcessorSleep, ChildrenAsleep */
        gc->bpr0 = 7 - GIC_PRIO_BITS;               /* the minimum binary points (IHI 0069H 12.2.5) */
        gc->bpr1 = gc->bpr0 + 1;
    }
}

GicIrq *gic_irq(Gic *g, int n, unsigned intid)
{
    return intid < GIC_PRIV ? &g->cpu[n].priv[intid] : &g->spi[intid - GIC_PRIV];
}

bool gic_pending(const GicIrq *q)
{
    return (q->flags & GIRQ_PENDING) || (!(q->flags & GIRQ_EDGE) && (q->flags & GIRQ_LEVEL));
}

/* The affinity of CPU n as GICD_IROUTER and GICR_TYPER hold it: Aff3 in [39:32], Aff2.Aff1.Aff0 in [23:0]. */
static uint64_t cpu_affinity(const Gic *g, int n)
{
    uint64_t h = g->cpu[n].port ? g->cpu[n].port->hwid : (uint64_t)n;
    return (h & 0xffffff) | (h & 0xff00000000ull);
}

/* Is SPI `intid` routed to CPU n? */
static bool routed_to(const Gic *g, unsigned intid, int n)
{
    unsigned i = intid - GIC_PRIV;
    if (g->version == GIC_V2)
        return g->itargets[i] & (1u << n);
    return (g->irouter[i] & 0xff00ffffffull) == cpu_affinity(g, n);
}

static bool group_enabled(const Gic *g, int n, bool group1)
{
    const GicCpu *gc = &g->cpu[n];
    return (g->ctlr & (group1 ? GICD_CTLR_GRP1 : GICD_CTLR_GRP0)) && (group1 ? gc->grpen1 : gc->grpen0);
}

/* Could interrupt q be the CPU's HPPI? */
static bool candidate(const Gic *g, int n, const GicIrq *q)
{
    return (q->flags & GIRQ_ENABLED) && !(q->flags & GIRQ_ACTIVE) && gic_pending(q) &&
           group_enabled(g, n, q->flags & GIRQ_GROUP1);
}

unsigned gic_cpu_hppi(Gic *g, int n, bool *group1)
{
    unsigned best = GIC_INTID_SPURIOUS, prio = 0x100;
    for (unsigned id = 0; id < GIC_NR_IRQS; id++) {
        const GicIrq *q = gic_irq(g, n, id);
        if (q->prio < prio && candidate(g, n, q) && (id < GIC_PRIV || routed_to(g, id, n))) {
            best = id;
            prio = q->prio;
        }
    }
    if (best != GIC_INTID_SPURIOUS)
        *group1 = gic_irq(g, n, best)->flags & GIRQ_GROUP1;
    return best;
}

/* The group priority mask of a group's interrupts (IHI 0069H 4.8.3 "Priority grouping"): BPR0
 * gives Group 0 the bits [7:BPR0+1], BPR1 Group 1 the bits [7:BPR1] (BPR0 with CBPR). */
static uint8_t gprio_mask(const GicCpu *gc, bool group1)
{
    unsigned shift = group1 && !(gc->ctlr & ICC_CTLR_CBPR) ? gc->bpr1 : gc->bpr0 + 1u;
    return (uint8_t)(0xffu << shift);
}

uint8_t gic_running_prio(const GicCpu *gc)
{
    uint32_t act = gc->apr[0] | gc->apr[1];
    if (!act)
        return GIC_PRIO_IDLE;
    return (uint8_t)(__builtin_ctz(act) << (8 - GIC_PRIO_BITS));
}

static bool can_preempt(const Gic *g, int n, unsigned id)
{
    const GicCpu *gc = &g->cpu[n];
    const GicIrq *q = gic_irq((Gic *)g, n, id);
    bool g1 = q->flags & GIRQ_GROUP1;
    uint8_t m = gprio_mask(gc, g1), rpr = gic_running_prio(gc);
    return q->prio < gc->pmr && (rpr == GIC_PRIO_IDLE || (q->prio & m) < (rpr & m));
}

/* The levels CPU n's pins should have from its interface's state. */
static void cpu_levels(Gic *g, int n, bool *irq, bool *fiq)
{
    GicCpu *gc = &g->cpu[n];
    bool g1 = false;
    unsigned id = gic_cpu_hppi(g, n, &g1);
    *irq = *fiq = false;
    if (id != GIC_INTID_SPURIOUS && can_preempt(g, n, id)) {
        bool as_fiq = !g1 && (g->version == GIC_V3 || (gc->ctlr & GICC_CTLR_FIQEN));
        *(as_fiq ? fiq : irq) = true;
    }
}

/* Drive CPU n's pins from its interface's state. */
void gic_update_cpu(Gic *g, int n)
{
    bool irq, fiq;
    cpu_levels(g, n, &irq, &fiq);
    irq_set(&g->cpu[n].irq, irq);
    irq_set(&g->cpu[n].fiq, fiq);
}

void gic_redrive(Gic *g, int n, bool fiq_pin)
{
    bool irq, fiq;
    cpu_levels(g, n, &irq, &fiq);
    irq_set(fiq_pin ? &g->cpu[n].fiq : &g->cpu[n].irq, fiq_pin ? fiq : irq);
}

void gic_update(Gic *g)
{
    for (int n = 0; n < g->ncpus; n++)
        if (g->cpu[n].port)
            gic_update_cpu(g, n);
}

void gic_set_pending(Gic *g, int n, unsigned intid, bool on)
{
    GicIrq *q = gic_irq(g, n, intid);
    q->flags = on ? q->flags | GIRQ_PENDING : q->flags & ~GIRQ_PENDING;
}

/* ------------------------------------------------------------------ input lines */

/* A line's level: a rising edge latches an edge-triggered interrupt pending. */
static void line_level(Gic *g, GicIrq *q, bool level)
{
    bool was = q->flags & GIRQ_LEVEL;
    q->flags = level ? q->flags | GIRQ_LEVEL : q->flags & ~GIRQ_LEVEL;
    if (level && !was && (q->flags & GIRQ_EDGE))
        q->flags |= GIRQ_PENDING;
    if (level != was)
        gic_update(g);
}

/* PPI lines: n encodes the CPU and the INTID (cpu * GIC_PRIV + intid). */
static bool ppi_handler(void *opaque, int n, bool level)
{
    Gic *g = opaque;
    line_level(g, &g->cpu[n / GIC_PRIV].priv[n % GIC_PRIV], level);
    return true;
}

static bool spi_handler(void *opaque, int n, bool level)
{
    Gic *g = opaque;
    line_level(g, &g->spi[n - GIC_PRIV], level);
    return true;
}

IrqLine gic_ppi_line(Gic *g, int n, unsigned intid)
{
    return irq_line(ppi_handler, g, n * GIC_PRIV + (int)intid);
}

IrqLine gic_spi_line(Gic *g, unsigned intid)
{
    return irq_line(spi_handler, g, (int)intid);
}

void gic_connect_cpu(Gic *g, int n, const CpuPort *port, IrqLine irq, IrqLine fiq)
{
    GicCpu *gc = &g->cpu[n];
    gc->port = port;
    gc->irq = irq;
    gc->fiq = fiq;
    gic_update_cpu(g, n);
}

/* ------------------------------------------------------------------ SGIs */

static void sgi_deliver(Gic *g, int to, unsigned intid, int from)
{
    GicCpu *t = &g->cpu[to];
    if (g->version == GIC_V2)
        t->sgi_src[intid] |= (uint8_t)(1u << from);
    t->priv[intid].flags |= GIRQ_PENDING;
    gic_update_cpu(g, to);
}

/* SGIs whose send time this CPU's clock has reached arrive (in send order). */
static void sgi_arrive(Event *ev, void *opaque)
{
    GicCpu *t = opaque;
    uint32_t k = 0;
    (void)ev;
    while (k < t->nsgi && t->sgi_at[k] <= port_cycles(t->port))
        k++;
    for (uint32_t i = 0; i < k; i++)
        sgi_deliver(t->gic, t->index, t->sgi_id[i], t->sgi_from[i]);
    memmove(t->sgi_at, t->sgi_at + k, (t->nsgi - k) * sizeof *t->sgi_at);
    memmove(t->sgi_id, t->sgi_id + k, (t->nsgi - k) * sizeof *t->sgi_id);
    memmove(t->sgi_from, t->sgi_from + k, (t->nsgi - k) * sizeof *t->sgi_from);
    t->nsgi -= k;
    if (t->nsgi)
        port_schedule(t->port, &t->sgi_ev, t->sgi_at[0]);
}

/* An SGI to CPU `to` sent at cycle `at` of the sender: now if its clock is there already (it
 * ran first in the round), else when its clock gets there: never earlier than sent.  A full
 * queue delivers at once (late, never lost). */
static void sgi_post(Gic *g, int to, unsigned intid, int from, uint64_t at)
{
    GicCpu *t = &g->cpu[to];
    if (port_cycles(t->port) >= at || t->nsgi == GIC_SGI_QUEUE) {
        sgi_deliver(g, to, intid, from);
        return;
    }
    uint32_t k = t->nsgi;
    while (k > 0 && t->sgi_at[k - 1] > at) {                    /* sorted by time, stable */
        t->sgi_at[k] = t->sgi_at[k - 1];
        t->sgi_id[k] = t->sgi_id[k - 1];
        t->sgi_from[k] = t->sgi_from[k - 1];
        k--;
    }
    t->sgi_at[k] = at;
    t->sgi_id[k] = (uint8_t)intid;
    t->sgi_from[k] = (uint8_t)from;
    t->nsgi++;
    port_schedule(t->port, &t->sgi_ev, t->sgi_at[0]);
}

/* SGI `intid` from CPU `from` (the instruction at pc) to the CPUs in `targets`.  On GICv3 an SGI
 * of the wrong group for the target's configuration is not forwarded (IHI 0069H 12.2.21,
 * ICC_SGI1R_EL1, with GICD_CTLR.DS = 1). */
void gic_send_sgi(Gic *g, int from, uint64_t pc, unsigned intid, uint32_t targets, bool group1)
{
    const CpuPort *src = g->cpu[from].port;
    uint64_t at = src->cycles_at(src->opaque, pc);
    for (int to = 0; to < g->ncpus; to++) {
        if (!(targets & (1u << to)) || !g->cpu[to].port)
            continue;
        trace_ipi(g->trace, at, from, pc, (uint64_t)to, group1, intid);
        if (g->version == GIC_V3 && !(g->cpu[to].priv[intid].flags & GIRQ_GROUP1) != !group1) {
            gic_diag(g, from, pc, "gic-sgi-group", "SGI %u to cpu%d is Group %d there, sent as Group %d: not forwarded",
                     intid, to, !group1, group1);
            continue;
        }
        sgi_post(g, to, intid, from, at);
    }
}

/* ------------------------------------------------------------------ the CPU interface */

static uint8_t apr_bit(const GicCpu *gc, const GicIrq *q)
{
    return (uint8_t)((q->prio & gprio_mask(gc, q->flags & GIRQ_GROUP1)) >> (8 - GIC_PRIO_BITS));
}

/* Acknowledge (ICC_IAR0/1_EL1, GICC_IAR): the HPPI of the group asked for, if it may preempt,
 * becomes active and its group priority the running one; else the spurious INTID 1023
 * (IHI 0069H 12.2.12).  GICv2 SGIs name their source CPU in bits [12:10] (IHI 0048B 4.4.4). */
unsigned gic_cpu_ack(Gic *g, int n, uint64_t pc, bool group1)
{
    GicCpu *gc = &g->cpu[n];
    bool g1 = false;
    unsigned id = gic_cpu_hppi(g, n, &g1), src = 0;
    (void)pc;
    if (id == GIC_INTID_SPURIOUS || (g->version == GIC_V3 && g1 != group1) || !can_preempt(g, n, id))
        return GIC_INTID_SPURIOUS;
    GicIrq *q = gic_irq(g, n, id);
    q->flags = (q->flags & ~GIRQ_PENDING) | GIRQ_ACTIVE;
    if (g->version == GIC_V2 && id < GIC_SGIS) {
        src = (unsigned)__builtin_ctz(gc->sgi_src[id]);
        gc->sgi_src[id] &= (uint8_t)~(1u << src);
        gc->act_src[id] = (uint8_t)src;
        if (gc->sgi_src[id])
            q->flags |= GIRQ_PENDING;               /* other sources still pending */
    }
    gc->apr[g1] |= 1u << apr_bit(gc, q);
    gic_update_cpu(g, n);
    return id | src << 10;
}

static void deactivate(Gic *g, int n, uint64_t pc, unsigned id)
{
    GicIrq *q = gic_irq(g, n, id);
    if (!(q->flags & GIRQ_ACTIVE)) {
        gic_diag(g, n, pc, "gic-not-active", "deactivation of INTID %u, which is not active: ignored", id);
        return;
    }
    q->flags &= ~GIRQ_ACTIVE;
}

static bool eoimode(const Gic *g, const GicCpu *gc)
{
    (void)g;
    return gc->ctlr & ICC_CTLR_EOIMODE;
}

/* End of interrupt (ICC_EOIR0/1_EL1, GICC_EOIR): the priority drop of the highest active
 * priority, and with EOImode 0 the deactivation of `intid` (IHI 0069H 4.1.1 and 12.2.9).
 * Writes of INTIDs 1020-1023 are ignored; an EOI with nothing active, or of an interrupt that
 * is not the one of the highest active priority, is UNPREDICTABLE: a diag, and the drop only
 * when something is active. */
void gic_cpu_eoi(Gic *g, int n, uint64_t pc, unsigned intid, bool group1)
{
    GicCpu *gc = &g->cpu[n];
    (void)group1;
    if (intid >= 1020)
        return;
    if (intid >= GIC_NR_IRQS) {
        gic_diag(g, n, pc, "gic-eoi", "EOI of INTID %u, which this GIC does not have: ignored", intid);
        return;
    }
    uint32_t act = gc->apr[0] | gc->apr[1];
    if (!act) {
        gic_diag(g, n, pc, "gic-eoi", "EOI of INTID %u with no active priority: ignored", intid);
        return;
    }
    unsigned low = (unsigned)__builtin_ctz(act);
    GicIrq *q = gic_irq(g, n, intid);
    if (!(q->flags & GIRQ_ACTIVE) || apr_bit(gc, q) != low)
        gic_diag(g, n, pc, "gic-eoi", "EOI of INTID %u, which is not the active interrupt of the highest priority", intid);
    gc->apr[(gc->apr[0] >> low) & 1 ? 0 : 1] &= ~(1u << low);
    if (!eoimode(g, gc))
        deactivate(g, n, pc, intid);
    gic_update_cpu(g, n);
}

/* Deactivate (ICC_DIR_EL1, GICC_DIR): only meaningful with EOImode 1 (IHI 0069H 12.2.7). */
void gic_cpu_dir(Gic *g, int n, uint64_t pc, unsigned intid)
{
    if (intid >= 1020)
        return;
    if (intid >= GIC_NR_IRQS || !eoimode(g, &g->cpu[n])) {
        gic_diag(g, n, pc, "gic-dir", "deactivation of INTID %u %s: ignored", intid,
                 intid >= GIC_NR_IRQS ? "(not an INTID of this GIC)" : "with EOImode 0");
        return;
    }
    deactivate(g, n, pc, intid);
    gic_update(g);
}

/* ------------------------------------------------------------------ trace */

/* The time of the access by CPU n's instruction at pc (an MMIO access is made in the middle of
 * a block the CPU has counted whole). */
static uint64_t access_time(const Gic *g, int n, uint64_t pc)
{
    const CpuPort *p = g->cpu[n].port;
    return p->cycles_at(p->opaque, pc);
}

void gic_trace_read(Gic *g, int n, uint64_t pc, const char *reg, uint64_t val)
{
    if (trace_on(g->trace))
        trace_gic_read(g->trace, access_time(g, n, pc), n, pc, reg, val);
}

void gic_trace_write(Gic *g, int n, uint64_t pc, const char *reg, uint64_t old, uint64_t val)
{
    if (trace_on(g->trace))
        trace_gic_write(g->trace, access_time(g, n, pc), n, pc, reg, old, val);
}

void gic_diag(Gic *g, int n, uint64_t pc, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    trace_vdiagf(g->trace, access_time(g, n, pc), n, what, &pc, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------ checkpoints */

/* Raise when a field is added (base/state.h). */
#define GIC_STATE_VERSION 1u

static const StateField gic_fields[] = {
    STATE_FIELD(Gic, ctlr),
    STATE_ARRAY(Gic, irouter),
    STATE_ARRAY(Gic, itargets),
};

static const StateField gic_cpu_fields[] = {
    STATE_ARRAY(GicCpu, sgi_src),
    STATE_ARRAY_UPTO(GicCpu, act_src, GIC_V2_MAX_CPUS - 1),
    STATE_FIELD(GicCpu, waker),
    STATE_FIELD(GicCpu, ctlr),
    STATE_FIELD(GicCpu, pmr),
    STATE_UPTO(GicCpu, bpr0, 7),
    STATE_UPTO(GicCpu, bpr1, 7),
    STATE_BOOL(GicCpu, grpen0),
    STATE_BOOL(GicCpu, grpen1),
    STATE_ARRAY(GicCpu, apr),
    STATE_UPTO(GicCpu, nsgi, GIC_SGI_QUEUE),
    STATE_ARRAY(GicCpu, sgi_at),
    STATE_ARRAY_UPTO(GicCpu, sgi_id, GIC_SGIS - 1),
    STATE_ARRAY_UPTO(GicCpu, sgi_from, GIC_MAX_CPUS - 1),
};

static void save_irqs(Blob *b, const GicIrq *q, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        blob_u8(b, q[i].prio);
        blob_u8(b, q[i].flags);
    }
}

static void load_irqs(BlobReader *r, GicIrq *q, unsigned n)
{
    for (unsigned i = 0; i < n && r->ok; i++) {
        q[i].prio = br_u8(r);
        q[i].flags = br_u8(r);
        if (r->ok && q[i].flags > GIRQ_ALL)
            br_fail(r, "an interrupt's state");
    }
}

void gic_save(const Gic *g, Blob *b)
{
    size_t at = blob_begin(b, "gic", GIC_STATE_VERSION);
    blob_fields(b, g, gic_fields, ARRAY_SIZE(gic_fields));
    save_irqs(b, g->spi, GIC_NR_SPIS);
    for (int n = 0; n < g->ncpus; n++) {
        blob_fields(b, &g->cpu[n], gic_cpu_fields, ARRAY_SIZE(gic_cpu_fields));
        save_irqs(b, g->cpu[n].priv, GIC_PRIV);
        blob_event(b, &g->cpu[n].sgi_ev);
    }
    blob_end(b, at);
}

bool gic_load(Gic *g, BlobReader *r)
{
    BrOuter outer;
    if (!br_begin(r, &outer, "gic", GIC_STATE_VERSION) || !br_fields(r, g, gic_fields, ARRAY_SIZE(gic_fields)))
        return false;
    load_irqs(r, g->spi, GIC_NR_SPIS);
    for (int n = 0; n < g->ncpus && r->ok; n++) {
        GicCpu *gc = &g->cpu[n];
        if (!br_fields(r, gc, gic_cpu_fields, ARRAY_SIZE(gic_cpu_fields)))
            return false;
        load_irqs(r, gc->priv, GIC_PRIV);
        br_event(r, &gc->sgi_ev, gc->port ? gc->port->events : NULL);
    }
    if (!br_end(r, &outer))
        return false;
    gic_update(g);
    return true;
}
