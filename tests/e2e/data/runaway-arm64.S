// Runaway exceptions (issue 12): VBAR_EL1 = VBAR, loaded raw at 0x40080000, then an undefined
// instruction.  tests/e2e/test_runaway.sh assembles it with --defsym VBAR=... for each kind of
// vector table:
//   0x40080800   every vector is an undefined instruction: nothing ever retires
//   0x20000000   unbacked memory: the fetch of the vector itself is a bus error, every time
//   0x40081000   each vector retires a nop, then is undefined: an endless, retiring exception
//                storm that only a limit or a signal ends
	.globl _start
_start:	ldr x0, =VBAR
	msr vbar_el1, x0
	isb
	.long 0				// udf #0
	.ltorg
	.org 0x800
	.fill 0x800 / 4, 4, 0		// 16 vectors of udf #0
	.org 0x1000
	.rept 16
	nop
	.long 0
	.fill 30, 4, 0			// the rest of the 128-byte vector
	.endr
