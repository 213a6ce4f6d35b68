/* tracediff.h — the first difference between two event streams (`pmusim diff`, docs/tools.md).
 *
 * Two traces are read event by event in lockstep (tracer/traceread.h).  Two events are the same
 * when their cycle, CPU, kind and every field are (a field on one line only is a difference),
 * leaving out what the options ignore: whole kinds (skipped on both sides, so the line numbers
 * may part), fields by key, the cycle.  The first pair that is not the same is printed with the
 * N events before it, kept in a ring of N lines of TRACE_LINE_MAX bytes (allocated once: the
 * memory does not grow with the traces); the exit lines are events too, so a run that ends first
 * differs there.  Nothing is allocated per event.
 */
#ifndef PMUSIM_TRACEDIFF_H
#define PMUSIM_TRACEDIFF_H

#include <stdio.h>

#include "tracer/traceread.h"

#define DIFF_CONTEXT_DEFAULT 5
#define DIFF_CONTEXT_MAX 100
#define DIFF_SIDES 2

typedef struct DiffOptions {
    unsigned context;               /* events shown before the first difference */
    bool ignore_kind[TK_COUNT];
    uint32_t ignore_field[TK_COUNT];    /* bit i: field i of the kind is not compared */
    bool ignore_cycle;
    const char *label[DIFF_SIDES];  /* "RUN_A", "RUN_B" */
    const char *source[DIFF_SIDES]; /* what each side is: a file, a command line */
} DiffOptions;

void diff_options_init(DiffOptions *o);
/* --ignore KIND[,KIND...]; false with err set for a kind base/trace-events does not declare. */
bool diff_ignore_kinds(DiffOptions *o, const char *list, Error *err);
/* --ignore-field KEY[,KEY...] (`cycle`: the cycle); false with err set for a key no kind has. */
bool diff_ignore_fields(DiffOptions *o, const char *list, Error *err);

enum { DIFF_SAME = 0, DIFF_DIFFER = 1, DIFF_BAD = -1 };

/* Compare the two streams to the first difference (or the end), print the result to out:
 * DIFF_SAME, DIFF_DIFFER, or DIFF_BAD with err set (a reader's "FILE:LINE: what"; *bad_side
 * says whose). */
int trace_diff(TraceReader *r[DIFF_SIDES], const DiffOptions *o, FILE *out, int *bad_side, Error *err);

#endif
