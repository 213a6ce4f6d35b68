# Cross-CPU code write fixture, loaded raw at 0x100000, 2 CPUs.  CPU1 calls `target` (which
# returns 1), CPU0 then patches its immediate to 2, and CPU1 calls it again: it must get 2.
# Flags live outside the image (0x170000..) so only the patch is a write to code.
    .code64
    .text
    .globl _start
_start:
    mov $0x180000, %rsp
    mov $cpu1, %rax
    mov %rax, 0xf008                # release CPU1 (its spin-table word)
1:  cmpl $1, 0x170000               # wait: CPU1 has run target once
    jne 1b
patch:
    movb $2, target+1(%rip)         # mov $1,%eax -> mov $2,%eax
    movl $1, 0x170004
2:  cmpl $1, 0x170008               # wait: CPU1 has run it again
    jne 2b
    mov $0, %al
    out %al, $0xf4                  # exit
cpu1:
    mov $0x190000, %rsp
    call target
    mov %eax, %r13d
    movl $1, 0x170000
3:  cmpl $1, 0x170004
    jne 3b
    call target
    mov %eax, %r14d
    movl $1, 0x170008
4:  hlt
    jmp 4b
    .org 0x200
target:
    mov $1, %eax
    ret
