/* profile.c — PMU samples and the exact instruction profile (see profile.h). */
#include "tracer/profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/state.h"
#include "base/tunables.h"
#include "cpu/blockcache.h"

void profile_init(Profile *p)
{
    memset(p, 0, sizeof *p);
    p->cap = 1024;
    p->tab = xcalloc(p->cap, sizeof *p->tab);
}

void profile_destroy(Profile *p)
{
    for (uint32_t i = 0; i < p->cap; i++) {
        free(p->tab[i].off);
        free(p->tab[i].cost);
        free(p->tab[i].d_all);
        free(p->tab[i].d_win);
    }
    free(p->tab);
    free(p->br);
    free(p->samples);
    free(p->frames);
    memset(p, 0, sizeof *p);
}

/* The first free slot of pc's probe sequence. */
static ProfBlock *free_slot(ProfBlock *tab, uint32_t cap, uint64_t pc)
{
    uint32_t mask = cap - 1;
    for (uint32_t i = hash_fib(pc, 24) & mask;; i = (i + 1) & mask)
        if (!tab[i].size)
            return &tab[i];
}

/* Does profile block b hold block e's code: the same instructions, by offset and cost, as far as
 * both go (an x86 tail learned later makes one longer)?  Other code at the same address and size
 * (a user program copied into the page another one ran from: paging.elf) is another block: one
 * profile block for both mixed their instructions' addresses and costs. */
static bool same_code(const ProfBlock *b, const BlockEntry *e)
{
    uint32_t n = b->n < e->n ? b->n : e->n;
    for (uint32_t i = 0; i < n; i++)
        if (b->off[i] != e->info[i].off || b->cost[i] != e->info[i].cost)
            return false;
    return true;
}

/* The profile block of e's code, or the free slot where it goes. */
static ProfBlock *slot_of(Profile *p, const BlockEntry *e)
{
    uint32_t mask = p->cap - 1;
    for (uint32_t i = hash_fib(e->pc, 24) & mask;; i = (i + 1) & mask) {
        ProfBlock *b = &p->tab[i];
        if (!b->size || (b->pc == e->pc && b->size == e->size && same_code(b, e)))
            return b;
    }
}

/* A new empty profile block (pc, size) of n instructions. */
static ProfBlock *block_new(Profile *p, uint64_t pc, uint32_t size, uint32_t n)
{
    if (2 * (p->used + 1) > p->cap) {               /* grow and rehash */
        uint32_t old_cap = p->cap;
        ProfBlock *old = p->tab;
        p->cap *= 2;
        p->tab = xcalloc(p->cap, sizeof *p->tab);
        for (uint32_t i = 0; i < old_cap; i++)
            if (old[i].size)
                *free_slot(p->tab, p->cap, old[i].pc) = old[i];
        free(old);
    }
    ProfBlock *b = free_slot(p->tab, p->cap, pc);
    p->used++;
    b->pc = pc;
    b->size = size;
    b->n = n;
    b->off = xcalloc(n, sizeof *b->off);
    b->cost = xcalloc(n, sizeof *b->cost);
    b->d_all = xcalloc((size_t)n + 1, sizeof *b->d_all);
    b->d_win = xcalloc((size_t)n + 1, sizeof *b->d_win);
    return b;
}

/* An x86 block with a tail (cpu.c: hook_tail) learns its instructions as the engine runs them:
 * the same (pc, size) comes back with more.  The arrays grow to them; the old end boundary
 * stays where it was (runs that ended there end before the instruction now at that index).
 * Without this, a longer run wrote past the arrays (paging.elf's counts varied between runs). */
static void block_grow(ProfBlock *b, uint32_t n)
{
    b->off = xrealloc(b->off, n * sizeof *b->off);
    b->cost = xrealloc(b->cost, n * sizeof *b->cost);
    b->d_all = xrealloc(b->d_all, ((size_t)n + 1) * sizeof *b->d_all);
    b->d_win = xrealloc(b->d_win, ((size_t)n + 1) * sizeof *b->d_win);
    for (uint32_t i = b->n + 1; i <= n; i++)
        b->d_all[i] = b->d_win[i] = 0;
    b->n = n;
}

void profile_block(Profile *p, const BlockEntry *e, uint32_t from, uint32_t to, bool window)
{
    if (!e || !e->size || to > e->n || from >= to)
        return;
    ProfBlock *b = slot_of(p, e);
    bool fresh = !b->size || b->n < e->n;
    if (!b->size)
        b = block_new(p, e->pc, e->size, e->n);
    else if (b->n < e->n)
        block_grow(b, e->n);
    for (uint32_t i = 0; fresh && i < e->n; i++) {
        b->off[i] = e->info[i].off;
        b->cost[i] = e->info[i].cost;
    }
    b->d_all[from]++;
    b->d_all[to]--;
    if (window) {
        b->d_win[from]++;
        b->d_win[to]--;
    }
}

static ProfBranch *branch_slot(ProfBranch *tab, uint32_t cap, uint64_t pc)
{
    uint32_t mask = cap - 1;
    for (uint32_t i = hash_fib(pc, 24) & mask;; i = (i + 1) & mask)
        if (!tab[i].count || tab[i].pc == pc)
            return &tab[i];
}

void profile_branch(Profile *p, uint64_t pc, bool miss)
{
    if (2 * (p->br_used + 1) > p->br_cap) {         /* grow (from nothing) and rehash */
        uint32_t old_cap = p->br_cap;
        ProfBranch *old = p->br;
        p->br_cap = old_cap ? 2 * old_cap : 1024;
        p->br = xcalloc(p->br_cap, sizeof *p->br);
        for (uint32_t i = 0; i < old_cap; i++)
            if (old[i].count)
                *branch_slot(p->br, p->br_cap, old[i].pc) = old[i];
        free(old);
    }
    ProfBranch *b = branch_slot(p->br, p->br_cap, pc);
    p->br_used += !b->count;
    b->pc = pc;
    b->count++;
    b->misses += miss;
}

/* A sample's call chain onto the end of the frames; its place. */
static uint32_t add_chain(Profile *p, const uint64_t *chain, size_t n)
{
    if (p->nframes + n > p->frames_cap) {
        p->frames_cap = p->frames_cap ? 2 * p->frames_cap + n : 4096 + n;
        p->frames = xrealloc(p->frames, p->frames_cap * sizeof *p->frames);
    }
    if (n)
        memcpy(p->frames + p->nframes, chain, n * sizeof *chain);
    p->nframes += n;
    return (uint32_t)(p->nframes - n);
}

void profile_sample(Profile *p, int cpu, uint64_t cycle, uint64_t pc, bool user, const char *counter,
                    const uint64_t *chain, size_t nchain)
{
    if (p->nsamples == p->samples_cap) {
        p->samples_cap = p->samples_cap ? 2 * p->samples_cap : 1024;
        p->samples = xrealloc(p->samples, p->samples_cap * sizeof *p->samples);
    }
    if (nchain > CALLCHAIN_DEPTH)
        nchain = CALLCHAIN_DEPTH;
    ProfSample *s = &p->samples[p->nsamples++];
    *s = (ProfSample){ .cycle = cycle, .pc = pc, .cpu = cpu, .user = user, .nchain = (uint32_t)nchain };
    s->chain_at = add_chain(p, chain, nchain);
    snprintf(s->counter, sizeof s->counter, "%s", counter);
}

typedef struct AddrCount {
    uint64_t pc, count, window, cycles;
} AddrCount;

