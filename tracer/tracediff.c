/* tracediff.c — the first difference between two traces (tracediff.h).
 *
 * What is printed on a difference (docs/tools.md, "pmusim diff"):
 *
 *   RUN_A: <source>                          the two sides
 *   RUN_B: <source>
 *   first difference: event E (RUN_A line L, RUN_B line M); the E-1 events before it are the same
 *   [RUN_B ends first, at line M]            when one side's event is its exit line
 *   the N events before it, as RUN_A has them (lines RUN_A:RUN_B):
 *     L-N:M-N  <line>
 *   RUN_A line L: cycle C cpuN KIND pc=0x... sym=...   (or "no pc field")
 *     <line>
 *     ^^^^ under each differing token
 *   RUN_B line M: ...
 *   differs in: cycle, kind, <key>...
 */
#include "tracer/tracediff.h"

#include <stdlib.h>
#include <string.h>

/* What differs between two events: bits, and the fields' bits apart. */
enum { DIFF_CYCLE = 1, DIFF_CPU = 2, DIFF_KIND = 4, DIFF_FIELDS = 8 };

#define CYCLE_KEY "cycle"
#define LIST_ITEM_MAX 64            /* the longest kind or key name in an --ignore list */

void diff_options_init(DiffOptions *o)
{
    memset(o, 0, sizeof *o);
    o->context = DIFF_CONTEXT_DEFAULT;
    o->label[0] = "RUN_A";
    o->label[1] = "RUN_B";
}

/* Call fn on each comma-separated item of list; false at the first item it refuses. */
static bool each_item(DiffOptions *o, const char *list, bool (*fn)(DiffOptions *, const char *, Error *), Error *err)
{
    for (const char *p = list;;) {
        size_t n = strcspn(p, ",");
        char item[LIST_ITEM_MAX];
        snprintf(item, sizeof item, "%.*s", (int)(n < sizeof item - 1 ? n : sizeof item - 1), p);
        if (n >= sizeof item)
            return err_set(err, "%.*s...: no such name", LIST_ITEM_MAX / 2, p);
        if (!fn(o, item, err))
            return false;
        if (!p[n])
            return true;
        p += n + 1;
    }
}

static bool ignore_kind(DiffOptions *o, const char *name, Error *err)
{
    int k = trace_kind_by_name(name, strlen(name));
    if (k < 0)
        return err_set(err, "--ignore %s: no such event kind (docs/trace-format.md lists them)", name);
    o->ignore_kind[k] = true;
    return true;
}

static bool ignore_field(DiffOptions *o, const char *key, Error *err)
{
    bool found = !strcmp(key, CYCLE_KEY);
    o->ignore_cycle |= found;
    for (int k = 0; k < TK_COUNT; k++)
        for (int i = 0; i < trace_kinds[k].nfields; i++)
            if (!strcmp(trace_kinds[k].fields[i].key, key)) {
                o->ignore_field[k] |= 1u << i;
                found = true;
            }
    return found || err_set(err, "--ignore-field %s: no event kind has this key (docs/trace-format.md)", key);
}

bool diff_ignore_kinds(DiffOptions *o, const char *list, Error *err)
{
    return each_item(o, list, ignore_kind, err);
}

bool diff_ignore_fields(DiffOptions *o, const char *list, Error *err)
{
    return each_item(o, list, ignore_field, err);
}

/* ------------------------------------------------------------------ comparing */

static bool span_eq(const TraceRecord *a, const TraceRecord *b, TraceSpan x, TraceSpan y)
{
    return x.len == y.len && !memcmp(a->line + x.off, b->line + y.off, x.len);
}

/* What differs (DIFF_* bits), the differing fields' bits in *fields. */
static unsigned compare(const TraceRecord *a, const TraceRecord *b, const DiffOptions *o, uint32_t *fields)
{
    unsigned d = 0;
    *fields = 0;
    if (a->len == b->len && !memcmp(a->line, b->line, a->len))
        return 0;
    if (a->cycle != b->cycle && !o->ignore_cycle)
        d |= DIFF_CYCLE;
    if (a->cpu != b->cpu)
        d |= DIFF_CPU;
    if (a->kind != b->kind)
        return d | DIFF_KIND;
    const TraceKindDesc *k = &trace_kinds[a->kind];
    for (int i = 0; i < k->nfields; i++) {
        uint32_t bit = 1u << i;
        if (o->ignore_field[a->kind] & bit)
            continue;
        if ((a->present & bit) != (b->present & bit) || ((a->present & bit) && !span_eq(a, b, a->value[i], b->value[i])))
            *fields |= bit;
    }
    return d | (*fields ? DIFF_FIELDS : 0);
}

