/* arm64_debug.c — AArch64 self-hosted debug: breakpoints, watchpoints, software step and the
 * OS Lock of one CPU (Arm ARM DDI 0487 chapter D2, "AArch64 Self-hosted Debug"; the design is at
 * the top of arm64_debug.h).  What Linux programs is the measure (arch/arm64/kernel/
 * hw_breakpoint.c, debug-monitors.c): perf and ptrace breakpoints and watchpoints, kgdb, ptrace
 * single step.
 *
 * Register map (op0 op1 CRn CRm op2; EL1 only unless said; DDI 0487 D13.3, "Debug registers"):
 *
 *   2 0  0 n 4   DBGBVR<n>_EL1     RW   n < 6: VA[48:2] (63:49 sign extension), or a context ID
 *   2 0  0 n 5   DBGBCR<n>_EL1     RW   E 0, PMC 2:1, BAS 8:5 (RES1), HMC 13, SSC 15:14,
 *                                       LBN 19:16, BT 23:20; breakpoints 4 and 5 context-aware
 *   2 0  0 n 6   DBGWVR<n>_EL1     RW   n < 4: VA[48:2]
 *   2 0  0 n 7   DBGWCR<n>_EL1     RW   E 0, PAC 2:1, LSC 4:3, BAS 12:5, HMC 13, SSC 15:14,
 *                                       LBN 19:16, WT 20, MASK 28:24
 *   2 0  0 2 0   MDCCINT_EL1       RW   RX 30, TX 29 (there is no DCC: nothing interrupts)
 *   2 0  0 2 2   MDSCR_EL1         RW   SS 0, TDCC 12, KDE 13, MDE 15; the EDSCR save/restore
 *                                       bits (ERR, HDE, TDA, INTdis, TXU, RXO, TXfull, RXfull)
 *                                       are written only while the OS Lock is locked
 *   2 0  0 0 2   OSDTRRX_EL1       RW   the external debugger's DTR and exception catch state, saved
 *   2 0  0 3 2   OSDTRTX_EL1       RW   and restored by an OS around a powerdown: 32-bit storage
 *   2 0  0 6 2   OSECCR_EL1        RW   here (there is no external debugger)
 *   2 3  0 1 0   MDCCSR_EL0        RO   0 (no DCC traffic); EL0 may read it unless MDSCR_EL1.TDCC
 *   2 0  1 0 4   OSLAR_EL1         WO   OSLK 0: lock (1) or unlock (0) the OS Lock
 *   2 0  1 1 4   OSLSR_EL1         RO   OSLM 3,0 = 0b10 (implemented), OSLK 1; 0xa after reset
 *   2 0  1 3 4   OSDLR_EL1         RW   DLK 0, the OS Double Lock
 *   2 0  1 4 4   DBGPRCR_EL1       RW   CORENPDRQ 0 (a powerdown request: keeps the double lock off)
 *   2 0  7 8 6   DBGCLAIMSET_EL1   RW   reads 0xff (8 claim tags); 1s set tags
 *   2 0  7 9 6   DBGCLAIMCLR_EL1   RW   reads the tags; 1s clear them
 *   2 0  7 14 6  DBGAUTHSTATUS_EL1 RO   0xf: Non-secure invasive and non-invasive debug enabled,
 *                                       no Secure state (no EL3)
 *   3 0  0 5 0   ID_AA64DFR0_EL1   RO   DebugVer 0b0110 (v8.0), BRPs 5, WRPs 3, CTX_CMPs 1 over
 *                                       the engine's value (PMUVer, TraceVer)
 *   3 0 13 0 1   CONTEXTIDR_EL1    RW   the engine's register; a write is a check point for
 *                                       context breakpoints
 *
 * MDRAR_EL1 stays the engine's (reads 0: no memory-mapped debug).  The DCC data registers
 * (DBGDTR_EL0, DBGDTRRX_EL0, DBGDTRTX_EL0) are not implemented (UNDEFINED, as in the engine).
 *
 * Every reserved programming (a BT, PMC/PAC, HMC, SSC, LSC or MASK value the architecture
 * reserves: CONSTRAINED UNPREDICTABLE) behaves as a disabled breakpoint or watchpoint, the
 * choice the Arm ARM allows first, with a `debug-reserved` diag when it is enabled.
 */
#include "cpu/arm64_debug.h"

#include <string.h>

#define DBGREG(op0, op1, crn, crm, op2) ((op0) << 14 | (op1) << 11 | (crn) << 7 | (crm) << 3 | (op2))
enum {
    MDCCINT_EL1 = DBGREG(2, 0, 0, 2, 0), MDSCR_EL1 = DBGREG(2, 0, 0, 2, 2), MDCCSR_EL0 = DBGREG(2, 3, 0, 1, 0),
    OSLAR_EL1 = DBGREG(2, 0, 1, 0, 4), OSLSR_EL1 = DBGREG(2, 0, 1, 1, 4), OSDLR_EL1 = DBGREG(2, 0, 1, 3, 4),
    DBGPRCR_EL1 = DBGREG(2, 0, 1, 4, 4), DBGCLAIMSET_EL1 = DBGREG(2, 0, 7, 8, 6),
    DBGCLAIMCLR_EL1 = DBGREG(2, 0, 7, 9, 6), DBGAUTHSTATUS_EL1 = DBGREG(2, 0, 7, 14, 6),
    ID_AA64DFR0_EL1 = DBGREG(3, 0, 0, 5, 0), CONTEXTIDR_EL1 = DBGREG(3, 0, 13, 0, 1),
    OSDTRRX_EL1 = DBGREG(2, 0, 0, 0, 2), OSDTRTX_EL1 = DBGREG(2, 0, 0, 3, 2), OSECCR_EL1 = DBGREG(2, 0, 0, 6, 2),
};
/* DBG{B,W}{V,C}R<n>_EL1: op0 2, op1 0, CRn 0, CRm n, op2 ... */
enum { OP2_BVR = 4, OP2_BCR = 5, OP2_WVR = 6, OP2_WCR = 7 };

