# x86-64 architectural PMU fixture, loaded raw at 0x100000; test_pmu_x86.c sets up the IDT at
# 0x200000 (pseudo-descriptor at 0x201000), a GDT with user segments and a TSS (0x201010), and
# user-accessible page tables, then starts at one of the entries below.  Counting starts with
# the instruction after the enabling WRMSR and stops after the disabling one (a WRMSR takes
# effect when it retires).

    .code64
    .text
    .globl _start

    .include "x86_64_msr.inc"

# ---- A (0x100000): exact counts of a region.  PMC0 instructions, PMC1 branches, PMC2 branch
# misses, PMC3 cycles with INV CMASK=1 on instructions (cycles - instructions); fixed counters
# 0..2.  Region between the WRMSRs: mov, 1000 x (dec, jnz), xor, xor, mov = 2004 instructions,
# 1000 branches.  Results: r8 PMC0, r9 PMC1, r10 PMC2, r11 PMC3, r12..r14 FIXED_CTR0..2.
_start:
    mov $0x201000, %rax
    lidt (%rax)
    mov $0x300000, %rsp
    mov $0x38f, %ecx                # power-up GLOBAL_CTRL enables PMC0-3: stop them first
    xor %eax, %eax
    xor %edx, %edx
    wrmsr
    mov $0x186, %ecx
    mov $0x4300c0, %eax             # EN|OS|USR, instructions retired
    xor %edx, %edx
    wrmsr
    mov $0x187, %ecx
    mov $0x4300c4, %eax             # branches
    wrmsr
    mov $0x188, %ecx
    mov $0x4300c5, %eax             # branch misses
    wrmsr
    mov $0x189, %ecx
    mov $0x01c300c0, %eax           # CMASK=1 INV EN|OS|USR, instructions
    wrmsr
    mov $0x38d, %ecx
    mov $0x333, %eax                # fixed 0..2: OS|USR
    wrmsr
    mov $0x38f, %ecx
    mov $0xf, %eax
    mov $0x7, %edx
a_enable:
    wrmsr
    mov $1000, %ebx
1:  dec %ebx
    jnz 1b
    xor %eax, %eax
    xor %edx, %edx
    mov $0x38f, %ecx
a_disable:
    wrmsr
    rdmsr64 0xc1, %r8
    rdmsr64 0xc2, %r9
    rdmsr64 0xc3, %r10
    rdmsr64 0xc4, %r11
    rdmsr64 0x309, %r12
    rdmsr64 0x30a, %r13
    rdmsr64 0x30b, %r14
    hlt

# ---- B (0x100200): USR/OS filtering.  PMC0 counts user instructions, PMC1 kernel ones; the
# kernel enables them, IRETQs to ring 3, which runs 5 instructions and `int $0x80` (6 in
# ring 3); the gate's handler disables the counters.  Kernel instructions counted: the 6 after
# the enabling WRMSR up to and including IRETQ, and 4 in the handler up to the disabling WRMSR.
# Results: r8 PMC0 (user), r9 PMC1 (kernel).
    .org 0x200
b_start:
    mov $0x201000, %rax
    lidt (%rax)
    mov $0x201010, %rax
    lgdt (%rax)
    mov $0x28, %ax
    ltr %ax
    mov $0x300000, %rsp
    mov $0x38f, %ecx
    xor %eax, %eax
    xor %edx, %edx
    wrmsr
    mov $0x186, %ecx
    mov $0x4100c0, %eax             # EN|USR
    wrmsr
    mov $0x187, %ecx
    mov $0x4200c0, %eax             # EN|OS
    wrmsr
    mov $0x38f, %ecx
    mov $3, %eax
    wrmsr
    pushq $0x23                     # user SS
    pushq $0x280000                 # user RSP
    pushq $0x2                      # RFLAGS
    pushq $0x1b                     # user CS
    pushq $b_user
    iretq
b_user:
    mov $1, %eax
    add $2, %eax
    add $3, %eax
    add $4, %eax
    add $5, %eax
    int $0x80
    .org 0x2c0
b_int80:                            # ring 0, on the TSS stack
    xor %eax, %eax
    xor %edx, %edx
    mov $0x38f, %ecx
    wrmsr
    rdmsr64 0xc1, %r8
    rdmsr64 0xc2, %r9
    hlt

