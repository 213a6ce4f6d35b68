/* tracejson.c — `--trace-json FILE`: Chrome trace-event JSON for Perfetto (tracejson.h).
 *
 * The file (the Trace Event Format's "JSON Object Format"; Perfetto reads it as "legacy JSON",
 * src/trace_processor/importers/json/), one event a line, each but the last ending in its comma
 * (written with the next line, SEPARATOR, so that the array can be closed after any line):
 *
 *   {"displayTimeUnit":"ns","otherData":{"generator":"pmusim","clock-hz":"N"},"traceEvents":[
 *   {"ph":"M","pid":1,"tid":0,"name":"process_name","args":{"name":"pmusim <model>"}}
 *   {"ph":"M","pid":1,"tid":K,"name":"thread_name","args":{"name":"cpuK"}}       K < ncpus;
 *   {"ph":"M","pid":1,"tid":K,"name":"thread_sort_index","args":{"sort_index":K}} K = ncpus:
 *                                                                     "machine" (machine events)
 *   {"ph":"B","pid":1,"tid":K,"ts":T,"name":NAME,"cat":KIND,"args":{FIELDS}}  exception,
 *                                                                     interrupt, nmi: NAME its name
 *   {"ph":"E","pid":1,"tid":K,"ts":T,"args":{FIELDS}}      exception-return, or the end of the run
 *   {"ph":"i","s":"t","pid":1,"tid":K,"ts":T,"name":KIND,"cat":KIND,"args":{FIELDS}}   the others
 *   {"ph":"C","pid":1,"tid":K,"ts":T,"name":"cpuK","args":{"cycles":N,"<PMC>":N,...}}  counters
 *   ]}
 *
 * ts is in microseconds: ns / 1000 with three decimals, ns = cycles * 10^9 / clock-frequency
 * (floor, 128-bit integer arithmetic), so every run prints the same digits (Perfetto reads them
 * back to the nanosecond).  FIELDS are the event's fields by key: hex as "0x..." strings (64-bit
 * values do not fit a JSON number's double), dec as numbers, str and symbols as strings, bytes
 * as hex digit strings.  Perfetto names a counter track "<name> <arg>": "cpu0 IA32_PMC0".
 *
 * Slices must nest on their track (the format's rule for B/E): an `exception-return` ends the
 * innermost open slice of its CPU and is dropped when none is open (a return that starts a
 * program, not one from a handler); a CPU more than SLICE_MAX_DEPTH entries deep (a handler
 * that faults again and again without returning) has its open slices closed first; slices still
 * open at the exit event are closed at its time, or at their track's last time if later (CPUs'
 * clocks differ by up to a quantum).
 */
#include "tracer/tracejson.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/outfile.h"
#include "cpu/cpu.h"
#include "pmu/pmc.h"

#define JSON_BUF (1 << 16)
#define JSON_VALUE_MAX 1024         /* a string value's output bytes, escapes included: past
                                       it the value is cut (at a character) */
#define JSON_LINE (16 * 1024)       /* one event: TRACE_MAX_FIELDS values and keys fit */
#define LIMIT_MARGIN (2 * JSON_LINE)    /* --trace-limit: room an event may take (its line, and
                                           the slices it ends or the counters it writes) */
#define JSON_PID 1
#define SEPARATOR ",\n"             /* before every event line but the first */
#define NS_PER_SEC 1000000000u
#define NS_PER_US 1000u
#define SLICE_MAX_DEPTH 64
#define READINGS_MAX 16
#define TRACKS_MAX (MAX_CPUS + 1)   /* the CPUs, then the machine */

/* What an event kind becomes; kinds not in the table are instant events. */
enum { J_INSTANT = 1, J_BEGIN = 2, J_END = 4, J_COUNTERS = 8, J_SKIP = 16 };

static const struct {
    const char *kind;
    int what;
} kind_roles[] = {
    { "exception", J_BEGIN }, { "interrupt", J_BEGIN }, { "nmi", J_BEGIN }, { "exception-return", J_END },
    { "pmu-overflow", J_INSTANT | J_COUNTERS },
    /* register accesses: many, and their effect is in the counters and the events that follow */
    { "wrmsr", J_SKIP | J_COUNTERS }, { "mtspr", J_SKIP | J_COUNTERS }, { "rdmsr", J_SKIP },
    { "mfspr", J_SKIP }, { "rdpmc", J_SKIP }, { "apic-read", J_SKIP }, { "apic-write", J_SKIP },
    { "gic-read", J_SKIP }, { "gic-write", J_SKIP },
};

typedef struct Track {
    int depth;                      /* open slices */
    uint64_t last_ns;               /* time of its last event */
} Track;

typedef struct JsonSink {
    TraceSink sink;
    OutFile out;
    Cluster *cl;
    uint64_t hz;
    uint64_t limit, bytes;          /* --trace-limit (0: none); bytes accepted so far */
    bool ended;                     /* the exit event is written */
    Track track[TRACKS_MAX];
    PmcReading last[MAX_CPUS][READINGS_MAX];    /* the counters as last written */
    int nlast[MAX_CPUS];
    size_t len;
    char buf[JSON_BUF];
} JsonSink;

/* ------------------------------------------------------------------ text */

typedef struct Line {
    char s[JSON_LINE];
    size_t n;
} Line;

static void put(Line *l, const char *s)
{
    size_t k = strlen(s);
    if (l->n + k >= sizeof l->s)
        k = sizeof l->s - 1 - l->n;
    memcpy(l->s + l->n, s, k);
    l->n += k;
}

static void putf(Line *l, const char *fmt, ...) PMUSIM_PRINTF(2, 3);
static void putf(Line *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(l->s + l->n, sizeof l->s - l->n, fmt, ap);
    va_end(ap);
    if (k > 0)
        l->n = l->n + (size_t)k < sizeof l->s ? l->n + (size_t)k : sizeof l->s - 1;
}

/* Numbers by hand: the counters of every quantum are most of a file, and vsnprintf most of
 * their cost. */
static void put_digits(Line *l, uint64_t v, unsigned base, int min_digits)
{
    static const char digit[] = "0123456789abcdef";
    char t[24];
    int n = 0;
    do {
        t[n++] = digit[v % base];
        v /= base;
    } while (v || n < min_digits);
    if (l->n + (size_t)n >= sizeof l->s)
        return;
    while (n)
        l->s[l->n++] = t[--n];
}

static void put_dec(Line *l, uint64_t v)
{
    put_digits(l, v, 10, 1);
}

/* A JSON string (RFC 8259, 7): quotes, backslashes and control characters escaped, and bytes
 * from 0x7f up as \u00XX (Latin-1), so that guest bytes that are not UTF-8 still make valid JSON. */
static void put_str(Line *l, const char *s)
{
    put(l, "\"");
    size_t end = l->n + JSON_VALUE_MAX;
    for (const unsigned char *p = (const unsigned char *)s; *p && l->n + 8 < end; p++) {
        if (*p == '"' || *p == '\\')
            putf(l, "\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f)
            putf(l, "\\u%04x", *p);
        else
            l->s[l->n++] = (char)*p;
    }
    put(l, "\"");
}

/* ts: the exact decimal of ns / 1000. */
static void put_ts(Line *l, uint64_t ns)
{
    put(l, "\"ts\":");
    put_dec(l, ns / NS_PER_US);
    put(l, ".");
    put_digits(l, ns % NS_PER_US, 10, 3);
}

static void put_field(Line *l, const TraceField *f)
{
    put_str(l, f->key);
    put(l, ":");
    switch (f->type) {
    case TF_HEX:
        put(l, "\"0x");
        put_digits(l, f->u, 16, 1);
        put(l, "\"");
        break;
    case TF_DEC: put_dec(l, f->u); break;
    case TF_SYM:                    /* (trace_emit has made every symbol a string) */
    case TF_STR: put_str(l, f->s ? f->s : ""); break;
    case TF_BYTES:
        put(l, "\"");
        for (unsigned j = 0; j < f->n && 2 * j + 2 < JSON_VALUE_MAX; j++)
            putf(l, "%02x", (const uint8_t)f->s[j]);
        put(l, "\"");
        break;
    }
}

static void put_args(Line *l, const TraceEvent *ev)
{
    put(l, ",\"args\":{");
    for (int i = 0; i < ev->nfields; i++) {
        if (i)
            put(l, ",");
        put_field(l, &ev->f[i]);
    }
    put(l, "}}");
}

/* ------------------------------------------------------------------ output */

static void flush_buf(JsonSink *s)
{
    size_t n = s->len;
    s->len = 0;                     /* as outfile_put: never written twice */
    outfile_write(&s->out, s->buf, n);
}

static void write_raw(JsonSink *s, const char *p, size_t n)
{
    outfile_put(&s->out, s->buf, JSON_BUF, &s->len, p, n);
}

/* One event line, its separator included: the buffer only ever holds whole lines, so that a
 * fatal signal's tracejson_rescue can end the array after it. */
static void write_line(JsonSink *s, Line *l)
{
    write_raw(s, l->s, l->n);
    s->bytes += l->n;
}

/* A line's separator from the one before (none before the first). */
static void start_line(Line *l, bool first)
{
    l->n = 0;
    if (!first)
        put(l, SEPARATOR);
}

static uint64_t ns_of(const JsonSink *s, uint64_t cycle)
{
    return muldiv64(cycle, NS_PER_SEC, s->hz);
}

static int track_of(const JsonSink *s, int cpu)
{
    return cpu >= 0 && cpu < s->cl->ncpus ? cpu : s->cl->ncpus;
}

/* The start of an event of phase ph on a track, up to its ts. */
static void begin_line(Line *l, const char *ph, int tid, uint64_t ns)
{
    start_line(l, false);
    put(l, "{\"ph\":\"");
    put(l, ph);
    put(l, "\",\"pid\":");
    put_dec(l, JSON_PID);
    put(l, ",\"tid\":");
    put_dec(l, (uint64_t)tid);
    put(l, ",");
    put_ts(l, ns);
}

/* ------------------------------------------------------------------ events */

static void write_end(JsonSink *s, int tid, uint64_t ns, const TraceEvent *ev)
{
    Line l;
    begin_line(&l, "E", tid, ns);
    if (ev)
        put_args(&l, ev);
    else
        put(&l, "}");
    write_line(s, &l);
    s->track[tid].depth--;
}

static void close_slices(JsonSink *s, int tid, uint64_t ns)
{
    while (s->track[tid].depth > 0)
        write_end(s, tid, ns, NULL);
}

static const TraceField *field(const TraceEvent *ev, const char *key)
{
    for (int i = 0; i < ev->nfields; i++)
        if (!strcmp(ev->f[i].key, key))
            return &ev->f[i];
    return NULL;
}

/* A slice is named by the entry's `name` (#GP, NMI, irq); where that only repeats the kind
 * (ppc32: "interrupt"), by the kind and the vector ("interrupt 0xf00"). */
static void put_slice_name(Line *l, const TraceEvent *ev)
{
    const TraceField *name = field(ev, "name"), *vector = field(ev, "vector");
    bool plain = !name || !name->s || !*name->s || !strcmp(name->s, ev->kind);
    if (!plain || !vector) {
        put_str(l, plain ? ev->kind : name->s);
        return;
    }
    put(l, "\"");
    put(l, ev->kind);
    put(l, " 0x");
    put_digits(l, vector->u, 16, 1);
    put(l, "\"");
}

static void write_begin(JsonSink *s, int tid, uint64_t ns, const TraceEvent *ev)
{
    if (s->track[tid].depth >= SLICE_MAX_DEPTH)
        close_slices(s, tid, ns);
    Line l;
    begin_line(&l, "B", tid, ns);
    put(&l, ",\"name\":");
    put_slice_name(&l, ev);
    put(&l, ",\"cat\":");
    put_str(&l, ev->kind);
    put_args(&l, ev);
    write_line(s, &l);
    s->track[tid].depth++;
}

static void write_instant(JsonSink *s, int tid, uint64_t ns, const TraceEvent *ev)
{
    Line l;
    begin_line(&l, "i", tid, ns);
    put(&l, ",\"s\":\"t\",\"name\":");
    put_str(&l, ev->kind);
    put(&l, ",\"cat\":");
    put_str(&l, ev->kind);
    put_args(&l, ev);
    write_line(s, &l);
}

static bool readings_changed(const JsonSink *s, int k, const PmcReading *r, int n)
{
    if (n != s->nlast[k])
        return true;
    for (int i = 0; i < n; i++)
        if (r[i].value != s->last[k][i].value)
            return true;
    return false;
}

/* {"ph":"C",...,"name":"cpuK","args":{"cycles":N,"<counter>":N,...}} */
static void put_counters(Line *l, int k, uint64_t cycle, const PmcReading *r, int n)
{
    put(l, ",\"name\":\"cpu");
    put_dec(l, (uint64_t)k);
    put(l, "\",\"args\":{\"cycles\":");
    put_dec(l, cycle);
    for (int i = 0; i < n; i++) {
        put(l, ",");
        put_str(l, r[i].name);
        put(l, ":");
        put_dec(l, r[i].value);
    }
    put(l, "}}");
}

/* CPU k's cycle count and counters at `cycle`; only_changed: not when no counter changed since
 * the last time they were written. */
static void write_counters(JsonSink *s, int k, uint64_t cycle, bool only_changed)
{
    PmcReading r[READINGS_MAX];
    int n = vcpu_pmu_readings(s->cl->cpus[k], r, READINGS_MAX);
    if (only_changed && !readings_changed(s, k, r, n))
        return;
    uint64_t ns = ns_of(s, cycle);
    if (ns > s->track[k].last_ns)
        s->track[k].last_ns = ns;           /* slices closed at the end come after it */
    Line l;
    begin_line(&l, "C", k, ns);
    put_counters(&l, k, cycle, r, n);
    write_line(s, &l);
    memcpy(s->last[k], r, sizeof r[0] * (size_t)n);
    s->nlast[k] = n;
}

static int role_of(const char *kind)
{
    for (size_t i = 0; i < ARRAY_SIZE(kind_roles); i++)
        if (!strcmp(kind, kind_roles[i].kind))
            return kind_roles[i].what;
    return J_INSTANT;
}

/* The exit event: every slice still open ends with it (not before its track's last event). */
static void write_exit(JsonSink *s, int tid, uint64_t ns, const TraceEvent *ev)
{
    write_instant(s, tid, ns, ev);
    for (int k = 0; k < s->cl->ncpus; k++)
        write_counters(s, k, s->cl->cpus[k]->cycles, true);
    for (int t = 0; t <= s->cl->ncpus; t++)
        close_slices(s, t, ns > s->track[t].last_ns ? ns : s->track[t].last_ns);
    s->ended = true;
}

static void dispatch(JsonSink *s, const TraceEvent *ev, int tid, uint64_t ns, bool last)
{
    int what = role_of(ev->kind);
    if (last)
        write_exit(s, tid, ns, ev);
    else if (what & J_BEGIN)
        write_begin(s, tid, ns, ev);
    else if (what & J_END) {
        if (s->track[tid].depth > 0)
            write_end(s, tid, ns, ev);
    } else if (!(what & J_SKIP))
        write_instant(s, tid, ns, ev);
    if ((what & J_COUNTERS) && tid < s->cl->ncpus)
        write_counters(s, tid, ev->cycle, true);
}

/* An event is refused, as by the text sink, when the bytes it may take (a line per slice it
 * closes, one for itself, one for counters) could pass the limit. */
static bool json_emit(TraceSink *sink, const TraceEvent *ev, bool last)
{
    JsonSink *s = (JsonSink *)sink;
    if (s->ended)
        return true;
    if (s->limit && !last && s->bytes + LIMIT_MARGIN > s->limit)
        return false;
    int tid = track_of(s, ev->cpu);
    uint64_t ns = ns_of(s, ev->cycle);
    if (ns > s->track[tid].last_ns)
        s->track[tid].last_ns = ns;
    dispatch(s, ev, tid, ns, last);
    return true;
}

void tracejson_tick(TraceSink *sink)
{
    JsonSink *s = (JsonSink *)sink;
    if (s->ended)
        return;
    for (int k = 0; k < s->cl->ncpus; k++)
        write_counters(s, k, s->cl->cpus[k]->cycles, false);
}

/* ------------------------------------------------------------------ file */

static const char TAIL[] = "\n]}\n";

static void json_flush(TraceSink *sink)
{
    flush_buf((JsonSink *)sink);
}

static bool json_close(TraceSink *sink, Error *err)
{
    JsonSink *s = (JsonSink *)sink;
    for (int t = 0; t <= s->cl->ncpus; t++)
        close_slices(s, t, s->track[t].last_ns);
    write_raw(s, TAIL, sizeof TAIL - 1);
    flush_buf(s);
    bool ok = outfile_commit(&s->out, err);
    free(s);
    return ok;
}

void tracejson_rescue(TraceSink *sink)
{
    JsonSink *s = (JsonSink *)sink;
    flush_buf(s);
    outfile_write(&s->out, TAIL, sizeof TAIL - 1);
    outfile_rescue(&s->out);
}

static void write_metadata(JsonSink *s, int tid, const char *name, const char *value, bool first)
{
    Line l;
    start_line(&l, first);
    putf(&l, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\",\"args\":{", JSON_PID, tid, name);
    if (!strcmp(name, "thread_sort_index"))
        putf(&l, "\"sort_index\":%d}}", tid);
    else {
        put(&l, "\"name\":");
        put_str(&l, value);
        put(&l, "}}");
    }
    write_line(s, &l);
}

static void write_header(JsonSink *s, const char *machine)
{
    Line l = { .n = 0 };
    putf(&l, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"pmusim\",\"clock-hz\":\"%" PRIu64
              "\"},\"traceEvents\":[\n", s->hz);
    write_raw(s, l.s, l.n);
    s->bytes += l.n;
    char name[128];
    snprintf(name, sizeof name, "%s%s", strncmp(machine, "pmusim", strlen("pmusim")) ? "pmusim " : "", machine);
    write_metadata(s, 0, "process_name", name, true);
    for (int t = 0; t <= s->cl->ncpus; t++) {
        char thread[16] = "machine";
        if (t < s->cl->ncpus)
            snprintf(thread, sizeof thread, "cpu%d", t);
        write_metadata(s, t, "thread_name", thread, false);
        write_metadata(s, t, "thread_sort_index", NULL, false);
    }
}

TraceSink *tracejson_open(const char *path, Cluster *cl, const char *machine, uint64_t limit, Error *err)
{
    JsonSink *s = xcalloc(1, sizeof *s);
    if (!outfile_open(&s->out, "--trace-json", path, err)) {
        free(s);
        return NULL;
    }
    s->cl = cl;
    s->hz = cl->clock->freq_hz;
    s->limit = limit;
    s->sink.emit = json_emit;
    s->sink.flush = json_flush;
    s->sink.close = json_close;
    write_header(s, machine);
    return &s->sink;
}
