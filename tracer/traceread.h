/* traceread.h — a streaming reader of the text trace (docs/trace-format.md), for `pmusim diff`.
 *
 * Line format, as base/trace.c's text sink writes it and this reader checks it:
 *
 *   <cycle> cpu<N> <kind> <key>=<value> ...      (or <cycle> machine <kind> ...)
 *
 *   cycle     decimal, canonical (no leading zero), at most 2^64 - 1
 *   cpu<N>    N decimal, canonical, at most TRACE_READ_MAX_CPU; or the word `machine`
 *   kind      one of trace_kinds[] (base/trace-events)
 *   fields    the kind's keys in their declared order, one space apart; a field marked optional
 *             (`?`) may be absent; a sym(KEY) field is present exactly when KEY is
 *   values    hex: 0x and 1 to 16 lowercase digits, canonical; dec: canonical decimal up to
 *             2^64 - 1; str and sym: a bare word (no space, quote, backslash or control byte) or
 *             a "quoted string" with \" \\ \xNN escapes; bytes: pairs of lowercase hex digits,
 *             or - when empty
 *
 * The numbers are held in the canonical form pmusim writes, so two values are equal exactly when
 * their bytes are.  The `exit` line ends the trace: a line after it, a file that ends without
 * it, a last line without its newline, a line longer than TRACE_LINE_MAX bytes or with a control
 * byte, one below 0x20 (a binary file), is refused as "FILE:LINE: what".
 *
 * Memory is constant: a buffer of TRACE_READ_BUF bytes per reader, allocated once; a record
 * points into it and is valid until the next call.  The reader has no global state, so two of
 * them (one per side of a diff) run side by side.  Input comes through a fill function, so the
 * same reader takes a file, a pipe from a child run, or a fuzzer's bytes.
 */
#ifndef PMUSIM_TRACEREAD_H
#define PMUSIM_TRACEREAD_H

#include <sys/types.h>

#include "base/trace_events.h"

/* The longest line accepted, its newline included.  The text sink writes lines of at most 1023
 * bytes (base/trace.c, text_emit); the margin is for keys appended later. */
#define TRACE_LINE_MAX 4096
/* Bytes read per fill (a multiple of the page size; a line never straddles more than two). */
#define TRACE_READ_CHUNK (1 << 18)
#define TRACE_READ_BUF (TRACE_READ_CHUNK + TRACE_LINE_MAX)
/* The highest CPU number a line may name (pmusim has at most 16; the margin is for later). */
#define TRACE_READ_MAX_CPU 65535

/* The three tokens before the fields, for messages and highlighting. */
enum { TRACE_TOK_CYCLE, TRACE_TOK_CPU, TRACE_TOK_KIND, TRACE_TOKS };

/* A slice of the line: offset and length (a line is shorter than 64 KiB). */
typedef struct TraceSpan {
    uint16_t off, len;
} TraceSpan;

typedef struct TraceRecord {
    const char *line;               /* without its newline; in the reader's buffer */
    uint32_t len;
    uint64_t lineno;                /* 1-based */
    uint64_t cycle;
    int cpu;                        /* -1: the machine */
    TraceKind kind;
    uint32_t present;               /* bit i: the kind's field i (trace_kinds[kind].fields[i]) is there */
    TraceSpan tok[TRACE_TOKS];
    TraceSpan item[TRACE_MAX_FIELDS];   /* field i as key=value */
    TraceSpan value[TRACE_MAX_FIELDS];  /* field i's value */
} TraceRecord;

/* Up to len bytes into buf: the count, 0 at the end, -1 with errno set. */
typedef ssize_t (*TraceFill)(void *opaque, void *buf, size_t len);

typedef struct TraceReader {
    const char *name;               /* for messages: the file, or "RUN_A" */
    TraceFill fill;
    void *opaque;
    char *buf;                      /* TRACE_READ_BUF bytes */
    size_t pos, end;                /* unread bytes: buf[pos, end) */
    uint64_t lineno;                /* lines returned so far */
    bool eof;                       /* fill said 0 */
    bool ended;                     /* the exit line was read */
} TraceReader;

/* A reader of fd (read(2)); name for messages.  The caller keeps and closes fd. */
void trace_reader_init_fd(TraceReader *r, const char *name, int *fd);
void trace_reader_init(TraceReader *r, const char *name, TraceFill fill, void *opaque);
void trace_reader_free(TraceReader *r);

/* The next event: 1 and *rec; 0 after the exit line (the end); -1 with err set
 * ("FILE:LINE: what"). */
int trace_reader_next(TraceReader *r, TraceRecord *rec, Error *err);
/* The same, where `like` (if not NULL) is a record just read from another trace: a line with the
 * same bytes is the same event, taken without parsing it again (a diff parses the lines the two
 * traces share once). */
int trace_reader_next_as(TraceReader *r, TraceRecord *rec, const TraceRecord *like, Error *err);

/* Check and split one line (without its newline) into *rec; false with a message in why ("field
 * msr: expected 0x and hex digits, at column 40"). */
bool trace_parse_line(const char *line, size_t len, TraceRecord *rec, char *why, size_t why_len);

/* The kind's index in trace_kinds[] by name, or -1. */
int trace_kind_by_name(const char *name, size_t len);

/* The address a record is about and its symbol's value: the kind's `pc` field if it has one,
 * else the address field of its first sym field (`from` of an exception); *addr_field and
 * *sym_field the fields' indexes (-1: the kind has none, or the line not).  False if the kind has
 * no such field at all. */
bool trace_record_pc(const TraceRecord *rec, int *addr_field, int *sym_field);

#endif