/* MDSCR_EL1 (DDI 0487 D13.3) */
#define MDSCR_SS (1u << 0)
#define MDSCR_TDCC (1u << 12)
#define MDSCR_KDE (1u << 13)
#define MDSCR_MDE (1u << 15)
#define MDSCR_RW (MDSCR_SS | MDSCR_TDCC | MDSCR_KDE | MDSCR_MDE)
/* ERR 6, HDE 14, TDA 21, INTdis 23:22, TXU 26, RXO 27, TXfull 29, RXfull 30 */
#define MDSCR_SAVE_RESTORE (1u << 6 | 1u << 14 | 1u << 21 | 3u << 22 | 1u << 26 | 1u << 27 | 1u << 29 | 1u << 30)
/* MDCCINT_EL1.TX 29, RX 30 */
#define MDCCINT_RW (1u << 29 | 1u << 30)
/* OSLSR_EL1: OSLM = 0b10 (bit 3: OSLM[1]) "the OS Lock is implemented", OSLK bit 1 */
#define OSLSR_OSLM_IMPL (1u << 3)
#define OSLSR_OSLK (1u << 1)
#define LOCK_BIT 1u                      /* OSLAR_EL1.OSLK, OSDLR_EL1.DLK, DBGPRCR_EL1.CORENPDRQ */
#define CLAIM_TAGS 0xffu
#define AUTH_NONSECURE_ENABLED 0xfu      /* DBGAUTHSTATUS_EL1.NSNID 3:2 and NSID 1:0 = 0b11 */
/* ID_AA64DFR0_EL1: DebugVer 3:0, BRPs 15:12, WRPs 23:20, CTX_CMPs 31:28 (each "number - 1") */
#define DFR0_OURS 0xf0f0f00full
#define DFR0_DEBUGVER_V8 0x6ull
#define DFR0_BRPS_SHIFT 12
#define DFR0_WRPS_SHIFT 20
#define DFR0_CTX_SHIFT 28

/* DBGBCR<n>_EL1 and DBGWCR<n>_EL1 (DDI 0487 D13.3) */
#define CTL_E 1u
#define CTL_HMC_SSC (1u << 13 | 3u << 14)          /* EL2 and Security state controls */
#define CTL_LBN(v) ((unsigned)((v) >> 16) & 15)
#define BCR_BAS_RES1 (0xfu << 5)                 /* halfword select: RES1 on an AArch64-only PE */
#define BCR_BITS 0x00ffe1e7u
#define BCR_BT(v) ((unsigned)((v) >> 20) & 15)
enum { BT_ADDR = 0, BT_ADDR_LINKED = 1, BT_CTX = 2, BT_CTX_LINKED = 3 };
#define WCR_BITS 0x1f1fffffu
#define WCR_LSC(v) ((unsigned)((v) >> 3) & 3)      /* bit 0 loads, bit 1 stores */
#define WCR_BAS(v) ((unsigned)((v) >> 5) & 0xff)
#define WCR_WT (1u << 20)
#define WCR_MASK(v) ((unsigned)((v) >> 24) & 31)
#define WCR_MASK_MIN 3                           /* MASK 1 and 2 are reserved */
#define DBGVR_RES0 3ull                          /* DBGBVR/DBGWVR bits 1:0 */

/* ESR_EL1: EC of the debug exceptions (DDI 0487 D17.2.37), ISS bits */
enum { EC_BKPT_LOW = 0x30, EC_BKPT_CUR = 0x31, EC_STEP_LOW = 0x32, EC_STEP_CUR = 0x33, EC_WATCH_LOW = 0x34,
       EC_WATCH_CUR = 0x35 };
#define ISS_DEBUG 0x22u                          /* IFSC/DFSC 0b100010: Debug exception */
#define ISS_ISV (1u << 24)                       /* Software Step: EX is valid */
#define ISS_EX (1u << 6)                         /* ... the stepped instruction was a load-exclusive */
#define ISS_WNR (1u << 6)                        /* Watchpoint: a write */

/* PSTATE: EL 3:2, D 9, SS 21; TCR_EL1.TBI0 37, TBI1 38 */
#define PSTATE_D (1u << 9)
#define TCR_TBI0 37
#define TCR_TBI1 38
#define VA_TOP_BYTE 0xff00000000000000ull
#define VA_BIT55 55
/* LDXR, LDAXR, LDXP, LDAXP: 0b001000 29:24, o2 = 0 23, L = 1 22 (DDI 0487 C4.1, "Load/store
 * exclusive") */
#define INSN_LDX_MASK 0x3fc00000u
#define INSN_LDX 0x08400000u
/* LDTR/STTR and the rest of "Load/store register (unprivileged)": EL0's permissions at EL1 */
#define INSN_UNPRIV_MASK 0x3f200c00u
#define INSN_UNPRIV 0x38000800u

/* ------------------------------------------------------------------ the CPU's state */

static uint64_t engine_sysreg(Cpu *c, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2)
{
    uc_arm64_cp_reg r = { crn, crm, op0, op1, op2, 0 };
    uc_reg_read(c->uc, UC_ARM64_REG_CP_REG, &r);
    return r.val;
}

static uint64_t pstate(Cpu *c)
{
    return vcpu_reg_read(c, UC_ARM64_REG_PSTATE);
}

static unsigned el_of(uint64_t pstate_or_spsr)
{
    return (unsigned)(pstate_or_spsr >> 2) & 3;
}

static uint32_t word_at(Cpu *c, uint64_t va)
{
    uint8_t b[4];
    return vcpu_fetch_read(c, va, b, 4) ? (uint32_t)load_le(b, 4) : 0;
}

/* OS Double Lock: OSDLR_EL1.DLK with no powerdown request (DoubleLockStatus(), DDI 0487 D2). */
static bool double_locked(const A64Debug *d)
{
    return d->dlk && !d->corenpdrq;
}

