// AArch64 exception entry fixture, loaded raw at 0x40080000; vectors at 0x40081000.
// Retired: 1 ldr, 2 msr, 3 isb, 4 ldr, 5 mov, 6 svc -> handler (7 mrs, 8 mrs, 9 mrs,
// 10 lsr, 11 cmp, 12 b.eq, 13 eret), 14 brk? no: brk faults (not retired) -> handler ...
    .include "arm64_start.inc"
    .text
    .globl _start
_start:
    a64_start
    svc #0x42
    brk #7
    .inst 0x00000000            // permanently undefined
    ldr x6, =0x0b000000
    ldr x5, [x6]                // nothing at that physical address: data abort
    ldr x0, =0x84000008
    hvc #0                      // PSCI SYSTEM_OFF
    b .
    .ltorg
    .org 0x1200                 // VBAR + 0x200: synchronous, current EL with SPx
h_sync:
    mrs x10, esr_el1
    mrs x11, elr_el1
    mrs x12, far_el1
    lsr x13, x10, #26
    cmp x13, #0x15
    b.eq 1f                     // SVC: ELR is already the next instruction
    add x11, x11, #4
    msr elr_el1, x11
1:  eret
