/* vectors_high.S (ppc32) — exception vectors of the -high guests (kernel_map.h), at physical
 * 0x100..0x2f00 (MSR[IP] = 0) like vectors.S, which the identity-mapped guests keep unchanged.
 *
 * The CPU takes an exception in real mode (MSR[IR] = MSR[DR] = 0, PEM §6.2), but these guests'
 * stacks and handlers live at their virtual addresses.  As Linux's EXCEPTION_PROLOG
 * (head_book3s_32.S): each vector frees r3 into a scratch SPRG and branches with its offset to
 * exc_prolog, which builds the struct trap_frame below the interrupted r1 through the frame's
 * physical address (tophys: virtual - KERNELBASE), saves SRR0 and SRR1 there before anything
 * can overwrite them, and rfi's into exc_entry at its virtual address with translation on.
 * Three instructions per vector: the 0xf00 and 0xf20 slots are 0x20 bytes.  As the identity
 * build does, the frame goes on the interrupted stack, which for problem state (oprofile's user
 * program) is the user stack at its user address (kernel_map.h's user map; the kernel reaches it
 * too). */
#include "arch.h"
#include "kernel_map.h"

#define VECTORS_BASE    0x100           /* where the linker script puts .vectors */
#define PROLOG_OFF      0x3000          /* exc_prolog, after the last vector */
#define FR(x)           (EXC_FRAME_HDR + (x))
#include "exc_frame.h"
#define SPRN_SPRG_SCRATCH0  272         /* SPRG0, SPRG1: Linux's scratch registers (asm/reg.h) */
#define SPRN_SPRG_SCRATCH1  273
#define MSR_IR          0x20
#define MSR_DR          0x10
#define MSR_KERNEL      (MSR_ME | MSR_IR | MSR_DR)
/* A user stack's physical address is r1 - (USER_BASE - USER_PBASE), a kernel one's
 * r1 - KERNELBASE: the difference, in 64 KiB units, is added for the user stack without a
 * compare (CR is the interrupted context's).  By r1, not MSR[PR]: the kernel handles a user
 * program's system calls on its stack, as the identity build does, and may be interrupted there. */
#define USER_TOPHYS_HI  ((((USER_BASE - USER_PBASE) - KERNELBASE) >> 16) & 0xffff)
#if ((USER_BASE - USER_PBASE) & 0xffff) || USER_TOPHYS_HI >= 0x8000
#error "USER_BASE - USER_PBASE must be a multiple of 64 KiB that mulli can scale"
#endif

    .macro vector off
    .org    \off - VECTORS_BASE
    mtspr   SPRN_SPRG_SCRATCH0, r3
    li      r3, \off
    ba      exc_prolog
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

/* Real mode, r3 = the vector offset, SCRATCH0 = the interrupted r3; r1 below KERNELBASE is
 * the user stack (kernel_map.h).  r4 is borrowed through
 * SCRATCH1; r1 and CR are untouched (exc_entry pushes the frame at its virtual address). */
    .org    PROLOG_OFF - VECTORS_BASE
    .global exc_prolog
    .type   exc_prolog, @function
exc_prolog:
    mtspr   SPRN_SPRG_SCRATCH1, r4
    rlwinm  r4, r1, 1, 31, 31           /* 1 for a kernel stack (at or above 2 GiB) */
    xori    r4, r4, 1                   /* 1 for the user stack */
    mulli   r4, r4, USER_TOPHYS_HI
    slwi    r4, r4, 16
    subf    r4, r4, r1
    addis   r4, r4, -KERNELBASE@h       /* tophys */
    addi    r4, r4, -EXC_FRAME_SIZE
    stw     r3, FR(TF_VECTOR)(r4)
    mfspr   r3, SPRN_SPRG_SCRATCH0
    stw     r3, FR(TF_GPR(3))(r4)
    mfsrr0  r3
    stw     r3, FR(TF_SRR0)(r4)
    mfsrr1  r3
    stw     r3, FR(TF_SRR1)(r4)
    mfspr   r4, SPRN_SPRG_SCRATCH1
    lis     r3, exc_entry@h
    ori     r3, r3, exc_entry@l
    mtsrr0  r3
    li      r3, MSR_KERNEL
    mtsrr1  r3
    rfi
    .size   exc_prolog, . - exc_prolog

    .text
/* Translation on; the frame holds the vector, r3, SRR0 and SRR1 already.  The rest as
 * vectors.S's exc_entry. */
exc_entry:
    stwu    r1, -EXC_FRAME_SIZE(r1)
    exc_save_gprs
    exc_save_lr_ctr_xer_cr
    exc_save_dar_dsisr
    exc_dispatch_and_return

    .section .note.GNU-stack, "", @progbits
