# x86-64 CPU fidelity fixture (test_x86_cpu.c), loaded raw at 0x100000.  The test writes an
# IDT at 0x200000 (pseudo-descriptor at 0x201000) whose #UD, #SS, #GP, #PF and #MC gates go to
# the handlers at 0x100f00 + 0x20 * n below: each records its vector in r15 and the stack
# pointer after the entry in r13 (the error code, if any, then the return RIP) and halts.  Each
# entry point does one thing and halts with r15 = 0 when nothing faulted.

    .code64
    .text
    .globl _start

    .macro setup
    mov $0x201000, %rax
    lidt (%rax)
    mov $0x300000, %rsp
    xor %r15, %r15
    .endm

    .include "x86_64_msr.inc"

# ---- 0x000: a load from a non-canonical address: #GP(0) (SDM vol. 3A 6.15 "Interrupt 13").
_start:
    setup
    movabs $0x8000000000000000, %rax
nc_load:
    mov (%rax), %rbx
    hlt

# ---- 0x080: a non-canonical reference through RBP (the stack segment): #SS(0).
    .org 0x80
    setup
    movabs $0x0000800000000000, %rbp
nc_stack:
    mov (%rbp), %rax
    hlt

# ---- 0x100, 0x140, 0x180: WRMSR of a non-canonical base to FS_BASE, GS_BASE,
# KERNEL_GS_BASE: #GP(0).  A canonical one first, read back into r8.
    .org 0x100
    setup
    mov $0xc0000100, %ebx
    jmp wrbase
    .org 0x140
    setup
    mov $0xc0000101, %ebx
    jmp wrbase
    .org 0x180
    setup
    mov $0xc0000102, %ebx
wrbase:
    mov %ebx, %ecx
    xor %eax, %eax
    mov $0xffff8000, %edx           # 0xffff800000000000: canonical
    wrmsr
    rdmsr
    shl $32, %rdx
    or %rdx, %rax
    mov %rax, %r8
    mov %ebx, %ecx
    xor %eax, %eax
    mov $0x00008000, %edx           # 0x0000800000000000: not canonical
wrbase_bad:
    wrmsr
    hlt

# ---- 0x200: WRFSBASE with CR4.FSGSBASE set: a canonical base, read back with RDFSBASE into
# r8, then a non-canonical one: #GP(0).
    .org 0x200
    setup
    mov %cr4, %rax
    or $0x10000, %rax
    mov %rax, %cr4
    movabs $0xffff800000001000, %rax
    wrfsbase %rax
    rdfsbase %r8
    movabs $0x0000800000000000, %rax
wrfsbase_bad:
    wrfsbase %rax
    hlt

# ---- 0x280: RDFSBASE with CR4.FSGSBASE clear: #UD.
    .org 0x280
    setup
rdfsbase_ud:
    rdfsbase %rax
    hlt

# ---- 0x300: RDPMC.  FIXED_CTR0 = 0x123456789ab and PMC0 = 0x80000001 (sign-extended to
# 48 bits: 0xffff80000001), both stopped.  r8/r9: EAX/EDX of the fast read of the fixed
# counter (ECX = 0xc0000000), r10/r11 of its full read (0x40000000); rbx/rsi the fast read of
# PMC0 (0x80000000), rdi/rbp its full read (0).
    .org 0x300
    setup
    wrmsr64 0x38f, 0
    wrmsr64 0x309, 0x123456789ab
    wrmsr64 0xc1, 0x80000001
    mov $0xc0000000, %ecx
    rdpmc
    mov %rax, %r8
    mov %rdx, %r9
    mov $0x40000000, %ecx
    rdpmc
    mov %rax, %r10
    mov %rdx, %r11
    mov $0x80000000, %ecx
    rdpmc
    mov %rax, %rbx
    mov %rdx, %rsi
    xor %ecx, %ecx
    rdpmc
    mov %rax, %rdi
    mov %rdx, %rbp
    hlt

# ---- 0x400: IA32_MISC_ENABLE.  r8: its power-up value; r9: CPUID.0:EAX with Limit CPUID
# Maxval (bit 22) set; r10: CPUID.80000001H:EDX with XD Bit Disable (34) set; r11: the MSR
# after both bits are cleared again; then a write of reserved bit 1: #GP(0).
    .org 0x400
    setup
    rdmsr64 0x1a0, %r8
    mov %r8, %rax
    bts $22, %rax
    mov %rax, %rdx
    shr $32, %rdx
    mov $0x1a0, %ecx
    wrmsr
    xor %eax, %eax
    cpuid
    mov %rax, %r9
    mov %r8, %rax
    bts $34, %rax
    mov %rax, %rdx
    shr $32, %rdx
    mov $0x1a0, %ecx
    wrmsr
    mov $0x80000001, %eax
    cpuid
    mov %rdx, %r10
    mov %r8, %rax
    mov %rax, %rdx
    shr $32, %rdx
    mov $0x1a0, %ecx
    wrmsr
    rdmsr64 0x1a0, %r11
    mov %r11, %rax
    or $2, %eax
    mov %rax, %rdx
    shr $32, %rdx
    mov $0x1a0, %ecx
misc_bad:
    wrmsr
    hlt

