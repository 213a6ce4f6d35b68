/* guesttrace.c — the guest's trace rings in ftrace's text formats (see guesttrace.h). */
#include "tracer/guesttrace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/loader.h"
#include "base/mem.h"

#define TB_MAGIC 0x504d5442u        /* "PMTB" */
#define TB_VERSION 1
#define TB_HDR 32                   /* magic .. clock_hz */
#define TB_CPU 40                   /* struct trace_cpu_buffer */
#define TB_ENTRY 32                 /* struct trace_entry */
#define TB_MAX_CPUS 16              /* the guests' MAX_CPUS: the descriptor's array size */

typedef GuestTraceEntry Entry;

/* The decoder's view: the image and memory the rings are in, and what it has read (gt). */
typedef struct Rings {
    const Image *im;
    GuestMem *mem;
    bool be;
    GuestTrace *gt;
} Rings;

static uint64_t rd(const Rings *r, const uint8_t *p, unsigned n)
{
    return r->be ? load_be(p, n) : load_le(p, n);
}

static const char *fn_name(const Image *im, uint64_t addr, char *buf, size_t len)
{
    uint64_t off;
    const Symbol *s = image_symbol_at(im, addr, &off);
    if (s)
        snprintf(buf, len, "%s", s->name);
    else
        snprintf(buf, len, "0x%" PRIx64, addr);
    return buf;
}

bool guesttrace_present(const Image *im)
{
    uint64_t a;
    return image_symbol_addr(im, "trace_buffers", &a);
}

bool guesttrace_check(const Image *im, Error *err)
{
    if (!guesttrace_present(im))
        return err_set(err, "%s: no trace_buffers symbol: this guest keeps no trace rings (--guest-trace)",
                         im->path);
    return true;
}

static int cmp_entry(const void *a, const void *b)
{
    const Entry *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->cpu != y->cpu)
        return x->cpu < y->cpu ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* One CPU's ring (struct trace_cpu_buffer at cb): its entries overrun .. written - 1 appended to
 * gt->e, *cap the room there. */
static bool read_cpu_ring(Rings *r, uint32_t c, const uint8_t *cb, size_t *cap, Error *err)
{
    GuestTrace *gt = r->gt;
    uint64_t base = rd(r, cb, 8), size = rd(r, cb + 8, 8), written = rd(r, cb + 16, 8), overrun = rd(r, cb + 24, 8);
    if (overrun > written || written - overrun > size)
        return err_set(err, "trace_buffers: cpu %u: written %" PRIu64 ", overrun %" PRIu64 ", size %" PRIu64
                         ": inconsistent", c, written, overrun, size);
    uint64_t count = written - overrun;
    if (!count)
        return true;
    if (size > (1ull << 32) / TB_ENTRY)
        return err_set(err, "trace_buffers: cpu %u: %" PRIu64 " entries is too large", c, size);
    /* the guest's own pointer: a link address, loaded where the image's segments say */
    const uint8_t *ring = mem_ptr(r->mem, image_load_addr(r->im, base), size * TB_ENTRY);
    if (!ring)
        return err_set(err, "trace_buffers: cpu %u: ring at 0x%" PRIx64 " (%" PRIu64 " entries) is not in guest RAM",
                         c, base, size);
    gt->in_buffer += count;
    gt->written += written;
    if (gt->n + count > *cap) {
        *cap = gt->n + count + *cap;
        gt->e = xrealloc(gt->e, *cap * sizeof *gt->e);
    }
    for (uint64_t k = overrun; k < written; k++) {
        const uint8_t *p = ring + (k % size) * TB_ENTRY;
        gt->e[gt->n++] = (Entry){ (uint16_t)rd(r, p, 2), p[2], p[3], rd(r, p + 8, 8), rd(r, p + 16, 8),
                                  rd(r, p + 24, 8), (int)c, k };
    }
    return true;
}

