/* vectors.S (arm64) — the VBAR_EL1 table.
 *
 * Each of the 16 entries makes room for a struct trap_frame on SP_EL1 (every exception is
 * taken to EL1h: from EL1h the kernel's stack, from EL0 the stack the kernel left in SP_EL1
 * when it entered EL0), frees x0 to carry the entry's index and joins el1_trap, which saves
 * the rest of the state, calls trap_dispatch() and returns with the (possibly changed) ELR,
 * SPSR and, when it came from EL0 or EL1t, SP_EL0.  The interrupted SP saved in the frame is
 * SP_EL0 for those (Arm ARM DDI 0487, "Stack pointer register selection"). */
#include "arch.h"

    .macro ventry kind
    .balign 0x80
    sub     sp, sp, #S_FRAME_SIZE
    stp     x0, x1, [sp, #S_X(0)]
    mov     x0, #\kind
    b       el1_trap
    .endm

    .text
    .balign 0x800
    .global vectors
vectors:
    .irp kind, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
    ventry  \kind
    .endr

el1_trap:
    stp     x2, x3, [sp, #S_X(2)]
    stp     x4, x5, [sp, #S_X(4)]
    stp     x6, x7, [sp, #S_X(6)]
    stp     x8, x9, [sp, #S_X(8)]
    stp     x10, x11, [sp, #S_X(10)]
    stp     x12, x13, [sp, #S_X(12)]
    stp     x14, x15, [sp, #S_X(14)]
    stp     x16, x17, [sp, #S_X(16)]
    stp     x18, x19, [sp, #S_X(18)]
    stp     x20, x21, [sp, #S_X(20)]
    stp     x22, x23, [sp, #S_X(22)]
    stp     x24, x25, [sp, #S_X(24)]
    stp     x26, x27, [sp, #S_X(26)]
    stp     x28, x29, [sp, #S_X(28)]
    add     x1, sp, #S_FRAME_SIZE       /* the interrupted SP: from EL1h, below the frame */
    lsr     x2, x0, #2
    cmp     x2, #KIND_CUR_SPX
    b.eq    1f
    mrs     x1, sp_el0                  /* from EL0 or EL1t: SP_EL0 */
1:  stp     x30, x1, [sp, #S_X(30)]
    mrs     x1, elr_el1
    mrs     x2, spsr_el1
    stp     x1, x2, [sp, #S_ELR]
    mrs     x1, esr_el1
    mrs     x2, far_el1
    stp     x1, x2, [sp, #S_ESR]
    str     x0, [sp, #S_KIND]
    mov     x0, sp
    bl      trap_dispatch
    ldp     x1, x2, [sp, #S_ELR]
    msr     elr_el1, x1
    msr     spsr_el1, x2
    ldr     x1, [sp, #S_KIND]
    lsr     x1, x1, #2
    cmp     x1, #KIND_CUR_SPX
    b.eq    2f
    ldr     x1, [sp, #S_SP]
    msr     sp_el0, x1
2:
    ldp     x0, x1, [sp, #S_X(0)]
    ldp     x2, x3, [sp, #S_X(2)]
    ldp     x4, x5, [sp, #S_X(4)]
    ldp     x6, x7, [sp, #S_X(6)]
    ldp     x8, x9, [sp, #S_X(8)]
    ldp     x10, x11, [sp, #S_X(10)]
    ldp     x12, x13, [sp, #S_X(12)]
    ldp     x14, x15, [sp, #S_X(14)]
    ldp     x16, x17, [sp, #S_X(16)]
    ldp     x18, x19, [sp, #S_X(18)]
    ldp     x20, x21, [sp, #S_X(20)]
    ldp     x22, x23, [sp, #S_X(22)]
    ldp     x24, x25, [sp, #S_X(24)]
    ldp     x26, x27, [sp, #S_X(26)]
    ldp     x28, x29, [sp, #S_X(28)]
    ldr     x30, [sp, #S_X(30)]
    add     sp, sp, #S_FRAME_SIZE
    eret

    .section .note.GNU-stack, "", %progbits
