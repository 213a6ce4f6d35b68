/* trapsite.h — the table of a CPU's trap sites: instructions that run under a one-address code
 * hook instead of natively (cpu.h, "Trap sites").  An open-addressing table keyed by pc,
 * Fibonacci-hashed, at most half full; the engine hooks themselves are cpu.c's. */
#ifndef PMUSIM_TRAPSITE_H
#define PMUSIM_TRAPSITE_H

#include <unicorn/unicorn.h>

#include "base/common.h"

/* A trapped instruction site (one per address, per CPU engine). */
typedef struct TrapSite {
    uint64_t pc;
    uc_hook hook;
    uint16_t kind;              /* backend-defined */
    uint8_t len;
    uint8_t bytes[15];          /* the instruction when it was hooked */
    bool live;
    uint32_t hits;              /* executions since the last sweep (cpu.c, traps_sweep) */
} TrapSite;

typedef struct TrapTable {
    TrapSite *sites;
    uint32_t n, cap;                /* used and allocated slots (cap a power of two) */
    uint32_t live;                  /* sites with an engine hook */
    uint64_t sweep_at;              /* the CPU's instruction count of the next sweep */
} TrapTable;

void traps_init(TrapTable *t);
void traps_free(TrapTable *t);
/* The site at pc, or NULL. */
TrapSite *traps_find(TrapTable *t, uint64_t pc);
/* A new, empty site for pc (not yet in the table), growing the table if needed. */
TrapSite *traps_insert(TrapTable *t, uint64_t pc);

#endif
