// AArch64 fixture: hardware breakpoints (Arm ARM DDI 0487 D2, "Breakpoint exceptions"), loaded raw
// at 0x40080000, vectors at 0x40081000 (arm64_debug_vectors.inc records every exception).  The
// OS Lock is locked out of reset (OSLSR_EL1 0xa into x20, 0x8 into x21 once OSLAR_EL1 clears it);
// an armed breakpoint is taken only with the OS Lock clear, MDSCR_EL1.MDE set, and at EL1 KDE set
// and PSTATE.D clear, on the ELs its PMC names.  A breakpoint comes before the BRK it is on;
// a BRK is taken whatever the debug state.  A linked breakpoint matches only while CONTEXTIDR_EL1
// holds its context breakpoint's ID; an unlinked context breakpoint (EL0) is taken at the first
// EL0 instruction; a watchpoint on EL0 stores takes the user's store (EC 0x34).  x22 stays 1 (the breakpointed MOV did not run), x23..x25 read back
// DBGBCR5_EL1, ID_AA64DFR0_EL1 and DBGBVR5_EL1, x26 OSECCR_EL1 (32 bits of a 40-bit write), and the user program sets x7 and reads MDCCSR_EL0
// into x6 (MDSCR_EL1 is UNDEFINED at EL0).  The label table at
// 0x40080f00 gives the addresses the test expects in ELR_EL1.
    .include "arm64_start.inc"
    .equ BCR_EL1, 0x1e3         // BAS 0b1111, PMC 0b01 (EL1), E
    .equ BCR_EL0, 0x1e5         // PMC 0b10 (EL0)
    .equ KDE_MDE, (1 << 13) | (1 << 15)
    .text
    .globl _start
_start:
    a64_start
    mrs x20, oslsr_el1          // 0xa: the OS Lock is locked
    ldr x1, =bp1
    msr dbgbvr0_el1, x1
    mov x1, #BCR_EL1
    msr dbgbcr0_el1, x1         // arming a breakpoint (the engine's own crashed here)
    mov x1, #KDE_MDE
    msr mdscr_el1, x1
    msr daifclr, #8             // PSTATE.D clear
    isb
bp1:
    nop                         // the OS Lock: nothing
    msr oslar_el1, xzr
    isb
    mrs x21, oslsr_el1          // 0x8
    ldr x1, =bp2
    msr dbgbvr0_el1, x1
    isb
    mov x22, #1
bp2:
    mov x22, #2                 // record 0: EC 0x31, skipped
    msr daifset, #8             // PSTATE.D set: nothing
    ldr x1, =bp3
    msr dbgbvr0_el1, x1
    isb
bp3:
    nop
    msr daifclr, #8
    mov x1, #(1 << 15)          // MDE without KDE: nothing at EL1
    msr mdscr_el1, x1
    ldr x1, =bp4
    msr dbgbvr0_el1, x1
    isb
bp4:
    nop
    mov x1, #(1 << 13)          // KDE without MDE: nothing
    msr mdscr_el1, x1
    ldr x1, =bp5
    msr dbgbvr0_el1, x1
    isb
bp5:
    nop
    mov x1, #KDE_MDE
    msr mdscr_el1, x1
    mov x1, #BCR_EL0            // EL0 only: nothing at EL1
    msr dbgbcr0_el1, x1
    ldr x1, =bp6
    msr dbgbvr0_el1, x1
    isb
bp6:
    nop
    mov x1, #BCR_EL1
    msr dbgbcr0_el1, x1
    ldr x1, =bp7
    msr dbgbvr0_el1, x1
    isb
bp7:
    brk #0x77                   // record 1: the breakpoint (EC 0x31), not the BRK
    msr dbgbcr0_el1, xzr
    msr daifset, #8
brk1:
    brk #0x66                   // record 2: EC 0x3c, ISS 0x66, with debug exceptions masked
    msr daifclr, #8
    ldr x1, =bp8                // armed by the MSR itself, no ISB between
    msr dbgbvr1_el1, x1
    mov x1, #BCR_EL1
    msr dbgbcr1_el1, x1
bp8:
    nop                         // record 3: EC 0x31
    msr dbgbcr1_el1, xzr
    mov x1, #0x55
    msr dbgbvr4_el1, x1
    ldr x1, =0x3001e7           // breakpoint 4: BT 0b0011 linked context ID 0x55
    msr dbgbcr4_el1, x1
    ldr x1, =bp9
    msr dbgbvr2_el1, x1
    ldr x1, =0x1401e3           // breakpoint 2: BT 0b0001 linked address, LBN 4, EL1
    msr dbgbcr2_el1, x1
    isb
bp9:
    nop                         // CONTEXTIDR_EL1 is 0: nothing
    mov x1, #0x55
    msr contextidr_el1, x1
    ldr x1, =bp10
    msr dbgbvr2_el1, x1
    isb
bp10:
    nop                         // record 4: EC 0x31
    msr dbgbcr2_el1, xzr
    mov x1, #0x55
    msr dbgbvr5_el1, x1
    ldr x1, =0x2001e5           // breakpoint 5: BT 0b0010 unlinked context ID 0x55, EL0
    msr dbgbcr5_el1, x1
    mrs x23, dbgbcr5_el1
    mrs x24, id_aa64dfr0_el1
    mrs x25, dbgbvr5_el1
    ldr x1, =0x1234567855
    msr oseccr_el1, x1
    mrs x26, oseccr_el1         // a 32-bit register: 0x34567855
    ldr x1, =ubp
    msr dbgbvr0_el1, x1
    mov x1, #BCR_EL0
    msr dbgbcr0_el1, x1
    ldr x1, =0x40110000
    msr dbgwvr0_el1, x1
    ldr x1, =(0xff << 5) | (2 << 3) | (2 << 1) | 1     // watchpoint 0: stores at EL0
    msr dbgwcr0_el1, x1
    ldr x1, =0x40180000
    msr sp_el0, x1
    ldr x1, =user
    msr elr_el1, x1
    msr spsr_el1, xzr           // EL0t, DAIF clear
    eret
user:
    nop                         // record 5: EC 0x30, the context breakpoint; then it runs
    nop
ubp:
    mov x7, #1                  // record 6: EC 0x30, skipped
    mov x7, #7
    ldr x8, =0x40110000
ust:
    str x7, [x8]                // record 7: EC 0x34, WnR, FAR 0x40110000; skipped
    mrs x6, mdccsr_el0          // readable at EL0 (MDSCR_EL1.TDCC clear): 0
undef:
    mrs x6, mdscr_el1           // record 8: UNDEFINED at EL0 (EC 0)
    svc #1                      // record 9: powers off
    b .
    .ltorg

    .org 0xf00                  // the labels, for the test
    .quad bp2, bp7, brk1, bp8, bp10, user, ubp, undef, ust
    .include "arm64_debug_vectors.inc"
