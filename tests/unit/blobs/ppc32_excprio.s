# ppc32 asynchronous exception order and the decrementer from power-on, loaded raw at 0.
# The 0x500, 0x900 and 0xF00 handlers append their vector and SRR0 to a log at 0x2800 (r10 points at the
# next entry) and return with rfi, which restores MSR[EE] = 1, so a second pending exception is
# taken right after; with two entries logged they exit through the debug port with code 0.
# The handlers also record the timebase at entry (r5 = TBU, r6 = TBL).
    .text
    .globl _start
    .org 0x500
h_external:
    mftbu %r5
    mftb %r6
    li %r9, 0x500
    b log
    .org 0x900
h_decrementer:
    mftbu %r5
    mftb %r6
    li %r9, 0x900
    b log
    .org 0xf00
h_perfmon:
    mftbu %r5
    mftb %r6
    li %r9, 0xf00
    b log

    .org 0x2000
log:
    stw %r9, 0(%r10)
    mfsrr0 %r9
    stw %r9, 4(%r10)
    addi %r10, %r10, 8
    cmpw %r10, %r11                 # r11: where the log ends
    beq exit
    rfi
exit:
    lis %r4, 0x8000
    ori %r4, %r4, 0x0501
    li %r12, 0
    stb %r12, 0(%r4)                # isa-debug-exit, code 0
    b .

    .org 0x2ff0
    .long a_spin, b_spin, 0, 0

# ---- A (0x3000): with MSR[EE] = 0, DEC = 1 (DEC[0] goes 0 -> 1 two ticks later) and PMC1
# counting instructions from 0x80000000 - 10 with PMXE | PMC1CE: after the loop both exceptions
# are pending; mtmsr EE takes the performance monitor first (MPC7450 RM table 4-3), then the
# decrementer.  Log: 0xF00, 0x900.
    .org 0x3000
_start:
    li %r10, 0x2800
    li %r11, 0x2810                 # two entries
    li %r3, 0x1000                  # ME only
    mtmsr %r3
    lis %r4, 0x8000
    mtspr 952, %r4                  # MMCR0 = FC
    lis %r5, 0x7fff
    ori %r5, %r5, 0xfff6
    mtspr 953, %r5                  # PMC1 = 0x80000000 - 10
    li %r6, 1
    mtdec %r6
    lis %r6, 0x0400
    ori %r6, %r6, 0x8080
    mtspr 952, %r6                  # PMXE | PMC1CE | PMC1SEL = 2
    li %r7, 1000
    mtctr %r7
a_wait:
    bdnz a_wait                     # >= 1000 cycles: 100 timebase ticks at the board's rates
    ori %r3, %r3, 0x8000
    mtmsr %r3                       # EE: both are takeable now
a_spin:
    b a_spin

# ---- B (0x3400): nothing programs DEC.  r3 = DEC read first thing (all ones at TB 0); then
# EE = 1 and spin: the first decrementer exception comes when DEC passes through zero, 2^32
# timebase ticks after power-on.  Log: 0x900 (one entry).
    .org 0x3400
b_start:
    mfdec %r3
    li %r10, 0x2800
    li %r11, 0x2808                 # one entry
    li %r4, 0
    ori %r4, %r4, 0x9000            # EE | ME
    mtmsr %r4
b_spin:
    b b_spin
