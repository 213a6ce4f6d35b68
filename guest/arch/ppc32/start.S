/* start.S (ppc32) — boot and secondary entry: MSR, a stack, then C.
 * Entry state (docs/guest-abi.md): real mode, MSR = ME, r3 = DTB (boot CPU) or the spin table's
 * r3 = logical id (secondaries), r1 = 0; the -high guests come from boot_high.S with IR and DR
 * set as well. */
#include "config.h"
#include "arch.h"

#define MSR_IR      0x20
#define MSR_DR      0x10

    .section .text.boot, "ax"
    .global _start
_start:
    bl      msr_kernel                  /* also clears IP, which QEMU's reset state sets */
    mr      r31, r3                     /* the DTB, across the .bss clear */
    lis     r1, (__stacks + STACK_SIZE)@ha      /* logical cpu 0's stack */
    addi    r1, r1, (__stacks + STACK_SIZE)@l
    li      r0, 0
    stwu    r0, -16(r1)                 /* terminate the back chain */
    lis     r3, __bss_start@ha
    addi    r3, r3, __bss_start@l
    lis     r4, __bss_end@ha
    addi    r4, r4, __bss_end@l
1:  cmplw   r3, r4
    bge     2f
    stw     r0, 0(r3)
    addi    r3, r3, 4
    b       1b
2:  mr      r3, r31
    bl      boot_cpu_start              /* does not return */

    .text
/* Secondaries: the ePAPR spin table passes the logical id in r3. */
    .global secondary_entry
secondary_entry:
    bl      msr_kernel
    addi    r4, r3, 1
    slwi    r4, r4, STACK_SHIFT
    lis     r5, __stacks@ha
    addi    r5, r5, __stacks@l
    add     r1, r4, r5
    li      r0, 0
    stwu    r0, -16(r1)
    bl      secondary_start             /* does not return */

/* MSR := ME, keeping IR and DR as the entry left them: off in the identity-mapped guests, on
 * in the -high ones (boot_high.S).  Clobbers r0. */
msr_kernel:
    mfmsr   r0
    andi.   r0, r0, MSR_IR | MSR_DR
    ori     r0, r0, MSR_ME
    mtmsr   r0
    isync
    blr

    .section .note.GNU-stack, "", @progbits