/* The descriptor at the `trace_buffers` symbol (docs/trace-format.md, "Guest trace buffers"). */
static const uint8_t *read_descriptor(Rings *r, Error *err)
{
    const Image *im = r->im;
    GuestTrace *gt = r->gt;
    uint64_t va;
    if (!image_symbol_addr(im, "trace_buffers", &va))
        return err_set(err, "%s: no trace_buffers symbol", im->path), NULL;
    uint64_t pa = image_load_addr(im, va);
    const uint8_t *d = mem_ptr(r->mem, pa, TB_HDR + TB_MAX_CPUS * TB_CPU);
    if (!d)
        return err_set(err, "trace_buffers at 0x%" PRIx64 " is not in guest RAM", pa), NULL;
    r->be = im->big_endian;
    if (rd(r, d, 4) != TB_MAGIC)
        return err_set(err, "trace_buffers at 0x%" PRIx64 ": no magic: the guest never set up its trace rings", pa), NULL;
    if (rd(r, d + 4, 4) != TB_VERSION || rd(r, d + 12, 4) != TB_ENTRY)
        return err_set(err, "trace_buffers at 0x%" PRIx64 ": version %" PRIu64 ", entry size %" PRIu64
                         " (expected %d and %d)", pa, rd(r, d + 4, 4), rd(r, d + 12, 4), TB_VERSION, TB_ENTRY), NULL;
    gt->nr_cpus = (uint32_t)rd(r, d + 8, 4);
    gt->tracer = (uint32_t)rd(r, d + 16, 4);
    gt->hz = rd(r, d + 24, 8);
    if (gt->nr_cpus == 0 || gt->nr_cpus > TB_MAX_CPUS || !gt->hz)
        return err_set(err, "trace_buffers at 0x%" PRIx64 ": %u cpus, clock %" PRIu64 " Hz: not a valid descriptor",
                         pa, gt->nr_cpus, gt->hz), NULL;
    return d;
}

bool guesttrace_read(const Image *im, GuestMem *mem, GuestTrace *gt, Error *err)
{
    memset(gt, 0, sizeof *gt);
    Rings r = { .im = im, .mem = mem, .gt = gt };
    const uint8_t *d = read_descriptor(&r, err);
    if (!d)
        return false;
    size_t cap = 0;
    for (uint32_t c = 0; c < gt->nr_cpus; c++)
        if (!read_cpu_ring(&r, c, d + TB_HDR + c * TB_CPU, &cap, err))
            return false;
    if (gt->n)                      /* empty rings: no array at all, and qsort must not see NULL */
        qsort(gt->e, gt->n, sizeof *gt->e, cmp_entry);
    return true;
}

void guesttrace_free(GuestTrace *gt)
{
    free(gt->e);
    memset(gt, 0, sizeof *gt);
}

/* ticks of the guest clock -> nanoseconds */
uint64_t guesttrace_ns(const GuestTrace *gt, uint64_t ticks)
{
    return (uint64_t)((unsigned __int128)ticks * 1000000000u / gt->hz);
}

static void write_function(const GuestTrace *r, const Image *im, FILE *f)
{
    fprintf(f, "# tracer: %s\n#\n", r->tracer == GT_TRACER_FUNCTION ? "function" : "nop");
    fprintf(f, "# entries-in-buffer/entries-written: %" PRIu64 "/%" PRIu64 "   #P:%u\n#\n", r->in_buffer, r->written,
            r->nr_cpus);
    fputs("#                                _-----=> irqs-off/BH-disabled\n"
          "#                               / _----=> need-resched\n"
          "#                              | / _---=> hardirq/softirq\n"
          "#                              || / _--=> preempt-depth\n"
          "#                              ||| / _-=> migrate-disable\n"
          "#                              |||| /     delay\n"
          "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
          "#              | |         |   |||||     |         |\n",
          f);
    for (size_t i = 0; i < r->n; i++) {
        const Entry *e = &r->e[i];
        if (e->type != GT_FUNCTION)
            continue;
        uint64_t ns = guesttrace_ns(r, e->ts);
        char fn[128], parent[128];
        fprintf(f, "%16s-%-7d [%03d] %c%c... %5" PRIu64 ".%06" PRIu64 ": %s <-%s\n", "<idle>", 0, e->cpu,
                e->flags & 1 ? 'd' : '.', e->flags & 8 ? 'h' : '.', ns / 1000000000u, ns % 1000000000u / 1000,
                fn_name(im, e->ip, fn, sizeof fn), fn_name(im, e->arg, parent, sizeof parent));
    }
}

