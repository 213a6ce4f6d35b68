/* paging_user.h (arm64) — what the paging guest's user program (paging_user.S) and its kernel
 * side (paging.c) agree on; safe to include from assembly. */
#ifndef GUEST_ARM64_PAGING_USER_H
#define GUEST_ARM64_PAGING_USER_H

/* The system calls, by SVC immediate (ESR_EL1.ISS[15:0], Arm ARM DDI 0487, "ISS encoding for
 * an exception from an SVC instruction"): x0 + 1 back in x0; back to the kernel for good. */
#define SVC_ANSWER          0
#define SVC_EXIT            1

/* SPSR_EL1 (M[3:0] the EL and stack, DAIF bits 9:6): EL0t and EL1h with D, A, I, F masked. */
#define SPSR_EL0T_MASKED    0x3c0
#define SPSR_EL1H_MASKED    0x3c5

#endif
