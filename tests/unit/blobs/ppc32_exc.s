# PowerPC exception entry fixture, loaded raw at 0 with entry 0x3000 (vectors at 0x700, 0xc00).
    .text
    .globl _start
    .org 0x700
h_program:
    mfsrr0 %r20
    mfsrr1 %r21
    addi %r20, %r20, 4
    mtsrr0 %r20
    rfi
    .org 0xc00
h_syscall:
    mfsrr0 %r22
    mfsrr1 %r23
    rfi
    .org 0x3000
_start:
    li %r3, 0x1000
    mtmsr %r3
    sc
    tw 31, 0, 0                 # trap always: program exception, SRR1 trap bit
    .long 0                     # illegal: program exception, SRR1 illegal bit
    lis %r4, 0x8000
    ori %r4, %r4, 0x0501
    li %r5, 7
    stb %r5, 0(%r4)             # isa-debug-exit: status (7 << 1) | 1
    b .
