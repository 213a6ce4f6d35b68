/* stat.c — `pmusim stat`: perf stat's table of a run's counts (see stat.h, docs/tools.md).
 *
 * Layout (perf's tools/perf/util/stat-display.c, as `perf stat -e E1,E2` and `-A` print it):
 *
 *    (blank)
 *    " Performance counter stats for 'GUEST':"
 *    (blank)
 *    [CPUn]  COUNT (18 wide, grouped by 3 digits)  EVENT[:u|:k]  [# METRIC UNIT]
 *    (blank)
 *    SECONDS seconds time elapsed (simulated ...)
 *    SECONDS seconds user / sys (simulated)
 *
 * With -x SEP each row is perf's CSV row: [CPUn SEP] COUNT SEP UNIT SEP EVENT SEP RUN-TIME SEP
 * 100.00 SEP METRIC SEP METRIC-UNIT (the run time in simulated nanoseconds), and nothing else but
 * the --per-symbol rows: `symbol SEP NAME SEP INSTRUCTIONS SEP CYCLES [SEP BRANCHES SEP MISSES]`.  Every number is an
 * integer or computed from integers; nothing of the host (time, locale) is printed.
 */
#include "sim/stat.h"

#include <stdlib.h>
#include <string.h>

#include "base/loader.h"
#include "base/outfile.h"
#include "cpu/blockcache.h"
#include "tracer/profile.h"

typedef struct StatEventDef {
    const char *name, *alias;       /* perf's name and its alias, or NULL */
    uint8_t src;                    /* the PMU source; PMC_SRC_NONE: the CPU's clock (cpu-clock) */
    bool branches, mem;             /* needs branch / load-store tracking (the slow path) */
} StatEventDef;

enum { EV_CLOCK, EV_CYCLES, EV_INSNS, EV_BRANCHES, EV_BRMISS, EV_LOADS, EV_STORES, EV_MEMOPS, EV_COUNT };

static const StatEventDef events[EV_COUNT] = {
    [EV_CLOCK] = { "cpu-clock", NULL, PMC_SRC_NONE, false, false },
    [EV_CYCLES] = { "cycles", "cpu-cycles", PMC_SRC_CYCLES, false, false },
    [EV_INSNS] = { "instructions", NULL, PMC_SRC_INSNS, false, false },
    [EV_BRANCHES] = { "branches", "branch-instructions", PMC_SRC_BRANCHES, true, false },
    [EV_BRMISS] = { "branch-misses", NULL, PMC_SRC_BRMISS, true, false },
    [EV_LOADS] = { "L1-dcache-loads", "mem-loads", PMC_SRC_LOADS, false, true },
    [EV_STORES] = { "L1-dcache-stores", "mem-stores", PMC_SRC_STORES, false, true },
    [EV_MEMOPS] = { "mem_access", NULL, PMC_SRC_MEMOPS, false, true },
};

/* perf stat's default hardware events (tools/perf/builtin-stat.c, default_attrs0/1). */
static const uint8_t default_events[] = { EV_CLOCK, EV_CYCLES, EV_INSNS, EV_BRANCHES, EV_BRMISS };

static const char *const mod_suffix[] = { [STAT_MOD_SPLIT] = "", [STAT_MOD_USER] = ":u",
                                          [STAT_MOD_KERNEL] = ":k", [STAT_MOD_ALL] = ":uk" };

#define NS_PER_SEC 1000000000u
#define NS_PER_MSEC 1000000u
#define NS_PER_CENTI_MSEC 10000u    /* msec printed with two decimals */
#define PERCENT 100.0
#define NS_PER_USEC 1e3             /* events per ns x 10^3 = millions per second */
#define COUNT_WIDTH 18              /* perf's "%18s" count column */
#define NAME_WIDTH 32

/* ------------------------------------------------------------------ the -e list */

const char *stat_event_name(int n)
{
    for (int i = 0; i < EV_COUNT; i++) {
        if (n-- == 0)
            return events[i].name;
        if (events[i].alias && n-- == 0)
            return events[i].alias;
    }
    return NULL;
}

static bool same(const char *a, const char *b, size_t len)
{
    return a && strlen(a) == len && !strncmp(a, b, len);
}

/* The event named name[0, len) (*alias: by its alias), or -1. */
static int event_find(const char *name, size_t len, bool *alias)
{
    for (int i = 0; i < EV_COUNT; i++) {
        *alias = same(events[i].alias, name, len);
        if (*alias || same(events[i].name, name, len))
            return i;
    }
    return -1;
}

