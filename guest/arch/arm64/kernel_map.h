/* kernel_map.h (arm64) — where the -high guests live (macros only: C, assembly, linker script).
 * Linux's KIMAGE_VADDR with 48-bit virtual addresses (arch/arm64/include/asm/memory.h, 5.11 to
 * 6.x: MODULES_END = 0xffff800008000000) maps the start of RAM on the virt board (0x40000000,
 * docs/machines.md); the image keeps its physical offset 0x80000 into RAM, the TEXT_OFFSET older
 * kernels had, so its first byte is at 0xffff800008080000. */
#ifndef GUEST_ARM64_KERNEL_MAP_H
#define GUEST_ARM64_KERNEL_MAP_H

#define KIMAGE_VADDR 0xffff800008000000
#define RAM_PBASE    0x40000000
#define KERNEL_VOFFSET (KIMAGE_VADDR - RAM_PBASE)       /* virtual = physical + this */

#endif
