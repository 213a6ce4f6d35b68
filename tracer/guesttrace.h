/* guesttrace.h — `pmusim run --guest-trace FILE`: the guest's own trace rings, decoded.
 *
 * A guest that traces (guest/include/trace_buffer.h) keeps per-CPU rings of fixed-size entries in
 * its memory, described by its `trace_buffers` symbol (docs/trace-format.md, "Guest trace
 * buffers").  At the end of the run pmusim reads them — in the guest's byte order, every address
 * checked against guest RAM — merges the CPUs by timestamp and writes them in ftrace's text
 * formats: `function` (`<idle>-0 [000] d.... 0.001234: func <-parent`) or `function_graph`
 * (` 0)   0.110 us    |    func();`), with times converted from the guest's clock to simulated
 * seconds.
 */
#ifndef PMUSIM_GUESTTRACE_H
#define PMUSIM_GUESTTRACE_H

#include <stdio.h>

#include "base/common.h"

typedef struct Image Image;
typedef struct GuestMem GuestMem;

/* The image has a `trace_buffers` symbol (checked when the run starts). */
bool guesttrace_check(const Image *im, Error *err);
/* Decode the rings of image im in guest memory and print them to f (the caller owns the file
 * and its errors); false with err set if they are malformed. */
bool guesttrace_print(const Image *im, GuestMem *mem, FILE *f, Error *err);

#endif
