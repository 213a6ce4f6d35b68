/* uart16550.c — NS16550A UART: the console's transmitter, and a receiver for console input.
 *
 * Register map (byte registers; National Semiconductor PC16550D data sheet, table II):
 *   0 RBR (read: receive) / THR (write: transmit) / DLL (LCR.DLAB=1)
 *   1 IER / DLM (LCR.DLAB=1): ERBFI 0x01 (received data), ETBEI 0x02 (THR empty), ELSI 0x04
 *     (line status), EDSSI 0x08 (modem status)
 *   2 IIR (read: [0] no interrupt pending, [3:1] the highest pending: 011 line status, 010
 *     received data, 110 character timeout, 001 THR empty, 000 modem status; [7:6] 11 with
 *     FIFOs) / FCR (write: FE 0x01, clear RX 0x02, TX 0x04, [7:6] receive trigger 1/4/8/14)
 *   3 LCR: WLS 0x03 (5 + n data bits), STB 0x04 (2 stop bits), PEN 0x08, DLAB 0x80
 *   4 MCR: DTR 0x01, RTS 0x02, OUT1 0x04, OUT2 0x08, LOOP 0x10
 *   5 LSR: DR 0x01 (received data ready), THRE 0x20, TEMT 0x40 (the transmitter is always empty)
 *   6 MSR: CTS, DSR, DCD asserted (0xB0): a terminal that is always ready
 *   7 SCR
 * Transmission is instantaneous (the console gets the byte; THRE and TEMT stay set).  Console
 * input (uart_rx.h, shared with the PL011) arrives in the receiver: a 16-byte FIFO with FCR.FE,
 * else the 1-byte RBR; one character time apart at the programmed rate (the divisor latch on
 * the node's clock-frequency, else 1.8432 MHz; 115200 baud while the divisor is 0), while the
 * guest asserts MCR.RTS and is not in loopback (the host honours flow control: Linux raises RTS
 * when the tty is opened).  Changing FCR.FE clears both FIFOs (PC16550D, FCR bit 0).
 * Interrupts (PC16550D, table IV "Interrupt Control Functions"): received data available when
 * the receiver holds the trigger level (FCR [7:6] with FIFOs, else one byte), until it falls
 * below; the character timeout when the FIFO holds less but has taken and given nothing for
 * four character times, until RBR is read; THR empty when ETBEI is set with the transmitter
 * empty or a byte was written (it leaves at once, so THR is empty again), until IIR reports it
 * or THR is written.  The line and modem status interrupts never occur: no receive errors (the
 * host never overruns the receiver) and fixed modem inputs.  The output (entry 0 of
 * `interrupts`, ISA IRQ 4 on the PC) is gated by MCR.OUT2, as a PC's serial port is (the IBM PC
 * AT Technical Reference, "Serial/Parallel Adapter"; Linux sets OUT2 to use the interrupt).
 */
#include <stdlib.h>

#include "base/state.h"
#include "sim/dev/device.h"
#include "sim/dev/uart_rx.h"

enum { UART_THR = 0, UART_IER = 1, UART_IIR = 2, UART_LCR = 3, UART_MCR = 4, UART_LSR = 5, UART_MSR = 6, UART_SCR = 7 };
enum { UART_NREGS = 8 };
enum { LCR_WLS = 0x03, LCR_STB = 0x04, LCR_PEN = 0x08, LCR_DLAB = 0x80 };
enum { LSR_DR = 0x01, LSR_THRE = 0x20, LSR_TEMT = 0x40 };
enum { FCR_ENABLE = 0x01, FCR_CLEAR_RX = 0x02 };
enum { MCR_RTS = 0x02, MCR_OUT2 = 0x08, MCR_LOOP = 0x10, MCR_MASK = 0x1f, IER_MASK = 0x0f };
enum { IER_RDA = 0x01, IER_THRE = 0x02 };
enum { IIR_NONE = 0x01, IIR_THRE = 0x02, IIR_RDA = 0x04, IIR_TIMEOUT = 0x0c, IIR_FIFOS = 0xc0 };
enum { MSR_READY = 0xb0, FLOATING_BUS = 0xff, FCR_TRIGGER_SHIFT = 6 };

#define UART_FIFO_DEPTH 16u
#define UART_DEFAULT_CLK_HZ 1843200ull  /* the PC's 1.8432 MHz crystal */
#define UART_DEFAULT_BAUD 115200ull     /* console input with the divisor latch at 0 */
#define UART_OVERSAMPLE 16u             /* baud = clock / (16 * divisor) */
#define UART_TIMEOUT_CHARS 4u           /* the character timeout (PC16550D, "FIFO Interrupt Mode") */

typedef struct Uart16550 {
    Device d;
    UartRx rx;
    uint64_t clk_hz;
    uint8_t ier, lcr, mcr, scr, fcr, dll, dlm;
    uint8_t rxf[UART_FIFO_DEPTH];
    uint32_t rx_head, rx_count;
    IrqLine irq;
    bool thri;                      /* the THR empty interrupt is pending */
    bool timeout;                   /* the character timeout interrupt is pending */
    int rt_cpu;                     /* the CPU whose queue rx_timeout is on */
    Event rx_timeout;
} Uart16550;

static uint32_t uart_depth(const Uart16550 *u)
{
    return u->fcr & FCR_ENABLE ? UART_FIFO_DEPTH : 1;
}

/* ------------------------------------------------------------------ interrupts */

static uint64_t uart_rx_char_cycles(void *dev);

static uint32_t uart_trigger(const Uart16550 *u)
{
    static const uint8_t level[4] = { 1, 4, 8, 14 };
    return u->fcr & FCR_ENABLE ? level[u->fcr >> FCR_TRIGGER_SHIFT] : 1;
}

/* IIR's [3:1]: the highest-priority interrupt pending (PC16550D, table IV), IIR_NONE if none. */
static uint8_t uart_pending(const Uart16550 *u)
{
    if ((u->ier & IER_RDA) && u->rx_count >= uart_trigger(u))
        return IIR_RDA;
    if ((u->ier & IER_RDA) && u->timeout)
        return IIR_TIMEOUT;
    if ((u->ier & IER_THRE) && u->thri)
        return IIR_THRE;
    return IIR_NONE;
}

static void uart_update(Uart16550 *u)
{
    irq_set(&u->irq, uart_pending(u) != IIR_NONE && (u->mcr & MCR_OUT2));
}

static void uart_rx_timeout(Event *ev, void *opaque)
{
    Uart16550 *u = opaque;
    u->timeout = u->rx_count > 0;
    uart_update(u);
}

/* Four character times from `when` on `cpu`, while the FIFO holds something. */
static void uart_timer(Uart16550 *u, int cpu, uint64_t when)
{
    const DeviceHost *h = u->d.host;
    evq_remove(&u->rx_timeout);
    if (!u->rx_count || !(u->fcr & FCR_ENABLE))
        return;
    u->rt_cpu = cpu;
    h->cpu_schedule(h->opaque, cpu, &u->rx_timeout, when + UART_TIMEOUT_CHARS * uart_rx_char_cycles(u));
}

/* ------------------------------------------------------------------ receive */

static bool uart_rx_ready(void *dev)
{
    const Uart16550 *u = dev;
    return (u->mcr & (MCR_RTS | MCR_LOOP)) == MCR_RTS && u->rx_count < uart_depth(u);
}

static void uart_rx_put(void *dev, uint8_t c, uint64_t when)
{
    Uart16550 *u = dev;
    u->rxf[(u->rx_head + u->rx_count++) % UART_FIFO_DEPTH] = c;
    u->timeout = false;
    uart_timer(u, u->rx.cpu, when);
    uart_update(u);
}

