# A multiboot v1 kernel (tests/e2e/test_multiboot.sh): an i386 ELF (`as --32`, `ld -m elf_i386
# -Ttext=0x100000`) whose header asks for page-aligned modules and the memory information and
# has no address fields (the loader uses the ELF's program headers).  In 32-bit protected mode
# it prints, on the 16550 at 0x3f8, what the loader handed it: EAX, the information structure's
# flags, mem_lower, mem_upper, the command line, the modules, the memory map, the loader's
# name, and CS, DS, SS, CR0 and EFLAGS as it found them; then it writes 0 to isa-debug-exit (status 1).
	.equ MB_MAGIC, 0x1badb002
	.equ MB_FLAGS, 0x00000003		# bit 0 modules page-aligned, bit 1 memory information
	.equ COM1, 0x3f8
	.equ LSR, COM1 + 5
	.equ LSR_THRE, 0x20
	.equ DEBUG_EXIT, 0xf4

	.code32
	.text
	.balign 4
mb_header:
	.long MB_MAGIC, MB_FLAGS, -(MB_MAGIC + MB_FLAGS)

	.globl _start
_start:
	pushfl				# EFLAGS at the entry, before anything changes it
	popl	%ebp
	movl	$stack_top, %esp
	movl	%eax, %esi		# the magic
	movl	%ebx, %edi		# the information structure
	movl	$s_magic, %edx
	movl	%esi, %eax
	call	field
	movl	$s_flags, %edx
	movl	0(%edi), %eax
	call	field
	movl	$s_lower, %edx
	movl	4(%edi), %eax
	call	field
	movl	$s_upper, %edx
	movl	8(%edi), %eax
	call	field
	movl	$s_cmdline, %edx
	call	puts
	movl	16(%edi), %edx
	call	puts
	call	newline
	movl	$s_mods, %edx
	movl	20(%edi), %eax
	call	field
	movl	20(%edi), %ecx		# each module: start, end, its string
	movl	24(%edi), %ebx
1:	testl	%ecx, %ecx
	jz	2f
	movl	$s_mod, %edx
	movl	0(%ebx), %eax
	call	field
	movl	$s_modend, %edx
	movl	4(%ebx), %eax
	call	field
	movl	$s_modstr, %edx
	call	puts
	movl	8(%ebx), %edx
	call	puts
	call	newline
	addl	$16, %ebx
	decl	%ecx
	jmp	1b
2:	movl	48(%edi), %ebx		# the memory map: size, base, length, type; next at +size+4
	movl	44(%edi), %ecx
	addl	%ebx, %ecx
3:	cmpl	%ecx, %ebx
	jae	4f
	movl	$s_mmap, %edx
	movl	4(%ebx), %eax
	call	value
	movl	$s_len, %edx
	movl	12(%ebx), %eax
	call	value
	movl	$s_type, %edx
	movl	20(%ebx), %eax
	call	field
	addl	0(%ebx), %ebx
	addl	$4, %ebx
	jmp	3b
4:	movl	$s_loader, %edx
	call	puts
	movl	64(%edi), %edx
	call	puts
	call	newline
	movl	$s_cs, %edx
	xorl	%eax, %eax
	movw	%cs, %ax
	call	field
	movl	$s_ds, %edx
	movw	%ds, %ax
	call	field
	movl	$s_ss, %edx
	movw	%ss, %ax
	call	field
	movl	$s_cr0, %edx
	movl	%cr0, %eax
	call	field
	movl	$s_eflags, %edx
	movl	%ebp, %eax
	call	field
	xorl	%eax, %eax
	outl	%eax, $DEBUG_EXIT
5:	hlt
	jmp	5b

# field: the label at EDX, EAX in hex, a newline; value: without the newline
field:
	call	value
	jmp	newline

value:
	call	puts
	jmp	puthex

newline:
	movb	$'\n', %al
	jmp	putc

# puts: the NUL-terminated string at EDX
puts:
	pushl	%eax
6:	movb	(%edx), %al
	testb	%al, %al
	jz	7f
	call	putc
	incl	%edx
	jmp	6b
7:	popl	%eax
	ret

# puthex: EAX as 8 hex digits
puthex:
	pushl	%ecx
	pushl	%ebx
	movl	%eax, %ebx
	movl	$8, %ecx
8:	roll	$4, %ebx
	movl	%ebx, %eax
	andl	$0xf, %eax
	movb	hexdigits(%eax), %al
	call	putc
	decl	%ecx
	jnz	8b
	popl	%ebx
	popl	%ecx
	ret

# putc: AL out of COM1, once its holding register is empty
putc:
	pushl	%edx
	pushl	%eax
9:	movw	$LSR, %dx
	inb	%dx, %al
	testb	$LSR_THRE, %al
	jz	9b
	popl	%eax
	movw	$COM1, %dx
	outb	%al, %dx
	popl	%edx
	ret

	.section .rodata
hexdigits:	.ascii "0123456789abcdef"
s_magic:	.asciz "eax="
s_flags:	.asciz "flags="
s_lower:	.asciz "mem_lower="
s_upper:	.asciz "mem_upper="
s_cmdline:	.asciz "cmdline="
s_mods:		.asciz "mods_count="
s_mod:		.asciz "mod_start="
s_modend:	.asciz "mod_end="
s_modstr:	.asciz "mod_string="
s_mmap:		.asciz "mmap base="
s_len:		.asciz " length="
s_type:		.asciz " type="
s_loader:	.asciz "loader="
s_cs:		.asciz "cs="
s_ds:		.asciz "ds="
s_ss:		.asciz "ss="
s_cr0:		.asciz "cr0="
s_eflags:	.asciz "eflags="

	.bss
	.balign 16
	.skip 4096
stack_top:
