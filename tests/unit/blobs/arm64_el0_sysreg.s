// AArch64 fixture for the system registers pmusim emulates, read and written at EL0; loaded raw
// at 0x40080000, vectors at 0x40081000 (arm64_el0_vectors.inc records every exception).  EL1
// enables EL0's virtual counter (CNTKCTL_EL1.EL0VCTEN) and cycle counter reads
// (PMUSERENR_EL0.CR) only, then ERETs to EL0.
    .include "arm64_start.inc"
    .text
    .globl _start
_start:
    a64_start
    mov x1, #2                  // CNTKCTL_EL1.EL0VCTEN
    msr cntkctl_el1, x1
    mov x1, #4                  // PMUSERENR_EL0.CR
    msr pmuserenr_el0, x1
    ldr x1, =0x40180000
    msr sp_el0, x1
    ldr x1, =user
    msr elr_el1, x1
    msr spsr_el1, xzr           // EL0t, DAIF clear
    eret
user:
    mrs x2, cntvct_el0          // enabled: goes ahead
    mrs x3, cntpct_el0          // not enabled: trapped to EL1 (EC 0x18)
    msr cntv_ctl_el0, x4        // not enabled: trapped (a write)
    mrs x5, mpidr_el1           // EL1 only: UNDEFINED
    mrs x6, pmccntr_el0         // PMUSERENR_EL0.CR: goes ahead
    mrs x7, pmcr_el0            // not enabled: trapped
    mrs x8, pmuserenr_el0       // readable at EL0
    msr pmuserenr_el0, xzr      // written only at EL1: UNDEFINED
    svc #1
    b .
    .ltorg
    .include "arm64_el0_vectors.inc"
