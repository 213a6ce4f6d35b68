/* Benchmark kernels with fixed block shapes (guest/bench.c).  n >= 1. */
    .text
    .globl bench_tight, bench_alu, bench_store, bench_load

/* 2 instructions per iteration: dec, jnz */
    .balign 64                  /* a loop never straddles a page: fixed block shapes */
bench_tight:
    mov     %rdi, %rax
1:  dec     %rdi
    jnz     1b
    ret

/* 10 instructions per iteration, one block: ALU, shifts, a multiply */
    .balign 64
bench_alu:
    mov     %rdi, %rcx
    xor     %eax, %eax
    mov     $1, %edx
1:  add     %rcx, %rax
    xor     %rdx, %rax
    lea     7(%rax,%rdx,2), %rdx
    rol     $5, %rax
    sub     %rcx, %rdx
    imul    $3, %rdx, %rdx
    shr     $3, %rdx
    or      %rdx, %rax
    dec     %rcx
    jnz     1b
    ret

/* 5 instructions per iteration, one 8-byte store */
    .balign 64
bench_store:
    mov     %rdi, %rax
    lea     bench_buf(%rip), %rsi
1:  mov     %edi, %ecx
    and     $511, %ecx
    mov     %rdi, (%rsi,%rcx,8)
    dec     %rdi
    jnz     1b
    ret

/* 5 instructions per iteration, one 8-byte load */
    .balign 64
bench_load:
    xor     %eax, %eax
    lea     bench_buf(%rip), %rsi
1:  mov     %edi, %ecx
    and     $511, %ecx
    add     (%rsi,%rcx,8), %rax
    dec     %rdi
    jnz     1b
    ret

    .bss
    .balign 4096
bench_buf:
    .skip   4096
    .section .note.GNU-stack,"",@progbits
