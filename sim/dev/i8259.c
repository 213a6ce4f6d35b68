/* i8259.c — the PC's two cascaded 8259A programmable interrupt controllers and their edge/level
 * control registers (Intel 8259A datasheet, order 231468; the ELCR of the PIIX4/ICH, Intel
 * 82371AB datasheet §4.1.11; Linux arch/x86/kernel/i8259.c drives them).
 *
 * Ports: three windows of the node's reg (0x20, 0xA0, 0x4D0 on a PC):
 *   window 0, master (0x20/0x21)   window 1, slave (0xA0/0xA1)
 *     +0 write: ICW1 (bit 4 set), OCW2 (bits 4:3 = 00), OCW3 (bits 4:3 = 01)
 *        read:  IRR, or ISR after OCW3 RR=1 RIS=1, or the poll word after OCW3 P=1
 *     +1 write: ICW2 (vector base [7:3]), ICW3, ICW4 during initialisation, else OCW1 (IMR)
 *        read:  IMR
 *   window 2, ELCR (0x4D0/0x4D1): bit n set = IRQ n level-triggered; IRQs 0, 1, 2, 8 and 13
 *        are edge-only (the writable masks 0xF8 and 0xDE)
 * ICW1: [0] IC4, [1] SNGL, [3] LTIM (every input level-triggered); it resets the chip: IMR and the
 * edge latches cleared, IR7 lowest priority, special mask mode off, reads give IRR, and without
 * IC4 the ICW4 functions off (datasheet, "Initialization Command Words").  ICW4: [0] 8086 mode
 * (8080 mode is not modelled), [1] AEOI, [4] special fully nested mode.  OCW2 [7:5]: 001
 * non-specific EOI, 011 specific EOI (L2..L0), 101 rotate on non-specific EOI, 111 rotate on
 * specific EOI, 100/000 set/clear rotate in AEOI mode, 110 set priority, 010 no operation.  OCW3:
 * [1:0] read IRR (10) or ISR (11), [2] poll, [6:5] reset (10) or set (11) special mask mode.
 *
 * Inputs: ISA IRQ n is the master's IR n (n < 8) or the slave's IR n - 8; the slave's INT is the
 * master's IR2 (the cascade, ICW3 0x04 / 0x02).  An edge input latches IRR on its rising edge;
 * a level input's IRR follows the line.  The master's INT is the output `intr` (the boot CPU's
 * LINT0); the CPU's interrupt acknowledge (i8259_intack) resolves the priorities, moves the
 * request to ISR (not in AEOI mode) and gives the vector: ICW2's base plus the IR number, the
 * slave's for IR2; a request gone by then gives IR7's vector, the spurious interrupt, without
 * setting ISR.  Priority: fully nested, rotating with the EOI rotate commands; in special mask
 * mode a masked IR's ISR bit does not block the others; in special fully nested mode the
 * master's cascade ISR bit does not block the slave's higher requests.  At power-up the pair is
 * as a PC's firmware leaves it: initialised (8086 mode, the cascade on IR2, vectors 0x08 and
 * 0x70) with every IRQ masked.
 */
#include "base/state.h"
#include "sim/dev/pc.h"

enum { PIC_MASTER, PIC_SLAVE, PIC_ELCR, PIC_WINDOWS };
enum { PIC_CMD = 0, PIC_DATA = 1, PIC_PORTS = 2 };
enum { ICW1 = 0x10, ICW1_IC4 = 0x01, ICW1_SNGL = 0x02, ICW1_LTIM = 0x08 };
enum { ICW4_8086 = 0x01, ICW4_AEOI = 0x02, ICW4_SFNM = 0x10 };
enum { OCW3 = 0x08, OCW3_RIS = 0x01, OCW3_RR = 0x02, OCW3_POLL = 0x04, OCW3_SMM = 0x20, OCW3_ESMM = 0x40 };
enum { OCW2_ROT_AEOI_CLEAR = 0, OCW2_EOI = 1, OCW2_NOP = 2, OCW2_SEOI = 3, OCW2_ROT_AEOI_SET = 4,
       OCW2_ROT_EOI = 5, OCW2_SET_PRIO = 6, OCW2_ROT_SEOI = 7 };
enum { INIT_READY, INIT_ICW2, INIT_ICW3, INIT_ICW4 };
enum { PIC_CASCADE_IR = 2, PIC_SPURIOUS_IR = 7, POLL_VALID = 0x80, NO_IRQ = 8 };

