/* x86_64.h — what other parts of pmusim (the APIC, tests) reach in an x86 CPU. */
#ifndef PMUSIM_X86_64_H
#define PMUSIM_X86_64_H

#include "apic/lapic.h"
#include "cpu/cpu.h"
#include "pmu/pmu_x86.h"
#include "sim/dev/device.h"

/* The CPU's local APIC and PMU. */
Lapic *vcpu_x86_lapic(Cpu *c);
X86Pmu *x86pmu_of(Cpu *c);
/* The device of the `intel,ce4100-lapic` node: the local APIC's MMIO page. */
Device *vcpu_x86_lapic_dev_create(const DeviceHost *host, const DevDesc *dd, Error *err);
/* The boot GDT that `entry`'s state needs (its selectors are x86_reset's), written at gdt,
 * which has room for X86_BOOT_GDT_MAX bytes; returns its size.  The machine puts it at
 * X86_BOOT_GDT_BASE (docs/machines.md, the boot structures). */
#define X86_BOOT_GDT_BASE 0x8000u
#define X86_BOOT_GDT_MAX 32u
unsigned vcpu_x86_boot_gdt(X86Entry entry, uint8_t *gdt);
/* The CPUID values the guest sees for (leaf, subleaf): EAX, EBX, ECX, EDX. */
void vcpu_x86_cpuid_values(Cpu *c, uint32_t leaf, uint32_t sub, uint32_t r[4]);

#endif
