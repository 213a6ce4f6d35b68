// AArch64 fixture: UNDEFINED accesses of registers pmusim emulates, at EL1, and the PMU's EL
// filters.  Loaded raw at 0x40080000, vectors at 0x40081000.
// 1. MSR MIDR_EL1 and MSR PMCEID0_EL0 are UNDEFINED (read-only): the exception is taken before
//    the next instruction of the block runs (x20 holds 0, then 1, at the vector; the vector
//    records x20 and ESR_EL1 at 0x40100000.. and steps over the access).
// 2. PMCCFILTR_EL0.U, PMEVTYPER0 = P | INST_RETIRED, PMEVTYPER1 = U | INST_RETIRED: then 10
//    NOPs and an SVC at EL0; the lower-EL vector stores PMEVCNTR0 (EL0's instructions only),
//    PMEVCNTR1 (EL1's only) and PMCCNTR at 0x40100020 and powers off.
    .include "arm64_start.inc"
    .text
    .globl _start
_start:
    a64_start
    ldr x19, =0x40100000
    mov x20, #0
    msr midr_el1, x0
    mov x20, #1
    msr pmceid0_el0, x0
    mov x20, #2
    ldr x1, =0x40000000         // PMCCFILTR_EL0.U: no cycles at EL0
    msr pmccfiltr_el0, x1
    ldr x1, =0x80000008         // P: EL0 only, INST_RETIRED
    msr pmevtyper0_el0, x1
    ldr x1, =0x40000008         // U: EL1 only, INST_RETIRED
    msr pmevtyper1_el0, x1
    ldr x1, =0x80000003         // the cycle counter, counters 0 and 1
    msr pmcntenset_el0, x1
    ldr x2, =0x40180000
    msr sp_el0, x2
    adr x2, user
    msr elr_el1, x2
    mov x1, #1                  // PMCR_EL0.E
    msr pmcr_el0, x1            // EL1 counting starts here: 3 instructions to the ERET
    msr spsr_el1, xzr           // EL0t
    eret
user:
    .rept 10
    nop
    .endr
    svc #0
    b .

    .org 0x1000 + 0x200         // current EL with SP_ELx, synchronous: the UNDEFINED MSRs
    mrs x10, esr_el1
    stp x20, x10, [x19], #16
    mrs x11, elr_el1
    add x11, x11, #4
    msr elr_el1, x11
    eret

    .org 0x1000 + 0x400         // lower EL, synchronous: the SVC
    mrs x21, pmevcntr0_el0
    mrs x22, pmevcntr1_el0
    mrs x23, pmccntr_el0
    ldr x19, =0x40100020
    stp x21, x22, [x19]
    str x23, [x19, #16]
    ldr x0, =0x84000008
    hvc #0                      // PSCI SYSTEM_OFF
    b .
    .ltorg
