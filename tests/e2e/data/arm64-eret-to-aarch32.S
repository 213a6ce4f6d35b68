// ERET to AArch32 (found by random guest arm64 2611, whose SPSR_EL1 got 0x40083330: User mode,
// Thumb).  pmusim's CPUs implement AArch64 only (ID_AA64PFR0_EL1.EL0 = EL1 = 1), so the return
// is illegal: PSTATE.IL is set and the instruction at ELR takes the Illegal Execution state
// exception (EC 0x0e) without executing.  The guest sleeps in WFI when ID_AA64PFR0_EL1 and
// ESR_EL1 say so, and spins otherwise.
	.text
_start:
	adr	x0, vectors
	msr	vbar_el1, x0
	isb
	mrs	x9, id_aa64pfr0_el1
	and	x9, x9, #0xff
	cmp	x9, #0x11
	b.ne	bad
	adr	x1, thumb
	msr	elr_el1, x1
	mov	x2, #0x30		// M = 0b10000 (AArch32 User), T
	msr	spsr_el1, x2
	eret
thumb:	.word	0x54006403		// T32: lsls r3, r0, #16; strb r0, [r0, r0]
bad:	b	bad

	.balign	2048
vectors:
	.skip	0x200			// current EL with SP_EL0
	mrs	x10, esr_el1		// current EL with SP_ELx, synchronous
	lsr	x10, x10, #26
	cmp	x10, #0x0e
	b.ne	bad
	mrs	x11, elr_el1
	adr	x12, thumb
	cmp	x11, x12
	b.ne	bad
1:	wfi
	b	1b
