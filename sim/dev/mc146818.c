/* mc146818.c — the PC's CMOS real-time clock and NVRAM (Motorola MC146818A data sheet; Linux
 * arch/x86/kernel/rtc.c mach_get_cmos_time, drivers/rtc/rtc-mc146818-lib.c, rtc-cmos.c).
 *
 * Ports (the node's reg, 0x70 on a PC):
 *   +0 (0x70) write: [6:0] the register index, [7] NMI disable (kept, read back nowhere)
 *   +1 (0x71) the register the index selects:
 *   0x00 seconds  0x01 seconds alarm  0x02 minutes  0x03 minutes alarm  0x04 hours
 *   0x05 hours alarm  0x06 day of week (1 = Sunday)  0x07 day of month  0x08 month  0x09 year
 *   0x0A register A: [7] UIP (RO), [6:4] DV, [3:0] RS (periodic rate)
 *   0x0B register B: [7] SET, [6] PIE, [5] AIE, [4] UIE, [3] SQWE, [2] DM (1 binary, 0 BCD),
 *        [1] 24/12 (1: 24-hour), [0] DSE
 *   0x0C register C (RO, cleared by the read): [7] IRQF, [6] PF, [5] AF, [4] UF
 *   0x0D register D (RO): [7] VRT, the battery is good
 *   0x0E..0x7F the 114 bytes of NVRAM (0x32: the century, as ACPI's FADT names it)
 * Time is deterministic: the clock reads the host's rtc_epoch (--rtc-base; by default
 * DEV_RTC_DEFAULT_EPOCH, 2025-01-01 00:00:00 UTC, a Wednesday) at cycle 0 of the machine and advances with simulated time, one second per cpu_hz cycles; a time
 * the guest sets (with B.SET, data sheet "Register B") moves that base.  The update (and UIP,
 * set for the last 244 µs of every second, data sheet "Update Cycle") happens on the exact
 * cycle.  C's flags are computed when it is read: UF when a second ended since the last read,
 * PF when a period of RS did, AF when an update since then matched the alarm (0xC0..0xFF: any).
 * The interrupt (entry 0 of `interrupts`, ISA IRQ 8) follows IRQF: an enabled flag (PIE, AIE,
 * UIE) raises it at the exact cycle of its event (a second's end, a period of RS), and the read
 * of C lowers it.  Not modelled: daylight saving, the divider chain's reset (DV), the square
 * wave, and SET's inhibiting of the update flags.
 */
#include "base/state.h"
#include "sim/dev/device.h"

#define RTC_UIP_US 244ull
#define RTC_NVRAM 128
#define RTC_32K 32768ull

enum { RTC_INDEX = 0, RTC_DATA = 1, RTC_PORTS = 2 };
enum { R_SEC = 0, R_ASEC, R_MIN, R_AMIN, R_HOUR, R_AHOUR, R_WDAY, R_MDAY, R_MON, R_YEAR, R_A, R_B, R_C, R_D,
       R_CENTURY = 0x32 };
enum { A_UIP = 0x80, A_WRITABLE = 0x7f, A_RS = 0x0f };
enum { B_SET = 0x80, B_PIE = 0x40, B_AIE = 0x20, B_UIE = 0x10, B_DM = 0x04, B_24H = 0x02 };
enum { C_IRQF = 0x80, C_PF = 0x40, C_AF = 0x20, C_UF = 0x10 };
enum { D_VRT = 0x80, INDEX_MASK = 0x7f, ALARM_ANY = 0xc0, HOUR_PM = 0x80 };

typedef struct Rtc {
    Device d;
    uint8_t index;
    uint8_t ram[RTC_NVRAM];         /* registers A, B and the NVRAM; the time fields while SET */
    uint64_t base;                  /* the time (seconds since 1970) at cycle 0 */
    uint64_t c_read;                /* the cycle of the last read of register C */
    IrqLine irq;                    /* IRQ 8: IRQF */
    bool irq_level;                 /* the level last put on it */
    Event ev;                       /* the next moment an enabled flag may rise */
} Rtc;

