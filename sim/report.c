/* report.c — `pmusim report GUEST.elf SAMPLES [--truth[=insns|cycles]] [--folded] [--perf-script]`: an
 * opreport-style table of the PMU samples a run recorded with --samples (docs/profiling.md).
 *
 * Samples are attributed to the symbol containing their address (the ELF's function symbols)
 * and to an image by the privilege level they were taken at: kernel samples (MSR[PR] = 0, CPL 0)
 * to `vmlinux`, as opreport names the kernel, user samples to the guest ELF; the app name is the
 * guest ELF for both.  Rows are sorted by samples, then image, then symbol, so the output is a
 * pure function of the two files.  --truth adds the symbol's exact share of the instructions
 * retired in the sampling window (while a sampling counter counted: the population the samples
 * are drawn from; --truth=cycles: of the cycles), and lists the symbols that ran there without being sampled, image "-";
 * --folded prints flame-graph input instead, a line per call stack (`app;image;outer;...;inner count`,
 * the frames from the samples' call chains), and --perf-script the samples as `perf script`
 * prints them with their call chains (Linux tools/perf/builtin-script.c,
 * perf_sample__fprintf_start and process_event; util/evsel_fprintf.c sample__fprintf_callchain):
 *
 *   COMM PID/TID [CPU] SECS.USECS: PERIOD EVENT:        "%s %7d/%-7d [%03d] %12s: %10u %*s: \n"
 *   \t ADDR SYM+0xOFF (DSO)                               "\t%16x %s+0x%x (%s)\n" per frame
 *   (a blank line)
 */
#include "sim/report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/loader.h"
#include "base/tunables.h"
#include "sim/cli.h"
#include "tracer/profile.h"

/* --perf-script: what perf prints for a frame without a symbol and for the kernel's image
 * (tools/perf/util/symbol.c, machine.c: "[kernel.kallsyms]"); the time of a version 1 samples
 * file, which does not give the CPU clock, is counted at a nominal 1 GHz. */
#define PERF_UNKNOWN "[unknown]"
#define PERF_KERNEL_DSO "[kernel.kallsyms]"
#define NOMINAL_HZ 1000000000ull
#define USEC_PER_SEC 1000000ull
/* perf script's pid/tid columns: pmusim's samples have no tasks; pid 1, tid 1 + the CPU, so
 * that each CPU is a thread of its own in the profilers. */
#define SCRIPT_PID 1

typedef struct Row {
    const char *sym;                /* in the image's strings, or a literal */
    bool user;
    uint64_t samples;
    uint64_t insns;                 /* retired instructions in the symbol (any mode) */
    uint64_t window;                /* those retired in the sampling window: the truth */
    uint64_t cycles;                /* the window's cycles in the symbol: the truth by cycles */
} Row;

typedef struct Report {
    Image im;
    const char *app;
    Row *rows;
    size_t n, cap;
    uint64_t samples, insns, window, cycles;
    bool by_cycles;                 /* --truth=cycles */
    bool keep;                      /* --folded, --perf-script: every sample, with its chain */
    Profile prof;                   /* ... kept here */
    uint64_t hz;                    /* the samples file's CPU clock (0: not given) */
} Report;

static const char *sym_name(const Image *im, uint64_t pc)
{
    uint64_t off;
    const Symbol *s = image_symbol_at(im, pc, &off);
    return s ? s->name : "(no symbols)";
}

static Row *row(Report *r, const char *sym, bool user)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->rows[i].user == user && !strcmp(r->rows[i].sym, sym))
            return &r->rows[i];
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->rows = xrealloc(r->rows, r->cap * sizeof *r->rows);
    }
    r->rows[r->n] = (Row){ .sym = sym, .user = user };
    return &r->rows[r->n++];
}

/* *sum += v; false if the sum would not fit 64 bits. */
static bool add_u64(uint64_t *sum, uint64_t v)
{
    return !__builtin_add_overflow(*sum, v, sum);
}

/* An insns line into its symbol's row and the totals; false if a sum would overflow. */
static bool add_insns(Report *r, uint64_t pc, uint64_t count, uint64_t window, uint64_t cycles)
{
    /* truth belongs to the symbol in both images; stored on the kernel row, merged below */
    Row *w = row(r, sym_name(&r->im, pc), false);
    return add_u64(&w->insns, count) && add_u64(&w->window, window) && add_u64(&w->cycles, cycles) &&
           add_u64(&r->insns, count) && add_u64(&r->window, window) && add_u64(&r->cycles, cycles);
}

/* What the samples file holds, into the rows (tracer/profile.c reads it). */
static bool on_sample(void *r, const SampleRec *s)
{
    Report *rp = r;
    rp->hz = s->hz;
    if (rp->keep)
        profile_sample(&rp->prof, (int)s->cpu, s->cycle, s->pc, s->user, s->counter, s->chain, s->nchain);
    return add_u64(&row(rp, sym_name(&rp->im, s->pc), s->user)->samples, 1) && add_u64(&rp->samples, 1);
}

