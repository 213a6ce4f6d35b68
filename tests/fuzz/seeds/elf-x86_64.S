	.text
	.globl _start, work
	.type _start, @function
_start:	call work
1:	jmp 1b
	.size _start, .-_start
	.type work, @function
work:	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00
key:	.byte 0xeb, 0x00
	ret
	.size work, .-work
	.section __mcount_loc, "a"
	.quad work
	.section __jump_table, "aw"
	.long key - ., work + 7 - .
	.quad trace_buffers
	.data
	.globl trace_buffers
	.type trace_buffers, @object
trace_buffers: .zero 64
	.size trace_buffers, 64
	.bss
	.zero 0x1000