/* Linux's trace_find_mark: + > 10 us, ! > 100 us, # > 1 ms, * > 10 ms, @ > 100 ms, $ > 1 s. */
static char duration_mark(uint64_t ns)
{
    static const struct { uint64_t ns; char c; } marks[] = {
        { 1000000000u, '$' }, { 100000000u, '@' }, { 10000000u, '*' }, { 1000000u, '#' }, { 100000u, '!' }, { 10000u, '+' },
    };
    for (unsigned i = 0; i < ARRAY_SIZE(marks); i++)
        if (ns > marks[i].ns)
            return marks[i].c;
    return ' ';
}

/* Linux's print_graph_duration: "<mark> <usecs>.<nsecs> us " padded to the column, then "|  ". */
static void graph_duration(FILE *f, const uint64_t *ns)
{
    if (!ns) {
        fputs("              |  ", f);
        return;
    }
    char us[24];
    int len = snprintf(us, sizeof us, "%" PRIu64, *ns / 1000);
    fprintf(f, "%c %s", duration_mark(*ns), us);
    if (len < 7) {
        char frac[8];
        snprintf(frac, sizeof frac, "%03" PRIu64, *ns % 1000);
        frac[8 - len - 1 < 4 ? 8 - len - 1 : 4] = 0;
        fprintf(f, ".%s", frac);
        len += (int)strlen(frac) + 1;
    }
    fputs(" us ", f);
    for (int i = len; i < 8; i++)
        fputc(' ', f);
    fputs("|  ", f);
}

static void write_graph(const GuestTrace *r, const Image *im, FILE *f)
{
    fputs("# tracer: function_graph\n#\n# CPU  DURATION                  FUNCTION CALLS\n"
          "# |     |   |                     |   |   |   |\n",
          f);
    /* next[i]: the next entry of the same CPU after e[i] (leaf detection), or SIZE_MAX */
    size_t *next = xcalloc(r->n ? r->n : 1, sizeof *next), last[TB_MAX_CPUS];
    for (int c = 0; c < TB_MAX_CPUS; c++)
        last[c] = SIZE_MAX;
    for (size_t i = r->n; i-- > 0;) {
        next[i] = last[r->e[i].cpu];
        last[r->e[i].cpu] = i;
    }
    bool *skip = xcalloc(r->n ? r->n : 1, sizeof *skip);
    for (size_t i = 0; i < r->n; i++) {
        const Entry *e = &r->e[i];
        if (skip[i] || (e->type != GT_GRAPH_ENTRY && e->type != GT_GRAPH_RETURN))
            continue;
        char fn[128];
        fprintf(f, " %d) ", e->cpu);
        const Entry *n = next[i] != SIZE_MAX ? &r->e[next[i]] : NULL;
        if (e->type == GT_GRAPH_ENTRY && n && n->type == GT_GRAPH_RETURN && n->ip == e->ip && n->depth == e->depth) {
            uint64_t ns = guesttrace_ns(r, n->ts) - guesttrace_ns(r, n->arg);             /* a leaf: func(); */
            graph_duration(f, &ns);
            fprintf(f, "%*s%s();\n", 2 * e->depth, "", fn_name(im, e->ip, fn, sizeof fn));
            skip[next[i]] = true;
        } else if (e->type == GT_GRAPH_ENTRY) {
            graph_duration(f, NULL);
            fprintf(f, "%*s%s() {\n", 2 * e->depth, "", fn_name(im, e->ip, fn, sizeof fn));
        } else {
            uint64_t ns = guesttrace_ns(r, e->ts) - guesttrace_ns(r, e->arg);
            graph_duration(f, &ns);
            fprintf(f, "%*s}\n", 2 * e->depth, "");
        }
    }
    free(next);
    free(skip);
}

bool guesttrace_print(const Image *im, GuestMem *mem, FILE *f, Error *err)
{
    GuestTrace gt;
    bool ok = guesttrace_read(im, mem, &gt, err);
    if (ok && gt.tracer == GT_TRACER_GRAPH)
        write_graph(&gt, im, f);
    else if (ok)
        write_function(&gt, im, f);
    guesttrace_free(&gt);
    return ok;
}