# ---- 0x500: the x2APIC transitions the SDM allows (vol. 3A 11.12.5, figure 11-27): xAPIC ->
# x2APIC -> disabled -> xAPIC -> x2APIC.  r8..r11: IA32_APIC_BASE after each; r12: the x2APIC
# ID register (MSR 0x802) at the end; rbx: CPUID.1:EDX while disabled.
    .org 0x500
    setup
    wrmsr64 0x1b, 0xfee00d00
    rdmsr64 0x1b, %r8
    wrmsr64 0x1b, 0xfee00100
    rdmsr64 0x1b, %r9
    mov $1, %eax
    cpuid
    mov %rdx, %rbx
    wrmsr64 0x1b, 0xfee00900
    rdmsr64 0x1b, %r10
    wrmsr64 0x1b, 0xfee00d00
    rdmsr64 0x1b, %r11
    rdmsr64 0x802, %r12
    hlt

# ---- 0x600: x2APIC -> xAPIC directly: #GP(0) at the second WRMSR (r8: IA32_APIC_BASE after
# the first).
    .org 0x600
    setup
    wrmsr64 0x1b, 0xfee00d00
    rdmsr64 0x1b, %r8
    mov $0x1b, %ecx
    xor %edx, %edx
    mov $0xfee00900, %eax
x2_to_x:
    wrmsr
    hlt

# ---- 0x680: xAPIC -> disabled, then disabled -> x2APIC directly: #GP(0) at the second WRMSR
# (r8: IA32_APIC_BASE after the first).
    .org 0x680
    setup
    wrmsr64 0x1b, 0xfee00100
    rdmsr64 0x1b, %r8
    mov $0x1b, %ecx
    xor %edx, %edx
    mov $0xfee00d00, %eax
off_to_x2:
    wrmsr
    hlt

# ---- 0x700: EXTD without EN (the invalid state): #GP(0).
    .org 0x700
    setup
    mov $0x1b, %ecx
    mov $0xfee00500, %eax
    xor %edx, %edx
invalid_x2:
    wrmsr
    hlt

# ---- 0x780: the MSRs Linux reads at boot with plain RDMSR/WRMSR on this model.  r8: the
# microcode revision (IA32_BIOS_SIGN_ID after writing 0 and CPUID, as Linux reads it); r9:
# IA32_PLATFORM_ID; r10: IA32_FEATURE_CONTROL; r11: MSR_PLATFORM_INFO; rbx: IA32_TSC_ADJUST
# after writing 0 to the TSC; rsi: the TSC after TSC_ADJUST is written back to 0; rdi: the
# LBR stack (TOS, an entry) after Linux's reset writes; rbp: IA32_DEBUGCTL after a write of
# FREEZE_PERFMON_ON_PMI (bit 12); r12: MSR_OFFCORE_RSP_0 after a write.
    .org 0x780
    setup
    wrmsr64 0x8b, 0
    mov $1, %eax
    cpuid
    rdmsr64 0x8b, %r8
    rdmsr64 0x17, %r9
    rdmsr64 0x3a, %r10
    rdmsr64 0xce, %r11
    wrmsr64 0x10, 0
    rdmsr64 0x3b, %rbx
    wrmsr64 0x3b, 0
    rdtsc
    shl $32, %rdx
    or %rdx, %rax
    mov %rax, %rsi
    wrmsr64 0x1c8, 0
    wrmsr64 0x1c9, 0
    wrmsr64 0x680, 0
    wrmsr64 0x6df, 0
    wrmsr64 0xddf, 0
    rdmsr64 0x1c9, %rdi
    rdmsr64 0x69f, %rax
    or %rax, %rdi
    wrmsr64 0x1d9, 0x1000
    rdmsr64 0x1d9, %rbp
    wrmsr64 0x1a6, 0x3f80408fff
    rdmsr64 0x1a6, %r12
    hlt

# ---- 0x980 (core2duo): the LBR stack at 0x40/0x60 (r8: FROM_IP 3 after a write), the
# microcode revision (r9), then IA32_TSC_ADJUST, which a Core 2 does not have: #GP(0).
    .org 0x980
    setup
    wrmsr64 0x43, 0
    rdmsr64 0x43, %r8
    rdmsr64 0x8b, %r9
    mov $0x3b, %ecx
    rdmsr
    hlt

# ---- 0xa00 (core2duo): RDTSCP, which a Core 2 does not have: #UD.
    .org 0xa00
    setup
    rdtscp
    hlt

# ---- 0xa80: SYSRETQ to a non-canonical RCX: #GP(0) at the SYSRET, in ring 0 (SDM vol. 2B
# SYSRET: the Intel behaviour).
    .org 0xa80
    setup
    rdmsr64 0xc0000080, %rax
    or $1, %eax                     # EFER.SCE
    mov %rax, %rdx
    shr $32, %rdx
    mov $0xc0000080, %ecx
    wrmsr
    wrmsr64 0xc0000081, 0x0013000800000000
    movabs $0x0000800000000000, %rcx
    mov $2, %r11d
sysret_bad:
    sysretq
    hlt

# ---- handlers: 0x100f00 + 0x20 * (#UD 0, #SS 1, #GP 2, #PF 3, #MC 4)
    .org 0xf00
    mov $6, %r15
    mov %rsp, %r13
    hlt
    .org 0xf20
    mov $12, %r15
    mov %rsp, %r13
    hlt
    .org 0xf40
    mov $13, %r15
    mov %rsp, %r13
    hlt
    .org 0xf60
    mov $14, %r15
    mov %rsp, %r13
    hlt
    .org 0xf80
    mov $18, %r15
    mov %rsp, %r13
    hlt
