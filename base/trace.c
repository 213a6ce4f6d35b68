/* trace.c — event building, dispatch to sinks, and the text sink (docs/trace-format.md). */
#include "base/trace.h"

#include "base/trace_events.h"

#include "base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void trace_init(Trace *t)
{
    memset(t, 0, sizeof *t);
}

void trace_add_sink(Trace *t, TraceSink *s)
{
    if (t->nsinks < (int)ARRAY_SIZE(t->sinks))
        t->sinks[t->nsinks++] = s;
}

bool trace_close(Trace *t, Error *err)
{
    bool ok = true;
    for (int i = 0; i < t->nsinks; i++)
        ok &= t->sinks[i]->close(t->sinks[i], ok ? err : &(Error){ { 0 } });
    t->nsinks = 0;
    return ok;
}

void trace_set_full_handler(Trace *t, TraceFullHandler fn, void *opaque)
{
    t->on_full = fn;
    t->full_opaque = opaque;
}

void trace_set_symbolizer(Trace *t, TraceSymbolizer fn, void *opaque)
{
    t->symbolize = fn;
    t->symbolize_opaque = opaque;
}

#define TRACE_SYM_LEN 128

void trace_vdiagf(Trace *t, uint64_t cycle, int cpu, const char *what, const uint64_t *pc, const char *fmt, va_list ap)
{
    if (!trace_on(t))
        return;
    char msg[256];
    vsnprintf(msg, sizeof msg, fmt, ap);
    trace_diag(t, cycle, cpu, what, pc, msg);
}

void trace_diagf(Trace *t, uint64_t cycle, int cpu, const char *what, const uint64_t *pc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    trace_vdiagf(t, cycle, cpu, what, pc, fmt, ap);
    va_end(ap);
}

const char *trace_describe(const Trace *t, uint64_t addr, char *buf, size_t len)
{
    if (t->symbolize)
        return t->symbolize(t->symbolize_opaque, addr, buf, len);
    snprintf(buf, len, "0x%" PRIx64, addr);
    return buf;
}

void trace_emit(Trace *t, const TraceEvent *ev)
{
    if (t->count++ < t->mute_below)
        return;                     /* already written once (time travel) */
    bool last = !strcmp(ev->kind, "exit");
    if (t->ended || (t->full && !last) || (t->muted && !last))
        return;
    TraceEvent out = *ev;
    char text[TRACE_MAX_FIELDS][TRACE_SYM_LEN];
    for (int i = 0; i < out.nfields; i++) {
        TraceField *f = &out.f[i];
        if (f->type != TF_SYM)
            continue;
        f->s = trace_describe(t, f->u, text[i], sizeof text[i]);
        f->type = TF_STR;
    }
    bool refused = false;
    for (int i = 0; i < t->nsinks; i++)
        refused |= !t->sinks[i]->emit(t->sinks[i], &out, last);
    if (last)
        t->ended = true;
    if (refused && !t->full) {
        t->full = true;             /* before the handler, which emits the exit event */
        if (t->on_full)
            t->on_full(t->full_opaque, ev);
    }
}

static TraceField *add_field(TraceEvent *ev, const char *key, TraceFieldType type)
{
    if (ev->nfields == TRACE_MAX_FIELDS)
        return NULL;
    TraceField *f = &ev->f[ev->nfields++];
    memset(f, 0, sizeof *f);
    f->key = key;
    f->type = type;
    return f;
}

void trace_hex(TraceEvent *ev, const char *key, uint64_t v)
{
    TraceField *f = add_field(ev, key, TF_HEX);
    if (f)
        f->u = v;
}

void trace_dec(TraceEvent *ev, const char *key, uint64_t v)
{
    TraceField *f = add_field(ev, key, TF_DEC);
    if (f)
        f->u = v;
}

void trace_str(TraceEvent *ev, const char *key, const char *s)
{
    TraceField *f = add_field(ev, key, TF_STR);
    if (f)
        f->s = s ? s : "";
}

void trace_bytes(TraceEvent *ev, const char *key, const void *p, unsigned n)
{
    TraceField *f = add_field(ev, key, TF_BYTES);
    if (f) {
        f->s = p;
        f->n = n;
    }
}

void trace_sym(TraceEvent *ev, const char *key, uint64_t addr)
{
    TraceField *f = add_field(ev, key, TF_SYM);
    if (f)
        f->u = addr;
}

/* ------------------------------------------------------------------ text sink */

#define TEXT_BUF (1 << 16)

