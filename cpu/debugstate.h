/* debugstate.h — the state a debugger's run control keeps (cpu/debug.h has the design and
 * the functions): per CPU its step and stops, per cluster the breakpoints, watchpoints and the
 * debugger's callbacks.  Apart from cpu/debug.h so that cluster.h can hold it. */
#ifndef PMUSIM_DEBUGSTATE_H
#define PMUSIM_DEBUGSTATE_H

#include <unicorn/unicorn.h>

#include "base/common.h"

typedef struct Cpu Cpu;

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

#endif
