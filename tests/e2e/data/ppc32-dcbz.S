# dcbz and the configured model's SPRs on the engine's E600 (tests/e2e/test_ppc32_e600.sh).
# Loaded raw at 0 (MSR[IP] = 0: vectors at 0x200, 0x600, 0x700).  Exits through isa-debug-exit
# with 0 when every check passed, else with the number of the first failing check.  It reads
# the PVR to know what the configured model must show: the 7450 has L3 SPRs and neither SPRG4-7
# nor the high BATs; the 7447A and 7448 the reverse.
# Registers: r24/r25 the last alignment exception's DSISR/DAR, r26 scratch of the handlers, r27
# the last program exception's SRR1, r28 machine checks, r29 program exceptions, r30 alignment
# exceptions.
	.set	HID0, 1008
	.set	HID0_DCE, 0x4000
	.set	HID0_DLOCK, 0x1000
	.set	L3CR, 1018
	.set	L3PM, 983
	.set	SPRG4, 276
	.set	SPRG5, 277
	.set	IBAT4U, 560
	.set	DATA, 0x3000
	.set	EXIT_PORT, 0x80000501

	.macro	fail n
	li	3, \n
	b	exit
	.endm

	.text
	.globl	_start
_start:
	b	start

	. = 0x200			# machine check: count it, step over the instruction
	addi	28, 28, 1
	b	skip
	. = 0x600			# alignment
	addi	30, 30, 1
	mfdsisr	24
	mfdar	25
	b	skip
	. = 0x700			# program
	addi	29, 29, 1
	mfsrr1	27
	b	skip
skip:	mfsrr0	26
	addi	26, 26, 4
	mtsrr0	26
	rfi

	.balign	32
codefn:					# one 32-byte block of code, zeroed by check 5
	li	3, 1
	blr
	.balign	32
	blr				# the zeroed block falls through to here

start:
	li	28, 0
	li	29, 0
	li	30, 0
	bl	fill
	# 1: with the data cache disabled (HID0[DCE] = 0 at reset) dcbz is an alignment exception
	lis	3, DATA@h
	ori	3, 3, DATA@l
	li	4, 0x20
	dcbz	3, 4
	cmpwi	30, 1
	beq	1f
	fail	1
1:	# 16: DAR = the EA; DSISR = dcbz's opcode bits 0x5f (PEM table 6-14; Linux align.c DCBZ) << 10
	# | rA (3)
	addi	5, 3, 0x20
	cmpw	25, 5
	beq	1f
	fail	16
1:	lis	5, 0x17c03@h
	ori	5, 5, 0x17c03@l
	cmpw	24, 5
	beq	1f
	fail	17
1:	lwz	5, 0x20(3)
	cmpwi	5, 0
	bne	1f
	fail	2			# the faulting dcbz zeroed the block
1:	# enable the data cache
	mfspr	5, HID0
	ori	5, 5, HID0_DCE
	sync
	mtspr	HID0, 5
	sync
	# a value in a model-specific SPR (the 7450's L3PM, the others' SPRG5), checked at the end:
	# it lives through the run and through a checkpoint (test_ppc32_e600.sh)
	bl	is7450
	lis	6, 0x600d
	ori	6, 6, 0xcafe
	bne	2f
	mtspr	L3PM, 6
	b	3f
2:	mtspr	SPRG5, 6
3:	# 3: an unaligned EA zeroes the block holding it, and only that block
	li	4, 0x25
	dcbz	3, 4
	lwz	5, 0x20(3)
	lwz	6, 0x3c(3)
	or.	5, 5, 6
	beq	1f
	fail	3
1:	lwz	5, 0x1c(3)
	lwz	6, 0x40(3)
	lis	7, 0xaaaa
	ori	7, 7, 0xaaaa
	cmpw	5, 7
	bne	2f
	cmpw	6, 7
	beq	1f
