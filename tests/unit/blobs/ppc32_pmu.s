# MPC7450 performance monitor fixture, loaded raw at 0 (vectors at 0x700 and 0xf00).  Every
# entry ends in the 0xF00 handler, which records SIAR (r20), SRR0 (r21), MMCR0 (r22) and PMC1
# (r23) and exits through the debug port.  The program handler records SRR1 (r25) and skips the
# instruction.  Label addresses for the test are at 0x2ff0.
    .text
    .globl _start
    .org 0x700
h_program:
    mfsrr1 %r25
    mfsrr0 %r26
    addi %r26, %r26, 4
    mtsrr0 %r26
    rfi
    .org 0xf00
h_perfmon:
    mfspr %r20, 955                 # SIAR
    mfsrr0 %r21
    mfspr %r22, 952                 # MMCR0
    mfspr %r23, 953                 # PMC1 (counting on: 3 instructions since the exception)
    lis %r4, 0x8000
    ori %r4, %r4, 0x0501
    li %r5, 0
    stb %r5, 0(%r4)                 # isa-debug-exit
    b .

    .org 0x2ff0
    .long a_last, a_after, b_after, 0

# ---- A (0x3000): PMC1 counts instructions completed from 0x80000000 - 100; the 100th nop
# makes it negative: SIAR = that nop, SRR0 = the next instruction; PMXE cleared.
    .org 0x3000
_start:
    li %r3, 0
    ori %r3, %r3, 0x9000            # EE | ME
    mtmsr %r3
    lis %r4, 0x8000
    mtspr 952, %r4                  # MMCR0 = FC
    lis %r5, 0x7fff
    ori %r5, %r5, 0xff9c
    mtspr 953, %r5                  # PMC1 = 0x80000000 - 100
    lis %r6, 0x0400
    ori %r6, %r6, 0x8080
    mtspr 952, %r6                  # PMXE | PMC1CE | PMC1SEL = 2: counting starts after it
    .rept 99
    nop
    .endr
a_last:
    nop
a_after:
    nop
    b .

# ---- B (0x3400): the same with MSR[EE] = 0 and FCECE: the exception is held, FC freezes the
# counters on the enabled condition (r24 = PMC1 read while held); mtmsr EE takes it at once.
# On the way: an mtspr of a user alias is an illegal-instruction program exception (r25).
    .org 0x3400
b_start:
    li %r3, 0
    ori %r3, %r3, 0x1000            # ME only
    mtmsr %r3
    lis %r4, 0x8000
    mtspr 952, %r4
    mtspr 937, %r4                  # UPMC1: read-only alias
    lis %r5, 0x7fff
    ori %r5, %r5, 0xffec
    mtspr 953, %r5                  # PMC1 = 0x80000000 - 20
    lis %r6, 0x0600
    ori %r6, %r6, 0x8080
    mtspr 952, %r6                  # PMXE | FCECE | PMC1CE | PMC1SEL = 2
    .rept 30
    nop
    .endr
    mfspr %r24, 937                 # UPMC1: frozen at 0x80000000
    ori %r3, %r3, 0x8000
    mtmsr %r3                       # EE: the held exception is taken after this
b_after:
    nop
    b .

# ---- C (0x3800): PMC2 counts load instructions completed (selector 26) from 0x80000000 - 10.
# A loop of one lwz, one stw and an addi per iteration: the 10th lwz (iteration 10, r8 = 9 when
# it completes) makes PMC2 negative in the middle of its block: SIAR = that lwz.
    .org 0x3800
c_start:
    li %r3, 0
    ori %r3, %r3, 0x9000            # EE | ME
    mtmsr %r3
    lis %r4, 0x8000
    mtspr 952, %r4                  # MMCR0 = FC
    lis %r5, 0x7fff
    ori %r5, %r5, 0xfff6
    mtspr 954, %r5                  # PMC2 = 0x80000000 - 10
    li %r7, 0x2800
    li %r8, 0
    li %r9, 100
    mtctr %r9
    lis %r6, 0x0400
    ori %r6, %r6, 0x401a
    mtspr 952, %r6                  # PMXE | PMCnCE | PMC2SEL = 26
c_loop:
    stw %r8, 4(%r7)
c_last:
    lwz %r10, 0(%r7)
    addi %r8, %r8, 1
    bdnz c_loop
    b .

# ---- D (0x3c00): PMC1 counts store instructions completed (selector 20) from 0x80000000 - 3:
# the 3rd store of a straight run of loads and stores.
    .org 0x3c00
d_start:
    li %r3, 0
    ori %r3, %r3, 0x9000
    mtmsr %r3
    lis %r4, 0x8000
    mtspr 952, %r4
    lis %r5, 0x7fff
    ori %r5, %r5, 0xfffd
    mtspr 953, %r5                  # PMC1 = 0x80000000 - 3
    li %r7, 0x2800
    lis %r6, 0x0400
    ori %r6, %r6, 0x8500
    mtspr 952, %r6                  # PMXE | PMC1CE | PMC1SEL = 20
    lwz %r10, 0(%r7)
    stw %r10, 8(%r7)
    lwz %r11, 4(%r7)
    stb %r11, 12(%r7)
    lbz %r12, 0(%r7)
    lwz %r12, 0(%r7)
d_last:
    sth %r12, 16(%r7)
    stw %r12, 20(%r7)
    b .

    .org 0x3fe0
    .long c_loop, c_last, d_last, 0
