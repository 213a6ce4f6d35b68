/* pl011.c — ARM PrimeCell UART (PL011) r1p5, as the TRM (ARM DDI 0183G) and Linux's
 * drivers/tty/serial/amba-pl011.c see it.
 *
 * Register map (DDI 0183G table 3-1; 32-bit registers, bits above the width read as zero):
 *   0x000 DR      RW  write [7:0]: transmit; read [7:0] data, [8] FE [9] PE [10] BE [11] OE
 *   0x004 RSR/ECR RW  read: [0] FE [1] PE [2] BE [3] OE of the character last read; write: clear
 *   0x018 FR      RO  [0] CTS [1] DSR [2] DCD [3] BUSY [4] RXFE [5] TXFF [6] RXFF [7] TXFE [8] RI
 *   0x020 ILPR    RW  [7:0] IrDA low-power divisor (kept, no IrDA line)
 *   0x024 IBRD    RW  [15:0] integer baud divisor   } latched, with LCR_H, by a write of LCR_H
 *   0x028 FBRD    RW  [5:0] fractional divisor      } (TRM, "Fractional Baud Rate Register")
 *   0x02C LCR_H   RW  [0] BRK [1] PEN [2] EPS [3] STP2 [4] FEN [6:5] WLEN [7] SPS
 *   0x030 CR      RW  [0] UARTEN [1] SIREN [2] SIRLP [7] LBE [8] TXE [9] RXE [10] DTR [11] RTS
 *                     [12] OUT1 [13] OUT2 [14] RTSEN [15] CTSEN
 *   0x034 IFLS    RW  [2:0] TXIFLSEL [5:3] RXIFLSEL: 0 1/8, 1 1/4, 2 1/2, 3 3/4, 4 7/8 of 32
 *   0x038 IMSC    RW  [10:0] mask set/clear           } interrupt bits: [0] RI [1] CTS [2] DCD
 *   0x03C RIS     RO  raw interrupt status            } [3] DSR [4] RX [5] TX [6] RT [7] FE
 *   0x040 MIS     RO  RIS & IMSC                      } [8] PE [9] BE [10] OE
 *   0x044 ICR     WO  write 1 to clear RIS bits       }
 *   0x048 DMACR   RW  [0] RXDMAE [1] TXDMAE [2] DMAONERR (kept; no DMA controller answers)
 *   0xFE0-0xFEC PeriphID0-3: 0x11 0x10 0x34 0x00 (part 0x011, designer ARM 0x41, revision 3: r1p5)
 *   0xFF0-0xFFC PCellID0-3:  0x0D 0xF0 0x05 0xB1
 * Every other offset (the test registers at 0x080-0x08C too) is no register: a diag.
 *
 * FIFOs (TRM, "UART operation"): 32 entries each way with LCR_H.FEN (revision 3 has 32; Linux's
 * get_fifosize_arm), else 1-character holding registers.  FEN changing keeps what they hold
 * (the TRM does not say they are flushed; QEMU flushes them, which would lose console input).
 *
 * Interrupts (TRM, "Interrupts"): UARTINTR, the line the node's first `interrupts` entry names, is
 * (RIS & IMSC) != 0.  RX and TX follow the FIFO level through the IFLS trigger as Linux relies
 * on: RXRIS rises when the receive FIFO reaches the trigger from below and falls when reading
 * takes it below; TXRIS rises when the transmit FIFO drains from above its trigger to it, and
 * falls when writes take it above (not merely because the FIFO is empty: Linux's start_tx fills
 * the FIFO first, amba-pl011.c pl011_start_tx_pio; without FIFOs, TXRIS rises when the holding
 * register empties).  RTRIS rises 32 bit periods after the last character arrived if the FIFO
 * still holds data, and falls when it empties.  ICR clears any of them until the next rise.
 *
 * Line timing: a character takes 1 start + 5..8 data + parity + 1 or 2 stop bits, each bit
 * 16 * (IBRD + FBRD/64) cycles of UARTCLK (TRM, "Baud rate divisor"; UARTCLK is the node's clock,
 * else 24 MHz as QEMU virt's apb-pclk).  With the divisor not programmed (IBRD = 0, its reset value, which the TRM
 * calls invalid) a written character is on the line at once, as on QEMU's PL011 (bare-metal
 * images written for QEMU poll TXFF without programming the UART), and console input arrives
 * at 115200 baud.  The console gets each byte when the guest writes it, so no byte is ever
 * lost, even one the hardware would drop (the FIFO full, the transmitter disabled: a diag).
 *
 * Console input (uart_rx.h) arrives while the receiver is enabled (UARTEN, RXE), not looping
 * back, and the guest asserts RTS (CR.RTS, or RTSEN): the host end is a terminal that honours
 * flow control, so a kernel loses nothing typed before it opens the port (Linux raises RTS when
 * a tty is opened, after pl011_startup has drained the FIFO: serial_core.c uart_port_startup).
 *
 * At boot the UART is as firmware leaves a console (TF-A's console_pl011, U-Boot): UARTEN, TXE
 * and RXE set, RTS not; every other register at its TRM reset value.  The modem inputs read as
 * a terminal that is always ready (CTS, DSR, DCD asserted, RI not), as the 16550's MSR does, so
 * CTSEN never holds the transmitter.  No IrDA, no modem-status interrupts, no break: SIREN,
 * ILPR and LCR_H.BRK are kept and do nothing.
 */
