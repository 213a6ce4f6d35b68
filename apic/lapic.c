/* lapic.c — the x86 local APIC (see lapic.h).
 *
 * Register map (xAPIC, 32-bit registers on 16-byte boundaries; SDM vol. 3A table 11-1):
 *   0x020 ID          RW [31:24]       0x0b0 EOI         WO            0x300 ICR low     RW
 *   0x030 version     RO               0x0c0 RRD         RO (0)        0x310 ICR high    RW [31:24]
 *   0x080 TPR         RW [7:0]         0x0d0 LDR         RW [31:24]    0x320..0x370 LVT timer,
 *   0x090 APR         RO               0x0e0 DFR         RW [31:28]          thermal, PMC, LINT0,
 *   0x0a0 PPR         RO               0x0f0 SVR         RW [9:0]            LINT1, error
 *   0x100..0x170 ISR  0x180..0x1f0 TMR 0x200..0x270 IRR  RO            0x380 timer initial count
 *   0x280 ESR         RW (latch)       0x2f0 LVT CMCI    RW            0x390 timer current count
 *                                                                      0x3e0 divide config
 * Version register: 0x14 (integrated xAPIC), max LVT entry 6 (seven entries with CMCI).
 * Reserved offsets set ESR bit 7 (illegal register address); writes to read-only registers are
 * ignored, as on hardware.  Every access is a `lapic` trace event.
 */
#include "apic/lapic.h"

#include <stdio.h>
#include <string.h>

#include "base/state.h"
#include "base/trace_events.h"

enum {
    APIC_ID = 0x20, APIC_VER = 0x30, APIC_TPR = 0x80, APIC_APR = 0x90, APIC_PPR = 0xa0, APIC_EOI = 0xb0,
    APIC_RRD = 0xc0, APIC_LDR = 0xd0, APIC_DFR = 0xe0, APIC_SVR = 0xf0, APIC_ISR = 0x100, APIC_TMR = 0x180,
    APIC_IRR = 0x200, APIC_ESR = 0x280, APIC_LVT_CMCI = 0x2f0, APIC_ICR = 0x300, APIC_ICR2 = 0x310,
    APIC_LVTT = 0x320, APIC_LVT_THERMAL = 0x330, APIC_LVTPC = 0x340, APIC_LVT0 = 0x350, APIC_LVT1 = 0x360,
    APIC_LVTERR = 0x370, APIC_TMICT = 0x380, APIC_TMCCT = 0x390, APIC_TDCR = 0x3e0,
};

#define APIC_VERSION 0x00060014u        /* max LVT entry 6, version 0x14 */
#define SVR_ENABLE (1u << 8)

/* ESR bits (SDM 11.5.3). */
enum { ESR_SEND_ILLEGAL = 1u << 5, ESR_RECV_ILLEGAL = 1u << 6, ESR_ILLEGAL_REG = 1u << 7 };

/* Writable bits of each LVT entry (index LvtIndex): vector, delivery mode where the entry has
 * one, mask; the timer its mode; LINT0/1 polarity and trigger mode. */
static const uint32_t lvt_writable[LVT_COUNT] = {
    [LVT_CMCI] = 0x107ff, [LVT_TIMER] = 0x700ff, [LVT_THERMAL] = 0x107ff, [LVT_PC] = 0x107ff,
    [LVT_LINT0] = 0x1a7ff, [LVT_LINT1] = 0x1a7ff, [LVT_ERROR] = 0x100ff,
};
static const char *const lvt_names[LVT_COUNT] = { "LVTCMCI", "LVTT", "LVTTHMR", "LVTPC", "LVT0", "LVT1", "LVTERR" };

static int lvt_index(uint64_t off)
{
    if (off == APIC_LVT_CMCI)
        return LVT_CMCI;
    if (off >= APIC_LVTT && off <= APIC_LVTERR)
        return LVT_TIMER + (int)((off - APIC_LVTT) >> 4);
    return -1;
}

