/* callchain.h — the guest's call chain at a PMU sample, from its frame pointers.
 *
 * `pmusim run --samples` records with every sample the return addresses of the functions the
 * sampled one was called from, innermost first, as Linux's perf_callchain_kernel/_user do with
 * frame pointers (docs/profiling.md, "Call chains"):
 *   x86_64  the rbp chain: [rbp] the caller's rbp, [rbp + 8] the return address
 *           (arch/x86/events/core.c perf_callchain_user, struct stack_frame); [rsp] for a
 *           function sampled without a frame of its own (in its prologue or epilogue, or built
 *           without one), when a direct call of it precedes that address;
 *   arm64   AAPCS64 frame records: x29 -> {x29', x30'} (arch/arm64/kernel/stacktrace.c,
 *           perf_callchain.c user_backtrace); the LR is the first caller while the sampled
 *           function has not stored it yet;
 *   ppc32   the SysV back chain: r1 -> the caller's r1, the LR save word at 4(back chain)
 *           (arch/powerpc/perf/callchain_32.c); the LR for a leaf that has not stored it.
 * The walk reads guest memory through an accessor without side effects, never more than
 * CALLCHAIN_DEPTH frames, and stops at a frame pointer that is zero, misaligned, unreadable or
 * not above the previous one (stacks grow down, toward lower addresses), so a corrupt stack
 * ends the chain early and never loops.
 */
#ifndef PMUSIM_CALLCHAIN_H
#define PMUSIM_CALLCHAIN_H

#include "base/common.h"

typedef struct Cpu Cpu;
typedef struct Image Image;

/* What the walk sees of the interrupted context. */
typedef struct ChainRegs {
    Arch arch;
    uint64_t pc;                    /* the sampled instruction */
    uint64_t fp;                    /* rbp, x29, r1 */
    uint64_t lr;                    /* x30, LR (unused on x86_64) */
    uint64_t sp;                    /* x86_64: rsp (a frameless function's return address) */
} ChainRegs;

typedef struct ChainEnv {
    /* A word of `size` bytes (4 or 8, aligned; or 1) at virtual va in the guest's byte order;
     * false if it cannot be read (unmapped, not RAM).  Must have no side effects on the guest. */
    bool (*read)(void *ctx, uint64_t va, unsigned size, uint64_t *v);
    /* The start of the function containing addr (the image's symbols); false if unknown. */
    bool (*func)(void *ctx, uint64_t addr, uint64_t *start);
    void *ctx;
} ChainEnv;

/* The return addresses above r->pc (the sampled function's caller first) into out[0..max);
 * their count. */
size_t callchain_walk(const ChainRegs *r, const ChainEnv *env, uint64_t *out, size_t max);
/* The same for CPU c now, sampled at pc: its registers, its memory through its MMU at its
 * current privilege (vcpu_data_pa, no accessed bits, no diags), im's function symbols (NULL:
 * none). */
size_t callchain_of_cpu(Cpu *c, uint64_t pc, const Image *im, uint64_t *out, size_t max);

#endif
