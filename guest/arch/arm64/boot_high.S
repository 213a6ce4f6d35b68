/* boot_high.S (arm64) — the entry of the guests linked at Linux's kernel address (the -high
 * guests: link.ld.S with KERNEL_HIGH, kernel_map.h).  pmusim enters _start_phys at its physical
 * address with the MMU off (docs/guest-abi.md); this code uses only PC-relative addresses until
 * the MMU is on, as Linux's head.S does before __primary_switched.
 *
 * The EL1&0 regime with a 4 KiB granule (Arm ARM DDI 0487 D8):
 * - TTBR0_EL1, 39 bits (T0SZ 25, walks from level 1): the identity map the MMU-off guest had,
 *   1 GiB blocks: devices below RAM (Device-nGnRE, never executable), RAM Normal write-back.
 *   The device windows, the DTB and PSCI's entry addresses are reached through it.
 * - TTBR1_EL1, 48 bits (T1SZ 16, walks from level 0): the kernel map, 2 MiB blocks from
 *   KIMAGE_VADDR to RAM from its start (level 0 slot 256, level 1 slot 0, level 2 slots 64 on).
 * Secondaries (PSCI CPU_ON to secondary_boot's physical address, arch_cpu_release) load the
 * same registers and jump to secondary_entry.
 */
#include "config.h"
#include "kernel_map.h"

#define D_VALID     (1 << 0)
#define D_TABLE     (3 << 0)                    /* a next-level table */
#define D_BLOCK     (1 << 0)                    /* a block at level 1 or 2 */
#define D_NORMAL    (1 << 2)                    /* AttrIndx 1: MAIR_EL1 byte 1 */
#define D_DEVICE    (0 << 2)                    /* AttrIndx 0 */
#define D_ISH       (3 << 8)
#define D_AF        (1 << 10)
#define D_PXN       (1 << 53)
#define D_UXN       (1 << 54)
#define MAIR_VALUE  0xff04                      /* byte 0 Device-nGnRE, byte 1 Normal WB */
/* TCR_EL1: T0SZ 25, IRGN0/ORGN0 WB, SH0 inner, TG0 4 KiB; T1SZ 16, IRGN1/ORGN1 WB, SH1 inner,
 * TG1 4 KiB (0b10); IPS 40 bits (0b010) */
#define TCR_VALUE   (25 | 1 << 8 | 1 << 10 | 3 << 12 | 16 << 16 | 1 << 24 | 1 << 26 | 3 << 28 | 2 << 30 | 2 << 32)
#define SCTLR_M     (1 << 0)
#define SCTLR_A     (1 << 1)
#define SCTLR_C     (1 << 2)
#define SCTLR_I     (1 << 12)
#define SCTLR_WXN   (1 << 19)
#define BLOCK_2M    (1 << 21)
#define KIMAGE_L2   ((KIMAGE_VADDR >> 21) & 511)     /* 64 */

    .section .text.head, "ax"
    .global _start_phys
_start_phys:
    mov     x19, x0                             /* the DTB */
    bl      mmu_on
    mov     x0, x19
    ldr     x1, =_start                         /* the kernel's own address from here on */
    br      x1

/* PSCI CPU_ON's entry for secondaries (its physical address: arch_cpu_release); x0 is the
 * context id. */
    .global secondary_boot
secondary_boot:
    mov     x19, x0
    bl      mmu_on
    mov     x0, x19
    ldr     x1, =secondary_entry
    br      x1

/* Tables and registers, MMU on (clobbers x0-x2).  The tables are static and hold physical
 * addresses; only the registers are per CPU. */
mmu_on:
    ldr     x0, =MAIR_VALUE
    msr     mair_el1, x0
    ldr     x0, =TCR_VALUE
    msr     tcr_el1, x0
    adrp    x0, ident_l1
    msr     ttbr0_el1, x0
    adrp    x0, kernel_l0
    msr     ttbr1_el1, x0
    isb
    tlbi    vmalle1
    dsb     nsh
    isb
    mrs     x0, sctlr_el1
    bic     x0, x0, #SCTLR_A
    bic     x0, x0, #SCTLR_WXN
    orr     x0, x0, #SCTLR_M
    orr     x0, x0, #SCTLR_C
    orr     x0, x0, #SCTLR_I
    msr     sctlr_el1, x0
    isb
    ret
    .ltorg

    .section .data.pagetables, "aw"
    .balign 4096
ident_l1:
    .quad   0 + (D_BLOCK | D_DEVICE | D_AF | D_PXN | D_UXN)
    .quad   0x40000000 + (D_BLOCK | D_NORMAL | D_ISH | D_AF | D_UXN)
    .quad   0x80000000 + (D_BLOCK | D_NORMAL | D_ISH | D_AF | D_UXN)
    .quad   0xc0000000 + (D_BLOCK | D_NORMAL | D_ISH | D_AF | D_UXN)
    .fill   508, 8, 0
kernel_l0:
    .fill   256, 8, 0
    .quad   kernel_l1 - KERNEL_VOFFSET + D_TABLE
    .fill   255, 8, 0
kernel_l1:
    .quad   kernel_l2 - KERNEL_VOFFSET + D_TABLE
    .fill   511, 8, 0
kernel_l2:
    .fill   KIMAGE_L2, 8, 0
    .set    i, 0
    .rept   512 - KIMAGE_L2
    .quad   RAM_PBASE + i * BLOCK_2M + (D_BLOCK | D_NORMAL | D_ISH | D_AF | D_UXN)
    .set    i, i + 1
    .endr

    .section .note.GNU-stack, "", %progbits