2:	fail	4
1:	# 5: dcbz on code that has run: the code write is seen by the next execution
	bl	codefn
	cmpwi	3, 1
	beq	1f
	fail	5
1:	lis	3, codefn@h
	ori	3, 3, codefn@l
dcbz_code:
	dcbz	0, 3
	lwz	5, 0(3)
	cmpwi	5, 0
	beq	1f
	fail	6
1:	li	29, 0
	bl	codefn			# eight zero words: eight illegal-instruction program exceptions
	cmpwi	29, 8
	beq	1f
	fail	7
1:	# 8: dcbz of unbacked memory: a machine check
	lis	3, 0x4000
dcbz_unbacked:
	dcbz	0, 3
	cmpwi	28, 1
	beq	1f
	fail	8
1:	# 9: dcbz of a device window (ISA ports 0x100-0x11f, nothing there): no exception
	lis	3, 0x8000
	ori	3, 3, 0x100
dcbz_device:
	dcbz	0, 3
	cmpwi	28, 1
	bne	2f
	cmpwi	30, 1
	beq	1f
2:	fail	9
1:	# 10: dcbz of ROM: ignored
	lis	3, 0xfff0
	lwz	5, 0(3)
dcbz_rom:
	dcbz	0, 3
	lwz	6, 0(3)
	cmpw	5, 6
	beq	1f
	fail	10
1:	# 11: a locked data cache (HID0[DLOCK]): an alignment exception again
	mfspr	5, HID0
	ori	6, 5, HID0_DLOCK
	mtspr	HID0, 6
	lis	3, DATA@h
	ori	3, 3, DATA@l
	dcbz	0, 3
	mtspr	HID0, 5
	cmpwi	30, 2
	beq	1f
	fail	11
1:	# the model's SPRs
	bl	is7450
	bne	not7450
	# 12: 7450: SPRG4 and IBAT4U are undefined: illegal-instruction program exceptions
	li	29, 0
	li	27, 0
	li	6, 0x1234
sprs_7450:
	mtspr	SPRG4, 6
	mfspr	7, SPRG4
	mtspr	IBAT4U, 6
	cmpwi	29, 3
	bne	2f
	andis.	8, 27, 0x0008		# SRR1[12]: illegal instruction
	bne	1f
2:	fail	12
1:	# 13: 7450: L3CR holds what is written
	lis	6, 0x1357
	mtspr	L3CR, 6
	mfspr	7, L3CR
	cmpw	6, 7
	beq	magic
	fail	13
not7450:
	# 14: 7447A, 7448: SPRG4 and IBAT4U exist
	li	29, 0
	li	6, 0x1234
	mtspr	SPRG4, 6
	mfspr	7, SPRG4
	mtspr	IBAT4U, 6
	mfspr	8, IBAT4U
	cmpwi	29, 0
	bne	2f
	cmpw	6, 7
	bne	2f
	cmpw	6, 8
	beq	magic
2:	fail	14
magic:	# 15: the value written at the start is still there
	bl	is7450
	bne	2f
	mfspr	7, L3PM
	b	3f
2:	mfspr	7, SPRG5
3:	lis	6, 0x600d
	ori	6, 6, 0xcafe
	cmpw	6, 7
	beq	pass
	fail	15
pass:
	li	3, 0
exit:
	lis	4, EXIT_PORT@ha
	stb	3, EXIT_PORT@l(4)
	b	.

is7450:					# cr0 eq: the PVR's version is the 7450's (0x8000)
	mfpvr	5
	srwi	5, 5, 16
	cmplwi	5, 0x8000
	blr

fill:					# 0x3000-0x305f = 0xaaaaaaaa
	lis	3, DATA@h
	ori	3, 3, DATA@l
	lis	5, 0xaaaa
	ori	5, 5, 0xaaaa
	li	6, 24
	mtctr	6
1:	stw	5, 0(3)
	addi	3, 3, 4
	bdnz	1b
	blr
