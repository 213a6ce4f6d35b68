/* user.S (ppc32) — into problem state, and the system call stub user code calls.
 *
 * enter_user(entry, arg, sp): rfi to entry with r3 = arg, r1 = sp and MSR = PR|EE|ME (PMM = 0)
 * and the kernel's IR and DR: off in the identity-mapped guests, on in the -high ones, whose user
 * program lives at its user address (kernel_map.h).  Does not return; user code comes back only
 * through sc.  The per-CPU user_ksp keeps the kernel's r1 (Linux's thread ksp): the -high
 * guests' exceptions from problem state run on it (vectors_high.S); the identity-mapped ones
 * stay on the interrupted stack (vectors.S).
 *
 * syscall(nr, a, b): r0 = nr, r3..r4 = arguments, sc; the result is in r3 (Linux's ppc32 ABI,
 * without the CR0[SO] error flag).  It lives in .user.text: user code calls it. */
#include "arch.h"

#define MSR_USER    (0x4000 | 0x8000 | MSR_ME)      /* PR | EE | ME */

    .text
    .global enter_user
enter_user:
    mfspr   r6, SPRN_SPRG3              /* this CPU's per-CPU offset (percpu.h) */
    addis   r6, r6, user_ksp@ha
    stw     r1, user_ksp@l(r6)
    mtsrr0  r3
    mfmsr   r0
    rlwinm  r0, r0, 0, 26, 27           /* IR and DR as the kernel runs: on in the -high guests */
    ori     r0, r0, MSR_USER
    mtsrr1  r0
    mr      r3, r4
    mr      r1, r5
    li      r0, 0
    stwu    r0, -16(r1)                 /* terminate the user back chain ... */
    mtlr    r0                          /* ... and the return address user_main saves (glibc's
                                         * _start does both: sysdeps/powerpc/powerpc32/start.S) */
    rfi

    .section .data.percpu, "aw"
    .global user_ksp
    .balign 4
user_ksp:
    .long   0

    .section .user.text, "ax"
    .global syscall
syscall:
    mr      r0, r3
    mr      r3, r4
    mr      r4, r5
    sc
    blr

    .section .note.GNU-stack, "", @progbits
