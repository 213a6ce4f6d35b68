/* fuzz_trace.c — the text-trace reader and the comparison of `pmusim diff` (tracer/traceread.c,
 * tracer/tracediff.c).
 *
 * Input: byte 0 chooses the options (FT_*: --context 0 to 7, --ignore-field cycle, --ignore diag,
 * --ignore-field sym, the size of each read); the rest is trace A and, after the first form feed
 * ('\f', a control byte no valid trace holds), trace B; without one, B is A.  Both are read
 * from memory in reads of the chosen size (lines then straddle the reads at every offset).  The
 * diff goes to /dev/null.  Findings besides crashes: a result other than same / differ / bad; a
 * refusal without "NAME:LINE: " in front of its message; a trace that differs from itself.
 */
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "tracer/tracediff.h"

enum {
    FT_CONTEXT = 7,                 /* bits 0-2: --context */
    FT_IGNORE_CYCLE = 8,
    FT_IGNORE_DIAG = 16,
    FT_IGNORE_SYM = 32,
    FT_CHUNK_SHIFT = 6,             /* bits 6-7: the read size, from chunk_sizes[] */
};
#define FT_SEPARATOR '\f'

/* Small reads make every line straddle reads; the largest is the reader's own chunk. */
static const size_t chunk_sizes[] = { 61, 1000, 4099, TRACE_READ_CHUNK };

typedef struct MemSource {
    const uint8_t *p;
    size_t n, at, chunk;
} MemSource;

static ssize_t mem_fill(void *opaque, void *buf, size_t len)
{
    MemSource *m = opaque;
    size_t k = m->n - m->at;
    if (k > len)
        k = len;
    if (k > m->chunk)
        k = m->chunk;
    memcpy(buf, m->p + m->at, k);
    m->at += k;
    return (ssize_t)k;
}

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    devnull = fopen("/dev/null", "w");
    if (!devnull)
        fz_fail("cannot open /dev/null");
    return 0;
}

static void options(uint8_t b, DiffOptions *o)
{
    Error err = { { 0 } };
    diff_options_init(o);
    o->context = b & FT_CONTEXT;
    if ((b & FT_IGNORE_CYCLE) && !diff_ignore_fields(o, "cycle", &err))
        fz_fail("--ignore-field cycle refused: %s", err.msg);
    if ((b & FT_IGNORE_SYM) && !diff_ignore_fields(o, "sym,at", &err))
        fz_fail("--ignore-field sym,at refused: %s", err.msg);
    if ((b & FT_IGNORE_DIAG) && !diff_ignore_kinds(o, "diag", &err))
        fz_fail("--ignore diag refused: %s", err.msg);
}

/* A refusal names the side and a line: "A:12: ...". */
static void check_message(const char *msg, int side)
{
    const char *name = side ? "B:" : "A:";
    size_t k = strlen(name), d = strspn(msg + k, "0123456789");
    if (strncmp(msg, name, k) || !d || msg[k + d] != ':' || msg[k + d + 1] != ' ')
        fz_fail("a refusal without NAME:LINE: in front: \"%s\" (side %d)", msg, side);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    DiffOptions o;
    options(data[0], &o);
    size_t chunk = chunk_sizes[data[0] >> FT_CHUNK_SHIFT];
    const uint8_t *a = data + 1, *sep = memchr(a, FT_SEPARATOR, size - 1);
    size_t na = sep ? (size_t)(sep - a) : size - 1;
    MemSource src[DIFF_SIDES] = { { a, na, 0, chunk }, { sep ? sep + 1 : a, sep ? size - 1 - na - 1 : na, 0, chunk } };
    TraceReader rd[DIFF_SIDES], *r[DIFF_SIDES] = { &rd[0], &rd[1] };
    trace_reader_init(&rd[0], "A", mem_fill, &src[0]);
    trace_reader_init(&rd[1], "B", mem_fill, &src[1]);
    Error err = { { 0 } };
    int bad_side = -1;
    int rc = trace_diff(r, &o, devnull, &bad_side, &err);
    if (rc == DIFF_BAD) {
        check_message(err.msg, bad_side);
        fz_note("%s", err.msg);
    } else if (rc != DIFF_SAME && rc != DIFF_DIFFER) {
        fz_fail("trace_diff returned %d", rc);
    } else if (!sep && rc != DIFF_SAME) {
        fz_fail("a trace differs from itself");
    }
    trace_reader_free(&rd[0]);
    trace_reader_free(&rd[1]);
    return 0;
}
