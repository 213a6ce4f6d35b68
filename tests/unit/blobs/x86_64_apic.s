# x86-64 local APIC fixture, loaded raw at 0x100000; test_lapic.c writes the IDT at 0x200000
# (pseudo-descriptor at 0x201000) with vector 0xEC -> timer_isr.  The APIC timer runs at
# 100 MHz against the 2 GHz core clock: one tick (divide by 1) is 20 cycles.
#
# 1. An interrupt raised while IF=0 is taken after the instruction following STI (the STI
#    shadow): r14 = the frame RIP of the first interrupt, expected sti_after.
# 2. POPF that sets IF: taken right after it: r13 = frame RIP of the second, expected popf_after.
# 3. A periodic timer of 1000 ticks (20000 cycles) wakes HLT five times; the ISR stores the TSC
#    of each interrupt at 0x210000 + 8 * n.  r12 = number of interrupts.
    .code64
    .text
    .globl _start
_start:
    mov $0x201000, %rax
    lidt (%rax)
    mov $0x300000, %rsp
    xor %r12, %r12
    mov $0xfee00000, %esi
    movl $0x1ff, 0xf0(%rsi)         # SVR: software enable
    movl $0xb, 0x3e0(%rsi)          # divide by 1
    movl $0xec, 0x320(%rsi)         # LVT timer: one-shot, vector 0xEC
    movl $1, 0x380(%rsi)            # fires 20 cycles from now, while IF=0
    mov $100, %ecx
1:  dec %ecx
    jnz 1b
    sti
    nop                             # the shadow
sti_after:
    nop
    cli
    movl $1, 0x380(%rsi)            # again, pending behind IF=0
    mov $100, %ecx
1:  dec %ecx
    jnz 1b
    pushfq
    orq $0x200, (%rsp)
    popfq
popf_after:
    nop
    movl $0x200ec, 0x320(%rsi)      # periodic
    movl $1000, 0x380(%rsi)
    sti
2:  hlt
    cmp $7, %r12                    # 2 one-shots + 5 periodic
    jb 2b
    cli
    movl $0x100ec, 0x320(%rsi)      # mask it and stop it: the machine may go to sleep
    movl $0, 0x380(%rsi)
    hlt

    .org 0x200
timer_isr:
    push %rax
    push %rdx
    cmp $0, %r12
    jne 3f
    mov 16(%rsp), %r14
3:  cmp $1, %r12
    jne 4f
    mov 16(%rsp), %r13
4:  rdtsc
    shl $32, %rdx
    or %rdx, %rax
    mov %rax, 0x210000(,%r12,8)
    inc %r12
    movl $0, 0xb0(%rsi)             # EOI
    pop %rdx
    pop %rax
    iretq

    .org 0x3f0
    .quad sti_after, popf_after

# ---- IPIs between two running CPUs (entry 0x100400).  CPU 0 releases CPU 1 through its spin
# table (0xF008); CPU 1 enables its APIC and sleeps in HLT with interrupts on, counting fixed
# IPIs (vector 0x50) at 0x211000 and NMIs at 0x211008.  CPU 0 waits until CPU 1 says it is
# ready (0x211010), sends a fixed IPI to APIC ID 1, waits for it to be counted, sends an NMI
# IPI to the all-but-self shorthand, waits, then sleeps: every CPU asleep ends the run.
    .org 0x400
ipi_cpu0:
    mov $0x201000, %rax
    lidt (%rax)
    mov $0x300000, %rsp
    mov $0xfee00000, %esi
    movl $0x1ff, 0xf0(%rsi)
    movq $ipi_cpu1, 0xf008          # release CPU 1
1:  pause
    cmpq $1, 0x211010
    jne 1b
    movl $0x01000000, 0x310(%rsi)   # ICR2: APIC ID 1
    movl $0x00000050, 0x300(%rsi)   # fixed, vector 0x50: sends
1:  pause
    cmpq $1, 0x211000
    jne 1b
    movl $0x000c0400, 0x300(%rsi)   # NMI, all excluding self
1:  pause
    cmpq $1, 0x211008
    jne 1b
    cli
    hlt

ipi_cpu1:
    mov $0x201000, %rax
    lidt (%rax)
    mov $0x2f0000, %rsp
    mov $0xfee00000, %esi
    movl $0x1ff, 0xf0(%rsi)
    movq $1, 0x211010               # ready
    sti
2:  hlt
    cmpq $1, 0x211008               # until the NMI came
    jne 2b
    cli
    hlt

    .org 0x500
ipi_isr:
    incq 0x211000
    movl $0, 0xb0(%rsi)             # EOI
    iretq
    .org 0x540
ipi_nmi:
    incq 0x211008
    iretq
