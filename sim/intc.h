/* intc.h — the board's interrupt controllers, made from the device tree: the GIC, or the PC's
 * I/O APIC and 8259A pair (sim/dev/pc.h), which it joins to the CPUs' local APICs. */
#ifndef PMUSIM_INTC_H
#define PMUSIM_INTC_H

#include "cpu/cluster.h"
#include "gic/gic.h"
#include "sim/dev/device.h"
#include "sim/fdt.h"

/* Where intc_create puts what it makes: the trace the GIC writes to, and the device list its
 * windows join (devs[*ndevs], at most max in all), created with `host`. */
typedef struct IntcHost {
    const DeviceHost *host;
    Trace *trace;
    Device **devs;
    int *ndevs, max;
} IntcHost;

/* The GIC version a compatible string names, or 0. */
GicVersion intc_gic_version(const char *compatible);
/* Make the tree's GIC and its windows, before the other devices; *gic = NULL if the tree has
 * none.  The machine frees it (free). */
bool intc_create(const MachineDesc *d, const IntcHost *h, Gic **gic, Error *err);

/* The PC's interrupt hardware, found among the devices: where the ISA lines go. */
typedef struct PcIrq {
    Device *ioapic, *pic;
} PcIrq;

/* A device's interrupt output n when its node's interrupt parent is the I/O APIC (<GSI sense>)
 * or the 8259A pair (<ISA-IRQ sense>): a line to the I/O APIC's input and, for GSIs 0 to 15,
 * the PIC's ISA IRQ too (GSI 2 is IRQ 0); else an unconnected line.  Resolved when raised, so
 * it may be asked before the controllers are made. */
IrqLine intc_pc_line(PcIrq *pc, const MachineDesc *d, const DevDesc *dd, unsigned n);
/* Every entry of every device's `interrupts` whose parent is the I/O APIC or the PIC names one
 * of its inputs: else false, naming the node and the entry. */
bool intc_pc_check(const MachineDesc *d, Error *err);
/* After the devices are made: the I/O APIC's messages to the local APICs and their EOI
 * broadcasts back, the PIC's INTR on the boot CPU's LINT0 with the firmware's virtual wire mode
 * (sim/dev/pc.h).  Nothing without them. */
void intc_pc_connect(PcIrq *pc, Cluster *cl, Device **devs, int ndevs);

#endif
