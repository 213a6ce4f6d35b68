/* report.c — `pmusim report GUEST.elf SAMPLES [--truth[=insns|cycles]] [--folded]`: an opreport-style table of
 * the PMU samples a run recorded with --samples (docs/profiling.md).
 *
 * Samples are attributed to the symbol containing their address (the ELF's function symbols)
 * and to an image by the privilege level they were taken at: kernel samples (MSR[PR] = 0, CPL 0)
 * to `vmlinux`, as opreport names the kernel, user samples to the guest ELF; the app name is the
 * guest ELF for both.  Rows are sorted by samples, then image, then symbol, so the output is a
 * pure function of the two files.  --truth adds the symbol's exact share of the instructions
 * retired in the sampling window (while a sampling counter counted: the population the samples
 * are drawn from; --truth=cycles: of the cycles), and lists the symbols that ran there without being sampled, image "-";
 * --folded prints flame-graph input instead (`app;image;symbol count`).
 */
#include "sim/report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/loader.h"
#include "sim/cli.h"
#include "tracer/profile.h"

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
static bool on_sample(void *r, uint64_t pc, bool user)
{
    Report *rp = r;
    return add_u64(&row(rp, sym_name(&rp->im, pc), user)->samples, 1) && add_u64(&rp->samples, 1);
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

int report_main(int argc, char **argv)
{
    CliReport a;
    if (!cli_parse_report(argc, argv, &a, stderr))
        return EXIT_USAGE;
    if (a.help) {
        cli_report_usage(stdout);
        return 0;
    }
    const char *elf = a.elf, *samples = a.samples;
    bool truth = a.truth, folded = a.folded, by_cycles = a.by_cycles;
    Report r = { .by_cycles = by_cycles };
    Error err = { { 0 } };
    if (!image_load_elf(&r.im, elf, &err) || !parse(&r, samples, &err)) {
        fprintf(stderr, "pmusim: %s\n", err.msg);
        image_free(&r.im);
        free(r.rows);
        return EXIT_USAGE;
    }
    const char *slash = strrchr(elf, '/');
    r.app = slash ? slash + 1 : elf;
    if (r.n)
        qsort(r.rows, r.n, sizeof *r.rows, cmp_rows);
    if (folded) {
        for (size_t i = 0; i < r.n; i++)
            if (r.rows[i].samples)
                printf("%s;%s;%s %" PRIu64 "\n", r.app, r.rows[i].user ? r.app : "vmlinux", r.rows[i].sym,
                       r.rows[i].samples);
    } else {
        printf("samples  %%        %s%-16s %-16s symbol name\n", truth ? "truth%    " : "", "image name", "app name");
        for (size_t i = 0; i < r.n; i++) {
            const Row *w = &r.rows[i];
            if (!w->samples && !(truth && truth_row(&r, w) && !has_samples(&r, w->sym)))
                continue;
            double pct = r.samples ? 100.0 * (double)w->samples / (double)r.samples : 0;
            printf("%-8" PRIu64 " %-8.4f ", w->samples, pct);
            if (truth)
                printf("%-9.4f ", truth_of(&r, w->sym));
            /* a symbol that ran but was never sampled: no privilege level to name its image by */
            printf("%-16s %-16s %s\n", !w->samples ? "-" : w->user ? r.app : "vmlinux", r.app, w->sym);
        }
    }
    image_free(&r.im);
    free(r.rows);
    return 0;
}
