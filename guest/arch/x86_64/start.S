/* start.S (x86_64) — boot and secondary entry: a stack, then C.
 * Entry state (docs/guest-abi.md): long mode, paging on, RDI = DTB, RSI = APIC ID, RSP = 0. */
#include "config.h"

    .section .text.boot, "ax"
    .code64
    .global _start64
_start64:
    movq    $(__stacks + STACK_SIZE), %rsp      /* logical cpu 0's stack */
    cld
    movq    %rdi, %r12                  /* the DTB, across the .bss clear */
    movq    $__bss_start, %rdi
    movq    $__bss_end, %rcx
    subq    %rdi, %rcx
    xorl    %eax, %eax
    rep stosb
    movq    %r12, %rdi
    call    boot_cpu_start              /* does not return */

    .text
/* Secondaries arrive through their spin table word with RSI = APIC ID; their logical id is
 * its index in cpu_logical_map, filled by the boot CPU before the release. */
    .global secondary_entry
secondary_entry:
    xorl    %ecx, %ecx
1:  cmpq    %rsi, cpu_logical_map(, %rcx, 8)
    je      2f
    incl    %ecx
    cmpl    $MAX_CPUS, %ecx
    jb      1b
3:  cli                                 /* not a CPU we know: park */
    hlt
    jmp     3b
2:  movl    %ecx, %edi
    leal    1(%rcx), %eax
    shlq    $STACK_SHIFT, %rax
    addq    $__stacks, %rax
    movq    %rax, %rsp
    cld
    call    secondary_start             /* does not return */

    .section .note.GNU-stack, "", @progbits
