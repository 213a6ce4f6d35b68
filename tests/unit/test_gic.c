/* test_gic.c — the GIC at register level, GICv3 and GICv2: identification, the distributor's
 * and redistributors' register groups, routing, the CPU interface's acknowledge, priority mask,
 * preemption, binary point, running priority, EOImode and deactivation, SGIs between CPUs and
 * their timing, and the diagnostics of misuse.  The GIC is driven directly, with three CPUs that
 * are only ports: each has a clock the test sets, an event queue the test runs, and pins the
 * test reads. */
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/cycle_model.h"
#include "gic/gic.h"
#include "testutil.h"

#define NCPU 3
enum {
    GICD_CTLR = 0x0, GICD_TYPER = 0x4, GICD_IGROUPR = 0x80, GICD_ISENABLER = 0x100, GICD_ICENABLER = 0x180,
    GICD_ISPENDR = 0x200, GICD_ICPENDR = 0x280, GICD_ISACTIVER = 0x300, GICD_IPRIORITYR = 0x400,
    GICD_ITARGETSR = 0x800, GICD_ICFGR = 0xc00, GICD_SGIR = 0xf00, GICD_IROUTER = 0x6000, GICD_PIDR2 = 0xffe8,
    GICR_TYPER = 0x8, GICR_WAKER = 0x14, GICR_PIDR2 = 0xffe8, SGI_BASE = 0x10000, FRAME = 0x20000,
    GICC_CTLR = 0x0, GICC_PMR = 0x4, GICC_IAR = 0xc, GICC_EOIR = 0x10, GICC_HPPIR = 0x18,
};
/* ICC_*_EL1 as (CRn, CRm, op2) with op0 = 3, op1 = 0 */
enum { PMR, IAR1, EOIR1, HPPIR1, BPR1, CTLR, IGRPEN1, RPR, DIR, SGI1R, AP1R0, SRE };
static const unsigned icc[][3] = {
    [PMR] = { 4, 6, 0 }, [IAR1] = { 12, 12, 0 }, [EOIR1] = { 12, 12, 1 }, [HPPIR1] = { 12, 12, 2 },
    [BPR1] = { 12, 12, 3 }, [CTLR] = { 12, 12, 4 }, [IGRPEN1] = { 12, 12, 7 }, [RPR] = { 12, 11, 3 },
    [DIR] = { 12, 11, 1 }, [SGI1R] = { 12, 11, 5 }, [AP1R0] = { 12, 9, 0 }, [SRE] = { 12, 12, 5 },
};

typedef struct FakeCpu {
    CpuPort port;
    uint64_t cycles, idle, insns;
    EventQueue events;
    bool irq, fiq;
} FakeCpu;

static Gic gic;
static FakeCpu cpu[NCPU];
static Trace trace;
static char diags[16][32];
static int ndiags;

static bool sink_emit(TraceSink *s, const TraceEvent *ev, bool last)
{
    (void)s, (void)last;
    if (!strcmp(ev->kind, "diag") && ndiags < 16)
        snprintf(diags[ndiags++], sizeof diags[0], "%s", ev->f[0].s);
    return true;
}

static void sink_flush(TraceSink *s) { (void)s; }
static bool sink_close(TraceSink *s, Error *err) { (void)s, (void)err; return true; }
static TraceSink sink = { sink_emit, sink_flush, sink_close };

static bool pin(void *opaque, int n, bool level)
{
    FakeCpu *c = opaque;
    *(n ? &c->fiq : &c->irq) = level;
    return true;
}

static uint64_t f_cycles_at(void *opaque, uint64_t pc) { (void)pc; return ((FakeCpu *)opaque)->cycles; }
static void f_schedule(void *opaque, Event *ev, uint64_t when) { evq_insert(&((FakeCpu *)opaque)->events, ev, when, 0); }

