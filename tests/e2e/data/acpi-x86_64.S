# The guest of tests/e2e/test_acpi.sh (raw at 0x100000, 64-bit, the boot identity map): it does
# what an OS does with the ACPI tables pmusim leaves in the BIOS area, with its own reader.
#   1. finds "RSD PTR " on a 16-byte boundary of 0xE0000-0xFFFFF (ACPI 6.4 §5.2.5.1) and checks
#      its checksum, follows the XSDT, checks every table's checksum, finds the FADT and the MADT
#   2. prints "cpus=N" (the MADT's Processor Local APIC entries) and "ioapic=N" on COM1, then
#      "mp=N": the processors of the MP table (MP spec 1.4: "_MP_" on a 16-byte boundary of
#      0xF0000-0xFFFFF, both checksums; 10 for none or a bad one)
#   3. reads the PM timer (FADT PM_TMR_BLK) twice around a loop: it must have advanced
#   4. finds \_S5 in the DSDT's AML: Name(_S5, Package(){ SLP_TYPa, ... })
#   5. prints every table it reached in hex, one a line (RSDP, XSDT, FADT, MADT, DSDT, FACS),
#      for the test to give to an independent reader (iasl -d)
#   6. powers off: PM1a_CNT = SLP_TYPa << 10 | SLP_EN, as Linux's acpi_power_off
#      (--defsym RESET=1: resets through the FADT's RESET_REG instead, as Linux's acpi_reboot)
# If it is still running after that, or a check fails, it ends through isa-debug-exit with
# status 2 * code + 1: 1 no RSDP, 2 RSDP checksum, 3 XSDT, 4 a table's checksum, 5 no FADT or
# MADT, 6 the timer stood still, 7 no \_S5, 8 no reset register, 9 still running.
	.code64
	.set DEBUG_EXIT, 0xf4
	.set COM1, 0x3f8
	.set SIG_RSD_PTR, 0x2052545020445352	# "RSD PTR "
	.set SIG_XSDT, 0x54445358
	.set SIG_FACP, 0x50434146
	.set SIG_APIC, 0x43495041
	.set SIG_DSDT, 0x54445344
	.set NAME_S5, 0x5f35535f		# "_S5_"
	.globl _start
_start:
	mov $0x200000, %rsp
	mov $0xe0000, %rsi
	movabs $SIG_RSD_PTR, %rax
1:	cmp %rax, (%rsi)
	je rsdp
	add $16, %rsi
	cmp $0x100000, %rsi
	jb 1b
	mov $1, %al
	jmp fail
rsdp:	mov %rsi, %r14			# kept: puts moves %rsi
	mov %rsi, %rdi
	mov $20, %ecx
	call sum
	mov $2, %bl
	test %al, %al
	jnz failbl
	mov 24(%rsi), %rbx		# XSDT
	cmpl $SIG_XSDT, (%rbx)
	jne fail3
	mov %rbx, %rdi
	call table_ok
	mov 4(%rbx), %ecx
	sub $36, %ecx
	shr $3, %ecx			# entries
	lea 36(%rbx), %r8
	xor %r12, %r12			# FADT
	xor %r13, %r13			# MADT
2:	test %ecx, %ecx
	jz 4f
	mov (%r8), %rdi
	push %rcx
	call table_ok
	pop %rcx
	cmpl $SIG_FACP, (%rdi)
	jne 3f
	mov %rdi, %r12
3:	cmpl $SIG_APIC, (%rdi)
	jne 5f
	mov %rdi, %r13
5:	add $8, %r8
	dec %ecx
	jmp 2b
4:	mov $5, %al
	test %r12, %r12
	jz fail
	test %r13, %r13
	jz fail
	call madt_counts
	call timer
	call dump_all
	call s5
.ifdef RESET
	btl $10, 112(%r12)		# RESET_REG_SUP
	mov $8, %al
	jnc fail
	cmpb $1, 116(%r12)		# RESET_REG in System I/O space
	jne fail
	mov 120(%r12), %edx		# its port
	mov 128(%r12), %al		# RESET_VALUE
	out %al, %dx
.else
	mov 64(%r12), %edx		# PM1a_CNT_BLK
	shl $10, %eax			# SLP_TYPa
	or $0x2000, %eax		# SLP_EN
	out %ax, %dx
.endif
	mov $9, %al
	jmp fail

# The checksum of a table at %rdi (its length at +4) must be 0.
table_ok:
	mov 4(%rdi), %ecx
	call sum
	test %al, %al
	jnz fail4
	ret

# %al = the sum of %ecx bytes at %rdi (%rdx clobbered).
sum:	xor %eax, %eax
	xor %edx, %edx
1:	test %ecx, %ecx
	jz 2f
	add (%rdi,%rdx), %al
	inc %rdx
	dec %ecx
	jmp 1b
2:	ret

# Print "cpus=N ioapic=N\n": the MADT's type 0 and type 1 entries.
madt_counts:
	mov 4(%r13), %ecx
	lea 44(%r13), %rdi
	add %r13, %rcx			# end
	xor %r9d, %r9d
	xor %r10d, %r10d
