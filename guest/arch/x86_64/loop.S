/* loop.S (x86_64) — a known number of instructions, then exit.
 *
 * Instructions executed from the ELF entry (_start64) to the exit `out`, inclusive:
 *   setup            3   movl, xorl, leaq
 *   loop     5 * N       addq (load + add), imulq, xorq, decl, jnz (taken N-1 times, then not)
 *   exit             2   xorl, outb (isa-debug-exit: ends the run, status 1)
 * With N = 1000000: 3 + 5000000 + 2 = 5000005 (tests/e2e/expected/x86_64/loop.insns).
 * Nothing is printed.  Under QEMU, boot32.S runs first and jumps here. */
#ifndef LOOP_N                          /* qemu-check.sh builds shorter loops */
#define LOOP_N  1000000
#endif

    .section .text.boot, "ax"
    .code64
    .global _start64
_start64:
    movl    $LOOP_N, %ecx
    xorl    %eax, %eax
    leaq    loop_data(%rip), %rsi
1:  addq    (%rsi), %rax
    imulq   $7, %rax, %rdx
    xorq    %rdx, %rax
    decl    %ecx
    jnz     1b
    xorl    %eax, %eax
    .global exit_insn                   /* for qemu-check.sh */
exit_insn:
    outb    %al, $0xf4
2:  cli                                 /* not reached on pmusim */
    hlt
    jmp     2b

    .data
loop_data:
    .quad   3

    .section .note.GNU-stack, "", @progbits