static void make(GicVersion v)
{
    memset(cpu, 0, sizeof cpu);
    ndiags = 0;
    trace_init(&trace);
    trace_add_sink(&trace, &sink);
    gic_init(&gic, v, NCPU, &trace);
    for (int n = 0; n < NCPU; n++) {
        FakeCpu *c = &cpu[n];
        evq_init(&c->events);
        c->port = (CpuPort){ .opaque = c, .index = n, .hwid = (uint64_t)n, .trace = &trace, .cycles = &c->cycles,
                             .idle_cycles = &c->idle, .insns = &c->insns, .events = &c->events,
                             .cycles_at = f_cycles_at, .schedule = f_schedule };
        gic_connect_cpu(&gic, n, &c->port, irq_line(pin, c, 0), irq_line(pin, c, 1));
    }
}

static void teardown(void)
{
    for (int n = 0; n < NCPU; n++)
        evq_destroy(&cpu[n].events);
}

static uint64_t dr(int n, unsigned off) { return gic_mmio_read(&gic, GIC_REGION_DIST, n, 0, off, 4); }
static void dw(int n, unsigned off, uint64_t v) { gic_mmio_write(&gic, GIC_REGION_DIST, n, 0, off, 4, v); }
static uint64_t rr(int n, unsigned off) { return gic_mmio_read(&gic, GIC_REGION_REDIST, n, 0, off, 4); }
static void rw(int n, unsigned off, uint64_t v) { gic_mmio_write(&gic, GIC_REGION_REDIST, n, 0, off, 4, v); }
static uint64_t cr(int n, unsigned off) { return gic_mmio_read(&gic, GIC_REGION_CPUIF, n, 0, off, 4); }
static void cw(int n, unsigned off, uint64_t v) { gic_mmio_write(&gic, GIC_REGION_CPUIF, n, 0, off, 4, v); }

static uint64_t ir(int n, int r)
{
    uint64_t v = 0xdead;
    ck_assert(gic_icc_read(&gic, n, 0, 3, 0, icc[r][0], icc[r][1], icc[r][2], &v));
    return v;
}

static void iw(int n, int r, uint64_t v)
{
    ck_assert(gic_icc_write(&gic, n, 0, 3, 0, icc[r][0], icc[r][1], icc[r][2], v));
}

static bool diagnosed(const char *what)
{
    for (int i = 0; i < ndiags; i++)
        if (!strcmp(diags[i], what))
            return true;
    return false;
}

/* GICv3 with both groups enabled and every CPU's Group 1 on, PMR open. */
static void v3_ready(void)
{
    make(GIC_V3);
    dw(0, GICD_CTLR, 3);
    for (int n = 0; n < NCPU; n++) {
        iw(n, IGRPEN1, 1);
        iw(n, PMR, 0xf0);
    }
}

/* SPI `id`, Group 1, priority `prio`, routed to CPU `to`, enabled. */
static void spi(unsigned id, unsigned prio, int to)
{
    dw(0, GICD_IGROUPR + id / 32 * 4, dr(0, GICD_IGROUPR + id / 32 * 4) | 1u << (id % 32));
    gic_mmio_write(&gic, GIC_REGION_DIST, 0, 0, GICD_IPRIORITYR + id, 1, prio);
    gic_mmio_write(&gic, GIC_REGION_DIST, 0, 0, GICD_IROUTER + 8 * id, 8, (uint64_t)to);
    dw(0, GICD_ISENABLER + id / 32 * 4, 1u << (id % 32));
}

