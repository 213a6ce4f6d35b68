// Console input echo on the PL011 driven by its interrupt, as Linux's amba-pl011 drives it
// (tests/e2e/test_console_input.sh), loaded raw at 0x40080000 on the arm64 board: with
// --defsym GICV3=1 its GICv3 (UARTINTR, SPI 1 = INTID 33, in group 1 routed to CPU 0; the CPU
// interface's system registers), else a GICv2 (QEMU virt's gic-version=2 map: distributor
// 0x08000000, CPU interface 0x08010000, which the test makes; SPI 1 in group 0, an IRQ,
// targeted at CPU 0).  The
// receive interrupts (RXIM at 1/8 of the FIFO, RTIM for the rest) drain the FIFO into a ring,
// a line at a time, so that a line is sent in bursts faster than it came: the transmit side
// writes at most 16 characters per interrupt and unmasks TXIM while the ring holds more (TXIS
// rises when the FIFO drains to 1/8), masks it when the ring is empty.  The main loop spins
// until EOT came and the ring is empty, then prints the count as echo-arm64.S does and powers
// off: the console is the same as that guest's.  Registers: x19 the UART, x20 bytes echoed,
// x21 where the next byte goes, x28 the end of the last whole line, x22 the next to send, x23
// EOT seen, x24 the ring; the handler uses x0-x9 (the main loop does not).
	.equ UART, 0x09000000
	.equ DR, 0x00
	.equ FR, 0x18
	.equ IBRD, 0x24
	.equ FBRD, 0x28
	.equ LCRH, 0x2c
	.equ CR, 0x30
	.equ IFLS, 0x34
	.equ IMSC, 0x38
	.equ FR_BUSY, 0x08
	.equ FR_RXFE, 0x10
	.equ FR_TXFF, 0x20
	.equ LCRH_8N1_FIFO, 0x70
	.equ CR_ON, 0xb01			// UARTEN, TXE, RXE, RTS
	.equ IFLS_EIGHTHS, 0			// RX at 4 entries or more, TX at 4 or fewer
	.equ IM_RX, 0x50			// RXIM, RTIM
	.equ IM_RX_TX, 0x70			// and TXIM
	.equ TX_BURST, 16			// Linux's pl011_tx_chars: fifosize / 2 per interrupt
	.equ GICD, 0x08000000
	.equ GICD_CTLR, 0x0
	.equ GICD_IGROUPR1, 0x84
	.equ GICD_ISENABLER1, 0x104
	.equ GICD_IPRIORITYR32, 0x420
	.equ GICD_ITARGETSR32, 0x820
	.equ GICD_IROUTER33, 0x6108
	.equ GICR_WAKER, 0x080a0014
	.equ WAKER_ASLEEP, 4
	.equ GICC, 0x08010000
	.equ GICC_CTLR, 0x00
	.equ GICC_PMR, 0x04
	.equ GICC_IAR, 0x0c
	.equ GICC_EOIR, 0x10
	.equ ENABLE_GRP0, 1
	.equ ENABLE_GRP1, 2
	.equ SPI1_BIT, 2			// INTID 33 in the registers of INTIDs 32..63
	.equ SPI1_PRIORITY, 0xa000		// byte 1 of IPRIORITYR32: INTID 33
	.equ SPI1_TO_CPU0, 0x0100		// byte 1 of ITARGETSR32: CPU 0
	.equ PMR_ALL, 0xf8			// the GIC's five priority bits: every priority
	.equ INTID_UART, 33
	.equ RING, 0x40090000
	.equ RING_MASK, 0xfff
	.equ EOT, 4
	.equ PSCI_SYSTEM_OFF, 0x84000008

	.globl _start
