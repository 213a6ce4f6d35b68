# A store into a later instruction of its own block, on a page not yet protected as code, while
# --max-insns cuts that block (found by random guest x86_64 3967).  The engine abandons the block
# before the store and runs the store again alone (precise self-modifying code); the cut must
# treat that as the same pass, or it stops before the store every time and never ends.
	.code64
	.globl _start
_start:
	lea frag(%rip), %rsi
	mov $0x300000, %rdi		# plain RAM never executed before: not yet protected as code
	mov $frag_end - frag, %ecx
	rep movsb
	mov $0x300000, %rax
	mov $40, %ecx			# passes of the loop
	jmp *%rax
frag:
	movb %cl, 1f+1(%rip)		# into the immediate of the mov below, in this same block
	.rept 20
	nop
	.endr
1:	mov $0, %dl
	dec %ecx
	jnz frag
	hlt
frag_end:
