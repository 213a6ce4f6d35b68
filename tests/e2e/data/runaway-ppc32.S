# Runaway exceptions (issue 12), loaded raw at 0 (MSR[IP] = 0: the vectors are at 0x0nnn); the
# first word is illegal.  tests/e2e/test_runaway.sh assembles it with --defsym MODE=...:
#   0   the program-check handler (0x700) is an illegal word itself: nothing ever retires
#   1   the program-check handler loads from unbacked memory (a machine check, 0x200), and the
#       machine-check handler is illegal: two handlers faulting into each other, nothing retires
#   2   the program-check handler retires a nop, then is illegal: an endless, retiring
#       exception storm that only a limit or a signal ends
	.globl _start
_start:
	.long 0
	.org 0x200
	.long 0
	.org 0x700
.if MODE == 0
	.long 0
.elseif MODE == 1
	lwz 4, 0(6)			# r6 = the ePAPR magic 0x45504150 (docs/guest-abi.md): no RAM there
.else
	nop
	.long 0
.endif
	.org 0x1000