static const uint8_t elcr_writable[2] = { 0xf8, 0xde };
/* As a PC's firmware leaves the pair (the IBM PC's vectors 0x08 and 0x70, every IRQ masked
 * but the cascade; SeaBIOS does the same): a guest that never programs them hears nothing. */
static const uint8_t firmware_base[2] = { 0x08, 0x70 };

typedef struct Chip {
    uint8_t irr, isr, imr;
    uint8_t level;                  /* the IR inputs as driven */
    uint8_t elcr;                   /* level-triggered inputs (ELCR) */
    uint8_t base;                   /* ICW2: the vector of IR0 */
    uint8_t icw3;
    uint8_t init;                   /* INIT_*: the initialisation word expected next */
    uint8_t lowest;                 /* the IR with the lowest priority (7 after ICW1) */
    bool ic4, single, ltim, aeoi, sfnm, rotate_aeoi, smm, read_isr, poll;
} Chip;

typedef struct I8259 {
    Device d;
    IrqLine intr;                   /* the master's INT */
    Chip chip[2];
} I8259;

/* ------------------------------------------------------------------ priorities */

static bool is_level(const Chip *c, unsigned ir)
{
    return c->ltim || (c->elcr >> ir & 1);
}

/* The priority (0 highest) of the highest-priority bit of `bits`, NO_IRQ when none. */
static unsigned top_priority(const Chip *c, uint8_t bits)
{
    for (unsigned p = 0; p < 8; p++)
        if (bits >> ((c->lowest + 1 + p) & 7) & 1)
            return p;
    return NO_IRQ;
}

static unsigned ir_of(const Chip *c, unsigned prio)
{
    return (c->lowest + 1 + prio) & 7;
}

/* The IR the chip would present now (above every in-service one), or -1. */
static int pending(const Chip *c, bool master)
{
    unsigned p = top_priority(c, c->irr & ~c->imr);
    if (p == NO_IRQ)
        return -1;
    uint8_t blocking = c->isr;
    if (c->smm)
        blocking &= ~c->imr;
    if (master && c->sfnm)
        blocking &= ~c->icw3;       /* the slave's requests nest inside its own ISR */
    return p < top_priority(c, blocking) ? (int)ir_of(c, p) : -1;
}

/* The cascade, then the master's INT. */
static void update(I8259 *p)
{
    Chip *m = &p->chip[PIC_MASTER];
    if (pending(&p->chip[PIC_SLAVE], false) >= 0)
        m->irr |= 1u << PIC_CASCADE_IR;
    else
        m->irr &= ~(1u << PIC_CASCADE_IR);
    irq_set(&p->intr, pending(m, true) >= 0);
}

static void set_ir(Chip *c, unsigned ir, bool level)
{
    uint8_t bit = (uint8_t)(1u << ir);
    if (is_level(c, ir))
        c->irr = level ? c->irr | bit : c->irr & ~bit;
    else if (level && !(c->level & bit))
        c->irr |= bit;
    c->level = level ? c->level | bit : c->level & ~bit;
}

static bool input_set(void *opaque, int n, bool level)
{
    I8259 *p = opaque;
    Chip *c = &p->chip[n >> 3];
    set_ir(c, (unsigned)n & 7, level);
    update(p);
    return !(c->imr >> (n & 7) & 1);
}

IrqLine i8259_input(Device *d, unsigned irq)
{
    return irq < ISA_IRQS && irq != PIC_CASCADE_IR ? irq_line(input_set, d, (int)irq) : irq_line(NULL, NULL, 0);
}

void i8259_connect(Device *d, IrqLine intr)
{
    I8259 *p = (I8259 *)d;
    p->intr = intr;
    update(p);
}

/* ------------------------------------------------------------------ acknowledge and EOI */

/* The request becomes in-service (datasheet, "Interrupt Sequence"): an edge's IRR latch is
 * cleared; in AEOI mode ISR is not set (and the priorities rotate if asked). */
static void ack(Chip *c, unsigned ir)
{
    if (!is_level(c, ir))
        c->irr &= (uint8_t)~(1u << ir);
    if (!c->aeoi)
        c->isr |= (uint8_t)(1u << ir);
    else if (c->rotate_aeoi)
        c->lowest = (uint8_t)ir;
}

static int ack_chip(Chip *c, bool master)
{
    int ir = pending(c, master);
    if (ir < 0)
        return c->base + PIC_SPURIOUS_IR;
    ack(c, (unsigned)ir);
    return c->base + ir;
}

int i8259_intack(Device *d)
{
    I8259 *p = (I8259 *)d;
    Chip *m = &p->chip[PIC_MASTER];
    int ir = pending(m, true), vector;
    if (ir < 0) {
        vector = m->base + PIC_SPURIOUS_IR;
    } else {
        ack(m, (unsigned)ir);
        vector = m->icw3 >> ir & 1 && !m->single ? ack_chip(&p->chip[PIC_SLAVE], false) : m->base + ir;
    }
    update(p);
    return vector;
}

static void eoi(Chip *c, unsigned cmd, unsigned level)
{
    unsigned ir = level;
    if (cmd == OCW2_EOI || cmd == OCW2_ROT_EOI) {
        unsigned prio = top_priority(c, c->isr);
        if (prio == NO_IRQ)
            return;
        ir = ir_of(c, prio);
    }
    c->isr &= (uint8_t)~(1u << ir);
    if (cmd == OCW2_ROT_EOI || cmd == OCW2_ROT_SEOI)
        c->lowest = (uint8_t)ir;
}

static void ocw2(Chip *c, uint8_t v)
{
    unsigned cmd = v >> 5;
    switch (cmd) {
    case OCW2_ROT_AEOI_CLEAR: c->rotate_aeoi = false; break;
    case OCW2_ROT_AEOI_SET: c->rotate_aeoi = true; break;
    case OCW2_SET_PRIO: c->lowest = v & 7; break;
    case OCW2_NOP: break;
    default: eoi(c, cmd, v & 7); break;
    }
}

/* ------------------------------------------------------------------ registers */

static void icw1(Chip *c, uint8_t v)
{
    c->ic4 = v & ICW1_IC4;
    c->single = v & ICW1_SNGL;
    c->ltim = v & ICW1_LTIM;
    c->imr = 0;
    c->irr &= c->ltim ? c->level : c->elcr & c->level;  /* the edge latches cleared, levels stay */
    c->lowest = PIC_SPURIOUS_IR;
    c->smm = c->read_isr = c->poll = false;
    if (!c->ic4)
        c->aeoi = c->sfnm = false;
    c->init = INIT_ICW2;
}

static void ocw3(Chip *c, uint8_t v)
{
    if (v & OCW3_POLL)
        c->poll = true;
    if (v & OCW3_RR)
        c->read_isr = v & OCW3_RIS;
    if (v & OCW3_ESMM)
        c->smm = v & OCW3_SMM;
}

static void data_write(I8259 *p, Chip *c, Cpu *cpu, uint8_t v)
{
    switch (c->init) {
    case INIT_ICW2:
        c->base = v & 0xf8;
        c->init = !c->single ? INIT_ICW3 : c->ic4 ? INIT_ICW4 : INIT_READY;
        break;
    case INIT_ICW3:
        c->icw3 = v;
        c->init = c->ic4 ? INIT_ICW4 : INIT_READY;
        break;
    case INIT_ICW4:
        if (!(v & ICW4_8086))
            p->d.host->diag(p->d.host->opaque, cpu, "unsupported", "8259A %s: ICW4 0x%02x selects 8080 mode; pmusim "
                            "models 8086 mode", c == p->chip ? "master" : "slave", v);
        c->aeoi = v & ICW4_AEOI;
        c->sfnm = v & ICW4_SFNM;
        c->init = INIT_READY;
        break;
    default:
        c->imr = v;
        break;
    }
}

/* The poll word (datasheet, "The Poll Command"): the request is acknowledged as by INTA. */
static uint8_t poll_read(I8259 *p, Chip *c, bool master)
{
    c->poll = false;
    int ir = pending(c, master);
    if (ir < 0)
        return 0;
    ack(c, (unsigned)ir);
    return POLL_VALID | (uint8_t)ir;
}

static uint64_t pic_peek(Device *d, uint64_t off, unsigned size)
{
    I8259 *p = (I8259 *)d;
    unsigned w = (unsigned)(off >> DEV_WINDOW_SHIFT), port = off & 0xffff;
    if (w == PIC_ELCR)
        return port < 2 ? p->chip[port].elcr : 0xff;
    if (w > PIC_SLAVE || port >= PIC_PORTS)
        return 0xff;
    const Chip *c = &p->chip[w];
    return port == PIC_DATA ? c->imr : c->read_isr ? c->isr : c->irr;
}