/* AArch64.GenerateDebugExceptionsFrom: never with the OS Lock or the Double Lock set; from EL0
 * always (the debug target, EL1, is higher); from EL1 with MDSCR_EL1.KDE set and PSTATE.D clear
 * (DDI 0487 D2, "Enabling debug exceptions from the current Exception level"). */
static bool debug_enabled(const A64Debug *d, unsigned el, bool dmask)
{
    if (d->oslk || double_locked(d))
        return false;
    return el == 0 || ((d->mdscr & MDSCR_KDE) && !dmask);
}

/* Breakpoint and Watchpoint debug events also need MDSCR_EL1.MDE (AArch64.CheckBreakpoint). */
static bool bkpt_enabled(const A64Debug *d, unsigned el, bool dmask)
{
    return (d->mdscr & MDSCR_MDE) && debug_enabled(d, el, dmask);
}

static bool step_enabled(const A64Debug *d, unsigned el, bool dmask)
{
    return (d->mdscr & MDSCR_SS) && debug_enabled(d, el, dmask);
}

/* PSTATE.SS after `retired` instructions: 1 while the step is active-not-pending. */
static bool ss_bit(const A64Debug *d, uint64_t retired)
{
    return d->ss_on && retired < d->ss_until;
}

/* A CPU asleep in a WFI that was stepped wakes for the exception (a WFI may complete early). */
static void wake(Cpu *c)
{
    if (c->state == CPU_HALTED)
        c->state = CPU_RUNNING, c->stop_reason = "running";
}

/* ------------------------------------------------------------------ matching */

/* DBGBVR/DBGWVR hold VA[48:2], bits 63:49 a sign extension of bit 48 (RESS). */
static uint64_t sext49(uint64_t v)
{
    return (uint64_t)((int64_t)(v << 15) >> 15);
}

/* The VA bits an address comparison looks at, [top:lsb]: top is 55 when TCR_EL1.TBI0/TBI1
 * ignores the top byte of va's half, else 63 (AddrTop, DDI 0487 D8, "Top byte ignore"). */
static uint64_t cmp_mask(Cpu *c, uint64_t va, unsigned lsb)
{
    uint64_t tcr = engine_sysreg(c, 3, 0, 2, 0, 2);
    bool tbi = tcr >> ((va >> VA_BIT55 & 1) ? TCR_TBI1 : TCR_TBI0) & 1;
    return (tbi ? ~VA_TOP_BYTE : ~0ull) & ~((1ull << lsb) - 1);
}

/* AArch64.StateMatch without EL2 and EL3: HMC and SSC 0, PMC/PAC naming the EL (bit 0 EL1, bit 1
 * EL0).  Every other combination is reserved: taken as disabled. */
static bool state_match(uint64_t ctl, unsigned el)
{
    return !(ctl & CTL_HMC_SSC) && (ctl >> 1 & (el ? 1u : 2u));
}

static bool ctx_aware(unsigned n)
{
    return n >= A64DBG_BRPS - A64DBG_CTX_CMPS && n < A64DBG_BRPS;
}

/* A context ID comparison: CONTEXTIDR_EL1 against DBGBVR<n>_EL1[31:0]. */
static bool ctx_value_match(const A64Debug *d, unsigned n)
{
    return (uint32_t)engine_sysreg(d->cpu, 3, 0, 13, 0, 1) == (uint32_t)d->bvr[n];
}

/* The breakpoint a linked breakpoint or watchpoint names (LBN) matches: an enabled, context-aware
 * linked context ID breakpoint whose ID is CONTEXTIDR_EL1 (AArch64.BreakpointValueMatch with
 * linked_to; a link to anything else is CONSTRAINED UNPREDICTABLE: no match). */
static bool linked_match(const A64Debug *d, unsigned lbn)
{
    return ctx_aware(lbn) && (d->bcr[lbn] & CTL_E) && BCR_BT(d->bcr[lbn]) == BT_CTX_LINKED && ctx_value_match(d, lbn);
}

/* Address breakpoint n at pc, at el (AArch64.BreakpointMatch): A64 instructions are word aligned,
 * so VA[top:2] decides. */
static bool bp_match(const A64Debug *d, unsigned n, uint64_t pc, unsigned el)
{
    uint64_t bcr = d->bcr[n];
    if (!(d->bp_sites >> n & 1) || !state_match(bcr, el) || ((pc ^ d->site_va[n]) & cmp_mask(d->cpu, pc, 2)))
        return false;
    return BCR_BT(bcr) == BT_ADDR || linked_match(d, CTL_LBN(bcr));
}

/* An unlinked context ID breakpoint matches every instruction while CONTEXTIDR_EL1 holds its ID. */
static bool ctx_bp_hit(const A64Debug *d, unsigned el, bool dmask)
{
    if (!d->bp_ctx || !bkpt_enabled(d, el, dmask))
        return false;
    for (unsigned n = 0; n < A64DBG_BRPS; n++)
        if ((d->bp_ctx >> n & 1) && state_match(d->bcr[n], el) && ctx_value_match(d, n))
            return true;
    return false;
}

static bool bas_contiguous(unsigned bas)
{
    unsigned low = bas & -bas;
    return ((bas + low) & (bas + low - 1)) == 0;
}

/* Does watchpoint n watch the byte at va (AArch64.WatchpointByteMatch)?  cmask: cmp_mask(va, 0).
 * With a MASK the whole 2^MASK block is watched; the Arm ARM leaves BAS other than 0xff then,
 * and a non-contiguous BAS, CONSTRAINED UNPREDICTABLE: pmusim watches the whole block, and the
 * whole doubleword. */
