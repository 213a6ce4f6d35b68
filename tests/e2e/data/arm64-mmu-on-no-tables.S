	mrs x0, sctlr_el1
	orr x0, x0, #1
	msr sctlr_el1, x0
	isb
1:	b 1b
