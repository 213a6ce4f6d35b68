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

#endif
