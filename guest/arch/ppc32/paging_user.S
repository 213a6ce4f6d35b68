/* paging_user.S (ppc32) — problem state for the paging guest: entering it with rfi, the way
 * back at sc with r0 = 0 (paging.c's on_sc returns to paging_user_return), and the user
 * program itself (copied into a window page).  Linux's ppc32 system call convention: the number
 * in r0, arguments and result in r3 (arch/powerpc/kernel/entry_32.S). */
#include "arch.h"

#define WINDOW      0x90000000
#define SRR0        26
#define SRR1        27

    .text
/* void paging_enter_user(unsigned long pc, unsigned long sp, unsigned long msr): saves the
 * non-volatile registers and the stack pointer, then rfi to pc in state msr with r1 = sp. */
    .globl paging_enter_user
paging_enter_user:
    mflr    r0
    stwu    r1, -96(r1)
    stw     r0, 100(r1)
    stmw    r14, 8(r1)                  /* r14..r31: 72 bytes */
    mfcr    r0
    stw     r0, 80(r1)
    lis     r6, paging_kernel_sp@ha
    stw     r1, paging_kernel_sp@l(r6)
    mtspr   SRR0, r3
    mtspr   SRR1, r5
    mr      r1, r4
    rfi
/* on_sc's way back: supervisor state, translation on, r1 = paging_kernel_sp. */
    .globl paging_user_return
paging_user_return:
    lwz     r0, 80(r1)
    mtcr    r0
    lmw     r14, 8(r1)
    lwz     r0, 100(r1)
    mtlr    r0
    addi    r1, r1, 96
    blr

    .data
    .globl paging_kernel_sp, paging_syscalls
    .balign 4
paging_kernel_sp:  .long 0
paging_syscalls:   .long 0

/* The user program (position-independent, absolute window addresses). */
    .section .rodata
    .globl paging_user_prog, paging_user_prog_end
    .balign 4
paging_user_prog:
    lis     r9, (WINDOW + 10 * 4096 + 0x20)@h
    ori     r9, r9, (WINDOW + 10 * 4096 + 0x20)@l
    lwz     r3, 0(r9)                   /* not mapped: DSI, no translation */
    lis     r9, (WINDOW + 12 * 4096 + 0x8)@h
    ori     r9, r9, (WINDOW + 12 * 4096 + 0x8)@l
    li      r0, 7
    stw     r0, 0(r9)                   /* user read-only: DSI, protection, store */
    lis     r9, (WINDOW + 13 * 4096)@h
    ori     r9, r9, (WINDOW + 13 * 4096)@l
    lwz     r3, 0(r9)                   /* supervisor only: DSI, protection */
    li      r0, 1
    li      r3, 41
    sc                                  /* answered 42 */
    lis     r9, (WINDOW + 10 * 4096)@h
    ori     r9, r9, (WINDOW + 10 * 4096)@l
    stw     r3, 0(r9)                   /* the answer, for the kernel to see */
    mfmsr   r5                          /* privileged: a program check (the handler skips it) */
    li      r0, 0
    sc                                  /* back to the kernel */
paging_user_prog_end:

    .section .note.GNU-stack, "", @progbits
