# A ppc32 page table with no memory behind it (tests/e2e/test_paging.sh): SDR1 points at
# 0x20000000, above the board's 128 MiB of RAM, and a load under MSR[DR] through segment 1 makes
# the table search read nothing there.  On the hardware that is a bus error during the search: a
# machine check (0x200), whose handler exits with 0 (status 1); without one the guest exits
# with 1 (status 3).  Loaded raw at 0, vectors at 0 (MSR[IP] = 0).
	.set	SDR1, 25
	.set	EXIT_PORT, 0x80000501

	.text
	.globl	_start
_start:
	b	start

	. = 0x200			# machine check: exit 0
	li	4, 0
	b	exit

start:
	lis	3, 0x2000		# HTABORG 0x20000000, HTABMASK 0
	mtspr	SDR1, 3
	li	3, 0x123		# SR1: VSID 0x123, Ks = Kp = 0
	mtsr	1, 3
	li	3, 0x1010		# MSR: ME | DR
	mtmsr	3
	isync
	lis	5, 0x1000
	lwz	6, 0x10(5)		# EA 0x10000010: page index 0, hash 0x123: the PTEG at 0x20000000 + 0x123 * 64
	li	4, 1
exit:	lis	3, EXIT_PORT@h
	ori	3, 3, EXIT_PORT@l
	li	0, 0
	mtmsr	0			# real mode for the port
	isync
	stb	4, 0(3)
1:	b	1b
