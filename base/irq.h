/* irq.h — interrupt lines: how a source reaches whatever takes its interrupts.
 *
 * A line joins one source (an LVT entry's event, a timer, a UART, a PMU overflow, an IPI) to one
 * input of a sink: an interrupt controller's input, or a CPU's interrupt pin (INTR/NMI, IRQ/FIQ,
 * the external and performance-monitor exceptions).  The source sets the line's level; a sink
 * that is edge-triggered acts on the rising edge (irq_pulse raises and lowers at once).  The
 * source knows nothing of the sink: the machine or the CPU backend, which own both, connect
 * them (QEMU's qemu_irq and TinyEMU's IRQSignal are the same idea).  So a model includes this
 * header, never the header of the thing it interrupts.
 *
 * A sink returns whether it took the interrupt: false when it dropped it (a masked LVT entry
 * loses the PMI, SDM vol. 3B 20.6.3.5.8), which a source may report; most ignore it.
 */
#ifndef PMUSIM_IRQ_H
#define PMUSIM_IRQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The sink's side: input n of `opaque` goes to `level`; returns whether it was taken. */
typedef bool (*IrqHandler)(void *opaque, int n, bool level);

typedef struct IrqLine {
    IrqHandler handler;             /* NULL: not connected (setting it does nothing) */
    void *opaque;
    int n;
} IrqLine;

static inline IrqLine irq_line(IrqHandler handler, void *opaque, int n)
{
    IrqLine l = { handler, opaque, n };
    return l;
}

static inline bool irq_set(const IrqLine *l, bool level)
{
    return l->handler != NULL && l->handler(l->opaque, l->n, level);
}

static inline bool irq_raise(const IrqLine *l) { return irq_set(l, true); }
static inline bool irq_lower(const IrqLine *l) { return irq_set(l, false); }

/* An edge: raise and lower at once; whether the rising edge was taken. */
static inline bool irq_pulse(const IrqLine *l)
{
    bool taken = irq_raise(l);
    irq_lower(l);
    return taken;
}

/* An interrupt message: what the I/O APIC sends to the local APICs for a redirection entry
 * (82093AA datasheet §3.2.4; Intel SDM vol. 3A 11.11, whose MSI address and data carry the same
 * fields), delivered by whoever joins the APICs (the machine). */
typedef struct IrqMsg {
    uint32_t dest;                  /* APIC ID (physical) or logical destination (8 bits in xAPIC) */
    uint8_t vector;
    uint8_t mode;                   /* delivery mode: 0 fixed, 1 lowest priority, 2 SMI, 4 NMI, 5 INIT, 7 ExtINT */
    bool logical;                   /* destination mode */
    bool level;                     /* trigger mode: the target sets TMR and broadcasts its EOI */
} IrqMsg;

typedef struct IrqMsgSink {
    void (*send)(void *opaque, const IrqMsg *m);    /* NULL: not connected (the message is lost) */
    void *opaque;
} IrqMsgSink;

/* A vector's end of interrupt, as a local APIC broadcasts it for a level-triggered vector. */
typedef struct EoiSink {
    void (*eoi)(void *opaque, unsigned vector);     /* NULL: nobody listens */
    void *opaque;
} EoiSink;

#endif
