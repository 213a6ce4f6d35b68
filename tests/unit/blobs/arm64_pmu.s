// AArch64 fixture for the PMUv3 (tests/unit/test_pmu_armv8.c), loaded raw at 0x40080000, vectors
// at 0x40081000.  The test connects the PMU's interrupt request to the CPU's IRQ pin; each entry
// arms counters, unmasks IRQ, and the IRQ handler records the interrupt and powers off:
//   0x40100000 ELR_EL1, +8 PMOVSSET_EL0, +16 x2, +24 PMCCNTR_EL0 (at the interrupt),
//   +32 PMOVSSET_EL0 after the handler cleared it through PMOVSCLR_EL0, +40 interrupts taken;
//   +0x40 the ELR_EL1 the entry expects (stored before it counts), +0x48 the ESR of an
//   unexpected synchronous exception; +0x50.. entry F's six counters.
// Counted instructions are numbered in the comments ("1st": the MSR PMCR_EL0 that sets E
// retires after the PMU's sync, so it is the first one counted).
    .include "arm64_start.inc"
    .equ RESULTS, 0x40100000
    .equ EXPECT, 0x40
    .equ PSCI_SYSTEM_OFF, 0x84000008
    .text
    .globl _start

// ---- A (0x40080000): INST_RETIRED on counter 0, 10 to the wrap: the 10th counted instruction
// overflows it, and the interrupt is taken before the next one.
_start:
    a64_start
    ldr x19, =RESULTS
    adr x1, 9f
    str x1, [x19, #EXPECT]
    mov x1, #0x08               // INST_RETIRED
    msr pmevtyper0_el0, x1
    ldr x1, =0xfffffff6
    msr pmevcntr0_el0, x1
    mov x1, #1
    msr pmintenset_el1, x1
    msr pmcntenset_el0, x1
    msr daifclr, #2
    msr pmcr_el0, x1            // E: 1st
    .rept 9
    nop                         // 2nd .. 10th
    .endr
9:  nop
    nop
    b .
    .ltorg

// ---- B (0x40080200): CPU_CYCLES on counter 1, wrapping on the 42nd cycle counted, enabled by
// the MSR at 0x40080300 (the 17th instruction from the entry), then multiplies of several
// cycles each.
    .org 0x200
    a64_start                   // 1-5
    mov x1, #0x11               // 6: CPU_CYCLES
    msr pmevtyper1_el0, x1      // 7
    ldr x1, =0xffffffd6         // 8
    msr pmevcntr1_el0, x1       // 9
    mov x1, #2                  // 10
    msr pmintenset_el1, x1      // 11
    msr pmcntenset_el0, x1      // 12
    msr daifclr, #2             // 13
    mov x1, #1                  // 14
    mov x2, #3                  // 15
    b 1f                        // 16
    .ltorg
    .org 0x300
1:  msr pmcr_el0, x1            // 17: E
    .rept 40
    mul x3, x2, x2
    .endr
    b .

// ---- C (0x40080400): the cycle counter with PMCR_EL0.LC, 42 cycles below 2^64, enabled by the
// MSR at 0x40080500 (the 15th instruction).
    .org 0x400
    a64_start                   // 1-5
    ldr x1, =0xffffffffffffffd6 // 6
    msr pmccntr_el0, x1         // 7: with LC = 0 still, the upper half is kept beside
    ldr x1, =0x80000000         // 8: the cycle counter's bit
    msr pmintenset_el1, x1      // 9
    msr pmcntenset_el0, x1      // 10
    msr daifclr, #2             // 11
    mov x1, #0x41               // 12: E | LC
    mov x2, #3                  // 13
    b 1f                        // 14
    .ltorg
    .org 0x500
1:  msr pmcr_el0, x1            // 15
    .rept 40
    mul x3, x2, x2
    .endr
    b .

// ---- D (0x40080600): a chained pair as Linux makes one: counter 2 INST_RETIRED, 5 to its wrap;
// counter 3 CHAIN at 0xffffffff, which the carry wraps; only counter 3 interrupts.
    .org 0x600
    a64_start
    ldr x19, =RESULTS
    adr x1, 9f
    str x1, [x19, #EXPECT]
    mov x1, #0x08
    msr pmevtyper2_el0, x1
    mov x1, #0x1e               // CHAIN
    msr pmevtyper3_el0, x1
    ldr x1, =0xfffffffb
    msr pmevcntr2_el0, x1
    ldr x1, =0xffffffff
    msr pmevcntr3_el0, x1
    mov x1, #8
    msr pmintenset_el1, x1
    mov x1, #0xc
    msr pmcntenset_el0, x1
    msr daifclr, #2
    mov x1, #1
    msr pmcr_el0, x1            // 1st
    .rept 4
    nop                         // 2nd .. 5th
    .endr
9:  nop
    b .
    .ltorg

// ---- E (0x40080800): counter 0 with U (no counting at EL0), 10 to the wrap: 2 at EL1 (the MSR
// and the ERET), 21 at EL0 not counted, then the vector's B, the MSR DAIFClr and 6 NOPs.
    .org 0x800
    a64_start
    ldr x19, =RESULTS
    adr x1, el0_expect
    str x1, [x19, #EXPECT]
    ldr x1, =0x40000008         // U | INST_RETIRED
    msr pmevtyper0_el0, x1
    ldr x1, =0xfffffff6
    msr pmevcntr0_el0, x1
    mov x1, #1
    msr pmintenset_el1, x1
    msr pmcntenset_el0, x1
    ldr x2, =0x40180000
    msr sp_el0, x2
    adr x2, 1f
    msr elr_el1, x2
    msr spsr_el1, xzr           // EL0t, DAIF clear
    msr pmcr_el0, x1            // 1st
    eret                        // 2nd: retires at EL1
1:  .rept 20
    nop                         // EL0
    .endr
    svc #0                      // EL0 -> the lower-EL vector: b el0_sync (3rd)
    b .
    .ltorg

// ---- F (0x40080a00): branch and memory events over a known loop, counted, not overflowing:
// counters 0-5: BR_PRED, BR_MIS_PRED, MEM_ACCESS, L1D_CACHE, INST_RETIRED, and 0x03
// (L1D_CACHE_REFILL, not modelled).  100 iterations of a load, a store, a subs and a b.ne.
    .org 0xa00
    a64_start
    ldr x19, =RESULTS
    mov x1, #0x12
    msr pmevtyper0_el0, x1
    mov x1, #0x10
    msr pmevtyper1_el0, x1
    mov x1, #0x13
    msr pmevtyper2_el0, x1
    mov x1, #0x04
    msr pmevtyper3_el0, x1
    mov x1, #0x08
    msr pmevtyper4_el0, x1
    mov x1, #0x03
    msr pmevtyper5_el0, x1
    mov x1, #0x3f
    msr pmcntenset_el0, x1
    mov x2, #100
    mov x1, #1
    msr pmcr_el0, x1            // 1st
1:  ldr x3, [sp, #-16]
    str x3, [sp, #-8]
    subs x2, x2, #1
    b.ne 1b
    msr pmcr_el0, xzr           // not counted: the sync is before it
    mrs x4, pmevcntr0_el0
    mrs x5, pmevcntr1_el0
    mrs x6, pmevcntr2_el0
    mrs x7, pmevcntr3_el0
    mrs x8, pmevcntr4_el0
    mrs x9, pmevcntr5_el0
    stp x4, x5, [x19, #0x50]
    stp x6, x7, [x19, #0x60]
    stp x8, x9, [x19, #0x70]
    b poweroff
    .ltorg

// ---- G (0x40080c00): BR_PRED on counter 0, 50 to the wrap: the 50th b.ne (taken, x2 = 50)
// overflows it; the interrupt is taken at the loop's first instruction.
    .org 0xc00
    a64_start
    ldr x19, =RESULTS
    adr x1, 1f
    str x1, [x19, #EXPECT]
    mov x1, #0x12
    msr pmevtyper0_el0, x1
    ldr x1, =0xffffffce
    msr pmevcntr0_el0, x1
    mov x1, #1
    msr pmintenset_el1, x1
    msr pmcntenset_el0, x1
    msr daifclr, #2
    mov x2, #100
    msr pmcr_el0, x1
1:  ldr x3, [sp, #-16]
    str x3, [sp, #-8]
    subs x2, x2, #1
    b.ne 1b
    b .
    .ltorg

// ---- H (0x40080e00): MEM_ACCESS on counter 2, 15 to the wrap: the 8th load (the 15th memory
// instruction, x2 = 93 still) overflows it; the interrupt is taken at the store after it.
    .org 0xe00
    a64_start
    ldr x19, =RESULTS
    adr x1, 2f
    str x1, [x19, #EXPECT]
    mov x1, #0x13
    msr pmevtyper2_el0, x1
    ldr x1, =0xfffffff1
    msr pmevcntr2_el0, x1
    mov x1, #4
    msr pmintenset_el1, x1
    msr pmcntenset_el0, x1
    msr daifclr, #2
    mov x2, #100
    mov x1, #1
    msr pmcr_el0, x1
1:  ldr x3, [sp, #-16]
2:  str x3, [sp, #-8]
    subs x2, x2, #1
    b.ne 1b
    b .
    .ltorg

// ---- the vectors (VBAR_EL1 = 0x40081000)
    .org 0x1000 + 0x200         // current EL with SP_ELx, synchronous: not expected
    mrs x10, esr_el1
    ldr x13, =RESULTS
    str x10, [x13, #0x48]
    b poweroff
    .ltorg
    .org 0x1000 + 0x280         // current EL with SP_ELx, IRQ
    b irq
    .org 0x1000 + 0x400         // lower EL, synchronous: entry E's SVC
    b el0_sync
    .org 0x1000 + 0x480         // lower EL, IRQ (not expected: the ELR says so)
    b irq
    .org 0x1000 + 0x800

irq:
    mrs x10, elr_el1
    mrs x11, pmovsset_el0
    mrs x12, pmccntr_el0
    ldr x13, =RESULTS
    stp x10, x11, [x13]
    stp x2, x12, [x13, #16]
    ldr x1, =0x8000003f
    msr pmovsclr_el0, x1        // acknowledged: the request drops
    mrs x11, pmovsset_el0
    str x11, [x13, #32]
    ldr x11, [x13, #40]
    add x11, x11, #1
    str x11, [x13, #40]
poweroff:
    ldr x0, =PSCI_SYSTEM_OFF
    hvc #0
    b .

el0_sync:                       // entry E, at EL1 with DAIF masked; the vector's B was the 3rd
    msr daifclr, #2             // 4th
el0_unmasked:                   // entry K's interrupt is taken here
    .rept 5
    nop                         // 5th .. 9th
    .endr
    nop                         // 10th: wraps
el0_expect:
    nop
    b .
    .ltorg

// ---- I (0x40081a00): a long count to checkpoint in the middle of: INST_RETIRED on counter 0,
// wrapping on the 150001st instruction counted, the cycle counter with LC beside it, over a
// loop of a million.
    .org 0x1a00
    a64_start
    ldr x19, =RESULTS
    mov x1, #0x08
    msr pmevtyper0_el0, x1
    ldr x1, =0xfffdb60f
    msr pmevcntr0_el0, x1
    mov x1, #1
    msr pmintenset_el1, x1
    ldr x1, =0x80000001
    msr pmcntenset_el0, x1
    msr daifclr, #2
    ldr x2, =1000000
    mov x1, #0x41               // E | LC
    msr pmcr_el0, x1
1:  subs x2, x2, #1
    b.ne 1b
    b poweroff
    .ltorg

// ---- J (0x40081c00): SW_INCR on counter 5 at 0xffffffff: the PMSWINC_EL0 write overflows it,
// and the interrupt is taken right after that MSR.
    .org 0x1c00
    a64_start
    ldr x19, =RESULTS
    adr x1, 9f
    str x1, [x19, #EXPECT]
    msr pmevtyper5_el0, xzr     // SW_INCR
    ldr x1, =0xffffffff
    msr pmevcntr5_el0, x1
    mov x1, #0x20
    msr pmintenset_el1, x1
    msr pmcntenset_el0, x1
    msr daifclr, #2
    mov x3, #1
    msr pmcr_el0, x3
    msr pmswinc_el0, x1
9:  nop
    b .
    .ltorg

// ---- K (0x40081e00): counter 0 counting at both ELs with its interrupt, 23 to the wrap: the
// MSR and the ERET at EL1, 20 NOPs at EL0, then the SVC (23rd), which overflows it at EL0 as it
// enters EL1.  +0x40: the SVC's address; +0x50: where the interrupt is taken (el0_sync unmasks).
    .org 0x1e00
    a64_start
    ldr x19, =RESULTS
    adr x1, 9f
    str x1, [x19, #EXPECT]
    adr x1, el0_unmasked
    str x1, [x19, #0x50]
    mov x1, #0x08               // INST_RETIRED, no filter
    msr pmevtyper0_el0, x1
    ldr x1, =0xffffffe9
    msr pmevcntr0_el0, x1
    mov x1, #1
    msr pmintenset_el1, x1
    msr pmcntenset_el0, x1
    ldr x2, =0x40180000
    msr sp_el0, x2
    adr x2, 1f
    msr elr_el1, x2
    msr spsr_el1, xzr           // EL0t, DAIF clear
    msr pmcr_el0, x1            // 1st
    eret                        // 2nd: retires at EL1
1:  .rept 20
    nop                         // EL0: 3rd .. 22nd
    .endr
9:  svc #0                      // 23rd, at EL0: wraps
    b .
    .ltorg