START_TEST(v3_identification_and_redistributor_frames)
{
    make(GIC_V3);
    ck_assert_uint_eq(dr(0, GICD_PIDR2) >> 4 & 0xf, 3);              /* ArchRev: GICv3 (Linux checks it) */
    ck_assert_uint_eq(dr(0, GICD_TYPER) & 0x1f, GIC_NR_IRQS / 32 - 1);
    ck_assert_uint_eq(dr(0, GICD_TYPER) >> 19 & 0x1f, 9);              /* 10 bits of INTID */
    ck_assert_uint_eq(dr(0, GICD_CTLR), 0x50);                         /* ARE and DS read as one */
    for (int k = 0; k < NCPU; k++) {
        uint64_t t = gic_mmio_read(&gic, GIC_REGION_REDIST, 0, 0, (uint64_t)k * FRAME + GICR_TYPER, 8);
        ck_assert_uint_eq(t >> 32, (uint64_t)k);                       /* affinity = MPIDR */
        ck_assert_uint_eq(t >> 8 & 0xffff, (uint64_t)k);                /* processor number */
        ck_assert_uint_eq(t >> 4 & 1, k == NCPU - 1);                   /* Last */
        ck_assert_uint_eq(rr(0, k * FRAME + GICR_PIDR2) >> 4 & 0xf, 3);
    }
    ck_assert_uint_eq(rr(1, FRAME + GICR_WAKER), 6);                  /* asleep out of reset */
    rw(1, FRAME + GICR_WAKER, 0);
    ck_assert_uint_eq(rr(1, FRAME + GICR_WAKER), 0);                  /* ChildrenAsleep follows */
    ck_assert_uint_eq(ir(0, SRE) & 1, 1);
    ck_assert_uint_eq(ir(0, CTLR) >> 8 & 7, GIC_PRIO_BITS - 1);
    dw(0, GICD_TYPER, 0);
    ck_assert(diagnosed("gic-read-only"));
    teardown();
}
END_TEST

START_TEST(v3_spi_is_routed_acknowledged_and_ended)
{
    v3_ready();
    spi(40, 0xa0, 1);
    IrqLine line = gic_spi_line(&gic, 40);
    irq_raise(&line);
    ck_assert(cpu[1].irq && !cpu[0].irq && !cpu[1].fiq);
    ck_assert_uint_eq(dr(0, GICD_ISPENDR + 4) >> 8 & 1, 1);
    ck_assert_uint_eq(ir(1, HPPIR1), 40);
    ck_assert_uint_eq(ir(1, IAR1), 40);
    ck_assert(!cpu[1].irq);
    ck_assert_uint_eq(dr(0, GICD_ISACTIVER + 4) >> 8 & 1, 1);
    ck_assert_uint_eq(ir(1, RPR), 0xa0);
    ck_assert_uint_eq(ir(1, IAR1), GIC_INTID_SPURIOUS);               /* nothing else pending */
    iw(1, EOIR1, 40);
    ck_assert_uint_eq(ir(1, RPR), 0xff);
    ck_assert(cpu[1].irq);                                            /* the level is still high */
    irq_lower(&line);
    ck_assert(!cpu[1].irq);
    gic_mmio_write(&gic, GIC_REGION_DIST, 0, 0, GICD_IROUTER + 8 * 40, 8, 2);
    dw(0, GICD_ISPENDR + 4, 1u << 8);                                 /* software pending, now to cpu2 */
    ck_assert(cpu[2].irq && !cpu[1].irq);
    dw(0, GICD_ICENABLER + 4, 1u << 8);
    ck_assert(!cpu[2].irq);
    teardown();
}
END_TEST

/* Pseudo-NMI as Linux uses it: normal interrupts at 0xa0, the NMI at 0x20, PMR 0x60 while
 * "interrupts are disabled": only the NMI is signalled; while it runs, nothing of a lower
 * priority preempts it. */
START_TEST(v3_priority_mask_preemption_and_binary_point)
{
    v3_ready();
    spi(40, 0xa0, 0);
    spi(41, 0x20, 0);
    iw(0, PMR, 0x60);
    IrqLine a = gic_spi_line(&gic, 40), b = gic_spi_line(&gic, 41);
    irq_raise(&a);
    ck_assert(!cpu[0].irq);                                           /* masked by PMR */
    irq_raise(&b);
    ck_assert(cpu[0].irq);
    ck_assert_uint_eq(ir(0, IAR1), 41);
    iw(0, PMR, 0xf0);
    ck_assert(!cpu[0].irq);                                           /* 0xa0 does not preempt 0x20 */
    ck_assert_uint_eq(ir(0, IAR1), GIC_INTID_SPURIOUS);
    irq_lower(&b);                                                    /* the handler quiets its source */
    iw(0, EOIR1, 41);
    ck_assert(cpu[0].irq);
    ck_assert_uint_eq(ir(0, IAR1), 40);
    iw(0, EOIR1, 40);
    /* binary point: with BPR1 = 7 only bit 7 is group priority, so 0x20 cannot preempt 0x40 */
    irq_lower(&a), irq_lower(&b);
    gic_mmio_write(&gic, GIC_REGION_DIST, 0, 0, GICD_IPRIORITYR + 40, 1, 0x40);
    iw(0, BPR1, 7);
    irq_raise(&a);
    ck_assert_uint_eq(ir(0, IAR1), 40);
    irq_raise(&b);
    ck_assert(!cpu[0].irq);
    ck_assert_uint_eq(ir(0, RPR), 0x00);                              /* 0x40's group priority */
    iw(0, EOIR1, 40);
    ck_assert_uint_eq(ir(0, IAR1), 41);
    iw(0, BPR1, 0);                                                   /* below the minimum: the minimum */
    ck_assert_uint_eq(ir(0, BPR1), 3);
    teardown();
}
END_TEST

