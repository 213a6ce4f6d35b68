// AArch64 fixture: software step (Arm ARM DDI 0487 D2, "Software Step exceptions"), loaded raw at
// 0x40080000, vectors at 0x40081000 (arm64_debug_vectors.inc records every exception; a step
// exception returns with SPSR_EL1.SS set again while x26 is 1, and ends the step when it is 0).
// With the OS Lock clear and MDSCR_EL1.SS set, an ERET to EL0 with SPSR_EL1.SS set runs one
// instruction, then the Software Step exception (EC 0x32, ISV) is taken before the next: the user
// program is stepped instruction by instruction.  A stepped SVC completes: its exception saves
// SPSR.SS 0, and its return takes the step exception at once, with ISV clear (active-pending).
// A stepped LDXR sets ISS.EX.  A stepped load that aborts saves SPSR.SS 1: the instruction after
// it is stepped when the handler returns.  At EL1 (svc #2 continues at `part2`) with MDSCR_EL1.KDE the kernel
// steps itself (EC 0x33) after an ERET to EL1 with PSTATE.D clear; without KDE nothing is stepped;
// an MSR DAIFClr that clears PSTATE.D with the step enabled makes it pending at once (ISV clear,
// ELR the instruction after the MSR).  x4 = the LDXR's load, x8 = 8, x19 = 20 at the end.  The
// label table at 0x40080f00 gives the addresses the test expects.
    .include "arm64_start.inc"
    .equ SPSR_SS, 1 << 21
    .equ MDSCR_SS, 1
    .equ MDSCR_KDE, 1 << 13
    .text
    .globl _start
_start:
    a64_start
    msr oslar_el1, xzr
    mov x1, #MDSCR_SS
    msr mdscr_el1, x1
    mov x26, #1
    ldr x27, =part2
    ldr x1, =0x40180000
    msr sp_el0, x1
    ldr x6, =0x40110000
    mov x1, #0x44
    str x1, [x6]
    ldr x1, =user
    msr elr_el1, x1
    mov x1, #SPSR_SS            // EL0t, DAIF clear, SS
    msr spsr_el1, x1
    eret
user:
    mov x1, #1                  // record 0: step, ELR user + 4
    mov x2, #2                  // record 1
    add x3, x1, x2              // record 2
    svc #0                      // record 3: the SVC; record 4: step, ISV clear, ELR user + 16
    ldxr x4, [x6]               // record 5: step, EX
    mov x5, #5                  // record 6
    ldr x24, =0x0b000000        // record 7
    ldr x25, [x24]              // record 8: a data abort (nothing there): SPSR.SS 1, skipped
    svc #2                      // stepped again: record 9, the SVC, to part2
    b .
part2:
    mov x1, #(MDSCR_SS | MDSCR_KDE)
    msr mdscr_el1, x1
    ldr x1, =kstep
    msr elr_el1, x1
    ldr x1, =(SPSR_SS | 0x1c5)  // EL1h, A I F masked, D clear, SS
    msr spsr_el1, x1
    eret
kstep:
    mov x8, #8                  // record 10: EC 0x33, ELR kstep + 4
    mov x26, #0                 // record 11: the last step
    mov x1, #MDSCR_SS           // SS without KDE: EL1 is not stepped
    msr mdscr_el1, x1
    ldr x1, =k2
    msr elr_el1, x1
    ldr x1, =(SPSR_SS | 0x1c5)
    msr spsr_el1, x1
    eret
k2:
    mov x19, #19
    msr daifset, #8
    mov x1, #(MDSCR_SS | MDSCR_KDE)
    msr mdscr_el1, x1           // PSTATE.D set: nothing yet
dclr:
    msr daifclr, #8             // record 12: EC 0x33, ISV clear, ELR dclr + 4
    mov x19, #20
    ldr x0, =0x84000008
    hvc #0                      // PSCI SYSTEM_OFF
    b .
    .ltorg

    .org 0xf00                  // the labels, for the test
    .quad user, part2, kstep, dclr
    .include "arm64_debug_vectors.inc"
