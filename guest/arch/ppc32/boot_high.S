/* boot_high.S (ppc32) — the entry of the guests linked at Linux's kernel address (the -high
 * guests: link.ld.S with KERNEL_HIGH, kernel_map.h).  pmusim enters _start_phys at its physical
 * address in real mode (docs/guest-abi.md); this code is position independent until the rfi.
 *
 * As Linux maps lowmem (arch/powerpc/mm/book3s32/mmu.c setbat, head_book3s_32.S initial_bats),
 * block address translation only (MPC7450 RM §5.3, PEM §7.4), supervisor only (Vs = 1, Vp = 0):
 * - IBAT0/DBAT0: KERNELBASE -> physical 0, 256 MiB, memory coherent (WIMG 0010), PP read/write;
 * - DBAT1: the ISA I/O window at its physical address 0x80000000 (128 KiB), caching-inhibited
 *   and guarded (WIMG 0101), where the console and exit devices are;
 * - DBAT2: RAM at its physical addresses, 256 MiB, data only: the DTB (r3) and the spin table
 *   the firmware hands out are physical addresses, reached through it (the identity map the
 *   other architectures' -high guests keep, TTBR0 on arm64);
 * - IBAT1/DBAT3: the user program's USER_SIZE at USER_BASE -> USER_PBASE (kernel_map.h), for
 *   problem state as well (Vp = 1), read/write: user code and data, and the kernel's access to
 *   them in system calls;
 * the other BATs invalid.  Then rfi to _start at its linked address with MSR = ME|IR|DR.
 * Secondaries (ePAPR spin table to secondary_boot's physical address, arch_cpu_release) load the
 * same BATs and rfi to secondary_entry.  Exceptions: vectors_high.S. */
#include "arch.h"
#include "kernel_map.h"

#define SPRN_IBAT0U 528                 /* IBATnU = 528 + 2n, IBATnL = 529 + 2n */
#define SPRN_DBAT0U 536                 /* DBATnU = 536 + 2n, DBATnL = 537 + 2n */
#define MSR_IR      0x20
#define MSR_DR      0x10
#define MSR_KERNEL  (MSR_ME | MSR_IR | MSR_DR)
/* BAT upper: BEPI, BL ((size / 128 KiB) - 1) << 2, Vs; lower: BRPN, WIMG << 3, PP 10 (read/write)
 * (PEM §7.4.3) */
#define BATU(ea, size)  ((ea) | (((size) >> 17) - 1) << 2 | 2)
#define BATL(pa, wimg)  ((pa) | (wimg) << 3 | 2)
#define WIMG_M      0x2
#define WIMG_IG     0x5
#define SIZE_256M   0x10000000
#define ISA_IO      0x80000000
#define SIZE_128K   0x20000
#define BATU_VP     1                   /* valid in problem state */

/* BAT n of array base (SPRN_IBAT0U or SPRN_DBAT0U) := upper, lower; the upper word is cleared
 * first so that no half-written pair is ever valid (Linux clearbats, setbat). */
    .macro setbat base, n, upper, lower
    li      r0, 0
    mtspr   \base + 2 * \n, r0
    lis     r0, (\lower)@h
    ori     r0, r0, (\lower)@l
    mtspr   \base + 2 * \n + 1, r0
    lis     r0, (\upper)@h
    ori     r0, r0, (\upper)@l
    mtspr   \base + 2 * \n, r0
    .endm

    .macro clearbat base, n
    li      r0, 0
    mtspr   \base + 2 * \n, r0
    mtspr   \base + 2 * \n + 1, r0
    .endm

    .section .text.head, "ax"
    .global _start_phys
_start_phys:
    bl      load_bats
    lis     r4, _start@h                /* the kernel's own address from here on */
    ori     r4, r4, _start@l
    b       translate_to

/* The spin table's entry for secondaries (its physical address: arch_cpu_release); r3 is the
 * logical id. */
    .global secondary_boot
secondary_boot:
    bl      load_bats
    lis     r4, secondary_entry@h
    ori     r4, r4, secondary_entry@l
    /* fall through */

/* rfi to r4 with translation on (r3 kept). */
translate_to:
    mtsrr0  r4
    li      r4, MSR_KERNEL
    mtsrr1  r4
    rfi

/* The BATs (clobbers r0); per CPU, as every CPU has its own. */
load_bats:
    setbat  SPRN_IBAT0U, 0, BATU(KERNELBASE, SIZE_256M), BATL(0, WIMG_M)
    setbat  SPRN_DBAT0U, 0, BATU(KERNELBASE, SIZE_256M), BATL(0, WIMG_M)
    setbat  SPRN_DBAT0U, 1, BATU(ISA_IO, SIZE_128K), BATL(ISA_IO, WIMG_IG)
    setbat  SPRN_DBAT0U, 2, BATU(0, SIZE_256M), BATL(0, WIMG_M)
    setbat  SPRN_IBAT0U, 1, BATU(USER_BASE, USER_SIZE) | BATU_VP, BATL(USER_PBASE, WIMG_M)
    setbat  SPRN_DBAT0U, 3, BATU(USER_BASE, USER_SIZE) | BATU_VP, BATL(USER_PBASE, WIMG_M)
    clearbat SPRN_IBAT0U, 2
    clearbat SPRN_IBAT0U, 3
    isync
    blr

    .section .note.GNU-stack, "", @progbits