/* ------------------------------------------------------------------ time */

static uint64_t rtc_now(const Rtc *r, Cpu *c)
{
    const DeviceHost *h = r->d.host;
    return c ? h->now(h->opaque, c) : h->cpu_cycles(h->opaque, 0);
}

static uint64_t seconds(const Rtc *r, uint64_t cycle)
{
    return r->base + cycle / r->d.host->cpu_hz;
}

static uint8_t encode(const Rtc *r, unsigned v)
{
    return r->ram[R_B] & B_DM ? (uint8_t)v : (uint8_t)((v / 10) << 4 | v % 10);
}

static unsigned decode(const Rtc *r, uint8_t v)
{
    return r->ram[R_B] & B_DM ? v : (v >> 4) * 10u + (v & 0xf);
}

static uint8_t hour_reg(const Rtc *r, unsigned h)
{
    if (r->ram[R_B] & B_24H)
        return encode(r, h);
    return (uint8_t)(encode(r, h % 12 ? h % 12 : 12) | (h >= 12 ? HOUR_PM : 0));
}

/* The time registers from the running clock (not while SET holds them). */
static void fill_time(Rtc *r, uint64_t cycle)
{
    CivilTime c = civil_from_epoch(seconds(r, cycle));
    r->ram[R_SEC] = encode(r, c.sec);
    r->ram[R_MIN] = encode(r, c.min);
    r->ram[R_HOUR] = hour_reg(r, c.hour);
    r->ram[R_WDAY] = encode(r, c.wday + 1);       /* 1 = Sunday */
    r->ram[R_MDAY] = encode(r, c.mday);
    r->ram[R_MON] = encode(r, c.mon);
    r->ram[R_YEAR] = encode(r, c.year % 100);
    r->ram[R_CENTURY] = encode(r, c.year / 100);
}

/* The clock from the time registers (SET cleared): the base that makes them the time now. */
static void take_time(Rtc *r, uint64_t cycle)
{
    CivilTime c = { .year = decode(r, r->ram[R_CENTURY]) * 100 + decode(r, r->ram[R_YEAR]),
                    .mon = decode(r, r->ram[R_MON]), .mday = decode(r, r->ram[R_MDAY]),
                    .hour = decode(r, r->ram[R_HOUR] & (uint8_t)~HOUR_PM), .min = decode(r, r->ram[R_MIN]),
                    .sec = decode(r, r->ram[R_SEC]) };
    if (!(r->ram[R_B] & B_24H))
        c.hour = c.hour % 12 + (r->ram[R_HOUR] & HOUR_PM ? 12 : 0);
    if (c.year < 1970 || c.mon < 1 || c.mon > 12 || c.mday < 1 || c.mday > 31 || c.hour > 23 || c.min > 59 ||
        c.sec > 59)
        return;                     /* not a time: the clock keeps its own */
    uint64_t t = civil_to_epoch(&c);
    uint64_t elapsed = cycle / r->d.host->cpu_hz;
    r->base = t > elapsed ? t - elapsed : 0;
}

static bool in_update(const Rtc *r, uint64_t cycle)
{
    uint64_t hz = r->d.host->cpu_hz;
    return cycle % hz >= hz - muldiv64(hz, RTC_UIP_US, 1000000);
}

static bool alarm_matched(const Rtc *r, uint64_t from, uint64_t to)
{
    for (uint64_t t = from + 1; t <= to && t <= from + 86400; t++) {
        CivilTime c = civil_from_epoch(t);
        bool s = r->ram[R_ASEC] >= ALARM_ANY || r->ram[R_ASEC] == encode(r, c.sec);
        bool m = r->ram[R_AMIN] >= ALARM_ANY || r->ram[R_AMIN] == encode(r, c.min);
        bool h = r->ram[R_AHOUR] >= ALARM_ANY || r->ram[R_AHOUR] == hour_reg(r, c.hour);
        if (s && m && h)
            return true;
    }
    return false;
}