_start:	ldr x19, =UART
	ldr x24, =RING
	mov x20, #0
	mov x21, #0
	mov x22, #0
	mov x23, #0
	mov x28, #0
	adr x0, vectors
	msr vbar_el1, x0
	bl gic_init
	str wzr, [x19, #CR]
	mov w0, #1
	str w0, [x19, #IBRD]
	str wzr, [x19, #FBRD]
	mov w0, #LCRH_8N1_FIFO
	str w0, [x19, #LCRH]
	mov w0, #IFLS_EIGHTHS
	str w0, [x19, #IFLS]
	mov w0, #CR_ON
	str w0, [x19, #CR]
	adr x0, banner				// polled, before the interrupts are on
	bl puts
	mov w0, #IM_RX
	str w0, [x19, #IMSC]
	msr daifclr, #2
1:	cbz x23, 1b				// the handler sets x23 at EOT ...
	cmp x28, x22
	b.ne 1b					// ... and empties the ring
	msr daifset, #2
	adr x0, bye
	bl puts
	mov x0, x20
	bl putdec
	adr x0, bytes
	bl puts
2:	ldr w1, [x19, #FR]
	tst w1, #FR_BUSY
	b.ne 2b
	ldr x0, =PSCI_SYSTEM_OFF
	hvc #0
3:	wfi
	b 3b

	.ifdef GICV3
// GICv3 with one Security state (DS = 1, as QEMU virt without EL3; IHI 0069H 12.9.4): group 1
// on, SPI 1 in group 1 at priority 0xa0 routed to CPU 0, the redistributor awake, the CPU
// interface's system registers on with every priority let through.
gic_init:
	ldr x1, =GICD
	mov w0, #ENABLE_GRP1
	str w0, [x1, #GICD_CTLR]
	mov w0, #SPI1_BIT
	str w0, [x1, #GICD_IGROUPR1]
	mov w0, #SPI1_PRIORITY
	str w0, [x1, #GICD_IPRIORITYR32]
	ldr x2, =GICD + GICD_IROUTER33
	str xzr, [x2]
	mov w0, #SPI1_BIT
	str w0, [x1, #GICD_ISENABLER1]
	ldr x1, =GICR_WAKER
	str wzr, [x1]
16:	ldr w0, [x1]
	tst w0, #WAKER_ASLEEP
	b.ne 16b
	mrs x0, s3_0_c12_c12_5			// ICC_SRE_EL1.SRE
	orr x0, x0, #1
	msr s3_0_c12_c12_5, x0
	isb
	mov x0, #PMR_ALL
	msr s3_0_c4_c6_0, x0			// ICC_PMR_EL1
	mov x0, #1
	msr s3_0_c12_c12_7, x0			// ICC_IGRPEN1_EL1
	isb
	ret
	.else
// GICv2 without the Security Extensions: group 0 on, SPI 1 at priority 0xa0 to CPU 0, the CPU
// interface on with every priority let through (IHI 0048B, 4.3 and 4.4).
gic_init:
	ldr x1, =GICD
	mov w0, #SPI1_PRIORITY
	str w0, [x1, #GICD_IPRIORITYR32]
	mov w0, #SPI1_TO_CPU0
	str w0, [x1, #GICD_ITARGETSR32]
	mov w0, #SPI1_BIT
	str w0, [x1, #GICD_ISENABLER1]
	mov w0, #ENABLE_GRP0
	str w0, [x1, #GICD_CTLR]
	ldr x1, =GICC
	mov w0, #PMR_ALL
	str w0, [x1, #GICC_PMR]
	mov w0, #ENABLE_GRP0
	str w0, [x1, #GICC_CTLR]
	ret
	.endif

// The UART's interrupt: receive what is there, send the whole lines the ring holds.
uart_irq:
	ldr w1, [x19, #FR]
	tst w1, #FR_RXFE
	b.ne 7f
	ldr w2, [x19, #DR]
	cmp w2, #EOT
	b.ne 5f
	mov x23, #1
	mov x28, x21				// the rest goes out too
	b uart_irq
5:	add x20, x20, #1
	cmp w2, #0xff				// error bits: never from the host
	b.ls 6f
	mov w2, #'!'
6:	sub w1, w2, #'a'
	cmp w1, #'z' - 'a'
	b.hi 61f
	sub w2, w2, #'a' - 'A'
61:	strb w2, [x24, x21]
	add x21, x21, #1
	and x21, x21, #RING_MASK
	cmp w2, #'\n'
	csel x28, x21, x28, eq			// a whole line to send
	b uart_irq
7:	mov x3, #TX_BURST
8:	cmp x28, x22
	b.eq 9f					// sent every whole line: no transmit interrupts
	cbz x3, 10f
	ldr w1, [x19, #FR]
	tst w1, #FR_TXFF
	b.ne 10f
	ldrb w2, [x24, x22]
	str w2, [x19, #DR]
	add x22, x22, #1
	and x22, x22, #RING_MASK
	sub x3, x3, #1
	b 8b
9:	mov w1, #IM_RX
	str w1, [x19, #IMSC]
	ret
10:	mov w1, #IM_RX_TX
	str w1, [x19, #IMSC]
	ret

putc:	ldr w1, [x19, #FR]
	tst w1, #FR_TXFF
	b.ne putc
	str w0, [x19, #DR]
	ret

puts:	mov x25, x30
	mov x26, x0
11:	ldrb w0, [x26], #1
	cbz w0, 12f
	bl putc
	b 11b
12:	ret x25

putdec:	mov x25, x30
	ldr x26, =RING + 0x2000
	mov x27, x26
	mov x2, #10
13:	udiv x3, x0, x2
	msub x4, x3, x2, x0
	add w4, w4, #'0'
	strb w4, [x26, #-1]!
	mov x0, x3
	cbnz x0, 13b
14:	ldrb w0, [x26], #1
	bl putc
	cmp x26, x27
	b.ne 14b
	ret x25

banner:	.asciz "echo: ready\n"
bye:	.asciz "\necho: "
bytes:	.asciz " bytes\n"
	.balign 8
	.ltorg

	.balign 2048
vectors:
	.org vectors + 0x280			// IRQ, current EL with SPx
	mov x9, x30
	.ifdef GICV3
	mrs x0, s3_0_c12_c12_0			// ICC_IAR1_EL1
	.else
	ldr x8, =GICC
	ldr w0, [x8, #GICC_IAR]
	.endif
	cmp w0, #INTID_UART
	b.ne 15f
	bl uart_irq
15:
	.ifdef GICV3
	msr s3_0_c12_c12_1, x0			// ICC_EOIR1_EL1
	.else
	str w0, [x8, #GICC_EOIR]
	.endif
	mov x30, x9
	eret
	.ltorg
	.org vectors + 0x800
