/* ppc32_paging.c — the MMU of the MPC7450 family (the 32-bit PowerPC OEA: "PowerPC
 * Microprocessor Family: The Programming Environments Manual for 32-Bit Microprocessors" (PEM)
 * chapter 7, and MPC7450 RM chapter 5), walked by pmusim.
 *
 * What is modelled:
 *   - Real addressing (PEM §7.2): MSR[IR] = 0 for fetches, MSR[DR] = 0 for data: EA = PA.
 *   - Block address translation first (PEM §7.4): IBAT0-3 for fetches, DBAT0-3 for data, and
 *     BATs 4-7 when the caller says so (HID0[HIGH_BAT_EN] on the 7447A and 7448; the 7450 has
 *     four pairs).  Upper BAT: BEPI (bits 0-14), BL (19-29), Vs (30), Vp (31); lower: BRPN
 *     (0-14), WIMG (25-28), PP (30-31).  A BAT matches when EA[0:14] and BEPI agree outside the
 *     BL mask and the BAT is valid for the state (Vs in supervisor, Vp in problem state);
 *     PA[0:14] = BRPN | (EA[0:14] & BL).  PP 00 no access, x1 read-only, 10 read/write (PEM
 *     table 7-8).  Several BATs matching is a programming error; the lowest numbered wins.
 *   - Otherwise the segment register SR[EA[0:3]] (PEM §7.5.2): T (bit 0) = 1 is a direct-store
 *     segment, which the 7450 family does not support: a DSI with DSISR[5] or an ISI with SRR1[3]
 *     (MPC7450 RM §5.4.1; Linux never sets T); Ks (1), Kp (2), N (3, no-execute), VSID (8-31).
 *   - The hashed page table (PEM §7.6): SDR1's HTABORG (0-15) and HTABMASK (23-31); the primary
 *     hash VSID[5:23] XOR the page index EA[4:19], the secondary its complement; PTEG address =
 *     HTABORG[0:6] || (HTABORG[7:15] | (hash[0:8] & HTABMASK)) || hash[9:18] || 0b000000; eight
 *     PTEs of 8 bytes, the primary PTEG first.  A PTE matches with V = 1, its VSID, H = 0 in the
 *     primary (1 in the secondary) and API = EA[4:9].  Word 1: RPN (0-19), R (23), C (24), WIMG
 *     (25-28), PP (30-31).  The MPC7450 RM's table search (§5.4.5) reads them in this order and
 *     takes the first match.
 *   - Protection (PEM §7.5.4, table 7-10): key = MSR[PR] ? Kp : Ks; key 0: PP 00, 01, 10
 *     read/write, 11 read-only; key 1: 00 none, 01 and 11 read-only, 10 read/write.  A fetch needs
 *     read access, N = 0 and G = 0 in the matching IBAT or PTE (the 74xx user manuals' table 5-3,
 *     "Translation exception conditions": a fetch from a direct-store segment, a no-execute
 *     segment or guarded memory is an ISI with SRR1[3]; a data access to a direct-store segment
 *     a DSI with DSISR[5]).  The segment checks come before the table search, as the MPC7448's
 *     exception priorities list them (ISI for N or T first, then a miss, guarded or protection).
 *   - Referenced and changed bits (PEM §7.5.3): an access allowed by a PTE sets R, a store also
 *     C, in the PTE in memory (not when probing).  Write permission is given to the engine only
 *     with C already set, so that the first store comes back to set it.
 *   - Faults: DSI (DAR = EA; DSISR 0x40000000 no translation, 0x08000000 protection, 0x04000000
 *     direct-store, with 0x02000000 for a store: PEM table 6-11) or ISI (SRR1 0x40000000 no
 *     translation, 0x10000000 no-execute or direct-store segment or guarded page, 0x08000000
 *     protection: PEM table 6-13).  A PTEG read with nothing behind it is what a table search
 *     bus error gives: a machine check (MPC7450 RM §4.6.2: TEA during a memory access).
 * Not modelled: the 7450's extended addressing (HID0[XAEN], 36-bit physical addresses; XBSEN),
 * its software table search (HID0[STEN], tlbld/tlbli: pmusim's CPUs run on the engine's E600,
 * docs/engine.md), and cache attributes other than dcbz's use of W and I. */
#include "cpu/ppc32_paging.h"

#include <string.h>

enum { MSR_DR = 1u << 4, MSR_IR = 1u << 5, MSR_PR = 1u << 14 };
/* BAT fields */
#define BAT_EPI 0xfffe0000u
enum { BATU_VP = 1u << 0, BATU_VS = 1u << 1, BATU_BL_SHIFT = 2, BAT_BL_BITS = 0x7ffu, BAT_EPI_SHIFT = 17 };
enum { BATL_WIMG_SHIFT = 3 };
/* Segment register fields */
enum { SR_T = 1u << 31, SR_KS = 1u << 30, SR_KP = 1u << 29, SR_N = 1u << 28 };
#define SR_VSID 0x00ffffffu
/* SDR1 */
#define SDR1_HTABORG 0xffff0000u
#define SDR1_HTABMASK 0x000001ffu
/* PTE word 0 and word 1 */
enum { PTE0_V = 1u << 31, PTE0_H = 1u << 6, PTE0_VSID_SHIFT = 7, PTE0_API = 0x3fu };
enum { PTE1_R = 1u << 8, PTE1_C = 1u << 7, PTE1_WIMG_SHIFT = 3, PTE1_PP = 3u };
#define PTE1_RPN 0xfffff000u
enum { PTEG_PTES = 8, PTE_SIZE = 8, PAGE_INDEX_BITS = 16, HASH_BITS = 19 };