#include <stdlib.h>

#include "base/state.h"
#include "sim/dev/device.h"
#include "sim/dev/uart_rx.h"

enum {
    PL011_DR = 0x000, PL011_RSR = 0x004, PL011_FR = 0x018, PL011_ILPR = 0x020, PL011_IBRD = 0x024,
    PL011_FBRD = 0x028, PL011_LCRH = 0x02c, PL011_CR = 0x030, PL011_IFLS = 0x034, PL011_IMSC = 0x038,
    PL011_RIS = 0x03c, PL011_MIS = 0x040, PL011_ICR = 0x044, PL011_DMACR = 0x048,
    PL011_ID = 0xfe0, PL011_ID_END = 0x1000, PL011_SIZE = 0x1000,
};
enum { DR_FE = 1 << 8, DR_PE = 1 << 9, DR_BE = 1 << 10, DR_OE = 1 << 11, DR_ERR_SHIFT = 8 };
enum { RSR_FE = 1 << 0, RSR_PE = 1 << 1, RSR_BE = 1 << 2, RSR_OE = 1 << 3, RSR_ERRORS = RSR_FE | RSR_PE | RSR_BE };
enum {
    FR_CTS = 1 << 0, FR_DSR = 1 << 1, FR_DCD = 1 << 2, FR_BUSY = 1 << 3, FR_RXFE = 1 << 4, FR_TXFF = 1 << 5,
    FR_RXFF = 1 << 6, FR_TXFE = 1 << 7, FR_RI = 1 << 8,
};
enum { LCRH_PEN = 1 << 1, LCRH_STP2 = 1 << 3, LCRH_FEN = 1 << 4, LCRH_WLEN_SHIFT = 5, LCRH_WLEN_MASK = 3 };
enum {
    CR_UARTEN = 1 << 0, CR_LBE = 1 << 7, CR_TXE = 1 << 8, CR_RXE = 1 << 9, CR_RTS = 1 << 11, CR_RTSEN = 1 << 14,
    CR_RESERVED = 0x78,
};
enum { IFLS_TX_SHIFT = 0, IFLS_RX_SHIFT = 3, IFLS_SEL_MASK = 7, IFLS_SEL_MAX = 4, IFLS_RESET = 0x12 };
enum {
    INT_RX = 1 << 4, INT_TX = 1 << 5, INT_RT = 1 << 6, INT_OE = 1 << 10,
};
enum { DMACR_RXDMAE = 1 << 0, DMACR_TXDMAE = 1 << 1 };
/* Register widths (DDI 0183G table 3-1). */
enum {
    W_DR_DATA = 0xff, W_ILPR = 0xff, W_IBRD = 0xffff, W_FBRD = 0x3f, W_LCRH = 0xff, W_CR = 0xffff, W_IFLS = 0x3f,
    W_INT = 0x7ff, W_DMACR = 7, W_ENTRY = 0xfff,
};

#define PL011_FIFO_DEPTH 32u        /* r1p5 (revision 3); earlier revisions had 16 */
#define PL011_DEFAULT_CLK_HZ 24000000ull /* QEMU virt's apb-pclk, when the node names no clock */
#define PL011_DEFAULT_BAUD 115200ull   /* console input with the divisor not programmed */
#define PL011_RT_BITS 32u           /* the receive timeout: 32 bit periods (TRM, UARTRTINTR) */
#define PL011_BAUD_DIV_ONE 64u      /* the latched divisor is 64 * (IBRD + FBRD / 64) */
#define PL011_OVERSAMPLE 16u        /* one bit is 16 periods of Baud16 (TRM, "Baud rate divisor") */
/* Boot state: a console as firmware leaves it (see the header comment). */
#define PL011_CR_BOOT (CR_UARTEN | CR_TXE | CR_RXE)

