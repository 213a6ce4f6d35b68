/* arm64_paging.c — the AArch64 EL1&0 stage 1 translation regime (Arm ARM DDI 0487 chapter D8,
 * "The AArch64 Virtual Memory System Architecture"), walked by pmusim.
 *
 * What is modelled (section titles of D8):
 *   - "Translation regimes": SCTLR_EL1.M = 0 is the flat map (VA = PA, every access allowed);
 *     VA bit 55 picks TTBR0_EL1 or TTBR1_EL1, TCR_EL1.T0SZ/T1SZ their sizes (16..39: the
 *     largest and smallest without FEAT_LVA/FEAT_TTST; other values behave as the nearest, one
 *     of the CONSTRAINED UNPREDICTABLE choices), a VA in neither range or in a range with
 *     TCR_EL1.EPDn set takes a level 0 Translation fault.
 *   - "Translation table walk": 4 KiB, 16 KiB and 64 KiB granules (TG0/TG1; a reserved
 *     encoding behaves as 4 KiB), the start level from TxSZ and the granule, tables read in
 *     SCTLR_EL1.EE's byte order.
 *   - "Translation table descriptor formats": table, block (4 KiB: levels 1 and 2; 16 and
 *     64 KiB: level 2, larger blocks need FEAT_LPA/LPA2) and page descriptors; any other
 *     encoding is a Translation fault at its level.
 *   - "Memory access control": AP[2:1] with the hierarchical APTable, UXN/PXN with
 *     UXNTable/PXNTable, EL0-writable memory privileged execute-never, SCTLR_EL1.WXN.
 *   - "The Access flag": AF = 0 takes an Access flag fault; no hardware update (FEAT_HAFDBS is
 *     not modelled, and the CPU models do not have it).
 *   - Output address size: min(TCR_EL1.IPS, ID_AA64MMFR0_EL1.PARange); a TTBR (level 0), table
 *     or output address above it takes an Address size fault.
 * Not modelled: FEAT_PAN, FEAT_HPDS (TCR_EL1.HPDn), 52-bit addresses, the contiguous hint
 * (a TLB hint), memory types (MAIR: the engine has none).  A walk read with nothing behind it
 * is a Synchronous External abort on a translation table walk at that level. */
#include "cpu/arm64_paging.h"

#include <string.h>

#define SCTLR_M (1ull << 0)
#define SCTLR_WXN (1ull << 19)
#define SCTLR_EE (1ull << 25)
/* TCR_EL1 fields (DDI 0487 D17.2, TCR_EL1) */
#define TCR_EPD0 (1ull << 7)
#define TCR_EPD1 (1ull << 23)
enum { TCR_T1SZ_SHIFT = 16, TCR_TG0_SHIFT = 14, TCR_TG1_SHIFT = 30, TCR_IPS_SHIFT = 32 };
enum { TXSZ_MIN = 16, TXSZ_MAX = 39, VA_RANGE_BIT = 55 };
/* Descriptor bits */
#define DESC_VALID (1ull << 0)
#define DESC_TABLE (1ull << 1)         /* table (levels 0..2) or page (level 3); 0: block */
#define DESC_AP1 (1ull << 6)           /* AP[1]: EL0 access */
#define DESC_AP2 (1ull << 7)           /* AP[2]: read-only */
#define DESC_AF (1ull << 10)
#define DESC_PXN (1ull << 53)
#define DESC_UXN (1ull << 54)
#define TABLE_PXN (1ull << 59)
#define TABLE_UXN (1ull << 60)
#define TABLE_AP_NO_EL0 (1ull << 61)   /* APTable[0] */
#define TABLE_AP_RO (1ull << 62)       /* APTable[1] */
#define DESC_OA 0x0000fffffffff000ull  /* bits 47:12 */
#define TTBR_BADDR 0x0000fffffffffffeull

/* ID_AA64MMFR0_EL1.PARange and TCR_EL1.IPS: the physical address size. */
static unsigned pa_bits_of(unsigned code)
{
    static const uint8_t bits[] = { 32, 36, 40, 42, 44, 48, 52 };
    return code < sizeof bits ? bits[code] : 48;
}