START_TEST(v3_eoimode_splits_priority_drop_and_deactivation)
{
    v3_ready();
    spi(50, 0x80, 0);
    iw(0, CTLR, 2);                                                   /* EOImode */
    dw(0, GICD_ICFGR + 50 / 16 * 4, 2u << (2 * (50 % 16)));             /* edge-triggered */
    IrqLine l = gic_spi_line(&gic, 50);
    irq_pulse(&l);
    ck_assert_uint_eq(ir(0, IAR1), 50);
    iw(0, EOIR1, 50);
    ck_assert_uint_eq(ir(0, RPR), 0xff);
    ck_assert_uint_eq(dr(0, GICD_ISACTIVER + 4) >> 18 & 1, 1);        /* still active */
    irq_pulse(&l);
    ck_assert(!cpu[0].irq);                                           /* active and pending: not signalled */
    iw(0, DIR, 50);
    ck_assert(cpu[0].irq);
    iw(0, EOIR1, 50);                                                 /* nothing active */
    ck_assert(diagnosed("gic-eoi"));
    iw(0, CTLR, 0);
    iw(0, DIR, 50);
    ck_assert(diagnosed("gic-dir"));
    teardown();
}
END_TEST

START_TEST(v3_priority_bits_and_bad_accesses)
{
    v3_ready();
    gic_mmio_write(&gic, GIC_REGION_DIST, 0, 0, GICD_IPRIORITYR + 40, 1, 0xa7);
    ck_assert_uint_eq(gic_mmio_read(&gic, GIC_REGION_DIST, 0, 0, GICD_IPRIORITYR + 40, 1), 0xa0);
    ck_assert(diagnosed("gic-priority-bits"));
    ndiags = 0;
    gic_mmio_write(&gic, GIC_REGION_DIST, 0, 0, GICD_ISENABLER, 2, 1);
    ck_assert(diagnosed("gic-access"));
    ck_assert_uint_eq(dr(0, 0x9000), 0);
    ck_assert(diagnosed("gic-reserved"));
    dw(0, GICD_ISENABLER, 0xffffffff);                                /* INTIDs 0..31 live in the redistributor */
    ck_assert_uint_eq(rr(0, SGI_BASE + GICD_ISENABLER), 0);
    rw(0, SGI_BASE + GICD_ISENABLER, 1u << 23);
    ck_assert_uint_eq(rr(0, SGI_BASE + GICD_ISENABLER), 1u << 23);
    uint64_t v;
    ck_assert(!gic_icc_read(&gic, 0, 0, 3, 0, 12, 12, 1, &v));         /* ICC_EOIR1_EL1 is write-only */
    ck_assert(!gic_icc_write(&gic, 0, 0, 3, 0, 12, 11, 3, 0));         /* ICC_RPR_EL1 is read-only */
    ck_assert(!gic_icc_read(&gic, 0, 0, 3, 0, 12, 9, 1, &v));          /* AP1R1: not with 5 priority bits */
    teardown();
}
END_TEST

/* A PPI (the timer's 30) reaches only its CPU; an SGI arrives when the target's clock reaches the
 * sender's time, never earlier, and only as the group the target configures. */