static int cmp_addr(const void *a, const void *b)
{
    const AddrCount *x = a, *y = b;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* A sample line: `sample cpu= cycle= pc= mode= counter= chain=RET,RET,...` (chain empty when the
 * walk found no caller). */
static void print_sample(const Profile *p, const ProfSample *s, FILE *f)
{
    fprintf(f, "sample cpu=%d cycle=%" PRIu64 " pc=0x%" PRIx64 " mode=%s counter=%s chain=", s->cpu, s->cycle, s->pc,
            s->user ? "user" : "kernel", s->counter);
    for (uint32_t i = 0; i < s->nchain; i++)
        fprintf(f, "%s0x%" PRIx64, i ? "," : "", p->frames[s->chain_at + i]);
    fputc('\n', f);
}

void profile_print(const Profile *p, const char *arch, uint64_t hz, FILE *f)
{
    /* Per-address counts: the prefix sums of each block's difference arrays. */
    size_t n = 0, cap = 1024;
    AddrCount *ac = xcalloc(cap, sizeof *ac);
    for (uint32_t s = 0; s < p->cap; s++) {
        const ProfBlock *b = &p->tab[s];
        if (!b->size)
            continue;
        uint64_t all = 0, win = 0;
        for (uint32_t i = 0; i < b->n; i++) {
            all += b->d_all[i];
            win += b->d_win[i];
            if (!all)
                continue;
            if (n == cap)
                ac = xrealloc(ac, (cap *= 2) * sizeof *ac);
            ac[n++] = (AddrCount){ b->pc + b->off[i], all, win, win * b->cost[i] };
        }
    }
    if (n)
        qsort(ac, n, sizeof *ac, cmp_addr);
    fprintf(f, SAMPLES_MAGIC "arch=%s hz=%" PRIu64 " samples=%zu\n", arch, hz, p->nsamples);
    for (size_t i = 0; i < p->nsamples; i++)
        print_sample(p, &p->samples[i], f);
    /* Merge equal addresses (one instruction in several translated blocks). */
    for (size_t i = 0; i < n;) {
        uint64_t pc = ac[i].pc, count = 0, window = 0, cycles = 0;
        for (; i < n && ac[i].pc == pc; i++) {
            count += ac[i].count;
            window += ac[i].window;
            cycles += ac[i].cycles;
        }
        fprintf(f, "insns pc=0x%" PRIx64 " count=%" PRIu64 " window=%" PRIu64 " cycles=%" PRIu64 "\n", pc, count,
                window, cycles);
    }
    free(ac);
}

/* ------------------------------------------------------------------ checkpoints */

static int cmp_block(const void *a, const void *b)
{
    const ProfBlock *x = *(const ProfBlock *const *)a, *y = *(const ProfBlock *const *)b;
    if (x->pc != y->pc)
        return x->pc < y->pc ? -1 : 1;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    if (x->n != y->n)                               /* other code at the same address and size */
        return x->n < y->n ? -1 : 1;
    for (uint32_t i = 0; i < x->n; i++)            /* by value: the same order on any host */
        if (x->off[i] != y->off[i] || x->cost[i] != y->cost[i])
            return x->off[i] != y->off[i] ? (x->off[i] < y->off[i] ? -1 : 1) : (x->cost[i] < y->cost[i] ? -1 : 1);
    return 0;
}

static void save_block(const ProfBlock *pb, Blob *b)
{
    blob_u64(b, pb->pc);
    blob_u32(b, pb->size);
    blob_u32(b, pb->n);
    for (uint32_t i = 0; i < pb->n; i++) {
        blob_u32(b, pb->off[i]);
        blob_u8(b, pb->cost[i]);
    }
    for (uint32_t i = 0; i <= pb->n; i++) {
        blob_u64(b, pb->d_all[i]);
        blob_u64(b, pb->d_win[i]);
    }
}

/* Raise when the saved state changes (base/state.h).  2: each sample's call chain. */
#define PROFILE_STATE_VERSION 2u
#define PROFILE_STATE_CHAINS 2u

void profile_save(const Profile *p, Blob *b)
{
    size_t at = blob_begin(b, "profile", PROFILE_STATE_VERSION);
    /* in address order: the table's order depends on its history */
    const ProfBlock **order = xcalloc(p->used ? p->used : 1, sizeof *order);
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->cap; i++)
        if (p->tab[i].size)
            order[n++] = &p->tab[i];
    if (n)
        qsort(order, n, sizeof *order, cmp_block);
    blob_u32(b, n);
    for (uint32_t i = 0; i < n; i++)
        save_block(order[i], b);
    free(order);
    blob_u64(b, p->nsamples);
    for (size_t i = 0; i < p->nsamples; i++) {
        const ProfSample *s = &p->samples[i];
        blob_u64(b, s->cycle);
        blob_u64(b, s->pc);
        blob_u32(b, (uint32_t)s->cpu);
        blob_u8(b, s->user);
        blob_str(b, s->counter);
        blob_u32(b, s->nchain);
        for (uint32_t k = 0; k < s->nchain; k++)
            blob_u64(b, p->frames[s->chain_at + k]);
    }
    blob_end(b, at);
}

/* Bytes a block of n instructions takes: pc, size, n, then per instruction its offset and
 * cost and per boundary (n + 1) the two counts. */
static uint64_t block_bytes(uint64_t n)
{
    return 16 + 5 * n + 16 * (n + 1);
}

static bool load_block(Profile *p, BlobReader *r)
{
    uint64_t pc = br_u64(r);
    uint32_t size = br_u32(r), n = br_u32(r);
    if (!r->ok)
        return false;
    /* an engine block: 1 to 65535 bytes (offsets are 16-bit), at least a byte per instruction */
    if (!size || size > UINT16_MAX || !n || n > size || block_bytes(n) - 16 > r->len - r->off)
        return br_fail(r, "profile block size");
    ProfBlock *b = block_new(p, pc, size, n);       /* (other code at the same address: another) */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t off = br_u32(r);
        b->cost[i] = br_u8(r);
        if (off >= size)
            return br_fail(r, "profile instruction offset");
        b->off[i] = (uint16_t)off;
    }
    for (uint32_t i = 0; i <= n; i++) {
        b->d_all[i] = br_u64(r);
        b->d_win[i] = br_u64(r);
    }
    return r->ok;
}

/* A sample's counter name: a register name, printed into the samples file as one word. */
static bool counter_ok(const char *s)
{
    for (; *s; s++)
        if (*s <= ' ' || *s > '~')
            return false;
    return true;
}

/* A sample's call chain (state version 2 on): its length and the return addresses. */
static void load_chain(Profile *p, BlobReader *r, ProfSample *s)
{
    uint32_t n = br_count(r, 8, CALLCHAIN_DEPTH, "sample call chain length");
    uint64_t chain[CALLCHAIN_DEPTH];
    for (uint32_t k = 0; k < n && r->ok; k++)
        chain[k] = br_u64(r);
    if (!r->ok)
        return;
    s->nchain = n;
    s->chain_at = add_chain(p, chain, n);
}

static bool load_samples(Profile *p, BlobReader *r, int ncpus, uint32_t version)
{
    uint64_t n = br_u64(r);
    /* cycle, pc, cpu, mode, counter length: at least 25 bytes each */
    if (!r->ok || n > (r->len - r->off) / 25)
        return br_fail(r, "sample count");
    p->nsamples = 0;
    if (n > p->samples_cap) {
        p->samples_cap = (size_t)n;
        p->samples = xrealloc(p->samples, p->samples_cap * sizeof *p->samples);
    }
    for (uint64_t i = 0; i < n && r->ok; i++) {
        ProfSample *s = &p->samples[i];
        *s = (ProfSample){ .cycle = br_u64(r), .pc = br_u64(r) };
        uint32_t cpu = br_u32(r);
        uint8_t user = br_u8(r);
        char *counter = br_str(r, sizeof s->counter - 1, "sample counter");
        if (r->ok && (cpu >= (uint32_t)ncpus || user > 1 || !counter_ok(counter)))
            br_fail(r, "sample");
        s->cpu = (int)cpu;
        s->user = user;
        snprintf(s->counter, sizeof s->counter, "%s", counter);
        free(counter);
        if (version >= PROFILE_STATE_CHAINS)
            load_chain(p, r, s);
        p->nsamples = (size_t)i + 1;
    }
    return r->ok;
}

