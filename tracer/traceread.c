/* traceread.c — the streaming text-trace reader (traceread.h; the format: docs/trace-format.md).
 *
 *   buf: [ consumed | pos .. end: unread | free ]      TRACE_READ_BUF bytes, allocated once
 *
 * A line is found with memchr; when the unread bytes hold no newline they move to the front and
 * one fill appends at most TRACE_READ_CHUNK more.  Parsing works on the line in place: every
 * token is a span of it, so nothing is copied or allocated per event.
 */
#include "tracer/traceread.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEX_PREFIX_LEN 2
#define HEX_DIGITS_MAX 16           /* a 64-bit value */
#define DEC_DIGITS_MAX 20           /* 18446744073709551615 */
#define CPU_PREFIX "cpu"
#define MACHINE_WORD "machine"

static ssize_t fd_fill(void *opaque, void *buf, size_t len)
{
    ssize_t n;
    do
        n = read(*(int *)opaque, buf, len);
    while (n < 0 && errno == EINTR);
    return n;
}

void trace_reader_init(TraceReader *r, const char *name, TraceFill fill, void *opaque)
{
    memset(r, 0, sizeof *r);
    r->name = name;
    r->fill = fill;
    r->opaque = opaque;
    r->buf = xcalloc(1, TRACE_READ_BUF);
}

void trace_reader_init_fd(TraceReader *r, const char *name, int *fd)
{
    trace_reader_init(r, name, fd_fill, fd);
}

void trace_reader_free(TraceReader *r)
{
    free(r->buf);
    r->buf = NULL;
}

/* Whether s[0, n) is the string lit (a loop, not strncmp: the names are a few bytes and the
 * call was a sixth of the reader's time). */
static inline bool span_is(const char *lit, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (lit[i] != s[i])
            return false;
    return !lit[n];
}

int trace_kind_by_name(const char *name, size_t len)
{
    for (int k = 0; k < TK_COUNT; k++)
        if (span_is(trace_kinds[k].name, name, len))
            return k;
    return -1;
}

/* ------------------------------------------------------------------ one line */

typedef struct Cursor {
    const char *p;
    size_t len, at;
    char *why;
    size_t why_len;
} Cursor;

static bool fail(Cursor *c, const char *what, const char *detail)
{
    snprintf(c->why, c->why_len, "%s%s, at column %zu", what, detail, c->at + 1);
    return false;
}

static bool is_hex_lower(char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
}

static bool is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

/* A canonical decimal number of [s, s+n): digits, no leading zero, no overflow. */
static bool parse_dec(const char *s, size_t n, uint64_t *v)
{
    if (!n || n > DEC_DIGITS_MAX || (s[0] == '0' && n > 1))
        return false;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++)
        if (!is_digit(s[i]) || __builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, (uint64_t)(s[i] - '0'), &x))
            return false;
    *v = x;
    return true;
}

static bool check_bytes(const char *s, size_t n)
{
    if (n == 1 && s[0] == '-')
        return true;
    if (!n || n % 2)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!is_hex_lower(s[i]))
            return false;
    return true;
}

/* The end of a quoted string starting at c->p[c->at] ('"'): the index after its closing quote,
 * or 0 if it has none or a bad escape. */
static size_t quoted_end(const Cursor *c)
{
    for (size_t i = c->at + 1; i < c->len; i++) {
        if (c->p[i] == '"')
            return i + 1;
        if (c->p[i] != '\\')
            continue;
        if (i + 1 < c->len && (c->p[i + 1] == '"' || c->p[i + 1] == '\\'))
            i++;
        else if (i + 3 < c->len && c->p[i + 1] == 'x' && is_hex_lower(c->p[i + 2]) && is_hex_lower(c->p[i + 3]))
            i += 3;
        else
            return 0;
    }
    return 0;
}

/* The end of the word from `from`: the next space or the end of the line. */
static inline size_t word_end(const Cursor *c, size_t from)
{
    size_t e = from;
    while (e < c->len && c->p[e] != ' ')
        e++;
    return e;
}

/* The end of the value at value_at: a word, or a whole quoted string (len + 1: unterminated). */
static size_t value_end(const Cursor *c, size_t value_at)
{
    if (value_at < c->len && c->p[value_at] == '"') {
        Cursor q = *c;
        q.at = value_at;
        size_t e = quoted_end(&q);
        return e ? e : c->len + 1;
    }
    return word_end(c, value_at);
}

