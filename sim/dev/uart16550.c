/* uart16550.c — NS16550A UART, transmit side (the console).
 *
 * Register map (byte registers; National Semiconductor PC16550D data sheet, table II):
 *   0 RBR (read) / THR (write) / DLL (LCR.DLAB=1)     4 MCR
 *   1 IER / DLM (LCR.DLAB=1)                          5 LSR: THRE 0x20, TEMT 0x40 (always empty)
 *   2 IIR (read: 0x01 no interrupt, 0xC1 with FIFOs)  6 MSR
 *     FCR (write)                                     7 SCR
 *   3 LCR: DLAB 0x80
 * Transmission is instantaneous; nothing is ever received; no interrupt line is modelled.
 */
#include "base/state.h"
#include "sim/dev/device.h"

enum { UART_THR = 0, UART_IER = 1, UART_IIR = 2, UART_LCR = 3, UART_MCR = 4, UART_LSR = 5, UART_MSR = 6, UART_SCR = 7 };
enum { LCR_DLAB = 0x80, LSR_THRE = 0x20, LSR_TEMT = 0x40, FCR_ENABLE = 0x01 };

typedef struct Uart16550 {
    Device d;
    uint8_t ier, lcr, mcr, scr, fcr, dll, dlm;
} Uart16550;

static uint64_t uart_peek(Device *d, uint64_t off, unsigned size)
{
    Uart16550 *u = (Uart16550 *)d;
    switch (off) {
    case UART_THR: return u->lcr & LCR_DLAB ? u->dll : 0;
    case UART_IER: return u->lcr & LCR_DLAB ? u->dlm : u->ier;
    case UART_IIR: return u->fcr & FCR_ENABLE ? 0xc1 : 0x01;
    case UART_LCR: return u->lcr;
    case UART_MCR: return u->mcr;
    case UART_LSR: return LSR_THRE | LSR_TEMT;
    case UART_MSR: return 0xb0;         /* CTS, DSR, DCD */
    case UART_SCR: return u->scr;
    default: return 0xff;
    }
}

static uint64_t uart_read(Device *d, Cpu *c, uint64_t off, unsigned size)
{
    return uart_peek(d, off, size);
}

static void uart_write(Device *d, Cpu *c, uint64_t off, unsigned size, uint64_t val)
{
    Uart16550 *u = (Uart16550 *)d;
    uint8_t v = (uint8_t)val;
    switch (off) {
    case UART_THR:
        if (u->lcr & LCR_DLAB)
            u->dll = v;
        else
            d->host->console_out(d->host->opaque, v);
        break;
    case UART_IER:
        if (u->lcr & LCR_DLAB)
            u->dlm = v;
        else
            u->ier = v & 0x0f;
        break;
    case UART_IIR: u->fcr = v; break;
    case UART_LCR: u->lcr = v; break;
    case UART_MCR: u->mcr = v & 0x1f; break;
    case UART_SCR: u->scr = v; break;
    default: break;                     /* LSR, MSR: read-only */
    }
}

/* Raise when a field is added (base/state.h). */
#define UART_STATE_VERSION 1u

static const StateField uart_fields[] = {
    STATE_FIELD(Uart16550, ier), STATE_FIELD(Uart16550, lcr), STATE_UPTO(Uart16550, mcr, 0x1f),
    STATE_FIELD(Uart16550, scr), STATE_FIELD(Uart16550, fcr), STATE_FIELD(Uart16550, dll),
    STATE_FIELD(Uart16550, dlm),
};

/* The section is named after the device's path (there may be several). */
static void uart_save(Device *d, Blob *b)
{
    size_t at = blob_begin(b, d->name, UART_STATE_VERSION);
    blob_fields(b, d, uart_fields, ARRAY_SIZE(uart_fields));
    blob_end(b, at);
}

static bool uart_load(Device *d, BlobReader *r)
{
    BrOuter outer;
    return br_begin(r, &outer, d->name, UART_STATE_VERSION) && br_fields(r, d, uart_fields, ARRAY_SIZE(uart_fields)) &&
           br_end(r, &outer);
}

static const DeviceOps uart_ops = {
    .type = "ns16550a", .read = uart_read, .write = uart_write, .peek = uart_peek,
    .save = uart_save, .load = uart_load,
};

Device *uart16550_create(const DeviceHost *host, const DevDesc *dd, Error *err)
{
    if (dd->size < 8) {
        err_set(err, "node %s: property reg: a 16550 needs 8 registers", dd->path);
        return NULL;
    }
    return device_alloc(sizeof(Uart16550), &uart_ops, host, dd);
}