static const uint8_t pl011_ids[8] = { 0x11, 0x10, 0x34, 0x00, 0x0d, 0xf0, 0x05, 0xb1 };
/* FIFO trigger levels of IFLS's 3-bit fields, in entries of 32 (reserved encodings: 1/2). */
static const uint8_t pl011_trigger[8] = { 4, 8, 16, 24, 28, 16, 16, 16 };

typedef struct Pl011 {
    Device d;
    IrqLine irq;                    /* UARTINTR */
    UartRx rx;                      /* console input (uart_rx.h) */
    uint64_t clk_hz;                /* UARTCLK */
    uint32_t ilpr, ibrd, fbrd, lcrh, cr, ifls, imsc, dmacr;
    uint32_t ris;                   /* raw interrupt status */
    uint32_t rsr;                   /* FE, PE, BE of the character last read; OE until ECR */
    uint32_t div;                   /* 64 * IBRD + FBRD, latched by the last LCR_H write; 0: none */
    uint16_t rxf[PL011_FIFO_DEPTH]; /* receive FIFO entries: data and FE, PE, BE, OE (DR's bits) */
    uint32_t rx_head, rx_count;
    bool rx_overrun;                /* a character was lost: the next one in carries OE */
    uint8_t txf[PL011_FIFO_DEPTH];  /* transmit FIFO (loopback needs the characters) */
    uint32_t tx_head, tx_count;
    bool tx_shifting;               /* a character is in the shift register */
    uint8_t tx_shift;
    bool level;                     /* UARTINTR as last driven */
    bool warned_disabled;           /* one diag for DR written while disabled, until CR is written */
    int tx_cpu, rt_cpu;             /* the CPUs whose queues tx_done and rx_timeout were put on */
    Event tx_done;                  /* the shift register's character has left */
    Event rx_timeout;               /* 32 bit periods after the last arrival */
} Pl011;

/* ------------------------------------------------------------------ line timing */

static uint32_t pl011_depth(const Pl011 *u)
{
    return u->lcrh & LCRH_FEN ? PL011_FIFO_DEPTH : 1;
}

/* Start, data, parity and stop bits of one character (LCR_H). */
static unsigned pl011_frame_bits(const Pl011 *u)
{
    unsigned data = 5 + (u->lcrh >> LCRH_WLEN_SHIFT & LCRH_WLEN_MASK);
    return 1 + data + !!(u->lcrh & LCRH_PEN) + (u->lcrh & LCRH_STP2 ? 2 : 1);
}

/* `bits` bit periods in CPU cycles (at least 1): 16 * div / 64 UARTCLK cycles per bit, or at
 * the default rate without a divisor. */
static uint64_t pl011_bits_cycles(const Pl011 *u, unsigned bits)
{
    uint64_t hz = u->d.host->cpu_hz, t;
    if (u->div)
        t = muldiv64(hz, (uint64_t)bits * u->div * PL011_OVERSAMPLE, PL011_BAUD_DIV_ONE * u->clk_hz);
    else
        t = muldiv64(hz, bits, PL011_DEFAULT_BAUD);
    return t ? t : 1;
}

/* A transmitted character's time on the line; 0 without a divisor (see the header). */
static uint64_t pl011_tx_cycles(const Pl011 *u)
{
    return u->div ? pl011_bits_cycles(u, pl011_frame_bits(u)) : 0;
}

/* ------------------------------------------------------------------ interrupts */

static void pl011_update(Pl011 *u)
{
    bool level = (u->ris & u->imsc) != 0;
    if (level != u->level) {
        u->level = level;
        irq_set(&u->irq, level);
    }
}

static uint32_t pl011_tx_trigger(const Pl011 *u)
{
    return u->lcrh & LCRH_FEN ? pl011_trigger[u->ifls >> IFLS_TX_SHIFT & IFLS_SEL_MASK] : 0;
}

static uint32_t pl011_rx_trigger(const Pl011 *u)
{
    return u->lcrh & LCRH_FEN ? pl011_trigger[u->ifls >> IFLS_RX_SHIFT & IFLS_SEL_MASK] : 1;
}

/* The transmit FIFO holds n: TXRIS rises as it drains to the trigger, falls above it. */
static void pl011_tx_level(Pl011 *u, uint32_t n)
{
    uint32_t trig = pl011_tx_trigger(u), old = u->tx_count;
    u->tx_count = n;
    if (old > trig && n <= trig)
        u->ris |= INT_TX;
    else if (old <= trig && n > trig)
        u->ris &= ~INT_TX;
}

