// AArch64 fixture: the physical generic timer through the GICv3 (PPI 30, INTID 30), loaded raw
// at 0x40080000 on the built-in board (GICD 0x08000000, CPU 0's redistributor 0x080A0000 and its
// SGI frame 0x080B0000).  Three times: the timer fires into a busy loop, then it wakes a WFI,
// then it wakes a WFI with IRQs masked (taken once they are unmasked).  The IRQ handler
// acknowledges (ICC_IAR1_EL1), reads the counter and CVAL, the running priority and a second
// acknowledge (spurious), disables the timer and ends the interrupt.  Results at 0x40100000:
// +24k the INTID of interrupt k, +24k+8 CNTPCT at entry, +24k+16 CVAL; +0x80 the loop count,
// +0x88 RPR in the handler, +0x90 the second IAR, +0x98 CNTPCT right after the masked WFI.
// Vectors at 0x40081000.
    .include "arm64_start.inc"
    .text
    .globl _start
_start:
    a64_start
    ldr x19, =0x40100000
    mov x24, #0                 // interrupts taken
    mov x22, #0
    ldr x1, =0x08000000         // GICD_CTLR: EnableGrp1
    mov w2, #2
    str w2, [x1]
    ldr x1, =0x080a0000         // GICR_WAKER: wake the redistributor
    str wzr, [x1, #0x14]
    ldr x1, =0x080b0000         // SGI frame
    mov w2, #-1
    str w2, [x1, #0x80]         // IGROUPR0: all Group 1
    mov w2, #0xa0
    strb w2, [x1, #0x41e]       // IPRIORITYR byte of INTID 30
    mov w2, #(1 << 30)
    str w2, [x1, #0x100]        // ISENABLER0
    mov x2, #7
    msr S3_0_C12_C12_5, x2      // ICC_SRE_EL1
    mov x2, #0xf0
    msr S3_0_C4_C6_0, x2        // ICC_PMR_EL1
    mov x2, #1
    msr S3_0_C12_C12_7, x2      // ICC_IGRPEN1_EL1
    mov x2, #200
    msr cntp_tval_el0, x2
    mov x2, #1
    msr cntp_ctl_el0, x2        // enable
    msr daifclr, #2
loop:
    add x22, x22, #1
    cbz x24, loop
    str x22, [x19, #0x80]
    mov x2, #50
    msr cntp_tval_el0, x2
    mov x2, #1
    msr cntp_ctl_el0, x2
    wfi
    msr daifset, #2             // masked: the WFI still wakes
    mov x2, #50
    msr cntp_tval_el0, x2
    mov x2, #1
    msr cntp_ctl_el0, x2
    wfi
    mrs x2, cntpct_el0
    str x2, [x19, #0x98]
    msr daifclr, #2             // taken here
    ldr x0, =0x84000008
    hvc #0                      // PSCI SYSTEM_OFF
    b .
    .ltorg

    .org 0x1280                 // VBAR + 0x280: IRQ, current EL with SPx
    mrs x20, S3_0_C12_C12_0     // ICC_IAR1_EL1
    mrs x21, cntpct_el0
    mrs x23, cntp_cval_el0
    mov x5, #24
    mul x5, x24, x5
    add x5, x19, x5
    str x20, [x5]
    str x21, [x5, #8]
    str x23, [x5, #16]
    mrs x6, S3_0_C12_C11_3      // ICC_RPR_EL1
    str x6, [x19, #0x88]
    mrs x6, S3_0_C12_C12_0      // a second acknowledge: nothing pending
    str x6, [x19, #0x90]
    msr cntp_ctl_el0, xzr       // the timer's line goes low
    msr S3_0_C12_C12_1, x20     // ICC_EOIR1_EL1
    add x24, x24, #1
    eret
