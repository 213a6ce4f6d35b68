/* arch/arm64/start.S — the init's entry point.
 *
 * Linux starts init at the ELF entry with sp at argc, then argv[] (NULL-terminated), then envp[]
 * (the ELF ABI's process stack, Linux fs/binfmt_elf.c create_elf_tables); sp is 16-byte
 * aligned.  init_main(argc, argv, envp) never returns (it powers off); if it did, exit(2).
 */
	.file	"start.S"		/* else the symbol table names gcc's temporary object: not reproducible */
	.text
	.globl	_start
	.type	_start, %function
_start:
	mov	x29, #0			/* the end of the frame chain */
	mov	x30, #0
	ldr	x0, [sp]		/* argc */
	add	x1, sp, #8		/* argv */
	add	x2, x1, x0, lsl #3
	add	x2, x2, #8		/* envp: after argv's NULL */
	bl	init_main
	mov	x8, #93			/* SYS_exit */
	svc	#0
	b	.
	.size	_start, . - _start

/* measured_loop(fd, enable_req, disable_req, iters, ioctl_arg): ioctl(fd, enable_req, arg);
 * iters (>= 1) turns of a two-instruction loop; ioctl(fd, disable_req, arg).  The instructions
 * counted at EL0 between the two calls: sys.h, LOOP_INSNS_PER_ITER and LOOP_FIXED_INSNS.
 * measured_loop_body .. measured_loop_end is the loop, where the perf step's samples land. */
	.text
	.globl	measured_loop, measured_loop_body, measured_loop_end
	.type	measured_loop, %function
measured_loop:
	mov	x9, x0
	mov	x10, x2
	mov	x12, x3
	mov	x2, x4
	mov	x8, #29			/* SYS_ioctl */
	svc	#0
measured_loop_body:
	subs	x12, x12, #1
	b.ne	measured_loop_body
measured_loop_end:
	mov	x0, x9
	mov	x1, x10
	mov	x2, x4
	mov	x8, #29
	svc	#0
	ret
	.size	measured_loop, . - measured_loop
	.section .note.GNU-stack, "", %progbits
