/* trace.h — the one trace pipeline: every traced happening is a TraceEvent; sinks format it.
 *
 * An event has a time (the emitting CPU's local cycle count, or machine time for machine
 * events), a CPU number (-1 for the machine), a kind ("exception", "code-write", ...) and up to
 * TRACE_MAX_FIELDS typed key/value fields.  Every kind is declared once, with its fields, in
 * base/trace-events; producers call the typed function generated from it (base/trace_events.h:
 * trace_cpu_start(), trace_exception(), ...), which checks trace_on() first so that a disabled
 * trace costs one branch.  The text sink writes one line per event (docs/trace-format.md);
 * later sinks (binary, Perfetto, trace-cmd) read the same events and trace_kinds[].
 *
 * A field of type TF_SYM holds a guest address that the trace's symbolizer turns into text
 * ("func+0x10") when the event is emitted, so producers need not know the image.  Sinks buffer
 * and are flushed on every way a run can end, including fatal signals (trace_flush_all()).
 *
 * The `exit` event is the last: nothing is written after it, whoever emits it, so a trace always
 * ends with the line that says why the run ended.  A sink may refuse an event (a text sink at its
 * --trace-limit): from then on the trace takes only the exit event, and the trace's full handler
 * (trace_set_full_handler) ends the run there.
 */
#ifndef PMUSIM_TRACE_H
#define PMUSIM_TRACE_H

#include "base/common.h"

#define TRACE_MAX_FIELDS 10

typedef enum TraceFieldType { TF_HEX, TF_DEC, TF_STR, TF_BYTES, TF_SYM } TraceFieldType;

typedef struct TraceField {
    const char *key;
    TraceFieldType type;
    uint64_t u;                 /* TF_HEX, TF_DEC; TF_SYM: the address */
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
    /* false: not written, since it would take the output past its limit (never for `last`, the
     * exit event) */
    bool (*emit)(TraceSink *s, const TraceEvent *ev, bool last);
    void (*flush)(TraceSink *s);
    bool (*close)(TraceSink *s, Error *err);   /* false: output was lost (err says what) */
};

/* Text for a guest address ("func+0x10"), written into buf (len bytes); returns buf. */
typedef const char *(*TraceSymbolizer)(void *opaque, uint64_t addr, char *buf, size_t len);

/* A sink refused `ev` (the first event that does not fit): the run must end there. */
typedef void (*TraceFullHandler)(void *opaque, const TraceEvent *ev);

typedef struct Trace {
    TraceSink *sinks[4];
    int nsinks;
    TraceSymbolizer symbolize;      /* NULL: a TF_SYM field is written as 0x<address> */
    void *symbolize_opaque;
    TraceFullHandler on_full;
    void *full_opaque;
    bool full;                      /* a sink refused an event: only the exit event goes on */
    bool ended;                     /* the exit event is written: nothing follows it */
    bool muted;                     /* a debugger's `monitor trace off`: events but the exit are dropped */
    /* Time travel (sim/timetravel.h): events are numbered as emitted (`count`); those below
     * `mute_below` were written before the machine went back, and re-executing them writes
     * nothing.  A snapshot keeps `count`. */
    uint64_t count, mute_below;
} Trace;

static inline bool trace_on(const Trace *t) { return t && t->nsinks > 0; }

void trace_init(Trace *t);
void trace_add_sink(Trace *t, TraceSink *s);
void trace_set_symbolizer(Trace *t, TraceSymbolizer fn, void *opaque);
/* Called once, for the first event a sink refuses (it may emit the exit event itself). */
void trace_set_full_handler(Trace *t, TraceFullHandler fn, void *opaque);
/* A `diag` event (docs/trace-format.md) with a printf-style message of at most 255 bytes; nothing
 * is formatted when the trace is off.  pc: the instruction it is about, or NULL. */
void trace_diagf(Trace *t, uint64_t cycle, int cpu, const char *what, const uint64_t *pc, const char *fmt, ...)
    PMUSIM_PRINTF(6, 7);
void trace_vdiagf(Trace *t, uint64_t cycle, int cpu, const char *what, const uint64_t *pc, const char *fmt, va_list ap);
/* A guest address as the trace writes it ("func+0x10", or 0x<address> with no symbolizer), for
 * reports that go beside the trace (the tools' summaries). */
const char *trace_describe(const Trace *t, uint64_t addr, char *buf, size_t len);
/* Flush and close every sink; false with err set (the first failure) if any output was lost. */
bool trace_close(Trace *t, Error *err);
void trace_emit(Trace *t, const TraceEvent *ev);

/* Building an event (for the generated functions of base/trace_events.h; producers call those):
 * trace_begin(); add fields; trace_end() emits it. */
static inline TraceEvent trace_begin(uint64_t cycle, int cpu, const char *kind)
{
    TraceEvent ev = { .cycle = cycle, .cpu = cpu, .kind = kind };
    return ev;
}
void trace_hex(TraceEvent *ev, const char *key, uint64_t v);
void trace_dec(TraceEvent *ev, const char *key, uint64_t v);
void trace_str(TraceEvent *ev, const char *key, const char *s);
void trace_bytes(TraceEvent *ev, const char *key, const void *p, unsigned n);
void trace_sym(TraceEvent *ev, const char *key, uint64_t addr);
static inline void trace_end(Trace *t, TraceEvent *ev) { trace_emit(t, ev); }

/* A text sink writing to a file (through a temporary renamed into place at close: base/outfile.h);
 * NULL with err set on failure.  limit (0: none): it refuses the first line that would take the
 * file past `limit` bytes, and every later one but the exit line, so the file holds at most
 * `limit` bytes and then its exit line (docs/trace-format.md, "Size limit"). */
TraceSink *trace_text_sink_open(const char *path, uint64_t limit, Error *err);

/* Flush every open sink of the process (signal-safe enough for fatal-signal handlers: sinks
 * write their buffers with write(2)). */
void trace_flush_all(void);
/* After trace_flush_all() in a fatal-signal handler: put every trace file in place. */
void trace_rescue_all(void);

#endif