/* The receive FIFO holds n: RXRIS rises as it fills to the trigger, falls below it; RTRIS
 * falls when it is empty. */
static void pl011_rx_level(Pl011 *u, uint32_t n)
{
    uint32_t trig = pl011_rx_trigger(u), old = u->rx_count;
    u->rx_count = n;
    if (old < trig && n >= trig)
        u->ris |= INT_RX;
    else if (old >= trig && n < trig)
        u->ris &= ~INT_RX;
    if (!n) {
        u->ris &= ~INT_RT;
        evq_remove(&u->rx_timeout);
    }
}

static void pl011_rx_timeout(Event *ev, void *opaque)
{
    Pl011 *u = opaque;
    if (u->rx_count)
        u->ris |= INT_RT;
    pl011_update(u);
}

/* ------------------------------------------------------------------ receive */

static bool pl011_rx_on(const Pl011 *u)
{
    return (u->cr & (CR_UARTEN | CR_RXE)) == (CR_UARTEN | CR_RXE);
}

/* A character arrived at cycle `when` of CPU `cpu` (from the console, or looped back).  The
 * FIFO full, it is lost: an overrun (RSR.OE, OEIS, and OE on the next character in). */
static void pl011_rx_put(Pl011 *u, uint8_t c, uint64_t when, int cpu)
{
    if (u->rx_count >= pl011_depth(u)) {
        u->rsr |= RSR_OE;
        u->ris |= INT_OE;
        u->rx_overrun = true;
    } else {
        u->rxf[(u->rx_head + u->rx_count) % PL011_FIFO_DEPTH] = c | (u->rx_overrun ? DR_OE : 0);
        u->rx_overrun = false;
        pl011_rx_level(u, u->rx_count + 1);
        u->rt_cpu = cpu;
        const DeviceHost *h = u->d.host;
        h->cpu_schedule(h->opaque, cpu, &u->rx_timeout, when + pl011_bits_cycles(u, PL011_RT_BITS));
    }
    pl011_update(u);
}

/* Console input (uart_rx.h): the receiver takes it while enabled, not looping back, not full,
 * and the guest asks for it with RTS (by hand, or RTSEN's automatic flow control). */
static bool pl011_rx_ready(void *dev)
{
    const Pl011 *u = dev;
    return pl011_rx_on(u) && u->cr & (CR_RTS | CR_RTSEN) && !(u->cr & CR_LBE) && u->rx_count < pl011_depth(u);
}

static void pl011_rx_console(void *dev, uint8_t c, uint64_t when)
{
    Pl011 *u = dev;
    pl011_rx_put(u, c, when, u->rx.cpu);
}

static uint64_t pl011_rx_char_cycles(void *dev)
{
    const Pl011 *u = dev;
    return pl011_bits_cycles(u, pl011_frame_bits(u));
}

static const UartRxOps pl011_rx_ops = { pl011_rx_ready, pl011_rx_console, pl011_rx_char_cycles };

/* ------------------------------------------------------------------ transmit */

static bool pl011_tx_on(const Pl011 *u)
{
    return (u->cr & (CR_UARTEN | CR_TXE)) == (CR_UARTEN | CR_TXE);
}

/* A character left the shift register at `when` of CPU `cpu`: in loopback it reaches the
 * receiver (TRM, UARTCR.LBE). */
static void pl011_tx_sent(Pl011 *u, uint8_t c, int cpu, uint64_t when)
{
    if (u->cr & CR_LBE)
        pl011_rx_put(u, c, when, cpu);
}

/* The end of a character on the line can change no interrupt line while the TX interrupt is
 * masked and nothing loops back: its event is then lazy (base/clock.h), and the guest's next
 * access catches up with it (pl011_catch_up).  Linux's console write polls FR with TXIM masked:
 * a CPU stop at every character's exact instruction cost a Linux boot 10^4 block cuts, each
 * translating the block twice. */
static bool pl011_tx_lazy(const Pl011 *u)
{
    return !(u->cr & CR_LBE) && !(u->imsc & INT_TX);
}

/* While the transmitter is enabled and idle, the next character moves from the FIFO into the
 * shift register (which can make TXRIS rise); without a divisor it is sent at once.  Its end is
 * an event on CPU `cpu`'s queue (tx_cpu names the queue, for checkpoints). */