/* perf's modifiers u and k (tools/perf/util/parse-events.c): none, one or both. */
static int mod_parse(const char *m, size_t len)
{
    bool u = false, k = false;
    for (size_t i = 0; i < len; i++) {
        if (m[i] == 'u' && !u)
            u = true;
        else if (m[i] == 'k' && !k)
            k = true;
        else
            return -1;
    }
    return u && k ? STAT_MOD_ALL : u ? STAT_MOD_USER : STAT_MOD_KERNEL;
}

static bool add_event(StatConfig *s, const char *item, size_t len, Error *err)
{
    const char *colon = memchr(item, ':', len);
    size_t nlen = colon ? (size_t)(colon - item) : len;
    bool alias;
    int ev = event_find(item, nlen, &alias);
    int mod = !colon ? STAT_MOD_SPLIT : colon + 1 < item + len ? mod_parse(colon + 1, len - nlen - 1) : -1;
    if (ev < 0)
        return err_set(err, "-e %.*s: unknown event (pmusim stat --help lists them)", (int)len, item);
    if (mod < 0)
        return err_set(err, "-e %.*s: unknown modifier (u, k or uk)", (int)len, item);
    if (s->n == STAT_MAX_EVENTS)
        return err_set(err, "-e %.*s: more than %d events", (int)len, item, STAT_MAX_EVENTS);
    s->sel[s->n++] = (StatSel){ (uint8_t)ev, (uint8_t)mod, alias };
    return true;
}

bool stat_parse_events(StatConfig *s, const char *list, Error *err)
{
    if (!*list)
        return err_set(err, "-e: an empty event list");
    for (const char *p = list;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (!len)
            return err_set(err, "-e %s: an empty event name", list);
        if (!add_event(s, p, len, err))
            return false;
        if (!comma)
            return true;
        p = comma + 1;
    }
}

void stat_configure(StatConfig *s, MachineConfig *cfg)
{
    if (!s->n)
        for (size_t i = 0; i < ARRAY_SIZE(default_events); i++)
            s->sel[s->n++] = (StatSel){ default_events[i], STAT_MOD_SPLIT, false };
    cfg->stat = true;
    for (int i = 0; i < s->n; i++) {
        cfg->stat_branches |= events[s->sel[i].ev].branches;
        cfg->stat_mem |= events[s->sel[i].ev].mem;
    }
    cfg->stat_profile = s->per_symbol;
}

/* ------------------------------------------------------------------ counts */

typedef struct Count {
    uint64_t all, user;
} Count;

typedef struct StatCtx {
    const StatConfig *s;
    Machine *m;
    const char *guest;
    const char *sep;                /* NULL: text */
    Count (*cpu)[EV_COUNT];         /* per CPU */
    Count sum[EV_COUNT];
    uint64_t elapsed;               /* the latest CPU's local time, cycles */
} StatCtx;

static void cpu_counts(Cpu *c, Count *v)
{
    for (int e = 0; e < EV_COUNT; e++) {
        if (events[e].src != PMC_SRC_NONE)
            vcpu_priv_count(c, (PmcSource)events[e].src, &v[e].all, &v[e].user);
    }
    /* the clock: all of the CPU's time; at user level it never halts, so its user cycles */
    v[EV_CLOCK] = (Count){ c->cycles, v[EV_CYCLES].user };
}

static void collect(StatCtx *x)
{
    Machine *m = x->m;
    x->cpu = xcalloc((size_t)m->cl.ncpus, sizeof *x->cpu);
    for (int k = 0; k < m->cl.ncpus; k++) {
        Cpu *c = m->cl.cpus[k];
        cpu_counts(c, x->cpu[k]);
        for (int e = 0; e < EV_COUNT; e++) {
            x->sum[e].all += x->cpu[k][e].all;
            x->sum[e].user += x->cpu[k][e].user;
        }
        if (c->cycles > x->elapsed)
            x->elapsed = c->cycles;
    }
}

static uint64_t value(const Count *c, int mod)
{
    return mod == STAT_MOD_USER ? c->user : mod == STAT_MOD_KERNEL ? c->all - c->user : c->all;
}

/* Simulated nanoseconds of `cycles` of the CPU clock (rounded down). */
static uint64_t ns_of(const StatCtx *x, uint64_t cycles)
{
    return (uint64_t)((unsigned __int128)cycles * NS_PER_SEC / x->m->clock.freq_hz);
}

