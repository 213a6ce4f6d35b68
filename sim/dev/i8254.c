/* i8254.c — the PC's programmable interval timer (Intel 8254 datasheet, order 231164) and port
 * 0x61, the NMI status and control register that holds channel 2's gate and reads its OUT
 * (Intel ICH datasheets, "NMI_SC"; Linux arch/x86/kernel/i8253.c, drivers/clocksource/i8253.c
 * and the PIT calibrations of arch/x86/kernel/tsc.c drive them).
 *
 * Ports: two windows of the node's reg (0x40 and 0x61 on a PC):
 *   window 0 +0..+2 (0x40-0x42)  channel 0..2: write the count, read the count / latch / status
 *            +3     (0x43)       control word: [7:6] channel (3: read-back), [5:4] access (0
 *                                latch the count, 1 LSB, 2 MSB, 3 LSB then MSB), [3:1] mode 0..5
 *                                (6 and 7 are 2 and 3), [0] BCD.  Read-back: [5] 0 latches the
 *                                counts, [4] 0 latches the status, [3:1] channels 2..0.
 *                                Status: [7] OUT, [6] null count, [5:0] the control word's.
 *   window 1 +0     (0x61)       [0] channel 2's gate, [1] speaker data enable, [3:2] IOCHK and
 *                                SERR NMI enables (kept), [4] refresh toggle (RO, flips every
 *                                18 ticks: 15.085 µs), [5] channel 2's OUT (RO), [7:6] NMI
 *                                sources (RO, none: 0)
 * Time: the input clock is Linux's PIT_TICK_RATE, 1193182 Hz, expressed exactly in CPU cycles:
 * tick k is at cycle ceil(k * cpu_hz / 1193182) of the machine's clock (cycle 0 a tick), so a
 * count runs for exactly the same cycles wherever it starts, with no rounding drift.  A count
 * written at tick t is loaded at tick t + 1 and decrements at each tick after (the datasheet's
 * "N + 1 CLK pulses" of mode 0).  Modes: 0 interrupt on terminal count, 1 hardware one-shot
 * (gate-triggered), 2 rate generator (OUT low for the tick at count 1), 3 square wave (high for
 * ceil(N/2) ticks, low for floor(N/2)), 4 software strobe, 5 hardware strobe (OUT low for the
 * tick at count 0); count 0 is 65536 (10000 in BCD).  Gate: modes 0 and 4 pause while it is low,
 * modes 2 and 3 stop with OUT high and reload on its rising edge, modes 1 and 5 start on it;
 * channels 0 and 1 have their gates high.  A count written to a running channel in mode 2 or 3
 * takes effect at once rather than at the end of the period (a simplification: Linux writes the
 * control word first).  Channel 0's OUT is the interrupt line (entry 0 of `interrupts`: ISA
 * IRQ 0, the I/O APIC's GSI 2): it changes on the exact cycle of its tick, as an event on the
 * clock of the CPU that programmed it.
 */
#include <stdlib.h>

#include "base/state.h"
#include "sim/dev/device.h"

#define PIT_HZ 1193182ull           /* Linux's PIT_TICK_RATE: 14.31818 MHz / 12 */
#define PIT_CHANNELS 3
#define REFRESH_TICKS 18            /* ICH NMI_SC bit 4: 15.085 µs */

enum { PIT_WIN = 0, PORT61_WIN = 1 };
enum { PIT_CTRL = 3, PIT_PORTS = 4 };
enum { CW_CHANNEL_SHIFT = 6, CW_READBACK = 3, CW_RW_SHIFT = 4, CW_MODE_SHIFT = 1, CW_BCD = 1 };
enum { RW_LATCH = 0, RW_LSB = 1, RW_MSB = 2, RW_WORD = 3 };
enum { RB_NO_COUNT = 0x20, RB_NO_STATUS = 0x10 };
enum { ST_OUT = 0x80, ST_NULL = 0x40, ST_CW = 0x3f };
enum { P61_GATE2 = 0x01, P61_SPEAKER = 0x02, P61_WRITABLE = 0x0f, P61_REFRESH = 0x10, P61_OUT2 = 0x20 };

