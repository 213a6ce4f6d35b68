/* timetravel.h — going back in a run: snapshots, in-place restore, exact re-execution.
 *
 * What a debugger's reverse execution needs (rr's and QEMU record/replay's model: checkpoints
 * and deterministic re-execution), independent of any debugger: the gdb stub calls it for
 * reverse-stepi, reverse-continue and reverse-finish.  pmusim is deterministic (nothing in a run
 * depends on the host), so a run needs no recording: going back is restoring a snapshot taken
 * earlier and executing forward again to the point wanted.
 *
 * Positions.  A position is (CPU, retired instructions N, exceptions taken E): the first point
 * between two of that CPU's instructions with N instructions retired and at least E exception
 * entries (Cpu.exc.serialized) behind it (inside a block, at once; where a run stops anyway,
 * after its due events and interrupts: cpu.h CpuPause).  That is where a debugger stops: a breakpoint or a step leaves the CPU before the
 * instruction at its PC.  E tells apart the stops at one count that an exception entry
 * separates (before an interrupt is taken, and at the handler's first instruction); E = 0 means
 * the first stop at count N.  Counts only grow, so (N, E) orders a CPU's positions; the machine
 * (the other CPUs) is wherever the deterministic schedule has it at that point: the round in
 * progress is part of the state (Machine.round).  The run stops exactly there through the
 * core's exact instruction-count stop (vcpu_pause_at, a cut: cpu.h), and going on from there is
 * the execution that never stopped.
 *
 * Snapshots.  The whole machine state as sim/checkpoint.c writes it (the same bytes as a
 * --save-at file, CRC included), plus what the file does not hold because a file is only ever
 * taken between rounds: the round in progress and which CPU is paused in it, and the number of
 * trace events emitted.  Taken automatically at the end of a round that crosses a multiple of
 * TT_SNAPSHOT_INTERVAL cycles (a fixed grid of machine time, so going back and forward again
 * finds the same points: a snapshot already held is not taken twice), at the start, and on
 * request (tt_snapshot, also in the middle of a round at a pause).  At most TT_MAX_SNAPSHOTS
 * are kept: when full, every other one of the older half goes (the first, the start of
 * history, always stays), so the history thins out towards the past.  Guest RAM is kept apart
 * from the rest of the bytes, page by page: an all-zero page is not held at all, and a page
 * with the same bytes as in the snapshot before it (in run order) is shared with it.
 *
 * Restore in place.  The checkpoint loads assume a machine just created; tt_restore makes the
 * running machine one: every event queue emptied (the owners put back the events they saved),
 * the code ranges emptied, the end of the run undone, each CPU's derived state dropped
 * (decoded blocks, trap sites, the engine's translations and TLB: vcpu_forget_all); then the
 * snapshot loads, and each CPU's decode mode follows its restored registers.  Pages marked as
 * code since the snapshot stay write-protected: a store to them goes through the code-write
 * chokepoint, which records only stores to the (restored) code ranges, so nothing the run shows
 * changes.
 *
 * Outputs.  What the run wrote stays written, once: a restore remembers the furthest point
 * reached in the console (bytes) and in the trace (events) and re-executing below it writes
 * nothing (machine.h Console.mute_below, trace.h Trace.mute_below).  The console and --trace
 * (every sink) therefore hold exactly what a run that went forward once to the furthest point,
 * and then on, would hold.  State that is written at the end (--samples, --guest-trace, --stats,
 * the patch validator's summary) is part of the snapshots and is that of the point where the
 * run ends.
 *
 * Reverse execution (the gdb stub's commands):
 *   tt_reverse_stepi     back to the CPU's previous stop: the last position with one
 *                        instruction fewer (after the exception entries there were);
 *   tt_reverse_continue  back to the last breakpoint hit before the current point: the caller's
 *                        breakpoints stay active while the snapshots' intervals are re-executed
 *                        (latest first); a breakpoint that fires while tt_scanning() is true
 *                        reports its position with tt_hit() and lets the run go on;
 *   reverse-finish       is tt_reverse_continue with the caller's breakpoint at the call site.
 */
#ifndef PMUSIM_TIMETRAVEL_H
#define PMUSIM_TIMETRAVEL_H

#include "base/state.h"
#include "sim/machine.h"

/* A CPU's position (above). */
typedef struct TtPos {
    int cpu;
    uint64_t insns, entries;
} TtPos;

/* A point of the machine's run: a round boundary (open false: machine time `now`), or a round in
 * progress at time `now` with CPU `pos.cpu` paused at pos; `end`: the run has ended.  Points
 * are ordered (tt_where_cmp). */
typedef struct TtWhere {
    bool end;
    uint64_t now;
    bool open;
    TtPos pos;
} TtWhere;

/* A page of guest RAM in snapshots, shared by the snapshots that hold the same bytes there. */
typedef struct TtPage {
    uint32_t refs;
    uint8_t bytes[GUEST_PAGE];
} TtPage;

/* A snapshot's non-zero page: its number counting through the RAM blocks in order. */
typedef struct TtPageRef {
    uint64_t index;
    TtPage *page;
} TtPageRef;