static bool fail(MmuResult *r, int kind, uint32_t syndrome, int by, uint64_t entry, uint64_t entry_pa)
{
    r->kind = kind;
    r->level = by;
    r->syndrome = syndrome;
    r->entry = entry;
    r->entry_pa = entry_pa;
    return false;
}

/* The fault for a translation refused for `why` (a DSISR bit; the ISI's SRR1 bit is the same
 * one but for direct-store, which is SRR1[3]). */
static bool refuse(MmuResult *r, MmuAccess acc, uint32_t why, int by, uint64_t entry, uint64_t entry_pa)
{
    if (acc == MMU_FETCH)
        return fail(r, PPC_MMU_ISI, why == PPC_DSISR_DIRECT ? PPC_SRR1_NOEXEC : why, by, entry, entry_pa);
    return fail(r, PPC_MMU_DSI, why | (acc == MMU_WRITE ? PPC_DSISR_STORE : 0), by, entry, entry_pa);
}

static uint32_t access_prot(MmuAccess acc)
{
    return acc == MMU_WRITE ? UC_PROT_WRITE : acc == MMU_FETCH ? UC_PROT_EXEC : UC_PROT_READ;
}

/* PP of a BAT (PEM table 7-8): execute follows read. */
static uint32_t bat_prot(unsigned pp)
{
    return pp == 0 ? 0 : pp == 2 ? UC_PROT_ALL : UC_PROT_READ | UC_PROT_EXEC;
}

/* PP of a PTE with key (PEM table 7-10). */
static uint32_t page_prot(bool key, unsigned pp)
{
    if (pp == 3 || (key && pp == 1))
        return UC_PROT_READ | UC_PROT_EXEC;
    return key && pp == 0 ? 0 : UC_PROT_ALL;
}

/* The BAT array for acc that maps ea in the current state, or -1. */
static int bat_match(const PpcMmuRegs *g, uint32_t ea, MmuAccess acc)
{
    const uint32_t(*bat)[2] = acc == MMU_FETCH ? g->ibat : g->dbat;
    uint32_t valid = g->msr & MSR_PR ? BATU_VP : BATU_VS;
    for (unsigned i = 0; i < g->nbats && i < PPC_BAT_PAIRS; i++) {
        uint32_t u = bat[i][0], bl = (u >> BATU_BL_SHIFT) & BAT_BL_BITS;
        uint32_t mask = BAT_EPI & ~(bl << BAT_EPI_SHIFT);
        if ((u & valid) && (ea & mask) == (u & mask))
            return (int)i;
    }
    return -1;
}

static bool bat_translate(const PpcMmuRegs *g, int i, uint32_t ea, MmuAccess acc, MmuResult *r, PpcXlate *x)
{
    const uint32_t *bat = acc == MMU_FETCH ? g->ibat[i] : g->dbat[i];
    uint32_t bl = (bat[0] >> BATU_BL_SHIFT) & BAT_BL_BITS;
    uint32_t pa = (bat[1] & BAT_EPI) | (ea & (bl << BAT_EPI_SHIFT | ~BAT_EPI));
    uint32_t perms = bat_prot(bat[1] & 3), wimg = (bat[1] >> BATL_WIMG_SHIFT) & 0xf;
    if (wimg & PPC_WIMG_G)
        perms &= ~(uint32_t)UC_PROT_EXEC;
    if (acc == MMU_FETCH && (wimg & PPC_WIMG_G))
        return fail(r, PPC_MMU_ISI, PPC_SRR1_NOEXEC, PPC_BY_BAT, bat[0], (uint64_t)i);
    if (!(perms & access_prot(acc)))
        return refuse(r, acc, PPC_DSISR_PROT, PPC_BY_BAT, bat[0], (uint64_t)i);
    r->pa = pa & ~(uint32_t)(GUEST_PAGE - 1);
    r->perms = perms;
    x->wimg = wimg;
    x->bat = true;
    return true;
}

/* The physical address of the PTEG for hash (PEM §7.6.1.3, figure 7-23). */
static uint32_t pteg_of(uint32_t sdr1, uint32_t hash)
{
    uint32_t org = sdr1 & SDR1_HTABORG, mask = sdr1 & SDR1_HTABMASK;
    uint32_t mid = ((org >> 16) & 0x1ff) | ((hash >> 10) & mask);
    return (org & 0xfe000000u) | mid << 16 | (hash & 0x3ff) << 6;
}

/* Search the PTEG at pteg for word 0 `want`; 1 found (pte_pa, words), 0 not there, -1 a read with
 * nothing behind it (pte_pa: the PTE that could not be read). */
