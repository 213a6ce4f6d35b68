/* kernel_map.h (x86_64) — where the -high guests live (macros only: C, assembly, linker
 * script).  Linux's __START_KERNEL_map: the kernel image at 0xffffffff80000000 + its physical
 * address (arch/x86/include/asm/page_64_types.h), in the top 2 GiB that -mcmodel=kernel
 * addresses with sign-extended 32-bit immediates. */
#ifndef GUEST_X86_64_KERNEL_MAP_H
#define GUEST_X86_64_KERNEL_MAP_H

#define KERNEL_VBASE 0xffffffff80000000

#endif