/* The next event of a side that the options do not skip: as trace_reader_next_as. */
static int next_kept(TraceReader *r, const DiffOptions *o, TraceRecord *rec, const TraceRecord *like, Error *err)
{
    int got;
    while ((got = trace_reader_next_as(r, rec, like, err)) == 1 && o->ignore_kind[rec->kind])
        ;
    return got;
}

/* ------------------------------------------------------------------ the context ring */

typedef struct Ring {
    char *text;                     /* cap slots of TRACE_LINE_MAX bytes */
    uint32_t *len;
    uint64_t *line[DIFF_SIDES];
    unsigned cap, n, head;          /* head: the oldest */
} Ring;

static void ring_init(Ring *g, unsigned cap)
{
    memset(g, 0, sizeof *g);
    g->cap = cap;
    if (!cap)
        return;
    g->text = xcalloc(cap, TRACE_LINE_MAX);
    g->len = xcalloc(cap, sizeof *g->len);
    for (int s = 0; s < DIFF_SIDES; s++)
        g->line[s] = xcalloc(cap, sizeof *g->line[s]);
}

static void ring_free(Ring *g)
{
    free(g->text);
    free(g->len);
    for (int s = 0; s < DIFF_SIDES; s++)
        free(g->line[s]);
}

static void ring_push(Ring *g, const TraceRecord *a, const TraceRecord *b)
{
    if (!g->cap)
        return;
    unsigned slot = (g->head + g->n) % g->cap;
    if (g->n == g->cap)
        g->head = (g->head + 1) % g->cap;
    else
        g->n++;
    memcpy(g->text + (size_t)slot * TRACE_LINE_MAX, a->line, a->len);
    g->len[slot] = a->len;
    g->line[0][slot] = a->lineno;
    g->line[1][slot] = b->lineno;
}

/* ------------------------------------------------------------------ the report */

#define INDENT "  "

static void print_context(const Ring *g, const DiffOptions *o, FILE *out)
{
    if (!g->n)
        return;
    fprintf(out, "the %u event%s before it, as %s has them (lines %s:%s):\n", g->n, g->n == 1 ? "" : "s",
            o->label[0], o->label[0], o->label[1]);
    for (unsigned i = 0; i < g->n; i++) {
        unsigned s = (g->head + i) % g->cap;
        fprintf(out, INDENT "%" PRIu64 ":%" PRIu64 "  %.*s\n", g->line[0][s], g->line[1][s], (int)g->len[s],
                g->text + (size_t)s * TRACE_LINE_MAX);
    }
}

static void print_span(const TraceRecord *r, TraceSpan s, FILE *out)
{
    fprintf(out, "%.*s", (int)s.len, r->line + s.off);
}

/* "cycle C cpuN KIND pc=0x... sym=..." (or what the event lacks). */
static void print_summary(const TraceRecord *r, FILE *out)
{
    int pc, sym;
    fprintf(out, "cycle %" PRIu64 " ", r->cycle);
    print_span(r, r->tok[TRACE_TOK_CPU], out);
    fprintf(out, " %s ", trace_kinds[r->kind].name);
    if (!trace_record_pc(r, &pc, &sym))
        fprintf(out, "(no pc field in a %s event)", trace_kinds[r->kind].name);
    else if (pc < 0)
        fputs("(no pc on this line)", out);
    else
        print_span(r, r->item[pc], out);
    if (pc >= 0 && sym >= 0) {
        fputc(' ', out);
        print_span(r, r->item[sym], out);
    }
    fputc('\n', out);
}

static void mark(char *carets, TraceSpan s)
{
    memset(carets + s.off, '^', s.len);
}

/* The line and, under it, ^ under every token that differs. */
static void print_marked(const TraceRecord *r, unsigned d, uint32_t fields, FILE *out)
{
    char carets[TRACE_LINE_MAX];
    memset(carets, ' ', r->len);
    if (d & DIFF_CYCLE)
        mark(carets, r->tok[TRACE_TOK_CYCLE]);
    if (d & DIFF_CPU)
        mark(carets, r->tok[TRACE_TOK_CPU]);
    if (d & DIFF_KIND)
        mark(carets, r->tok[TRACE_TOK_KIND]);
    for (int i = 0; i < TRACE_MAX_FIELDS; i++)
        if ((fields & r->present) >> i & 1)
            mark(carets, r->item[i]);
    size_t n = r->len;
    while (n && carets[n - 1] == ' ')
        n--;
    fprintf(out, INDENT "%.*s\n" INDENT "%.*s\n", (int)r->len, r->line, (int)n, carets);
}