START_TEST(v3_ppis_and_sgis_between_cpus)
{
    v3_ready();
    for (int n = 0; n < NCPU; n++) {
        rw(0, n * FRAME + SGI_BASE + GICD_IGROUPR, 0xffffffff);
        rw(0, n * FRAME + SGI_BASE + GICD_ISENABLER, 0xffffffff);
    }
    IrqLine timer = gic_ppi_line(&gic, 2, GIC_PPI_PTIMER);
    irq_raise(&timer);
    ck_assert(cpu[2].irq && !cpu[0].irq && !cpu[1].irq);
    ck_assert_uint_eq(ir(2, IAR1), GIC_PPI_PTIMER);
    cpu[0].cycles = 1000;
    cpu[1].cycles = 400;
    cpu[2].cycles = 2000;
    iw(0, SGI1R, 5ull << 24 | 1u << 1 | 1u << 2);                     /* SGI 5 to Aff0 1 and 2 */
    ck_assert_uint_eq(rr(0, 2 * FRAME + SGI_BASE + GICD_ISPENDR) >> 5 & 1, 1);   /* cpu2 is past 1000 */
    ck_assert(!cpu[1].irq);
    cpu[1].cycles = 999;
    evq_run_due(&cpu[1].events, 999);
    ck_assert(!cpu[1].irq);
    cpu[1].cycles = 1000;
    evq_run_due(&cpu[1].events, 1000);
    ck_assert(cpu[1].irq);
    ck_assert_uint_eq(ir(1, IAR1), 5);
    iw(1, SGI1R, 1ull << 40 | 3ull << 24);                            /* IRM: everyone else */
    ck_assert_uint_eq(rr(0, SGI_BASE + GICD_ISPENDR) >> 3 & 1, 1);
    ck_assert_uint_eq(rr(0, FRAME + SGI_BASE + GICD_ISPENDR) >> 3 & 1, 0);
    rw(0, SGI_BASE + GICD_IGROUPR, 0);                                /* cpu0's SGIs are Group 0 now */
    iw(1, SGI1R, 7ull << 24 | 1);
    ck_assert(diagnosed("gic-sgi-group"));
    teardown();
}
END_TEST

/* GICv2: banked private registers, ITARGETSR, GICD_SGIR with the source in IAR, the GICC page. */
START_TEST(v2_targets_sgir_and_cpu_interface)
{
    make(GIC_V2);
    ck_assert_uint_eq(dr(0, 0xfe8) >> 4 & 0xf, 2);
    ck_assert_uint_eq(dr(0, GICD_TYPER) >> 5 & 7, NCPU - 1);
    dw(0, GICD_CTLR, 1);
    for (int n = 0; n < NCPU; n++) {
        cw(n, GICC_CTLR, 1);
        cw(n, GICC_PMR, 0xf0);
    }
    ck_assert_uint_eq(gic_mmio_read(&gic, GIC_REGION_DIST, 1, 0, GICD_ITARGETSR, 1), 2);   /* banked: "me" */
    gic_mmio_write(&gic, GIC_REGION_DIST, 0, 0, GICD_ITARGETSR + 40, 1, 4);
    dw(0, GICD_ISENABLER + 4, 1u << 8);
    IrqLine l = gic_spi_line(&gic, 40);
    irq_raise(&l);
    ck_assert(cpu[2].irq && !cpu[0].irq);                             /* Group 0 as IRQ without FIQEn */
    ck_assert_uint_eq(cr(2, GICC_IAR), 40);
    cw(2, GICC_EOIR, 40);
    irq_lower(&l);
    dw(0, GICD_SGIR, 2u << 16 | 3);                                   /* SGI 3 from cpu0 to cpu1 */
    dw(2, GICD_SGIR, 2u << 16 | 3);                                   /* and from cpu2 */
    ck_assert(cpu[1].irq);
    ck_assert_uint_eq(cr(1, GICC_HPPIR), 3);
    ck_assert_uint_eq(cr(1, GICC_IAR), 3);                            /* source cpu0 first */
    cw(1, GICC_EOIR, 3);
    ck_assert_uint_eq(cr(1, GICC_IAR), 3 | 2 << 10);                  /* then cpu2 */
    cw(1, GICC_EOIR, 3 | 2 << 10);
    ck_assert(!cpu[1].irq);
    cw(0, GICC_IAR, 0);
    ck_assert(diagnosed("gic-read-only"));
    uint64_t v;
    ck_assert(!gic_icc_read(&gic, 0, 0, 3, 0, 12, 12, 0, &v));         /* no system register interface */
    teardown();
}
END_TEST

