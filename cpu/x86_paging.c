/* x86_paging.c — x86-64 4-level paging (Intel SDM vol. 3A chapter 4), walked by pmusim.
 *
 * Paging-structure entry bits (SDM vol. 3A §4.5, tables 4-15 to 4-20):
 *   bit 0 P, 1 R/W, 2 U/S, 5 A (accessed), 6 D (dirty, leaves), 7 PS (a leaf above level 1),
 *   12 PAT (2 MiB leaves), 51:12 the address, 63 XD (with EFER.NXE).
 * pmusim's CPU reports 40 physical address bits and no 1 GiB pages (CPUID 80000008H and
 * 80000001H:EDX[26], cpu/x86_64.c), so bits 51:40 of every entry, PS in a PML4E or a PDPTE,
 * bits 20:13 of a 2 MiB leaf and XD without EFER.NXE are reserved: set, the access takes a #PF
 * with RSVD (SDM §4.7). */
#include "cpu/x86_paging.h"

#include <string.h>

#define PTE_P (1ull << 0)
#define PTE_RW (1ull << 1)
#define PTE_US (1ull << 2)
#define PTE_A (1ull << 5)
#define PTE_D (1ull << 6)
#define PTE_PS (1ull << 7)
#define PTE_XD (1ull << 63)
#define PTE_ADDR 0x000ffffffffff000ull
#define PTE_RSVD_PHYS 0x000fff0000000000ull     /* above the 40 physical address bits */
#define PDE_2M_RSVD 0x00000000001fe000ull        /* bits 20:13 of a 2 MiB leaf */

enum { CR0_WP = 1u << 16, CR0_PG = 1u << 31 };
enum { CR4_SMEP = 1u << 20, CR4_SMAP = 1u << 21 };
enum { EFER_LMA_BIT = 1u << 10, EFER_NXE_BIT = 1u << 11 };
enum { RFLAGS_AC_BIT = 1u << 18 };
enum { LEVELS = 4, LEVEL_PDPT = 2, LEVEL_PD = 1 };

/* One walk: the entries it read and what they allow together. */
typedef struct Walk {
    uint64_t pte[LEVELS], pte_pa[LEVELS];
    int n;                          /* entries read, PML4E first */
    bool writable, user, xd;        /* R/W and U/S ANDed over the levels, XD ORed */
    uint64_t page_pa;               /* the 4 KiB page of va */
    int leaf;                       /* level of the leaf */
} Walk;

static bool fail(MmuResult *r, const Walk *w, int kind, uint64_t err)
{
    r->kind = kind;
    r->syndrome = err;
    r->level = w->n ? LEVELS - w->n : LEVELS;
    r->entry = w->n ? w->pte[w->n - 1] : 0;
    r->entry_pa = w->n ? w->pte_pa[w->n - 1] : 0;
    return false;
}

/* An entry at physical address pa; outside RAM it reads as all ones (what a read of nothing
 * returns on this machine's bus: docs/machines.md), so its reserved bits are set. */
static uint64_t read_entry(Cpu *c, uint64_t pa, bool *outside)
{
    uint8_t raw[8];
    *outside = !vcpu_mem_read(c, pa, raw, sizeof raw);
    return *outside ? ~0ull : load_le(raw, sizeof raw);
}

static bool reserved(uint64_t pte, int level, uint64_t rsvd)
{
    if (pte & rsvd)
        return true;
    if (level > LEVEL_PD)
        return pte & PTE_PS;        /* a PML4E, or a PDPTE without 1 GiB pages */
    return level == LEVEL_PD && (pte & PTE_PS) && (pte & PDE_2M_RSVD);
}

/* The walk itself: 0 when it reaches a leaf, else the #PF error code bits it found (without the
 * access-type bits). */
