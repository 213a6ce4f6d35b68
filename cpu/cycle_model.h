/* cycle_model.h — per-CPU-model instruction costs, keyed on instruction class.
 *
 * Every instruction gets a cost in core cycles from a table chosen by the CPU model, indexed by
 * its class.  Classes are assigned once per translated block from a Capstone decode
 * (insn_classify), so the hot path only adds a precomputed per-block sum.  The model is a
 * latency-weighted issue model — each instruction costs its documented latency/occupancy
 * class, no pipelining, caches or branch prediction — chosen because it is deterministic,
 * cheap, and documented: docs/cycle-model.md gives every number and its source.
 */
#ifndef PMUSIM_CYCLE_MODEL_H
#define PMUSIM_CYCLE_MODEL_H

#include <capstone/capstone.h>

#include "base/common.h"

typedef enum InsnClass {
    IC_NOP,         /* nop, hint, prefetch hints */
    IC_ALU,         /* integer add/logic/shift/move/compare, address generation */
    IC_MUL,         /* integer multiply */
    IC_DIV,         /* integer divide */
    IC_LOAD,        /* load from memory (incl. x86 ALU op with a memory source, pop) */
    IC_STORE,       /* store to memory (incl. push) */
    IC_RMW,         /* x86 read-modify-write of memory (add [m], r; inc [m]) */
    IC_BRANCH,      /* direct branch, conditional or not */
    IC_BRANCH_IND,  /* indirect branch (through a register or memory) */
    IC_CALL,        /* call / branch-and-link */
    IC_RET,         /* return */
    IC_FP,          /* floating point arithmetic and moves */
    IC_FP_DIV,      /* floating point divide / square root */
    IC_SIMD,        /* vector integer/FP (SSE, NEON, AltiVec) */
    IC_ATOMIC,      /* locked / exclusive / reserved memory operations */
    IC_BARRIER,     /* memory and instruction barriers (mfence, dmb/dsb/isb, sync/isync/eieio) */
    IC_CACHE,       /* cache maintenance (clflush, dc/ic, dcbst/icbi/dcbz) */
    IC_SYSTEM,      /* system/special register access, privileged and serialising ops */
    IC_TRAP,        /* instructions that take an exception on purpose (int, svc, hvc, sc, brk, ud2) */
    IC_STRING,      /* x86 string op, per executed iteration (rep movs/stos/...) */
    IC_COUNT
} InsnClass;

typedef struct CycleTable {
    const char *name;               /* "x86-64-generic", "cortex-a57", "mpc7450", ... */
    const char *source;             /* where the numbers come from (short citation) */
    uint8_t cost[IC_COUNT];         /* cycles per instruction of the class, each >= 1 */
} CycleTable;

/* The table for a CPU model name (as in --cpu-model), NULL if unknown. */
const CycleTable *cycle_table_find(const char *model);
const char *insn_class_name(InsnClass c);

/* Class of one decoded instruction.  `insn` must come from a Capstone handle opened for `arch`
 * (x86: CS_MODE_64; arm64: CS_MODE_ARM; ppc32: CS_MODE_32|CS_MODE_BIG_ENDIAN) with
 * CS_OPT_DETAIL on. */
InsnClass insn_classify(Arch arch, const cs_insn *insn);

/* The control transfer an instruction makes, for branch events and the predictor. */
typedef enum BranchKind {
    BR_NONE,
    BR_COND,        /* conditional direct branch (jcc, b.cond/cbz/tbz, bc) */
    BR_JUMP,        /* unconditional direct branch */
    BR_CALL,        /* direct call / branch-and-link */
    BR_IND,         /* indirect jump */
    BR_IND_CALL,    /* indirect call */
    BR_RET,         /* return (also conditional returns: bclr) */
    BR_FAR,         /* far transfer: iret/eret/rfi, int n, syscall, sysret */
} BranchKind;

BranchKind insn_branch_kind(Arch arch, const cs_insn *insn);

/* The deterministic branch predictor behind the branch-miss events (docs/cycle-model.md):
 * conditional branches: a 1024-entry table of 2-bit saturating counters indexed by the
 * branch address, starting weakly not-taken; indirect jumps and calls: a 256-entry
 * direct-mapped target buffer (predicts the last target); returns: a 16-entry return stack
 * pushed by calls; direct unconditional branches, calls and far transfers always hit. */
#define BP_PHT 1024
#define BP_BTB 256
#define BP_RAS 16

typedef struct BranchPredictor {
    uint8_t pht[BP_PHT];
    uint64_t btb[BP_BTB];
    uint64_t ras[BP_RAS];
    uint32_t ras_top, ras_n;
} BranchPredictor;

void bp_init(BranchPredictor *bp);
/* The branch at pc (fall-through address next) went to target: update the predictor; true if
 * it had been mispredicted. */
bool bp_resolve(BranchPredictor *bp, BranchKind k, uint64_t pc, uint64_t next, uint64_t target);

#endif
