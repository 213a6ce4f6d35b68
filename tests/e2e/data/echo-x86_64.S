# Console input echo on the 16550 COM1 (tests/e2e/test_console_input.sh), loaded raw at
# 0x100000 and entered in long mode.  It programs the UART as a driver does (115200 8N1,
# FIFOs on and cleared, DTR and RTS: the host sends only while RTS is asserted), prints a
# banner, echoes every byte it receives with letters in capitals until 0x04 (EOT), prints
# the number of bytes echoed and exits through isa-debug-exit (status 1).
	.equ COM1, 0x3f8
	.equ RBR, 0
	.equ DLM, 1
	.equ FCR, 2
	.equ LCR, 3
	.equ MCR, 4
	.equ LSR, 5
	.equ LSR_DR, 0x01
	.equ LSR_THRE, 0x20
	.equ LCR_DLAB, 0x80
	.equ LCR_8N1, 0x03
	.equ FCR_ON_CLEARED, 0x07
	.equ MCR_DTR_RTS, 0x03
	.equ EOT, 4
	.equ DEBUG_EXIT, 0xf4

	.code64
	.globl _start
_start:	mov $0x200000, %rsp
	mov $COM1 + LCR, %dx
	mov $LCR_DLAB | LCR_8N1, %al
	out %al, %dx
	mov $COM1 + RBR, %dx			# DLL = 1: 115200 baud
	mov $1, %al
	out %al, %dx
	mov $COM1 + DLM, %dx
	xor %al, %al
	out %al, %dx
	mov $COM1 + LCR, %dx
	mov $LCR_8N1, %al
	out %al, %dx
	mov $COM1 + FCR, %dx
	mov $FCR_ON_CLEARED, %al
	out %al, %dx
	mov $COM1 + MCR, %dx
	mov $MCR_DTR_RTS, %al
	out %al, %dx
	lea banner(%rip), %rsi
	call puts
	xor %r12, %r12
echo:	call getc
	cmp $EOT, %al
	je done
	inc %r12
	mov %al, %cl
	sub $'a', %cl
	cmp $'z' - 'a', %cl
	ja 1f
	sub $'a' - 'A', %al
1:	call putc
	jmp echo
done:	lea bye(%rip), %rsi
	call puts
	mov %r12, %rax
	call putdec
	lea bytes(%rip), %rsi
	call puts
	mov $DEBUG_EXIT, %dx
	xor %al, %al
	out %al, %dx
2:	hlt
	jmp 2b

getc:	mov $COM1 + LSR, %dx
3:	in %dx, %al
	test $LSR_DR, %al
	jz 3b
	mov $COM1 + RBR, %dx
	in %dx, %al
	ret

putc:	mov %al, %bl
	mov $COM1 + LSR, %dx
4:	in %dx, %al
	test $LSR_THRE, %al
	jz 4b
	mov $COM1 + RBR, %dx
	mov %bl, %al
	out %al, %dx
	ret

puts:	lodsb
	test %al, %al
	jz 5f
	call putc
	jmp puts
5:	ret

# rax in decimal, through a buffer on the stack
putdec:	mov %rsp, %rdi
	sub $32, %rsp
	mov %rdi, %r8
	mov $10, %rcx
6:	xor %rdx, %rdx
	div %rcx
	add $'0', %dl
	dec %rdi
	mov %dl, (%rdi)
	test %rax, %rax
	jnz 6b
7:	mov (%rdi), %al
	call putc
	inc %rdi
	cmp %r8, %rdi
	jne 7b
	add $32, %rsp
	ret

banner:	.asciz "echo: ready\n"
bye:	.asciz "\necho: "
bytes:	.asciz " bytes\n"
