/* user.S (arm64) — into EL0, and the system call stub user code calls (the oprofile scenario).
 *
 * enter_user(entry, arg, sp): ERET to entry at EL0t with x0 = arg, SP_EL0 = sp and PSTATE.DAIF
 * clear (Linux starts user threads so, arch/arm64/include/asm/processor.h start_thread: pstate
 * PSR_MODE_EL0t).  Interrupts are masked by ICC_PMR_EL1 only (pseudo-NMI, gic.h), and PMR is
 * not banked by EL, so the caller sets it first.  SP_EL1 stays where the call left it: every
 * exception from EL0 builds its frame there (vectors.S).  Does not return; user code comes back
 * only through SVC.  The MMU may be off: EL0 then sees memory flat, with no permission checks
 * (Arm ARM DDI 0487, D8 "The effects of disabling an address translation stage").
 *
 * syscall(nr, a, b): Linux's arm64 ABI, the number in x8, arguments in x0.., SVC #0, the result
 * in x0 (arch/arm64/kernel/syscall.c).  It lives in .user.text: user code calls it. */
#include "arch.h"

#define SPSR_EL0T       0               /* M[3:0] = EL0t, D, A, I, F clear */

    .text
    .global enter_user
enter_user:
    msr     sp_el0, x2
    msr     elr_el1, x0
    mov     x0, x1
    mov     x1, #SPSR_EL0T
    msr     spsr_el1, x1
    mov     x29, xzr                    /* terminate the user frame chain */
    mov     x30, xzr
    eret

    .section .user.text, "ax"
    .global syscall
    .type   syscall, %function
syscall:
    mov     x8, x0
    mov     x0, x1
    mov     x1, x2
    svc     #0
    ret
    .size   syscall, . - syscall

    .section .note.GNU-stack, "", %progbits
