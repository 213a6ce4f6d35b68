/* exc_frame.h (ppc32) — the parts of exc_entry that vectors.S (identity-mapped guests) and
 * vectors_high.S (the -high guests, whose real-mode prolog saves the vector, r3, SRR0 and SRR1
 * first) share, as assembler macros over the struct trap_frame at r1 + EXC_FRAME_HDR.
 * Include after arch.h, with FR(x) defined. */
#ifndef GUEST_PPC32_EXC_FRAME_H
#define GUEST_PPC32_EXC_FRAME_H

/* r0; r1 as it was before the frame (identity: the frame is EXC_FRAME_SIZE below it); r2 and
 * r4..r31 */
    .macro exc_save_r0
    stw     r0, FR(TF_GPR(0))(r1)
    .endm

    .macro exc_save_r1_above
    addi    r0, r1, EXC_FRAME_SIZE      /* the interrupted r1 */
    stw     r0, FR(TF_GPR(1))(r1)
    .endm

    .macro exc_save_r2_r4_r31
    stw     r2, FR(TF_GPR(2))(r1)
    stmw    r4, FR(TF_GPR(4))(r1)       /* r4..r31 */
    .endm

    .macro exc_save_lr_ctr_xer
    mflr    r0
    stw     r0, FR(TF_LR)(r1)
    mfctr   r0
    stw     r0, FR(TF_CTR)(r1)
    mfxer   r0
    stw     r0, FR(TF_XER)(r1)
    .endm

    .macro exc_save_dar_dsisr
    mfdar   r0
    stw     r0, FR(TF_DAR)(r1)
    mfdsisr r0
    stw     r0, FR(TF_DSISR)(r1)
    .endm

/* trap_dispatch(frame), then the (possibly changed) frame back and rfi through SRR0/SRR1 */
    .macro exc_dispatch_and_return
    addi    r3, r1, EXC_FRAME_HDR
    bl      trap_dispatch
    lwz     r0, FR(TF_SRR0)(r1)
    mtsrr0  r0
    lwz     r0, FR(TF_SRR1)(r1)
    mtsrr1  r0
    lwz     r0, FR(TF_LR)(r1)
    mtlr    r0
    lwz     r0, FR(TF_CTR)(r1)
    mtctr   r0
    lwz     r0, FR(TF_XER)(r1)
    mtxer   r0
    lwz     r0, FR(TF_CR)(r1)
    mtcr    r0
    lmw     r4, FR(TF_GPR(4))(r1)
    lwz     r2, FR(TF_GPR(2))(r1)
    lwz     r3, FR(TF_GPR(3))(r1)
    lwz     r0, FR(TF_GPR(0))(r1)
    lwz     r1, FR(TF_GPR(1))(r1)
    rfi
    .endm

/* The vector table at 0x100..0x2f00 (MSR[IP] = 0), in .vectors: one `vector off` each, the
 * includer's own macro (identity: the frame on the interrupted stack; -high: the real-mode
 * prolog). */
    .macro exception_vector_table
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
    .endm

#endif