/* Move past the separator after a token ending at e. */
static bool next_token(Cursor *c, size_t e, bool more_expected)
{
    if (e == c->len) {
        c->at = e;
        return !more_expected || fail(c, "the line ends early", "");
    }
    c->at = e;
    if (c->p[e] != ' ')
        return fail(c, "expected a space after a value", "");
    c->at = e + 1;
    if (c->at == c->len || c->p[c->at] == ' ')
        return fail(c, "an empty field (two spaces, or a space at the end)", "");
    return true;
}

/* A hex value from vs, checked while its end is found (the commonest value: one pass over it). */
static size_t scan_hex(const Cursor *c, size_t vs, bool *ok)
{
    const char *p = c->p;
    bool good = c->len - vs > HEX_PREFIX_LEN && p[vs] == '0' && p[vs + 1] == 'x';
    size_t e = good ? vs + HEX_PREFIX_LEN : vs;
    for (; e < c->len && p[e] != ' '; e++)
        good &= is_hex_lower(p[e]);
    size_t digits = e - vs - HEX_PREFIX_LEN;
    *ok = good && digits >= 1 && digits <= HEX_DIGITS_MAX && !(p[vs + HEX_PREFIX_LEN] == '0' && digits > 1);
    return e;
}

/* A bare word from vs, checked while its end is found. */
static size_t scan_bare(const Cursor *c, size_t vs, bool *ok)
{
    size_t e = vs;
    bool good = true;
    for (; e < c->len && c->p[e] != ' '; e++)
        good &= c->p[e] != '"' && c->p[e] != '\\';
    *ok = good && e > vs;
    return e;
}

/* The end of the value of type t at vs (len + 1: an unterminated quoted string); *ok: whether it
 * is one of that type. */
static size_t scan_value(const Cursor *c, size_t vs, TraceFieldType t, bool *ok)
{
    size_t e;
    switch (t) {
    case TF_HEX:
        return scan_hex(c, vs, ok);
    case TF_STR:
    case TF_SYM:
        if (vs < c->len && c->p[vs] == '"') {
            *ok = true;
            return value_end(c, vs);
        }
        return scan_bare(c, vs, ok);
    case TF_DEC:
        e = word_end(c, vs);
        *ok = parse_dec(c->p + vs, e - vs, &(uint64_t){ 0 });
        return e;
    case TF_BYTES:
        e = word_end(c, vs);
        *ok = check_bytes(c->p + vs, e - vs);
        return e;
    }
    *ok = false;
    return word_end(c, vs);
}

static const char *type_wants(TraceFieldType t)
{
    switch (t) {
    case TF_HEX:   return ": expected 0x and lowercase hex digits, without leading zeros";
    case TF_DEC:   return ": expected a decimal number below 2^64, without leading zeros";
    case TF_BYTES: return ": expected pairs of lowercase hex digits, or -";
    default:       return ": expected a word or a \"quoted string\"";
    }
}

#define BYTES_ONES 0x0101010101010101ull
#define BYTES_HIGHS 0x8080808080808080ull

/* Whether any byte of x is below n (n <= 128): Bit Twiddling Hacks (S. E. Anderson), "Determine
 * if a word has a byte less than n". */
static inline bool has_less(uint64_t x, unsigned n)
{
    return (x - BYTES_ONES * n) & ~x & BYTES_HIGHS;
}

/* The index of the first control byte of p[0, n) (a binary file has them), or n: eight bytes at
 * a time while none is below 0x20.  (DEL and bytes from 0x80 are text: the sink writes a guest's
 * symbol names unquoted unless they hold a space, a quote, a backslash or a byte below 0x20.) */
static size_t first_control(const char *p, size_t n)
{
    size_t i = 0;
    for (; i + sizeof(uint64_t) <= n; i += sizeof(uint64_t)) {
        uint64_t x;
        memcpy(&x, p + i, sizeof x);
        if (has_less(x, ' '))
            break;
    }
    for (; i < n; i++)
        if ((unsigned char)p[i] < ' ')
            return i;
    return n;
}

static bool control_free(Cursor *c)
{
    size_t i = first_control(c->p, c->len);
    if (i == c->len)
        return true;
    char d[48];
    snprintf(d, sizeof d, " 0x%02x: not a text trace", (unsigned char)c->p[i]);
    c->at = i;
    return fail(c, "a control byte", d);
}