static uint64_t walk_tables(Cpu *c, const X86PagingRegs *g, uint64_t va, Walk *w, bool *outside)
{
    uint64_t table = g->cr3 & PTE_ADDR, rsvd = PTE_RSVD_PHYS | (g->efer & EFER_NXE_BIT ? 0 : PTE_XD);
    *w = (Walk){ .writable = true, .user = true };
    for (int level = LEVELS - 1; level >= 0; level--) {
        uint64_t pa = table + ((va >> (12 + 9 * level)) & 0x1ff) * 8;
        uint64_t pte = read_entry(c, pa, outside);
        w->pte[w->n] = pte, w->pte_pa[w->n] = pa, w->n++;
        if (!(pte & PTE_P))
            return PF_ERR_P;        /* (the caller turns it into P = 0) */
        if (reserved(pte, level, rsvd))
            return PF_ERR_P | PF_ERR_RSVD;
        w->writable &= !!(pte & PTE_RW), w->user &= !!(pte & PTE_US), w->xd |= !!(pte & PTE_XD);
        if (level == 0 || (pte & PTE_PS)) {
            uint64_t size = 1ull << (12 + 9 * level);
            w->page_pa = (pte & PTE_ADDR & ~(size - 1)) | (va & (size - 1) & PTE_ADDR);
            w->leaf = level;
            return 0;
        }
        table = pte & PTE_ADDR;
    }
    return 0;
}

/* What the translation allows at this privilege (SDM vol. 3A §4.6): UC_PROT_* bits. */
static uint32_t allowed(const X86PagingRegs *g, const Walk *w, bool user)
{
    bool smap = !user && w->user && (g->cr4 & CR4_SMAP) && !(g->rflags & RFLAGS_AC_BIT);
    bool read = user ? w->user : !smap;
    bool write = read && (w->writable || (!user && !(g->cr0 & CR0_WP)));
    bool exec = !w->xd && (user ? w->user : !(w->user && (g->cr4 & CR4_SMEP)));
    return (read ? UC_PROT_READ : 0) | (write ? UC_PROT_WRITE : 0) | (exec ? UC_PROT_EXEC : 0);
}

static void set_flag(Cpu *c, Walk *w, int i, uint64_t flag)
{
    if (w->pte[i] & flag)
        return;
    w->pte[i] |= flag;
    uint8_t raw[8];
    store_le(raw, sizeof raw, w->pte[i]);
    vcpu_mem_write(c, w->pte_pa[i], raw, sizeof raw);
}

/* The processor sets A in every entry it used, and D in the leaf on a write (SDM §4.8). */
static void mark_used(Cpu *c, Walk *w, bool write)
{
    for (int i = 0; i < w->n; i++)
        set_flag(c, w, i, PTE_A);
    if (write)
        set_flag(c, w, w->n - 1, PTE_D);
}

static uint32_t access_prot(MmuAccess acc)
{
    return acc == MMU_WRITE ? UC_PROT_WRITE : acc == MMU_FETCH ? UC_PROT_EXEC : UC_PROT_READ;
}

bool vcpu_x86_walk(Cpu *c, const X86PagingRegs *g, uint64_t va, MmuAccess acc, bool user, bool probe, MmuResult *r)
{
    memset(r, 0, sizeof *r);
    if (!(g->cr0 & CR0_PG) || !(g->efer & EFER_LMA_BIT)) {
        r->pa = va & PTE_ADDR & 0xffffffffull;  /* paging off (legacy paging is not modelled) */
        r->perms = UC_PROT_ALL;
        return true;
    }
    Walk w = { 0 };
    if ((int64_t)va >> 47 != 0 && (int64_t)va >> 47 != -1)
        return fail(r, &w, X86_MMU_GP, 0);      /* not canonical: #GP(0), SDM §3.3.7.1 */
    uint64_t err = (acc == MMU_WRITE ? PF_ERR_W : 0) | (user ? PF_ERR_U : 0) |
                   (acc == MMU_FETCH && (g->efer & EFER_NXE_BIT || g->cr4 & CR4_SMEP) ? PF_ERR_I : 0);
    bool outside;
    uint64_t found = walk_tables(c, g, va, &w, &outside);
    if (found == PF_ERR_P)
        return fail(r, &w, X86_MMU_PF, err);                 /* not present */
    if (found)
        return fail(r, &w, X86_MMU_PF, err | found);         /* reserved bits */
    uint32_t perms = allowed(g, &w, user);
    if (!(perms & access_prot(acc)))
        return fail(r, &w, X86_MMU_PF, err | PF_ERR_P);      /* protection */
    if (!probe)
        mark_used(c, &w, acc == MMU_WRITE);
    if (!(w.pte[w.n - 1] & PTE_D))
        perms &= ~(uint32_t)UC_PROT_WRITE;     /* the first write comes back here to set D */
    r->pa = w.page_pa;
    r->perms = perms;
    return true;
}
