// AArch64 fixture: the PMU's overflow as a pseudo-NMI through the GICv3, as Linux's
// irqchip.gicv3_pseudo_nmi=1 runs it.  Loaded raw at 0x40080000; vectors at 0x40081000.  The
// timer's PPI 30 at the normal priority 0xa0, the PMU's PPI 23 at the NMI priority 0x20;
// ICC_PMR_EL1 = 0x60 ("interrupts disabled" the Linux way: PSTATE.I stays clear).  The timer
// fires first and stays pending, masked by PMR; an INST_RETIRED counter preset 100 short of its
// overflow interrupts the busy loop on the exact instruction.  The handler records IAR, RPR and
// HPPIR (the masked timer), stops the counter and ends; back in the loop, PMR opens to 0xf0
// and the timer is taken right after that MSR.  Results at 0x40100000: +0 the first INTID, +8 RPR
// in it, +16 HPPIR in it, +24 the second INTID, +32 the loop count at the first, +40 ELR of the
// second, +48 the address right after the MSR that opens PMR.
    .include "arm64_start.inc"
    .text
    .globl _start
_start:
    a64_start
    ldr x19, =0x40100000
    mov x24, #0
    mov x22, #0
    ldr x1, =0x08000000
    mov w2, #2
    str w2, [x1]                // GICD_CTLR: EnableGrp1
    ldr x1, =0x080a0000
    str wzr, [x1, #0x14]        // GICR_WAKER
    ldr x1, =0x080b0000
    mov w2, #-1
    str w2, [x1, #0x80]         // IGROUPR0
    mov w2, #0xa0
    strb w2, [x1, #0x41e]       // INTID 30: normal priority
    mov w2, #0x20
    strb w2, [x1, #0x417]       // INTID 23: NMI priority
    ldr w2, =(1 << 30) | (1 << 23)
    str w2, [x1, #0x100]        // ISENABLER0
    mov x2, #0x60
    msr S3_0_C4_C6_0, x2        // ICC_PMR_EL1: normal interrupts masked
    mov x2, #1
    msr S3_0_C12_C12_7, x2      // ICC_IGRPEN1_EL1
    mov x2, #10
    msr cntp_tval_el0, x2
    mov x2, #1
    msr cntp_ctl_el0, x2        // the timer: pending soon, masked by PMR
    msr pmselr_el0, xzr
    mov x2, #8
    msr pmxevtyper_el0, x2      // counter 0: INST_RETIRED
    ldr x2, =0xffffffff - 99
    msr pmxevcntr_el0, x2
    mov x2, #1
    msr pmintenset_el1, x2
    msr pmcntenset_el0, x2
    msr daifclr, #2
    msr pmcr_el0, x2            // E: counting from here
loop:
    add x22, x22, #1
    cbz x24, loop
    str x22, [x19, #32]
    adr x7, after_pmr
    str x7, [x19, #48]
    mov x2, #0xf0
    msr S3_0_C4_C6_0, x2        // PMR open: the timer is taken right after this
after_pmr:
    nop
    ldr x0, =0x84000008
    hvc #0                      // PSCI SYSTEM_OFF
    b .
    .ltorg

    .org 0x1280                 // VBAR + 0x280: IRQ, current EL with SPx
    mrs x20, S3_0_C12_C12_0     // ICC_IAR1_EL1
    cbnz x24, second
    str x20, [x19]
    mrs x6, S3_0_C12_C11_3      // ICC_RPR_EL1
    str x6, [x19, #8]
    mrs x6, S3_0_C12_C12_2      // ICC_HPPIR1_EL1
    str x6, [x19, #16]
    mov x6, #1
    msr pmcntenclr_el0, x6
    msr pmovsclr_el0, x6        // the request drops
    b done
second:
    str x20, [x19, #24]
    mrs x6, elr_el1
    str x6, [x19, #40]
    msr cntp_ctl_el0, xzr
done:
    msr S3_0_C12_C12_1, x20     // ICC_EOIR1_EL1
    add x24, x24, #1
    eret
