# x86-64 fixture: Linux's quick_pit_calibrate (arch/x86/kernel/tsc.c, 6.12) as a guest, loaded
# raw at 0x100000.  Channel 2 in mode 0 from 0xFFFF with its gate high (port 0x61); for each
# MSB value the loop reads LSB and MSB (no latch) until the MSB changes, noting the TSC of the
# last read that still saw it (pit_expect_msb).  Like Linux it stops at the first i whose error
# terms d1 + d2 are below delta >> 11 (500 ppm) and then verifies the MSB once more.
# Results: 0x210000 delta (TSC cycles over i * 256 PIT ticks), 0x210008 i, 0x210010 d1 + d2,
# 0x210018 1 on success.  test_pc.c turns them into kHz as Linux does.
    .code64
    .text
    .globl _start
    .set MAX_ITER, 233              # MAX_QUICK_PIT_ITERATIONS: (50 * 1193182 / 1000) / 256

_start:
    mov $0x300000, %rsp
    in $0x61, %al                   # gate high, speaker off
    and $~0x02, %al
    or $0x01, %al
    out %al, $0x61
    mov $0xb0, %al                  # channel 2, LSB then MSB, mode 0, binary
    out %al, $0x43
    mov $0xff, %al
    out %al, $0x42
    out %al, $0x42
    mov $0, %bl                     # pit_verify_msb(0): one read, to let the count load
    call verify_msb
    mov $0xff, %bl
    call expect_msb                 # r8 = tsc, r9 = d1
    jz fail
    mov %r8, %r12                   # the first TSC
    mov %r9, %r13                   # d1
    mov $1, %r14                    # i
1:  mov $0xff, %bl
    sub %r14b, %bl
    call expect_msb                 # r8 = tsc, r9 = d2
    jz fail
    mov %r8, %rax
    sub %r12, %rax                  # delta
    lea (%r13,%r9), %rcx            # d1 + d2
    mov %rax, %rdx
    shr $11, %rdx
    cmp %rdx, %rcx
    jb 2f
    inc %r14
    cmp $MAX_ITER, %r14
    jbe 1b
    jmp fail
2:  mov %rax, 0x210000
    mov %r14, 0x210008
    mov %rcx, 0x210010
    mov $0xfe, %bl
    sub %r14b, %bl
    call verify_msb
    jne fail
    movq $1, 0x210018
fail:
    cli
    hlt

# ZF = (MSB == bl), after reading the LSB and the MSB.
verify_msb:
    in $0x42, %al
    in $0x42, %al
    cmp %bl, %al
    ret

# pit_expect_msb(bl): r8 = the TSC of the last read that saw bl, r9 = now - the one before;
# ZF clear when more than 5 reads saw it.
expect_msb:
    xor %r8, %r8
    xor %r10, %r10
    xor %ecx, %ecx
3:  call verify_msb
    jne 4f
    mov %r8, %r10
    rdtsc
    shl $32, %rdx
    or %rdx, %rax
    mov %rax, %r8
    inc %ecx
    cmp $50000, %ecx
    jb 3b
4:  rdtsc
    shl $32, %rdx
    or %rdx, %rax
    sub %r10, %rax
    mov %rax, %r9
    cmp $5, %ecx
    seta %al
    test %al, %al                   # ZF clear on success
    ret
