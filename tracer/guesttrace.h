/* guesttrace.h — `pmusim run --guest-trace FILE`: the guest's own trace rings, decoded.
 *
 * A guest that traces (guest/include/trace_buffer.h) keeps per-CPU rings of fixed-size entries in
 * its memory, described by its `trace_buffers` symbol (docs/trace-format.md, "Guest trace
 * buffers").  At the end of the run pmusim reads them — in the guest's byte order, every address
 * checked against guest RAM — merges the CPUs by timestamp and writes them in ftrace's text
 * formats: `function` (`<idle>-0 [000] d.... 0.001234: func <-parent`) or `function_graph`
 * (` 0)   0.110 us    |    func();`), with times converted from the guest's clock to simulated
 * seconds.  The decoder and the text formatter are apart: --trace-dat (tracer/tracedat.h) puts
 * the same entries into a trace.dat as ftrace's function / funcgraph events.
 */
#ifndef PMUSIM_GUESTTRACE_H
#define PMUSIM_GUESTTRACE_H

#include <stdio.h>

#include "base/common.h"

typedef struct Image Image;
typedef struct GuestMem GuestMem;

/* trace_entry.type (guest/include/trace_buffer.h) */
enum { GT_FUNCTION = 1, GT_GRAPH_ENTRY = 2, GT_GRAPH_RETURN = 3 };
/* trace_buffers.tracer */
enum { GT_TRACER_NOP, GT_TRACER_FUNCTION, GT_TRACER_GRAPH };

typedef struct GuestTraceEntry {
    uint16_t type;                  /* GT_FUNCTION ... */
    uint8_t flags, depth;           /* Linux's TRACE_FLAG_* bits; function_graph call depth */
    uint64_t ts, ip, arg;           /* ts in ticks of GuestTrace.hz; arg: the parent, or a return's entry time */
    int cpu;
    uint64_t seq;                   /* order within its CPU's ring */
} GuestTraceEntry;

/* The rings, decoded: every entry of every CPU, merged by timestamp (then CPU, then order). */
typedef struct GuestTrace {
    uint32_t nr_cpus, tracer;
    uint64_t hz;                    /* ticks per second of the entries' timestamps */
    uint64_t in_buffer, written;
    GuestTraceEntry *e;
    size_t n;
} GuestTrace;

/* The image has a `trace_buffers` symbol: guesttrace_present quietly, guesttrace_check with a
 * message for --guest-trace (checked when the run starts). */
bool guesttrace_present(const Image *im);
bool guesttrace_check(const Image *im, Error *err);
/* Decode the rings of image im in guest memory and print them to f (the caller owns the file
 * and its errors); false with err set if they are malformed. */
bool guesttrace_print(const Image *im, GuestMem *mem, FILE *f, Error *err);
/* The decoder alone: the rings into *gt (freed with guesttrace_free, also after a failure). */
bool guesttrace_read(const Image *im, GuestMem *mem, GuestTrace *gt, Error *err);
void guesttrace_free(GuestTrace *gt);
/* Ticks of the guest's trace clock -> nanoseconds (exact integer arithmetic, rounded down). */
uint64_t guesttrace_ns(const GuestTrace *gt, uint64_t ticks);

#endif
