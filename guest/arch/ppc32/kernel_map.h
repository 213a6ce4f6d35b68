/* kernel_map.h (ppc32) — where the -high guests live (macros only: C, assembly, linker script).
 * Linux's book3s32 KERNELBASE = PAGE_OFFSET = 0xc0000000 (arch/powerpc/Kconfig PAGE_OFFSET,
 * asm/page.h): lowmem, from physical 0, appears there, so the image loaded at physical 1 MiB is
 * linked at 0xc0100000.  The exception vectors stay at their physical addresses (0x100...):
 * the CPU takes exceptions in real mode (MSR[IR] = MSR[DR] = 0), where they run. */
#ifndef GUEST_PPC32_KERNEL_MAP_H
#define GUEST_PPC32_KERNEL_MAP_H

#define KERNELBASE     0xc0000000
#define KERNEL_VOFFSET KERNELBASE               /* virtual = physical + this (RAM from 0) */

#endif
