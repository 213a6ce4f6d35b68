// AArch64 interrupt-pin fixture, loaded raw at 0x40080000; vectors at 0x40081000.  Unmasks IRQ
// and FIQ, then spins; each handler shifts its code into x20 (IRQ 1, FIQ 2) and returns, so x20
// is the order in which the interrupts were taken.
    .include "arm64_start.inc"
    .text
    .globl _start
_start:
    a64_start
    mov x20, #0
    msr daifclr, #3             // unmask IRQ (I) and FIQ (F)
spin:
    b spin
    .ltorg
    .org 0x1280                 // VBAR + 0x280: IRQ, current EL with SPx
h_irq:
    lsl x20, x20, #4
    orr x20, x20, #1
    eret
    .org 0x1300                 // VBAR + 0x300: FIQ, current EL with SPx
h_fiq:
    lsl x20, x20, #4
    orr x20, x20, #2
    eret