static bool parse_head(Cursor *c, TraceRecord *rec)
{
    size_t e = word_end(c, 0);
    rec->tok[TRACE_TOK_CYCLE] = (TraceSpan){ 0, (uint16_t)e };
    if (!parse_dec(c->p, e, &rec->cycle))
        return fail(c, "expected the cycle: a decimal number below 2^64, without leading zeros", "");
    if (!next_token(c, e, true))
        return false;
    size_t s = c->at;
    e = word_end(c, s);
    rec->tok[TRACE_TOK_CPU] = (TraceSpan){ (uint16_t)s, (uint16_t)(e - s) };
    uint64_t cpu = 0;
    size_t pl = strlen(CPU_PREFIX);
    if (e - s == strlen(MACHINE_WORD) && !memcmp(c->p + s, MACHINE_WORD, e - s))
        rec->cpu = -1;
    else if (e - s > pl && !memcmp(c->p + s, CPU_PREFIX, pl) && parse_dec(c->p + s + pl, e - s - pl, &cpu) &&
             cpu <= TRACE_READ_MAX_CPU)
        rec->cpu = (int)cpu;
    else
        return fail(c, "expected cpu<N> (N up to 65535, no leading zeros) or machine", "");
    if (!next_token(c, e, true))
        return false;
    s = c->at;
    e = word_end(c, s);
    rec->tok[TRACE_TOK_KIND] = (TraceSpan){ (uint16_t)s, (uint16_t)(e - s) };
    int k = trace_kind_by_name(c->p + s, e - s);
    if (k < 0)
        return fail(c, "unknown event kind (base/trace-events lists them)", "");
    rec->kind = (TraceKind)k;
    return next_token(c, e, false);
}

/* The index of key [s, s+n) among the kind's fields from `from` on, or -1. */
static int field_index(const TraceKindDesc *d, int from, const char *s, size_t n)
{
    for (int i = from; i < d->nfields; i++)
        if (span_is(d->fields[i].key, s, n))
            return i;
    return -1;
}

/* Whether field i must be on the line, given the fields present so far (a sym follows its
 * address field). */
static bool field_required(const TraceKindDesc *d, const TraceRecord *rec, int i)
{
    const TraceKindField *f = &d->fields[i];
    if (f->type == TF_SYM && f->sym_of >= 0)
        return rec->present >> f->sym_of & 1;
    return !f->optional;
}

static bool skip_to(Cursor *c, const TraceKindDesc *d, const TraceRecord *rec, int from, int to)
{
    for (int i = from; i < to; i++)
        if (field_required(d, rec, i)) {
            char d2[80];
            snprintf(d2, sizeof d2, " %s", d->fields[i].key);
            return fail(c, "missing field", d2);
        }
    return true;
}

static bool parse_field(Cursor *c, const TraceKindDesc *d, TraceRecord *rec, int *next)
{
    size_t ks = c->at, eq = ks;
    while (eq < c->len && c->p[eq] != '=' && c->p[eq] != ' ')
        eq++;
    if (eq == c->len || c->p[eq] != '=')
        return fail(c, "expected key=value", "");
    size_t kl = eq - ks, vs = eq + 1;
    int i = field_index(d, *next, c->p + ks, kl);
    if (i < 0) {
        char d2[80];
        snprintf(d2, sizeof d2, " %.*s for %s (or out of order)", (int)(kl < 40 ? kl : 40), c->p + ks, d->name);
        return fail(c, "unknown key", d2);
    }
    if (!skip_to(c, d, rec, *next, i))
        return false;
    bool ok;
    size_t e = scan_value(c, vs, d->fields[i].type, &ok);
    if (e > c->len) {
        c->at = vs;
        return fail(c, "an unterminated or badly escaped quoted string", "");
    }
    if (d->fields[i].type == TF_SYM && d->fields[i].sym_of >= 0 && !(rec->present >> d->fields[i].sym_of & 1))
        return fail(c, "a symbol without its address field", "");
    if (!ok) {
        c->at = vs;
        char d2[160];
        snprintf(d2, sizeof d2, " %s%s", d->fields[i].key, type_wants(d->fields[i].type));
        return fail(c, "bad value of field", d2);
    }
    rec->present |= 1u << i;
    rec->item[i] = (TraceSpan){ (uint16_t)ks, (uint16_t)(e - ks) };
    rec->value[i] = (TraceSpan){ (uint16_t)vs, (uint16_t)(e - vs) };
    *next = i + 1;
    return next_token(c, e, false);
}

bool trace_parse_line(const char *line, size_t len, TraceRecord *rec, char *why, size_t why_len)
{
    Cursor c = { line, len, 0, why, why_len };
    rec->line = line;
    rec->len = (uint32_t)len;
    rec->present = 0;
    if (len >= TRACE_LINE_MAX)
        return fail(&c, "a line longer than TRACE_LINE_MAX (4096) bytes", "");
    if (!control_free(&c))
        return false;
    if (!parse_head(&c, rec))
        return false;
    const TraceKindDesc *d = &trace_kinds[rec->kind];
    int next = 0;
    while (c.at < len)
        if (!parse_field(&c, d, rec, &next))
            return false;
    return skip_to(&c, d, rec, next, d->nfields);
}