bool profile_load(Profile *p, BlobReader *r, int ncpus)
{
    BrOuter outer;
    if (!br_begin(r, &outer, "profile", PROFILE_STATE_VERSION))
        return false;
    profile_destroy(p);             /* the file's profile replaces whatever this one holds */
    profile_init(p);
    uint32_t n = br_count(r, block_bytes(1), UINT32_MAX, "profile block count");
    for (uint32_t i = 0; i < n && r->ok; i++)
        load_block(p, r);
    return r->ok && load_samples(p, r, ncpus, r->version) && br_end(r, &outer);
}

/* ------------------------------------------------------------------ reading the file back */

/* A sample line's longest: its fields (about 130 characters with 64-bit numbers and a counter
 * name) and CALLCHAIN_DEPTH return addresses of up to 19 characters each ("0x" + 16 digits
 * and a comma). */
#define SAMPLES_LINE_MAX (256 + 19 * CALLCHAIN_DEPTH)

/* The value of ` key=` in a line, NULL if the line has none. */
static const char *field_at(const char *line, const char *key)
{
    char pat[32];
    snprintf(pat, sizeof pat, " %s=", key);
    const char *p = strstr(line, pat);
    return p ? p + strlen(pat) : NULL;
}

/* `key=value` from a line, as a number; false if absent or malformed (strtoull alone would take
 * "-1" as 2^64 - 1 and skip blanks). */
static bool field_u64(const char *line, const char *key, uint64_t *v)
{
    const char *p = field_at(line, key);
    if (!p || *p < '0' || *p > '9')
        return false;
    char *end;
    errno = 0;
    *v = strtoull(p, &end, 0);
    return !errno && (*end == ' ' || *end == '\n' || *end == 0);
}

/* The reader's state: the header's facts and the current sample's chain. */
typedef struct ReadState {
    const char *path;
    unsigned version;
    uint64_t hz;
    uint64_t chain[CALLCHAIN_DEPTH];
    char counter[16];               /* as ProfSample's */
} ReadState;

/* `key=WORD` from a line into buf (a word: up to a blank); false if absent or too long. */
static bool field_word(const char *line, const char *key, char *buf, size_t size)
{
    const char *p = field_at(line, key);
    if (!p)
        return false;
    size_t n = strcspn(p, " \n");
    if (n >= size)
        return false;
    memcpy(buf, p, n);
    buf[n] = 0;
    return true;
}

/* ` chain=A,B,...` (version 2): at most CALLCHAIN_DEPTH numbers; an empty chain is allowed. */
static bool field_chain(const char *line, uint64_t *out, size_t *n)
{
    const char *p = field_at(line, "chain");
    if (!p)
        return false;
    *n = 0;
    while (*p && *p != ' ' && *p != '\n') {
        char *end;
        if (*n == CALLCHAIN_DEPTH || *p < '0' || *p > '9')
            return false;
        errno = 0;
        out[(*n)++] = strtoull(p, &end, 0);
        if (errno || (*end == ',' && (end[1] < '0' || end[1] > '9')))
            return false;
        if (*end && *end != ',' && *end != ' ' && *end != '\n')
            return false;
        p = *end == ',' ? end + 1 : end;
    }
    return true;
}

/* A sample line; version 1 needs only pc and mode (its other fields are read when present),
 * version 2 every field pmusim writes. */
