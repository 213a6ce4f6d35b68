/* debug.h — run control for a debugger (the GDB stub, sim/gdbstub.c): breakpoints, watchpoints,
 * exact single-step, with the machine paused between two instructions of a CPU.
 *
 * Nothing here changes what the guest does: a run with stops is the run without them
 * (docs/debugging.md, tests/e2e/test_gdb.sh).  How each is done, so that "no debugger" and
 * "a debugger with nothing set" cost nothing on the block fast path:
 *   breakpoint  (gdb Z0 and Z1 alike) a trap site of kind TRAP_KIND_DEBUG at the virtual PC
 *               (cpu.c: the block decoder asks vcpu_debug_break_at), so the CPU stops before
 *               the instruction with its counts exact; guest memory is never written.
 *   step        a hard instruction limit at insns + 1 (CpuDebug.until), the core's exact cut.
 *   watchpoint  (Z2 write, Z3 read, Z4 access) engine memory hooks over the watched ranges and,
 *               while any exists, a code hook on every instruction that stops before the
 *               instruction after the access: the access has retired.  Stores to code pages
 *               come through the code-write chokepoint too (they are performed by pmusim).
 * Every stop ends the engine run (STOP_PRECISE) and vcpu_run calls ClusterDebug.stopped
 * between runs, where the debugger may look at and change anything, then resumes.
 */
#ifndef PMUSIM_DEBUG_H
#define PMUSIM_DEBUG_H

#include <unicorn/unicorn.h>

#include "base/common.h"

typedef struct Cpu Cpu;
typedef struct Cluster Cluster;

#define TRAP_KIND_DEBUG 0x8001      /* a breakpoint's trap site (core-owned, as TRAP_KIND_ICACHE) */
#define DEBUG_MAX_WATCH 16
#define DEBUG_MAX_BREAK 256

typedef enum DebugStopKind {
    DBG_NONE,
    DBG_START,                      /* before the first instruction (--gdb-wait), or attached */
    DBG_STEP,                       /* one instruction retired */
    DBG_BREAK,                      /* before the instruction at a breakpoint */
    DBG_WATCH,                      /* after an instruction that made a watched access */
    DBG_INTERRUPT,                  /* the client's Ctrl-C (at a quantum boundary) */
} DebugStopKind;

/* gdb's Z types 2, 3, 4 */
typedef enum WatchKind { WATCH_WRITE = 2, WATCH_READ = 3, WATCH_ACCESS = 4 } WatchKind;

typedef struct DebugWatchpoint {
    uint64_t addr, len;
    WatchKind kind;
} DebugWatchpoint;

/* Why a CPU stopped. */
typedef struct DebugStop {
    DebugStopKind kind;
    WatchKind wkind;                /* DBG_WATCH: the watchpoint's kind ... */
    uint64_t addr;                  /* ... and the watched address that was accessed */
} DebugStop;

/* Per CPU. */
typedef struct CpuDebug {
    uint64_t until;                 /* stop once insns reaches it (a step); UINT64_MAX: none */
    DebugStop stop;                 /* a stop to report between runs (kind DBG_NONE: none) */
    DebugStop hit;                  /* a watched access by the instruction being executed */
    bool resume;                    /* resuming at a breakpoint: pass it once, at ... */
    uint64_t resume_pc, resume_insns;   /* ... this PC with this many retired */
    uc_hook hooks[3];               /* while watchpoints exist: read, write and code hooks */
    bool hooked;
} CpuDebug;

/* Per cluster: what is set, and the debugger's callbacks (NULL: none attached). */
typedef struct ClusterDebug {
    uint64_t breaks[DEBUG_MAX_BREAK];
    unsigned nbreaks;
    DebugWatchpoint watches[DEBUG_MAX_WATCH];
    unsigned nwatches;
    bool listening;                 /* the code-write listener is in place (stores to code) */
    void *opaque;
    /* CPU c stopped (c->dbg.stop says why): called between engine runs of c; returns when the
     * debugger resumes. */
    void (*stopped)(void *opaque, Cpu *c);
    /* At each quantum boundary (the machine calls it): look for a client's Ctrl-C or connection. */
    void (*poll)(void *opaque);
} ClusterDebug;

/* Breakpoints and watchpoints, for every CPU (false: the table is full, or not set). */
bool vcpu_debug_break(Cluster *cl, uint64_t pc, bool set);
bool vcpu_debug_watch(Cluster *cl, WatchKind kind, uint64_t addr, uint64_t len, bool set);
void vcpu_debug_clear(Cluster *cl);
/* Is there a breakpoint at pc? (the block decoder, the trap hook) */
bool vcpu_debug_break_at(const Cluster *cl, uint64_t pc);
/* Resume c: one more instruction then stop (step), or run on; a breakpoint at the current PC is
 * passed once. */
void vcpu_debug_resume(Cpu *c, bool step);
/* Report and clear c's pending stop (vcpu_run, between engine runs). */
void vcpu_debug_report(Cpu *c);
/* A code write the chokepoint recorded (codewatch listener): a watched store to code. */
void vcpu_debug_code_write(Cpu *c, uint64_t pa, uint64_t va, unsigned size);

/* --- the core's side (cpu.c) --- */
/* From the trap hook, counts exact up to pc: is there a breakpoint to stop at (c->dbg.stop set)? */
bool vcpu_debug_break_hit(Cpu *c, uint64_t pc);
/* From a code hook: end the engine run before the instruction at pc, which does not retire. */
void vcpu_stop_before(Cpu *c, uint64_t pc);

#endif