static bool asked(const StatConfig *s, int ev)
{
    for (int i = 0; i < s->n; i++)
        if (s->sel[i].ev == ev)
            return true;
    return false;
}

/* ------------------------------------------------------------------ rows */

/* v with a comma every three digits, as perf prints counts (its "%'18.0f" in an English locale;
 * pmusim does not look at the host's locale). */
static const char *grouped(uint64_t v, char *buf, size_t len)
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%" PRIu64, v), o = 0;
    for (int i = 0; i < n && o + 2 < (int)len; i++) {
        if (i && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = 0;
    return buf;
}

/* The count as printed: cpu-clock in milliseconds (text: 2 decimals, CSV: 6), others whole. */
static void count_str(const StatCtx *x, int ev, uint64_t v, char *buf, size_t len)
{
    char g[40];
    if (ev != EV_CLOCK) {
        if (x->sep)
            snprintf(buf, len, "%" PRIu64, v);
        else
            grouped(v, buf, len);
        return;
    }
    uint64_t ns = ns_of(x, v);
    if (x->sep)
        snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, ns / NS_PER_MSEC, ns % NS_PER_MSEC);
    else
        snprintf(buf, len, "%s.%02" PRIu64, grouped(ns / NS_PER_MSEC, g, sizeof g), ns % NS_PER_MSEC / NS_PER_CENTI_MSEC);
}

typedef struct Metric {
    double v;
    const char *unit;               /* NULL: none */
    bool percent;
} Metric;

static double ratio(uint64_t a, uint64_t b)
{
    return (double)a / (double)b;
}

/* The derived value perf prints beside a row (tools/perf/util/stat-shadow.c): insn per cycle,
 * % of all branches, GHz and CPUs utilized, a rate per second of cpu-clock for the others. */
static Metric metric(const StatCtx *x, const Count *v, int ev, int mod)
{
    Metric r = { 0, NULL, false };
    uint64_t me = value(&v[ev], mod), cyc = value(&v[EV_CYCLES], mod), clk = ns_of(x, value(&v[EV_CLOCK], mod));
    uint64_t br = value(&v[EV_BRANCHES], mod);
    if (ev == EV_INSNS && asked(x->s, EV_CYCLES) && cyc)
        r = (Metric){ ratio(me, cyc), "insn per cycle", false };
    else if (ev == EV_BRMISS && asked(x->s, EV_BRANCHES) && br)
        r = (Metric){ PERCENT * ratio(me, br), "of all branches", true };
    else if (ev == EV_CLOCK && x->elapsed)
        r = (Metric){ ratio(value(&v[EV_CLOCK], mod), x->elapsed), "CPUs utilized", false };
    else if (ev == EV_CYCLES && asked(x->s, EV_CLOCK) && clk)
        r = (Metric){ ratio(me, clk), "GHz", false };
    else if (ev != EV_CYCLES && ev != EV_INSNS && asked(x->s, EV_CLOCK) && clk)
        r = (Metric){ NS_PER_USEC * ratio(me, clk), "M/sec", false };
    return r;
}

/* perf's CSV row (tools/perf/util/stat-display.c, -x): the run time is the simulated time the
 * counting took (the CPU's, or every CPU's summed), the share of it counted always 100.00. */
static void csv_row(const StatCtx *x, FILE *f, int cpu, int ev, const char *cnt, const char *name, Metric mt)
{
    const char *sep = x->sep;
    if (cpu >= 0)
        fprintf(f, "CPU%d%s", cpu, sep);
    uint64_t run = ns_of(x, cpu >= 0 ? x->m->cl.cpus[cpu]->cycles : x->sum[EV_CLOCK].all);
    fprintf(f, "%s%s%s%s%s%s%" PRIu64 "%s100.00%s", cnt, sep, ev == EV_CLOCK ? "msec" : "", sep, name, sep, run,
            sep, sep);
    if (mt.unit)
        fprintf(f, "%.2f%s%s", mt.v, sep, mt.unit);
    else
        fputs(sep, f);
    fputc('\n', f);
}

static void print_row(const StatCtx *x, FILE *f, int cpu, const Count *v, const StatSel *sel, int mod)
{
    char cnt[48], name[64];
    int ev = sel->ev;
    count_str(x, ev, value(&v[ev], mod), cnt, sizeof cnt);
    snprintf(name, sizeof name, "%s%s", sel->alias ? events[ev].alias : events[ev].name, mod_suffix[mod]);
    Metric mt = metric(x, v, ev, mod);
    if (x->sep) {
        csv_row(x, f, cpu, ev, cnt, name, mt);
        return;
    }
    if (cpu >= 0)
        fprintf(f, "CPU%-3d", cpu);
    fprintf(f, "%*s %-5s %-*s", COUNT_WIDTH, cnt, ev == EV_CLOCK ? "msec" : "", mt.unit ? NAME_WIDTH : 0, name);
    if (mt.unit && mt.percent)
        fprintf(f, " #  %7.2f%% %s", mt.v, mt.unit);
    else if (mt.unit && ev == EV_INSNS)
        fprintf(f, " #  %7.2f  %s", mt.v, mt.unit);       /* perf's precision for it */
    else if (mt.unit)
        fprintf(f, " #  %8.3f %s", mt.v, mt.unit);
    fputs("\n", f);
}

/* One event's rows: the total, :u and :k without a modifier, else the one asked for. */
static void print_event(const StatCtx *x, FILE *f, int cpu, const Count *v, const StatSel *sel)
{
    if (sel->mod != STAT_MOD_SPLIT) {
        print_row(x, f, cpu, v, sel, sel->mod);
        return;
    }
    print_row(x, f, cpu, v, sel, STAT_MOD_SPLIT);
    print_row(x, f, cpu, v, sel, STAT_MOD_USER);
    print_row(x, f, cpu, v, sel, STAT_MOD_KERNEL);
}

/* perf -A: each event's rows for every CPU in turn. */
static void print_table(const StatCtx *x, FILE *f)
{
    for (int i = 0; i < x->s->n; i++) {
        if (!x->s->per_cpu) {
            print_event(x, f, -1, x->sum, &x->s->sel[i]);
            continue;
        }
        for (int k = 0; k < x->m->cl.ncpus; k++)
            print_event(x, f, k, x->cpu[k], &x->s->sel[i]);
    }
}

static void seconds(const StatCtx *x, FILE *f, uint64_t cycles, const char *what)
{
    uint64_t ns = ns_of(x, cycles);
    char s[40];
    snprintf(s, sizeof s, "%" PRIu64 ".%09" PRIu64, ns / NS_PER_SEC, ns % NS_PER_SEC);
    fprintf(f, "%*s %s\n", COUNT_WIDTH, s, what);
}

static void print_times(const StatCtx *x, FILE *f)
{
    char what[160];
    snprintf(what, sizeof what, "seconds time elapsed (simulated: %" PRIu64 " cycles of the %" PRIu64
             " Hz CPU clock)", x->elapsed, x->m->clock.freq_hz);
    fputc('\n', f);
    seconds(x, f, x->elapsed, what);
    fputc('\n', f);
    seconds(x, f, x->sum[EV_CYCLES].user, "seconds user (simulated)");
    seconds(x, f, x->sum[EV_CYCLES].all - x->sum[EV_CYCLES].user, "seconds sys (simulated)");
}

/* ------------------------------------------------------------------ --per-symbol */

typedef struct SymRow {
    const char *name;
    uint64_t insns, cycles;
    uint64_t branches, misses;      /* with a branch event asked for */
} SymRow;

typedef struct SymTable {
    SymRow *rows;
    size_t n, cap;
    size_t last;                    /* the row found last (consecutive addresses share one) */
} SymTable;

static SymRow *sym_row(SymTable *t, const char *name)
{
    if (t->n && t->rows[t->last].name == name)
        return &t->rows[t->last];
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].name == name || !strcmp(t->rows[i].name, name))
            return &t->rows[t->last = i];
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->rows = xrealloc(t->rows, t->cap * sizeof *t->rows);
    }
    t->rows[t->n] = (SymRow){ name, 0, 0, 0, 0 };
    return &t->rows[t->last = t->n++];
}

static const char *sym_name(const Image *im, uint64_t pc)
{
    const Symbol *s = image_symbol_at(im, pc, NULL);
    return s ? s->name : "[unknown]";
}

/* One block of the exact profile: per instruction, the prefix sum of its difference array. */
static void sym_block(SymTable *t, const Image *im, const ProfBlock *b)
{
    uint64_t count = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        count += b->d_all[i];
        if (!count)
            continue;
        SymRow *r = sym_row(t, sym_name(im, b->pc + b->off[i]));
        r->insns += count;
        r->cycles += count * b->cost[i];
    }
}