/* Start, 5 to 8 data, parity and stop bits at clock / (16 * divisor), in CPU cycles. */
static uint64_t uart_rx_char_cycles(void *dev)
{
    const Uart16550 *u = dev;
    unsigned bits = 1 + 5 + (u->lcr & LCR_WLS) + !!(u->lcr & LCR_PEN) + (u->lcr & LCR_STB ? 2 : 1);
    uint64_t div = (uint64_t)u->dlm << 8 | u->dll, hz = u->d.host->cpu_hz;
    uint64_t t = div ? muldiv64(hz, bits * div * UART_OVERSAMPLE, u->clk_hz) : muldiv64(hz, bits, UART_DEFAULT_BAUD);
    return t ? t : 1;
}

static const UartRxOps uart_rx_ops = { uart_rx_ready, uart_rx_put, uart_rx_char_cycles };

static uint8_t uart_rx_take(Uart16550 *u)
{
    if (!u->rx_count)
        return 0;
    uint8_t c = u->rxf[u->rx_head];
    u->rx_head = (u->rx_head + 1) % UART_FIFO_DEPTH;
    u->rx_count--;
    return c;
}

/* ------------------------------------------------------------------ registers */

static uint64_t uart_peek(Device *d, uint64_t off, unsigned size)
{
    Uart16550 *u = (Uart16550 *)d;
    switch (off) {
    case UART_THR: return u->lcr & LCR_DLAB ? u->dll : u->rx_count ? u->rxf[u->rx_head] : 0;
    case UART_IER: return u->lcr & LCR_DLAB ? u->dlm : u->ier;
    case UART_IIR: return (u->fcr & FCR_ENABLE ? IIR_FIFOS : 0) | uart_pending(u);
    case UART_LCR: return u->lcr;
    case UART_MCR: return u->mcr;
    case UART_LSR: return LSR_THRE | LSR_TEMT | (u->rx_count ? LSR_DR : 0);
    case UART_MSR: return MSR_READY;
    case UART_SCR: return u->scr;
    default: return FLOATING_BUS;
    }
}

/* An RBR read ends the character timeout and starts its count again (PC16550D, "FIFO
 * Interrupt Mode Operation"); an IIR read that reports THR empty clears it (table IV). */
static uint64_t uart_read(Device *d, Cpu *c, uint64_t off, unsigned size)
{
    Uart16550 *u = (Uart16550 *)d;
    const DeviceHost *h = d->host;
    uint64_t v;
    if (off == UART_THR && !(u->lcr & LCR_DLAB)) {
        v = uart_rx_take(u);
        u->timeout = false;
        uart_timer(u, h->cpu_index(h->opaque, c), h->now(h->opaque, c));
    } else {
        v = uart_peek(d, off, size);
        if (off == UART_IIR && (v & 0x0f) == IIR_THRE)
            u->thri = false;
    }
    uartrx_access(&u->rx, c);     /* RBR read, MCR.RTS, FCR: the way may open */
    uart_update(u);
    return v;
}

/* FCR: changing FE clears both FIFOs, CLEAR_RX the receiver's (PC16550D, FCR bits 0 and 1). */
static void uart_write_fcr(Uart16550 *u, uint8_t v)
{
    if ((v ^ u->fcr) & FCR_ENABLE || v & FCR_CLEAR_RX) {
        u->rx_head = u->rx_count = 0;
        u->timeout = false;
        evq_remove(&u->rx_timeout);
    }
    u->fcr = v;
}

static void uart_write(Device *d, Cpu *c, uint64_t off, unsigned size, uint64_t val)
{
    Uart16550 *u = (Uart16550 *)d;
    uint8_t v = (uint8_t)val;
    switch (off) {
    case UART_THR:
        if (u->lcr & LCR_DLAB) {
            u->dll = v;
        } else {
            d->host->console_out(d->host->opaque, v);
            u->thri = true;             /* sent at once: THR is empty again */
        }
        break;
    case UART_IER:
        if (u->lcr & LCR_DLAB) {
            u->dlm = v;
        } else {
            if (v & ~u->ier & IER_THRE)
                u->thri = true;         /* enabled with THR empty: pending at once */
            u->ier = v & IER_MASK;
        }
        break;
    case UART_IIR: uart_write_fcr(u, v); break;
    case UART_LCR: u->lcr = v; break;
    case UART_MCR: u->mcr = v & MCR_MASK; break;
    case UART_SCR: u->scr = v; break;
    default: break;                     /* LSR, MSR: read-only */
    }
    uartrx_access(&u->rx, c);     /* RBR read, MCR.RTS, FCR: the way may open */
    uart_update(u);
}

/* ------------------------------------------------------------------ checkpoints */

/* Raise when a field is added (base/state.h).  Version 2: the receiver and console input;
 * 3: the interrupts. */
#define UART_STATE_VERSION 3u

static const StateField uart_fields[] = {
    STATE_FIELD(Uart16550, ier), STATE_FIELD(Uart16550, lcr), STATE_UPTO(Uart16550, mcr, MCR_MASK),
    STATE_FIELD(Uart16550, scr), STATE_FIELD(Uart16550, fcr), STATE_FIELD(Uart16550, dll),
    STATE_FIELD(Uart16550, dlm), STATE_ARRAY_V(Uart16550, rxf, 2),
    STATE_UPTO_V(Uart16550, rx_head, UART_FIFO_DEPTH - 1, 2), STATE_UPTO_V(Uart16550, rx_count, UART_FIFO_DEPTH, 2),
    STATE_BOOL_V(Uart16550, thri, 3), STATE_BOOL_V(Uart16550, timeout, 3), STATE_FIELD_V(Uart16550, rt_cpu, 3),
};

/* The section is named after the device's path (there may be several). */
static void uart_save(Device *d, Blob *b)
{
    Uart16550 *u = (Uart16550 *)d;
    size_t at = blob_begin(b, d->name, UART_STATE_VERSION);
    blob_fields(b, d, uart_fields, ARRAY_SIZE(uart_fields));
    uartrx_save(&u->rx, b);
    blob_event(b, &u->rx_timeout);
    blob_end(b, at);
}

static bool uart_load(Device *d, BlobReader *r)
{
    Uart16550 *u = (Uart16550 *)d;
    BrOuter outer;
    if (!br_begin(r, &outer, d->name, UART_STATE_VERSION) || !br_fields(r, d, uart_fields, ARRAY_SIZE(uart_fields)))
        return false;
    if (r->version >= 2 && !uartrx_load(&u->rx, r))
        return false;
    if (r->version >= 3) {
        const DeviceHost *h = d->host;
        if (u->rt_cpu < 0 || u->rt_cpu >= h->ncpus)
            return br_fail(r, "the 16550's timeout CPU");
        br_event(r, &u->rx_timeout, h->cpu_events(h->opaque, u->rt_cpu));
    }
    return br_end(r, &outer);
}

static void uart_destroy(Device *d)
{
    Uart16550 *u = (Uart16550 *)d;
    evq_remove(&u->rx.arrive);
    evq_remove(&u->rx_timeout);
    free(u);
}

static const DeviceOps uart_ops = {
    .type = "ns16550a", .read = uart_read, .write = uart_write, .peek = uart_peek,
    .save = uart_save, .load = uart_load, .destroy = uart_destroy,
};

Device *uart16550_create(const DeviceHost *host, const DevDesc *dd, Error *err)
{
    if (dd->size < UART_NREGS) {
        err_set(err, "node %s: property reg: a 16550 needs 8 registers", dd->path);
        return NULL;
    }
    Uart16550 *u = device_alloc(sizeof(Uart16550), &uart_ops, host, dd);
    u->clk_hz = dd->clock_hz ? dd->clock_hz : UART_DEFAULT_CLK_HZ;
    uartrx_init(&u->rx, host, dd, &uart_rx_ops, u);
    u->irq = host->irq(host->opaque, dd, 0);
    event_init(&u->rx_timeout, "uart-rt", uart_rx_timeout, u);
    return &u->d;
}
