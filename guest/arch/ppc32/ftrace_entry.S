/* ftrace_entry.S (ppc32) — the function tracer's entry points (Linux: arch/powerpc/kernel/
 * trace/ftrace_entry.S, ppc32 without DYNAMIC_FTRACE_WITH_REGS).
 *
 * `-pg` starts every function with `mflr r0; stw r0, 4(r1); bl _mcount`: at the `bl` r0 holds
 * the function's return address and the `bl` puts the way back into the function in LR.
 * _mcount (the sites' original target: ftrace_init makes them NOPs) returns through CTR with LR =
 * r0 again.  ftrace_caller, the enabled sites' target, saves the argument registers, calls
 * ftrace_trace_entry(site, &saved r0) and returns the same way, with LR = the saved r0, which
 * function_graph may have replaced with return_to_handler: a function's return goes through LR,
 * which it reads after the site (mflr) or keeps (a leaf's blr). */
#include "arch.h"

#define FRAME   64                      /* back chain, LR save, r0, r3-r10, LR in, padding */

    .text
    .global _mcount
_mcount:
    mflr    r12
    mtctr   r12
    mtlr    r0
    bctr

    .global ftrace_caller
ftrace_caller:
    stwu    r1, -FRAME(r1)
    stw     r0, 8(r1)                   /* the function's return address */
    stw     r3, 12(r1)
    stw     r4, 16(r1)
    stw     r5, 20(r1)
    stw     r6, 24(r1)
    stw     r7, 28(r1)
    stw     r8, 32(r1)
    stw     r9, 36(r1)
    stw     r10, 40(r1)
    mflr    r3
    stw     r3, 44(r1)                  /* the way back into the function */
    addi    r3, r3, -4                  /* the site */
    addi    r4, r1, 8
    bl      ftrace_trace_entry
    lwz     r12, 44(r1)
    mtctr   r12
    lwz     r0, 8(r1)
    mtlr    r0
    lwz     r3, 12(r1)
    lwz     r4, 16(r1)
    lwz     r5, 20(r1)
    lwz     r6, 24(r1)
    lwz     r7, 28(r1)
    lwz     r8, 32(r1)
    lwz     r9, 36(r1)
    lwz     r10, 40(r1)
    addi    r1, r1, FRAME
    bctr

    .global return_to_handler
return_to_handler:
    stwu    r1, -32(r1)
    stw     r3, 8(r1)                   /* the return value (r3, r4) */
    stw     r4, 12(r1)
    bl      ftrace_return_to_handler
    mtlr    r3
    lwz     r3, 8(r1)
    lwz     r4, 12(r1)
    addi    r1, r1, 32
    blr

    .section .note.GNU-stack, "", @progbits
