/* loop.S (arm64) — a known number of instructions, then exit.
 *
 * Instructions executed from the ELF entry (_start) to the exit `hvc`, inclusive:
 *   setup            5   adrp, add, movz, movk, mov
 *   loop     6 * N       ldr, add, mul, eor, subs, b.ne (taken N-1 times, then not)
 *   exit             3   movz, movk, hvc (PSCI SYSTEM_OFF: ends the run, status 0)
 * With N = 1000000: 5 + 6000000 + 3 = 6000008 (tests/e2e/expected/arm64/loop.insns).
 * Nothing is printed. */
#ifndef LOOP_N                          /* qemu-check.sh builds shorter loops */
#define LOOP_N  1000000                 /* 0xf4240 */
#endif

    .section .text.boot, "ax"
    .global _start
_start:
    adrp    x1, loop_data
    add     x1, x1, :lo12:loop_data
    movz    w2, #(LOOP_N & 0xffff)
    movk    w2, #(LOOP_N >> 16), lsl #16
    mov     x3, #0
1:  ldr     x4, [x1]
    add     x3, x3, x4
    mul     x5, x3, x4
    eor     x3, x3, x5
    subs    w2, w2, #1
    b.ne    1b
    movz    x0, #0x0008                 /* PSCI_SYSTEM_OFF 0x84000008 */
    movk    x0, #0x8400, lsl #16
    .global exit_insn                   /* for qemu-check.sh */
exit_insn:
    hvc     #0
2:  wfi                                 /* not reached */
    b       2b

    .data
    .balign 8
loop_data:
    .quad   3

    .section .note.GNU-stack, "", %progbits
