# SYSCALL loads fixed descriptors for CS and SS and never reads or writes the GDT (Intel SDM
# vol. 2B, "SYSCALL"); the engine pmusim runs on loads them from the GDT (tests/e2e/test_paging.sh).
# 1. A GDT whose code and data descriptors have their accessed bits clear: after the SYSCALL
#    they are still clear (the engine's load would set them: pmusim puts the bytes back).
# 2. A GDT at an unmapped linear address: pmusim keeps the old selectors and writes a
#    `syscall-segment` diag for SS and CS; the handler runs.
# Each handler checks RCX = the address after its SYSCALL.  Exits with 0 when all holds
# (status 1), else with the number of the failed check (status 2n + 1).  Raw at 0x100000, 64-bit.
    .code64
    .text
    .globl _start
_start:
    mov $0x180000, %rsp
    mov $0xc0000080, %ecx       # IA32_EFER.SCE
    rdmsr
    or $1, %eax
    wrmsr
    mov $0xc0000081, %ecx       # IA32_STAR[47:32] = 0x10: CS 0x10, SS 0x18
    xor %eax, %eax
    mov $0x10, %edx
    wrmsr
    mov $0xc0000084, %ecx       # IA32_FMASK = 0
    xor %edx, %edx
    wrmsr
    lea handler1(%rip), %rax
    call set_lstar
    lgdt gdtr1(%rip)
    syscall
after1:
    mov $9, %al
    out %al, $0xf4

handler1:
    lea after1(%rip), %rdx
    mov $1, %al
    cmp %rdx, %rcx
    jne fail
    mov $2, %al
    cmpb $0x9a, gdt + 0x10 + 5(%rip)
    jne fail
    mov $3, %al
    cmpb $0x92, gdt + 0x18 + 5(%rip)
    jne fail
    lea handler2(%rip), %rax
    call set_lstar
    lgdt gdtr2(%rip)
    syscall
after2:
    mov $9, %al
    out %al, $0xf4

handler2:
    lea after2(%rip), %rdx
    mov $4, %al
    cmp %rdx, %rcx
    jne fail
    xor %eax, %eax
fail:
    out %al, $0xf4
    hlt

set_lstar:                      # IA32_LSTAR = rax
    mov $0xc0000082, %ecx
    mov %rax, %rdx
    shr $32, %rdx
    wrmsr
    ret

    .balign 8
gdt:
    .quad 0
    .quad 0
    .quad 0x00af9a000000ffff    # 0x10: 64-bit code, DPL 0, accessed clear
    .quad 0x00cf92000000ffff    # 0x18: data, accessed clear
gdt_end:
gdtr1:
    .word gdt_end - gdt - 1
    .quad gdt
gdtr2:
    .word 0xffff
    .quad 0x700000000000        # not mapped