static void print_differs(const TraceRecord *a, unsigned d, uint32_t fields, FILE *out)
{
    static const char *const heads[] = { CYCLE_KEY, "cpu", "kind" };
    const char *sep = "differs in: ";
    for (unsigned b = 0; b < ARRAY_SIZE(heads); b++)
        if (d >> b & 1) {
            fprintf(out, "%s%s", sep, heads[b]);
            sep = ", ";
        }
    for (int i = 0; i < trace_kinds[a->kind].nfields; i++)
        if (fields >> i & 1) {
            fprintf(out, "%s%s", sep, trace_kinds[a->kind].fields[i].key);
            sep = ", ";
        }
    fputc('\n', out);
}

static void print_sources(const DiffOptions *o, FILE *out)
{
    for (int s = 0; s < DIFF_SIDES; s++)
        fprintf(out, "%s: %s\n", o->label[s], o->source[s] ? o->source[s] : "");
}

/* One side's exit line against the other's event: that side ends first. */
static void print_ends(const TraceRecord *rec[DIFF_SIDES], const DiffOptions *o, FILE *out)
{
    for (int s = 0; s < DIFF_SIDES; s++)
        if (rec[s]->kind == TK_EXIT && rec[!s]->kind != TK_EXIT)
            fprintf(out, "%s ends first, at line %" PRIu64 " (%.*s)\n", o->label[s], rec[s]->lineno, (int)rec[s]->len,
                    rec[s]->line);
}

static void report(const TraceRecord *rec[DIFF_SIDES], unsigned d, uint32_t fields, uint64_t event, const Ring *g,
                   const DiffOptions *o, FILE *out)
{
    print_sources(o, out);
    fprintf(out, "first difference: event %" PRIu64 " (%s line %" PRIu64 ", %s line %" PRIu64 "); the %" PRIu64
            " event%s before it %s the same\n", event, o->label[0], rec[0]->lineno, o->label[1], rec[1]->lineno,
            event - 1, event == 2 ? "" : "s", event == 2 ? "is" : "are");
    print_ends(rec, o, out);
    print_context(g, o, out);
    for (int s = 0; s < DIFF_SIDES; s++) {
        fprintf(out, "%s line %" PRIu64 ": ", o->label[s], rec[s]->lineno);
        print_summary(rec[s], out);
        print_marked(rec[s], d, fields, out);
    }
    print_differs(rec[0], d, fields, out);
}

/* One side has no more events (its exit line ignored by --ignore exit) and the other has. */
static void report_end(int ended, const TraceRecord *other, const TraceReader *r[DIFF_SIDES], uint64_t event,
                       const Ring *g, const DiffOptions *o, FILE *out)
{
    print_sources(o, out);
    fprintf(out, "first difference: event %" PRIu64 ": %s ends after line %" PRIu64 ", %s goes on\n", event,
            o->label[ended], r[ended]->lineno, o->label[!ended]);
    print_context(g, o, out);
    fprintf(out, "%s line %" PRIu64 ": ", o->label[!ended], other->lineno);
    print_summary(other, out);
    fprintf(out, INDENT "%.*s\n", (int)other->len, other->line);
}

int trace_diff(TraceReader *r[DIFF_SIDES], const DiffOptions *o, FILE *out, int *bad_side, Error *err)
{
    Ring g;
    ring_init(&g, o->context);
    TraceRecord rec[DIFF_SIDES];
    int result = DIFF_SAME;
    for (uint64_t event = 1;; event++) {
        int got[DIFF_SIDES];
        for (int s = 0; s < DIFF_SIDES; s++)
            if ((got[s] = next_kept(r[s], o, &rec[s], s && got[0] ? &rec[0] : NULL, err)) < 0) {
                *bad_side = s;
                result = DIFF_BAD;
                goto done;
            }
        if (!got[0] && !got[1]) {
            fprintf(out, "identical: %" PRIu64 " events (%s %" PRIu64 " lines, %s %" PRIu64 " lines)\n", event - 1,
                    o->label[0], r[0]->lineno, o->label[1], r[1]->lineno);
            break;
        }
        result = DIFF_DIFFER;
        if (!got[0] || !got[1]) {
            report_end(!got[0] ? 0 : 1, &rec[!got[0] ? 1 : 0], (const TraceReader **)r, event, &g, o, out);
            break;
        }
        uint32_t fields;
        unsigned d = compare(&rec[0], &rec[1], o, &fields);
        if (d) {
            report((const TraceRecord *[]){ &rec[0], &rec[1] }, d, fields, event, &g, o, out);
            break;
        }
        result = DIFF_SAME;
        ring_push(&g, &rec[0], &rec[1]);
    }
done:
    ring_free(&g);
    return result;
}
