/* loop.S (ppc32) — a known number of instructions, then exit.
 *
 * Instructions executed from the ELF entry (_start) to the exit `stb`, inclusive:
 *   setup            6   lis, addi, lis, ori, mtctr, li
 *   loop     5 * N       lwz, add, mullw, xor, bdnz (taken N-1 times, then not)
 *   exit             3   lis, li, stb (isa-debug-exit: ends the run, status 1)
 * With N = 1000000: 6 + 5000000 + 3 = 5000009 (tests/e2e/expected/ppc32/loop.insns).
 * Nothing is printed, no exception is taken, so MSR is left as it is.  Under QEMU, reset.S
 * runs first and jumps here. */
#ifndef LOOP_N                          /* qemu-check.sh builds shorter loops */
#define LOOP_N  1000000
#endif

    .section .text.boot, "ax"
    .global _start
_start:
    lis     r4, loop_data@ha
    addi    r4, r4, loop_data@l
    lis     r5, LOOP_N@h
    ori     r5, r5, LOOP_N@l
    mtctr   r5
    li      r6, 0
1:  lwz     r7, 0(r4)
    add     r6, r6, r7
    mullw   r8, r6, r7
    xor     r6, r6, r8
    bdnz    1b
    lis     r9, 0x8000                  /* ISA I/O base */
    li      r0, 0
    .global exit_insn                   /* for qemu-check.sh */
exit_insn:
    stb     r0, 0x501(r9)               /* isa-debug-exit, code 0 */
    sync                                /* not reached on pmusim: fall back to the ib700 */
    li      r0, 0x0f
    stb     r0, 0x443(r9)
2:  b       2b

    .data
    .balign 4
loop_data:
    .long   3

    .section .note.GNU-stack, "", @progbits
