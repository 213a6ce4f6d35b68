/* ftrace_entry.S (arm64) — the function tracer's entry points (Linux: arch/arm64/kernel/
 * entry-ftrace.S, DYNAMIC_FTRACE_WITH_ARGS).
 *
 * `-fpatchable-function-entry=2` gives every function two NOPs at its entry.  ftrace_init makes
 * the first `mov x9, x30` (the function's return address, kept in x9); enabling makes the second
 * `bl ftrace_caller`, so ftrace_caller runs with x30 = the function after the site and x9 = the
 * function's return address.  It saves the argument registers, calls ftrace_trace_entry(site,
 * &saved x9) and returns into the function with x30 = the saved x9, which function_graph may
 * have replaced with return_to_handler.  x9 and x10 are temporaries nobody expects kept at a
 * function's entry. */

#define FRAME   96                      /* x0-x8, x9 (the function's LR), x30, padding */

    .text
    .global ftrace_caller
    .type   ftrace_caller, %function
ftrace_caller:
    sub     sp, sp, #FRAME
    stp     x0, x1, [sp, #0]
    stp     x2, x3, [sp, #16]
    stp     x4, x5, [sp, #32]
    stp     x6, x7, [sp, #48]
    stp     x8, x9, [sp, #64]           /* x9 at sp + 72 */
    str     x30, [sp, #80]
    sub     x0, x30, #8                 /* the site: the first of the two instructions */
    add     x1, sp, #72
    bl      ftrace_trace_entry
    ldp     x0, x1, [sp, #0]
    ldp     x2, x3, [sp, #16]
    ldp     x4, x5, [sp, #32]
    ldp     x6, x7, [sp, #48]
    ldp     x8, x30, [sp, #64]          /* the function's LR, maybe return_to_handler */
    ldr     x9, [sp, #80]
    add     sp, sp, #FRAME
    ret     x9
    .size   ftrace_caller, . - ftrace_caller

    .global return_to_handler
    .type   return_to_handler, %function
return_to_handler:
    sub     sp, sp, #80                 /* the return value registers x0-x7, x8 */
    stp     x0, x1, [sp, #0]
    stp     x2, x3, [sp, #16]
    stp     x4, x5, [sp, #32]
    stp     x6, x7, [sp, #48]
    str     x8, [sp, #64]
    bl      ftrace_return_to_handler
    mov     x30, x0
    ldp     x0, x1, [sp, #0]
    ldp     x2, x3, [sp, #16]
    ldp     x4, x5, [sp, #32]
    ldp     x6, x7, [sp, #48]
    ldr     x8, [sp, #64]
    add     sp, sp, #80
    ret
    .size   return_to_handler, . - return_to_handler

    .section .note.GNU-stack, "", @progbits