START_TEST(state_round_trips_through_a_checkpoint)
{
    v3_ready();
    spi(40, 0xa0, 1);
    IrqLine line = gic_spi_line(&gic, 40);
    irq_raise(&line);
    ck_assert_uint_eq(ir(1, IAR1), 40);
    cpu[0].cycles = 500;
    rw(0, 2 * FRAME + SGI_BASE + GICD_IGROUPR, 0xffff);
    iw(0, SGI1R, 2ull << 24 | 1u << 2);                               /* in flight to cpu2 */
    Blob b;
    blob_init(&b);
    gic_save(&gic, &b);
    Gic saved = gic;
    teardown();
    make(GIC_V3);
    BlobReader r;
    br_init(&r, b.data, b.len, 0);
    ck_assert(gic_load(&gic, &r));
    ck_assert_uint_eq(ir(1, RPR), 0xa0);
    ck_assert_uint_eq(gic.cpu[2].nsgi, 1);
    ck_assert(memcmp(gic.spi, saved.spi, sizeof gic.spi) == 0);
    ck_assert(event_pending(&gic.cpu[2].sgi_ev));
    blob_free(&b);
    teardown();
}
END_TEST

/* ------------------------------------------------------------------ on a CPU */

static uint64_t irq_cycle[4];
static int nirq;

static bool irq_sink_emit(TraceSink *s, const TraceEvent *ev, bool last)
{
    (void)s, (void)last;
    if (!strcmp(ev->kind, "interrupt") && nirq < 4)
        irq_cycle[nirq++] = ev->cycle;
    return true;
}

static TraceSink irq_sink = { irq_sink_emit, sink_flush, sink_close };

/* The first CPU cycle at which the counter (62.5 MHz against the 1 GHz CPU clock: 16 cycles a
 * tick) reaches cval. */
static uint64_t fire_cycle(uint64_t cval)
{
    return cval * 16;
}

/* tests/unit/blobs/arm64_gic_timer.s: the timer's interrupt is taken on the first instruction
 * boundary at or after the cycle its counter reaches CVAL (into a busy loop), and wakes a WFI
 * on that very cycle; the handler's IAR reads INTID 30 with the
 * running priority 0xa0 and a second IAR is spurious. */
START_TEST(timer_interrupts_arrive_on_their_exact_cycle)
{
    Machine *mm = tm_create(ARCH_ARM64, blob_arm64_gic_timer, blob_arm64_gic_timer_len, 0x40080000, 0x40080000,
                            100000, 1);
    nirq = 0;
    trace_add_sink(&mm->trace, &irq_sink);
    ck_assert_int_eq(tm_run(mm), 0);
    ck_assert_int_eq(nirq, 3);
    uint64_t entry = mm->cl.cpus[0]->ctab->cost[IC_TRAP];        /* the trace's time is after the entry */
    for (int k = 0; k < 2; k++) {
        uint64_t id = tm_read(mm, 0x40100000 + 24 * k, 8), cnt = tm_read(mm, 0x40100008 + 24 * k, 8),
                 cval = tm_read(mm, 0x40100010 + 24 * k, 8);
        ck_assert_uint_eq(id, GIC_PPI_PTIMER);
        ck_assert_uint_ge(cnt, cval);
        ck_assert_uint_le(cnt - cval, 1);
        ck_assert_uint_ge(irq_cycle[k] - entry, fire_cycle(cval));
        /* the loop's instructions take at most 16 cycles (a taken branch's refill is the most) */
        ck_assert_uint_lt(irq_cycle[k] - entry, fire_cycle(cval) + (k == 0 ? 16 : 1));   /* WFI: exactly */
    }
    ck_assert_uint_gt(tm_read(mm, 0x40100080, 8), 100);              /* the loop ran */
    ck_assert_uint_eq(tm_read(mm, 0x40100088, 8), 0xa0);
    ck_assert_uint_eq(tm_read(mm, 0x40100090, 8), GIC_INTID_SPURIOUS);
    /* the third: a WFI with IRQs masked wakes when the timer fires, and the IRQ is taken at the
     * unmasking */
    uint64_t cval3 = tm_read(mm, 0x40100040, 8), woke = tm_read(mm, 0x40100098, 8);
    ck_assert_uint_eq(tm_read(mm, 0x40100030, 8), GIC_PPI_PTIMER);
    ck_assert_uint_ge(woke, cval3);
    ck_assert_uint_le(woke - cval3, 1);
    tm_destroy(mm);
}
END_TEST

