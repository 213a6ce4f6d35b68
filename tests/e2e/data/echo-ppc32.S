# Console input echo on the 16550 COM1 of the 40p board (tests/e2e/test_console_input.sh),
# loaded raw at 0 and entered in real mode; the ISA I/O space is at 0x80000000.  It programs the
# UART as a driver does (115200 8N1, FIFOs on and cleared, DTR and RTS: the host sends only
# while RTS is asserted), prints a banner, echoes every byte it receives with letters in
# capitals until 0x04 (EOT), prints the number of bytes echoed and exits through
# isa-debug-exit at port 0x501 (status 1).
	.equ ISA, 0x80000000
	.equ COM1, 0x3f8
	.equ RBR, 0
	.equ DLM, 1
	.equ FCR, 2
	.equ LCR, 3
	.equ MCR, 4
	.equ LSR, 5
	.equ LSR_DR, 0x01
	.equ LSR_THRE, 0x20
	.equ LCR_DLAB, 0x80
	.equ LCR_8N1, 0x03
	.equ FCR_ON_CLEARED, 0x07
	.equ MCR_DTR_RTS, 0x03
	.equ EOT, 4
	.equ DEBUG_EXIT, 0x501

	.globl _start
_start:	lis r30, ISA@h
	ori r30, r30, COM1
	li r4, LCR_DLAB | LCR_8N1
	stb r4, LCR(r30)
	li r4, 1				# DLL = 1: 115200 baud
	stb r4, RBR(r30)
	li r4, 0
	stb r4, DLM(r30)
	li r4, LCR_8N1
	stb r4, LCR(r30)
	li r4, FCR_ON_CLEARED
	stb r4, FCR(r30)
	li r4, MCR_DTR_RTS
	stb r4, MCR(r30)
	eieio
	bl 1f
	.asciz "echo: ready\n"
	.balign 4
1:	mflr r3
	bl puts
	li r31, 0
echo:	bl getc
	cmpwi r3, EOT
	beq done
	addi r31, r31, 1
	subi r4, r3, 'a'
	cmplwi r4, 'z' - 'a'
	bgt 2f
	subi r3, r3, 'a' - 'A'
2:	bl putc
	b echo
done:	bl 3f
	.asciz "\necho: "
	.balign 4
3:	mflr r3
	bl puts
	mr r3, r31
	bl putdec
	bl 4f
	.asciz " bytes\n"
	.balign 4
4:	mflr r3
	bl puts
	lis r5, ISA@h
	ori r5, r5, DEBUG_EXIT
	li r4, 0
	stb r4, 0(r5)
5:	b 5b

getc:	lbz r4, LSR(r30)
	andi. r4, r4, LSR_DR
	beq getc
	lbz r3, RBR(r30)
	blr

putc:	lbz r4, LSR(r30)
	andi. r4, r4, LSR_THRE
	beq putc
	stb r3, RBR(r30)
	eieio
	blr

# the string at r3
puts:	mflr r29
	mr r28, r3
6:	lbz r3, 0(r28)
	cmpwi r3, 0
	beq 7f
	bl putc
	addi r28, r28, 1
	b 6b
7:	mtlr r29
	blr

# r3 in decimal, through a buffer at 0x10000
putdec:	mflr r29
	lis r28, 0x1
	mr r27, r28
	li r5, 10
8:	divwu r6, r3, r5
	mullw r7, r6, r5
	subf r7, r7, r3
	addi r7, r7, '0'
	stbu r7, -1(r28)
	mr. r3, r6
	bne 8b
9:	lbz r3, 0(r28)
	bl putc
	addi r28, r28, 1
	cmpw r28, r27
	bne 9b
	mtlr r29
	blr