bool trace_record_pc(const TraceRecord *rec, int *addr_field, int *sym_field)
{
    const TraceKindDesc *d = &trace_kinds[rec->kind];
    int a = field_index(d, 0, "pc", strlen("pc"));
    *addr_field = *sym_field = -1;
    for (int i = 0; i < d->nfields; i++) {
        const TraceKindField *f = &d->fields[i];
        if (f->type == TF_SYM && (a < 0 ? *sym_field < 0 : f->sym_of == a)) {
            *sym_field = i;
            if (a < 0)
                a = f->sym_of;
        }
    }
    if (a < 0)
        return false;
    *addr_field = rec->present >> a & 1 ? a : -1;
    if (*sym_field >= 0 && !(rec->present >> *sym_field & 1))
        *sym_field = -1;
    return true;
}

/* ------------------------------------------------------------------ the stream */

static int refuse(TraceReader *r, uint64_t line, Error *err, const char *what)
{
    err_set(err, "%s:%" PRIu64 ": %s", r->name, line, what);
    return -1;
}

/* The next line has no newline in its first TRACE_LINE_MAX bytes: a control byte there says
 * binary, else it is too long. */
static int too_long(TraceReader *r, Error *err)
{
    char what[160];
    size_t i = first_control(r->buf + r->pos, TRACE_LINE_MAX);
    if (i < TRACE_LINE_MAX)
        snprintf(what, sizeof what, "a control byte 0x%02x: not a text trace, at column %zu",
                 (unsigned char)r->buf[r->pos + i], i + 1);
    else
        snprintf(what, sizeof what, "a line longer than %d bytes (TRACE_LINE_MAX, newline included)", TRACE_LINE_MAX);
    return refuse(r, r->lineno + 1, err, what);
}

/* More bytes after the unread ones: 1, 0 at the end, -1 with err set. */
static int fill_more(TraceReader *r, Error *err)
{
    if (r->pos) {
        memmove(r->buf, r->buf + r->pos, r->end - r->pos);
        r->end -= r->pos;
        r->pos = 0;
    }
    size_t room = TRACE_READ_BUF - r->end;
    ssize_t n = r->fill(r->opaque, r->buf + r->end, room < TRACE_READ_CHUNK ? room : TRACE_READ_CHUNK);
    if (n < 0)
        return refuse(r, r->lineno + 1, err, strerror(errno));
    r->end += (size_t)n;
    r->eof = n == 0;
    return n > 0;
}

/* The next line's extent in buf: 1, 0 at the end of the input, -1 with err set. */
static int next_line(TraceReader *r, size_t *len, Error *err)
{
    for (;;) {
        const char *nl = memchr(r->buf + r->pos, '\n', r->end - r->pos);
        size_t n = nl ? (size_t)(nl - (r->buf + r->pos)) : r->end - r->pos;
        if (n >= TRACE_LINE_MAX)
            return too_long(r, err);
        if (nl) {
            *len = n;
            return 1;
        }
        int got = r->eof ? 0 : fill_more(r, err);
        if (got < 0)
            return -1;
        if (!got && r->pos == r->end)
            return 0;
        if (!got)
            return refuse(r, r->lineno + 1, err, "the last line has no newline: the trace is truncated");
    }
}

int trace_reader_next(TraceReader *r, TraceRecord *rec, Error *err)
{
    return trace_reader_next_as(r, rec, NULL, err);
}

/* The line's bytes are like's: the same event, parsed already. */
static bool same_line(const TraceRecord *like, const char *line, size_t len, TraceRecord *rec)
{
    if (!like || like->len != len || memcmp(like->line, line, len))
        return false;
    *rec = *like;                   /* (the spans are offsets into the line) */
    rec->line = line;
    return true;
}

int trace_reader_next_as(TraceReader *r, TraceRecord *rec, const TraceRecord *like, Error *err)
{
    size_t len;
    int got = next_line(r, &len, err);
    if (got < 0)
        return -1;
    if (!got && !r->ended)
        return refuse(r, r->lineno ? r->lineno : 1, err,
                      r->lineno ? "the trace ends without its exit line: it is truncated" : "empty: not a trace");
    if (!got)
        return 0;
    if (r->ended)
        return refuse(r, r->lineno + 1, err, "a line after the exit line");
    r->lineno++;
    char why[256];
    if (!same_line(like, r->buf + r->pos, len, rec) && !trace_parse_line(r->buf + r->pos, len, rec, why, sizeof why))
        return refuse(r, r->lineno, err, why);
    rec->lineno = r->lineno;
    r->pos += len + 1;
    r->ended = rec->kind == TK_EXIT;
    return 1;
}
