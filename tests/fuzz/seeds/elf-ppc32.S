	.text
	.globl _start, work
	.type _start, @function
_start:	bl work
1:	b 1b
	.size _start, .-_start
	.type work, @function
work:	nop
	blr
	.size work, .-work
	.section __ftr_fixup, "a"
fe:	.long 1, 0, work - fe, work + 4 - fe, 0, 0
	.section __mcount_loc, "a"
	.long _start
	.data
	.globl trace_buffers
	.type trace_buffers, @object
trace_buffers: .zero 64
	.size trace_buffers, 64