typedef struct Chan {
    uint8_t cw;                     /* the control word's [5:0]: access, mode, BCD */
    uint8_t mode;
    uint16_t cr;                    /* the count register as written */
    bool wr_msb;                    /* access 3: the MSB is written next */
    bool rd_msb;                    /* access 3: the MSB is read next */
    bool latched, status_latched;
    uint16_t ol;                    /* the output latch */
    uint8_t status;
    bool gate;
    bool armed;                     /* a count is loaded (modes 1, 5: triggered) */
    bool waiting;                   /* modes 1, 5: a count waits for the gate's rising edge */
    bool held;                      /* the gate holds the count: elapsed ticks `held_d` */
    bool null_count;
    bool out_level;                 /* the level last put on the interrupt line (channel 0) */
    uint32_t n;                     /* the count loaded, 1..65536 */
    uint64_t start;                 /* the tick at which it was loaded */
    uint64_t held_d;
    Event ev;                       /* channel 0: its OUT's next change */
} Chan;

typedef struct I8254 {
    Device d;
    IrqLine irq;
    int cpu;                        /* whose clock channel 0's events run on */
    uint8_t p61;                    /* port 0x61's writable bits */
    Chan ch[PIT_CHANNELS];
} I8254;

/* ------------------------------------------------------------------ time */

static uint64_t tick_at(const I8254 *p, uint64_t cycle)
{
    return muldiv64(cycle, PIT_HZ, p->d.host->cpu_hz);
}

static uint64_t cycle_of_tick(const I8254 *p, uint64_t tick)
{
    uint64_t hz = p->d.host->cpu_hz;
    return (uint64_t)(((unsigned __int128)tick * hz + PIT_HZ - 1) / PIT_HZ);
}

static uint64_t now_of(const I8254 *p, Cpu *c)
{
    const DeviceHost *h = p->d.host;
    return c ? h->now(h->opaque, c) : h->cpu_cycles(h->opaque, p->cpu);
}

/* Decrements since the load at `tick`; -1 before the load. */
static int64_t elapsed(const Chan *ch, uint64_t tick)
{
    if (ch->held)
        return (int64_t)ch->held_d;
    return tick < ch->start ? -1 : (int64_t)(tick - ch->start);
}

/* ------------------------------------------------------------------ the modes */

static bool out_at(const Chan *ch, int64_t d)
{
    uint64_t n = ch->n;
    switch (ch->mode) {
    case 0: return ch->armed && d >= (int64_t)n;
    case 1: return !ch->armed || d < 0 || d >= (int64_t)n;
    case 2: return !ch->armed || !ch->gate || d < 0 || (uint64_t)d % n != n - 1;
    case 3: return !ch->armed || !ch->gate || d < 0 || (uint64_t)d % n < (n + 1) / 2;
    default: return !ch->armed || d != (int64_t)n;         /* 4, 5 */
    }
}

/* The counting element at d (as read): modes 2 and 3 reload, the others wrap at 0. */
static uint32_t count_at(const Chan *ch, int64_t d)
{
    uint64_t n = ch->n;
    if (!ch->armed || d < 0)
        return ch->cr;
    if (ch->mode == 2)
        return (uint32_t)(n - (uint64_t)d % n);
    if (ch->mode == 3) {
        uint64_t phase = (uint64_t)d % n, hi = (n + 1) / 2;
        return (uint32_t)(phase < hi ? n - 2 * phase : n - 2 * (phase - hi)) & ~1u;
    }
    return (uint32_t)((n - (uint64_t)d) & 0xffff);
}

/* The next d > now_d (now_d may be -1) at which OUT changes; UINT64_MAX when it never does. */
static uint64_t next_change(const Chan *ch, int64_t now_d)
{
    uint64_t n = ch->n, d = now_d < 0 ? 0 : (uint64_t)now_d, phase = d % n, hi = (n + 1) / 2;
    if (!ch->armed || ch->held || ((ch->mode == 2 || ch->mode == 3) && !ch->gate))
        return UINT64_MAX;
    switch (ch->mode) {
    case 0: case 1: return d < n ? n : UINT64_MAX;
    case 2: return n == 1 ? UINT64_MAX : phase < n - 1 ? d - phase + n - 1 : d + 1;
    case 3: return hi == n ? UINT64_MAX : phase < hi ? d - phase + hi : d - phase + n;
    default: return d < n ? n : d == n ? n + 1 : UINT64_MAX;
    }
}

