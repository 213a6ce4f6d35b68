/* paging_user.S (arm64) — user mode for the paging guest: entering EL0 with ERET, the way back
 * at SVC_EXIT, and the user program itself (copied into a window page).  The kernel's stack
 * stays in SP_EL1 while EL0 runs on SP_EL0 (Arm ARM DDI 0487, "Stack pointer register
 * selection"): every exception from EL0 builds its frame there (vectors.S), and the SVC_EXIT
 * handler (paging.c) returns to paging_user_return on it. */
#include "paging_user.h"

#define WINDOW      0x80000000          /* paging.c's paging_window */

    .text
/* void paging_enter_user(unsigned long pc, unsigned long sp): runs until SVC_EXIT. */
    .globl paging_enter_user
paging_enter_user:
    stp     x29, x30, [sp, #-96]!
    stp     x19, x20, [sp, #16]
    stp     x21, x22, [sp, #32]
    stp     x23, x24, [sp, #48]
    stp     x25, x26, [sp, #64]
    stp     x27, x28, [sp, #80]
    msr     sp_el0, x1
    msr     elr_el1, x0
    mov     x0, #SPSR_EL0T_MASKED
    msr     spsr_el1, x0
    eret
/* The SVC_EXIT handler's ERET lands here, at EL1h on the stack above. */
    .globl paging_user_return
paging_user_return:
    ldp     x19, x20, [sp, #16]
    ldp     x21, x22, [sp, #32]
    ldp     x23, x24, [sp, #48]
    ldp     x25, x26, [sp, #64]
    ldp     x27, x28, [sp, #80]
    ldp     x29, x30, [sp], #96
    ret

/* The user program (position-independent, absolute window addresses).  It also pushes a word
 * on its stack before the faults and pops it after them: the 1 in the answer comes from SP_EL0's
 * page, across three trips to EL1. */
    .section .rodata
    .balign 4
    .globl paging_user_prog, paging_user_prog_end
paging_user_prog:
    mov     x3, #1
    str     x3, [sp, #-16]!             /* the user stack (window page 11) */
    movz    x1, #(WINDOW >> 16), lsl #16
    movk    x1, #(10 * 4096 + 0x20)
    ldr     x0, [x1]                    /* not mapped: translation fault, level 3 */
    movk    x1, #(12 * 4096 + 0x8)
    mov     w2, #7
    str     w2, [x1]                    /* EL0 read-only: permission fault, write */
    movk    x1, #(13 * 4096)
    ldr     x0, [x1]                    /* EL1 only: permission fault, read */
    ldr     x3, [sp], #16
    mov     x0, #40
    add     x0, x0, x3                  /* 41 */
    svc     #SVC_ANSWER
    movk    x1, #(10 * 4096)
    str     x0, [x1]                    /* the answer, for the kernel to see */
    svc     #SVC_EXIT
paging_user_prog_end:

    .section .note.GNU-stack, "", %progbits
