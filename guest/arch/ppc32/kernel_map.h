/* kernel_map.h (ppc32) — where the -high guests live (macros only: C, assembly, linker script).
 * Linux's book3s32 KERNELBASE = PAGE_OFFSET = 0xc0000000 (arch/powerpc/Kconfig PAGE_OFFSET,
 * asm/page.h): lowmem, from physical 0, appears there, so the image loaded at physical 1 MiB is
 * linked at 0xc0100000.  The exception vectors stay at their physical addresses (0x100...):
 * the CPU takes exceptions in real mode (MSR[IR] = MSR[DR] = 0), where they run. */
#ifndef GUEST_PPC32_KERNEL_MAP_H
#define GUEST_PPC32_KERNEL_MAP_H

#define KERNELBASE     0xc0000000
#define KERNEL_VOFFSET KERNELBASE               /* virtual = physical + this (RAM from 0) */

/* User space is below KERNELBASE, as Linux's (TASK_SIZE = PAGE_OFFSET).  The user program of a
 * -high guest (.user.text, and its data: oprofile.h) is linked at USER_BASE (Linux's ppc32
 * executables start at 0x10000000) and loaded at USER_PBASE, a free 128 KiB of RAM below the
 * image (after the spin table and the DTB, docs/machines.md); one BAT pair maps it for problem
 * state and the kernel, which reads system call buffers through it.  The BAT block must be
 * aligned to its size (PEM §7.4.3). */
#define USER_BASE      0x10000000
#define USER_PBASE     0x00080000
#define USER_SIZE      0x20000                  /* 128 KiB: the smallest BAT block */

#endif