static uint16_t to_bcd(uint32_t v)
{
    return (uint16_t)((v / 1000 % 10) << 12 | (v / 100 % 10) << 8 | (v / 10 % 10) << 4 | v % 10);
}

static uint32_t from_bcd(uint16_t v)
{
    return (v >> 12 & 0xf) * 1000u + (v >> 8 & 0xf) * 100u + (v >> 4 & 0xf) * 10u + (v & 0xf);
}

static uint16_t read_count(const Chan *ch, uint64_t tick)
{
    uint32_t c = count_at(ch, elapsed(ch, tick));
    return ch->cw & CW_BCD ? to_bcd(c % 10000) : (uint16_t)c;
}

/* ------------------------------------------------------------------ channel 0's line */

static void line_update(I8254 *p, uint64_t cycle)
{
    Chan *ch = &p->ch[0];
    uint64_t tick = tick_at(p, cycle);
    int64_t d = elapsed(ch, tick);
    bool out = out_at(ch, d);
    if (out != ch->out_level) {
        ch->out_level = out;
        irq_set(&p->irq, out);
    }
    evq_remove(&ch->ev);
    uint64_t next = next_change(ch, d);
    if (next != UINT64_MAX) {
        const DeviceHost *h = p->d.host;
        h->cpu_schedule(h->opaque, p->cpu, &ch->ev, cycle_of_tick(p, ch->start + next));
    }
}

static void chan0_fire(Event *ev, void *opaque)
{
    I8254 *p = opaque;
    line_update(p, ev->when);
}

/* ------------------------------------------------------------------ programming */

static void load(Chan *ch, uint64_t tick)
{
    uint32_t n = ch->cw & CW_BCD ? from_bcd(ch->cr) : ch->cr;
    ch->n = n ? n : ch->cw & CW_BCD ? 10000 : 65536;
    ch->null_count = false;
    if (ch->mode == 1 || ch->mode == 5) {
        ch->waiting = true;             /* counts from the gate's next rising edge */
        return;
    }
    ch->armed = true;
    ch->start = tick + 1;
    ch->held = !ch->gate;               /* counts when the gate rises */
    ch->held_d = 0;
}

static void control(Chan *ch, uint8_t cw)
{
    ch->cw = cw & ST_CW;
    ch->mode = (cw >> CW_MODE_SHIFT) & 7;
    if (ch->mode > 5)
        ch->mode -= 4;
    ch->wr_msb = ch->rd_msb = false;
    ch->armed = ch->waiting = ch->held = false;
    ch->null_count = true;
}

static void latch_count(Chan *ch, uint64_t tick)
{
    if (!ch->latched) {
        ch->ol = read_count(ch, tick);
        ch->latched = true;
        ch->rd_msb = false;
    }
}

static void latch_status(Chan *ch, uint64_t tick)
{
    if (!ch->status_latched) {
        ch->status = (uint8_t)((out_at(ch, elapsed(ch, tick)) ? ST_OUT : 0) | (ch->null_count ? ST_NULL : 0) | ch->cw);
        ch->status_latched = true;
    }
}

static void ctrl_write(I8254 *p, uint8_t v, uint64_t tick)
{
    unsigned sel = v >> CW_CHANNEL_SHIFT;
    if (sel == CW_READBACK) {
        for (unsigned i = 0; i < PIT_CHANNELS; i++) {
            if (!(v >> (i + 1) & 1))
                continue;
            if (!(v & RB_NO_COUNT))
                latch_count(&p->ch[i], tick);
            if (!(v & RB_NO_STATUS))
                latch_status(&p->ch[i], tick);
        }
        return;
    }
    if (((v >> CW_RW_SHIFT) & 3) == RW_LATCH)
        latch_count(&p->ch[sel], tick);
    else
        control(&p->ch[sel], v);
}