static bool on_insns(void *r, uint64_t pc, uint64_t count, uint64_t window, uint64_t cycles)
{
    return add_insns(r, pc, count, window, cycles);
}

static bool parse(Report *r, const char *path, Error *err)
{
    static const SamplesVisitor v = { on_sample, on_insns };
    return profile_read(path, &v, r, err);
}

static int cmp_rows(const void *a, const void *b)
{
    const Row *x = a, *y = b;
    if (x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    if (!x->samples) {                              /* rows that only --truth lists: by weight */
        if (x->window != y->window)
            return x->window > y->window ? -1 : 1;
        if (x->cycles != y->cycles)
            return x->cycles > y->cycles ? -1 : 1;
        if (x->insns != y->insns)
            return x->insns > y->insns ? -1 : 1;
    }
    if (x->user != y->user)
        return x->user ? 1 : -1;
    return strcmp(x->sym, y->sym);
}

/* What the truth measures, for a row and in all: the instructions (or with --truth=cycles, the
 * cycles) retired in the sampling window; all instructions if nothing ever sampled. */
static uint64_t truth_part(const Report *r, const Row *w)
{
    return !r->window ? w->insns : r->by_cycles ? w->cycles : w->window;
}

static uint64_t truth_whole(const Report *r)
{
    return !r->window ? r->insns : r->by_cycles ? r->cycles : r->window;
}

/* The symbol's exact share (the truth is kept on its kernel row). */
static double truth_of(const Report *r, const char *sym)
{
    for (size_t i = 0; i < r->n; i++)
        if (!r->rows[i].user && !strcmp(r->rows[i].sym, sym))
            return truth_whole(r) ? 100.0 * (double)truth_part(r, &r->rows[i]) / (double)truth_whole(r) : 0;
    return 0;
}

/* Rows without samples are listed by --truth when they hold at least 0.01% of the truth. */
static bool truth_row(const Report *r, const Row *w)
{
    uint64_t part = truth_part(r, w);
    return !w->user && part && (unsigned __int128)part * 10000 >= truth_whole(r);
}

static bool has_samples(const Report *r, const char *sym)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->rows[i].samples && !strcmp(r->rows[i].sym, sym))
            return true;
    return false;
}

/* The function a caller's return address is in (looked up one byte before it, in its call:
 * a call that ends a function returns past its end), NULL outside every function symbol. */
static const Symbol *caller_sym(const Image *im, uint64_t ret, uint64_t *off)
{
    const Symbol *s = ret ? image_symbol_at(im, ret - 1, off) : NULL;
    if (!s || (s->size && *off >= s->size))
        return NULL;
    *off = ret - s->addr;
    return s;
}

static const char *caller_name(const Image *im, uint64_t ret)
{
    uint64_t off;
    const Symbol *s = caller_sym(im, ret, &off);
    return s ? s->name : PERF_UNKNOWN;
}

/* ------------------------------------------------------------------ --folded */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct Stack {
    const char *s;
    size_t count;
} Stack;

static int cmp_stack(const void *a, const void *b)
{
    const Stack *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->s, y->s);
}

/* A sample's stack as flame graphs want it: app;image;outermost caller;...;sampled symbol. */
static char *folded_line(const Report *r, const ProfSample *s)
{
    size_t cap = 256, len = 0;
    char *b = xcalloc(cap, 1);
    const char *parts[CALLCHAIN_DEPTH + 3];
    size_t n = 0;
    parts[n++] = r->app;
    parts[n++] = s->user ? r->app : "vmlinux";
    for (uint32_t i = s->nchain; i-- > 0;)
        parts[n++] = caller_name(&r->im, r->prof.frames[s->chain_at + i]);
    parts[n++] = sym_name(&r->im, s->pc);
    for (size_t i = 0; i < n; i++) {
        size_t k = strlen(parts[i]);
        if (len + k + 2 > cap)
            b = xrealloc(b, cap = 2 * (len + k + 2));
        memcpy(b + len, parts[i], k);
        len += k;
        b[len++] = i + 1 < n ? ';' : 0;
    }
    return b;
}

