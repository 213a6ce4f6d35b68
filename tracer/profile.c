/* profile.c — PMU samples and the exact instruction profile (see profile.h). */
#include "tracer/profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    free(p->samples);
    memset(p, 0, sizeof *p);
}

static ProfBlock *slot(ProfBlock *tab, uint32_t cap, uint64_t pc, uint32_t size)
{
    uint32_t mask = cap - 1;
    for (uint32_t i = (uint32_t)((pc * 0x9E3779B97F4A7C15ull) >> 40) & mask;; i = (i + 1) & mask)
        if (!tab[i].size || (tab[i].pc == pc && tab[i].size == size))
            return &tab[i];
}

void profile_block(Profile *p, const BlockEntry *e, uint32_t from, uint32_t to, bool window)
{
    if (!e || !e->size || to > e->n || from >= to)
        return;
    ProfBlock *b = slot(p->tab, p->cap, e->pc, e->size);
    if (!b->size) {
        if (2 * (p->used + 1) > p->cap) {           /* grow and rehash */
            uint32_t old_cap = p->cap;
            ProfBlock *old = p->tab;
            p->cap *= 2;
            p->tab = xcalloc(p->cap, sizeof *p->tab);
            for (uint32_t i = 0; i < old_cap; i++)
                if (old[i].size)
                    *slot(p->tab, p->cap, old[i].pc, old[i].size) = old[i];
            free(old);
            b = slot(p->tab, p->cap, e->pc, e->size);
        }
        p->used++;
        b->pc = e->pc;
        b->size = e->size;
        b->n = e->n;
        b->off = xcalloc(e->n, sizeof *b->off);
        b->cost = xcalloc(e->n, sizeof *b->cost);
        for (uint32_t i = 0; i < e->n; i++) {
            b->off[i] = e->info[i].off;
            b->cost[i] = e->info[i].cost;
        }
        b->d_all = xcalloc((size_t)e->n + 1, sizeof *b->d_all);
        b->d_win = xcalloc((size_t)e->n + 1, sizeof *b->d_win);
    }
    b->d_all[from]++;
    b->d_all[to]--;
    if (window) {
        b->d_win[from]++;
        b->d_win[to]--;
    }
}

void profile_sample(Profile *p, int cpu, uint64_t cycle, uint64_t pc, bool user, const char *counter)
{
    if (p->nsamples == p->samples_cap) {
        p->samples_cap = p->samples_cap ? 2 * p->samples_cap : 1024;
        p->samples = xrealloc(p->samples, p->samples_cap * sizeof *p->samples);
    }
    ProfSample *s = &p->samples[p->nsamples++];
    *s = (ProfSample){ .cycle = cycle, .pc = pc, .cpu = cpu, .user = user };
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

bool profile_write(const Profile *p, const char *path, const char *arch, Error *err)
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
    qsort(ac, n, sizeof *ac, cmp_addr);
    FILE *f = fopen(path, "w");
    if (!f) {
        free(ac);
        return err_set(err, "%s: cannot create: %s", path, strerror(errno));
    }
    fprintf(f, "# pmusim samples 1 arch=%s samples=%zu\n", arch, p->nsamples);
    for (size_t i = 0; i < p->nsamples; i++) {
        const ProfSample *s = &p->samples[i];
        fprintf(f, "sample cpu=%d cycle=%" PRIu64 " pc=0x%" PRIx64 " mode=%s counter=%s\n", s->cpu, s->cycle, s->pc,
                s->user ? "user" : "kernel", s->counter);
    }
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
    bool ok = !ferror(f);
    if (fclose(f) != 0 || !ok)
        return err_set(err, "%s: write error", path);
    return true;
}
