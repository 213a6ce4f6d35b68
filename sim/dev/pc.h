/* pc.h — the PC's interrupt hardware, as the machine connects it (sim/intc.c).
 *
 * The I/O APIC (ioapic.c) and the 8259A pair (i8259.c) are devices like the others, with inputs
 * that the ISA interrupt lines reach and outputs that only the machine can join to the CPUs: the
 * I/O APIC's interrupt messages go to the local APICs, their EOI broadcasts come back; the
 * master 8259A's INTR goes to the boot CPU's LINT0, whose ExtINT interrupt acknowledge asks the
 * PIC for the vector.  A device's `interrupts` name I/O APIC inputs (global system interrupts);
 * GSIs 0 to 15 are also the ISA IRQs of the 8259A pair, GSI 2 being ISA IRQ 0 (the timer: the
 * interrupt source override every PC's MADT carries, ACPI 6.5 §5.2.12.5).
 */
#ifndef PMUSIM_PC_H
#define PMUSIM_PC_H

#include "sim/dev/device.h"

#define IOAPIC_PINS 24
#define ISA_IRQS 16

/* The I/O APIC (compatible "intel,ce4100-ioapic"). */
bool ioapic_is(const Device *d);
IrqLine ioapic_input(Device *d, unsigned pin);
void ioapic_connect(Device *d, IrqMsgSink out);
void ioapic_eoi(Device *d, unsigned vector);

/* The two cascaded 8259As (compatible "intel,i8259"). */
bool i8259_is(const Device *d);
IrqLine i8259_input(Device *d, unsigned irq);
void i8259_connect(Device *d, IrqLine intr);
/* The interrupt acknowledge cycle: the vector of the highest-priority request (IR7's, a
 * spurious interrupt, when none is left). */
int i8259_intack(Device *d);

#endif