static bool read_sample(ReadState *st, const char *line, const SamplesVisitor *v, void *opaque, unsigned lineno,
                        Error *err)
{
    SampleRec s = { .hz = st->hz, .user = strstr(line, " mode=user") != NULL, .counter = st->counter,
                    .chain = st->chain };
    uint64_t cpu = 0;
    bool ok = field_u64(line, "pc", &s.pc) && (s.user || strstr(line, " mode=kernel"));
    bool has_cpu = field_u64(line, "cpu", &cpu) && cpu <= UINT16_MAX;
    bool has_cycle = field_u64(line, "cycle", &s.cycle);
    bool has_counter = field_word(line, "counter", st->counter, sizeof st->counter);
    if (!has_counter)
        st->counter[0] = 0;
    if (!has_cpu)
        cpu = 0;
    if (!has_cycle)
        s.cycle = 0;
    if (st->version >= 2)
        ok = ok && has_cpu && has_cycle && has_counter && field_chain(line, st->chain, &s.nchain);
    if (!ok)
        return err_set(err, "%s:%u: malformed sample line", st->path, lineno);
    s.cpu = (unsigned)cpu;
    return v->sample(opaque, &s) || err_set(err, "%s:%u: more samples than 64 bits can count", st->path, lineno);
}

/* One line of the file (not the first); false with err naming path and line. */
static bool read_line(ReadState *st, const char *line, const SamplesVisitor *v, void *opaque, unsigned lineno,
                      Error *err)
{
    uint64_t pc, count, window, cycles;
    if (line[0] == '#' || line[0] == '\n')
        return true;
    if (!strncmp(line, "sample ", 7))
        return read_sample(st, line, v, opaque, lineno, err);
    if (!strncmp(line, "insns ", 6)) {
        if (!field_u64(line, "pc", &pc) || !field_u64(line, "count", &count) || !field_u64(line, "window", &window) ||
            window > count || !field_u64(line, "cycles", &cycles))
            return err_set(err, "%s:%u: malformed insns line", st->path, lineno);
        return v->insns(opaque, pc, count, window, cycles) ||
               err_set(err, "%s:%u: the counts overflow: their sums exceed 64 bits", st->path, lineno);
    }
    return err_set(err, "%s:%u: unknown line", st->path, lineno);
}

/* The first line: the magic of version 1 or 2, and version 2's CPU clock. */
static bool read_header(ReadState *st, const char *line, Error *err)
{
    if (!strncmp(line, SAMPLES_MAGIC_V1, strlen(SAMPLES_MAGIC_V1)))
        st->version = 1;
    else if (!strncmp(line, SAMPLES_MAGIC, strlen(SAMPLES_MAGIC)))
        st->version = 2;
    else
        return err_set(err, "%s:1: not a pmusim samples file (version 1 or 2)", st->path);
    if (st->version >= 2 && (!field_u64(line, "hz", &st->hz) || !st->hz))
        return err_set(err, "%s:1: the header has no CPU clock (hz=)", st->path);
    return true;
}

bool profile_read(const char *path, const SamplesVisitor *v, void *opaque, Error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return err_set(err, "%s: cannot open: %s", path, strerror(errno));
    /* the longest line: a sample with CALLCHAIN_DEPTH return addresses of 64 bits */
    char line[SAMPLES_LINE_MAX];
    ReadState *st = xcalloc(1, sizeof *st);
    st->path = path;
    unsigned lineno = 0;
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f))
            ok = err_set(err, "%s:%u: line longer than %zu characters, or holding a NUL byte", path, lineno,
                         sizeof line - 2);
        else if (lineno == 1)
            ok = read_header(st, line, err);
        else
            ok = read_line(st, line, v, opaque, lineno, err);
    }
    free(st);
    if (ok && lineno == 0)
        ok = err_set(err, "%s: empty file", path);
    fclose(f);
    return ok;
}
