# x86-64 exception entry fixture, loaded raw at 0x100000.  The test writes an IDT at
# 0x200000 (vector 3 -> h_bp, 6 -> h_ud, 13 -> h_gp) and its pseudo-descriptor at 0x201000.
# Retired instructions: 1 mov, 2 lidt, 3 mov, 4 int3, 5 iretq, 6 mov, (rdmsr faults),
# 7 add, 8 addq, 9 iretq, (ud2 faults), 10 addq, 11 iretq, 12 nop, 13 hlt.
    .code64
    .text
    .globl _start
_start:
    mov $0x201000, %rax
    lidt (%rax)
    mov $0x300000, %rsp
    int3
    mov $0x12345678, %ecx
    rdmsr
    ud2
    nop
    hlt
    .org 0x100
h_bp:
    iretq
    .org 0x140
h_gp:
    add $8, %rsp            # drop the error code
    addq $2, (%rsp)         # skip the 2-byte rdmsr
    iretq
    .org 0x180
h_ud:
    addq $2, (%rsp)         # skip ud2
    iretq
# Second entry (0x100200): a counting loop, for NMI delivery; the NMI handler at 0x100280
# counts NMIs in r15.
    .org 0x200
nmi_main:
    mov $0x201000, %rax
    lidt (%rax)
    mov $0x300000, %rsp
    xor %r14, %r14
1:  inc %r14
    cmp $200, %r14
    jne 1b
    hlt
    .org 0x280
h_nmi:
    inc %r15
    nop
    nop
    nop
    iretq