static uint64_t ovf_pc, irq_from[4];
static int nfrom;

static bool nmi_sink_emit(TraceSink *s, const TraceEvent *ev, bool last)
{
    (void)s, (void)last;
    if (!strcmp(ev->kind, "pmu-overflow"))
        ovf_pc = ev->f[0].u;
    if (!strcmp(ev->kind, "interrupt") && nfrom < 4)
        irq_from[nfrom++] = ev->f[2].u;
    return true;
}

static TraceSink nmi_sink = { nmi_sink_emit, sink_flush, sink_close };

/* tests/unit/blobs/arm64_gic_nmi.s: Linux's pseudo-NMI.  With ICC_PMR_EL1 at 0x60 the timer (0xa0)
 * stays pending while the PMU's overflow (0x20) is taken, on the instruction after the one that
 * overflowed the counter; in its handler the running priority is 0x20 and HPPIR names the masked
 * timer, which is taken right after the MSR that opens PMR. */
START_TEST(pmu_overflow_is_a_pseudo_nmi_through_priority_masking)
{
    Machine *mm = tm_create(ARCH_ARM64, blob_arm64_gic_nmi, blob_arm64_gic_nmi_len, 0x40080000, 0x40080000, 100000, 1);
    nfrom = 0;
    ovf_pc = 0;
    trace_add_sink(&mm->trace, &nmi_sink);
    ck_assert_int_eq(tm_run(mm), 0);
    ck_assert_int_eq(nfrom, 2);
    ck_assert_uint_eq(tm_read(mm, 0x40100000, 8), GIC_PPI_PMU);
    ck_assert_uint_eq(tm_read(mm, 0x40100008, 8), 0x20);
    ck_assert_uint_eq(tm_read(mm, 0x40100010, 8), GIC_PPI_PTIMER);
    ck_assert_uint_eq(tm_read(mm, 0x40100018, 8), GIC_PPI_PTIMER);
    ck_assert_uint_ne(ovf_pc, 0);
    ck_assert_uint_eq(irq_from[0], ovf_pc + 4);                     /* the exact instruction */
    ck_assert_uint_eq(tm_read(mm, 0x40100028, 8), irq_from[1]);
    ck_assert_uint_eq(irq_from[1], tm_read(mm, 0x40100030, 8));     /* right after the PMR write */
    tm_destroy(mm);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gic");
    TCase *t = tcase_create("gic");
    tcase_add_test(t, v3_identification_and_redistributor_frames);
    tcase_add_test(t, v3_spi_is_routed_acknowledged_and_ended);
    tcase_add_test(t, v3_priority_mask_preemption_and_binary_point);
    tcase_add_test(t, v3_eoimode_splits_priority_drop_and_deactivation);
    tcase_add_test(t, v3_priority_bits_and_bad_accesses);
    tcase_add_test(t, v3_ppis_and_sgis_between_cpus);
    tcase_add_test(t, v2_targets_sgir_and_cpu_interface);
    tcase_add_test(t, state_round_trips_through_a_checkpoint);
    suite_add_tcase(s, t);
    TCase *cpu_case = tcase_create("cpu");
    tcase_add_test(cpu_case, timer_interrupts_arrive_on_their_exact_cycle);
    tcase_add_test(cpu_case, pmu_overflow_is_a_pseudo_nmi_through_priority_masking);
    suite_add_tcase(s, cpu_case);
    return testutil_run(s);
}
