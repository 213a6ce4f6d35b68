/* uart_rx.h — console input arriving at a UART's receiver, as a serial line delivers it.
 *
 * One piece of code for every UART model (the PL011, the 16550): the bytes of --console-input
 * (read whole before the run, ConsoleInput) arrive one at a time, each one character time
 * after the receiver could take it, on the simulated clock of a CPU, so that a scripted run
 * is the same run every time.  The host never overruns the receiver: a byte that finds the
 * receiver disabled or its FIFO full waits (as a sender held off by RTS would), and leaves a
 * character time after the way opens again (uartrx_kick).
 *
 *     the way opens at t (an access: a read made room, the receiver was enabled)
 *       └── uartrx_kick(t) ── byte k arrives at t + C ── byte k+1 at t + 2C ... (C: ops->char_cycles)
 *                             └── full or disabled then: it waits for the next kick
 *
 * The device answers three questions (UartRxOps) and kicks after every access that may open
 * the way (uartrx_access).  A live input (--console-in stdin) grows between quanta and the
 * machine kicks (uartrx_more); a replay (--replay) ignores the kicks: each byte arrives at the
 * cycle and on the CPU its log gives, and one the receiver cannot take there ends the run
 * (DeviceHost.console_refused).  Arrivals do not draw a sequence number (cpu_schedule_last), so
 * a live run and its replay number every other event alike.  The position in the input and the next arrival are the device's state: they go
 * into its checkpoint section (uartrx_save / uartrx_load).
 */
#ifndef PMUSIM_UART_RX_H
#define PMUSIM_UART_RX_H

#include "sim/dev/device.h"

typedef struct UartRxOps {
    /* Can the receiver take a character now (enabled, room in its FIFO)? */
    bool (*ready)(void *dev);
    /* A character arrived (its stop bit ended) at cycle `when` of the line's CPU. */
    void (*put)(void *dev, uint8_t c, uint64_t when);
    /* One character time on the line as the device is programmed, in CPU cycles (> 0). */
    uint64_t (*char_cycles)(void *dev);
} UartRxOps;

typedef struct UartRx {
    const DeviceHost *host;
    ConsoleInput *in;               /* NULL: not the console's UART, nothing arrives */
    const UartRxOps *ops;
    void *dev;
    uint64_t pos;                   /* bytes of the input delivered so far */
    int cpu;                        /* whose clock the line runs on: the last CPU to open the way */
    Event arrive;                   /* the next byte's stop bit */
} UartRx;

void uartrx_init(UartRx *rx, const DeviceHost *host, const DevDesc *dd, const UartRxOps *ops, void *dev);
/* The receiver may be able to take a byte from cycle `now` of CPU `cpu` on: unless one is on
 * its way already, the next byte leaves now and arrives a character time later. */
void uartrx_kick(UartRx *rx, int cpu, uint64_t now);
/* More input may go (a live input grew between quanta, a replay starts or was restored): a
 * byte leaves as from a kick on the line's CPU at its clock; a replay's next byte is put on
 * its CPU's queue at its logged cycle. */
void uartrx_more(UartRx *rx);
/* The same after an access by `cpu` (from the time of its instruction); cheap when nothing is
 * to be sent: a device calls it after every access. */
void uartrx_access(UartRx *rx, Cpu *cpu);
/* Bytes of the input not delivered yet. */
uint64_t uartrx_left(const UartRx *rx);
void uartrx_save(const UartRx *rx, Blob *b);
bool uartrx_load(UartRx *rx, BlobReader *r);

#endif
