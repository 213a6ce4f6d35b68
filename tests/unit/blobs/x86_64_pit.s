# x86-64 fixture for the PC's interrupt hardware, loaded raw at 0x100000; test_pc.c writes the
# IDT at 0x200000 (pseudo-descriptor at 0x201000) with vector 0x30 -> the entry's handler.
# The PIT's channel 0 runs in mode 2 with a count of 1193 ticks (1 ms at 1.193182 MHz).
#
# 1. (entry 0x100000) Through the I/O APIC: the PICs masked as Linux masks them, pin 2 (ISA
#    IRQ 0, the timer's override) -> vector 0x30 fixed, physical, APIC ID 0, edge; the local
#    APIC software-enabled.  Five interrupts wake HLT; the handler stores the TSC of each at
#    0x210000 + 8 * n and EOIs the local APIC.  r12 = the number of interrupts.
# 2. (entry 0x100400) Through the 8259A pair and LINT0 (ExtINT, the virtual wire mode the boot
#    CPU's APIC starts in, software-disabled): initialised as Linux's init_8259A (vectors 0x30
#    and 0x38), IRQ 0 unmasked.  Three interrupts; the handler stores the TSC at 0x210000 + 8 * n
#    and the master's ISR (OCW3 0x0B) before and after its specific EOI at 0x211000 + 16 * n.
    .code64
    .text
    .globl _start
    .set IOAPIC, 0xfec00000
    .set LAPIC, 0xfee00000
    .set COUNT, 1193

.macro pit_mode2
    mov $0x34, %al                  # channel 0, LSB then MSB, mode 2, binary
    out %al, $0x43
    mov $(COUNT & 0xff), %al
    out %al, $0x40
    mov $(COUNT >> 8), %al
    out %al, $0x40
.endm

.macro pit_stop
    mov $0x30, %al                  # mode 0 without a count: OUT low, nothing counts
    out %al, $0x43
.endm

_start:
    mov $0x201000, %rax
    lidt (%rax)
    mov $0x300000, %rsp
    xor %r12, %r12
    mov $0xff, %al                  # Linux's probe_8259A / mask: everything masked
    out %al, $0x21
    out %al, $0xa1
    mov $LAPIC, %esi
    movl $0x1ff, 0xf0(%rsi)         # SVR: software enable
    mov $IOAPIC, %edi
    movl $0x14, (%rdi)              # redirection entry 2, low: vector 0x30, unmasked
    movl $0x30, 0x10(%rdi)
    movl $0x15, (%rdi)              # high: destination APIC ID 0
    movl $0, 0x10(%rdi)
    pit_mode2
    sti
1:  hlt
    cmp $5, %r12
    jb 1b
    cli
    movl $0x14, (%rdi)
    movl $0x10030, 0x10(%rdi)       # masked
    pit_stop
    hlt

    .org 0x200
ioapic_isr:
    push %rax
    push %rdx
    rdtsc
    shl $32, %rdx
    or %rdx, %rax
    mov %rax, 0x210000(,%r12,8)
    inc %r12
    movl $0, 0xb0(%rsi)             # the local APIC's EOI
    pop %rdx
    pop %rax
    iretq

    .org 0x400
pic_start:
    mov $0x201000, %rax
    lidt (%rax)
    mov $0x300000, %rsp
    xor %r12, %r12
    mov $0xff, %al
    out %al, $0x21
    out %al, $0xa1
    mov $0x11, %al                  # ICW1: edge, cascade, ICW4
    out %al, $0x20
    mov $0x30, %al                  # ICW2: IR0 -> vector 0x30
    out %al, $0x21
    mov $0x04, %al                  # ICW3: the slave on IR2
    out %al, $0x21
    mov $0x01, %al                  # ICW4: 8086 mode, normal EOI
    out %al, $0x21
    mov $0x11, %al
    out %al, $0xa0
    mov $0x38, %al
    out %al, $0xa1
    mov $0x02, %al
    out %al, $0xa1
    mov $0x01, %al
    out %al, $0xa1
    mov $0xfe, %al                  # IRQ 0 unmasked
    out %al, $0x21
    pit_mode2
    sti
1:  hlt
    cmp $3, %r12
    jb 1b
    cli
    mov $0xff, %al
    out %al, $0x21
    pit_stop
    hlt

    .org 0x600
pic_isr:
    push %rax
    push %rdx
    push %rbx
    rdtsc
    shl $32, %rdx
    or %rdx, %rax
    mov %rax, 0x210000(,%r12,8)
    mov %r12, %rbx
    shl $4, %rbx
    mov $0x0b, %al                  # OCW3: read ISR
    out %al, $0x20
    in $0x20, %al
    movzbq %al, %rax
    mov %rax, 0x211000(%rbx)
    mov $0x60, %al                  # OCW2: specific EOI of IR0
    out %al, $0x20
    in $0x20, %al
    movzbq %al, %rax
    mov %rax, 0x211008(%rbx)
    mov $0x0a, %al                  # OCW3: back to reading IRR
    out %al, $0x20
    inc %r12
    pop %rbx
    pop %rdx
    pop %rax
    iretq
