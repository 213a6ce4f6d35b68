/* Benchmark kernels with fixed block shapes (guest/bench.c).  n >= 1. */
    .text
    .globl bench_tight, bench_alu, bench_store, bench_load

/* 2 instructions per iteration: subs, b.ne */
    .balign 64                  /* a loop never straddles a page: fixed block shapes */
bench_tight:
    mov     x1, x0
1:  subs    x1, x1, #1
    b.ne    1b
    ret

/* 10 instructions per iteration, one block: ALU, shifts, a multiply */
    .balign 64
bench_alu:
    mov     x1, x0
    mov     x2, #0
    mov     x3, #1
1:  add     x2, x2, x1
    eor     x2, x2, x3
    add     x3, x2, x3, lsl #1
    ror     x2, x2, #59
    sub     x3, x3, x1
    mul     x3, x3, x1
    lsr     x3, x3, #3
    orr     x2, x2, x3
    subs    x1, x1, #1
    b.ne    1b
    mov     x0, x2
    ret

/* 4 instructions per iteration, one 8-byte store */
    .balign 64
bench_store:
    mov     x1, x0
    adrp    x2, bench_buf
    add     x2, x2, :lo12:bench_buf
1:  and     x3, x1, #511
    str     x1, [x2, x3, lsl #3]
    subs    x1, x1, #1
    b.ne    1b
    ret

/* 5 instructions per iteration, one 8-byte load */
    .balign 64
bench_load:
    mov     x1, x0
    mov     x0, #0
    adrp    x2, bench_buf
    add     x2, x2, :lo12:bench_buf
1:  and     x3, x1, #511
    ldr     x4, [x2, x3, lsl #3]
    add     x0, x0, x4
    subs    x1, x1, #1
    b.ne    1b
    ret

    .bss
    .balign 4096
bench_buf:
    .skip   4096
    .section .note.GNU-stack,"",%progbits
