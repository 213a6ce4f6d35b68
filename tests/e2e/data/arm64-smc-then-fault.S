// A store into the block being executed, then a fault later in that block (found by random
// guests arm64 7846, 9498): the engine runs the rest of the old translation, and the undefined
// instruction must still be taken back from the block's count.  The store rewrites the NOP with
// itself; the handler steps over the UDF.  Code pages are write-protected from the second
// scheduling round on (run it with a small --quantum), so the later passes take pmusim's
// code-write path.
	.text
_start:
	adr	x0, vectors
	msr	vbar_el1, x0
	isb
	adr	x1, target
	ldr	w2, target
1:	str	w2, [x1]
target:	nop
	udf	#0
	b	1b

	.balign	2048
vectors:
	.skip	0x200			// current EL with SP_EL0
	mrs	x16, elr_el1		// current EL with SP_ELx, synchronous
	add	x16, x16, #4
	msr	elr_el1, x16
	eret
