/* trace.h — the one trace pipeline: every traced happening is a TraceEvent; sinks format it.
 *
 * An event has a time (the emitting CPU's local cycle count, or machine time for machine
 * events), a CPU number (-1 for the machine), a kind ("exception", "code-write", ...) and up to
 * TRACE_MAX_FIELDS typed key/value fields.  The text sink writes one line per event
 * (docs/trace-format.md); later sinks (binary, Perfetto) read the same events.
 *
 * Producers check trace_on() first so a disabled trace costs one branch.  Sinks buffer and are
 * flushed on every way a run can end, including fatal signals (trace_flush_all()).
 */
#ifndef PMUSIM_TRACE_H
#define PMUSIM_TRACE_H

#include "base/common.h"

#define TRACE_MAX_FIELDS 10

typedef enum TraceFieldType { TF_HEX, TF_DEC, TF_STR, TF_BYTES } TraceFieldType;

typedef struct TraceField {
    const char *key;
    TraceFieldType type;
    uint64_t u;
    const char *s;              /* TF_STR; TF_BYTES: the bytes */
    unsigned n;                 /* TF_BYTES: length */
} TraceField;

typedef struct TraceEvent {
    uint64_t cycle;
    int cpu;                    /* -1: the machine */
    const char *kind;
    int nfields;
    TraceField f[TRACE_MAX_FIELDS];
} TraceEvent;

typedef struct TraceSink TraceSink;
struct TraceSink {
    void (*emit)(TraceSink *s, const TraceEvent *ev);
    void (*flush)(TraceSink *s);
    bool (*close)(TraceSink *s, Error *err);   /* false: output was lost (err says what) */
};

typedef struct Trace {
    TraceSink *sinks[4];
    int nsinks;
} Trace;

static inline bool trace_on(const Trace *t) { return t && t->nsinks > 0; }

void trace_init(Trace *t);
void trace_add_sink(Trace *t, TraceSink *s);
/* Flush and close every sink; false with err set (the first failure) if any output was lost. */
bool trace_close(Trace *t, Error *err);
void trace_emit(Trace *t, const TraceEvent *ev);

/* Building an event: trace_begin(); add fields; trace_end() emits it. */
static inline TraceEvent trace_begin(uint64_t cycle, int cpu, const char *kind)
{
    TraceEvent ev = { .cycle = cycle, .cpu = cpu, .kind = kind };
    return ev;
}
void trace_hex(TraceEvent *ev, const char *key, uint64_t v);
void trace_dec(TraceEvent *ev, const char *key, uint64_t v);
void trace_str(TraceEvent *ev, const char *key, const char *s);
void trace_bytes(TraceEvent *ev, const char *key, const void *p, unsigned n);
static inline void trace_end(Trace *t, TraceEvent *ev) { trace_emit(t, ev); }

/* A text sink writing to a file (through a temporary renamed into place at close: base/outfile.h);
 * NULL with err set on failure. */
TraceSink *trace_text_sink_open(const char *path, Error *err);

/* Flush every open sink of the process (signal-safe enough for fatal-signal handlers: sinks
 * write their buffers with write(2)). */
void trace_flush_all(void);
/* After trace_flush_all() in a fatal-signal handler: put every trace file in place. */
void trace_rescue_all(void);

#endif