/* Register C: the events since the last read. */
static uint8_t reg_c(const Rtc *r, uint64_t cycle)
{
    uint64_t hz = r->d.host->cpu_hz, from = seconds(r, r->c_read), to = seconds(r, cycle);
    unsigned rs = r->ram[R_A] & A_RS;
    uint8_t v = 0;
    if (to > from)
        v |= C_UF;
    if (to > from && alarm_matched(r, from, to))
        v |= C_AF;
    if (rs) {                       /* RS 1, 2 are 256 and 128 Hz; 3..15: 32768 >> (RS - 1) */
        uint64_t rate = rs <= 2 ? 512ull >> rs : RTC_32K >> (rs - 1);
        if (muldiv64(cycle, rate, hz) > muldiv64(r->c_read, rate, hz))
            v |= C_PF;
    }
    uint8_t enabled = (uint8_t)(r->ram[R_B] & (B_PIE | B_AIE | B_UIE));
    return v & enabled ? v | C_IRQF : v;
}

/* ------------------------------------------------------------------ the interrupt */

/* The first cycle after `now` at which an enabled flag may rise: a second's end (UF, and AF
 * checked at each), a period of RS (PF); UINT64_MAX with none enabled. */
static uint64_t next_flag(const Rtc *r, uint64_t now)
{
    uint64_t hz = r->d.host->cpu_hz, next = UINT64_MAX;
    unsigned rs = r->ram[R_A] & A_RS;
    if (r->ram[R_B] & (B_UIE | B_AIE))
        next = (now / hz + 1) * hz;
    if ((r->ram[R_B] & B_PIE) && rs) {
        uint64_t rate = rs <= 2 ? 512ull >> rs : RTC_32K >> (rs - 1), k = muldiv64(now, rate, hz) + 1;
        uint64_t at = (uint64_t)(((unsigned __int128)k * hz + rate - 1) / rate);
        next = at < next ? at : next;
    }
    return next;
}

/* IRQ 8 follows IRQF (data sheet, "Register C"): raised when an enabled flag rises, lowered by
 * the read of C that clears it; while it is low, an event waits for the next flag. */
static void irq_update(Rtc *r, uint64_t now)
{
    bool level = reg_c(r, now) & C_IRQF;
    if (level != r->irq_level) {
        r->irq_level = level;
        irq_set(&r->irq, level);
    }
    evq_remove(&r->ev);
    uint64_t next = level ? UINT64_MAX : next_flag(r, now);
    if (next != UINT64_MAX) {
        const DeviceHost *h = r->d.host;
        h->cpu_schedule(h->opaque, 0, &r->ev, next);
    }
}

static void rtc_event(Event *ev, void *opaque)
{
    irq_update(opaque, ev->when);
}

/* ------------------------------------------------------------------ registers */

static uint8_t reg_peek(Rtc *r, unsigned idx, uint64_t cycle)
{
    if (idx <= R_YEAR || idx == R_CENTURY) {
        if (!(r->ram[R_B] & B_SET))
            fill_time(r, cycle);
        return r->ram[idx];
    }
    switch (idx) {
    case R_A: return (uint8_t)(r->ram[R_A] | (in_update(r, cycle) && !(r->ram[R_B] & B_SET) ? A_UIP : 0));
    case R_C: return reg_c(r, cycle);
    case R_D: return D_VRT;
    default: return r->ram[idx];
    }
}

static uint64_t rtc_peek(Device *d, uint64_t off, unsigned size)
{
    Rtc *r = (Rtc *)d;
    return off == RTC_DATA ? reg_peek(r, r->index, rtc_now(r, NULL)) : 0xff;
}

static uint64_t rtc_read(Device *d, Cpu *c, uint64_t off, unsigned size)
{
    Rtc *r = (Rtc *)d;
    if (off != RTC_DATA)
        return 0xff;                /* the index port is write-only */
    uint64_t now = rtc_now(r, c);
    uint8_t v = reg_peek(r, r->index, now);
    if (r->index == R_C) {
        r->c_read = now;
        irq_update(r, now);
    }
    return v;
}

static void reg_write(Rtc *r, unsigned idx, uint8_t v, uint64_t now)
{
    bool time = idx <= R_YEAR || idx == R_CENTURY;
    if (time && !(r->ram[R_B] & B_SET))
        fill_time(r, now);
    if (idx == R_B) {
        if ((v & B_SET) && !(r->ram[R_B] & B_SET))
            fill_time(r, now);      /* SET freezes the registers for the guest to write */
        bool release = !(v & B_SET) && (r->ram[R_B] & B_SET);
        r->ram[R_B] = v;
        if (release)
            take_time(r, now);
        return;
    }
    if (idx == R_C || idx == R_D)
        return;                     /* read-only */
    r->ram[idx] = idx == R_A ? v & A_WRITABLE : v;
    if (time && !(r->ram[R_B] & B_SET))
        take_time(r, now);
}

static void rtc_write(Device *d, Cpu *c, uint64_t off, unsigned size, uint64_t val)
{
    Rtc *r = (Rtc *)d;
    if (off == RTC_INDEX)
        r->index = (uint8_t)val & INDEX_MASK;
    else if (off == RTC_DATA) {
        uint64_t now = rtc_now(r, c);
        reg_write(r, r->index, (uint8_t)val, now);
        irq_update(r, now);             /* B's enables, A's rate, a time set */
    }
}

/* ------------------------------------------------------------------ checkpoints */

/* Raise when a field is added (base/state.h). */
#define RTC_STATE_VERSION 1u

static const StateField rtc_fields[] = {
    STATE_UPTO(Rtc, index, INDEX_MASK), STATE_ARRAY(Rtc, ram), STATE_FIELD(Rtc, base), STATE_FIELD(Rtc, c_read),
    STATE_BOOL(Rtc, irq_level),
};

/* The section is named after the device's path. */
static void rtc_save(Device *d, Blob *b)
{
    size_t at = blob_begin(b, d->name, RTC_STATE_VERSION);
    blob_fields(b, d, rtc_fields, ARRAY_SIZE(rtc_fields));
    blob_event(b, &((Rtc *)d)->ev);
    blob_end(b, at);
}

static bool rtc_load(Device *d, BlobReader *r)
{
    const DeviceHost *h = d->host;
    BrOuter outer;
    if (!br_begin(r, &outer, d->name, RTC_STATE_VERSION) || !br_fields(r, d, rtc_fields, ARRAY_SIZE(rtc_fields)))
        return false;
    br_event(r, &((Rtc *)d)->ev, h->cpu_events(h->opaque, 0));
    return br_end(r, &outer);
}

static void rtc_destroy(Device *d)
{
    evq_remove(&((Rtc *)d)->ev);
    device_free(d);
}

static const DeviceOps rtc_ops = {
    .type = "motorola,mc146818", .read = rtc_read, .write = rtc_write, .peek = rtc_peek, .save = rtc_save,
    .load = rtc_load, .destroy = rtc_destroy,
};

/* Power-up as a PC's firmware leaves it: 32.768 kHz time base, 1024 Hz rate, 24-hour BCD. */
enum { A_DEFAULT = 0x26, B_DEFAULT = B_24H };

Device *mc146818_create(const DeviceHost *host, const DevDesc *dd, Error *err)
{
    if (!dd->io || dd->size < RTC_PORTS) {
        err_set(err, "node %s: property reg: the MC146818 needs 2 ports (index and data)", dd->path);
        return NULL;
    }
    Rtc *r = device_alloc(sizeof(Rtc), &rtc_ops, host, dd);
    r->base = host->rtc_epoch;
    r->ram[R_A] = A_DEFAULT;
    r->ram[R_B] = B_DEFAULT;
    r->irq = host->irq(host->opaque, dd, 0);
    event_init(&r->ev, "rtc", rtc_event, r);
    return &r->d;
}
