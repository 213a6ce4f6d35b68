// AArch64 fixture: breakpoints and watchpoints compare virtual addresses.  Loaded raw at
// 0x40080000, vectors at 0x40081000 (arm64_debug_vectors.inc records every exception and skips
// the instruction).  The MMU maps RAM twice, at 0x40000000 (identity) and at 0x80000000 (an
// alias), both 1 GiB level 1 blocks of a 39-bit TTBR0 range, EL1 only.  A watchpoint on the
// alias's 0x80110008 takes a store through the alias (FAR 0x80110008) and lets the same
// physical doubleword be stored through the identity map; a breakpoint on the alias of `func`
// is taken when `func` is called through the alias (ELR the alias), not through the identity.
// x20 = the doubleword at 0x40110008 at the end (the identity store's 0x22), x21 = how many
// times func's first instruction ran (1).
    .include "arm64_start.inc"
    .equ ALIAS, 0x40000000      // alias VA - identity VA
    .text
    .globl _start
_start:
    a64_start
    ldr x1, =0x40120000         // the level 1 table
    ldr x2, =0x40000401         // a block at PA 0x40000000, AttrIndx 0, AP 0b00, AF
    str xzr, [x1]
    str x2, [x1, #8]            // VA 0x40000000
    str x2, [x1, #16]           // VA 0x80000000
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
    msr oslar_el1, xzr
    mov x1, #(1 << 13) | (1 << 15)
    msr mdscr_el1, x1           // KDE, MDE
    msr daifclr, #8
    ldr x1, =0x80110008
    msr dbgwvr0_el1, x1
    ldr x1, =(0xff << 5) | (2 << 3) | (1 << 1) | 1      // stores, EL1
    msr dbgwcr0_el1, x1
    ldr x1, =func + ALIAS
    msr dbgbvr0_el1, x1
    mov x1, #0x1e3              // EL1
    msr dbgbcr0_el1, x1
    isb
    mov x2, #0x22
    ldr x5, =0x40110008
    ldr x6, =0x80110008
    mov x21, #0
st1:
    str x2, [x6]                // record 0: EC 0x35, FAR the alias
    str x2, [x5]                // the identity: not watched
    ldr x1, =func
    blr x1                      // not the breakpoint's address
    ldr x1, =func + ALIAS
    blr x1                      // record 1: EC 0x31, ELR the alias of func
    msr dbgwcr0_el1, xzr
    msr dbgbcr0_el1, xzr
    ldr x20, [x5]
    ldr x0, =0x84000008
    hvc #0                      // PSCI SYSTEM_OFF
    b .
func:
    add x21, x21, #1
    ret
    .ltorg

    .org 0xf00                  // the labels, for the test
    .quad st1, func + ALIAS
    .include "arm64_debug_vectors.inc"
