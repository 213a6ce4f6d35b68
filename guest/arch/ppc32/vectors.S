/* vectors.S (ppc32) — exception vectors at physical 0x100..0x2f00 (MSR[IP] = 0).
 *
 * Each vector allocates an ABI stack frame holding a struct trap_frame on the interrupted
 * stack (the guests only run in supervisor mode), frees r3 and branches to exc_entry with the
 * vector offset in r3.  Four instructions: the 0xf00 and 0xf20 slots are 0x20 bytes.
 * exc_entry saves the rest of the state, calls trap_dispatch() and returns with rfi through the
 * (possibly changed) SRR0/SRR1. */
#include "arch.h"

#define VECTORS_BASE    0x100           /* where the linker script puts .vectors */
#define FR(x)           (EXC_FRAME_HDR + (x))
#include "exc_frame.h"

    .macro vector off
    .org    \off - VECTORS_BASE
    stwu    r1, -EXC_FRAME_SIZE(r1)
    stw     r3, FR(TF_GPR(3))(r1)
    li      r3, \off
    ba      exc_entry
    .endm

    exception_vector_table

    .text
exc_entry:
    exc_save_r0
    exc_save_r1_above
    exc_save_r2_r4_r31
    stw     r3, FR(TF_VECTOR)(r1)
    exc_save_lr_ctr_xer
    mfcr    r0
    stw     r0, FR(TF_CR)(r1)
    mfsrr0  r0
    stw     r0, FR(TF_SRR0)(r1)
    mfsrr1  r0
    stw     r0, FR(TF_SRR1)(r1)
    exc_save_dar_dsisr
    exc_dispatch_and_return

    .section .note.GNU-stack, "", @progbits