static int pteg_search(Cpu *c, uint32_t pteg, uint32_t want, uint32_t *pte_pa, uint32_t w[2])
{
    for (unsigned i = 0; i < PTEG_PTES; i++) {
        uint8_t raw[PTE_SIZE];
        *pte_pa = pteg + i * PTE_SIZE;
        if (!vcpu_mem_read(c, *pte_pa, raw, sizeof raw))
            return -1;
        w[0] = (uint32_t)load_be(raw, 4), w[1] = (uint32_t)load_be(raw + 4, 4);
        if (w[0] == want)
            return 1;
    }
    return 0;
}

/* Set R (and C for a store) in the PTE's word 1, as the table search does (PEM §7.5.3). */
static void update_rc(Cpu *c, uint32_t pte_pa, uint32_t *w1, MmuAccess acc)
{
    uint32_t nw = *w1 | PTE1_R | (acc == MMU_WRITE ? PTE1_C : 0);
    if (nw == *w1)
        return;
    uint8_t raw[4];
    store_be(raw, 4, nw);
    vcpu_mem_write(c, pte_pa + 4, raw, 4);
    *w1 = nw;
}

/* Through the segment register and the page table. */
static bool page_translate(Cpu *c, const PpcMmuRegs *g, uint32_t ea, MmuAccess acc, bool probe, MmuResult *r,
                           PpcXlate *x)
{
    unsigned srn = ea >> 28;
    uint32_t sr = g->sr[srn];
    if (sr & SR_T)
        return refuse(r, acc, PPC_DSISR_DIRECT, PPC_BY_SEGMENT, sr, srn);
    if (acc == MMU_FETCH && (sr & SR_N))
        return fail(r, PPC_MMU_ISI, PPC_SRR1_NOEXEC, PPC_BY_SEGMENT, sr, srn);
    uint32_t vsid = sr & SR_VSID, pidx = (ea >> 12) & ((1u << PAGE_INDEX_BITS) - 1), api = pidx >> 10;
    uint32_t hmask = (1u << HASH_BITS) - 1, hash = (vsid ^ pidx) & hmask;
    uint32_t pte_pa = 0, w[2] = { 0, 0 };
    int found = 0;
    for (unsigned h = 0; h < 2 && found == 0; h++) {
        uint32_t want = PTE0_V | vsid << PTE0_VSID_SHIFT | (h ? PTE0_H : 0) | api;
        found = pteg_search(c, pteg_of(g->sdr1, h ? ~hash & hmask : hash), want, &pte_pa, w);
    }
    if (found < 0)
        return fail(r, PPC_MMU_MCHECK, 0, PPC_BY_PTE, 0, pte_pa);
    if (!found)                     /* entry_pa: the primary PTEG */
        return refuse(r, acc, PPC_DSISR_NOTRANS, PPC_BY_PTE, 0, pteg_of(g->sdr1, hash));
    bool key = g->msr & MSR_PR ? sr & SR_KP : sr & SR_KS;
    unsigned wimg = (w[1] >> PTE1_WIMG_SHIFT) & 0xf;
    uint32_t perms = page_prot(key, w[1] & PTE1_PP);
    if ((sr & SR_N) || (wimg & PPC_WIMG_G))
        perms &= ~(uint32_t)UC_PROT_EXEC;
    if (acc == MMU_FETCH && (wimg & PPC_WIMG_G) && (perms & UC_PROT_READ))
        return fail(r, PPC_MMU_ISI, PPC_SRR1_NOEXEC, PPC_BY_PTE, w[0], pte_pa);
    if (!(perms & access_prot(acc)))
        return refuse(r, acc, PPC_DSISR_PROT, PPC_BY_PTE, w[0], pte_pa);
    if (!probe)
        update_rc(c, pte_pa, &w[1], acc);
    if (!(w[1] & PTE1_C) && acc != MMU_WRITE)
        perms &= ~(uint32_t)UC_PROT_WRITE;
    r->pa = w[1] & PTE1_RPN;
    r->perms = perms;
    r->entry = w[0];
    r->entry_pa = pte_pa;
    x->wimg = wimg;
    return true;
}

bool vcpu_ppc_walk(Cpu *c, const PpcMmuRegs *g, uint32_t ea, MmuAccess acc, bool probe, MmuResult *r,
                   PpcXlate *x)
{
    PpcXlate scratch;
    memset(r, 0, sizeof *r);
    x = x ? x : &scratch;
    memset(x, 0, sizeof *x);
    if (!(g->msr & (acc == MMU_FETCH ? MSR_IR : MSR_DR))) {
        r->pa = ea & ~(uint32_t)(GUEST_PAGE - 1);
        r->perms = UC_PROT_ALL;
        x->wimg = PPC_WIMG_M | PPC_WIMG_G;      /* real mode data: WIMG 0011 (PEM §5.2) */
        return true;
    }
    int bat = bat_match(g, ea, acc);
    if (bat >= 0)
        return bat_translate(g, bat, ea, acc, r, x);
    return page_translate(c, g, ea, acc, probe, r, x);
}
