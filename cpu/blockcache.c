/* blockcache.c — see blockcache.h. */
#include "cpu/blockcache.h"

#include <stdlib.h>
#include <string.h>

#define ENTRIES (1u << BLOCKCACHE_LOG2)

void blockcache_init(BlockCache *bc, size_t arena_insns, uint32_t align)
{
    memset(bc, 0, sizeof *bc);
    bc->align = align ? align : 1;
    bc->tab = xcalloc(ENTRIES, sizeof *bc->tab);
    bc->arena = xmap_zero(arena_insns * sizeof *bc->arena);
    bc->arena_cap = arena_insns;
}

void blockcache_destroy(BlockCache *bc)
{
    free(bc->tab);
    xunmap(bc->arena, bc->arena_cap * sizeof *bc->arena);
    memset(bc, 0, sizeof *bc);
}

void blockcache_flush(BlockCache *bc)
{
    memset(bc->tab, 0, ENTRIES * sizeof *bc->tab);
    bc->arena_used = 0;
    bc->flushes++;
}

/* A block overlapping [start, end) starts in [start - max_size + 1, end), at a multiple of
 * align: for a small range (a code write: a few bytes) the slots of those addresses are
 * fewer than the table (a Linux boot makes 150,000 code writes); else the whole table. */
static bool invalidate_by_address(BlockCache *bc, uint64_t start, uint64_t end)
{
    uint64_t from = start > bc->max_size ? start - bc->max_size : 0;
    from -= from % bc->align;
    if (end <= from || (end - from) / bc->align >= ENTRIES / 2)
        return false;
    for (uint64_t pc = from; pc < end; pc += bc->align) {
        BlockEntry *e = blockcache_slot(bc, pc);
        if (e->size && e->pc == pc && start < e->pc + e->size)
            memset(e, 0, sizeof *e);
    }
    return true;
}

void blockcache_invalidate(BlockCache *bc, uint64_t start, uint64_t end)
{
    if (invalidate_by_address(bc, start, end))
        return;
    for (uint32_t i = 0; i < ENTRIES; i++) {
        BlockEntry *e = &bc->tab[i];
        if (e->size && e->pc < end && start < e->pc + e->size)
            memset(e, 0, sizeof *e);
    }
}

InsnInfo *blockcache_alloc_info(BlockCache *bc, uint32_t n, bool *flushed)
{
    *flushed = false;
    if (bc->arena_used + n > bc->arena_cap) {
        if (n > bc->arena_cap) {            /* cannot happen with engine block sizes; grow anyway */
            xunmap(bc->arena, bc->arena_cap * sizeof *bc->arena);
            bc->arena_cap = n * 2;
            bc->arena = xmap_zero(bc->arena_cap * sizeof *bc->arena);
        }
        blockcache_flush(bc);
        *flushed = true;
    }
    InsnInfo *p = bc->arena + bc->arena_used;
    bc->arena_used += n;
    return p;
}

uint32_t blockcache_insn_index(const BlockEntry *e, uint64_t pc)
{
    if (pc <= e->pc)
        return 0;
    uint64_t off = pc - e->pc;
    uint32_t lo = 0, hi = e->n;
    while (lo < hi) {       /* first instruction whose end is beyond off */
        uint32_t mid = (lo + hi) / 2;
        if ((uint64_t)e->info[mid].off + e->info[mid].len <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
