	.code64
	.globl _start
_start:
	mov $0x200000, %rax		# IDT in plain RAM
	lea handler(%rip), %rbx
	mov %bx, 6*16(%rax)		# #UD gate: offset 15:0
	movw $0x08, 6*16+2(%rax)	# the boot GDT's code selector
	movw $0x8e00, 6*16+4(%rax)	# present interrupt gate
	shr $16, %rbx
	mov %bx, 6*16+6(%rax)
	shr $16, %rbx
	mov %ebx, 6*16+8(%rax)
	lidt idtr(%rip)
	lea stack_top(%rip), %rsp	# the stack inside this code page
	ud2				# #UD: the CPU pushes a 40-byte frame onto code
handler:
	hlt
	jmp handler
idtr:	.word 256*16-1
	.quad 0x200000
	.fill 64, 1, 0x90
stack_top:
