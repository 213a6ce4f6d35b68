/* blockcache.h — decoded translated blocks: instruction count, cycle cost, per-instruction
 * offsets and costs.  Direct-mapped on the block's start address; a block is identified by
 * (pc, size) because the engine may translate different blocks starting at the same address.
 * Per-instruction tables live in an arena that is reset whenever the cache is flushed, so the
 * hot path never allocates.
 */
#ifndef PMUSIM_BLOCKCACHE_H
#define PMUSIM_BLOCKCACHE_H

#include "base/common.h"
#include "base/tunables.h"

typedef struct InsnInfo {
    uint16_t off;                   /* offset from the block start */
    uint8_t len;
    uint8_t cost;                   /* cycles */
    uint8_t mem;                    /* MEM_LOAD | MEM_STORE: what it accesses (PMU load/store events) */
} InsnInfo;

enum { MEM_LOAD = 1, MEM_STORE = 2 };

typedef struct BlockEntry {
    uint64_t pc;
    uint32_t size;                  /* bytes; 0 = empty slot */
    uint32_t n;                     /* instructions */
    uint8_t br;                     /* BranchKind of the last instruction */
    bool restart;                   /* may be the engine re-running a store alone (cpu.c:
                                       smc_restart_retire): never on the block hook's fast path */
    bool tail;                      /* x86: Capstone could not decode from tail_off on; the
                                       engine's own boundaries are learned there (cpu.c:
                                       hook_tail), appended to info as it executes them */
    uint16_t tail_off;
    uint64_t cycles;                /* sum of the instruction costs */
    InsnInfo *info;                 /* n entries, in the arena (with a tail: room for one per
                                       byte of it) */
} BlockEntry;

typedef struct BlockCache {
    BlockEntry *tab;
    InsnInfo *arena;
    size_t arena_used, arena_cap;   /* in InsnInfo units */
    uint64_t decodes, flushes;      /* statistics */
    uint32_t max_size;              /* the largest block ever entered, in bytes */
    uint32_t align;                 /* where blocks may start: 4 on fixed-width ISAs, 1 on x86 */
} BlockCache;

void blockcache_init(BlockCache *bc, size_t arena_insns, uint32_t align);
void blockcache_destroy(BlockCache *bc);
void blockcache_flush(BlockCache *bc);
/* Drop every entry overlapping [start, end). */
void blockcache_invalidate(BlockCache *bc, uint64_t start, uint64_t end);

/* The slot of a block: a multiplicative (Fibonacci) hash of the whole address, so x86 blocks
 * that start a few bytes apart (a PAUSE ends its block: `1: pause; dec; jnz 1b` is two blocks
 * two bytes apart) do not evict each other.  The table size is a compile-time constant so the
 * hot path needs no load for the mask. */
static inline uint32_t blockcache_index(uint64_t pc)
{
    return hash_fib(pc, BLOCKCACHE_LOG2);
}

/* Space for n instruction records; flushes the whole cache first when the arena is full
 * (the caller must then re-fetch any entry pointer it holds). */
InsnInfo *blockcache_alloc_info(BlockCache *bc, uint32_t n, bool *flushed);
/* The slot (pc, size) will occupy; the caller fills it. */
static inline BlockEntry *blockcache_slot(BlockCache *bc, uint64_t pc)
{
    return &bc->tab[blockcache_index(pc)];
}
/* A block of size bytes was entered (blockcache_invalidate's bound). */
static inline void blockcache_note_size(BlockCache *bc, uint32_t size)
{
    bc->max_size = size > bc->max_size ? size : bc->max_size;
}
/* Index of the instruction starting at or containing pc; e->n if pc is at/after the end. */
uint32_t blockcache_insn_index(const BlockEntry *e, uint64_t pc);

#endif