1:	cmp %rcx, %rdi
	jae 3f
	cmpb $0, (%rdi)
	jne 2f
	inc %r9d
2:	cmpb $1, (%rdi)
	jne 4f
	inc %r10d
4:	movzbl 1(%rdi), %eax
	add %rax, %rdi
	jmp 1b
3:	lea s_cpus(%rip), %rsi
	call puts
	mov %r9d, %eax
	call putnum
	lea s_ioapic(%rip), %rsi
	call puts
	mov %r10d, %eax
	call putnum
	lea s_mp(%rip), %rsi
	call puts
	call mp_cpus
	call putnum
	mov $'\n', %al
	jmp putc

# %eax = the processor entries of the MP table; 10 without a valid one.
mp_cpus:
	mov $0xf0000, %rdi
1:	cmpl $0x5f504d5f, (%rdi)	# "_MP_"
	je 2f
	add $16, %rdi
	cmp $0x100000, %rdi
	jb 1b
	jmp 9f
2:	mov $16, %ecx
	push %rdi
	call sum
	pop %rdi
	test %al, %al
	jnz 9f
	mov 4(%rdi), %edi		# the configuration table
	cmpl $0x504d4350, (%rdi)	# "PCMP"
	jne 9f
	movzwl 4(%rdi), %ecx
	push %rdi
	call sum
	pop %rdi
	test %al, %al
	jnz 9f
	movzwl 34(%rdi), %ecx		# entries
	add $44, %rdi
	xor %eax, %eax
3:	test %ecx, %ecx
	jz 8f
	cmpb $0, (%rdi)
	jne 4f
	inc %eax
	add $12, %rdi			# a processor entry: 20 bytes
4:	add $8, %rdi
	dec %ecx
	jmp 3b
9:	mov $10, %eax
8:	ret

# The PM timer must advance across a loop.
timer:	mov 76(%r12), %edx		# PM_TMR_BLK
	in %dx, %eax
	mov %eax, %r9d
	mov $10000, %ecx
1:	dec %ecx
	jnz 1b
	in %dx, %eax
	cmp %eax, %r9d
	je fail6
	ret

# %eax = SLP_TYPa of \_S5 in the DSDT (X_DSDT): NameOp "_S5_" PackageOp PkgLength NumElements,
# then BytePrefix n, ZeroOp or OneOp.
s5:	mov 140(%r12), %rdi
	cmpl $SIG_DSDT, (%rdi)
	jne fail7
	push %rdi
	call table_ok
	pop %rdi
	mov 4(%rdi), %ecx
	add %rdi, %rcx
	sub $8, %rcx
	add $36, %rdi
1:	cmp %rcx, %rdi
	jae fail7
	cmpl $NAME_S5, (%rdi)
	je 2f
	inc %rdi
	jmp 1b
2:	cmpb $0x12, 4(%rdi)
	jne fail7
	movzbl 7(%rdi), %eax
	cmp $0x0a, %al
	jne 3f
	movzbl 8(%rdi), %eax
3:	ret

# Every table in hex, one a line.
dump_all:
	mov $36, %ecx			# the RSDP (revision 2)
	mov %r14, %rdi
	call hexline
	mov %rbx, %rdi			# XSDT
	call dump
	mov %r12, %rdi			# FADT
	call dump
	mov %r13, %rdi			# MADT
	call dump
	mov 140(%r12), %rdi		# X_DSDT
	call dump
	mov 132(%r12), %rdi		# X_FIRMWARE_CTRL: the FACS
# The table at %rdi (its length at +4) in hex.
dump:	mov 4(%rdi), %ecx
# %ecx bytes at %rdi in hex, then a newline.
hexline:
	push %rsi
	mov %rdi, %rsi
1:	test %ecx, %ecx
	jz 2f
	movzbl (%rsi), %eax
	shr $4, %eax
	call hexdigit
	movzbl (%rsi), %eax
	and $15, %eax
	call hexdigit
	inc %rsi
	dec %ecx
	jmp 1b
2:	pop %rsi
	mov $'\n', %al
	jmp putc

hexdigit:
	lea hex(%rip), %rdx
	mov (%rdx,%rax), %al
	jmp putc

puts:	lodsb
	test %al, %al
	jz 1f
	call putc
	jmp puts
1:	ret

putnum:	mov $10, %ecx
	xor %edx, %edx
	div %ecx
	test %eax, %eax
	jz 1f
	push %rdx
	call putnum
	pop %rdx
1:	lea '0'(%edx), %eax
putc:	push %rdx
	mov $COM1, %dx
	out %al, %dx
	pop %rdx
	ret

fail3:	mov $3, %al
	jmp fail
fail4:	mov $4, %al
	jmp fail
fail6:	mov $6, %al
	jmp fail
fail7:	mov $7, %al
	jmp fail
failbl:	mov %bl, %al
fail:	out %al, $DEBUG_EXIT
	hlt
	jmp fail

hex:	.ascii "0123456789abcdef"
s_cpus:	.asciz "cpus="
s_ioapic:
	.asciz " ioapic="
s_mp:	.asciz " mp="