static bool wp_byte(const A64Debug *d, unsigned n, uint64_t va, uint64_t cmask)
{
    uint64_t wvr = sext49(d->wvr[n]);
    unsigned mask = WCR_MASK(d->wcr[n]), bas = WCR_BAS(d->wcr[n]), bottom = wvr & 4 ? 2 : 3;
    if (mask)
        return ((va ^ wvr) & cmask & ~((1ull << mask) - 1)) == 0;
    if (!bas_contiguous(bas))
        bas = 0xff, bottom = 3;
    return ((va ^ wvr) & cmask & ~((1ull << bottom) - 1)) == 0 && (bas >> (va & ((1u << bottom) - 1)) & 1);
}

/* AArch64.WatchpointMatch: watchpoint n and an access of [ea, ea + len), a write or a read, made
 * with the privilege of el (EL0 for LDTR/STTR at EL1). */
static bool wp_match(const A64Debug *d, unsigned n, uint64_t ea, uint64_t len, bool write, unsigned el)
{
    uint64_t wcr = d->wcr[n];
    if (!(d->wp_armed >> n & 1) || !(WCR_LSC(wcr) >> write & 1) || !state_match(wcr, el))
        return false;
    if ((wcr & WCR_WT) && !linked_match(d, CTL_LBN(wcr)))
        return false;
    uint64_t cmask = cmp_mask(d->cpu, ea, 0);
    for (uint64_t i = 0; i < len; i++)
        if (wp_byte(d, n, ea + i, cmask))
            return true;
    return false;
}

/* Could watchpoint n watch a byte of the guest page at `page`?  A superset (VA[55:0] compared,
 * whatever TBI says): the exact test is made at the access. */
static bool wp_on_page(const A64Debug *d, unsigned n, uint64_t page)
{
    unsigned mask = WCR_MASK(d->wcr[n]);
    uint64_t size = mask ? 1ull << mask : 8, lo = sext49(d->wvr[n]) & ~(size - 1);
    uint64_t first = lo & ~VA_TOP_BYTE & ~(GUEST_PAGE - 1), last = (lo + size - 1) & ~VA_TOP_BYTE & ~(GUEST_PAGE - 1);
    page &= ~VA_TOP_BYTE;
    return first <= last ? page >= first && page <= last : page >= first || page <= last;
}

static bool page_watched(const A64Debug *d, uint64_t page)
{
    for (unsigned n = 0; n < A64DBG_WRPS; n++)
        if ((d->wp_armed >> n & 1) && wp_on_page(d, n, page))
            return true;
    return false;
}

/* ------------------------------------------------------------------ arming */

/* The instruction word at virtual va: this CPU's decoded blocks, trap sites and translations of
 * it go, so that the next fetch decodes it again (and finds or drops a breakpoint's site). */
static void forget_insn(Cpu *c, uint64_t va)
{
    uint64_t end = va <= UINT64_MAX - 4 ? va + 4 : UINT64_MAX;
    vcpu_forget_code(c, va, end);
    vcpu_engine_forget(c, va, end);
}

static bool bp_is_site(const A64Debug *d, unsigned n)
{
    uint64_t bcr = d->bcr[n];
    return (bcr & CTL_E) && (BCR_BT(bcr) == BT_ADDR || BCR_BT(bcr) == BT_ADDR_LINKED) &&
           (state_match(bcr, 0) || state_match(bcr, 1));
}

static bool bp_is_ctx(const A64Debug *d, unsigned n)
{
    uint64_t bcr = d->bcr[n];
    return (bcr & CTL_E) && ctx_aware(n) && BCR_BT(bcr) == BT_CTX && (state_match(bcr, 0) || state_match(bcr, 1));
}

static bool wp_is_armed(const A64Debug *d, unsigned n)
{
    uint64_t wcr = d->wcr[n];
    unsigned mask = WCR_MASK(wcr);
    return (wcr & CTL_E) && WCR_LSC(wcr) && (state_match(wcr, 0) || state_match(wcr, 1)) &&
           (mask == 0 || mask >= WCR_MASK_MIN);
}

/* The breakpoints' trap sites follow their registers: an address that gains or loses one is
 * decoded again (cpu.c then installs or drops the site). */
static void rearm_breakpoints(A64Debug *d)
{
    d->bp_ctx = 0;
    for (unsigned n = 0; n < A64DBG_BRPS; n++) {
        bool was = d->bp_sites >> n & 1, is = bp_is_site(d, n);
        uint64_t va = sext49(d->bvr[n]) & ~DBGVR_RES0;
        if (was && (!is || va != d->site_va[n]))
            forget_insn(d->cpu, d->site_va[n]);
        if (is && (!was || va != d->site_va[n]))
            forget_insn(d->cpu, va);
        d->bp_sites = (uint8_t)((d->bp_sites & ~(1u << n)) | (unsigned)is << n);
        d->site_va[n] = va;
        d->bp_ctx |= (uint8_t)((unsigned)bp_is_ctx(d, n) << n);
    }
}

/* The engine's TLB holds data permissions granted under the old watchpoints: it is flushed
 * whenever they change (a64dbg_fill decides again at each fill). */
static void rearm_watchpoints(A64Debug *d, bool written)
{
    uint8_t armed = 0;
    for (unsigned n = 0; n < A64DBG_WRPS; n++)
        armed |= (uint8_t)((unsigned)wp_is_armed(d, n) << n);
    if (armed != d->wp_armed || (written && armed))
        vcpu_engine_flush_tlb(d->cpu);
    d->wp_armed = armed;
}

/* ------------------------------------------------------------------ reserved programming */

static void bcr_check(A64Debug *d, uint64_t pc, unsigned n)
{
    uint64_t bcr = d->bcr[n];
    unsigned bt = BCR_BT(bcr);
    bool bt_ok = bt == BT_ADDR || bt == BT_ADDR_LINKED || (ctx_aware(n) && (bt == BT_CTX || bt == BT_CTX_LINKED));
    if (!(bcr & CTL_E) || (bt_ok && (state_match(bcr, 0) || state_match(bcr, 1))))
        return;
    vcpu_diag(d->cpu, pc, "debug-reserved", "DBGBCR%u_EL1 = 0x%" PRIx64 ": %s (CONSTRAINED UNPREDICTABLE): "
              "no breakpoint", n, bcr, bt_ok ? "reserved PMC, HMC or SSC" : "a breakpoint type this PE reserves");
}

