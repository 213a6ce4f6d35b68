/* start.S (ppc32) — boot and secondary entry: MSR, a stack, then C.
 * Entry state (docs/guest-abi.md): real mode, MSR = ME, r3 = DTB (boot CPU) or the spin table's
 * r3 = logical id (secondaries), r1 = 0. */
#include "config.h"
#include "arch.h"

    .section .text.boot, "ax"
    .global _start
_start:
    li      r0, MSR_ME                  /* also clears IP, which QEMU's reset state sets */
    mtmsr   r0
    isync
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
    li      r0, MSR_ME
    mtmsr   r0
    isync
    addi    r4, r3, 1
    slwi    r4, r4, STACK_SHIFT
    lis     r5, __stacks@ha
    addi    r5, r5, __stacks@l
    add     r1, r4, r5
    li      r0, 0
    stwu    r0, -16(r1)
    bl      secondary_start             /* does not return */

    .section .note.GNU-stack, "", @progbits
