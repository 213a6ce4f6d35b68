# x86-smc-store-in-cut.S with the store made a stosb: a string store into a later instruction of
# its own block, on a page not yet protected as code.  The engine abandons the block before the
# stosb and runs it again alone (precise self-modifying code); pmusim must see that restart
# although stosb's store is implicit (its class is IC_STRING, not a store), both inside a cut
# (--max-insns) and outside one (found while fixing random guest x86_64 3967: 500 vs 293).
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
	lea 1f+1(%rip), %rdi
	mov %cl, %al
	stosb				# into the immediate of the mov below, in this same block
	.rept 20
	nop
	.endr
1:	mov $0, %dl
	dec %ecx
	jnz frag
	hlt
frag_end:
