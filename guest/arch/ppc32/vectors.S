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

    .section .vectors, "ax"
    .global exception_vectors
    .type   exception_vectors, @function
exception_vectors:                      /* a name for profiles and traces */
    .irp off, 0x100, 0x200, 0x300, 0x400, 0x500, 0x600, 0x700, 0x800, 0x900, 0xa00, \
              0xb00, 0xc00, 0xd00, 0xe00, 0xf00, 0xf20, 0x1000, 0x1100, 0x1200, 0x1300, \
              0x1400, 0x1500, 0x1600, 0x1700, 0x1800, 0x1900, 0x1a00, 0x1b00, 0x1c00, \
              0x1d00, 0x1e00, 0x1f00, 0x2000, 0x2100, 0x2200, 0x2300, 0x2400, 0x2500, \
              0x2600, 0x2700, 0x2800, 0x2900, 0x2a00, 0x2b00, 0x2c00, 0x2d00, 0x2e00, 0x2f00
    vector  \off
    .endr
    .size   exception_vectors, . - exception_vectors

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
