// Console input echo on the PL011 (tests/e2e/test_console_input.sh), loaded raw at 0x40080000.
// It programs the UART as a driver does (UARTEN, TXE, RXE and RTS: the host sends only while
// RTS is asserted; 8N1 with FIFOs at 1.5 Mbaud, IBRD 1 on the 24 MHz UARTCLK), prints a
// banner, then echoes every byte it receives, letters in capitals (so the echo is the guest's),
// a received byte with error bits as '!', until 0x04 (EOT): then the number of bytes echoed,
// waits for the transmitter to go idle (FR.BUSY) and powers off (PSCI SYSTEM_OFF).
	.equ UART, 0x09000000
	.equ DR, 0x00
	.equ FR, 0x18
	.equ IBRD, 0x24
	.equ FBRD, 0x28
	.equ LCRH, 0x2c
	.equ CR, 0x30
	.equ FR_BUSY, 0x08
	.equ FR_RXFE, 0x10
	.equ FR_TXFF, 0x20
	.equ LCRH_8N1_FIFO, 0x70		// WLEN 8, FEN
	.equ CR_ON, 0xb01			// UARTEN, TXE, RXE, RTS
	.equ EOT, 4
	.equ PSCI_SYSTEM_OFF, 0x84000008
	.equ PSCI_CPU_ON, 0xc4000003

	.globl _start
_start:
	.ifdef SMP
// With --defsym SMP=1 or 2 (tests/e2e/test_record_replay.sh, --cpus 2): CPU 0 starts CPU 1 on
// the echo (PSCI CPU_ON), then SMP=1 polls FR forever (its accesses open the receiver's way
// first in every round: input arrives on CPU 0's clock, CPU 1 reads it), SMP=2 spins without
// touching the UART (input arrives on CPU 1's clock, CPU 0 running first in every round).
	ldr x0, =PSCI_CPU_ON
	mov x1, #1				// MPIDR of cpu@1
	adr x2, echo_main
	mov x3, #0
	hvc #0
	ldr x9, =UART
9:
	.if SMP == 1
	ldr w1, [x9, #FR]
	.else
	add x1, x1, #1
	.endif
	b 9b
echo_main:
	.endif
	ldr x19, =UART
	str wzr, [x19, #CR]			// disabled while it is programmed (TRM, UARTCR)
	mov w0, #1
	str w0, [x19, #IBRD]
	str wzr, [x19, #FBRD]
	mov w0, #LCRH_8N1_FIFO
	str w0, [x19, #LCRH]			// latches IBRD and FBRD
	mov w0, #CR_ON
	str w0, [x19, #CR]
	adr x0, banner
	bl puts
	mov x20, #0
echo:	bl getc
	cmp w0, #EOT
	b.eq done
	add x20, x20, #1
	cmp w0, #0xff				// error bits (FE, PE, BE, OE): never from the host
	b.ls 1f
	mov w0, #'!'
1:	sub w1, w0, #'a'
	cmp w1, #'z' - 'a'
	b.hi 2f
	sub w0, w0, #'a' - 'A'
2:	bl putc
	b echo
done:	adr x0, bye
	bl puts
	mov x0, x20
	bl putdec
	adr x0, bytes
	bl puts
3:	ldr w1, [x19, #FR]			// the last character on the line
	tst w1, #FR_BUSY
	b.ne 3b
	ldr x0, =PSCI_SYSTEM_OFF
	hvc #0
4:	wfi
	b 4b

getc:	ldr w1, [x19, #FR]
	tst w1, #FR_RXFE
	b.ne getc
	ldr w0, [x19, #DR]
	ret

putc:	ldr w1, [x19, #FR]
	tst w1, #FR_TXFF
	b.ne putc
	str w0, [x19, #DR]
	ret

puts:	mov x21, x30
	mov x22, x0
5:	ldrb w0, [x22], #1
	cbz w0, 6f
	bl putc
	b 5b
6:	ret x21

// x0 in decimal, through a buffer below 0x40090000 (above the image)
putdec:	mov x21, x30
	ldr x24, =0x40090000
	mov x23, x24
	mov x2, #10
7:	udiv x3, x0, x2
	msub x4, x3, x2, x0
	add w4, w4, #'0'
	strb w4, [x24, #-1]!
	mov x0, x3
	cbnz x0, 7b
8:	ldrb w0, [x24], #1
	bl putc					// clobbers x1 only
	cmp x24, x23
	b.ne 8b
	ret x21

banner:	.asciz "echo: ready\n"
bye:	.asciz "\necho: "
bytes:	.asciz " bytes\n"
	.balign 8
	.ltorg
