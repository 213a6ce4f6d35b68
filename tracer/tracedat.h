/* tracedat.h — `pmusim run --trace-dat FILE`: the trace as a trace.dat that trace-cmd and
 * KernelShark read (trace-cmd.dat.v6(5); docs/trace-format.md, "trace.dat").
 *
 * A trace sink (base/trace.h): every TraceEvent becomes an event of the event system "pmusim",
 * whose formats are generated from the trace-event registry (base/trace_events.h), in ring-buffer
 * pages of its CPU (Linux kernel/trace/ring_buffer.c), time in nanoseconds of the CPU clock.
 * Pages are spooled to an unlinked temporary beside FILE as they fill (constant memory); the
 * file is assembled at close, with the guest's own ftrace rings (tracer/guesttrace.h) merged
 * into their CPUs as ftrace's function / funcgraph_entry / funcgraph_exit events, and written
 * through base/outfile.h (a temporary renamed into place).
 */
#ifndef PMUSIM_TRACEDAT_H
#define PMUSIM_TRACEDAT_H

#include "base/common.h"
#include "base/trace.h"
#include "tracer/guesttrace.h"

typedef struct TraceDatConfig {
    const char *path;
    uint64_t limit;                 /* --trace-limit: bytes of pmusim's event pages; 0: none */
    int ncpus;                      /* CPU data blocks 0..ncpus-1; block ncpus holds machine events */
    uint64_t cpu_hz;                /* the CPU clock: cycle -> ns */
    const Image *image;             /* its symbols become kallsyms; NULL: none */
    const char *uname;              /* what `trace-cmd report --uname` shows */
} TraceDatConfig;

/* NULL with err set if FILE (or its spool) cannot be created. */
TraceSink *tracedat_open(const TraceDatConfig *cfg, Error *err);
/* Before the trace is closed: the guest's decoded rings go into the file at close (the sink takes
 * *gt over and frees it). */
void tracedat_add_guest(TraceSink *s, GuestTrace *gt);
/* From a fatal-signal handler: no trace.dat (it is assembled at close), and its temporary
 * removed (unlink(2) only; the spool is unlinked already). */
void tracedat_abandon(TraceSink *s);

#endif
