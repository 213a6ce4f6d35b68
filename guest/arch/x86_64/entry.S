/* entry.S (x86_64) — interrupt and exception entry.
 *
 * The IDT points every vector at its stub.  A stub pushes a zero error code when the CPU pushes
 * none (so the frame has one layout), then the vector, and joins idt_common, which saves the
 * GPRs into a struct trap_frame and calls trap_dispatch().  The CPU aligns RSP to 16 before its
 * pushes: 5 + 2 + 15 quadwords keep it aligned for the call. */
#include "arch.h"

    .text
    .balign IDT_STUB_SIZE
    .global idt_stubs
idt_stubs:
    vector = 0
    .rept NR_TRAPS
    .balign IDT_STUB_SIZE
    /* #DF #TS #NP #SS #GP #PF #AC #CP #VC #SX push an error code */
    .if vector == 8 || (vector >= 10 && vector <= 14) || vector == 17 || vector == 21 || vector == 29 || vector == 30
    .else
    pushq   $0
    .endif
    pushq   $vector
    jmp     idt_common
    vector = vector + 1
    .endr

idt_common:
    pushq   %rax
    pushq   %rbx
    pushq   %rcx
    pushq   %rdx
    pushq   %rsi
    pushq   %rdi
    pushq   %rbp
    pushq   %r8
    pushq   %r9
    pushq   %r10
    pushq   %r11
    pushq   %r12
    pushq   %r13
    pushq   %r14
    pushq   %r15
    movq    %rsp, %rdi
    cld
    call    trap_dispatch
    popq    %r15
    popq    %r14
    popq    %r13
    popq    %r12
    popq    %r11
    popq    %r10
    popq    %r9
    popq    %r8
    popq    %rbp
    popq    %rdi
    popq    %rsi
    popq    %rdx
    popq    %rcx
    popq    %rbx
    popq    %rax
    addq    $16, %rsp                   /* vector and error code */
    iretq

    .section .note.GNU-stack, "", @progbits