/* One line per distinct stack, by count (most first), then stack. */
static void print_folded(const Report *r)
{
    size_t n = r->prof.nsamples, k = 0;
    char **lines = xcalloc(n ? n : 1, sizeof *lines);
    Stack *st = xcalloc(n ? n : 1, sizeof *st);
    for (size_t i = 0; i < n; i++)
        lines[i] = folded_line(r, &r->prof.samples[i]);
    if (n)
        qsort(lines, n, sizeof *lines, cmp_str);
    for (size_t i = 0; i < n; i++) {
        if (k && !strcmp(st[k - 1].s, lines[i]))
            st[k - 1].count++;
        else
            st[k++] = (Stack){ lines[i], 1 };
    }
    if (k)
        qsort(st, k, sizeof *st, cmp_stack);
    for (size_t i = 0; i < k; i++)
        printf("%s %zu\n", st[i].s, st[i].count);
    for (size_t i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
    free(st);
}

/* ------------------------------------------------------------------ --perf-script */

/* One frame: "\t%16x SYM+0xOFF (DSO)" (util/evsel_fprintf.c). */
static void script_frame(const Report *r, uint64_t addr, bool leaf, const char *dso)
{
    uint64_t off;
    const Symbol *s = leaf ? image_symbol_at(&r->im, addr, &off) : caller_sym(&r->im, addr, &off);
    printf("\t%16" PRIx64 " ", addr);
    if (s)
        printf("%s+0x%" PRIx64, s->name, off);
    else
        printf(PERF_UNKNOWN);
    printf(" (%s)\n", dso);
}

/* The header line's time: cycle / the CPU clock, as seconds.microseconds. */
static void script_time(uint64_t cycle, uint64_t hz, char *buf, size_t size)
{
    uint64_t secs = cycle / hz;
    uint64_t usecs = (uint64_t)((unsigned __int128)(cycle % hz) * USEC_PER_SEC / hz);
    snprintf(buf, size, "%" PRIu64 ".%06" PRIu64, secs, usecs);
}

static void print_script(const Report *r, const char *elf)
{
    uint64_t hz = r->hz ? r->hz : NOMINAL_HZ;
    int width = 0;
    for (size_t i = 0; i < r->prof.nsamples; i++) {
        const char *ev = r->prof.samples[i].counter;
        int w = (int)strlen(*ev ? ev : PERF_UNKNOWN);
        width = w > width ? w : width;
    }
    for (size_t i = 0; i < r->prof.nsamples; i++) {
        const ProfSample *s = &r->prof.samples[i];
        char t[48];
        script_time(s->cycle, hz, t, sizeof t);
        /* period: pmusim does not know the driver's; each sample counts once */
        printf("%s %7d/%-7d [%03d] %12s: %10d %*s: \n", r->app, SCRIPT_PID, SCRIPT_PID + s->cpu, s->cpu, t, 1, width,
               *s->counter ? s->counter : PERF_UNKNOWN);
        const char *dso = s->user ? elf : PERF_KERNEL_DSO;
        script_frame(r, s->pc, true, dso);
        for (uint32_t k = 0; k < s->nchain; k++)
            script_frame(r, r->prof.frames[s->chain_at + k], false, dso);
        printf("\n");
    }
}

/* ------------------------------------------------------------------ the table */

static void print_table(Report *r, bool truth)
{
    printf("samples  %%        %s%-16s %-16s symbol name\n", truth ? "truth%    " : "", "image name", "app name");
    for (size_t i = 0; i < r->n; i++) {
        const Row *w = &r->rows[i];
        if (!w->samples && !(truth && truth_row(r, w) && !has_samples(r, w->sym)))
            continue;
        double pct = r->samples ? 100.0 * (double)w->samples / (double)r->samples : 0;
        printf("%-8" PRIu64 " %-8.4f ", w->samples, pct);
        if (truth)
            printf("%-9.4f ", truth_of(r, w->sym));
        /* a symbol that ran but was never sampled: no privilege level to name its image by */
        printf("%-16s %-16s %s\n", !w->samples ? "-" : w->user ? r->app : "vmlinux", r->app, w->sym);
    }
}

static void report_free(Report *r)
{
    image_free(&r->im);
    free(r->rows);
    profile_destroy(&r->prof);
}

int report_main(int argc, char **argv)
{
    CliReport a;
    if (!cli_parse_report(argc, argv, &a, stderr))
        return EXIT_USAGE;
    if (a.help) {
        cli_report_usage(stdout);
        return 0;
    }
    Report r = { .by_cycles = a.by_cycles, .keep = a.folded || a.perf_script };
    profile_init(&r.prof);
    Error err = { { 0 } };
    if (!image_load_elf(&r.im, a.elf, &err) || !parse(&r, a.samples, &err)) {
        fprintf(stderr, "pmusim: %s\n", err.msg);
        report_free(&r);
        return EXIT_USAGE;
    }
    const char *slash = strrchr(a.elf, '/');
    r.app = slash ? slash + 1 : a.elf;
    if (r.n)
        qsort(r.rows, r.n, sizeof *r.rows, cmp_rows);
    if (a.folded)
        print_folded(&r);
    else if (a.perf_script)
        print_script(&r, a.elf);
    else
        print_table(&r, a.truth);
    report_free(&r);
    return 0;
}
