/* ioapic.c — the I/O APIC: 24 interrupt inputs, each routed by its redirection entry to the local
 * APICs as an interrupt message (Intel 82093AA I/O APIC datasheet, 1996; the ICH's version 0x20,
 * with the EOI register, as QEMU's; Linux arch/x86/kernel/apic/io_apic.c drives it).
 *
 * MMIO window (the node's reg, 0xFEC00000 on a PC; datasheet §3.0, table 1):
 *   0x00 IOREGSEL  RW [7:0]  the index of the register IOWIN reaches
 *   0x10 IOWIN     RW        the register IOREGSEL selects (32 bits)
 *   0x40 EOI       WO [7:0]  clears the Remote IRR of every level entry with this vector
 *                            (version 0x20 and later; Linux's io_apic_eoi, __eoi_ioapic_pin)
 * Indirect registers (datasheet §3.2):
 *   0x00 IOAPICID   RW [27:24] the APIC ID
 *   0x01 IOAPICVER  RO 0x00170020: maximum redirection entry 23 [23:16], version 0x20 [7:0]
 *   0x02 IOAPICARB  RO [27:24] the arbitration ID (the APIC ID, as after reset)
 *   0x10 + 2n, 0x11 + 2n  redirection entry n, low and high halves (64 bits, datasheet §3.2.4):
 *        [7:0] vector  [10:8] delivery mode (0 fixed, 1 lowest priority, 2 SMI, 4 NMI, 5 INIT,
 *        7 ExtINT)  [11] destination mode (0 physical, 1 logical)  [12] delivery status (RO)
 *        [13] polarity (1 active low)  [14] Remote IRR (RO)  [15] trigger mode (1 level)
 *        [16] mask  [63:56] destination
 * Reset: every entry masked, everything else 0.  An edge entry sends its message on the input's
 * assertion (the rising edge, or the falling one when active low); a masked edge is lost
 * (datasheet §3.2.4, bit 16).  A level entry sends while the input is asserted and Remote IRR is
 * clear, sets Remote IRR, and sends again after the EOI (broadcast by the local APIC, or this EOI
 * register) if the input is still asserted.  Messages are delivered at once: the target takes
 * the interrupt at its next instruction boundary.  Registers beyond these read 0; writes to
 * read-only ones are ignored, as on the chip.
 */
#include "base/state.h"
#include "sim/dev/pc.h"

enum { IOREGSEL = 0x00, IOWIN = 0x10, IOEOI = 0x40, IOAPIC_WINDOW = 0x44 };
enum { IOAPICID = 0x00, IOAPICVER = 0x01, IOAPICARB = 0x02, IOREDTBL = 0x10 };

#define IOAPIC_VERSION (0x20u | (IOAPIC_PINS - 1u) << 16)
#define IOAPIC_ID_MASK 0x0f000000u

/* Redirection entry fields. */
#define RTE_VECTOR 0xffull
#define RTE_MODE_SHIFT 8
#define RTE_MODE (7ull << RTE_MODE_SHIFT)
#define RTE_LOGICAL (1ull << 11)
#define RTE_PENDING (1ull << 12)
#define RTE_ACTIVE_LOW (1ull << 13)
#define RTE_REMOTE_IRR (1ull << 14)
#define RTE_LEVEL (1ull << 15)
#define RTE_MASKED (1ull << 16)
#define RTE_DEST_SHIFT 56
#define RTE_READ_ONLY (RTE_PENDING | RTE_REMOTE_IRR)
#define RTE_WRITABLE (RTE_VECTOR | RTE_MODE | RTE_LOGICAL | RTE_ACTIVE_LOW | RTE_LEVEL | RTE_MASKED | 0xffull << RTE_DEST_SHIFT)

typedef struct IoApic {
    Device d;
    IrqMsgSink out;
    uint32_t sel, id;
    uint32_t pins;                  /* the inputs' levels, bit n for pin n (as driven, before polarity) */
    uint64_t rte[IOAPIC_PINS];
} IoApic;

static bool asserted(const IoApic *a, unsigned pin)
{
    bool level = a->pins >> pin & 1;
    return a->rte[pin] & RTE_ACTIVE_LOW ? !level : level;
}

static void send(IoApic *a, unsigned pin)
{
    uint64_t e = a->rte[pin];
    IrqMsg m = { (uint32_t)(e >> RTE_DEST_SHIFT), (uint8_t)(e & RTE_VECTOR), (uint8_t)((e & RTE_MODE) >> RTE_MODE_SHIFT),
                 (e & RTE_LOGICAL) != 0, (e & RTE_LEVEL) != 0 };
    if (e & RTE_LEVEL)
        a->rte[pin] |= RTE_REMOTE_IRR;
    if (a->out.send)
        a->out.send(a->out.opaque, &m);
}

/* A level entry whose input is asserted sends unless masked or awaiting its EOI. */
static void service_level(IoApic *a, unsigned pin)
{
    uint64_t e = a->rte[pin];
    if ((e & RTE_LEVEL) && !(e & (RTE_MASKED | RTE_REMOTE_IRR)) && asserted(a, pin))
        send(a, pin);
}

static bool input_set(void *opaque, int n, bool level)
{
    IoApic *a = opaque;
    unsigned pin = (unsigned)n;
    bool was = asserted(a, pin);
    a->pins = (a->pins & ~(1u << pin)) | (uint32_t)level << pin;
    bool now = asserted(a, pin);
    uint64_t e = a->rte[pin];
    if (e & RTE_LEVEL)
        service_level(a, pin);
    else if (now && !was && !(e & RTE_MASKED))
        send(a, pin);
    return !(e & RTE_MASKED);
}

