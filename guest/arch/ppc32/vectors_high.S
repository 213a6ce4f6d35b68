/* vectors_high.S (ppc32) — exception vectors of the -high guests (kernel_map.h), at physical
 * 0x100..0x2f00 (MSR[IP] = 0) like vectors.S, which the identity-mapped guests keep unchanged.
 *
 * The CPU takes an exception in real mode (MSR[IR] = MSR[DR] = 0, PEM §6.2), but these guests'
 * stacks and handlers live at their virtual addresses.  As Linux's EXCEPTION_PROLOG
 * (head_book3s_32.S): each vector frees r3 into a scratch SPRG and branches with its offset to
 * exc_prolog, which picks the stack (the interrupted r1 from supervisor state; from problem
 * state the kernel stack enter_user left in user_ksp, as Linux takes the thread's kernel stack),
 * builds the struct trap_frame there through its physical address (tophys: virtual -
 * KERNELBASE), saves r1, r3, CR, SRR0 and SRR1 in it before anything can overwrite them, and
 * rfi's into exc_entry at its virtual address with translation on, r1 = the frame.  Three
 * instructions per vector: the 0xf00 and 0xf20 slots are 0x20 bytes. */
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
#define SPRN_SPRG_SCRATCH2  274         /* SPRG2: the interrupted CR */
/* The kernel stack for problem state: user.S's per-CPU user_ksp, reached through SPRG3 (the
 * per-CPU offset, percpu.h).  Weak: a guest without user.S never runs in problem state. */
    .weak   user_ksp
#define MSR_PR          0x4000

    .macro vector off
    .org    \off - VECTORS_BASE
    mtspr   SPRN_SPRG_SCRATCH0, r3
    li      r3, \off
    ba      exc_prolog
    .endm

    exception_vector_table

/* Real mode, r3 = the vector offset, SCRATCH0 = the interrupted r3.  r4 is borrowed through
 * SCRATCH1 and CR through SCRATCH2 (andi. sets CR0); all kernel stacks are lowmem. */
    .org    PROLOG_OFF - VECTORS_BASE
    .global exc_prolog
    .type   exc_prolog, @function
exc_prolog:
    mtspr   SPRN_SPRG_SCRATCH1, r4
    mfcr    r4
    mtspr   SPRN_SPRG_SCRATCH2, r4
    mfsrr1  r4
    andi.   r4, r4, MSR_PR
    mr      r4, r1                      /* supervisor state: the interrupted stack */
    beq     1f
    mfspr   r4, SPRN_SPRG3              /* problem state: the kernel's, this CPU's user_ksp */
    addis   r4, r4, (user_ksp - KERNELBASE)@ha
    lwz     r4, (user_ksp - KERNELBASE)@l(r4)
1:  addis   r4, r4, -KERNELBASE@h       /* tophys */
    addi    r4, r4, -EXC_FRAME_SIZE
    stw     r1, 0(r4)                   /* the ABI back chain */
    stw     r1, FR(TF_GPR(1))(r4)
    stw     r3, FR(TF_VECTOR)(r4)
    mfspr   r3, SPRN_SPRG_SCRATCH0
    stw     r3, FR(TF_GPR(3))(r4)
    mfspr   r3, SPRN_SPRG_SCRATCH2
    stw     r3, FR(TF_CR)(r4)
    mfsrr0  r3
    stw     r3, FR(TF_SRR0)(r4)
    mfsrr1  r3
    stw     r3, FR(TF_SRR1)(r4)
    addis   r1, r4, KERNELBASE@h        /* the frame, at its virtual address */
    mfspr   r4, SPRN_SPRG_SCRATCH1
    lis     r3, exc_entry@h
    ori     r3, r3, exc_entry@l
    mtsrr0  r3
    li      r3, MSR_KERNEL
    mtsrr1  r3
    rfi
    .size   exc_prolog, . - exc_prolog

    .text
/* Translation on, r1 = the frame, which holds the vector, r1, r3, CR, SRR0 and SRR1 already.
 * The rest as vectors.S's exc_entry. */
exc_entry:
    exc_save_r0
    exc_save_r2_r4_r31
    exc_save_lr_ctr_xer
    exc_save_dar_dsisr
    exc_dispatch_and_return

    .section .note.GNU-stack, "", @progbits
