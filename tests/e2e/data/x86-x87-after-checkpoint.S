# The guest of x86-before-x87-state.ck.gz (README): an integer phase that never touches the
# x87, then an x87 phase that prints the x87 state it starts from (the fresh engine's) and
# builds a stack of its own under another control word, then a third phase that prints that
# state back.  A checkpoint in the first phase holds no x87 state to lose; one in the third
# holds the x87 stack and control word.  x86-x87-after-checkpoint.bin is this file assembled
# (as --64; objcopy -O binary), committed: a checkpoint's fingerprint covers the image's bytes.
	.code64
	.globl _start
	.set UART, 0x3f8
	.set EXIT, 0xf4
_start:
	mov $0x1ff000, %rsp
	mov $20, %ebx			# phase 1: integers only, a line per pass
1:	mov $4000, %ecx
2:	imul $3, %r8, %r8
	add %rcx, %r8
	dec %ecx
	jnz 2b
	mov %r8, %rdi
	call hex
	dec %ebx
	jnz 1b
	call x87state			# phase 2: what the x87 holds now
	fldcw cw(%rip)
	fld1
	fldpi
	fldl2e
	fmulp				# pi * log2(e), 1
	mov $20, %ebx			# phase 3: integers again, the x87 stack live
3:	mov $4000, %ecx
4:	imul $5, %r8, %r8
	add %rcx, %r8
	dec %ecx
	jnz 4b
	mov %r8, %rdi
	call hex
	dec %ebx
	jnz 3b
	fadd %st(1), %st		# uses both under the saved control word
	call x87state
	fstpt buf(%rip)
	mov buf(%rip), %rdi
	call hex
	movzwq buf+8(%rip), %rdi
	call hex
	mov $0, %al
	out %al, $EXIT
	hlt

# x87state: FCW, FSW and the tag word (fnstenv) as one line
x87state:
	fnstenv env(%rip)
	mov env(%rip), %rdi		# FCW in bits 0-15, FSW in 32-47
	call hex
	movzwq env+8(%rip), %rdi	# FTW
	call hex
	fldcw env(%rip)			# fnstenv masked the exceptions: put the control word back
	ret

# hex: rdi as 16 hex digits and a newline on the UART
hex:
	mov $UART, %dx
	mov $16, %ecx
1:	rol $4, %rdi
	mov %edi, %eax
	and $15, %eax
	add $'0', %al
	cmp $'9', %al
	jbe 2f
	add $'a' - '9' - 1, %al
2:	out %al, %dx
	dec %ecx
	jnz 1b
	mov $'\n', %al
	out %al, %dx
	ret

	.balign 8
cw:	.word 0x027f			# 53-bit precision, every exception masked
	.balign 16
env:	.space 28
	.balign 16
buf:	.space 16