static void pl011_tx_next(Pl011 *u, int cpu, uint64_t now)
{
    const DeviceHost *h = u->d.host;
    while (!u->tx_shifting && u->tx_count && pl011_tx_on(u)) {
        uint8_t c = u->txf[u->tx_head];
        u->tx_head = (u->tx_head + 1) % PL011_FIFO_DEPTH;
        pl011_tx_level(u, u->tx_count - 1);
        uint64_t t = pl011_tx_cycles(u);
        if (!t) {
            pl011_tx_sent(u, c, cpu, now);
            continue;
        }
        u->tx_shifting = true;
        u->tx_shift = c;
        u->tx_cpu = cpu;
        u->tx_done.lazy = pl011_tx_lazy(u);
        h->cpu_schedule(h->opaque, cpu, &u->tx_done, now + t);
    }
}

static void pl011_tx_finish(Event *ev, void *opaque)
{
    Pl011 *u = opaque;
    u->tx_shifting = false;
    pl011_tx_sent(u, u->tx_shift, u->tx_cpu, ev->when);
    pl011_tx_next(u, u->tx_cpu, ev->when);
    pl011_update(u);
}

/* Before an access by CPU `cpu` (`c`): a lazy end of character on its own queue that is due by
 * the accessing instruction's time happens first, at its own cycle, as it would have had the
 * CPU stopped there.  (On another CPU's queue it happens in that CPU's run, as any event does.)
 * The CPU's clock, which has counted the whole current block, rules most accesses out before
 * the exact time is asked for. */
static void pl011_catch_up(Pl011 *u, Cpu *c, int cpu)
{
    const DeviceHost *h = u->d.host;
    while (event_pending(&u->tx_done) && u->tx_done.lazy && u->tx_cpu == cpu &&
           u->tx_done.when <= h->cpu_cycles(h->opaque, cpu) && u->tx_done.when <= h->now(h->opaque, c)) {
        evq_remove(&u->tx_done);
        pl011_tx_finish(&u->tx_done, u);
    }
}

/* After a register write: a pending end of character that could now change the interrupt line
 * goes back to the exact instruction. */
static void pl011_tx_relazy(Pl011 *u)
{
    const DeviceHost *h = u->d.host;
    if (event_pending(&u->tx_done) && u->tx_done.lazy && !pl011_tx_lazy(u)) {
        u->tx_done.lazy = false;
        h->cpu_schedule(h->opaque, u->tx_cpu, &u->tx_done, u->tx_done.when);
    }
}

/* The console gets the byte now, whatever happens to it on the line. */
static void pl011_write_dr(Pl011 *u, Cpu *c, int cpu, uint8_t ch, uint64_t now)
{
    const DeviceHost *h = u->d.host;
    h->console_out(h->opaque, ch);
    if (!pl011_tx_on(u) && !u->warned_disabled) {
        u->warned_disabled = true;
        h->diag(h->opaque, c, "uart-disabled", "%s: DR written with the transmitter disabled (CR 0x%x: UARTEN and TXE"
                " not both set): the PL011 holds it; the console has it", u->d.name, u->cr);
    }
    if (u->tx_count >= pl011_depth(u)) {
        h->diag(h->opaque, c, "uart-tx-full", "%s: DR written with the transmit FIFO full (FR.TXFF): the PL011 drops "
                "0x%02x; the console has it", u->d.name, ch);
        return;
    }
    u->txf[(u->tx_head + u->tx_count) % PL011_FIFO_DEPTH] = ch;
    pl011_tx_level(u, u->tx_count + 1);
    pl011_tx_next(u, cpu, now);
}

/* ------------------------------------------------------------------ registers */

static uint32_t pl011_fr(const Pl011 *u)
{
    uint32_t fr = FR_CTS | FR_DSR | FR_DCD;
    fr |= u->tx_shifting || u->tx_count ? FR_BUSY : 0;
    fr |= u->rx_count ? 0 : FR_RXFE;
    fr |= u->rx_count >= pl011_depth(u) ? FR_RXFF : 0;
    fr |= u->tx_count >= pl011_depth(u) ? FR_TXFF : 0;
    fr |= u->tx_count ? 0 : FR_TXFE;
    return fr;
}

