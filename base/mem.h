/* mem.h — guest physical memory: RAM and ROM blocks backed by host buffers shared by every
 * CPU's engine (uc_mem_map_ptr), and the per-page "code" flag that write-protects a page in
 * every engine so stores to it reach the code-write chokepoint (cpu/codewatch.h).
 */
#ifndef PMUSIM_MEM_H
#define PMUSIM_MEM_H

#include <unicorn/unicorn.h>

#include "base/common.h"

#define GUEST_PAGE ((uint64_t)4096)
#define MEM_MAX_BLOCKS 8

enum { PAGE_CODE = 1, PAGE_CODE_PENDING = 2 };

typedef struct RamBlock {
    uint64_t base, size;
    uint8_t *host;
    bool rom;
    uint8_t *pflags;                /* per page: PAGE_CODE, PAGE_CODE_PENDING */
    uint64_t flagged_end;           /* one past the highest page ever flagged: all zero above */
} RamBlock;

typedef struct GuestMem {
    RamBlock blk[MEM_MAX_BLOCKS];
    int n;
    uint64_t *pending;              /* pages that became code during the current run */
    int npending, pending_cap;
} GuestMem;

bool mem_add(GuestMem *gm, uint64_t base, uint64_t size, bool rom, Error *err);
void mem_destroy(GuestMem *gm);
RamBlock *mem_block(GuestMem *gm, uint64_t addr);
/* Host pointer for [addr, addr+len) if it lies inside one block, else NULL. */
uint8_t *mem_ptr(GuestMem *gm, uint64_t addr, uint64_t len);
/* Map every block into an engine with the current page protections. */
bool mem_map_engine(GuestMem *gm, uc_engine *uc, bool protect_code, Error *err);
/* Mark [start, end) as code now (before engines exist, or with every engine stopped). */
void mem_mark_code(GuestMem *gm, uint64_t start, uint64_t end);
/* A CPU executed from a page not yet marked: remember it for mem_apply_pending(). */
static inline bool mem_page_is_code(GuestMem *gm, uint64_t addr)
{
    RamBlock *b = mem_block(gm, addr);
    return !b || b->rom || (b->pflags[(addr - b->base) / GUEST_PAGE] & (PAGE_CODE | PAGE_CODE_PENDING));
}
void mem_note_code_page(GuestMem *gm, uint64_t addr);

/* Which of the pages first .. first + n - 1 of block b the host has ever given memory to (each
 * backed[i] 1 or 0): RAM is reserved, not allocated (mem_add), and a page no one has written
 * or read is zero without being looked at, so that a checkpoint of 1 GiB of RAM reads only
 * what the guest touched.  From /proc/self/pagemap (present or swapped); false, with every
 * backed[i] 1, where the host cannot say.  Only time depends on the answer, never a result. */
bool mem_pages_backed(const RamBlock *b, uint64_t first, uint64_t n, uint8_t *backed);

#endif