/* One walk's setting, from TCR_EL1 and the half of the VA space va is in. */
typedef struct Regime {
    uint64_t table;                 /* the start level's table */
    unsigned gran;                  /* log2 of the granule: 12, 14, 16 */
    unsigned inputsize;             /* 64 - TxSZ */
    unsigned pa_bits;
    int start;                      /* start level */
} Regime;

/* One walk: what it read and what the tables allowed on the way. */
typedef struct Walk {
    uint64_t desc, desc_pa;
    int level;
    uint64_t pa;                    /* va's physical address (a leaf found) */
    bool no_el0, ro, pxn, uxn;      /* the table attributes, ORed down the levels */
} Walk;

static bool fail(MmuResult *r, const Walk *w, unsigned fsc, int level)
{
    r->kind = (int)fsc;
    r->level = level;
    r->syndrome = fsc | (unsigned)level;
    r->entry = w->desc;
    r->entry_pa = w->desc_pa;
    return false;
}

static unsigned granule_of(uint64_t tcr, bool upper)
{
    unsigned tg = (unsigned)(tcr >> (upper ? TCR_TG1_SHIFT : TCR_TG0_SHIFT)) & 3;
    static const uint8_t tg0[] = { 12, 16, 14, 12 }, tg1[] = { 12, 14, 12, 16 };   /* 0b00, 0b11: reserved */
    return upper ? tg1[tg] : tg0[tg];
}

/* The regime for va, false if va is in no enabled range (a level 0 Translation fault). */
static bool regime_of(const A64PagingRegs *g, uint64_t va, Regime *rg)
{
    bool upper = va >> VA_RANGE_BIT & 1;
    unsigned tsz = (unsigned)(g->tcr >> (upper ? TCR_T1SZ_SHIFT : 0)) & 63;
    tsz = tsz < TXSZ_MIN ? TXSZ_MIN : tsz > TXSZ_MAX ? TXSZ_MAX : tsz;
    uint64_t top = va >> (64 - tsz);
    if (top != (upper ? (1ull << tsz) - 1 : 0) || (g->tcr & (upper ? TCR_EPD1 : TCR_EPD0)))
        return false;
    rg->gran = granule_of(g->tcr, upper);
    rg->inputsize = 64 - tsz;
    unsigned stride = rg->gran - 3, ips = pa_bits_of((unsigned)(g->tcr >> TCR_IPS_SHIFT) & 7),
             pa = pa_bits_of((unsigned)g->mmfr0 & 0xf);
    rg->pa_bits = ips < pa ? ips : pa;
    rg->start = 3 - (int)((rg->inputsize - rg->gran - 1) / stride);
    uint64_t first_bits = rg->inputsize - (rg->gran + stride * (unsigned)(3 - rg->start));
    rg->table = (upper ? g->ttbr1 : g->ttbr0) & TTBR_BADDR & ~((8ull << first_bits) - 1);
    return true;
}

/* The output address of a table, block or page descriptor (64 KiB: bits 15:12 are OA[51:48],
 * FEAT_LPA's place for them: above any PA size here, so an Address size fault). */
static uint64_t oa_of(uint64_t desc, unsigned gran)
{
    uint64_t oa = desc & DESC_OA & ~((1ull << gran) - 1);
    return gran == 16 ? oa | (desc >> 12 & 0xf) << 48 : oa;
}

static bool block_allowed(unsigned gran, int level)
{
    return gran == 12 ? level == 1 || level == 2 : level == 2;
}

static bool read_desc(Cpu *c, uint64_t pa, bool be, uint64_t *desc)
{
    uint8_t raw[8];
    if (!vcpu_mem_read(c, pa, raw, sizeof raw))
        return false;
    *desc = be ? load_be(raw, sizeof raw) : load_le(raw, sizeof raw);
    return true;
}

/* Walk from the start level to the leaf; true with the leaf in w and va's physical address in
 * w->pa, false with r describing the fault. */