/* A register's value, no side effect (DR: the entry a read would take). */
static bool pl011_value(const Pl011 *u, uint64_t reg, uint32_t *v)
{
    switch (reg) {
    case PL011_DR: *v = u->rx_count ? u->rxf[u->rx_head] : 0; return true;
    case PL011_RSR: *v = u->rsr; return true;
    case PL011_FR: *v = pl011_fr(u); return true;
    case PL011_ILPR: *v = u->ilpr; return true;
    case PL011_IBRD: *v = u->ibrd; return true;
    case PL011_FBRD: *v = u->fbrd; return true;
    case PL011_LCRH: *v = u->lcrh; return true;
    case PL011_CR: *v = u->cr; return true;
    case PL011_IFLS: *v = u->ifls; return true;
    case PL011_IMSC: *v = u->imsc; return true;
    case PL011_RIS: *v = u->ris; return true;
    case PL011_MIS: *v = u->ris & u->imsc; return true;
    case PL011_DMACR: *v = u->dmacr; return true;
    default:
        if (reg >= PL011_ID && reg < PL011_ID_END) {
            *v = pl011_ids[(reg - PL011_ID) / 4];
            return true;
        }
        *v = 0;
        return false;
    }
}

/* Byte lanes of a register for an access of `size` at `off` (Linux uses 16-bit accesses,
 * earlycon 8-bit ones to DR). */
static uint64_t pl011_lanes(uint32_t v, uint64_t off, unsigned size)
{
    uint64_t x = v >> (8 * (off & 3));
    return size >= 4 ? x : x & ((1ull << (8 * size)) - 1);
}

static uint64_t pl011_peek(Device *d, uint64_t off, unsigned size)
{
    uint32_t v;
    pl011_value((const Pl011 *)d, off & ~3ull, &v);
    return pl011_lanes(v, off, size);
}

/* Read DR: the oldest entry leaves the FIFO; RSR gets its error bits. */
static uint32_t pl011_read_dr(Pl011 *u, Cpu *c)
{
    const DeviceHost *h = u->d.host;
    if (!u->rx_count) {
        h->diag(h->opaque, c, "uart-rx-empty", "%s: DR read with the receive FIFO empty (FR.RXFE): reads 0", u->d.name);
        return 0;
    }
    uint32_t v = u->rxf[u->rx_head];
    u->rx_head = (u->rx_head + 1) % PL011_FIFO_DEPTH;
    u->rsr = (u->rsr & RSR_OE) | (v >> DR_ERR_SHIFT & RSR_ERRORS);
    pl011_rx_level(u, u->rx_count - 1);
    pl011_update(u);
    return v;
}

static bool pl011_access_ok(Pl011 *u, Cpu *c, uint64_t off, unsigned size, const char *what)
{
    if ((size == 1 || size == 2 || size == 4) && (off & 3) + size <= 4)
        return true;
    const DeviceHost *h = u->d.host;
    h->diag(h->opaque, c, "uart-access", "%s: %s of %u bytes at +0x%" PRIx64 ": the PL011's registers take 8-, 16- "
            "and 32-bit accesses inside one register; %s", u->d.name, what, size, off,
            what[0] == 'r' ? "reads 0" : "ignored");
    return false;
}

static uint64_t pl011_read(Device *d, Cpu *c, uint64_t off, unsigned size)
{
    Pl011 *u = (Pl011 *)d;
    const DeviceHost *h = d->host;
    if (!pl011_access_ok(u, c, off, size, "read"))
        return 0;
    uint64_t reg = off & ~3ull;
    uint32_t v;
    pl011_catch_up(u, c, h->cpu_index(h->opaque, c));
    if (reg == PL011_DR && !(off & 3))
        v = pl011_read_dr(u, c);
    else if (!pl011_value(u, reg, &v))
        h->diag(h->opaque, c, "uart-register", "%s: read of +0x%" PRIx64 ", which is %s: reads 0", d->name, off,
                reg == PL011_ICR ? "write-only (ICR)" : "no register");
    uartrx_access(&u->rx, c);       /* a read of DR made room */
    return pl011_lanes(v, off, size);
}

/* ------------------------------------------------------------------ writes */

/* LCR_H latches IBRD and FBRD with it (TRM, "Line Control Register"); the FIFO depth may change. */
static void pl011_write_lcrh(Pl011 *u, uint32_t v)
{
    u->lcrh = v & W_LCRH;
    u->div = u->ibrd ? u->ibrd * PL011_BAUD_DIV_ONE + u->fbrd : 0;
}

/* A transmitter or receiver that comes on starts where it stands. */
static void pl011_write_cr(Pl011 *u, Cpu *c, int cpu, uint32_t v, uint64_t now)
{
    const DeviceHost *h = u->d.host;
    if (v & CR_RESERVED)
        h->diag(h->opaque, c, "uart-reserved", "%s: CR 0x%x sets reserved bits 0x%x (should be zero): ignored",
                u->d.name, v, v & CR_RESERVED);
    u->cr = v & W_CR & ~CR_RESERVED;
    u->warned_disabled = false;
    pl011_tx_next(u, cpu, now);
}