static uint64_t pic_read(Device *d, Cpu *cpu, uint64_t off, unsigned size)
{
    I8259 *p = (I8259 *)d;
    unsigned w = (unsigned)(off >> DEV_WINDOW_SHIFT);
    if (w <= PIC_SLAVE && (off & 0xffff) == PIC_CMD && p->chip[w].poll) {
        uint8_t v = poll_read(p, &p->chip[w], w == PIC_MASTER);
        update(p);
        return v;
    }
    return pic_peek(d, off, size);
}

static void pic_write(Device *d, Cpu *cpu, uint64_t off, unsigned size, uint64_t val)
{
    I8259 *p = (I8259 *)d;
    unsigned w = (unsigned)(off >> DEV_WINDOW_SHIFT), port = off & 0xffff;
    uint8_t v = (uint8_t)val;
    if (w == PIC_ELCR) {
        if (port < 2)
            p->chip[port].elcr = v & elcr_writable[port];
    } else if (w <= PIC_SLAVE && port < PIC_PORTS) {
        Chip *c = &p->chip[w];
        if (port == PIC_DATA)
            data_write(p, c, cpu, v);
        else if (v & ICW1)
            icw1(c, v);
        else if (v & OCW3)
            ocw3(c, v);
        else
            ocw2(c, v);
    }
    update(p);
}

/* ------------------------------------------------------------------ checkpoints */

/* Raise when a field is added (base/state.h). */
#define I8259_STATE_VERSION 1u

static const StateField chip_fields[] = {
    STATE_FIELD(Chip, irr), STATE_FIELD(Chip, isr), STATE_FIELD(Chip, imr), STATE_FIELD(Chip, level),
    STATE_FIELD(Chip, elcr), STATE_FIELD(Chip, base), STATE_FIELD(Chip, icw3), STATE_UPTO(Chip, init, INIT_ICW4),
    STATE_UPTO(Chip, lowest, 7), STATE_BOOL(Chip, ic4), STATE_BOOL(Chip, single), STATE_BOOL(Chip, ltim),
    STATE_BOOL(Chip, aeoi), STATE_BOOL(Chip, sfnm), STATE_BOOL(Chip, rotate_aeoi), STATE_BOOL(Chip, smm),
    STATE_BOOL(Chip, read_isr), STATE_BOOL(Chip, poll),
};

/* The section is named after the device's path. */
static void pic_save(Device *d, Blob *b)
{
    I8259 *p = (I8259 *)d;
    size_t at = blob_begin(b, d->name, I8259_STATE_VERSION);
    for (int i = 0; i < 2; i++)
        blob_fields(b, &p->chip[i], chip_fields, ARRAY_SIZE(chip_fields));
    blob_end(b, at);
}

static bool pic_load(Device *d, BlobReader *r)
{
    I8259 *p = (I8259 *)d;
    BrOuter outer;
    if (!br_begin(r, &outer, d->name, I8259_STATE_VERSION))
        return false;
    for (int i = 0; i < 2; i++)
        if (!br_fields(r, &p->chip[i], chip_fields, ARRAY_SIZE(chip_fields)))
            return false;
    return br_end(r, &outer);
}

static const DeviceOps pic_ops = {
    .type = "intel,i8259", .read = pic_read, .write = pic_write, .peek = pic_peek, .save = pic_save,
    .load = pic_load, .destroy = device_free,
};

bool i8259_is(const Device *d)
{
    return d->ops == &pic_ops;
}

Device *i8259_create(const DeviceHost *host, const DevDesc *dd, Error *err)
{
    if (!dd->io || dd->size < PIC_PORTS) {
        err_set(err, "node %s: property reg: the 8259A pair needs I/O windows of 2 ports (master, slave, ELCR)",
                dd->path);
        return NULL;
    }
    I8259 *p = device_alloc(sizeof(I8259), &pic_ops, host, dd);
    for (int i = 0; i < 2; i++) {
        Chip *c = &p->chip[i];
        *c = (Chip){ .base = firmware_base[i], .icw3 = i == PIC_MASTER ? 1u << PIC_CASCADE_IR : PIC_CASCADE_IR,
                     .imr = i == PIC_MASTER ? (uint8_t)~(1u << PIC_CASCADE_IR) : 0xff, .lowest = PIC_SPURIOUS_IR,
                     .ic4 = true };
    }
    return &p->d;
}
