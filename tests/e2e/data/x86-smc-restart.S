# A store into a later instruction of its own block, on a page not yet protected as code (found
# by random guest x86_64 3967).  The engine abandons the block before the store and runs the
# store again alone (precise self-modifying code).  pmusim must see that restart as the same
# pass: inside a cut (--max-insns) the cut used to stop before the store every time and never
# end, and outside one the count was wrong (500 against 293).  Assembled twice: a plain mov
# store, and with --defsym STOS=1 a stosb, whose store is implicit (its class is IC_STRING, not
# a store).
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
.ifdef STOS
	lea 1f+1(%rip), %rdi
	mov %cl, %al
	stosb				# into the immediate of the mov below, in this same block
.else
	movb %cl, 1f+1(%rip)		# into the immediate of the mov below, in this same block
.endif
	.rept 20
	nop
	.endr
1:	mov $0, %dl
	dec %ecx
	jnz frag
	hlt
frag_end:
