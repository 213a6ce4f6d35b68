/* pl011.c — ARM PrimeCell UART (PL011), transmit side (the console).
 *
 * Register map (ARM DDI 0183G, PrimeCell UART (PL011) TRM, table 3-1):
 *   0x000 DR (write: transmit)     0x024 IBRD    0x038 IMSC    0x044 ICR (write)
 *   0x004 RSR/ECR                  0x028 FBRD    0x03C RIS     0x048 DMACR
 *   0x018 FR: TXFE 0x80, RXFE 0x10 0x02C LCR_H   0x040 MIS     0xFE0..0xFFC peripheral/cell IDs
 *   0x020 ILPR                     0x030 CR      0x034 IFLS
 * Transmission is instantaneous; nothing is received; no interrupt line is modelled.
 */
#include "base/state.h"
#include "sim/dev/device.h"

enum {
    PL011_DR = 0x000, PL011_RSR = 0x004, PL011_FR = 0x018, PL011_ILPR = 0x020, PL011_IBRD = 0x024,
    PL011_FBRD = 0x028, PL011_LCRH = 0x02c, PL011_CR = 0x030, PL011_IFLS = 0x034, PL011_IMSC = 0x038,
    PL011_RIS = 0x03c, PL011_MIS = 0x040, PL011_ICR = 0x044, PL011_DMACR = 0x048, PL011_ID = 0xfe0,
};
enum { FR_RXFE = 0x10, FR_TXFE = 0x80 };

static const uint8_t pl011_ids[8] = { 0x11, 0x10, 0x14, 0x00, 0x0d, 0xf0, 0x05, 0xb1 };

typedef struct Pl011 {
    Device d;
    uint32_t ilpr, ibrd, fbrd, lcrh, cr, ifls, imsc, dmacr;
} Pl011;

static uint64_t pl011_peek(Device *d, uint64_t off, unsigned size)
{
    Pl011 *u = (Pl011 *)d;
    if (off >= PL011_ID && off < PL011_ID + 0x20)
        return pl011_ids[(off - PL011_ID) / 4];
    switch (off) {
    case PL011_FR: return FR_TXFE | FR_RXFE;
    case PL011_ILPR: return u->ilpr;
    case PL011_IBRD: return u->ibrd;
    case PL011_FBRD: return u->fbrd;
    case PL011_LCRH: return u->lcrh;
    case PL011_CR: return u->cr;
    case PL011_IFLS: return u->ifls;
    case PL011_IMSC: return u->imsc;
    case PL011_DMACR: return u->dmacr;
    default: return 0;              /* DR (nothing received), RSR, RIS, MIS */
    }
}

static uint64_t pl011_read(Device *d, Cpu *c, uint64_t off, unsigned size)
{
    return pl011_peek(d, off, size);
}

static void pl011_write(Device *d, Cpu *c, uint64_t off, unsigned size, uint64_t val)
{
    Pl011 *u = (Pl011 *)d;
    uint32_t v = (uint32_t)val;
    switch (off) {
    case PL011_DR: d->host->console_out(d->host->opaque, (uint8_t)v); break;
    case PL011_ILPR: u->ilpr = v & 0xff; break;
    case PL011_IBRD: u->ibrd = v & 0xffff; break;
    case PL011_FBRD: u->fbrd = v & 0x3f; break;
    case PL011_LCRH: u->lcrh = v & 0xff; break;
    case PL011_CR: u->cr = v & 0xffff; break;
    case PL011_IFLS: u->ifls = v & 0x3f; break;
    case PL011_IMSC: u->imsc = v & 0x7ff; break;
    case PL011_DMACR: u->dmacr = v & 7; break;
    default: break;                 /* RSR/ECR clear, ICR: no interrupt state to clear */
    }
}

/* Raise when a field is added (base/state.h). */
#define PL011_STATE_VERSION 1u

static const StateField pl011_fields[] = {
    STATE_UPTO(Pl011, ilpr, 0xff), STATE_UPTO(Pl011, ibrd, 0xffff), STATE_UPTO(Pl011, fbrd, 0x3f),
    STATE_UPTO(Pl011, lcrh, 0xff), STATE_UPTO(Pl011, cr, 0xffff),   STATE_UPTO(Pl011, ifls, 0x3f),
    STATE_UPTO(Pl011, imsc, 0x7ff), STATE_UPTO(Pl011, dmacr, 7),
};

/* The section is named after the device's path (there may be several). */
static void pl011_save(Device *d, Blob *b)
{
    size_t at = blob_begin(b, d->name, PL011_STATE_VERSION);
    blob_fields(b, d, pl011_fields, ARRAY_SIZE(pl011_fields));
    blob_end(b, at);
}

static bool pl011_load(Device *d, BlobReader *r)
{
    BrOuter outer;
    return br_begin(r, &outer, d->name, PL011_STATE_VERSION) && br_fields(r, d, pl011_fields, ARRAY_SIZE(pl011_fields)) &&
           br_end(r, &outer);
}

static const DeviceOps pl011_ops = {
    .type = "arm,pl011", .read = pl011_read, .write = pl011_write, .peek = pl011_peek,
    .save = pl011_save, .load = pl011_load,
};

Device *pl011_create(const DeviceHost *host, const DevDesc *dd, Error *err)
{
    if (dd->size < 0x1000) {
        err_set(err, "node %s: property reg: a PL011 occupies 4 KiB", dd->path);
        return NULL;
    }
    return device_alloc(sizeof(Pl011), &pl011_ops, host, dd);
}