static void wcr_check(A64Debug *d, uint64_t pc, unsigned n)
{
    uint64_t wcr = d->wcr[n];
    unsigned mask = WCR_MASK(wcr), bas = WCR_BAS(wcr);
    const char *what = NULL;
    if (!(wcr & CTL_E))
        return;
    if (!wp_is_armed(d, n))
        what = "reserved LSC, PAC, HMC, SSC or MASK (CONSTRAINED UNPREDICTABLE): no watchpoint";
    else if (mask && bas != 0xff)
        what = "MASK with BAS not 0xff (CONSTRAINED UNPREDICTABLE): the whole masked block is watched";
    else if (!mask && !bas_contiguous(bas))
        what = "non-contiguous BAS (CONSTRAINED UNPREDICTABLE): the whole doubleword is watched";
    else if (mask && (d->wvr[n] & ((1ull << mask) - 1)))
        what = "DBGWVR bits under MASK not zero (CONSTRAINED UNPREDICTABLE): they are ignored";
    if (what)
        vcpu_diag(d->cpu, pc, "debug-reserved", "DBGWCR%u_EL1 = 0x%" PRIx64 ", DBGWVR%u_EL1 = 0x%" PRIx64 ": %s", n,
                  wcr, n, d->wvr[n], what);
}

/* ------------------------------------------------------------------ registers */

static bool in_dbg_block(unsigned op0, unsigned op1, unsigned crn)
{
    return op0 == 2 && op1 == 0 && crn == 0;
}

/* A breakpoint or watchpoint register: its op2 (OP2_*) and n in *n; -1 if not one. */
static int wb_reg(unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2, unsigned *n)
{
    *n = crm;
    if (!in_dbg_block(op0, op1, crn))
        return -1;
    if ((op2 == OP2_BVR || op2 == OP2_BCR) && crm < A64DBG_BRPS)
        return (int)op2;
    if ((op2 == OP2_WVR || op2 == OP2_WCR) && crm < A64DBG_WRPS)
        return (int)op2;
    return -1;
}

static uint64_t *wb_slot(A64Debug *d, int which, unsigned n)
{
    return which == OP2_BVR ? &d->bvr[n] : which == OP2_BCR ? &d->bcr[n] : which == OP2_WVR ? &d->wvr[n] : &d->wcr[n];
}

bool a64dbg_owns(unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2)
{
    unsigned n;
    switch (DBGREG(op0, op1, crn, crm, op2)) {
    case MDCCINT_EL1: case MDSCR_EL1: case MDCCSR_EL0: case OSLAR_EL1: case OSLSR_EL1: case OSDLR_EL1:
    case DBGPRCR_EL1: case DBGCLAIMSET_EL1: case DBGCLAIMCLR_EL1: case DBGAUTHSTATUS_EL1: case ID_AA64DFR0_EL1:
    case CONTEXTIDR_EL1: case OSDTRRX_EL1: case OSDTRTX_EL1: case OSECCR_EL1:
        return true;
    default:
        return wb_reg(op0, op1, crn, crm, op2, &n) >= 0;
    }
}

bool a64dbg_undefined(unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2, bool write)
{
    unsigned key = DBGREG(op0, op1, crn, crm, op2);
    if (!write)
        return key == OSLAR_EL1;
    return key == MDCCSR_EL0 || key == OSLSR_EL1 || key == DBGAUTHSTATUS_EL1 || key == ID_AA64DFR0_EL1;
}

static uint64_t dfr0(const A64Debug *d)
{
    uint64_t v = engine_sysreg(d->cpu, 3, 0, 0, 5, 0) & ~DFR0_OURS;
    return v | DFR0_DEBUGVER_V8 | (uint64_t)(A64DBG_BRPS - 1) << DFR0_BRPS_SHIFT |
           (uint64_t)(A64DBG_WRPS - 1) << DFR0_WRPS_SHIFT | (uint64_t)(A64DBG_CTX_CMPS - 1) << DFR0_CTX_SHIFT;
}

bool a64dbg_read(A64Debug *d, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2, uint64_t *v)
{
    unsigned n;
    int which = wb_reg(op0, op1, crn, crm, op2, &n);
    if (which >= 0) {
        *v = *wb_slot(d, which, n);
        return true;
    }
    switch (DBGREG(op0, op1, crn, crm, op2)) {
    case MDSCR_EL1: *v = d->mdscr; return true;
    case MDCCINT_EL1: *v = d->mdccint; return true;
    case MDCCSR_EL0: *v = 0; return true;                  /* TXfull, RXfull: no DCC traffic */
    case OSLSR_EL1: *v = OSLSR_OSLM_IMPL | (d->oslk ? OSLSR_OSLK : 0); return true;
    case OSDLR_EL1: *v = d->dlk; return true;
    case DBGPRCR_EL1: *v = d->corenpdrq; return true;
    case DBGCLAIMSET_EL1: *v = CLAIM_TAGS; return true;
    case DBGCLAIMCLR_EL1: *v = d->claim; return true;
    case DBGAUTHSTATUS_EL1: *v = AUTH_NONSECURE_ENABLED; return true;
    case ID_AA64DFR0_EL1: *v = dfr0(d); return true;
    case CONTEXTIDR_EL1: *v = engine_sysreg(d->cpu, 3, 0, 13, 0, 1); return true;
    case OSDTRRX_EL1: *v = d->os_save[OS_DTRRX]; return true;
    case OSDTRTX_EL1: *v = d->os_save[OS_DTRTX]; return true;
    case OSECCR_EL1: *v = d->os_save[OS_ECCR]; return true;
    default: return false;                                 /* OSLAR_EL1: write-only */
    }
}

