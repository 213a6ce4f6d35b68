/* arch/x86_64/start.S — the init's entry point.
 *
 * Linux starts init at the ELF entry with rsp at argc, then argv[] (NULL-terminated), then
 * envp[] (the psABI's process stack, x86-64 psABI §3.4.1; Linux fs/binfmt_elf.c
 * create_elf_tables); rsp is 16-byte aligned, so the call below leaves init_main's stack as the
 * psABI wants it (rsp + 8 aligned at its entry).  init_main(argc, argv, envp) never returns (it
 * powers off); if it did, exit(2).
 */
	.file	"start.S"		/* else the symbol table names gcc's temporary object: not reproducible */
	.text
	.globl	_start
	.type	_start, @function
_start:
	xor	%ebp, %ebp		/* the end of the frame chain (psABI §3.4.1) */
	mov	(%rsp), %rdi		/* argc */
	lea	8(%rsp), %rsi		/* argv */
	lea	8(%rsi,%rdi,8), %rdx	/* envp: after argv's NULL */
	call	init_main
	mov	$2, %edi
	mov	$60, %eax		/* SYS_exit */
	syscall
	jmp	.
	.size	_start, . - _start

/* measured_loop(fd, enable_req, disable_req, iters, ioctl_arg): ioctl(fd, enable_req, arg);
 * iters (>= 1) turns of a two-instruction loop; ioctl(fd, disable_req, arg).  The instructions
 * counted at CPL 3 between the two calls: sys.h, LOOP_INSNS_PER_ITER and LOOP_FIXED_INSNS.
 * measured_loop_body .. measured_loop_end is the loop, where the perf step's samples land.
 * Arguments in rdi, rsi, rdx, rcx, r8 (psABI); kept across the SYSCALLs in registers that
 * SYSCALL leaves alone (r8, r9, r10, rdx: it changes only rax, rcx and r11). */
	.text
	.globl	measured_loop, measured_loop_body, measured_loop_end
	.type	measured_loop, @function
measured_loop:
	mov	%rdx, %r10		/* disable_req */
	mov	%r8, %rdx		/* ioctl's third argument, for both calls */
	mov	%rcx, %r8		/* iters */
	mov	%rdi, %r9		/* fd */
	mov	$16, %eax		/* SYS_ioctl */
	syscall
measured_loop_body:
	dec	%r8
	jnz	measured_loop_body
measured_loop_end:
	mov	%r9, %rdi
	mov	%r10, %rsi
	mov	$16, %eax
	syscall
	ret
	.size	measured_loop, . - measured_loop
	.section .note.GNU-stack, "", @progbits