static bool walk_tables(Cpu *c, const A64PagingRegs *g, const Regime *rg, uint64_t va, Walk *w, MmuResult *r)
{
    unsigned stride = rg->gran - 3;
    uint64_t table = rg->table;
    if (table >> rg->pa_bits)
        return fail(r, w, A64_FSC_ADDR_SIZE, 0);
    for (int level = rg->start; level <= 3; level++) {
        unsigned shift = rg->gran + stride * (unsigned)(3 - level);
        unsigned bits = level == rg->start ? rg->inputsize - shift : stride;
        w->desc_pa = table + ((va >> shift) & ((1ull << bits) - 1)) * 8;
        w->desc = 0;
        w->level = level;
        if (!read_desc(c, w->desc_pa, g->sctlr & SCTLR_EE, &w->desc))
            return fail(r, w, A64_FSC_EXT_ABORT_WALK, level);
        uint64_t d = w->desc;
        bool leaf = level == 3 || !(d & DESC_TABLE);
        if (!(d & DESC_VALID) || (level == 3 && !(d & DESC_TABLE)) || (leaf && level < 3 && !block_allowed(rg->gran, level)))
            return fail(r, w, A64_FSC_TRANSLATION, level);
        uint64_t oa = oa_of(d, rg->gran) & ~((1ull << (leaf ? shift : rg->gran)) - 1);
        if (oa >> rg->pa_bits)
            return fail(r, w, A64_FSC_ADDR_SIZE, level);
        if (leaf) {
            w->pa = oa | (va & ((1ull << shift) - 1));
            return true;
        }
        w->no_el0 |= !!(d & TABLE_AP_NO_EL0), w->ro |= !!(d & TABLE_AP_RO);
        w->pxn |= !!(d & TABLE_PXN), w->uxn |= !!(d & TABLE_UXN);
        table = oa;
    }
    return false;                   /* not reached: level 3 is a leaf */
}

/* What the leaf and the tables above it allow at EL0 or EL1: UC_PROT_* bits (DDI 0487 D8,
 * "Memory access control": data access permissions, instruction execution permissions). */
static uint32_t allowed(const A64PagingRegs *g, const Walk *w, bool el0)
{
    uint64_t d = w->desc;
    bool ro = (d & DESC_AP2) || w->ro, el0_ok = (d & DESC_AP1) && !w->no_el0;
    bool read = el0 ? el0_ok : true;
    bool write = read && !ro;
    bool exec;
    if (el0)
        exec = !(d & DESC_UXN) && !w->uxn;
    else                            /* memory writable at EL0 is privileged execute-never */
        exec = !(d & DESC_PXN) && !w->pxn && !(el0_ok && !ro);
    if ((g->sctlr & SCTLR_WXN) && write)
        exec = false;
    return (read ? UC_PROT_READ : 0) | (write ? UC_PROT_WRITE : 0) | (exec ? UC_PROT_EXEC : 0);
}

static uint32_t access_prot(MmuAccess acc)
{
    return acc == MMU_WRITE ? UC_PROT_WRITE : acc == MMU_FETCH ? UC_PROT_EXEC : UC_PROT_READ;
}

/* Faults in the order DDI 0487 D8 "Prioritization of Synchronous aborts from a single stage
 * of address translation" gives them: Address size (TTBR), Translation, Address size (a
 * descriptor), Access flag, Permission. */
bool vcpu_a64_walk(Cpu *c, const A64PagingRegs *g, uint64_t va, MmuAccess acc, bool el0, MmuResult *r)
{
    memset(r, 0, sizeof *r);
    if (!(g->sctlr & SCTLR_M)) {
        r->pa = va & ~(uint64_t)(GUEST_PAGE - 1);
        r->perms = UC_PROT_ALL;
        return true;
    }
    Walk w = { .level = 0 };
    Regime rg;
    if (!regime_of(g, va, &rg))
        return fail(r, &w, A64_FSC_TRANSLATION, 0);
    if (!walk_tables(c, g, &rg, va, &w, r))
        return false;
    if (!(w.desc & DESC_AF))
        return fail(r, &w, A64_FSC_ACCESS_FLAG, w.level);
    uint32_t perms = allowed(g, &w, el0);
    if (!(perms & access_prot(acc)))
        return fail(r, &w, A64_FSC_PERMISSION, w.level);
    r->pa = w.pa & ~(uint64_t)(GUEST_PAGE - 1);
    r->perms = perms;
    return true;
}