static void pl011_write_ifls(Pl011 *u, Cpu *c, uint32_t v)
{
    const DeviceHost *h = u->d.host;
    unsigned tx = v >> IFLS_TX_SHIFT & IFLS_SEL_MASK, rx = v >> IFLS_RX_SHIFT & IFLS_SEL_MASK;
    if (tx > IFLS_SEL_MAX || rx > IFLS_SEL_MAX)
        h->diag(h->opaque, c, "uart-reserved", "%s: IFLS 0x%x: a reserved trigger level (TXIFLSEL %u, RXIFLSEL %u; "
                "0 to 4 are defined): pmusim uses 1/2 for it", u->d.name, v, tx, rx);
    u->ifls = v & W_IFLS;
}

static void pl011_write_dmacr(Pl011 *u, Cpu *c, uint32_t v)
{
    const DeviceHost *h = u->d.host;
    u->dmacr = v & W_DMACR;
    if (u->dmacr & (DMACR_RXDMAE | DMACR_TXDMAE))
        h->diag(h->opaque, c, "uart-dma", "%s: DMACR 0x%x enables DMA requests; no DMA controller answers them on "
                "this board", u->d.name, u->dmacr);
}

static void pl011_write_reg(Pl011 *u, Cpu *c, int cpu, uint64_t reg, uint32_t v, uint64_t now)
{
    const DeviceHost *h = u->d.host;
    switch (reg) {
    case PL011_DR: pl011_write_dr(u, c, cpu, (uint8_t)(v & W_DR_DATA), now); break;
    case PL011_RSR: u->rsr = 0; break;                  /* ECR: any value clears */
    case PL011_ILPR: u->ilpr = v & W_ILPR; break;
    case PL011_IBRD: u->ibrd = v & W_IBRD; break;
    case PL011_FBRD: u->fbrd = v & W_FBRD; break;
    case PL011_LCRH: pl011_write_lcrh(u, v); break;
    case PL011_CR: pl011_write_cr(u, c, cpu, v, now); break;
    case PL011_IFLS: pl011_write_ifls(u, c, v); break;
    case PL011_IMSC: u->imsc = v & W_INT; break;
    case PL011_ICR: u->ris &= ~(v & W_INT); break;
    case PL011_DMACR: pl011_write_dmacr(u, c, v); break;
    default: {
        uint32_t old;
        bool ro = pl011_value(u, reg, &old);
        h->diag(h->opaque, c, ro ? "uart-read-only" : "uart-register", "%s: write of 0x%x to +0x%" PRIx64 ", which is "
                "%s: ignored", u->d.name, v, reg, ro ? "read-only" : "no register");
    }
    }
}

static void pl011_write(Device *d, Cpu *c, uint64_t off, unsigned size, uint64_t val)
{
    Pl011 *u = (Pl011 *)d;
    const DeviceHost *h = d->host;
    if (!pl011_access_ok(u, c, off, size, "write"))
        return;
    if (off & 3) {
        h->diag(h->opaque, c, "uart-access", "%s: write of %u bytes at +0x%" PRIx64 ", inside a register: the "
                "PL011 has no byte strobes (APB); ignored", d->name, size, off);
        return;
    }
    int cpu = h->cpu_index(h->opaque, c);
    uint64_t now = h->now(h->opaque, c);
    pl011_catch_up(u, c, cpu);
    pl011_write_reg(u, c, cpu, off, (uint32_t)val, now);
    pl011_tx_relazy(u);
    pl011_update(u);
    uartrx_kick(&u->rx, cpu, now);
}

/* ------------------------------------------------------------------ checkpoints */

/* Raise when a field is added (base/state.h).  Version 2: the FIFOs, the line and its timing. */
#define PL011_STATE_VERSION 2u