typedef struct TextSink {
    TraceSink sink;
    OutFile out;
    uint64_t limit;                 /* bytes; 0: none */
    uint64_t bytes;                 /* lines accepted so far */
    size_t len;
    char buf[TEXT_BUF];
    struct TextSink *next_open;     /* list of open sinks, for trace_flush_all() */
} TextSink;

static TextSink *open_text_sinks;

static void text_write_all(TextSink *s)
{
    outfile_write(&s->out, s->buf, s->len);
    s->len = 0;
}

static void text_put(TextSink *s, const char *p, size_t n)
{
    outfile_put(&s->out, s->buf, TEXT_BUF, &s->len, p, n);
}

/* Some values (quoted strings) must stay one token: spaces and quotes are escaped. */
static size_t format_str(char *o, size_t cap, const char *s)
{
    size_t k = 0;
    bool plain = *s != 0;
    for (const char *p = s; *p; p++)
        if (*p == ' ' || *p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
            plain = false;
    if (plain)
        return (size_t)snprintf(o, cap, "%s", s);
    if (k < cap)
        o[k++] = '"';
    for (const char *p = s; *p && k + 5 < cap; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\') {
            o[k++] = '\\';
            o[k++] = (char)c;
        } else if (c < 0x20) {
            k += (size_t)snprintf(o + k, cap - k, "\\x%02x", c);
        } else {
            o[k++] = (char)c;
        }
    }
    if (k < cap)
        o[k++] = '"';
    return k;
}

static bool text_emit(TraceSink *sink, const TraceEvent *ev, bool last)
{
    TextSink *s = (TextSink *)sink;
    char line[1024];
    size_t k;
    if (ev->cpu >= 0)
        k = (size_t)snprintf(line, sizeof line, "%" PRIu64 " cpu%d %s", ev->cycle, ev->cpu, ev->kind);
    else
        k = (size_t)snprintf(line, sizeof line, "%" PRIu64 " machine %s", ev->cycle, ev->kind);
    for (int i = 0; i < ev->nfields && k < sizeof line - 80; i++) {
        const TraceField *f = &ev->f[i];
        k += (size_t)snprintf(line + k, sizeof line - k, " %s=", f->key);
        switch (f->type) {
        case TF_HEX:
        case TF_SYM:                /* (trace_emit has made every symbol a string) */
            k += (size_t)snprintf(line + k, sizeof line - k, "0x%" PRIx64, f->u);
            break;
        case TF_DEC:
            k += (size_t)snprintf(line + k, sizeof line - k, "%" PRIu64, f->u);
            break;
        case TF_STR:
            k += format_str(line + k, sizeof line - k - 1, f->s);
            break;
        case TF_BYTES:
            for (unsigned j = 0; j < f->n && k + 3 < sizeof line; j++)
                k += (size_t)snprintf(line + k, sizeof line - k, "%02x", (const uint8_t)f->s[j]);
            if (!f->n)
                k += (size_t)snprintf(line + k, sizeof line - k, "-");
            break;
        }
    }
    if (k > sizeof line - 2)
        k = sizeof line - 2;
    line[k++] = '\n';
    if (s->limit && !last && s->bytes + k > s->limit)
        return false;
    s->bytes += k;
    text_put(s, line, k);
    return true;
}

static void text_flush(TraceSink *sink)
{
    text_write_all((TextSink *)sink);
}

static bool text_close(TraceSink *sink, Error *err)
{
    TextSink *s = (TextSink *)sink;
    text_write_all(s);
    bool ok = outfile_commit(&s->out, err);
    for (TextSink **pp = &open_text_sinks; *pp; pp = &(*pp)->next_open)
        if (*pp == s) {
            *pp = s->next_open;
            break;
        }
    free(s);
    return ok;
}

TraceSink *trace_text_sink_open(const char *path, uint64_t limit, Error *err)
{
    TextSink *s = xcalloc(1, sizeof *s);
    s->limit = limit;
    if (!outfile_open(&s->out, "--trace", path, err)) {
        free(s);
        return NULL;
    }
    s->sink.emit = text_emit;
    s->sink.flush = text_flush;
    s->sink.close = text_close;
    s->next_open = open_text_sinks;
    open_text_sinks = s;
    return &s->sink;
}

void trace_flush_all(void)
{
    for (TextSink *s = open_text_sinks; s; s = s->next_open)
        text_write_all(s);
}

void trace_rescue_all(void)
{
    for (TextSink *s = open_text_sinks; s; s = s->next_open)
        outfile_rescue(&s->out);
}