typedef struct TtSnap {
    TtWhere where;
    uint64_t counts[MAX_CPUS][2];   /* each CPU's insns and entries: orders it against positions */
    uint64_t trace_count;
    RoundProgress round;
    bool keep_stop;                 /* the paused CPU's stop request kept (CpuPause) */
    int exit_status, exit_cpu;      /* at the end of the run */
    const char *exit_reason;
    /* sim/checkpoint.h's bytes, with the RAM pages apart: the bytes before the memory section's
     * payload, its non-zero pages (sorted by index), the bytes after it */
    Blob head, tail;
    TtPageRef *pages;
    uint64_t npages;
} TtSnap;

/* What a tt_* move did. */
typedef enum TtResult {
    TT_REACHED,         /* at the position asked for */
    TT_PASSED,          /* the CPU went past it without stopping there: no such position */
    TT_ENDED,           /* the run ended before it */
    TT_NO_HISTORY,      /* nothing before: at the start of history (the first snapshot) */
    TT_ERROR,           /* a snapshot did not load (a bug: the message is on stderr) */
} TtResult;

typedef struct TimeTravel {
    Machine *m;
    TtSnap *snaps;                  /* in the order of the run */
    int n;
    uint64_t interval;              /* cycles between automatic snapshots (at least) */
    /* Paced automatic snapshots (tt_pace: a debugger's run): one only when the host time the run
     * took since the last is TT_SNAPSHOT_PACE times what that snapshot cost, so that they take a
     * bounded share of the run whatever its RAM and speed.  Where the snapshots fall changes no
     * state and no output of the run: only how far a step back re-executes. */
    bool paced;
    uint64_t paced_at_ns, paced_cost_ns;   /* host time after the last snapshot, and its cost */
    int max;                        /* snapshots kept */
    bool scanning;                  /* tt_reverse_continue re-executing: breakpoints call tt_hit */
    bool have_hit;
    TtPos hit;                      /* the last reported */
    TtWhere scan_end;               /* where the scan stops */
    int watch_cpu;                  /* tt_reverse_stepi: the stops at watch_insns (-1: none) */
    uint64_t watch_insns, watch_entries;
    /* the engine state of each CPU that had not run at the start (NULL: it had): restored
     * before a snapshot in which it has not run yet is loaded (the x86 engine, for one, cannot
     * take an unstarted CPU's selectors back through its register writes) */
    uc_context *fresh[MAX_CPUS];
    /* cost figures (docs/debugging.md) */
    uint64_t taken, restored, bytes;   /* bytes: what the snapshots hold, shared pages once */
    Blob scratch;                   /* a snapshot's bytes whole (taking one, restoring one) */
} TimeTravel;

/* Start time travel on a machine about to run (booted or restored): the first snapshot is the
 * start of history; the machine's round hook takes the automatic ones. */
void tt_init(TimeTravel *tt, Machine *m);
void tt_destroy(TimeTravel *tt);
/* Pace the automatic snapshots by their host-time cost (TimeTravel.paced). */
void tt_pace(TimeTravel *tt);

/* Where CPU `cpu` is, and where the machine is. */
TtPos tt_pos_now(const Machine *m, int cpu);
TtWhere tt_where_now(const Machine *m);
int tt_where_cmp(const TtWhere *a, const TtWhere *b);

/* A snapshot of the current point (the machine paused: between rounds, at a CPU's pause, or
 * ended), unless one is held already. */
void tt_snapshot(TimeTravel *tt);
/* Load snapshot s into the running machine (above: Restore in place). */
bool tt_restore(TimeTravel *tt, const TtSnap *s);

/* Forward from the current point to position p (TT_REACHED, TT_PASSED, TT_ENDED). */
TtResult tt_run_to(TimeTravel *tt, TtPos p);
/* Forward to a point of the run (a snapshot's, or the end). */
TtResult tt_run_to_where(TimeTravel *tt, const TtWhere *w);
/* Anywhere in the run, before or after the current point: the last snapshot at or before p,
 * then forward to p. */
TtResult tt_goto(TimeTravel *tt, TtPos p);
/* Back to CPU `cpu`'s previous stop; *to (if not NULL) gets it. */
TtResult tt_reverse_stepi(TimeTravel *tt, int cpu, TtPos *to);
/* Back to the last breakpoint hit (tt_hit) before the current point; TT_NO_HISTORY at the start
 * of history when there is none. */
TtResult tt_reverse_continue(TimeTravel *tt, TtPos *hit);
/* While tt_scanning: a breakpoint of the caller's fired on CPU c at the instruction at pc (from
 * an engine code hook: the position is that of the stop before it).  The engine calls an
 * address's code hooks in its own order: a breakpoint hook called after a trap site's hook has
 * emulated the instruction (Cpu.stop.redirected) is a hit all the same. */
static inline bool tt_scanning(const TimeTravel *tt)
{
    return tt && tt->scanning;
}
void tt_hit(TimeTravel *tt, Cpu *c, uint64_t pc);
/* The same from a stop before the instruction (a debugger's breakpoint stop: the counts are
 * exact there), at position h. */
void tt_hit_at(TimeTravel *tt, TtPos h);

#endif