static void wb_write(A64Debug *d, uint64_t pc, int which, unsigned n, uint64_t v)
{
    if (which == OP2_WVR)
        v &= ~DBGVR_RES0;
    else if (which != OP2_BVR)      /* a BVR's bits 1:0 are a context ID's when BT says so */
        v = which == OP2_BCR ? (v & BCR_BITS) | BCR_BAS_RES1 : v & WCR_BITS;
    *wb_slot(d, which, n) = v;
    if (which == OP2_BCR)               /* (checked when the control register arms it: a value */
        bcr_check(d, pc, n);            /* register written first may not fit the old control) */
    else if (which == OP2_WCR)
        wcr_check(d, pc, n);
}

static void reg_write(A64Debug *d, unsigned key, uint64_t v)
{
    uc_arm64_cp_reg ctx = { 13, 0, 3, 0, 1, (uint32_t)v };  /* CONTEXTIDR_EL1.PROCID; 63:32 RES0 */
    switch (key) {
    case MDSCR_EL1:
        d->mdscr = (d->mdscr & ~(uint64_t)MDSCR_RW) | (v & MDSCR_RW);
        if (d->oslk)
            d->mdscr = (d->mdscr & ~(uint64_t)MDSCR_SAVE_RESTORE) | (v & MDSCR_SAVE_RESTORE);
        break;
    case MDCCINT_EL1: d->mdccint = v & MDCCINT_RW; break;
    case OSLAR_EL1: d->oslk = v & LOCK_BIT; break;
    case OSDLR_EL1: d->dlk = v & LOCK_BIT; break;
    case DBGPRCR_EL1: d->corenpdrq = v & LOCK_BIT; break;
    case DBGCLAIMSET_EL1: d->claim |= (uint8_t)(v & CLAIM_TAGS); break;
    case DBGCLAIMCLR_EL1: d->claim &= (uint8_t)~(v & CLAIM_TAGS); break;
    case CONTEXTIDR_EL1: uc_reg_write(d->cpu->uc, UC_ARM64_REG_CP_REG, &ctx); break;
    case OSDTRRX_EL1: d->os_save[OS_DTRRX] = (uint32_t)v; break;
    case OSDTRTX_EL1: d->os_save[OS_DTRTX] = (uint32_t)v; break;
    case OSECCR_EL1: d->os_save[OS_ECCR] = (uint32_t)v; break;
    default: break;
    }
}

bool a64dbg_write(A64Debug *d, uint64_t pc, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2,
                  uint64_t v)
{
    unsigned n;
    int which = wb_reg(op0, op1, crn, crm, op2, &n);
    if (a64dbg_undefined(op0, op1, crn, crm, op2, true))
        return false;
    if (which >= 0)
        wb_write(d, pc, which, n, v);
    else
        reg_write(d, DBGREG(op0, op1, crn, crm, op2), v);
    rearm_breakpoints(d);
    rearm_watchpoints(d, which == OP2_WVR || which == OP2_WCR);
    a64dbg_sync(d, pc);
    return true;
}

ArmEl0Access a64dbg_el0_access(const A64Debug *d, unsigned op0, unsigned op1, unsigned crn, unsigned crm,
                               unsigned op2, bool write)
{
    if (DBGREG(op0, op1, crn, crm, op2) != MDCCSR_EL0 || write)
        return ARMV8_EL0_UNDEF;
    return d->mdscr & MDSCR_TDCC ? ARMV8_EL0_TRAP : ARMV8_EL0_OK;
}

/* ------------------------------------------------------------------ breakpoints */

bool a64dbg_bp_site(const A64Debug *d, uint64_t va)
{
    for (unsigned n = 0; d->bp_sites >> n; n++)
        if ((d->bp_sites >> n & 1) && !((va ^ d->site_va[n]) & ~VA_TOP_BYTE & ~DBGVR_RES0))
            return true;
    return false;
}

/* The Breakpoint exception (AArch64.BreakpointException): preferred return address the
 * instruction, EC 0x30 from EL0 / 0x31 from EL1, IFSC "Debug exception"; FAR_EL1 is UNKNOWN
 * (left as it was). */
static void bp_take(A64Debug *d, uint64_t pc, unsigned el)
{
    Cpu *c = d->cpu;
    wake(c);
    d->take(c, pc, el ? EC_BKPT_CUR : EC_BKPT_LOW, ISS_DEBUG, false, 0);
}

bool a64dbg_breakpoint(A64Debug *d, uint64_t pc)
{
    if (!d->bp_sites)
        return false;
    uint64_t ps = pstate(d->cpu);
    unsigned el = el_of(ps);
    if (!bkpt_enabled(d, el, ps & PSTATE_D))
        return false;
    for (unsigned n = 0; n < A64DBG_BRPS; n++)
        if (bp_match(d, n, pc, el)) {
            bp_take(d, pc, el);
            return true;
        }
    return false;
}

/* ------------------------------------------------------------------ watchpoints */

bool a64dbg_fill(A64Debug *d, uint64_t va, MmuAccess acc, bool probe, MmuResult *r)
{
    if (!d->wp_armed || d->passing || !page_watched(d, va & ~(GUEST_PAGE - 1)))
        return true;
    r->perms &= ~(uint32_t)(UC_PROT_READ | UC_PROT_WRITE);
    if (acc == MMU_FETCH || probe)
        return true;
    r->kind = A64DBG_WATCH_FILL;
    return false;
}

/* What a64dbg_watch_fault looks for among the instruction's accesses. */
typedef struct WatchQuery {
    A64Debug *d;
    unsigned el;                    /* the accesses' privilege */
    bool write;                     /* the kind being enumerated */
    uint64_t page;                  /* the refused page */
    bool on_page;                   /* an access touches it */
    bool hit, hit_write;
    uint64_t far;
} WatchQuery;