# ---- C (0x100400): overflow PMIs.  PMC0 counts kernel instructions with INT, preset to -100;
# LVTPC in NMI mode.  The NMI comes after the 100th instruction (r14 = its frame RIP, expected
# c_after).  The handler does not unmask LVTPC, so the next overflow (preset -10) is lost
# (r13 stays 1); rbx = GLOBAL_STATUS then, rbp = GLOBAL_STATUS after OVF_CTRL.  After the
# unmask, a third overflow (preset -5) is delivered: r11 = its frame RIP (expected c_second).
    .org 0x400
c_start:
    mov $0x201000, %rax
    lidt (%rax)
    mov $0x300000, %rsp
    xor %r13, %r13
    mov $0xfee00000, %esi           # the APIC page
    movl $0x1ff, 0xf0(%rsi)         # SVR: APIC software enable
    movl $0x400, 0x340(%rsi)        # LVTPC: NMI
    mov $0x38f, %ecx
    xor %eax, %eax
    xor %edx, %edx
    wrmsr
    mov $0x186, %ecx
    mov $0x5200c0, %eax             # EN|INT|OS, instructions retired
    wrmsr
    mov $0xc1, %ecx
    mov $-100, %eax
    wrmsr
    mov $0x38f, %ecx
    mov $1, %eax
    wrmsr
    .rept 100
    nop
    .endr
c_after:
    mov $0xc1, %ecx                 # 1
    mov $-10, %eax                  # 2
    wrmsr                           # 3: counting restarts after it
    .rept 20
    nop
    .endr
    mov $0x38e, %ecx
    rdmsr
    mov %rax, %rbx                  # GLOBAL_STATUS: bit 0 set, no NMI (LVTPC masked)
    mov $0x390, %ecx
    mov $1, %eax
    wrmsr
    mov $0x38e, %ecx
    rdmsr
    mov %rax, %rbp                  # 0 after OVF_CTRL
    movl $0x400, 0x340(%rsi)        # unmask
    mov $0xc1, %ecx
    mov $-5, %eax
    xor %edx, %edx
    wrmsr
    nop
    nop
    nop
    nop
    nop
c_second:
    nop
    nop
    hlt
    .org 0x600
c_nmi:
    cmp $0, %r13
    jne 2f
    mov (%rsp), %r14
    jmp 3f
2:  mov (%rsp), %r11
3:  inc %r13
    iretq

# Label addresses for the test.
    .org 0x7f0
    .quad c_after, c_second

# ---- D (0x100800): the branches that test RCX.  PMC0 instructions, PMC1 branches, PMC2 branch
# misses, set up as in A.  Region between the WRMSRs: 1000 x loop, then 10 x loope with ZF set,
# 10 x loopne with ZF clear and one taken jrcxz (each loop with its mov and cmp or test), and
# xor, xor, mov: 1021 branches in 1030 instructions with the disabling WRMSR.
# Intel SDM vol. 2A, LOOP/LOOPcc: each execution is a conditional branch on RCX (and ZF).
# Results: r8 PMC0, r9 PMC1, r10 PMC2.
    .org 0x800
d_start:
    mov $0x38f, %ecx
    xor %eax, %eax
    xor %edx, %edx
    wrmsr
    mov $0x186, %ecx
    mov $0x4300c0, %eax             # EN|OS|USR, instructions retired
    wrmsr
    mov $0x187, %ecx
    mov $0x4300c4, %eax             # branches
    wrmsr
    mov $0x188, %ecx
    mov $0x4300c5, %eax             # branch misses
    wrmsr
    mov $0x38f, %ecx
    mov $0x7, %eax
    xor %edx, %edx
    wrmsr
    mov $1000, %ecx
1:  loop 1b
    mov $10, %ecx
    cmp %eax, %eax                  # ZF=1: loope goes on until RCX is zero
2:  loope 2b
    mov $10, %ecx
    test %eax, %eax                 # eax = 7, ZF=0: loopne goes on until RCX is zero
3:  loopne 3b
    jrcxz 4f                        # RCX = 0: taken
    nop
4:  xor %eax, %eax
    xor %edx, %edx
    mov $0x38f, %ecx
    wrmsr
    rdmsr64 0xc1, %r8
    rdmsr64 0xc2, %r9
    rdmsr64 0xc3, %r10
    hlt
