// AArch64 EL0 fixture, loaded raw at 0x40080000; vectors at 0x40081000.  EL1 sets SP_EL0 and
// ERETs to EL0 with DAIF clear.  The user program pushes on its stack, makes a system call,
// loads from and stores to a physical address with nothing behind it (MMU off: synchronous
// external aborts), calls it (an instruction abort), reads an EL1 register (UNDEFINED at
// EL0), pops its stack and makes the last system call.  Every exception is recorded
// (arm64_el0_vectors.inc).  A test that raises the IRQ and FIQ pins before the run sees them
// taken from EL0 right after the first ERET.
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
    ldr x6, =0x0b000000
    ldr x5, [x6]                // nothing at that physical address: data abort, read
    str x5, [x6]                // ... write
    blr x6                      // instruction abort; the handler returns to x30
    mrs x8, vbar_el1            // UNDEFINED at EL0
    ldr x4, [sp], #16           // 0x55, from the user stack
    mov x7, sp                  // 0x40180000 again
    svc #1
    b .
    .ltorg

    .include "arm64_el0_vectors.inc"
