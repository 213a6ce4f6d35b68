/* tracejson.h — `--trace-json FILE`: the run's trace as Chrome trace-event JSON, the legacy JSON
 * format that Perfetto's UI and trace processor open (docs/trace-format.md, "Perfetto JSON").
 *
 * A trace sink (base/trace.h): it reads the same events as the text trace and writes, streaming
 * in constant memory, one track per CPU with exceptions, interrupts and NMIs as nested slices
 * (from their entry to the `exception-return` of their handler), the other events as instant
 * events, and each CPU's cycle count and PMU counters as counter tracks, sampled where the trace
 * shows a counter change and at every quantum boundary (tracejson_tick).
 */
#ifndef PMUSIM_TRACEJSON_H
#define PMUSIM_TRACEJSON_H

#include "base/trace.h"
#include "cpu/cluster.h"

/* Open FILE (written through a temporary renamed into place at close: base/outfile.h) for the
 * cluster's CPUs; `machine` names the process (the tree's model).  limit (0: none): as the text
 * sink's, it refuses the first event that would take the file past `limit` bytes, and every
 * later one but the exit event.  NULL with err set on failure. */
TraceSink *tracejson_open(const char *path, Cluster *cl, const char *machine, uint64_t limit, Error *err);
/* A quantum boundary: every CPU's counters, at its own local time (nothing after the exit event). */
void tracejson_tick(TraceSink *s);
/* From a fatal-signal handler: write what is buffered, end the array so that the file parses,
 * and put it in place (write(2) and rename(2) only). */
void tracejson_rescue(TraceSink *s);

#endif