static void count_write(Chan *ch, uint8_t v, uint64_t tick)
{
    switch ((ch->cw >> CW_RW_SHIFT) & 3) {
    case RW_LSB: ch->cr = v; break;
    case RW_MSB: ch->cr = (uint16_t)(v << 8); break;
    default:
        if (!ch->wr_msb) {
            ch->cr = (ch->cr & 0xff00) | v;
            ch->wr_msb = true;
            if (ch->mode == 0)
                ch->armed = false;      /* the first byte stops the count (datasheet, mode 0) */
            return;
        }
        ch->cr = (uint16_t)((ch->cr & 0xff) | v << 8);
        ch->wr_msb = false;
        break;
    }
    ch->null_count = true;
    load(ch, tick);
}

static uint8_t count_read(Chan *ch, uint64_t tick)
{
    if (ch->status_latched) {
        ch->status_latched = false;
        return ch->status;
    }
    uint16_t v = ch->latched ? ch->ol : read_count(ch, tick);
    unsigned rw = (ch->cw >> CW_RW_SHIFT) & 3;
    bool msb = rw == RW_MSB || (rw == RW_WORD && ch->rd_msb);
    if (rw == RW_WORD)
        ch->rd_msb = !ch->rd_msb;
    if (ch->latched && (rw != RW_WORD || !ch->rd_msb))
        ch->latched = false;            /* the whole latch has been read */
    return msb ? (uint8_t)(v >> 8) : (uint8_t)v;
}

/* Channel 2's gate (port 0x61 bit 0): low holds the count in modes 0, 2, 3 and 4; high resumes
 * 0 and 4, reloads 2 and 3, and triggers 1 and 5. */
static void set_gate(Chan *ch, bool gate, uint64_t tick)
{
    if (gate == ch->gate)
        return;
    int64_t d = elapsed(ch, tick);
    ch->gate = gate;
    bool triggered = ch->mode == 1 || ch->mode == 5;
    if (!gate) {
        if (ch->armed && !triggered && !ch->held) {
            ch->held = true;
            ch->held_d = d < 0 ? 0 : (uint64_t)d;
        }
        return;
    }
    if (ch->mode == 0 || ch->mode == 4) {
        if (ch->held)
            ch->start = tick + 1 - ch->held_d;
        ch->held = false;
    } else if (ch->armed || ch->waiting) {
        ch->armed = true;
        ch->waiting = ch->held = false;
        ch->start = tick + 1;
    }
}

/* ------------------------------------------------------------------ registers */

static uint8_t port61(const I8254 *p, uint64_t tick)
{
    const Chan *ch = &p->ch[2];
    return (uint8_t)(p->p61 | ((tick / REFRESH_TICKS) & 1 ? P61_REFRESH : 0) |
                     (out_at(ch, elapsed(ch, tick)) ? P61_OUT2 : 0));
}

static uint64_t pit_peek(Device *d, uint64_t off, unsigned size)
{
    I8254 *p = (I8254 *)d;
    uint64_t tick = tick_at(p, now_of(p, NULL));
    if (off >> DEV_WINDOW_SHIFT == PORT61_WIN)
        return port61(p, tick);
    if (off < PIT_CHANNELS) {
        const Chan *ch = &p->ch[off];
        return ch->latched ? ch->ol : read_count(ch, tick);
    }
    return 0xff;
}

static uint64_t pit_read(Device *d, Cpu *c, uint64_t off, unsigned size)
{
    I8254 *p = (I8254 *)d;
    uint64_t tick = tick_at(p, now_of(p, c));
    if (off >> DEV_WINDOW_SHIFT == PORT61_WIN)
        return port61(p, tick);
    return off < PIT_CHANNELS ? count_read(&p->ch[off], tick) : 0xff;   /* the control port reads nothing */
}

static void pit_write(Device *d, Cpu *c, uint64_t off, unsigned size, uint64_t val)
{
    I8254 *p = (I8254 *)d;
    const DeviceHost *h = d->host;
    uint64_t now = now_of(p, c), tick = tick_at(p, now);
    uint8_t v = (uint8_t)val;
    if (off >> DEV_WINDOW_SHIFT == PORT61_WIN) {
        p->p61 = v & P61_WRITABLE;
        set_gate(&p->ch[2], v & P61_GATE2, tick);
        return;
    }
    if (off == PIT_CTRL)
        ctrl_write(p, v, tick);
    else if (off < PIT_CHANNELS)
        count_write(&p->ch[off], v, tick);
    if (off == 0 || (off == PIT_CTRL && (v >> CW_CHANNEL_SHIFT) == 0)) {
        p->cpu = c ? h->cpu_index(h->opaque, c) : p->cpu;
        line_update(p, now);
    }
}

