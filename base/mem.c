/* mem.c — guest RAM/ROM blocks and code-page protection (see mem.h). */
#include "base/mem.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

bool mem_add(GuestMem *gm, uint64_t base, uint64_t size, bool rom, Error *err)
{
    if (gm->n == MEM_MAX_BLOCKS)
        return err_set(err, "too many memory ranges (at most %d)", MEM_MAX_BLOCKS);
    if (!size)
        return err_set(err, "memory range 0x%" PRIx64 "+0x0 is empty", base);
    if ((base | size) & (GUEST_PAGE - 1))      /* engines map memory in whole pages */
        return err_set(err, "memory range 0x%" PRIx64 "+0x%" PRIx64 ": the %s is not a multiple of 4 KiB (0x1000)",
                       base, size, base & (GUEST_PAGE - 1) ? "base" : "size");
    if (base + size < base)
        return err_set(err, "memory range 0x%" PRIx64 "+0x%" PRIx64 " wraps around", base, size);
    for (int i = 0; i < gm->n; i++)
        if (base < gm->blk[i].base + gm->blk[i].size && gm->blk[i].base < base + size)
            return err_set(err, "memory range 0x%" PRIx64 "+0x%" PRIx64 " overlaps another one", base, size);
    void *host = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (host == MAP_FAILED)
        return err_set(err, "cannot allocate %" PRIu64 " MiB of guest memory", size >> 20);
    RamBlock *b = &gm->blk[gm->n++];
    b->base = base;
    b->size = size;
    b->host = host;
    b->rom = rom;
    b->pflags = xcalloc(size / GUEST_PAGE, 1);
    return true;
}

void mem_destroy(GuestMem *gm)
{
    for (int i = 0; i < gm->n; i++) {
        munmap(gm->blk[i].host, gm->blk[i].size);
        free(gm->blk[i].pflags);
    }
    free(gm->pending);
    memset(gm, 0, sizeof *gm);
}

RamBlock *mem_block(GuestMem *gm, uint64_t addr)
{
    for (int i = 0; i < gm->n; i++)
        if (addr - gm->blk[i].base < gm->blk[i].size)
            return &gm->blk[i];
    return NULL;
}

uint8_t *mem_ptr(GuestMem *gm, uint64_t addr, uint64_t len)
{
    RamBlock *b = mem_block(gm, addr);
    if (!b || len > b->size - (addr - b->base))
        return NULL;
    return b->host + (addr - b->base);
}

/* ROM is read-only to the engine, and so are code pages unless the CPUs' TLB fills catch the
 * stores to them (cpu/mmu.c, "Code pages and stores"). */
static uint32_t page_perms(const RamBlock *b, uint64_t page, bool protect_code)
{
    if (b->rom || (protect_code && (b->pflags[page] & PAGE_CODE)))
        return UC_PROT_READ | UC_PROT_EXEC;
    return UC_PROT_ALL;
}

/* The end of the run of pages from p on that share page p's protection.  Page by page, but
 * RAM that nothing has executed (nearly all of a large block, and a 1 TiB block has 2^28 pages)
 * is not looked at page by page: the flags above flagged_end are all zero, and an aligned
 * all-zero stretch below it is passed a chunk at a time. */
static uint64_t run_end(const RamBlock *b, uint64_t p, uint64_t pages, bool protect_code)
{
    static const uint8_t zero[4096];
    if (b->rom)
        return pages;
    uint32_t perms = page_perms(b, p, protect_code);
    uint64_t q = p + 1;
    while (q < pages) {
        if (perms == UC_PROT_ALL && q >= b->flagged_end)
            return pages;
        if (perms == UC_PROT_ALL && q % sizeof zero == 0 && pages - q >= sizeof zero &&
            !memcmp(b->pflags + q, zero, sizeof zero)) {
            q += sizeof zero;
            continue;
        }
        if (page_perms(b, q, protect_code) != perms)
            break;
        q++;
    }
    return q;
}