/* FAR_EL1 of a Watchpoint exception: DDI 0487 D2.10.5, "Determining the memory location that
 * caused a Watchpoint exception", allows any address from the lowest one the access touches
 * (rounded down to 16 bytes) to the highest watched one it touches: pmusim gives the access's
 * own first byte, as the Cortex-A57 reports an STP's base (hw_breakpoint.c, "inexact
 * watchpoint addresses"). */
static bool watch_visit(Cpu *c, void *ctx, uint64_t ea, uint64_t len)
{
    WatchQuery *q = ctx;
    uint64_t page_bits = ~VA_TOP_BYTE & ~(GUEST_PAGE - 1);
    if (!((ea ^ q->page) & page_bits) || !(((ea + len - 1) ^ q->page) & page_bits))
        q->on_page = true;
    for (unsigned n = 0; n < A64DBG_WRPS && !q->hit; n++)
        if (wp_match(q->d, n, ea, len, q->write, q->el)) {
            q->hit = true;
            q->hit_write = q->write;
            q->far = ea;
        }
    return q->hit;
}

/* Enumerate the instruction's reads, then its writes, against the watchpoints. */
static void watch_search(WatchQuery *q, uint64_t pc)
{
    Cpu *c = q->d->cpu;
    const uint8_t *bytes = vcpu_fetch_bytes(c, pc, 4);
    cs_insn *insn = NULL;
    size_t got = bytes ? cs_disasm(c->cs, bytes, 4, pc, 1, &insn) : 0;
    if (got == 1 && q->el == 1 && ((uint32_t)load_le(bytes, 4) & INSN_UNPRIV_MASK) == INSN_UNPRIV)
        q->el = 0;                  /* LDTR/STTR: an unprivileged access (AArch64.WatchpointMatch ispriv) */
    for (int k = 0; k < 2 && got == 1 && !q->hit; k++) {
        q->write = k == 1;
        c->ops->each_access(c, insn, q->write ? ACC_WRITE : ACC_READ, watch_visit, q);
    }
    if (insn)
        cs_free(insn, got);
}

/* Let the instruction through alone: its fills are granted until it retires or faults. */
static void pass_begin(A64Debug *d)
{
    d->passing = true;
    vcpu_schedule_insns(d->cpu, &d->pass, d->cpu->insns + 1);
}

static void pass_end(A64Debug *d)
{
    if (!d->passing)
        return;
    d->passing = false;
    evq_remove(&d->pass);
    vcpu_engine_flush_tlb(d->cpu);
}

static void pass_fn(Event *ev, void *opaque)
{
    pass_end(opaque);
}

/* The Watchpoint exception (AArch64.WatchpointException): the access does not complete, the
 * preferred return address is the instruction, EC 0x34 from EL0 / 0x35 from EL1, ISS WnR and
 * DFSC "Debug exception", FAR_EL1 the address (watch_visit). */
void a64dbg_watch_fault(A64Debug *d, uint64_t pc, uint64_t page)
{
    Cpu *c = d->cpu;
    uint64_t ps = pstate(c);
    unsigned el = el_of(ps);
    WatchQuery q = { d, el, false, page & ~(GUEST_PAGE - 1), false, false, false, 0 };
    if (bkpt_enabled(d, el, ps & PSTATE_D)) {
        watch_search(&q, pc);
        if (!q.on_page && !q.hit)
            vcpu_diag(c, pc, "watchpoint-access", "the access to watched page 0x%" PRIx64 " is not among the "
                      "instruction's operands: it runs unwatched", q.page);
    }
    if (!q.hit) {
        pass_begin(d);
        return;
    }
    d->take(c, pc, el ? EC_WATCH_CUR : EC_WATCH_LOW, ISS_DEBUG | (q.hit_write ? ISS_WNR : 0), true, q.far);
}

/* ------------------------------------------------------------------ software step */

/* The Software Step exception (AArch64.SoftwareStepException): preferred return address the
 * next instruction, EC 0x32 from EL0 / 0x33 from EL1; ISS.ISV when an instruction was stepped,
 * with EX for a load-exclusive (LDXR, LDAXR, LDXP, LDAXP); IFSC "Debug exception". */
static void step_take(A64Debug *d, unsigned el)
{
    Cpu *c = d->cpu;
    uint32_t iss = ISS_DEBUG;
    if (d->ss_isv)
        iss |= ISS_ISV | ((word_at(c, d->ss_pc) & INSN_LDX_MASK) == INSN_LDX ? ISS_EX : 0);
    wake(c);
    d->take(c, c->ops->get_pc(c), el ? EC_STEP_CUR : EC_STEP_LOW, iss, false, 0);
}

/* At an instruction boundary where a debug exception may be due (CheckSoftwareStep, then a
 * context breakpoint): the step first, it is the higher priority (DDI 0487 D1, "Synchronous
 * exception prioritization"). */
static void due_fn(Event *ev, void *opaque)
{
    A64Debug *d = opaque;
    Cpu *c = d->cpu;
    if (c->state == CPU_OFF || c->state == CPU_DEAD) {
        d->ss_on = false;
        return;
    }
    uint64_t ps = pstate(c);
    unsigned el = el_of(ps);
    bool step = d->ss_on && c->insns >= d->ss_until;
    if (step && !step_enabled(d, el, ps & PSTATE_D))
        d->ss_on = step = false;
    if (step) {
        step_take(d, el);
    } else if (ctx_bp_hit(d, el, ps & PSTATE_D)) {
        bp_take(d, c->ops->get_pc(c), el);
    } else if (d->ss_on) {
        vcpu_schedule_insns(c, &d->due, d->ss_until);
    }
}

/* After the instruction that retires as the `after`-th, now at el with PSTATE.D dmask and
 * PSTATE.SS `ss`: the step is active if enabled there, not pending (ss: one more instruction,
 * ss_pc) or pending (an exception before the next one; ISV if that instruction was `stepped`);
 * a context breakpoint may match before the next one.  true: something is due right there. */