/* ------------------------------------------------------------------ checkpoints */

/* Raise when a field is added (base/state.h). */
#define I8254_STATE_VERSION 1u

static const StateField chan_fields[] = {
    STATE_UPTO(Chan, cw, ST_CW), STATE_UPTO(Chan, mode, 5), STATE_FIELD(Chan, cr), STATE_BOOL(Chan, wr_msb),
    STATE_BOOL(Chan, rd_msb), STATE_BOOL(Chan, latched), STATE_BOOL(Chan, status_latched), STATE_FIELD(Chan, ol),
    STATE_FIELD(Chan, status), STATE_BOOL(Chan, gate), STATE_BOOL(Chan, armed), STATE_BOOL(Chan, waiting),
    STATE_BOOL(Chan, held), STATE_BOOL(Chan, null_count), STATE_BOOL(Chan, out_level),
    STATE_UPTO(Chan, n, 65536), STATE_FIELD(Chan, start), STATE_FIELD(Chan, held_d),
};

/* The section is named after the device's path. */
static void pit_save(Device *d, Blob *b)
{
    I8254 *p = (I8254 *)d;
    size_t at = blob_begin(b, d->name, I8254_STATE_VERSION);
    blob_u32(b, (uint32_t)p->cpu);
    blob_u8(b, p->p61);
    for (int i = 0; i < PIT_CHANNELS; i++)
        blob_fields(b, &p->ch[i], chan_fields, ARRAY_SIZE(chan_fields));
    blob_event(b, &p->ch[0].ev);
    blob_end(b, at);
}

static bool pit_load(Device *d, BlobReader *r)
{
    I8254 *p = (I8254 *)d;
    const DeviceHost *h = d->host;
    BrOuter outer;
    if (!br_begin(r, &outer, d->name, I8254_STATE_VERSION))
        return false;
    p->cpu = (int)br_u32(r);
    p->p61 = br_u8(r) & P61_WRITABLE;
    if (p->cpu < 0 || p->cpu >= h->ncpus)
        return br_fail(r, "the PIT's CPU");
    for (int i = 0; i < PIT_CHANNELS; i++)
        if (!br_fields(r, &p->ch[i], chan_fields, ARRAY_SIZE(chan_fields)))
            return false;
    for (int i = 0; i < PIT_CHANNELS; i++)
        if (p->ch[i].n == 0)
            p->ch[i].n = 1;             /* never divide by a count of 0 */
    br_event(r, &p->ch[0].ev, h->cpu_events(h->opaque, p->cpu));
    return br_end(r, &outer);
}

static void pit_destroy(Device *d)
{
    I8254 *p = (I8254 *)d;
    evq_remove(&p->ch[0].ev);
    free(p);
}

static const DeviceOps pit_ops = {
    .type = "intel,8254", .read = pit_read, .write = pit_write, .peek = pit_peek, .save = pit_save,
    .load = pit_load, .destroy = pit_destroy,
};

Device *i8254_create(const DeviceHost *host, const DevDesc *dd, Error *err)
{
    if (!dd->io || dd->size < PIT_PORTS) {
        err_set(err, "node %s: property reg: the 8254 needs 4 ports (and port 0x61 as its second window)", dd->path);
        return NULL;
    }
    if (host->cpu_hz < PIT_HZ) {
        err_set(err, "node %s: the CPU clock (%" PRIu64 " Hz) is slower than the PIT's %llu Hz input", dd->path,
                host->cpu_hz, PIT_HZ);
        return NULL;
    }
    I8254 *p = device_alloc(sizeof(I8254), &pit_ops, host, dd);
    p->irq = host->irq(host->opaque, dd, 0);
    for (int i = 0; i < PIT_CHANNELS; i++) {
        p->ch[i].gate = i != 2;         /* channels 0 and 1: tied high; 2: port 0x61 bit 0, reset 0 */
        p->ch[i].n = 1;
    }
    event_init(&p->ch[0].ev, "pit", chan0_fire, p);
    return &p->d;
}
