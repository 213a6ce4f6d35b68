/* start.S (arm64) — boot and secondary entry: a stack, then C.
 * Entry state (docs/guest-abi.md): EL1h, MMU off, DAIF masked, x0 = DTB (boot CPU) or the
 * PSCI CPU_ON context id (secondaries), SP_EL1 = 0. */
#include "config.h"

    .section .text.boot, "ax"
    .global _start
_start:
    mov     x19, x0                     /* the DTB, across the .bss clear */
    adrp    x1, __stacks
    add     x1, x1, :lo12:__stacks
    add     sp, x1, #STACK_SIZE         /* logical cpu 0's stack */
    adrp    x1, __bss_start
    add     x1, x1, :lo12:__bss_start
    adrp    x2, __bss_end
    add     x2, x2, :lo12:__bss_end
1:  cmp     x1, x2                      /* both 64-byte aligned */
    b.hs    2f
    stp     xzr, xzr, [x1], #16
    b       1b
2:  mov     x0, x19
    bl      boot_cpu_start              /* does not return */

    .text
/* Secondaries: PSCI CPU_ON passes the logical id as the context id. */
    .global secondary_entry
secondary_entry:
    adrp    x1, __stacks
    add     x1, x1, :lo12:__stacks
    add     x2, x0, #1
    add     x1, x1, x2, lsl #STACK_SHIFT
    mov     sp, x1
    bl      secondary_start             /* does not return */

    .section .note.GNU-stack, "", %progbits