static bool debug_after(A64Debug *d, uint64_t after, unsigned el, bool dmask, bool ss, bool stepped, uint64_t ss_pc)
{
    uint64_t when = UINT64_MAX;
    evq_remove(&d->due);
    d->ss_on = step_enabled(d, el, dmask);
    if (d->ss_on) {
        d->ss_until = ss ? after + 1 : after;
        d->ss_isv = ss || stepped;
        d->ss_pc = ss_pc;
        when = d->ss_until;
    }
    if (d->bp_ctx)
        when = after;
    if (when != UINT64_MAX)
        vcpu_schedule_insns(d->cpu, &d->due, when);
    return when == after;
}

/* DebugExceptionReturnSS: PSTATE.SS takes SPSR.SS only when debug exceptions are disabled where
 * the ERET executes and enabled where it returns (and MDSCR_EL1.SS is set: debug_after). */
bool a64dbg_eret(A64Debug *d, uint64_t pc, uint64_t spsr, bool illegal)
{
    Cpu *c = d->cpu;
    uint64_t ps = pstate(c), after = vcpu_insns_after(c, pc);
    unsigned el = illegal ? el_of(ps) : el_of(spsr);
    bool dmask = spsr & PSTATE_D, stepped = ss_bit(d, after - 1);
    bool ss = (spsr & A64DBG_PSTATE_SS) && !debug_enabled(d, el_of(ps), ps & PSTATE_D) && debug_enabled(d, el, dmask);
    if ((!(d->mdscr & MDSCR_SS) && !d->bp_ctx && !d->ss_on) || el_of(ps) == 0)
        return false;               /* (at EL0 the ERET is UNDEFINED: its entry saves PSTATE.SS) */
    return debug_after(d, after, el, dmask, ss, stepped, ss ? vcpu_reg_read(c, UC_ARM64_REG_ELR_EL1) : pc);
}

/* SSAdvance, then CheckSoftwareStep before the next instruction: after any instruction
 * PSTATE.SS is 0, so a step enabled now is pending. */
void a64dbg_sync(A64Debug *d, uint64_t pc)
{
    if (!(d->mdscr & MDSCR_SS) && !d->bp_ctx && !d->ss_on)
        return;
    Cpu *c = d->cpu;
    uint64_t ps = pstate(c), after = vcpu_insns_after(c, pc);
    debug_after(d, after, el_of(ps), ps & PSTATE_D, false, ss_bit(d, after - 1), pc);
}

uint64_t a64dbg_entry(A64Debug *d, uint64_t ret)
{
    bool ss = ss_bit(d, vcpu_insns_at(d->cpu, ret));
    d->ss_on = false;
    evq_remove(&d->due);
    pass_end(d);
    return ss;
}

/* ------------------------------------------------------------------ life */

void a64dbg_init(A64Debug *d, Cpu *c, A64DebugTake take)
{
    memset(d, 0, sizeof *d);
    d->cpu = c;
    d->take = take;
    event_init(&d->due, "debug-due", due_fn, d);
    event_init(&d->pass, "watchpoint-pass", pass_fn, d);
    a64dbg_reset(d);
}

/* A Cold reset (DDI 0487 D13.3: OSLSR_EL1.OSLK resets to 1; OSDLR_EL1.DLK and DBGPRCR_EL1 to 0;
 * the breakpoint and watchpoint registers and MDSCR_EL1 are UNKNOWN: 0 here). */
void a64dbg_reset(A64Debug *d)
{
    d->mdscr = d->mdccint = 0;
    memset(d->bvr, 0, sizeof d->bvr);
    memset(d->bcr, 0, sizeof d->bcr);
    memset(d->wvr, 0, sizeof d->wvr);
    memset(d->wcr, 0, sizeof d->wcr);
    d->oslk = true;
    d->dlk = d->corenpdrq = false;
    d->claim = 0;
    memset(d->os_save, 0, sizeof d->os_save);
    d->ss_on = false;
    evq_remove(&d->due);
    pass_end(d);
    rearm_breakpoints(d);
    rearm_watchpoints(d, false);
}

/* ------------------------------------------------------------------ checkpoints */

#define A64DBG_STATE_VERSION 1u

static const StateField dbg_fields[] = {
    STATE_FIELD(A64Debug, mdscr),
    STATE_ARRAY(A64Debug, bvr),
    STATE_ARRAY(A64Debug, bcr),
    STATE_ARRAY(A64Debug, wvr),
    STATE_ARRAY(A64Debug, wcr),
    STATE_FIELD(A64Debug, mdccint),
    STATE_BOOL(A64Debug, oslk),
    STATE_BOOL(A64Debug, dlk),
    STATE_BOOL(A64Debug, corenpdrq),
    STATE_FIELD(A64Debug, claim),
    STATE_ARRAY(A64Debug, os_save),
    STATE_BOOL(A64Debug, ss_on),
    STATE_FIELD(A64Debug, ss_until),
    STATE_BOOL(A64Debug, ss_isv),
    STATE_FIELD(A64Debug, ss_pc),
    STATE_BOOL(A64Debug, passing),
};

void a64dbg_save(const A64Debug *d, Blob *b)
{
    size_t at = blob_begin(b, "arm64-debug", A64DBG_STATE_VERSION);
    blob_fields(b, d, dbg_fields, ARRAY_SIZE(dbg_fields));
    blob_event(b, &d->due);
    blob_event(b, &d->pass);
    blob_end(b, at);
}

/* The trap sites and the refused pages follow from the registers: rebuilt (a restored machine
 * was created, never run). */
bool a64dbg_load(A64Debug *d, BlobReader *r)
{
    BrOuter outer;
    if (!br_begin(r, &outer, "arm64-debug", A64DBG_STATE_VERSION) ||
        !br_fields(r, d, dbg_fields, ARRAY_SIZE(dbg_fields)))
        return false;
    br_event(r, &d->due, &d->cpu->insn_events);
    br_event(r, &d->pass, &d->cpu->insn_events);
    rearm_breakpoints(d);
    rearm_watchpoints(d, false);
    return br_end(r, &outer);
}
