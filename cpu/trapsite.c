/* trapsite.c — the trap-site table (trapsite.h). */
#include "cpu/trapsite.h"

#include <stdlib.h>

#define TRAPS_INITIAL 64

void traps_init(TrapTable *t)
{
    t->n = t->live = 0;
    t->sweep_at = 0;
    t->cap = TRAPS_INITIAL;
    t->sites = xcalloc(t->cap, sizeof *t->sites);
}

void traps_free(TrapTable *t)
{
    free(t->sites);
    t->sites = NULL;
    t->n = t->cap = 0;
}

/* The slot of pc: its site, or the empty slot where it would go. */
static TrapSite *slot(TrapTable *t, uint64_t pc)
{
    uint32_t mask = t->cap - 1;
    for (uint32_t i = hash_fib(pc, 24) & mask;; i = (i + 1) & mask)
        if (t->sites[i].pc == pc || !t->sites[i].len)
            return &t->sites[i];
}

TrapSite *traps_find(TrapTable *t, uint64_t pc)
{
    TrapSite *s = slot(t, pc);
    return s->len ? s : NULL;
}

static void grow(TrapTable *t)
{
    TrapSite *old = t->sites;
    uint32_t oldcap = t->cap;
    t->cap *= 2;
    t->sites = xcalloc(t->cap, sizeof *t->sites);
    for (uint32_t i = 0; i < oldcap; i++)
        if (old[i].len)
            *slot(t, old[i].pc) = old[i];
    free(old);
}

TrapSite *traps_insert(TrapTable *t, uint64_t pc)
{
    if (2 * (t->n + 1) > t->cap)
        grow(t);
    t->n++;
    return slot(t, pc);
}
