/* paging_user.S (x86_64) — user mode for the paging guest: entering CPL 3 with IRETQ, the
 * SYSCALL entry, the way back at int $0x80, and the user program itself (copied into a window
 * page).  GDT layout as Linux's (arch/x86/include/asm/segment.h): user 32-bit code 0x18, user
 * data 0x20, user 64-bit code 0x28, so that SYSRET (CS = STAR[63:48] + 16, SS = + 8) with
 * STAR[63:48] = 0x1b lands on 0x2b / 0x23. */
#define USER_CS 0x2b
#define USER_DS 0x23
#define WINDOW  0x8000000000

    .text
/* void paging_enter_user(unsigned long rip, unsigned long rsp): runs until int $0x80. */
    .globl paging_enter_user
paging_enter_user:
    pushq   %rbx
    pushq   %rbp
    pushq   %r12
    pushq   %r13
    pushq   %r14
    pushq   %r15
    movq    %rsp, paging_kernel_rsp(%rip)
    pushq   $USER_DS
    pushq   %rsi
    pushq   $0x2                        /* RFLAGS: interrupts off */
    pushq   $USER_CS
    pushq   %rdi
    iretq
/* The int $0x80 handler (paging_arch.c) returns here, at CPL 0 on the kernel stack. */
    .globl paging_user_return
paging_user_return:
    popq    %r15
    popq    %r14
    popq    %r13
    popq    %r12
    popq    %rbp
    popq    %rbx
    ret

/* IA32_LSTAR: a system call answers rax + 1 and counts itself. */
    .globl paging_syscall_entry
paging_syscall_entry:
    incq    %rax
    incq    paging_syscalls(%rip)
    sysretq

    .data
    .globl paging_kernel_rsp, paging_syscalls
paging_kernel_rsp: .quad 0
paging_syscalls:   .quad 0

/* The user program (position-independent bytes, absolute window addresses). */
    .section .rodata
    .globl paging_user_prog, paging_user_prog_end
paging_user_prog:
    movabs  $WINDOW + 10 * 4096 + 0x20, %rbx
    movq    (%rbx), %rax                /* not present: #PF U */
    movabs  $WINDOW + 12 * 4096 + 0x8, %rbx
    movl    $7, (%rbx)                  /* user read-only: #PF P W U */
    movabs  $WINDOW + 13 * 4096, %rbx
    movq    (%rbx), %rax                /* a supervisor page: #PF P U */
    movl    $41, %eax
    syscall
    movabs  $WINDOW + 10 * 4096, %rbx
    movq    %rax, (%rbx)                /* the answer, for the kernel to see */
    int     $0x80
paging_user_prog_end:

    .section .note.GNU-stack, "", @progbits