bool mem_map_engine(GuestMem *gm, uc_engine *uc, bool protect_code, Error *err)
{
    for (int i = 0; i < gm->n; i++) {
        const RamBlock *b = &gm->blk[i];
        uint64_t pages = b->size / GUEST_PAGE;
        for (uint64_t p = 0; p < pages;) {     /* one mapping per run of equal protection */
            uint32_t perms = page_perms(b, p, protect_code);
            uint64_t q = run_end(b, p, pages, protect_code);
            uint64_t at = b->base + p * GUEST_PAGE, len = (q - p) * GUEST_PAGE;
            uc_err e = uc_mem_map_ptr(uc, at, len, perms, b->host + p * GUEST_PAGE);
            /* Mapped without write permission, a region still takes the engine's own stores
             * (after one call of the write-protect hook); uc_mem_protect makes it read-only
             * to them (docs/engine.md, "Write protection"). */
            if (e == UC_ERR_OK && !(perms & UC_PROT_WRITE))
                e = uc_mem_protect(uc, at, len, perms);
            if (e != UC_ERR_OK)
                return err_set(err, "mapping guest memory at 0x%" PRIx64 ": %s", b->base + p * GUEST_PAGE,
                                 uc_strerror(e));
            p = q;
        }
    }
    return true;
}

static void flag_page(RamBlock *b, uint64_t page, uint8_t flag)
{
    b->pflags[page] |= flag;
    if (page >= b->flagged_end)
        b->flagged_end = page + 1;
}

void mem_mark_code(GuestMem *gm, uint64_t start, uint64_t end)
{
    for (uint64_t a = start & ~(GUEST_PAGE - 1); a < end; a += GUEST_PAGE) {
        RamBlock *b = mem_block(gm, a);
        if (b)
            flag_page(b, (a - b->base) / GUEST_PAGE, PAGE_CODE);
    }
}

void mem_note_code_page(GuestMem *gm, uint64_t addr)
{
    RamBlock *b = mem_block(gm, addr);
    if (!b || b->rom)
        return;
    uint64_t page = (addr - b->base) / GUEST_PAGE;
    if (b->pflags[page] & (PAGE_CODE | PAGE_CODE_PENDING))
        return;
    flag_page(b, page, PAGE_CODE_PENDING);
    if (gm->npending == gm->pending_cap) {
        gm->pending_cap = gm->pending_cap ? gm->pending_cap * 2 : 16;
        gm->pending = xrealloc(gm->pending, (size_t)gm->pending_cap * sizeof *gm->pending);
    }
    gm->pending[gm->npending++] = addr & ~(GUEST_PAGE - 1);
}

/* /proc/self/pagemap: one 64-bit entry per host page of the process, bit 63 "present in RAM",
 * bit 62 "swapped" (Linux, Documentation/admin-guide/mm/pagemap.rst).  A private anonymous page
 * with neither has never been touched: it reads as zero.  The flags need no privilege (only
 * the frame numbers do). */
#define PAGEMAP_PRESENT (1ull << 63)
#define PAGEMAP_SWAPPED (1ull << 62)
#define PAGEMAP_CHUNK 512u          /* entries read at a time */

static bool pagemap_read(int fd, uint64_t host_page, uint64_t count, uint64_t *ent)
{
    size_t len = (size_t)count * sizeof *ent;
    return pread(fd, ent, len, (off_t)(host_page * sizeof *ent)) == (ssize_t)len;
}

/* backed[] for the guest pages of one chunk of host pages from host page hp on. */
static bool pagemap_chunk(int fd, uint64_t hp, uint64_t hpages, const uint8_t *start, uint64_t host_pg,
                          uint64_t n, uint8_t *backed)
{
    uint64_t ent[PAGEMAP_CHUNK + 1];            /* a chunk that starts inside a host page spans one more */
    if (!pagemap_read(fd, hp, hpages, ent))
        return false;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t k = ((uintptr_t)(start + i * GUEST_PAGE)) / host_pg - hp;
        backed[i] = k >= hpages || (ent[k] & (PAGEMAP_PRESENT | PAGEMAP_SWAPPED)) != 0;
    }
    return true;
}

bool mem_pages_backed(const RamBlock *b, uint64_t first, uint64_t n, uint8_t *backed)
{
    memset(backed, 1, (size_t)n);
    long pg = sysconf(_SC_PAGESIZE);
    int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || pg <= 0 || pg % (long)GUEST_PAGE) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    uint64_t host_pg = (uint64_t)pg, per = host_pg / GUEST_PAGE, done = 0;
    bool ok = true;
    while (ok && done < n) {
        const uint8_t *start = b->host + (first + done) * GUEST_PAGE;
        uint64_t hp = (uintptr_t)start / host_pg, m = n - done;
        if (m > PAGEMAP_CHUNK * per)
            m = PAGEMAP_CHUNK * per;
        uint64_t hpages = ((uintptr_t)(start + m * GUEST_PAGE - 1)) / host_pg - hp + 1;
        ok = pagemap_chunk(fd, hp, hpages, start, host_pg, m, backed + done);
        done += m;
    }
    close(fd);
    if (!ok)
        memset(backed, 1, (size_t)n);
    return ok;
}
