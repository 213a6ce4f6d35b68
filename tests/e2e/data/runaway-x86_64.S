# Runaway exceptions (issue 12): every IDT gate leads to HANDLER, loaded raw at 0x100000, and the
# first instruction after the IDT is set up is ud2.  tests/e2e/test_runaway.sh assembles it with
# --defsym HANDLER=... for each kind of handler:
#   0x100100         ud2: the handler faults on its first instruction, nothing ever retires
#   0x123456789000   not mapped by the boot page tables: #PF on the fetch of the vector itself,
#                    no translated block ever starts
#   0x100140         retires one instruction (it resets RSP, so that the frames never grow into
#                    the IDT), then faults again: an endless, retiring exception storm that only
#                    a limit or a signal ends
	.code64
	.globl _start
_start:
	mov $0x200000, %rdi		# the IDT, in plain RAM
	mov $HANDLER, %rbx
	xor %ecx, %ecx
1:	mov %bx, (%rdi)			# offset 15:0
	movw $0x08, 2(%rdi)		# the boot GDT's code selector
	movw $0x8e00, 4(%rdi)		# present 64-bit interrupt gate
	mov %rbx, %rdx
	shr $16, %rdx
	mov %dx, 6(%rdi)		# offset 31:16
	shr $16, %rdx
	mov %edx, 8(%rdi)		# offset 63:32
	movl $0, 12(%rdi)
	add $16, %rdi
	inc %ecx
	cmp $256, %ecx
	jne 1b
	lidt idtr(%rip)
	mov $0x300000, %rsp
	ud2
idtr:	.word 256*16-1
	.quad 0x200000
	.org 0x100
	ud2
	.org 0x140
	mov $0x300000, %rsp
	ud2
