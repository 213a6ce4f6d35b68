/* Benchmark kernels with fixed block shapes (guest/bench.c).  n >= 1 in r3. */
    .text
    .globl bench_tight, bench_alu, bench_store, bench_load

/* 2 instructions per iteration: addi, bdnz */
    .balign 64                  /* a loop never straddles a page: fixed block shapes */
bench_tight:
    mtctr   r3
1:  addi    r4, r4, 1
    bdnz    1b
    blr

/* 10 instructions per iteration, one block: ALU, shifts, a multiply */
    .balign 64
bench_alu:
    mtctr   r3
    li      r4, 0
    li      r5, 1
1:  add     r4, r4, r3
    xor     r4, r4, r5
    slwi    r6, r5, 1
    add     r5, r4, r6
    rotlwi  r4, r4, 5
    subf    r5, r3, r5
    mullw   r5, r5, r3
    srwi    r5, r5, 3
    or      r4, r4, r5
    bdnz    1b
    mr      r3, r4
    blr

/* 4 instructions per iteration, one 4-byte store */
    .balign 64
bench_store:
    mtctr   r3
    mr      r4, r3
    lis     r5, bench_buf@ha
    addi    r5, r5, bench_buf@l
1:  rlwinm  r6, r4, 2, 21, 29
    stwx    r4, r5, r6
    addi    r4, r4, -1
    bdnz    1b
    blr

/* 5 instructions per iteration, one 4-byte load */
    .balign 64
bench_load:
    mtctr   r3
    mr      r4, r3
    li      r3, 0
    lis     r5, bench_buf@ha
    addi    r5, r5, bench_buf@l
1:  rlwinm  r6, r4, 2, 21, 29
    lwzx    r7, r5, r6
    add     r3, r3, r7
    addi    r4, r4, -1
    bdnz    1b
    blr

    .bss
    .balign 4096
bench_buf:
    .skip   4096
    .section .note.GNU-stack,"",@progbits