static const StateField pl011_fields[] = {
    STATE_UPTO(Pl011, ilpr, W_ILPR), STATE_UPTO(Pl011, ibrd, W_IBRD), STATE_UPTO(Pl011, fbrd, W_FBRD),
    STATE_UPTO(Pl011, lcrh, W_LCRH), STATE_UPTO(Pl011, cr, W_CR), STATE_UPTO(Pl011, ifls, W_IFLS),
    STATE_UPTO(Pl011, imsc, W_INT), STATE_UPTO(Pl011, dmacr, W_DMACR),
    STATE_UPTO_V(Pl011, ris, W_INT, 2), STATE_UPTO_V(Pl011, rsr, RSR_ERRORS | RSR_OE, 2),
    STATE_UPTO_V(Pl011, div, W_IBRD * PL011_BAUD_DIV_ONE + W_FBRD, 2),
    STATE_ARRAY_UPTO_V(Pl011, rxf, W_ENTRY, 2), STATE_UPTO_V(Pl011, rx_head, PL011_FIFO_DEPTH - 1, 2),
    STATE_UPTO_V(Pl011, rx_count, PL011_FIFO_DEPTH, 2), STATE_BOOL_V(Pl011, rx_overrun, 2),
    STATE_ARRAY_V(Pl011, txf, 2), STATE_UPTO_V(Pl011, tx_head, PL011_FIFO_DEPTH - 1, 2),
    STATE_UPTO_V(Pl011, tx_count, PL011_FIFO_DEPTH, 2), STATE_BOOL_V(Pl011, tx_shifting, 2),
    STATE_FIELD_V(Pl011, tx_shift, 2), STATE_BOOL_V(Pl011, warned_disabled, 2),
};

/* The section is named after the device's path (there may be several). */
static void pl011_save(Device *d, Blob *b)
{
    Pl011 *u = (Pl011 *)d;
    size_t at = blob_begin(b, d->name, PL011_STATE_VERSION);
    blob_fields(b, d, pl011_fields, ARRAY_SIZE(pl011_fields));
    blob_u32(b, (uint32_t)u->tx_cpu);
    blob_u32(b, (uint32_t)u->rt_cpu);
    blob_event(b, &u->tx_done);
    blob_event(b, &u->rx_timeout);
    uartrx_save(&u->rx, b);
    blob_end(b, at);
}

/* Version 1 had only the registers; the rest keeps the boot state. */
static bool pl011_load_line(Pl011 *u, BlobReader *r)
{
    const DeviceHost *h = u->d.host;
    uint32_t tx_cpu = br_u32(r), rt_cpu = br_u32(r);
    if (!r->ok)
        return false;
    if (tx_cpu >= (uint32_t)h->ncpus || rt_cpu >= (uint32_t)h->ncpus)
        return br_fail(r, "PL011 event CPU: no such CPU");
    u->tx_cpu = (int)tx_cpu;
    u->rt_cpu = (int)rt_cpu;
    u->tx_done.lazy = pl011_tx_lazy(u);     /* derived from the registers, not saved */
    br_event(r, &u->tx_done, h->cpu_events(h->opaque, u->tx_cpu));
    br_event(r, &u->rx_timeout, h->cpu_events(h->opaque, u->rt_cpu));
    return r->ok && uartrx_load(&u->rx, r);
}

static bool pl011_load(Device *d, BlobReader *r)
{
    Pl011 *u = (Pl011 *)d;
    BrOuter outer;
    if (!br_begin(r, &outer, d->name, PL011_STATE_VERSION) || !br_fields(r, d, pl011_fields, ARRAY_SIZE(pl011_fields)))
        return false;
    if (r->version >= 2 && !pl011_load_line(u, r))
        return false;
    if (r->version < 2)
        u->cr |= PL011_CR_BOOT;     /* version 1 transmitted whatever CR said: so it goes on */
    u->level = false;
    pl011_update(u);                /* drive the line as the state says (a level: idempotent) */
    return br_end(r, &outer);
}

static void pl011_destroy(Device *d)
{
    Pl011 *u = (Pl011 *)d;
    evq_remove(&u->tx_done);
    evq_remove(&u->rx_timeout);
    evq_remove(&u->rx.arrive);
    free(u);
}

static const DeviceOps pl011_ops = {
    .type = "arm,pl011", .read = pl011_read, .write = pl011_write, .peek = pl011_peek,
    .save = pl011_save, .load = pl011_load, .destroy = pl011_destroy,
};

Device *pl011_create(const DeviceHost *host, const DevDesc *dd, Error *err)
{
    if (dd->size < PL011_SIZE) {
        err_set(err, "node %s: property reg: a PL011 occupies 4 KiB", dd->path);
        return NULL;
    }
    Pl011 *u = device_alloc(sizeof(Pl011), &pl011_ops, host, dd);
    u->clk_hz = dd->clock_hz ? dd->clock_hz : PL011_DEFAULT_CLK_HZ;
    u->cr = PL011_CR_BOOT;
    u->ifls = IFLS_RESET;
    u->irq = host->irq(host->opaque, dd, 0);
    event_init(&u->tx_done, "pl011-tx", pl011_tx_finish, u);
    event_init(&u->rx_timeout, "pl011-rt", pl011_rx_timeout, u);
    uartrx_init(&u->rx, host, dd, &pl011_rx_ops, u);
    return &u->d;
}
