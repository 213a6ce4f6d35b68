// AArch64 EL0 fixture, loaded raw at 0x40080000; vectors at 0x40081000.  EL1 sets SP_EL0 and
// ERETs to EL0 with DAIF clear.  The user program pushes on its stack, makes a system call,
// loads from and stores to a physical address with nothing behind it (MMU off: synchronous
// external aborts), calls it (an instruction abort), reads an EL1 register (UNDEFINED at
// EL0), pops its stack and makes the last system call.  Every vector entry records (kind,
// ESR, ELR, SPSR, FAR, SP, SP_EL0) in slot n of the table at 0x40100040 (64 bytes a slot, the
// count at 0x40100000) and returns: past a data abort or an undefined instruction, to x30
// after an instruction abort; svc #1 powers off.  A test that raises the IRQ and FIQ pins
// before the run sees them taken from EL0 right after the first ERET.
    .include "arm64_start.inc"
    .text
    .globl _start
_start:
    a64_start
    ldr x1, =0x40180000
    msr sp_el0, x1              // the user stack
    ldr x1, =user
    msr elr_el1, x1
    msr spsr_el1, xzr           // EL0t, DAIF clear
    eret
user:
    mov x2, sp                  // SP_EL0: 0x40180000
    mov x3, #0x55
    str x3, [sp, #-16]!
    svc #0x17
    ldr x6, =0x70000000
    ldr x5, [x6]                // nothing at that physical address: data abort, read
    str x5, [x6]                // ... write
    blr x6                      // instruction abort; the handler returns to x30
    mrs x8, vbar_el1            // UNDEFINED at EL0
    ldr x4, [sp], #16           // 0x55, from the user stack
    mov x7, sp                  // 0x40180000 again
    svc #1
    b .
    .ltorg

    .macro vent n
    .org 0x1000 + \n * 0x80
    mov x9, #\n
    b record
    .endm
    vent 0
    vent 1
    vent 2
    vent 3
    vent 4
    vent 5
    vent 6
    vent 7
    vent 8
    vent 9
    vent 10
    vent 11
    vent 12
    vent 13
    vent 14
    vent 15

record:
    ldr x16, =0x40100000
    ldr x17, [x16]
    add x18, x16, #64
    add x18, x18, x17, lsl #6
    add x17, x17, #1
    str x17, [x16]
    mrs x10, esr_el1
    mrs x11, elr_el1
    mrs x12, spsr_el1
    mrs x13, far_el1
    mov x14, sp
    mrs x15, sp_el0
    stp x9, x10, [x18]
    stp x11, x12, [x18, #16]
    stp x13, x14, [x18, #32]
    str x15, [x18, #48]
    cmp x17, #16                // a runaway: stop
    b.hs off
    cmp x9, #8                  // lower EL, synchronous
    b.ne 9f
    lsr x17, x10, #26
    cmp x17, #0x15
    b.ne 1f
    and x17, x10, #0xffff
    cmp x17, #1
    b.eq off
    b 9f
1:  cmp x17, #0x20
    b.ne 2f
    msr elr_el1, x30            // instruction abort: back to the caller
    b 9f
2:  add x11, x11, #4            // data abort: step over the access
    msr elr_el1, x11
9:  eret
off:
    ldr x0, =0x84000008
    hvc #0                      // PSCI SYSTEM_OFF
    b .
    .ltorg
