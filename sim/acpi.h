/* acpi.h — the ACPI tables of an x86 machine, built from its device tree.
 *
 * A tree with an ACPI PM node (`pmusim,acpi-pm`) is an ACPI platform: acpi_build() describes it
 * in the tables a PC's firmware leaves in the BIOS area, where Linux's acpi_find_root_pointer
 * (drivers/acpi/acpica/tbxfroot.c) scans for the RSDP on 16-byte boundaries of
 * 0xE0000-0xFFFFF: the RSDP (revision 2) with an RSDT and an XSDT naming the FADT and the MADT,
 * the FADT pointing at the FACS, the DSDT and the PM node's registers, a DSDT whose AML defines
 * \_S5, and a MADT with one Processor Local APIC per cpu node, the I/O APIC of an
 * `intel,ce4100-ioapic` node with the PC's interrupt source overrides, and the LINT1 NMI; and
 * the same machine as an MP table (MultiProcessor Specification 1.4) at 0xF0000, for guests
 * without ACPI (Linux with acpi=off, xv6).  The
 * layout of each table, and why, is in sim/acpi.c; docs/machines.md lists what the guest finds.
 * A tree without the PM node gets no tables (acpi_build says so and writes nothing).
 */
#ifndef PMUSIM_ACPI_H
#define PMUSIM_ACPI_H

#include "base/common.h"

/* The BIOS read-only area the tables go in (ACPI 6.4 §5.2.5.1: the RSDP on a 16-byte boundary
 * of 0xE0000-0xFFFFF), reserved in the tree's /memreserve/ by the machine. */
#define ACPI_AREA_BASE 0xe0000ull
#define ACPI_AREA_SIZE 0x20000ull
#define ACPI_RSDP_ADDR ACPI_AREA_BASE

/* The most cpu nodes a MADT of Processor Local APIC entries describes: a one-byte ACPI
 * Processor UID each, 0xFF meaning "all processors" in the Local APIC NMI entry. */
#define ACPI_MAX_CPUS 255
/* The highest APIC ID of an xAPIC entry: 0xFF is the broadcast ID, which Linux ignores
 * (arch/x86/kernel/acpi/boot.c acpi_parse_lapic); higher IDs need x2APIC entries, which pmusim
 * does not write. */
#define ACPI_MAX_XAPIC_ID 0xfe

/* The ISA IRQ of the SCI (FADT SCI_INT; level, active high: the MADT overrides it), as on
 * QEMU's PIIX4. */
#define ACPI_SCI_IRQ 9

/* What acpi_build wrote: guest addresses of the tables (0 if not written) and bytes used. */
typedef struct AcpiInfo {
    bool present;                   /* the tree has an ACPI PM node: the tables below exist */
    uint64_t rsdp, rsdt, xsdt, fadt, facs, dsdt, madt;
    uint64_t mpfp;                  /* the MP floating pointer (its configuration table follows) */
    size_t used;                    /* bytes of the area used, from its start */
    int ncpus;                      /* Processor Local APIC entries */
    bool ioapic;                    /* an I/O APIC entry (and the overrides) */
    bool reset;                     /* the FADT's RESET_REG names a reset-control node */
} AcpiInfo;

/* Build the tables describing `fdt` (a tree libfdt accepted: dt_build's) into area[0..size),
 * which the guest sees at ACPI_AREA_BASE; the rest of the area is zeroed.  A tree the tables
 * cannot describe is refused (false) with one message naming the node and the property.
 * Without an ACPI PM node: true, info->present false, nothing written. */
bool acpi_build(const void *fdt, uint8_t *area, size_t size, AcpiInfo *info, Error *err);

#endif
