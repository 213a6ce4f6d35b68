// AArch64 fixture: LDTR and STTR at EL1 use EL0's permissions.  Loaded raw at 0x40080000,
// vectors at 0x40081000.  The MMU maps 0x40000000 (1 GiB, a level 1 block of a 39-bit
// TTBR0 range) with AP = 0b00: EL1 read/write, no EL0 access.  LDR from it goes ahead;
// LDTR and STTR take a permission fault (EC 0x25, DFSC 0x0d level 1, WnR for the store) at
// once.  The current-EL vector stores ESR_EL1, FAR_EL1 and x20 (set only after each access)
// at 0x40100000.. and steps over the access.
    .include "arm64_start.inc"
    .text
    .globl _start
_start:
    a64_start
    ldr x1, =0x40110000         // the level 1 table
    ldr x2, =0x40000401         // 0x40000000: block, AttrIndx 0, AP 0b00, AF
    str x2, [x1, #8]
    str xzr, [x1]
    msr ttbr0_el1, x1
    mov x1, #0xff               // MAIR_EL1 attr 0: Normal write-back
    msr mair_el1, x1
    ldr x1, =0x200803519        // TCR_EL1: T0SZ 25, WB, inner shareable, TG0 4 KiB, EPD1, IPS 40 bits
    msr tcr_el1, x1
    isb
    mrs x1, sctlr_el1
    orr x1, x1, #1              // M
    msr sctlr_el1, x1
    isb
    ldr x19, =0x40100000
    ldr x2, =0x40120008
    mov x20, #0
    ldr x3, [x2]                // EL1 may: no fault
    mov x20, #1
    ldtr x4, [x2]               // EL0 may not: permission fault
    mov x20, #2
    sttr x4, [x2, #-8]          // nor write
    mov x20, #3
    str x20, [x19, #48]
    ldr x0, =0x84000008
    hvc #0                      // PSCI SYSTEM_OFF
    b .

    .org 0x1000 + 0x200         // current EL with SP_ELx, synchronous
    mrs x10, esr_el1
    mrs x11, far_el1
    stp x10, x11, [x19], #16
    mrs x11, elr_el1
    add x11, x11, #4
    msr elr_el1, x11
    eret
    .ltorg
