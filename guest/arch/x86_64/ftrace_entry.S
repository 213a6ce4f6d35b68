/* ftrace_entry.S (x86_64) — the function tracer's entry points (Linux: arch/x86/kernel/ftrace_64.S).
 *
 * __fentry__ is what `-pg -mfentry` calls; the sites never reach it once ftrace_init has made
 * them NOPs.  ftrace_caller is the trampoline an enabled site calls: it saves the argument
 * registers, calls ftrace_trace_entry(site, &return address of the traced function) and returns
 * into the function.  return_to_handler is where function_graph makes a hooked function return:
 * it asks ftrace_return_to_handler() for the real return address and jumps there, keeping the
 * return value registers. */

    .text
    .global __fentry__
__fentry__:
    ret

    .global ftrace_caller
ftrace_caller:
    /* [rsp] = the traced function after its site; [rsp + 8] = its return address.  RSP is
     * 16-byte aligned here (the function was entered with RSP = 8 mod 16). */
    pushq   %rax
    pushq   %rcx
    pushq   %rdx
    pushq   %rsi
    pushq   %rdi
    pushq   %r8
    pushq   %r9
    pushq   %r10
    pushq   %r11
    movq    72(%rsp), %rdi
    subq    $5, %rdi                    /* the call site */
    leaq    80(%rsp), %rsi              /* where the function's return address is */
    subq    $8, %rsp                    /* 16-byte alignment for the call */
    call    ftrace_trace_entry
    addq    $8, %rsp
    popq    %r11
    popq    %r10
    popq    %r9
    popq    %r8
    popq    %rdi
    popq    %rsi
    popq    %rdx
    popq    %rcx
    popq    %rax
    ret

    .global return_to_handler
return_to_handler:
    pushq   %rax                        /* the return value */
    pushq   %rdx
    call    ftrace_return_to_handler
    movq    %rax, %r11
    popq    %rdx
    popq    %rax
    jmp     *%r11

    .section .note.GNU-stack, "", @progbits