/* Each retired branch, by the address of the branch instruction (cpu/power.c). */
static void sym_branches(SymTable *t, const Image *im, const Profile *p)
{
    for (uint32_t i = 0; i < p->br_cap; i++) {
        const ProfBranch *b = &p->br[i];
        if (!b->count)
            continue;
        SymRow *r = sym_row(t, sym_name(im, b->pc));
        r->branches += b->count;
        r->misses += b->misses;
    }
}

static int cmp_sym(const void *a, const void *b)
{
    const SymRow *x = a, *y = b;
    if (x->insns != y->insns)
        return x->insns > y->insns ? -1 : 1;
    if (x->cycles != y->cycles)
        return x->cycles > y->cycles ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The cycles no instruction has: each exception entry's cost (cpu/power.c, the cycle table's
 * trap cost), the rest of the PMU's cycles. */
static uint64_t entry_cycles(const Machine *m)
{
    uint64_t sum = 0;
    for (int k = 0; k < m->cl.ncpus; k++) {
        const Cpu *c = m->cl.cpus[k];
        sum += c->exc.serialized * c->ctab->cost[IC_TRAP];
    }
    return sum;
}

/* One row: text columns of COUNT_WIDTH, or CSV `symbol SEP NAME SEP INSNS SEP CYCLES [SEP BRANCHES
 * SEP MISSES]`. */
static void sym_print(const StatCtx *x, FILE *f, const SymRow *r, bool br)
{
    const uint64_t v[] = { r->insns, r->cycles, r->branches, r->misses };
    size_t n = br ? ARRAY_SIZE(v) : 2;
    char g[40];
    if (x->sep)
        fprintf(f, "symbol%s%s", x->sep, r->name);
    for (size_t i = 0; i < n; i++) {
        if (x->sep)
            fprintf(f, "%s%" PRIu64, x->sep, v[i]);
        else
            fprintf(f, "%*s ", COUNT_WIDTH, grouped(v[i], g, sizeof g));
    }
    if (!x->sep)
        fprintf(f, " %s", r->name);
    fputc('\n', f);
}

static void print_symbols(const StatCtx *x, FILE *f)
{
    Machine *m = x->m;
    SymTable t = { 0 };
    bool br = asked(x->s, EV_BRANCHES) || asked(x->s, EV_BRMISS);      /* (profile_branch counted) */
    for (int k = 0; k < m->cl.ncpus; k++)
        vcpu_profile_flush(m->cl.cpus[k]);
    for (uint32_t i = 0; i < m->profile->cap; i++)
        if (m->profile->tab[i].size)
            sym_block(&t, &m->image, &m->profile->tab[i]);
    sym_branches(&t, &m->image, m->profile);
    if (t.n)
        qsort(t.rows, t.n, sizeof *t.rows, cmp_sym);
    if (!x->sep)
        fprintf(f, "\n%*s %*s %s %s(exact: every retired instruction)\n", COUNT_WIDTH, "instructions",
                COUNT_WIDTH, "cycles", br ? "          branches      branch-misses " : "", "symbol ");
    for (size_t i = 0; i < t.n; i++)
        sym_print(x, f, &t.rows[i], br);
    SymRow entries = { "[exception entries]", 0, entry_cycles(m), 0, 0 };
    if (entries.cycles)
        sym_print(x, f, &entries, br);
    free(t.rows);
}

/* ------------------------------------------------------------------ the output */

static bool fill(FILE *f, void *arg, Error *err)
{
    const StatCtx *x = arg;
    if (!x->sep)
        fprintf(f, "\n Performance counter stats for '%s'%s:\n\n", x->guest,
                x->s->per_cpu ? " (per CPU)" : "");
    print_table(x, f);
    if (x->s->per_symbol)
        print_symbols(x, f);
    if (!x->sep)
        print_times(x, f);
    return true;
}

int stat_print(const StatConfig *s, Machine *m, const char *guest)
{
    StatCtx x = { .s = s, .m = m, .guest = guest, .sep = s->sep };
    collect(&x);
    Error err = { { 0 } };
    int status = 0;
    if (s->output) {
        if (!outfile_write_stdio("-o", s->output, fill, &x, &err)) {
            fprintf(stderr, "pmusim: %s\n", err.msg);
            status = EXIT_OUTPUT;
        }
    } else {
        fill(stderr, &x, &err);
    }
    free(x.cpu);
    return status;
}