const char *lapic_reg_name(uint64_t off)
{
    static const struct { uint32_t off; const char *name; } names[] = {
        { APIC_ID, "ID" }, { APIC_VER, "VER" }, { APIC_TPR, "TPR" }, { APIC_APR, "APR" }, { APIC_PPR, "PPR" },
        { APIC_EOI, "EOI" }, { APIC_RRD, "RRD" }, { APIC_LDR, "LDR" }, { APIC_DFR, "DFR" }, { APIC_SVR, "SVR" },
        { APIC_ESR, "ESR" }, { APIC_ICR, "ICR" }, { APIC_ICR2, "ICR2" }, { APIC_TMICT, "TMICT" },
        { APIC_TMCCT, "TMCCT" }, { APIC_TDCR, "TDCR" },
    };
    static const char *const banks[3][8] = {
        { "ISR0", "ISR1", "ISR2", "ISR3", "ISR4", "ISR5", "ISR6", "ISR7" },
        { "TMR0", "TMR1", "TMR2", "TMR3", "TMR4", "TMR5", "TMR6", "TMR7" },
        { "IRR0", "IRR1", "IRR2", "IRR3", "IRR4", "IRR5", "IRR6", "IRR7" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        if (names[i].off == off)
            return names[i].name;
    int lvt = lvt_index(off);
    if (lvt >= 0)
        return lvt_names[lvt];
    if (off >= APIC_ISR && off < APIC_ESR)
        return banks[(off - APIC_ISR) >> 7][(off >> 4) & 7];
    return "reserved";
}

/* ------------------------------------------------------------------ vectors and priority */

static void vec_set(uint32_t *v, unsigned n) { v[n >> 5] |= 1u << (n & 31); }
static void vec_clear(uint32_t *v, unsigned n) { v[n >> 5] &= ~(1u << (n & 31)); }

static int vec_highest(const uint32_t *v)
{
    for (int i = 7; i >= 0; i--)
        if (v[i])
            return i * 32 + 31 - __builtin_clz(v[i]);
    return -1;
}

static uint32_t ppr(const Lapic *l)
{
    int isrv = vec_highest(l->isr);
    uint32_t isr_class = isrv < 0 ? 0 : (uint32_t)isrv & 0xf0;
    return (l->tpr & 0xf0) >= isr_class ? l->tpr & 0xff : isr_class;
}

static int deliverable(const Lapic *l)
{
    if (!(l->svr & SVR_ENABLE))
        return -1;
    int irrv = vec_highest(l->irr);
    if (irrv < 0 || ((uint32_t)irrv & 0xf0) <= (ppr(l) & 0xf0))
        return -1;
    return irrv;
}

/* LINT0 in ExtINT mode passes the 8259A's INTR through (SDM 11.5.1, delivery mode 111). */
static bool extint_pending(const Lapic *l)
{
    return l->lint[0] && l->extint_ack &&
           (l->lvt[LVT_LINT0] & (APIC_LVT_MASKED | APIC_DM_MASK)) == APIC_DM_EXTINT;
}

/* Keep the CPU's interrupt line in step; a newly deliverable interrupt on a running CPU is
 * taken at the next block boundary. */
static void update_irq(Lapic *l)
{
    irq_set(&l->intr, deliverable(l) >= 0 || extint_pending(l));
}

static void trace_lvt(Lapic *l, uint64_t pc, TraceKind kind, const char *what, uint64_t a, uint64_t b)
{
    trace_apic_fire(l->cpu->trace, kind, port_cycles(l->cpu), l->cpu->index, pc, what, a, b);
}

static void raise_error(Lapic *l, uint32_t bits, uint64_t pc);

/* A fixed interrupt into IRR; TMR records its trigger mode (SDM 11.8.4), for the EOI. */
static void accept_vector(Lapic *l, unsigned vector, bool level)
{
    if (!(l->svr & SVR_ENABLE)) {
        port_diag(l->cpu, port_pc(l->cpu), "apic-disabled",
                     "fixed interrupt 0x%x dropped: the APIC is software-disabled (SVR bit 8)", vector);
        return;
    }
    if (vector < 16) {
        raise_error(l, ESR_RECV_ILLEGAL, port_pc(l->cpu));
        return;
    }
    vec_set(l->irr, vector);
    if (level)
        vec_set(l->tmr, vector);
    else
        vec_clear(l->tmr, vector);
    update_irq(l);
}

void lapic_accept(Lapic *l, unsigned vector)
{
    accept_vector(l, vector, false);
}

int lapic_take_irq(Lapic *l)
{
    int v = deliverable(l);
    if (v < 0)      /* the APIC's own vectors first, then the 8259A's (QEMU's order too) */
        return extint_pending(l) ? l->extint_ack(l->extint_opaque) : -1;
    vec_clear(l->irr, (unsigned)v);
    vec_set(l->isr, (unsigned)v);
    update_irq(l);
    return v;
}

/* The EOI of a level-triggered vector (its TMR bit set) is broadcast to the I/O APICs, which
 * clear the Remote IRR of the entries with that vector (SDM 11.8.5). */
static void eoi(Lapic *l)
{
    int v = vec_highest(l->isr);
    if (v >= 0) {
        vec_clear(l->isr, (unsigned)v);
        if (l->tmr[v >> 5] >> (v & 31) & 1) {
            vec_clear(l->tmr, (unsigned)v);
            if (l->eoi_out.eoi)
                l->eoi_out.eoi(l->eoi_out.opaque, (unsigned)v);
        }
    }
    update_irq(l);
}

/* ------------------------------------------------------------------ LVT delivery */

static bool deliver(Lapic *l, uint32_t entry, bool fixed_only, uint64_t pc, const char *source)
{
    uint32_t mode = fixed_only ? APIC_DM_FIXED : entry & APIC_DM_MASK;
    switch (mode) {
    case APIC_DM_FIXED:
        if ((entry & APIC_VECTOR_MASK) < 16) {
            raise_error(l, ESR_RECV_ILLEGAL, pc);
            return false;
        }
        lapic_accept(l, entry & APIC_VECTOR_MASK);
        return true;
    case APIC_DM_NMI:
        irq_pulse(&l->nmi);
        return true;
    default:
        port_diag(l->cpu, pc, "unsupported", "%s: delivery mode %u is not modelled (fixed and NMI are)",
                     source, mode >> 8);
        return false;
    }
}

bool lapic_fire_lvt(Lapic *l, unsigned lvt, uint64_t pc)
{
    if (!l->present)
        return false;
    uint32_t entry = l->lvt[lvt];
    if (entry & APIC_LVT_MASKED) {
        trace_lvt(l, pc, TK_APIC_LOST, lvt_names[lvt], entry & APIC_VECTOR_MASK, entry);
        return false;
    }
    bool ok = deliver(l, entry, lvt == LVT_TIMER || lvt == LVT_ERROR, pc, lvt_names[lvt]);
    if (lvt == LVT_PC)
        l->lvt[LVT_PC] |= APIC_LVT_MASKED;     /* SDM 18.6.3.5.8 / 11.5.1: set on PMI delivery */
    trace_lvt(l, pc, TK_APIC_FIRE, lvt_names[lvt], entry & APIC_VECTOR_MASK, entry);
    return ok;
}

/* LINT0/LINT1 are pins with a level: ExtINT follows it; the other modes fire on its rising edge. */
static bool lint_set(Lapic *l, unsigned lvt, bool level)
{
    bool *pin = &l->lint[lvt - LVT_LINT0], rising = level && !*pin;
    *pin = level;
    if ((l->lvt[lvt] & APIC_DM_MASK) == APIC_DM_EXTINT) {
        update_irq(l);
        return !(l->lvt[lvt] & APIC_LVT_MASKED);
    }
    return rising && lapic_fire_lvt(l, lvt, port_pc(l->cpu));
}

static bool lvt_line_set(void *opaque, int lvt, bool level)
{
    Lapic *l = opaque;
    if (lvt == LVT_LINT0 || lvt == LVT_LINT1)
        return lint_set(l, (unsigned)lvt, level);
    return level && lapic_fire_lvt(l, (unsigned)lvt, port_pc(l->cpu));
}

IrqLine lapic_lvt_line(Lapic *l, unsigned lvt)
{
    return irq_line(lvt_line_set, l, (int)lvt);
}

static void raise_error(Lapic *l, uint32_t bits, uint64_t pc)
{
    bool fresh = (l->esr_pending & bits) != bits;
    l->esr_pending |= bits;
    port_diag(l->cpu, pc, "apic-error", "ESR bits 0x%x", bits);
    if (fresh)
        lapic_fire_lvt(l, LVT_ERROR, pc);
}

/* ------------------------------------------------------------------ timer */

static uint64_t divisor(const Lapic *l)
{
    unsigned code = (l->timer_dcr & 3) | ((l->timer_dcr >> 1) & 4);
    return code == 7 ? 1 : 2ull << code;
}

static uint64_t core_hz(const Lapic *l)
{
    return l->cpu->freq_hz;
}

/* Cycles for `ticks` timer ticks (rounded up: the tick that completes within that cycle). */
static uint64_t ticks_to_cycles(const Lapic *l, uint64_t ticks)
{
    unsigned __int128 n = (unsigned __int128)ticks * divisor(l) * core_hz(l);
    return (uint64_t)((n + l->bus_hz - 1) / l->bus_hz);
}

static uint64_t cycles_to_ticks(const Lapic *l, uint64_t cycles)
{
    return (uint64_t)((unsigned __int128)cycles * l->bus_hz / ((unsigned __int128)divisor(l) * core_hz(l)));
}

static uint32_t timer_mode(const Lapic *l)
{
    return l->lvt[LVT_TIMER] & APIC_TIMER_MODE_MASK;
}

static uint32_t current_count(const Lapic *l, uint64_t now)
{
    if (!l->timer_armed || timer_mode(l) == APIC_TIMER_TSC_DEADLINE)
        return 0;
    uint64_t elapsed = cycles_to_ticks(l, now - l->timer_base);
    return elapsed >= l->timer_start ? 0 : l->timer_start - (uint32_t)elapsed;
}

/* (Re)start counting down from `count` at cycle `now`. */
static void timer_start(Lapic *l, uint64_t now, uint32_t count)
{
    evq_remove(&l->timer_ev);
    l->timer_armed = count != 0;
    l->timer_start = count;
    l->timer_base = now;
    if (count)
        port_schedule(l->cpu, &l->timer_ev, now + ticks_to_cycles(l, count));
}

static void arm_deadline(Lapic *l)
{
    evq_remove(&l->timer_ev);
    if (timer_mode(l) != APIC_TIMER_TSC_DEADLINE || !l->tsc_deadline)
        return;
    uint64_t at = l->tsc_deadline - *l->tsc_offset;     /* the cycle at which TSC reaches it */
    uint64_t now = port_cycles(l->cpu);
    port_schedule(l->cpu, &l->timer_ev, at < now ? now : at);
}

static void timer_fire(Event *ev, void *opaque)
{
    Lapic *l = opaque;
    uint64_t due = ev->when;
    if (timer_mode(l) == APIC_TIMER_TSC_DEADLINE) {
        l->tsc_deadline = 0;                /* one shot: SDM 11.5.4.1 */
    } else if (timer_mode(l) == APIC_TIMER_PERIODIC) {
        timer_start(l, due, l->timer_icr);  /* from the exact expiry: no drift */
    } else {
        l->timer_armed = false;
    }
    lapic_fire_lvt(l, LVT_TIMER, port_pc(l->cpu));
}

uint64_t lapic_tsc_deadline(const Lapic *l)
{
    return timer_mode(l) == APIC_TIMER_TSC_DEADLINE ? l->tsc_deadline : 0;
}

void lapic_set_tsc_deadline(Lapic *l, uint64_t deadline)
{
    if (timer_mode(l) != APIC_TIMER_TSC_DEADLINE)
        return;                             /* ignored outside TSC-deadline mode */
    l->tsc_deadline = deadline;
    arm_deadline(l);
}

/* ------------------------------------------------------------------ IPIs */

static bool accepts_logical(const Lapic *t, uint32_t dest)
{
    if (t->x2apic)      /* cluster [31:16], one bit per member [15:0] (SDM 11.12.10.2) */
        return (dest >> 16) == (t->ldr >> 16) && (dest & t->ldr & 0xffff);
    if ((t->dfr >> 28) == 0xf)
        return (t->ldr >> 24) & dest;                               /* flat model */
    uint32_t ldr = t->ldr >> 24;                                    /* cluster model */
    return (dest >> 4) == (ldr >> 4) && (dest & ldr & 0xf);
}

static void deliver_ipi(Lapic *t, unsigned vector)
{
    if (vector) {
        lapic_accept(t, vector);
    } else {
        irq_pulse(&t->nmi);
    }
}

static void ipi_arrive(Event *ev, void *opaque)
{
    Lapic *t = opaque;
    uint32_t k = 0;
    while (k < t->nipi && t->ipi_at[k] <= port_cycles(t->cpu))
        deliver_ipi(t, t->ipi_vec[k++]);
    memmove(t->ipi_at, t->ipi_at + k, (t->nipi - k) * sizeof *t->ipi_at);
    memmove(t->ipi_vec, t->ipi_vec + k, (t->nipi - k) * sizeof *t->ipi_vec);
    t->nipi -= k;
    if (t->nipi)
        port_schedule(t->cpu, &t->ipi_ev, t->ipi_at[0]);
}

/* An IPI to t sent at cycle `at` of the sender: now if t's clock is there already (the IPI is
 * seen at t's next instruction boundary), else when t's clock gets there, never before. */
static void post_ipi(Lapic *t, unsigned vector, uint64_t at)
{
    if (port_cycles(t->cpu) >= at || t->nipi == LAPIC_IPI_QUEUE) {
        deliver_ipi(t, vector);
        return;
    }
    uint32_t k = t->nipi;
    while (k > 0 && t->ipi_at[k - 1] > at) {                    /* sorted by time, stable */
        t->ipi_at[k] = t->ipi_at[k - 1];
        t->ipi_vec[k] = t->ipi_vec[k - 1];
        k--;
    }
    t->ipi_at[k] = at;
    t->ipi_vec[k] = (uint8_t)vector;
    t->nipi++;
    port_schedule(t->cpu, &t->ipi_ev, t->ipi_at[0]);
}

/* INIT and STARTUP (SDM vol. 3A §11.6.1 table "ICR" and §9.4.4 "MP Initialization Example"):
 * an INIT with level de-assert (trigger mode level, level 0) only resynchronises the arbitration
 * IDs of the P6 family's APIC bus, nothing the model has: it does nothing, as on the Pentium 4
 * and later.  Linux sends it after each INIT assert (arch/x86/kernel/smpboot.c,
 * wakeup_secondary_cpu_via_init). */
static void send_start_ipi(Lapic *l, Lapic *t, uint64_t pc, uint64_t now)
{
    uint32_t lo = l->icr_lo;
    bool ok;
    if ((lo & APIC_DM_MASK) == APIC_DM_INIT) {
        if ((lo & APIC_TRIGGER_LEVEL) && !(lo & APIC_LEVEL_ASSERT))
            return;
        ok = l->bus.init && l->bus.init(l->bus.opaque, t, now);
    } else {
        ok = l->bus.startup && l->bus.startup(l->bus.opaque, t, lo & APIC_VECTOR_MASK, now);
    }
    if (!ok)
        port_diag(l->cpu, pc, "unsupported", "%s IPI to cpu%d, which does not start through INIT/SIPI "
                  "(the boot CPU, or a spin-table CPU): ignored",
                  (lo & APIC_DM_MASK) == APIC_DM_INIT ? "INIT" : "STARTUP", t->cpu->index);
}

/* Sent at `now`, the time of the instruction that wrote the ICR (not the end of its block). */
static void send_ipi(Lapic *l, uint64_t pc, uint64_t now)
{
    const CpuPort *c = l->cpu;
    uint32_t lo = l->icr_lo, mode = lo & APIC_DM_MASK, vector = lo & APIC_VECTOR_MASK;
    uint32_t dest = l->x2apic ? l->icr_hi : l->icr_hi >> 24, broadcast = l->x2apic ? 0xffffffffu : 0xff;
    unsigned shorthand = (lo >> 18) & 3;
    bool logical = lo & (1u << 11);
    if ((mode == APIC_DM_FIXED || mode == APIC_DM_LOWEST) && vector < 16) {
        raise_error(l, ESR_SEND_ILLEGAL, pc);
        return;
    }
    for (int i = 0, n = l->bus.count(l->bus.opaque); i < n; i++) {
        Lapic *t = l->bus.peer(l->bus.opaque, i);
        bool self = t == l, hit;
        switch (shorthand) {
        case 1: hit = self; break;
        case 2: hit = true; break;
        case 3: hit = !self; break;
        default:
            hit = logical ? accepts_logical(t, dest)
                          : dest == broadcast || dest == (t->x2apic ? t->id : t->id >> 24);
            break;
        }
        if (!hit)
            continue;
        trace_ipi(c->trace, now, c->index, pc, (uint64_t)t->cpu->index, mode >> 8, vector);
        if (mode == APIC_DM_INIT || mode == APIC_DM_STARTUP) {
            send_start_ipi(l, t, pc, now);
            continue;
        }
        if (!t->cpu->started(t->cpu->opaque)) {
            port_diag(c, pc, "ipi-to-off-cpu", "IPI to cpu%d, which has not been started: dropped", t->cpu->index);
            continue;
        }
        switch (mode) {
        case APIC_DM_FIXED:
        case APIC_DM_LOWEST:            /* one target per CPU here: lowest priority is fixed */
            post_ipi(t, vector, now);
            break;
        case APIC_DM_NMI:
            post_ipi(t, 0, now);
            break;
        default:
            port_diag(c, pc, "unsupported", "IPI delivery mode %u (SMI) is not modelled", mode >> 8);
            break;
        }
    }
}

/* ------------------------------------------------------------------ interrupt messages */

enum { MSG_MODE_SHIFT = 8 };        /* IrqMsg.mode is the ICR's and the LVT's bits [10:8] */

static bool msg_targets(const Lapic *t, const IrqMsg *m)
{
    if (m->logical)
        return accepts_logical(t, m->dest);
    uint32_t broadcast = t->x2apic ? 0xffffffffu : 0xff;
    return m->dest == broadcast || m->dest == (t->x2apic ? t->id : t->id >> 24);
}

/* Lowest priority: the target whose TPR class is lowest (SDM 11.6.2.4), the first on a tie. */
static Lapic *lowest_target(Lapic *l, const IrqMsg *m)
{
    Lapic *best = NULL;
    for (int i = 0, n = l->bus.count(l->bus.opaque); i < n; i++) {
        Lapic *t = l->bus.peer(l->bus.opaque, i);
        if (msg_targets(t, m) && t->cpu->started(t->cpu->opaque) && (!best || (t->tpr & 0xf0) < (best->tpr & 0xf0)))
            best = t;
    }
    return best;
}

static void deliver_msg(Lapic *t, const IrqMsg *m)
{
    switch ((uint32_t)m->mode << MSG_MODE_SHIFT) {
    case APIC_DM_FIXED:
    case APIC_DM_LOWEST:
        accept_vector(t, m->vector, m->level);
        break;
    case APIC_DM_NMI:
        irq_pulse(&t->nmi);
        break;
    default:
        port_diag(t->cpu, port_pc(t->cpu), "unsupported",
                  "interrupt message with delivery mode %u (SMI/INIT/ExtINT) is not modelled (fixed, lowest "
                  "priority and NMI are)", m->mode);
        break;
    }
}

void lapic_bus_deliver(Lapic *l, const IrqMsg *m)
{
    if (((uint32_t)m->mode << MSG_MODE_SHIFT) == APIC_DM_LOWEST) {
        Lapic *t = lowest_target(l, m);
        if (t)
            deliver_msg(t, m);
        return;
    }
    for (int i = 0, n = l->bus.count(l->bus.opaque); i < n; i++) {
        Lapic *t = l->bus.peer(l->bus.opaque, i);
        if (!msg_targets(t, m))
            continue;
        if (t->cpu->started(t->cpu->opaque))
            deliver_msg(t, m);
        else
            port_diag(l->cpu, port_pc(l->cpu), "ipi-to-off-cpu", "interrupt message (vector 0x%x) to cpu%d, which has "
                      "not been started: dropped", m->vector, t->cpu->index);
    }
}

/* ------------------------------------------------------------------ registers */

void lapic_init(Lapic *l, const CpuPort *c, LapicBus bus, IrqLine intr, IrqLine nmi, uint64_t bus_hz,
                const uint64_t *tsc_offset)
{
    memset(l, 0, sizeof *l);
    l->cpu = c;
    l->bus = bus;
    l->intr = intr;
    l->nmi = nmi;
    l->present = bus_hz != 0;
    l->bus_hz = bus_hz ? bus_hz : 1;
    l->tsc_offset = tsc_offset;
    event_init(&l->timer_ev, "apic-timer", timer_fire, l);
    event_init(&l->ipi_ev, "apic-ipi", ipi_arrive, l);
    lapic_reset(l);
}

/* Power-up state (SDM 11.4.7.1). */
void lapic_reset(Lapic *l)
{
    evq_remove(&l->timer_ev);
    evq_remove(&l->ipi_ev);
    l->nipi = 0;
    l->x2apic = false;
    l->id = (uint32_t)(l->cpu->hwid & 0xff) << 24;
    l->tpr = l->ldr = l->esr = l->esr_pending = l->icr_lo = l->icr_hi = 0;
    l->dfr = 0xffffffffu;
    l->svr = 0xff;
    for (int i = 0; i < LVT_COUNT; i++)
        l->lvt[i] = APIC_LVT_MASKED;
    memset(l->irr, 0, sizeof l->irr);
    memset(l->isr, 0, sizeof l->isr);
    memset(l->tmr, 0, sizeof l->tmr);
    l->timer_icr = l->timer_dcr = l->timer_start = 0;
    l->timer_armed = false;
    l->tsc_deadline = 0;
    if (l->virtual_wire) {
        l->lvt[LVT_LINT0] = APIC_DM_EXTINT;
        l->lvt[LVT_LINT1] = APIC_DM_NMI;
        update_irq(l);
    }
}

void lapic_set_virtual_wire(Lapic *l)
{
    l->virtual_wire = true;
    l->lvt[LVT_LINT0] = APIC_DM_EXTINT;
    l->lvt[LVT_LINT1] = APIC_DM_NMI;
    update_irq(l);
}

static bool reg_read(Lapic *l, uint64_t off, uint64_t now, uint32_t *v)
{
    int lvt = lvt_index(off);
    if (lvt >= 0) {
        *v = l->lvt[lvt];
        return true;
    }
    if (off >= APIC_ISR && off < APIC_ESR) {
        const uint32_t *bank = off < APIC_TMR ? l->isr : off < APIC_IRR ? l->tmr : l->irr;
        *v = bank[(off >> 4) & 7];
        return true;
    }
    switch (off) {
    case APIC_ID: *v = l->id; return true;
    case APIC_VER: *v = APIC_VERSION; return true;
    case APIC_TPR: *v = l->tpr; return true;
    case APIC_APR: *v = 0; return true;
    case APIC_PPR: *v = ppr(l); return true;
    case APIC_EOI: *v = 0; return true;
    case APIC_RRD: *v = 0; return true;
    case APIC_LDR: *v = l->ldr; return true;
    case APIC_DFR: *v = l->dfr; return true;
    case APIC_SVR: *v = l->svr; return true;
    case APIC_ESR: *v = l->esr; return true;
    case APIC_ICR: *v = l->icr_lo & ~APIC_SEND_PENDING; return true;    /* sent at once */
    case APIC_ICR2: *v = l->icr_hi; return true;
    case APIC_TMICT: *v = l->timer_icr; return true;
    case APIC_TMCCT: *v = current_count(l, now); return true;
    case APIC_TDCR: *v = l->timer_dcr; return true;
    default: return false;
    }
}

static void write_lvt(Lapic *l, int lvt, uint32_t val, uint64_t now)
{
    uint32_t old_mode = timer_mode(l);
    uint32_t v = val & lvt_writable[lvt];
    if (!(l->svr & SVR_ENABLE))
        v |= APIC_LVT_MASKED;               /* SDM 11.4.7.2: cannot be unmasked while disabled */
    if (lvt == LVT_TIMER && (v & APIC_TIMER_MODE_MASK) == (3u << 17))
        v &= ~APIC_TIMER_MODE_MASK;         /* reserved mode: treated as one-shot */
    l->lvt[lvt] = v;
    if (lvt == LVT_TIMER && timer_mode(l) != old_mode) {
        /* A mode change stops the timer (SDM 11.5.4.1 for TSC-deadline). */
        evq_remove(&l->timer_ev);
        l->timer_armed = false;
        l->tsc_deadline = 0;
        l->timer_icr = 0;
    }
    if (lvt == LVT_LINT0)
        update_irq(l);                      /* ExtINT unmasked or masked */
}

static bool reg_write(Lapic *l, uint64_t off, uint32_t v, uint64_t now, uint64_t pc)
{
    int lvt = lvt_index(off);
    if (lvt >= 0) {
        write_lvt(l, lvt, v, now);
        return true;
    }
    switch (off) {
    case APIC_ID: l->id = v & 0xff000000u; return true;
    case APIC_TPR:
        l->tpr = v & 0xff;
        update_irq(l);
        return true;
    case APIC_EOI:
        eoi(l);
        return true;
    case APIC_LDR: l->ldr = v & 0xff000000u; return true;
    case APIC_DFR: l->dfr = v | 0x0fffffffu; return true;
    case APIC_SVR:
        l->svr = v & 0x3ff;
        if (!(l->svr & SVR_ENABLE))
            for (int i = 0; i < LVT_COUNT; i++)
                l->lvt[i] |= APIC_LVT_MASKED;
        update_irq(l);
        return true;
    case APIC_ESR:
        l->esr = l->esr_pending;
        l->esr_pending = 0;
        return true;
    case APIC_ICR:
        l->icr_lo = v & 0x000ccfffu;
        send_ipi(l, pc, now);
        return true;
    case APIC_ICR2: l->icr_hi = v & 0xff000000u; return true;
    case APIC_TMICT:
        l->timer_icr = v;
        if (timer_mode(l) != APIC_TIMER_TSC_DEADLINE)
            timer_start(l, now, v);
        return true;
    case APIC_TDCR: {
        uint32_t count = current_count(l, now);
        l->timer_dcr = v & 0xb;
        if (l->timer_armed)
            timer_start(l, now, count);     /* keeps counting down from where it is */
        return true;
    }
    case APIC_VER: case APIC_APR: case APIC_PPR: case APIC_RRD: case APIC_TMCCT:
        return true;                        /* read-only: the write is ignored */
    default:
        if (off >= APIC_ISR && off < APIC_ESR)
            return true;
        return false;
    }
}

static bool check_access(Lapic *l, uint64_t pc, uint64_t off, unsigned size, bool write)
{
    if (size == 4 && (off & 0xf) == 0)
        return true;
    port_diag(l->cpu, pc, "apic-access",
                 "%s of %u bytes at APIC +0x%" PRIx64 ": the registers are 32-bit, 16-byte aligned; %s",
                 write ? "write" : "read", size, off, write ? "ignored" : "reads 0");
    return false;
}

static void trace_access(Lapic *l, uint64_t pc, uint64_t off, bool write, uint32_t old, uint32_t val, uint64_t now)
{
    Trace *t = l->cpu->trace;
    if (write)
        trace_apic_write(t, now, l->cpu->index, pc, lapic_reg_name(off), old, val);
    else
        trace_apic_read(t, now, l->cpu->index, pc, lapic_reg_name(off), val);
}

static bool mmio_enabled(Lapic *l, uint64_t pc, uint64_t off)
{
    if (!l->x2apic)
        return true;
    port_diag(l->cpu, pc, "apic-access",
                 "APIC +0x%" PRIx64 " through MMIO in x2APIC mode: the page is not decoded (reads 0)", off);
    return false;
}

uint32_t lapic_read(Lapic *l, uint64_t pc, uint64_t off, unsigned size)
{
    if (!check_access(l, pc, off, size, false) || !mmio_enabled(l, pc, off))
        return 0;
    uint64_t now = l->cpu->cycles_at(l->cpu->opaque, pc);
    uint32_t v = 0;
    if (!reg_read(l, off, now, &v))
        raise_error(l, ESR_ILLEGAL_REG, pc);
    trace_access(l, pc, off, false, 0, v, now);
    return v;
}

void lapic_write(Lapic *l, uint64_t pc, uint64_t off, unsigned size, uint32_t val)
{
    if (!check_access(l, pc, off, size, true) || !mmio_enabled(l, pc, off))
        return;
    uint64_t now = l->cpu->cycles_at(l->cpu->opaque, pc);
    uint32_t old = 0;
    reg_read(l, off, now, &old);
    if (!reg_write(l, off, val, now, pc))
        raise_error(l, ESR_ILLEGAL_REG, pc);
    uint32_t cur = old;
    if (!reg_read(l, off, now, &cur) || off == APIC_EOI)
        cur = val;
    trace_access(l, pc, off, true, old, cur, now);
}

/* ------------------------------------------------------------------ x2APIC */

enum { X2APIC_MSR = 0x800, X2APIC_SELF_IPI = 0x83f };

bool lapic_set_x2apic(Lapic *l, bool on)
{
    if (on == l->x2apic)
        return true;
    if (!on)
        return false;       /* x2APIC -> xAPIC needs a disable in between (SDM 11.12.5) */
    l->x2apic = true;
    l->id = (uint32_t)l->cpu->hwid;
    l->ldr = (l->id >> 4) << 16 | 1u << (l->id & 0xf);
    return true;
}

const char *lapic_x2apic_msr_name(uint32_t msr)
{
    static char buf[40];
    if (msr == X2APIC_SELF_IPI)
        return "IA32_X2APIC_SELF_IPI";
    if (msr < X2APIC_MSR || msr > 0x8ff)
        return NULL;
    const char *n = lapic_reg_name((uint64_t)(msr - X2APIC_MSR) << 4);
    snprintf(buf, sizeof buf, "IA32_X2APIC_%s", n);
    return buf;
}

static bool x2apic_has(uint64_t off)
{
    return off != APIC_DFR && off != APIC_ICR2 && off != APIC_APR && off != APIC_RRD &&
           strcmp(lapic_reg_name(off), "reserved") != 0;
}

static void trace_x2apic(Lapic *l, uint64_t pc, uint64_t off, bool write, uint64_t old, uint64_t val, uint64_t now)
{
    trace_access(l, pc, off, write, (uint32_t)old, (uint32_t)val, now);
}

bool lapic_x2apic_read(Lapic *l, uint32_t msr, uint64_t *v, uint64_t pc)
{
    uint64_t off = (uint64_t)(msr - X2APIC_MSR) << 4;
    if (!l->present || !l->x2apic || msr == X2APIC_SELF_IPI || off == APIC_EOI || !x2apic_has(off))
        return false;
    uint32_t lo = 0;
    uint64_t now = port_cycles(l->cpu);
    reg_read(l, off, now, &lo);
    *v = off == APIC_ICR ? (uint64_t)l->icr_hi << 32 | lo : lo;
    trace_x2apic(l, pc, off, false, 0, *v, now);
    return true;
}

bool lapic_x2apic_write(Lapic *l, uint32_t msr, uint64_t v, uint64_t pc)
{
    if (!l->present || !l->x2apic)
        return false;
    if (msr == X2APIC_SELF_IPI) {
        if (v & ~0xffull)
            return false;
        lapic_accept(l, (unsigned)v);
        return true;
    }
    uint64_t off = (uint64_t)(msr - X2APIC_MSR) << 4;
    bool read_only = off == APIC_ID || off == APIC_VER || off == APIC_LDR || off == APIC_PPR || off == APIC_TMCCT ||
                     (off >= APIC_ISR && off < APIC_ESR);
    if (!x2apic_has(off) || read_only || (off == APIC_EOI && v) || (off != APIC_ICR && (v >> 32)))
        return false;
    uint32_t old = 0;
    uint64_t now = l->cpu->cycles_at(l->cpu->opaque, pc);
    reg_read(l, off, now, &old);
    if (off == APIC_ICR)
        l->icr_hi = (uint32_t)(v >> 32);
    reg_write(l, off, (uint32_t)v, now, pc);
    trace_x2apic(l, pc, off, true, old, v, now);
    return true;
}

/* ------------------------------------------------------------------ checkpoints */

/* Raise when a field is added (base/state.h). */
#define LAPIC_STATE_VERSION 2u       /* 2: the LINT pins */

static const StateField lapic_fields[] = {
    STATE_BOOL(Lapic, x2apic), STATE_FIELD(Lapic, id), STATE_UPTO(Lapic, tpr, 0xff), STATE_FIELD(Lapic, ldr), STATE_FIELD(Lapic, dfr),
    STATE_UPTO(Lapic, svr, 0x3ff), STATE_FIELD(Lapic, esr), STATE_FIELD(Lapic, esr_pending),
    STATE_FIELD(Lapic, icr_lo), STATE_FIELD(Lapic, icr_hi), STATE_ARRAY(Lapic, lvt), STATE_ARRAY(Lapic, irr),
    STATE_ARRAY(Lapic, isr), STATE_ARRAY(Lapic, tmr), STATE_FIELD(Lapic, timer_icr),
    STATE_UPTO(Lapic, timer_dcr, 0xb), STATE_FIELD(Lapic, timer_start), STATE_FIELD(Lapic, timer_base),
    STATE_BOOL(Lapic, timer_armed), STATE_FIELD(Lapic, tsc_deadline),
    STATE_UPTO(Lapic, nipi, LAPIC_IPI_QUEUE), STATE_ARRAY(Lapic, ipi_at), STATE_ARRAY(Lapic, ipi_vec),
    STATE_ARRAY_UPTO_V(Lapic, lint, 1, 2),
};

void lapic_save(const Lapic *l, Blob *b)
{
    size_t at = blob_begin(b, "lapic", LAPIC_STATE_VERSION);
    blob_fields(b, l, lapic_fields, ARRAY_SIZE(lapic_fields));
    blob_event(b, &l->timer_ev);
    blob_event(b, &l->ipi_ev);
    blob_end(b, at);
}

bool lapic_load(Lapic *l, BlobReader *r)
{
    BrOuter outer;
    if (!br_begin(r, &outer, "lapic", LAPIC_STATE_VERSION) || !br_fields(r, l, lapic_fields, ARRAY_SIZE(lapic_fields)))
        return false;
    br_event(r, &l->timer_ev, l->cpu->events);
    br_event(r, &l->ipi_ev, l->cpu->events);
    return br_end(r, &outer);
}