IrqLine ioapic_input(Device *d, unsigned pin)
{
    return pin < IOAPIC_PINS ? irq_line(input_set, d, (int)pin) : irq_line(NULL, NULL, 0);
}

void ioapic_connect(Device *d, IrqMsgSink out)
{
    ((IoApic *)d)->out = out;
}

void ioapic_eoi(Device *d, unsigned vector)
{
    IoApic *a = (IoApic *)d;
    for (unsigned pin = 0; pin < IOAPIC_PINS; pin++)
        if ((a->rte[pin] & RTE_VECTOR) == vector && (a->rte[pin] & RTE_REMOTE_IRR)) {
            a->rte[pin] &= ~RTE_REMOTE_IRR;
            service_level(a, pin);
        }
}

/* ------------------------------------------------------------------ registers */

static uint32_t reg_peek(const IoApic *a, uint32_t idx)
{
    switch (idx) {
    case IOAPICID: return a->id;
    case IOAPICVER: return IOAPIC_VERSION;
    case IOAPICARB: return a->id;
    default:
        if (idx >= IOREDTBL && idx < IOREDTBL + 2 * IOAPIC_PINS) {
            uint64_t e = a->rte[(idx - IOREDTBL) / 2];
            return idx & 1 ? (uint32_t)(e >> 32) : (uint32_t)e;
        }
        return 0;
    }
}

static void rte_write(IoApic *a, uint32_t idx, uint32_t v)
{
    unsigned pin = (idx - IOREDTBL) / 2;
    uint64_t e = a->rte[pin];
    uint64_t nv = idx & 1 ? (e & 0xffffffffull) | (uint64_t)v << 32 : (e & ~0xffffffffull) | v;
    a->rte[pin] = (nv & RTE_WRITABLE) | (e & RTE_READ_ONLY);
    if (!(a->rte[pin] & RTE_LEVEL))
        a->rte[pin] &= ~RTE_REMOTE_IRR;     /* Remote IRR is undefined for edge entries: keep it 0 */
    service_level(a, pin);                  /* an unmasked level input that is asserted sends now */
}

static void reg_write(IoApic *a, Cpu *c, uint32_t idx, uint32_t v)
{
    if (idx == IOAPICID) {
        a->id = v & IOAPIC_ID_MASK;
    } else if (idx >= IOREDTBL && idx < IOREDTBL + 2 * IOAPIC_PINS) {
        rte_write(a, idx, v);
    } else if (idx != IOAPICVER && idx != IOAPICARB) {
        const DeviceHost *h = a->d.host;
        h->diag(h->opaque, c, "ioapic-register", "write of 0x%x to register 0x%x, which the I/O APIC does not have", v, idx);
    }
}

static uint64_t ioapic_peek(Device *d, uint64_t off, unsigned size)
{
    IoApic *a = (IoApic *)d;
    switch (off) {
    case IOREGSEL: return a->sel;
    case IOWIN: return reg_peek(a, a->sel);
    default: return 0;
    }
}

static uint64_t ioapic_read(Device *d, Cpu *c, uint64_t off, unsigned size)
{
    return ioapic_peek(d, off, size);
}

static void ioapic_write(Device *d, Cpu *c, uint64_t off, unsigned size, uint64_t val)
{
    IoApic *a = (IoApic *)d;
    switch (off) {
    case IOREGSEL: a->sel = (uint32_t)val & 0xff; break;
    case IOWIN: reg_write(a, c, a->sel, (uint32_t)val); break;
    case IOEOI: ioapic_eoi(d, (unsigned)val & 0xff); break;
    default: break;
    }
}

/* ------------------------------------------------------------------ checkpoints */

/* Raise when a field is added (base/state.h). */
#define IOAPIC_STATE_VERSION 1u

static const StateField ioapic_fields[] = {
    STATE_UPTO(IoApic, sel, 0xff), STATE_UPTO(IoApic, id, IOAPIC_ID_MASK),
    STATE_UPTO(IoApic, pins, (1ull << IOAPIC_PINS) - 1), STATE_ARRAY(IoApic, rte),
};

static void ioapic_save(Device *d, Blob *b)
{
    device_save_fields(d, b, IOAPIC_STATE_VERSION, ioapic_fields, ARRAY_SIZE(ioapic_fields));
}

static bool ioapic_load(Device *d, BlobReader *r)
{
    return device_load_fields(d, r, IOAPIC_STATE_VERSION, ioapic_fields, ARRAY_SIZE(ioapic_fields));
}

static const DeviceOps ioapic_ops = {
    .type = "intel,ce4100-ioapic", .read = ioapic_read, .write = ioapic_write, .peek = ioapic_peek,
    .save = ioapic_save, .load = ioapic_load, .destroy = device_free,
};

bool ioapic_is(const Device *d)
{
    return d->ops == &ioapic_ops;
}

Device *ioapic_create(const DeviceHost *host, const DevDesc *dd, Error *err)
{
    if (dd->io || dd->size < IOAPIC_WINDOW) {
        err_set(err, "node %s: property reg: the I/O APIC needs a memory window of 0x%x bytes or more", dd->path,
                IOAPIC_WINDOW);
        return NULL;
    }
    IoApic *a = device_alloc(sizeof(IoApic), &ioapic_ops, host, dd);
    for (unsigned pin = 0; pin < IOAPIC_PINS; pin++)
        a->rte[pin] = RTE_MASKED;
    return &a->d;
}
