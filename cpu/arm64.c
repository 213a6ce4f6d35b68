/* arm64.c — the AArch64 backend.
 *
 * Entry state (EL1h, MMU off), exception entry to EL1 through VBAR_EL1 with ELR/SPSR/ESR/FAR
 * (Arm ARM DDI 0487 D1.10), HVC #0 to the firmware (PSCI 1.0 and SMCCC 1.1: arm64_firmware.c),
 * and the system registers the engine gets wrong or makes nondeterministic: MPIDR_EL1 (per CPU, from the tree), MIDR_EL1
 * (per model), the generic timer (counts simulated time; D11), the PMUv3 registers
 * (pmu/pmu_armv8.c).  MRS/MSR reach us through the engine's sysreg hook, which syncs the PC, so
 * every access gets the exact time of its instruction; the PMU's are done at their trap sites
 * instead, where the counts are exact and a counter's predicted overflow is seen before the
 * next instruction (a64_pmu_site).  WFI sleeps.  pmusim walks the guest's
 * translation tables (cpu/arm64_paging.c) and delivers their aborts with ESR_EL1 and the exact
 * FAR_EL1 (a64_mmu_fault).
 *
 * EL0: ERET to it is the engine's; pmusim's entry from it switches the stack pointer banks and
 * makes the engine recompute its cached EL (a64_take; docs/engine.md, AArch64).
 *
 * Self-hosted debug (breakpoints, watchpoints, software step, the OS Lock) is cpu/arm64_debug.c's:
 * this file hands it the debug registers and asks it at trap sites, TLB fills, ERETs and
 * exception entries; the engine's own debug registers are never written (docs/engine.md).
 */
#include <string.h>

#include "base/a64sysreg.h"
#include "base/state.h"
#include "cpu/arm64_firmware.h"
#include "cpu/arm64_debug.h"
#include "cpu/arm64_paging.h"
#include "cpu/cpu.h"
#include "gic/gic.h"
#include "pmu/pmu_armv8.h"

/* QEMU's exception numbers as the engine reports them (target/arm/cpu.h). */
enum { EXCP_UDEF = 1, EXCP_SWI = 2, EXCP_PREFETCH_ABORT = 3, EXCP_DATA_ABORT = 4, EXCP_BKPT = 7,
       EXCP_HVC = 11, EXCP_SMC = 13 };

/* ESR_ELx.EC values. @see DDI 0487 D13.2.37 */
enum { EC_UNKNOWN = 0x00, EC_ILLEGAL_STATE = 0x0e, EC_SVC64 = 0x15, EC_HVC64 = 0x16, EC_SYS64 = 0x18,
       EC_IABT_LOW = 0x20, EC_IABT_CUR = 0x21, EC_DABT_LOW = 0x24, EC_DABT_CUR = 0x25, EC_BRK64 = 0x3c };
/* ESR_ELx.ISS of a Data Abort: WnR, the access was a write (DDI 0487 D17.2, ESR_EL1) */
#define ISS_WNR (1u << 6)
/* ... and FnV: FAR is not valid (for an external abort) */
#define ISS_FNV (1u << 10)

enum { PSTATE_I = 1 << 7, PSTATE_F = 1 << 6, PSTATE_EL1H = 0x3c5, PSTATE_DAIF = 0xf << 6, PSTATE_NZCV = 0xfu << 28,
       PSTATE_IL = 1 << 20, PSTATE_SP = 1 << 0 };
/* ESR_ELx.IL: a 32-bit instruction (every A64 one) */
#define ESR_IL (1u << 25)
/* VBAR_EL1 offsets of the vector groups (DDI 0487, "Exception vectors") */
enum { VEC_CUR_SP0 = 0x000, VEC_CUR_SPX = 0x200, VEC_LOWER_A64 = 0x400 };
/* SPSR_EL1.M[4:0]: M[4] AArch32; M[3:2] the EL, M[1] reserved, M[0] SP_ELx */
enum { SPSR_M_MASK = 0x1f, SPSR_M_AARCH32 = 0x10, SPSR_M_RES = 0x2, SPSR_M_EL0_SPX = 0x1 };

#define SYSREG A64_SYSREG
enum {
    MIDR_EL1 = SYSREG(3, 0, 0, 0, 0), MPIDR_EL1 = SYSREG(3, 0, 0, 0, 5), ID_AA64PFR0_EL1 = SYSREG(3, 0, 0, 4, 0),
    CNTKCTL_EL1 = SYSREG(3, 0, 14, 1, 0), CNTFRQ_EL0 = SYSREG(3, 3, 14, 0, 0),
    CNTPCT_EL0 = SYSREG(3, 3, 14, 0, 1), CNTVCT_EL0 = SYSREG(3, 3, 14, 0, 2),
    CNTP_TVAL_EL0 = SYSREG(3, 3, 14, 2, 0), CNTP_CTL_EL0 = SYSREG(3, 3, 14, 2, 1),
    CNTP_CVAL_EL0 = SYSREG(3, 3, 14, 2, 2), CNTV_TVAL_EL0 = SYSREG(3, 3, 14, 3, 0),
    CNTV_CTL_EL0 = SYSREG(3, 3, 14, 3, 1), CNTV_CVAL_EL0 = SYSREG(3, 3, 14, 3, 2),
    SCTLR_EL1 = SYSREG(3, 0, 1, 0, 0), TCR_EL1 = SYSREG(3, 0, 2, 0, 2),
};
enum { CNT_ENABLE = 1, CNT_IMASK = 2, CNT_ISTATUS = 4 };
/* CNTKCTL_EL1: EL0 access to the physical and virtual counters and timers (DDI 0487 D11.2.1) */
enum { CNTKCTL_EL0PCTEN = 1 << 0, CNTKCTL_EL0VCTEN = 1 << 1, CNTKCTL_EL0VTEN = 1 << 8, CNTKCTL_EL0PTEN = 1 << 9 };

/* Trap-site kinds. */
enum { T_WFI = 1, T_DC_ZVA, T_ERET, T_DAIF, T_SYSREG, T_UNPRIV, T_BKPT, T_TLBI };
/* ID_AA64PFR0_EL1.EL0 and .EL1 (bits 3:0, 7:4): 0b0001, AArch64 only */
#define PFR0_EL0_EL1_MASK 0xffu
#define PFR0_EL0_EL1_AA64_ONLY 0x11u
#define INSN_WFI 0xd503207fu
#define INSN_ERET 0xd69f03e0u
#define INSN_DC_ZVA 0xd50b7420u         /* dc zva, Xt (Rt in bits 4:0) */
#define A64_DCZ_MAX 2048u               /* DCZID_EL0.BS is at most 9: 4 << 9 bytes */
#define INSN_HLT_SEMIHOST 0xd45e0000u   /* hlt #0xf000 */
#define INSN_MSR_DAIFCLR 0xd50340ffu    /* msr daifclr, #imm (imm in CRm, bits 11:8) */
#define INSN_MSR_DAIF 0xd51b4220u       /* msr daif, Xt (Rt in bits 4:0) */
/* MRS and MSR (register): bits 31:22 0b1101010100, L (bit 21) a read, bit 20 set (op0 2 or 3),
 * then o0 (op0 - 2), op1, CRn, CRm, op2, Rt (DDI 0487 C6.2, "MRS", "MSR (register)") */
#define INSN_SYSREG_MASK 0xffd00000u
#define INSN_SYSREG 0xd5100000u
/* Load/store register (unprivileged), the LDTR and STTR family: size 31:30, 0b111000 29:24, opc 23:22, 0 21,
 * imm9 20:12, 0b10 11:10, Rn 9:5, Rt 4:0 (DDI 0487 C4.1, "Load/store register (unprivileged)") */
#define INSN_UNPRIV_MASK 0x3f200c00u
#define INSN_UNPRIV 0x38000800u
#define INSN_SYSREG_READ (1u << 21)
/* TLBI: SYS with op0 = 0b01 and CRn = 8: 0b1101010100001 31:19, op1 18:16, CRn 15:12, CRm 11:8,
 * op2 7:5, Rt 4:0 (DDI 0487 C5.5, "A64 system instructions for TLB maintenance").  CRm 3 (and
 * 1, 2 from FEAT_TLBIOS/FEAT_TLBIRANGE) are the Inner/Outer Shareable forms, broadcast to every PE. */
#define INSN_TLBI_MASK 0xfff8f000u
#define INSN_TLBI 0xd5088000u
#define TLBI_CRM_LOCAL 7u
#define TLBI_CRM_LOCAL_RANGE 6u

/* A generic timer (DDI 0487 D11.2.4 "The timers"): its condition is met when the counter
 * reaches CVAL; the interrupt line (a PPI of the GIC) is high while enabled, met and not masked.
 * The event fires on the first cycle at which the counter reaches CVAL. */
typedef struct ArmTimer {
    uint64_t ctl, cval;
    IrqLine line;
    Event ev;
    Cpu *cpu;
} ArmTimer;

typedef struct Arm64Cpu {
    Cpu c;
    ArmPmu pmu;
    ArmTimer ptimer, vtimer;
    uint64_t cntkctl;
    uint64_t mmfr0;                 /* ID_AA64MMFR0_EL1 (constant: read once) */
    uint64_t dcz_block;             /* DC ZVA's block: 4 << DCZID_EL0.BS bytes (constant too) */
    /* SCTLR_EL1 and TCR_EL1 for the walk, read from the engine again after a write (cp_write,
     * hook_sysreg): the engine has no cheap read of them, and a Linux boot walks 10^6 times. */
    bool pg_valid;
    uint64_t pg_sctlr, pg_tcr;
    A64Debug dbg;                   /* self-hosted debug (arm64_debug.c) */
} Arm64Cpu;

static Arm64Cpu *A64(Cpu *c)
{
    return (Arm64Cpu *)c;
}

/* The CPU's PMU, for the unit tests (tests/unit/test_pmu_armv8.c). */
ArmPmu *vcpu_arm64_pmu(Cpu *c);
ArmPmu *vcpu_arm64_pmu(Cpu *c)
{
    return &A64(c)->pmu;
}

static uint64_t cp_read(Cpu *c, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2)
{
    uc_arm64_cp_reg r = { crn, crm, op0, op1, op2, 0 };
    uc_reg_read(c->uc, UC_ARM64_REG_CP_REG, &r);
    return r.val;
}

static void cp_write(Cpu *c, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2, uint64_t v)
{
    A64(c)->pg_valid = false;
    uc_arm64_cp_reg r = { crn, crm, op0, op1, op2, v };
    uc_reg_write(c->uc, UC_ARM64_REG_CP_REG, &r);
}

static unsigned current_el(Cpu *c)
{
    return (vcpu_reg_read(c, UC_ARM64_REG_PSTATE) >> 2) & 3;
}

/* The instruction word at virtual pc, as the CPU fetches it (through the guest's page tables:
 * SVC and BRK take their immediates from it, and user code is not where its PC says). */
static uint32_t insn_at(Cpu *c, uint64_t pc)
{
    uint8_t b[4];
    return vcpu_fetch_read(c, pc, b, 4) ? (uint32_t)load_le(b, 4) : 0;
}

/* The imm16 of the SVC, HVC or BRK at pc (bits 20:5; DDI 0487 C6.2): the ISS of their
 * exceptions, and HVC's #0 for the firmware. */
static uint32_t imm16_at(Cpu *c, uint64_t pc)
{
    return (insn_at(c, pc) >> 5) & 0xffff;
}

/* ------------------------------------------------------------------ exception entry */

/* SPSR_EL1's encoding, for UC_ARM64_REG_CP_REG (the engine has no register id for it). */
static uint64_t spsr_read(Cpu *c)
{
    return cp_read(c, 3, 0, 4, 0, 0);
}

static void spsr_write(Cpu *c, uint64_t v)
{
    cp_write(c, 3, 0, 4, 0, 0, (uint32_t)v);
}

/* The engine caches the EL and the MMU index it translates for (QEMU's hflags) and recomputes
 * them when a system register is written through UC_ARM64_REG_CP_REG, not when PSTATE is
 * written (docs/engine.md, AArch64).  Every host write of PSTATE that may change the EL is
 * followed by a CP_REG write: SPSR_EL1 rewritten with its own value where nothing else is
 * written after it. */
static void engine_flags_refresh(Cpu *c)
{
    spsr_write(c, spsr_read(c));
}

/* The bank holding the stack pointer PSTATE selects: SP_EL1 at EL1 with PSTATE.SP = 1 (EL1h),
 * SP_EL0 at EL0 and at EL1t (DDI 0487, "Stack pointer register selection"). */
static int sp_bank(uint64_t pstate)
{
    return (pstate >> 2 & 3) && (pstate & PSTATE_SP) ? UC_ARM64_REG_SP_EL1 : UC_ARM64_REG_SP_EL0;
}

/* The engine keeps the selected stack pointer in SP and the other in its bank; the selected
 * one's bank is stale (QEMU's aarch64_save_sp and aarch64_restore_sp).  A change of PSTATE's
 * EL or SPSel made by pmusim moves SP to the old bank and the new bank to SP. */
static void sp_switch(Cpu *c, uint64_t from, uint64_t to)
{
    if (sp_bank(from) == sp_bank(to))
        return;
    vcpu_reg_write(c, sp_bank(from), vcpu_reg_read(c, UC_ARM64_REG_SP));
    vcpu_reg_write(c, UC_ARM64_REG_SP, vcpu_reg_read(c, sp_bank(to)));
}

/* PSTATE is about to become `to`, the counts being exact up to `upto`, where execution goes on
 * (every caller has retired what ran: an exception entry): the PMU's counters catch up at the
 * old EL (their EL filters, pmu_armv8.c), a branch that ended the block before it included. */
static void pmu_el_switch(Cpu *c, uint64_t upto, uint64_t to)
{
    vcpu_branch_retire(c, upto);
    armv8_pmu_set_el(&A64(c)->pmu, (unsigned)(to >> 2) & 3);
    vcpu_set_user(c, ((to >> 2) & 3) == 0);
}

/* The same from the trap site of an ERET at pc, which retires at the EL it leaves: counted here
 * (hook_trap puts back the rest of the block when the engine executes the ERET), with its
 * branch to ELR_EL1 (the last instruction of its block). */
static void pmu_el_switch_eret(Cpu *c, uint64_t pc, uint64_t to)
{
    vcpu_retire_upto(c, pc, true);
    if (c->pev.track_branches)
        vcpu_branch_retire(c, vcpu_reg_read(c, UC_ARM64_REG_ELR_EL1));
    armv8_pmu_set_el(&A64(c)->pmu, (unsigned)(to >> 2) & 3);
    vcpu_set_user(c, ((to >> 2) & 3) == 0);
}

/* Exception entry to EL1h (DDI 0487 D1.10, "Exception entry"): ELR_EL1, SPSR_EL1 = the old
 * PSTATE, ESR_EL1 and FAR_EL1 for a synchronous one, PSTATE = EL1h with DAIF masked, SP_EL1
 * live, PC = VBAR_EL1 + the group the exception came from ("Exception vectors": the
 * current EL with SP_EL0 +0x000, with SP_ELx +0x200, a lower EL using AArch64 +0x400) + vec
 * (sync 0, IRQ 0x80, FIQ 0x100).  PSTATE.PAN is not changed (FEAT_PAN is not modelled). */
static void a64_take(Cpu *c, TraceKind kind, uint64_t ret, unsigned vec, unsigned ec, uint32_t iss,
                     bool far_valid, uint64_t far)
{
    uint64_t pstate = vcpu_reg_read(c, UC_ARM64_REG_PSTATE), to = (pstate & PSTATE_NZCV) | PSTATE_EL1H;
    unsigned el = (pstate >> 2) & 3;
    uint64_t base = vcpu_reg_read(c, UC_ARM64_REG_VBAR_EL1) +
                    (el == 0 ? VEC_LOWER_A64 : pstate & PSTATE_SP ? VEC_CUR_SPX : VEC_CUR_SP0);
    vcpu_reg_write(c, UC_ARM64_REG_ELR_EL1, ret);
    pmu_el_switch(c, ret, to);              /* ret: the first instruction not retired */
    sp_switch(c, pstate, to);
    vcpu_reg_write(c, UC_ARM64_REG_PSTATE, to);
    /* after PSTATE: the engine's flags (above); PSTATE.SS is the debug model's */
    spsr_write(c, (pstate & ~(uint64_t)A64DBG_PSTATE_SS) | (a64dbg_entry(&A64(c)->dbg, ret) ? A64DBG_PSTATE_SS : 0));
    if (vec == 0) {
        vcpu_reg_write(c, UC_ARM64_REG_ESR_EL1, (uint64_t)ec << 26 | ESR_IL | iss);
        if (far_valid)
            vcpu_reg_write(c, UC_ARM64_REG_FAR_EL1, far);
    }
    vcpu_reg_write(c, UC_ARM64_REG_PC, base + vec);
    vcpu_exception_taken(c, kind, base + vec, vec == 0 ? "sync" : "irq", ret, base + vec,
                        vec == 0 ? (uint64_t)ec << 26 | iss : 0);
}

static void a64_undef(Cpu *c, uint64_t pc)
{
    a64_take(c, TK_EXCEPTION, pc, 0, EC_UNKNOWN, 0, false, 0);
}

/* The debug model's exceptions (A64DebugTake). */
static void a64_debug_take(Cpu *c, uint64_t ret, unsigned ec, uint32_t iss, bool far_valid, uint64_t far)
{
    a64_take(c, TK_EXCEPTION, ret, 0, ec, iss, far_valid, far);
}

/* ------------------------------------------------------------------ semihosting */

/* hlt #0xf000 with --semihosting: SYS_WRITEC, SYS_WRITE0, SYS_EXIT, SYS_EXIT_EXTENDED. */
static bool semihosting_call(Cpu *c, uint64_t pc)
{
    uint64_t op = vcpu_reg_read(c, UC_ARM64_REG_X0), arg = vcpu_reg_read(c, UC_ARM64_REG_X1);
    uint8_t b[16];
    switch (op) {
    case 0x03:                                              /* SYS_WRITEC */
        if (vcpu_mem_read(c, arg, b, 1))
            c->cl->host.console_out(c->cl->host.opaque, b[0]);
        break;
    case 0x04:                                              /* SYS_WRITE0 */
        for (int i = 0; i < 4096 && vcpu_mem_read(c, arg + i, b, 1) && b[0]; i++)
            c->cl->host.console_out(c->cl->host.opaque, b[0]);
        break;
    case 0x18:                                              /* SYS_EXIT: x1 = reason, or a block */
    case 0x20: {                                            /* SYS_EXIT_EXTENDED: x1 -> {reason, code} */
        uint64_t reason = arg, code = 0;
        if (op == 0x20 || vcpu_mem_read(c, arg, b, 16)) {
            if (vcpu_mem_read(c, arg, b, 16)) {
                reason = load_le(b, 8);
                code = load_le(b + 8, 8);
            }
        }
        vcpu_reg_write(c, UC_ARM64_REG_PC, pc + 4);
        vcpu_exit(c, reason == 0x20026 ? (int)(code & 0xff) : 1, "semihosting-exit");
        return true;
    }
    default:
        return false;
    }
    vcpu_reg_write(c, UC_ARM64_REG_PC, pc + 4);
    return true;
}

/* ------------------------------------------------------------------ system registers */

static uint64_t counter_at(Cpu *c, uint64_t pc)
{
    return muldiv64(vcpu_cycles_at(c, pc), c->cl->timer_hz, c->cl->clock->freq_hz);
}

static uint64_t timer_ctl(const ArmTimer *t, uint64_t count)
{
    return (t->ctl & (CNT_ENABLE | CNT_IMASK)) | ((t->ctl & CNT_ENABLE) && count >= t->cval ? CNT_ISTATUS : 0);
}

/* The first CPU cycle at which the counter (cycles * timer_hz / freq_hz, rounded down) reaches
 * cval; false if no cycle count does. */
static bool timer_cycle(const Cpu *c, uint64_t cval, uint64_t *cycle)
{
    unsigned __int128 x = (unsigned __int128)cval * c->cl->clock->freq_hz + c->cl->timer_hz - 1;
    x /= c->cl->timer_hz;
    *cycle = (uint64_t)x;
    return x <= UINT64_MAX;
}

/* The timer's line from its state at counter value `count`, and its event at the cycle it
 * meets its condition. */
static bool timer_met(const ArmTimer *t, uint64_t count)
{
    return (t->ctl & CNT_ENABLE) && count >= t->cval;
}

static void timer_line(ArmTimer *t, uint64_t count)
{
    irq_set(&t->line, timer_met(t, count) && !(t->ctl & CNT_IMASK));
}

static void timer_update(Cpu *c, ArmTimer *t, uint64_t count)
{
    bool on = t->ctl & CNT_ENABLE, met = timer_met(t, count);
    uint64_t at;
    timer_line(t, count);
    evq_remove(&t->ev);
    if (on && !met && timer_cycle(c, t->cval, &at))
        vcpu_schedule(c, &t->ev, at);
}

static void timer_fire(Event *ev, void *opaque)
{
    ArmTimer *t = opaque;
    (void)ev;
    timer_update(t->cpu, t, muldiv64(t->cpu->cycles, t->cpu->cl->timer_hz, t->cpu->cl->clock->freq_hz));
}

/* The timer's line: the PPI the tree gives it (QEMU virt's 30 and 27), if the board has a GIC. */
static void timer_init(Cpu *c, ArmTimer *t, const char *name, unsigned intid)
{
    t->cpu = c;
    event_init(&t->ev, name, timer_fire, t);
    t->line = c->cl->gic && intid ? gic_ppi_line(c->cl->gic, c->index, intid) : irq_line(NULL, NULL, 0);
}

static bool sysreg_read(Cpu *c, uint64_t pc, uint32_t key, unsigned op0, unsigned op1, unsigned crn, unsigned crm,
                        unsigned op2, uint64_t *v)
{
    Arm64Cpu *a = A64(c);
    switch (key) {
    case MIDR_EL1: *v = c->model->id; return true;
    case MPIDR_EL1: *v = 0x80000000ull | c->hwid; return true;
    case ID_AA64PFR0_EL1:                   /* no AArch32 (a64_eret) */
        *v = (cp_read(c, 3, 0, 0, 4, 0) & ~(uint64_t)PFR0_EL0_EL1_MASK) | PFR0_EL0_EL1_AA64_ONLY;
        return true;
    case CNTFRQ_EL0: *v = c->cl->timer_hz; return true;
    case CNTPCT_EL0:
    case CNTVCT_EL0: *v = counter_at(c, pc); return true;
    case CNTKCTL_EL1: *v = a->cntkctl; return true;
    case CNTP_CTL_EL0: *v = timer_ctl(&a->ptimer, counter_at(c, pc)); return true;
    case CNTV_CTL_EL0: *v = timer_ctl(&a->vtimer, counter_at(c, pc)); return true;
    case CNTP_CVAL_EL0: *v = a->ptimer.cval; return true;
    case CNTV_CVAL_EL0: *v = a->vtimer.cval; return true;
    case CNTP_TVAL_EL0: *v = (uint32_t)(a->ptimer.cval - counter_at(c, pc)); return true;
    case CNTV_TVAL_EL0: *v = (uint32_t)(a->vtimer.cval - counter_at(c, pc)); return true;
    }
    if (a64dbg_owns(op0, op1, crn, crm, op2))
        return a64dbg_read(&a->dbg, op0, op1, crn, crm, op2, v);
    return false;
}

/* A write of a timer register at counter value `now`; the timer's line and event follow. */
static void timer_write(Cpu *c, uint32_t key, uint64_t now, uint64_t v)
{
    Arm64Cpu *a = A64(c);
    bool phys = key == CNTP_CTL_EL0 || key == CNTP_CVAL_EL0 || key == CNTP_TVAL_EL0;
    ArmTimer *t = phys ? &a->ptimer : &a->vtimer;
    if (key == CNTP_CTL_EL0 || key == CNTV_CTL_EL0)
        t->ctl = v & (CNT_ENABLE | CNT_IMASK);
    else if (key == CNTP_CVAL_EL0 || key == CNTV_CVAL_EL0)
        t->cval = v;
    else
        t->cval = now + (uint64_t)(int64_t)(int32_t)v;     /* TVAL: a signed 32-bit offset from now */
    timer_update(c, t, now);
}

/* The owned registers MSR may not write at any EL (their MSR encodings are unallocated). */
static bool read_only(uint32_t key)
{
    return key == MIDR_EL1 || key == MPIDR_EL1 || key == ID_AA64PFR0_EL1 || key == CNTPCT_EL0 || key == CNTVCT_EL0;
}

/* 1: handled; 0: not ours (the engine does it); -1: UNDEFINED */
static int sysreg_write(Cpu *c, uint64_t pc, uint32_t key, unsigned op0, unsigned op1, unsigned crn, unsigned crm,
                        unsigned op2, uint64_t v)
{
    Arm64Cpu *a = A64(c);
    if (read_only(key))
        return -1;
    switch (key) {
    case CNTFRQ_EL0:
        return 1;                                           /* writable only at the highest EL */
    case CNTKCTL_EL1: a->cntkctl = v & 0x3ff; return 1;
    case CNTP_CTL_EL0: case CNTV_CTL_EL0: case CNTP_CVAL_EL0: case CNTV_CVAL_EL0: case CNTP_TVAL_EL0:
    case CNTV_TVAL_EL0:
        timer_write(c, key, counter_at(c, pc), v);
        return 1;
    }
    if (a64dbg_owns(op0, op1, crn, crm, op2))
        return a64dbg_write(&a->dbg, pc, op0, op1, crn, crm, op2, v) ? 1 : -1;
    return 0;
}

static bool owns(uint32_t key, const uc_arm64_cp_reg *r)
{
    switch (key) {
    case MIDR_EL1: case MPIDR_EL1: case ID_AA64PFR0_EL1: case CNTFRQ_EL0: case CNTPCT_EL0: case CNTVCT_EL0:
    case CNTKCTL_EL1: case CNTP_CTL_EL0: case CNTV_CTL_EL0: case CNTP_CVAL_EL0: case CNTV_CVAL_EL0: case CNTP_TVAL_EL0:
    case CNTV_TVAL_EL0:
        return true;
    default:
        return armv8_pmu_owns(r->op0, r->op1, r->crn, r->crm, r->op2) ||
               gic_icc_owns(r->op0, r->op1, r->crn, r->crm, r->op2) || a64dbg_owns(r->op0, r->op1, r->crn, r->crm, r->op2);
    }
}

/* One of our registers accessed from EL0.  The engine checks the EL only after the sysreg hook
 * (docs/engine.md, AArch64), so pmusim applies the Arm ARM's EL0 rules (a64_sysreg_site): the EL1 registers
 * are UNDEFINED, CNTFRQ_EL0 is readable with either counter enabled, the counters and timers
 * as CNTKCTL_EL1 enables them (else trapped to EL1; DDI 0487 D11.2.1, and each register's
 * "Accessibility"), the PMU as PMUSERENR_EL0 allows (pmu_armv8.c). */
static ArmEl0Access el0_access(Cpu *c, uint32_t key, const uc_arm64_cp_reg *r, bool write)
{
    uint64_t k = A64(c)->cntkctl;
    unsigned need;
    switch (key) {
    case MIDR_EL1: case MPIDR_EL1: case ID_AA64PFR0_EL1: case CNTKCTL_EL1: return ARMV8_EL0_UNDEF;
    case CNTFRQ_EL0: need = CNTKCTL_EL0PCTEN | CNTKCTL_EL0VCTEN; break;
    case CNTPCT_EL0: need = CNTKCTL_EL0PCTEN; break;
    case CNTVCT_EL0: need = CNTKCTL_EL0VCTEN; break;
    case CNTP_CTL_EL0: case CNTP_CVAL_EL0: case CNTP_TVAL_EL0: need = CNTKCTL_EL0PTEN; break;
    case CNTV_CTL_EL0: case CNTV_CVAL_EL0: case CNTV_TVAL_EL0: need = CNTKCTL_EL0VTEN; break;
    default:
        if (gic_icc_owns(r->op0, r->op1, r->crn, r->crm, r->op2))
            return ARMV8_EL0_UNDEF;         /* the ICC_*_EL1 registers: EL1 only */
        if (a64dbg_owns(r->op0, r->op1, r->crn, r->crm, r->op2))
            return a64dbg_el0_access(&A64(c)->dbg, r->op0, r->op1, r->crn, r->crm, r->op2, write);
        return armv8_pmu_el0_access(&A64(c)->pmu, r->op0, r->op1, r->crn, r->crm, r->op2, write);
    }
    if (write && (key == CNTFRQ_EL0 || key == CNTPCT_EL0 || key == CNTVCT_EL0))
        return ARMV8_EL0_UNDEF;             /* read-only at EL0 */
    return k & need ? ARMV8_EL0_OK : ARMV8_EL0_TRAP;
}

/* ESR_EL1.ISS of a trapped MSR/MRS (EC 0x18; DDI 0487 D17.2, "ISS encoding for an exception
 * from MSR, MRS, or System instruction execution in AArch64 state"). */
static uint32_t sysreg_trap_iss(const uc_arm64_cp_reg *r, unsigned rt, bool write)
{
    return r->op0 << 20 | r->op2 << 17 | r->op1 << 14 | r->crn << 10 | rt << 5 | r->crm << 1 | !write;
}

/* Our register's read or write at pc; false if it is UNDEFINED (sysreg_read, sysreg_write). */
static bool sysreg_emulate(Cpu *c, uint64_t pc, uint32_t key, uc_arm64_reg reg, const uc_arm64_cp_reg *r, bool write)
{
    bool done;
    vcpu_insn_begin(c, pc);         /* the engine goes on in the block after it (cpu.h) */
    if (write) {
        uint64_t v = reg == UC_ARM64_REG_XZR ? 0 : r->val;
        done = sysreg_write(c, pc, key, r->op0, r->op1, r->crn, r->crm, r->op2, v) >= 0;
    } else {
        uint64_t v = 0;
        done = sysreg_read(c, pc, key, r->op0, r->op1, r->crn, r->crm, r->op2, &v);
        if (done && reg != UC_ARM64_REG_XZR)
            vcpu_reg_write(c, reg, v);
    }
    vcpu_access_end(c);
    return done;
}

/* An MRS/MSR the guest executes: ours are emulated (return 1 = the engine skips it).  The trap
 * site (a64_sysreg_site) has already taken the exception of one that is UNDEFINED or not
 * allowed at EL0; should one still be refused here, it takes its exception without retiring
 * (the engine runs the rest of the block first: docs/engine.md). */
static uint32_t hook_sysreg(uc_engine *uc, uc_arm64_reg reg, const uc_arm64_cp_reg *r, void *opaque, bool write)
{
    Cpu *c = opaque;
    uint32_t key = SYSREG(r->op0, r->op1, r->crn, r->crm, r->op2);
    if (write && (key == SCTLR_EL1 || key == TCR_EL1))
        A64(c)->pg_valid = false;       /* the engine writes it next (or refuses to) */
    if (!owns(key, r))
        return 0;
    uint64_t pc = vcpu_reg_read(c, UC_ARM64_REG_PC);
    if (armv8_pmu_owns(r->op0, r->op1, r->crn, r->crm, r->op2)) {
        /* Its trap site did it and moved the PC past it (a64_pmu_site): never here.  (Nor could
         * it be done here: the counts are not exact in the middle of the block, and the engine
         * re-executes forever a register it lacks, PMEVCNTR4/5 among them: docs/engine.md.) */
        vcpu_internal_error(c, "PMU register access at 0x%" PRIx64 " without its trap site", pc);
        return 1;
    }
    if (sysreg_emulate(c, pc, key, reg, r, write))
        return 1;
    vcpu_retire_upto(c, pc, false);
    a64_undef(c, pc);
    return 1;
}

static uint32_t hook_mrs(uc_engine *uc, uc_arm64_reg reg, const uc_arm64_cp_reg *r, void *opaque)
{
    return hook_sysreg(uc, reg, r, opaque, false);
}

static uint32_t hook_msr(uc_engine *uc, uc_arm64_reg reg, const uc_arm64_cp_reg *r, void *opaque)
{
    return hook_sysreg(uc, reg, r, opaque, true);
}

/* ------------------------------------------------------------------ CpuOps */

static bool a64_init(Cpu *c, Error *err)
{
    vcpu_port_init(c);                 /* before the models that are handed it */
    uc_hook h;
    if (uc_hook_add(c->uc, &h, UC_HOOK_INSN, (void *)hook_mrs, c, 1, 0, UC_ARM64_INS_MRS) != UC_ERR_OK ||
        uc_hook_add(c->uc, &h, UC_HOOK_INSN, (void *)hook_msr, c, 1, 0, UC_ARM64_INS_MSR) != UC_ERR_OK)
        return err_set(err, "cpu%d: cannot install the sysreg hooks", c->index);
    /* EL3 and EL2 are absent: mark the lower ELs AArch64 (SCR_EL3.RW, HCR_EL2.RW), or ERET
     * misbehaves in the engine; SCR_EL3.HCE lets HVC reach us (PSCI) instead of the engine
     * making it UNDEFINED first. */
    cp_write(c, 3, 6, 1, 1, 0, cp_read(c, 3, 6, 1, 1, 0) | 1u << 10 | 1u << 8);
    cp_write(c, 3, 4, 1, 1, 0, cp_read(c, 3, 4, 1, 1, 0) | 1ull << 31);
    /* the PMU's overflow interrupt request on the PPI the tree gives it (QEMU virt's 23) */
    Gic *g = c->cl->gic;
    armv8_pmu_init(&A64(c)->pmu, &c->port, c->model->pmu_idcode,
                   g && c->cl->pmu_intid ? gic_ppi_line(g, c->index, c->cl->pmu_intid) : irq_line(NULL, NULL, 0));
    A64(c)->mmfr0 = cp_read(c, 3, 0, 0, 7, 0);
    A64(c)->dcz_block = 4ull << (cp_read(c, 3, 3, 0, 0, 7) & 0xf);
    timer_init(c, &A64(c)->ptimer, "cntp", c->cl->timer_intid[0]);
    timer_init(c, &A64(c)->vtimer, "cntv", c->cl->timer_intid[1]);
    if (c->cl->gic)
        gic_connect_cpu(c->cl->gic, c->index, &c->port, vcpu_pin(c, CPU_PIN_IRQ), vcpu_pin(c, CPU_PIN_FIQ));
    a64dbg_init(&A64(c)->dbg, c, a64_debug_take);
    return true;
}

static void a64_reset(Cpu *c, uint64_t entry, uint64_t arg0, uint64_t arg1)
{
    A64(c)->pg_valid = false;
    for (int i = 0; i <= 28; i++)
        vcpu_reg_write(c, UC_ARM64_REG_X0 + i, 0);
    vcpu_reg_write(c, UC_ARM64_REG_X29, 0);
    vcpu_reg_write(c, UC_ARM64_REG_X30, 0);
    vcpu_reg_write(c, UC_ARM64_REG_X0, arg0);
    vcpu_reg_write(c, UC_ARM64_REG_PSTATE, PSTATE_EL1H);
    engine_flags_refresh(c);
    vcpu_reg_write(c, UC_ARM64_REG_SP, 0);
    vcpu_reg_write(c, UC_ARM64_REG_VBAR_EL1, 0);
    vcpu_reg_write(c, UC_ARM64_REG_TPIDR_EL1, c->desc->tpidr_el1);
    vcpu_reg_write(c, UC_ARM64_REG_PC, entry);
    a64dbg_reset(&A64(c)->dbg);             /* a power-up: the OS Lock is set again */
}

/* The system register an MRS/MSR (register) names. */
static uc_arm64_cp_reg sysreg_of(uint32_t w)
{
    uc_arm64_cp_reg r = { (w >> 12) & 15, (w >> 8) & 15, 2 + ((w >> 19) & 1), (w >> 16) & 7, (w >> 5) & 7, 0 };
    return r;
}

static int a64_insn_kind(Cpu *c, const uint8_t *bytes)
{
    uint32_t w = (uint32_t)load_le(bytes, 4);
    if ((w & ~0xf00u) == INSN_MSR_DAIFCLR || (w & ~31u) == INSN_MSR_DAIF)
        return T_DAIF;
    if ((w & INSN_SYSREG_MASK) == INSN_SYSREG) {
        uc_arm64_cp_reg r = sysreg_of(w);
        return owns(SYSREG(r.op0, r.op1, r.crn, r.crm, r.op2), &r) ? T_SYSREG : 0;
    }
    if ((w & INSN_UNPRIV_MASK) == INSN_UNPRIV)
        return T_UNPRIV;
    if ((w & INSN_TLBI_MASK) == INSN_TLBI)
        return T_TLBI;
    return w == INSN_WFI ? T_WFI : (w & ~31u) == INSN_DC_ZVA ? T_DC_ZVA : w == INSN_ERET ? T_ERET : 0;
}

/* An instruction at an armed breakpoint's address is a trap site whatever it is (a64_trap checks
 * the breakpoint first); a word Capstone cannot decode (insn NULL) is checked in a64_intr. */
static int a64_trap_kind(Cpu *c, const cs_insn *insn, const uint8_t *bytes)
{
    int kind = a64_insn_kind(c, bytes);
    if (!kind && insn && a64dbg_bp_site(&A64(c)->dbg, insn->address))
        kind = T_BKPT;
    return kind;
}

static bool a64_translate_op(Cpu *c, uint64_t va, MmuAccess acc, bool probe, MmuResult *r);

/* Register number 31 of an MRS/MSR or a load/store's Rt: XZR. */
#define A64_XZR 31

/* The engine's id of Xn, n < 31. */
static int xreg_id(unsigned n)
{
    return n < 29 ? UC_ARM64_REG_X0 + (int)n : n == 29 ? UC_ARM64_REG_X29 : UC_ARM64_REG_X30;
}

static uint64_t xreg(Cpu *c, unsigned n)
{
    return n < A64_XZR ? vcpu_reg_read(c, xreg_id(n)) : 0;
}

/* DC ZVA writes zeros to the naturally aligned block of 4 << DCZID_EL0.BS bytes holding Xt (DDI
 * 0487, "DC ZVA, Data Cache Zero by VA" and DCZID_EL0).  On a block with nothing behind it the
 * engine's helper records the failed store and carries on: the next instructions ran before the
 * abort was taken.  A synchronous Data Abort is precise: its preferred return address is the
 * DC ZVA itself and no later instruction has executed (DDI 0487, "Preferred exception return
 * address" and "Precise exceptions"): deliver it here, before the instruction runs.  The
 * syndrome is a store's (ESR_EL1 Data Abort ISS: WnR = 1, CM = 0 for DC ZVA); FAR is the lowest
 * faulting address.  The block is translated by pmusim's walk (a block never crosses a page);
 * a block that does not translate is the engine's to fault, which the walk then describes
 * (a64_mmu_fault).  On RAM and device windows the engine executes it. */
static TrapResult a64_dc_zva(Cpu *c, uint64_t pc, uint32_t insn)
{
    uint64_t block = A64(c)->dcz_block;
    uint64_t va = xreg(c, insn & 31) & ~(block - 1), pa;
    MmuResult r;
    if (!a64_translate_op(c, va, MMU_WRITE, true, &r))
        return TRAP_NATIVE;
    pa = r.pa | (va & (GUEST_PAGE - 1));
    if (mem_ptr(c->mem, pa, block) && mem_page_is_code(c->mem, pa)) {
        /* zeros over code: through the code-write chokepoint, here (the engine would store them
         * a byte at a time through the code-write window, cpu/mmu.c) */
        static const uint8_t zero[A64_DCZ_MAX];
        vcpu_mem_write(c, pa, zero, block);
        vcpu_reg_write(c, UC_ARM64_REG_PC, pc + 4);
        return TRAP_DONE;
    }
    if (mem_ptr(c->mem, pa, block) || vcpu_engine_maps(c, pa, block))
        return TRAP_NATIVE;
    vcpu_diag(c, pc, "bus-error", "DC ZVA of unbacked physical address 0x%" PRIx64, pa);
    a64_take(c, TK_EXCEPTION, pc, 0, EC_DABT_CUR, A64_FSC_EXT_ABORT | ISS_WNR, true, va);
    return TRAP_FAULTED;
}

/* TLBI at EL1.  The engine's own TLBI by VA drops only the engine page (1 KiB on AArch64) at the
 * address, but pmusim's fill hook enters a 4 KiB (or larger) guest page as up to four engine
 * pages (docs/engine.md, "The guest MMU"): the others would keep the old translation, and Linux's
 * fixmap (clear, TLBI VAALE1IS, set again) would write through a stale one.  Each CPU also has an
 * engine of its own, so the broadcast forms must reach the others.  So a TLBI flushes whole
 * engine TLBs: this CPU's, and for the shareable forms every CPU's, at once (the Arm ARM
 * guarantees completion only at the next DSB, DDI 0487 D8.13: doing it earlier is allowed; making
 * DSB a trap site instead costs every barrier of the kernel a hook).  The engine then executes
 * the instruction itself (its UNDEFINED cases at EL0 and for EL2/EL3 operations included). */
static TrapResult a64_tlbi(Cpu *c, uint32_t insn)
{
    uint32_t crm = insn >> 8 & 15;
    if (!(vcpu_reg_read(c, UC_ARM64_REG_PSTATE) >> 2 & 3) || (insn >> 16 & 7))
        return TRAP_NATIVE;
    if (crm == TLBI_CRM_LOCAL || crm == TLBI_CRM_LOCAL_RANGE) {
        vcpu_engine_flush_tlb(c);
        return TRAP_NATIVE;
    }
    for (int i = 0; i < c->cl->ncpus; i++)
        if (c->cl->cpus[i] == c)
            vcpu_engine_flush_tlb(c);
        else
            vcpu_engine_flush_tlb_remote(c->cl->cpus[i]);
    return TRAP_NATIVE;
}

/* Would PSTATE's DAIF bits `daif` let a pending interrupt pin through? */
static bool unmasks_pending(const Cpu *c, uint64_t daif)
{
    return (c->pins.fiq && !(daif & PSTATE_F)) || (c->pins.irq && !(daif & PSTATE_I));
}

/* MSR DAIFClr, #imm and MSR DAIF, Xt at EL1: done here, so that an interrupt pending on a pin
 * they unmask is taken right after them, at the exact instruction boundary (Linux's
 * local_irq_enable and local_irq_restore).  At EL0 they are the engine's (UNDEFINED unless
 * SCTLR_EL1.UMA, DDI 0487 "MSR (immediate)"). */
static TrapResult a64_daif(Cpu *c, uint64_t pc, uint32_t insn)
{
    uint64_t pstate = vcpu_reg_read(c, UC_ARM64_REG_PSTATE);
    if (!(pstate >> 2 & 3))
        return TRAP_NATIVE;
    uint64_t daif = (insn & ~0xf00u) == INSN_MSR_DAIFCLR ? (pstate & PSTATE_DAIF) & ~(uint64_t)((insn >> 8 & 0xf) << 6)
                                                          : xreg(c, insn & 31) & PSTATE_DAIF;
    vcpu_reg_write(c, UC_ARM64_REG_PSTATE, (pstate & ~(uint64_t)PSTATE_DAIF) | daif);
    vcpu_reg_write(c, UC_ARM64_REG_PC, pc + 4);
    if (unmasks_pending(c, daif))
        vcpu_request_stop(c);
    a64dbg_sync(&A64(c)->dbg, pc);          /* PSTATE.D may enable debug exceptions */
    return TRAP_DONE;
}

/* An ERET whose SPSR_EL1 makes it an illegal exception return on pmusim's CPUs (DDI 0487,
 * "Illegal return events from AArch64 state"): to AArch32 (M[4] = 1: they implement AArch64
 * only, see a64_eret), M[1] set (reserved), EL0 with SP_EL1 (M[3:0] = 0b0001), or EL2/EL3 (not
 * implemented). */
static bool eret_illegal(uint64_t spsr)
{
    unsigned m = spsr & SPSR_M_MASK;
    return (m & SPSR_M_AARCH32) || (m & SPSR_M_RES) || m == SPSR_M_EL0_SPX || (m >> 2 & 3) > 1;
}

/* ERET.  The engine (QEMU 5 inside Unicorn 2.0.1) runs AArch32 after a return with SPSR.M[4] =
 * 1, decoded by pmusim as A64 and unable to take an exception back (pmusim's exception entry
 * cannot leave AArch32: random guest arm64 2611 looped at a Thumb store), and it ignores
 * PSTATE.IL.  So pmusim's CPUs implement AArch64 only (ID_AA64PFR0_EL1.EL0 = EL1 = 0b0001), and
 * an ERET that leaves PSTATE.IL set is done here: an illegal return keeps EL and SP, takes
 * NZCV and DAIF from SPSR and sets IL; a legal one restores SPSR, IL included; either way PC =
 * ELR and the ERET retires.  The first instruction there takes the Illegal Execution state
 * exception, EC 0x0e, without executing (DDI 0487, "The Illegal Execution state exception"),
 * so it is taken at once.  With --icache=strict the ERET is also a context synchronisation
 * step of the I-cache model. */
static TrapResult a64_eret(Cpu *c, uint64_t pc)
{
    const ExecWatch *w = &c->cl->watch;
    if (w->trap) {
        TrapResult r = (TrapResult)w->trap(w->opaque, c, pc);
        if (r != TRAP_NATIVE)
            return r;                       /* a stale word: the old instruction was emulated */
    }
    uint64_t spsr = spsr_read(c), pstate = vcpu_reg_read(c, UC_ARM64_REG_PSTATE);
    bool illegal = eret_illegal(spsr);
    uint64_t elr = vcpu_reg_read(c, UC_ARM64_REG_ELR_EL1);
    trace_exception_return(c->cl->trace, c->cycles, c->index, pc, &elr);
    if (!illegal && !(spsr & PSTATE_IL)) {
        pmu_el_switch_eret(c, pc, spsr);
        if (unmasks_pending(c, spsr))
            vcpu_request_stop(c);       /* ERET ends the block: taken right after it */
        a64dbg_eret(&A64(c)->dbg, pc, spsr, false);     /* PSTATE.SS, a step it starts */
        return TRAP_NATIVE;
    }
    uint64_t keep = illegal ? pstate & ~(uint64_t)(PSTATE_NZCV | PSTATE_DAIF) : spsr & SPSR_M_MASK;
    uint64_t to = keep | (spsr & (PSTATE_NZCV | PSTATE_DAIF)) | PSTATE_IL;
    /* a pending step or a matching context breakpoint comes before the Illegal Execution state
     * exception (DDI 0487 D1, "Synchronous exception prioritization"), which its handler's ERET
     * then meets */
    bool debug_first = a64dbg_eret(&A64(c)->dbg, pc, spsr, illegal);
    sp_switch(c, pstate, to);               /* a legal return to EL0 or EL1t */
    pmu_el_switch_eret(c, pc, to);
    vcpu_reg_write(c, UC_ARM64_REG_PSTATE, to);
    vcpu_retire_upto(c, pc, true);          /* before the entry: it counts what has retired */
    if (debug_first) {
        engine_flags_refresh(c);
        vcpu_reg_write(c, UC_ARM64_REG_PC, elr);
        return TRAP_DONE;
    }
    a64_take(c, TK_EXCEPTION, elr, 0, EC_ILLEGAL_STATE, 0, false, 0);
    return TRAP_DONE;
}

/* An MRS/MSR of a PMU register the EL allows, done here at its trap site, where the counts are
 * exact up to it and writing the PC leaves the block at once: a counter written or enabled
 * here overflows on its exact instruction even inside the rest of the block, which the engine
 * translates again.  One the model refuses (PMXEVCNTR with PMSELR naming no counter, a write of
 * PMCEIDn, a read of PMSWINC) is UNDEFINED. */
static TrapResult a64_pmu_site(Cpu *c, uint64_t pc, const uc_arm64_cp_reg *r, unsigned rt, bool write)
{
    ArmPmu *p = &A64(c)->pmu;
    uint64_t v = write ? xreg(c, rt) : 0;
    bool ok = write ? armv8_pmu_write(p, r->op0, r->op1, r->crn, r->crm, r->op2, v)
                    : armv8_pmu_read(p, r->op0, r->op1, r->crn, r->crm, r->op2, &v);
    if (!ok) {
        a64_undef(c, pc);
        return TRAP_FAULTED;
    }
    if (!write && rt != A64_XZR)
        vcpu_reg_write(c, xreg_id(rt), v);
    vcpu_reg_write(c, UC_ARM64_REG_PC, pc + 4);
    return TRAP_DONE;
}

/* An MRS/MSR of a GIC CPU interface register at EL1, done here: the engine does not know these
 * registers, and an MSR/MRS its translator finds no register for loops forever even when the
 * sysreg hook has done it (the block ends in the UNDEFINED exception's code and the hook's
 * skip lands there with PC unchanged: docs/engine.md, AArch64).  Without a GICv3, or a read of
 * a write-only one or a write of a read-only one, it is UNDEFINED. */
static TrapResult a64_icc_site(Cpu *c, uint64_t pc, const uc_arm64_cp_reg *r, unsigned rt, bool write)
{
    Gic *g = c->cl->gic;
    uint64_t v = write ? xreg(c, rt) : 0;
    if (!gic_icc_access_ok(g, r->op0, r->op1, r->crn, r->crm, r->op2, write)) {
        a64_undef(c, pc);
        return TRAP_FAULTED;
    }
    if (write)
        gic_icc_write(g, c->index, pc, r->op0, r->op1, r->crn, r->crm, r->op2, v);
    else if (gic_icc_read(g, c->index, pc, r->op0, r->op1, r->crn, r->crm, r->op2, &v) && rt != A64_XZR)
        vcpu_reg_write(c, xreg_id(rt), v);
    vcpu_reg_write(c, UC_ARM64_REG_PC, pc + 4);
    return TRAP_DONE;
}

/* MRS/MSR of a debug register (arm64_debug.c), done at its trap site, where writing the PC ends
 * the block: a breakpoint a write arms on the next instruction, a step or context breakpoint it
 * makes due, are taken there; and MDCCSR_EL0, which EL0 may read, is EL1-only to the engine
 * (its access check after the sysreg hook would end the block with no way out). */
static TrapResult a64_debug_access(Cpu *c, uint64_t pc, uint32_t w, const uc_arm64_cp_reg *r, bool write)
{
    A64Debug *d = &A64(c)->dbg;
    uint64_t v = 0;
    unsigned rt = w & 31;
    bool ok = write ? a64dbg_write(d, pc, r->op0, r->op1, r->crn, r->crm, r->op2, xreg(c, rt))
                    : a64dbg_read(d, r->op0, r->op1, r->crn, r->crm, r->op2, &v);
    if (!ok) {
        a64_undef(c, pc);
        return TRAP_FAULTED;
    }
    if (!write && rt != 31)
        vcpu_reg_write(c, rt < 29 ? UC_ARM64_REG_X0 + (int)rt : rt == 29 ? UC_ARM64_REG_X29 : UC_ARM64_REG_X30, v);
    vcpu_reg_write(c, UC_ARM64_REG_PC, pc + 4);
    return TRAP_DONE;
}

/* An MRS/MSR of one of our registers (a trap site).  One that is UNDEFINED (at EL1 a write of
 * a read-only register), or at EL0 one the Arm ARM does not allow there (el0_access), takes its
 * exception here, where writing the PC redirects at once; from the sysreg hook the engine would
 * go on with the rest of the block first (docs/engine.md, AArch64).  The PMU's registers are
 * done here (a64_pmu_site), the GIC's (a64_icc_site) and the debug registers (a64_debug_access);
 * the others are the engine's, and so the sysreg hook's. */
static TrapResult a64_sysreg_site(Cpu *c, uint64_t pc, uint32_t w)
{
    uc_arm64_cp_reg r = sysreg_of(w);
    bool write = !(w & INSN_SYSREG_READ);
    uint32_t key = SYSREG(r.op0, r.op1, r.crn, r.crm, r.op2);
    ArmEl0Access v = current_el(c) != 0 ? (write && read_only(key) ? ARMV8_EL0_UNDEF : ARMV8_EL0_OK)
                                        : el0_access(c, key, &r, write);
    if (v == ARMV8_EL0_OK && armv8_pmu_owns(r.op0, r.op1, r.crn, r.crm, r.op2))
        return a64_pmu_site(c, pc, &r, w & 31, write);
    if (v == ARMV8_EL0_OK && a64dbg_owns(r.op0, r.op1, r.crn, r.crm, r.op2))
        return a64_debug_access(c, pc, w, &r, write);
    if (v == ARMV8_EL0_OK)
        return gic_icc_owns(r.op0, r.op1, r.crn, r.crm, r.op2) ? a64_icc_site(c, pc, &r, w & 31, write) : TRAP_NATIVE;
    if (v == ARMV8_EL0_TRAP)
        a64_take(c, TK_EXCEPTION, pc, 0, EC_SYS64, sysreg_trap_iss(&r, w & 31, write), false, 0);
    else
        a64_undef(c, pc);
    return TRAP_FAULTED;
}

static void a64_mmu_fault(Cpu *c, const MmuResult *r);
static A64PagingRegs paging_regs(Cpu *c);

/* LDTR/STTR at EL1 access memory with EL0's permissions (DDI 0487 C6.2, "LDTR": "as if at EL0"
 * while PSTATE.UAO is 0; FEAT_UAO is not modelled).  The engine's TLB-fill hook does not say
 * which kind of access it fills for, so pmusim's walk would grant EL1's: here, before the
 * instruction runs, each page it touches is walked as EL0, and one EL0 may not access takes the
 * Data Abort (a permission or translation fault, WnR for a store) at once.  Otherwise the engine
 * executes it: with PAN not modelled, EL1 may do whatever EL0 may. */
static TrapResult a64_unpriv(Cpu *c, uint64_t pc, uint32_t w)
{
    A64PagingRegs g = paging_regs(c);
    if (current_el(c) != 1 || !(g.sctlr & 1))
        return TRAP_NATIVE;
    unsigned size = 1u << (w >> 30), rn = (w >> 5) & 31;
    MmuAccess acc = ((w >> 22) & 3) == 0 ? MMU_WRITE : MMU_READ;
    int64_t imm9 = (int64_t)((uint64_t)((w >> 12) & 0x1ff) << 55) >> 55;
    uint64_t va = (rn == 31 ? vcpu_reg_read(c, UC_ARM64_REG_SP) : xreg(c, rn)) + (uint64_t)imm9;
    for (uint64_t a = va; a - va < size; a = (a | (GUEST_PAGE - 1)) + 1) {
        MmuResult r = { 0 };
        if (!vcpu_a64_walk(c, &g, a, acc, true, &r)) {
            r.acc = acc;
            r.va = a & ~(uint64_t)(GUEST_PAGE - 1);
            a64_mmu_fault(c, &r);
            return TRAP_FAULTED;
        }
    }
    return TRAP_NATIVE;
}

/* An instruction at a breakpoint's address that no breakpoint stops: the engine's, or a stale
 * word of --icache=strict (whose trap site this is too). */
static TrapResult a64_bkpt_pass(Cpu *c, uint64_t pc)
{
    const ExecWatch *w = &c->cl->watch;
    return w->trap ? (TrapResult)w->trap(w->opaque, c, pc) : TRAP_NATIVE;
}

static TrapResult a64_trap(Cpu *c, uint64_t pc, const TrapSite *t)
{
    /* a Breakpoint exception comes before any other the instruction raises (DDI 0487 D1,
     * "Synchronous exception prioritization") */
    if (a64dbg_breakpoint(&A64(c)->dbg, pc))
        return TRAP_FAULTED;
    if (t->kind == T_BKPT)
        return a64_bkpt_pass(c, pc);
    if (t->kind == T_SYSREG)
        return a64_sysreg_site(c, pc, (uint32_t)load_le(t->bytes, 4));
    if (t->kind == T_DC_ZVA)
        return a64_dc_zva(c, pc, (uint32_t)load_le(t->bytes, 4));
    if (t->kind == T_UNPRIV)
        return a64_unpriv(c, pc, (uint32_t)load_le(t->bytes, 4));
    if (t->kind == T_ERET)
        return a64_eret(c, pc);
    if (t->kind == T_DAIF)
        return a64_daif(c, pc, (uint32_t)load_le(t->bytes, 4));
    if (t->kind == T_TLBI)
        return a64_tlbi(c, (uint32_t)load_le(t->bytes, 4));
    /* WFI: sleep until an interrupt (vcpu_run wakes the CPU when one can be taken). */
    vcpu_reg_write(c, UC_ARM64_REG_PC, pc + 4);
    vcpu_stop(c, CPU_HALTED, "wfi");
    return TRAP_DONE;
}

static void a64_intr(Cpu *c, uint32_t intno)
{
    uint64_t pc = vcpu_reg_read(c, UC_ARM64_REG_PC);
    uint32_t insn;
    switch (intno) {
    case EXCP_SWI:                          /* PC is after the SVC, which retired */
        vcpu_retire_upto(c, pc, false);
        a64_take(c, TK_EXCEPTION, pc, 0, EC_SVC64, imm16_at(c, pc - 4), false, 0);
        return;
    case EXCP_HVC:                          /* PC is after the HVC */
        /* With PSCI over HVC, HVC #0 is the firmware's conduit (SMC Calling Convention, Arm DEN
         * 0028): a function it does not implement answers NOT_SUPPORTED in x0 (arm64_firmware.c), as
         * firmware does, where an UNDEFINED HVC would kill a kernel probing for services. */
        if (c->cl->psci && imm16_at(c, pc - 4) == 0) {
            vcpu_retire_upto(c, pc, false);
            vcpu_a64_firmware_call(c);
            return;
        }
        /* no EL2: HVC is UNDEFINED at EL1 and does not retire */
        vcpu_retire_upto(c, pc - 4, false);
        a64_undef(c, pc - 4);
        return;
    case EXCP_SMC:                          /* no EL3: UNDEFINED */
        vcpu_retire_upto(c, pc - 4, false);
        a64_undef(c, pc - 4);
        return;
    case EXCP_BKPT:                         /* PC is the BRK */
        vcpu_retire_upto(c, pc, false);
        a64_take(c, TK_EXCEPTION, pc, 0, EC_BRK64, imm16_at(c, pc), false, 0);
        return;
    case EXCP_UDEF:
        insn = insn_at(c, pc);
        if (insn == INSN_HLT_SEMIHOST && c->cl->semihosting) {
            vcpu_retire_upto(c, pc, true);
            if (semihosting_call(c, pc))
                return;
            vcpu_retire_upto(c, pc, false);
        } else {
            vcpu_retire_upto(c, pc, false);
            if (a64dbg_breakpoint(&A64(c)->dbg, pc))    /* a word Capstone cannot decode: no trap site */
                return;
        }
        a64_undef(c, pc);
        return;
    case EXCP_PREFETCH_ABORT:
    case EXCP_DATA_ABORT:
        /* Translation faults come from pmusim's walk (a64_mmu_fault); what the engine raises
         * itself is an alignment fault (SCTLR_EL1.A, exclusives), whose syndrome and address
         * it does not report. */
        vcpu_retire_upto(c, pc, false);
        vcpu_diag(c, pc, "abort-syndrome", "an abort the engine raised (alignment): it does not report FAR/ISS");
        a64_take(c, TK_EXCEPTION, pc, 0, intno == EXCP_DATA_ABORT ? EC_DABT_CUR : EC_IABT_CUR, 0x10, false, 0);
        return;
    default:
        vcpu_retire_upto(c, pc, false);
        a64_undef(c, pc);
        return;
    }
}

/* An access to a physical address with nothing behind it: a synchronous external abort (ISS:
 * DFSC/IFSC 0b010000, WnR for writes).  The engine reports the physical address: with the MMU
 * off it is the faulting address; with it on FAR_EL1 is left alone and ISS.FnV says so, as the
 * Arm ARM allows for an external abort not on a table walk (DDI 0487 D17.2, ESR_EL1 ISS "FnV"). */
static void a64_mem_fault(Cpu *c, uint64_t addr, bool write, bool fetch)
{
    uint64_t pc = c->fault.pc;
    bool low = current_el(c) == 0, mmu = cp_read(c, 3, 0, 1, 0, 0) & 1;
    unsigned ec = fetch ? (low ? EC_IABT_LOW : EC_IABT_CUR) : (low ? EC_DABT_LOW : EC_DABT_CUR);
    uint32_t iss = A64_FSC_EXT_ABORT | (write ? ISS_WNR : 0) | (mmu ? ISS_FNV : 0);
    a64_take(c, TK_EXCEPTION, pc, 0, ec, iss, !mmu, addr);
}

/* A pending FIQ or IRQ that PSTATE.F or .I does not mask, FIQ first: the Arm ARM leaves the
 * order of pending interrupts IMPLEMENTATION DEFINED, and QEMU (arm_cpu_exec_interrupt) takes
 * FIQ first too.  The vector is at +0x100 (FIQ) or +0x80 (IRQ) of the group a64_take picks.
 * Taking consumes the pin; a GIC drives it again at once from its state, so its level stays up
 * until the handler acknowledges the interrupt (ICC_IAR1_EL1), as the GIC's output does. */
static bool a64_take_interrupt(Cpu *c)
{
    uint64_t pstate = vcpu_reg_read(c, UC_ARM64_REG_PSTATE);
    bool fiq = c->pins.fiq && !(pstate & PSTATE_F), irq = c->pins.irq && !(pstate & PSTATE_I);
    /* A pending interrupt ends a WFI even while PSTATE masks it (DDI 0487, "Wait For Interrupt":
     * a physical IRQ or FIQ is a wake-up event whatever PSTATE.I and .F say; the instruction's
     * pseudocode waits only if !InterruptPending()); Linux's idle loop waits with interrupts
     * masked and takes them after it.  A GIC masks by priority before it drives the pin. */
    if (c->state == CPU_HALTED && (c->pins.fiq || c->pins.irq))
        c->state = CPU_RUNNING, c->stop_reason = "running";
    if (!fiq && !irq)
        return false;
    *(fiq ? &c->pins.fiq : &c->pins.irq) = false;
    if (c->cl->gic)
        gic_redrive(c->cl->gic, c->index, fiq);
    a64_take(c, TK_INTERRUPT, vcpu_reg_read(c, UC_ARM64_REG_PC), fiq ? 0x100 : 0x80, 0, 0, false, 0);
    return true;
}

/* ------------------------------------------------------------------ access locator */

static uint64_t a64_reg(Cpu *c, arm64_reg r)
{
    if (r >= ARM64_REG_X0 && r <= ARM64_REG_X28)
        return vcpu_reg_read(c, UC_ARM64_REG_X0 + (r - ARM64_REG_X0));
    if (r >= ARM64_REG_W0 && r <= ARM64_REG_W30)
        return (uint32_t)vcpu_reg_read(c, r == ARM64_REG_W29 ? UC_ARM64_REG_X29 : r == ARM64_REG_W30 ? UC_ARM64_REG_X30
                                                           : UC_ARM64_REG_X0 + (r - ARM64_REG_W0));
    switch (r) {
    case ARM64_REG_X29: return vcpu_reg_read(c, UC_ARM64_REG_X29);
    case ARM64_REG_X30: return vcpu_reg_read(c, UC_ARM64_REG_X30);
    case ARM64_REG_SP: return vcpu_reg_read(c, UC_ARM64_REG_SP);
    default: return 0;                      /* xzr/wzr */
    }
}

/* Bytes a load/store transfers, from its mnemonic and first data register (a store-exclusive's
 * first operand is its status register, Ws). */
static unsigned a64_access_size(const cs_insn *insn)
{
    const char *mn = insn->mnemonic;
    const cs_arm64 *d = &insn->detail->arm64;
    unsigned size = 8, rt = !strncmp(mn, "stx", 3) || !strncmp(mn, "stlx", 4);
    if (d->op_count > rt && d->operands[rt].type == ARM64_OP_REG) {
        arm64_reg r = d->operands[rt].reg;
        if ((r >= ARM64_REG_W0 && r <= ARM64_REG_W30) || r == ARM64_REG_WZR || (r >= ARM64_REG_S0 && r <= ARM64_REG_S31))
            size = 4;
        else if (r >= ARM64_REG_Q0 && r <= ARM64_REG_Q31)
            size = 16;
        else if (r >= ARM64_REG_H0 && r <= ARM64_REG_H31)
            size = 2;
        else if (r >= ARM64_REG_B0 && r <= ARM64_REG_B31)
            size = 1;
    }
    size_t n = strlen(mn);
    if (n && (mn[n - 1] == 'b' || (n > 1 && mn[n - 2] == 's' && mn[n - 1] == 'b')))
        size = 1;
    if (n && mn[n - 1] == 'h')
        size = 2;
    if (mn[0] && (mn[1] == 'd' || mn[1] == 't') && strchr(mn, 'p'))    /* ldp/stp/ldnp/stnp/ldxp */
        size *= 2;
    return size;
}

/* Calls fn with each [ea, ea + len) the load/store insn accesses as `kind` (ACC_READ or
 * ACC_WRITE), until fn returns true; true if one did. */
static bool a64_each_access(Cpu *c, const cs_insn *insn, AccessKind kind, AccessVisit fn, void *ctx)
{
    if (kind != ACC_READ && kind != ACC_WRITE)
        return false;
    /* DC ZVA Xt writes zeros to the block of 4 << DCZID_EL0.BS bytes that holds Xt (see
     * a64_dc_zva); its mnemonic is "dc", not a store's. */
    if ((load_le(insn->bytes, 4) & ~31u) == INSN_DC_ZVA) {
        uint64_t block = 4ull << (cp_read(c, 3, 3, 0, 0, 7) & 0xf);
        return kind == ACC_WRITE && fn(c, ctx, xreg(c, insn->bytes[0] & 31) & ~(block - 1), block);
    }
    const char *mn = insn->mnemonic;
    bool st = mn[0] == 's' && mn[1] == 't';
    bool ld = mn[0] == 'l' && mn[1] == 'd';
    bool both = !strncmp(mn, "cas", 3) || !strncmp(mn, "swp", 3) || (!strncmp(mn, "ld", 2) && strlen(mn) > 4 &&
                                                                       strstr(mn, "add"));
    if (!both && ((kind == ACC_WRITE && !st) || (kind == ACC_READ && !ld)))
        return false;
    const cs_arm64 *d = &insn->detail->arm64;
    unsigned len = a64_access_size(insn);
    for (int i = 0; i < d->op_count; i++) {
        const cs_arm64_op *op = &d->operands[i];
        uint64_t ea;
        if (op->type == ARM64_OP_MEM) {
            /* pre-index and offset forms: base + disp; post-index: the base (the offset is a
             * separate immediate operand, applied after the access) */
            ea = a64_reg(c, op->mem.base) + (uint64_t)(int64_t)op->mem.disp;
            if (op->mem.index != ARM64_REG_INVALID) {
                uint64_t idx = a64_reg(c, op->mem.index);
                if (op->ext == ARM64_EXT_UXTW)
                    idx = (uint32_t)idx;
                else if (op->ext == ARM64_EXT_SXTW)
                    idx = (uint64_t)(int64_t)(int32_t)idx;
                if (op->shift.type == ARM64_SFT_LSL)
                    idx <<= op->shift.value;
                ea += idx;
            }
        } else if (op->type == ARM64_OP_IMM && ld && i == d->op_count - 1 && d->op_count == 2) {
            ea = (uint64_t)op->imm;         /* ldr (literal): Capstone gives the address */
        } else {
            continue;
        }
        if (fn(c, ctx, ea, len))
            return true;
    }
    return false;
}

static bool a64_insn_accesses(Cpu *c, const cs_insn *insn, AccessKind kind, uint64_t addr, unsigned size)
{
    return vcpu_insn_accesses(c, insn, kind, addr, size);
}

/* ------------------------------------------------------------------ the guest MMU */

static A64PagingRegs paging_regs(Cpu *c)
{
    Arm64Cpu *a = A64(c);
    if (!a->pg_valid) {
        a->pg_sctlr = cp_read(c, 3, 0, 1, 0, 0);
        a->pg_tcr = cp_read(c, 3, 0, 2, 0, 2);
        a->pg_valid = true;
    }
    A64PagingRegs g = {
        .sctlr = a->pg_sctlr, .tcr = a->pg_tcr, .ttbr0 = vcpu_reg_read(c, UC_ARM64_REG_TTBR0_EL1),
        .ttbr1 = vcpu_reg_read(c, UC_ARM64_REG_TTBR1_EL1), .mmfr0 = a->mmfr0,
    };
    return g;
}

/* CpuOps.translate: an access by the running code at its EL (CurrentEL).  The engine does not
 * say when an access is unprivileged: LDTR/STTR at EL1 are checked at their trap site
 * (a64_unpriv). */
static bool a64_translate_op(Cpu *c, uint64_t va, MmuAccess acc, bool probe, MmuResult *r)
{
    A64PagingRegs g = paging_regs(c);
    return vcpu_a64_walk(c, &g, va, acc, current_el(c) == 0, r) && a64dbg_fill(&A64(c)->dbg, va, acc, probe, r);
}

static const char *fsc_name(int kind)
{
    switch (kind) {
    case A64_FSC_ADDR_SIZE: return "address size fault";
    case A64_FSC_TRANSLATION: return "translation fault";
    case A64_FSC_ACCESS_FLAG: return "access flag fault";
    case A64_FSC_PERMISSION: return "permission fault";
    default: return "synchronous external abort on a translation table walk";
    }
}

/* CpuOps.mmu_fault: the instruction at PC faulted in the walk (arm64_paging.c): an Instruction
 * or Data Abort to EL1 (DDI 0487 D17.2, ESR_EL1: ISS encoding for an exception from an
 * Instruction / a Data Abort): EC by the EL it came from, IL = 1, the fault status code with its
 * level, WnR for a write, ISV = 0 (no instruction syndrome for a stage 1 fault), FnV = 0. */
static void a64_mmu_fault(Cpu *c, const MmuResult *r)
{
    uint64_t pc = vcpu_reg_read(c, UC_ARM64_REG_PC);
    if (r->kind == A64DBG_WATCH_FILL) {         /* a page with watched bytes (a64dbg_fill) */
        a64dbg_watch_fault(&A64(c)->dbg, pc, r->va);
        return;
    }
    bool low = current_el(c) == 0, fetch = r->acc == MMU_FETCH;
    uint64_t far = vcpu_fault_address(c, pc, r, "FAR_EL1");
    if (r->kind == A64_FSC_EXT_ABORT_WALK || r->kind == A64_FSC_ADDR_SIZE)
        vcpu_diag(c, pc, "page-table", "%s at level %d: entry 0x%016" PRIx64 " at physical 0x%" PRIx64 " mapping 0x%"
                  PRIx64 "%s", fsc_name(r->kind), r->level, r->entry, r->entry_pa, far,
                  r->kind == A64_FSC_EXT_ABORT_WALK ? " (the table is outside RAM)" : "");
    unsigned ec = fetch ? (low ? EC_IABT_LOW : EC_IABT_CUR) : (low ? EC_DABT_LOW : EC_DABT_CUR);
    uint32_t iss = (uint32_t)r->syndrome | (r->acc == MMU_WRITE ? ISS_WNR : 0);
    a64_take(c, TK_EXCEPTION, pc, 0, ec, iss, true, far);
}

static uint64_t a64_get_pc(Cpu *c)
{
    return vcpu_reg_read(c, UC_ARM64_REG_PC);
}

static void a64_set_pc(Cpu *c, uint64_t pc)
{
    vcpu_reg_write(c, UC_ARM64_REG_PC, pc);
}

/* ------------------------------------------------------------------ checkpoints */

static const int a64_saved_regs[] = {
    UC_ARM64_REG_X29, UC_ARM64_REG_X30, UC_ARM64_REG_PC,
    UC_ARM64_REG_ELR_EL1, UC_ARM64_REG_ESR_EL1, UC_ARM64_REG_FAR_EL1, UC_ARM64_REG_VBAR_EL1,
    UC_ARM64_REG_TPIDR_EL0, UC_ARM64_REG_TPIDRRO_EL0, UC_ARM64_REG_TPIDR_EL1, UC_ARM64_REG_MAIR_EL1,
    UC_ARM64_REG_FPCR, UC_ARM64_REG_FPSR,
};
/* System registers by encoding: SPSR_EL1, SCTLR_EL1, CPACR_EL1, TTBR0/1_EL1, TCR_EL1, CONTEXTIDR_EL1,
 * AMAIR_EL1, PAR_EL1. */
static const uint8_t a64_saved_sys[][5] = {
    { 3, 0, 4, 0, 0 }, { 3, 0, 1, 0, 0 }, { 3, 0, 1, 0, 2 }, { 3, 0, 2, 0, 0 }, { 3, 0, 2, 0, 1 },
    { 3, 0, 2, 0, 2 }, { 3, 0, 13, 0, 1 }, { 3, 0, 10, 3, 0 }, { 3, 0, 7, 4, 0 },
};

/* Raise when a field is added (base/state.h).  2: the SP_EL1 bank (lost at EL0 and EL1t).  3: the
 * self-hosted debug state (section "arm64-debug").  4: the timers' events as scheduled (their
 * sequence numbers: a restore that schedules them again takes new ones from the clock, and a
 * time-travel restore must give back the machine's state byte for byte, sim/timetravel.h). */
#define A64_STATE_VERSION 4u

static const StateField a64_fields[] = {
    STATE_FIELD(Arm64Cpu, ptimer.ctl),
    STATE_FIELD(Arm64Cpu, ptimer.cval),
    STATE_FIELD(Arm64Cpu, vtimer.ctl),
    STATE_FIELD(Arm64Cpu, vtimer.cval),
    STATE_FIELD(Arm64Cpu, cntkctl),
};

static void a64_save(Cpu *c, Blob *b)
{
    Arm64Cpu *a = A64(c);
    size_t at = blob_begin(b, "arm64", A64_STATE_VERSION);
    for (int i = 0; i <= 28; i++)
        blob_u64(b, vcpu_reg_read(c, UC_ARM64_REG_X0 + i));
    for (size_t i = 0; i < ARRAY_SIZE(a64_saved_regs); i++)
        blob_u64(b, vcpu_reg_read(c, a64_saved_regs[i]));
    for (size_t i = 0; i < ARRAY_SIZE(a64_saved_sys); i++) {
        const uint8_t *s = a64_saved_sys[i];
        blob_u64(b, cp_read(c, s[0], s[1], s[2], s[3], s[4]));
    }
    for (int i = 0; i < 32; i++) {
        uint8_t q[16] = { 0 };
        uc_reg_read(c->uc, UC_ARM64_REG_Q0 + i, q);
        blob_put(b, q, 16);
    }
    /* PSTATE selects which stack pointer is live: the engine keeps the live one in SP and the
     * bank of it is stale (sp_bank), so save the live SP and both banks as they are. */
    blob_u64(b, vcpu_reg_read(c, UC_ARM64_REG_PSTATE));
    blob_u64(b, vcpu_reg_read(c, UC_ARM64_REG_SP_EL0));
    blob_u64(b, vcpu_reg_read(c, UC_ARM64_REG_SP));
    blob_u64(b, vcpu_reg_read(c, UC_ARM64_REG_SP_EL1));     /* since 2 */
    armv8_pmu_save(&a->pmu, b);
    blob_fields(b, a, a64_fields, ARRAY_SIZE(a64_fields));
    a64dbg_save(&a->dbg, b);                /* since 3 */
    blob_event(b, &a->ptimer.ev);           /* since 4 */
    blob_event(b, &a->vtimer.ev);
    blob_end(b, at);
}

static bool a64_load(Cpu *c, BlobReader *r)
{
    Arm64Cpu *a = A64(c);
    BrOuter outer;
    if (!br_begin(r, &outer, "arm64", A64_STATE_VERSION))
        return false;
    for (int i = 0; i <= 28; i++)
        vcpu_reg_write(c, UC_ARM64_REG_X0 + i, br_u64(r));
    for (size_t i = 0; i < ARRAY_SIZE(a64_saved_regs); i++)
        vcpu_reg_write(c, a64_saved_regs[i], br_u64(r));
    for (size_t i = 0; i < ARRAY_SIZE(a64_saved_sys); i++) {
        const uint8_t *s = a64_saved_sys[i];
        cp_write(c, s[0], s[1], s[2], s[3], s[4], br_u64(r));
    }
    for (int i = 0; i < 32; i++) {
        uint8_t q[16];
        br_get(r, q, 16);
        uc_reg_write(c->uc, UC_ARM64_REG_Q0 + i, q);
    }
    uint64_t pstate = br_u64(r);
    if (r->ok && (pstate > UINT32_MAX || eret_illegal(pstate))) {
        r->off -= 8;                /* a state no run reaches (a64_eret), which the engine would act on */
        return br_fail(r, "PSTATE (AArch32, EL2, EL3 or a reserved mode: not modelled)");
    }
    vcpu_reg_write(c, UC_ARM64_REG_PSTATE, pstate);
    engine_flags_refresh(c);                /* a checkpoint taken at EL0 */
    vcpu_reg_write(c, UC_ARM64_REG_SP_EL0, br_u64(r));
    vcpu_reg_write(c, UC_ARM64_REG_SP, br_u64(r));
    if (r->version >= 2)
        vcpu_reg_write(c, UC_ARM64_REG_SP_EL1, br_u64(r));
    a->pmu.el = (uint8_t)((pstate >> 2) & 3);   /* the PMU counts at the EL PSTATE holds */
    if (!armv8_pmu_load(&a->pmu, r) || !br_fields(r, a, a64_fields, ARRAY_SIZE(a64_fields)) ||
        (r->version >= 3 && !a64dbg_load(&a->dbg, r)))
        return false;
    uint64_t now = muldiv64(c->cycles, c->cl->timer_hz, c->cl->clock->freq_hz);
    if (r->version >= 4) {
        br_event(r, &a->ptimer.ev, &c->events);
        br_event(r, &a->vtimer.ev, &c->events);
        timer_line(&a->ptimer, now);
        timer_line(&a->vtimer, now);
    } else {
        timer_update(c, &a->ptimer, now);       /* their lines and events follow their state */
        timer_update(c, &a->vtimer, now);
    }
    return br_end(r, &outer);
}

/* ------------------------------------------------------------------ the debugger */

/* System registers for the debugger (cpu/gdb_regs.c), by key: the PMU's and pmusim's own
 * without side effects (the counters as a sync would leave them), the rest from the engine. */
static bool a64_debug_reg(Cpu *c, uint32_t key, uint64_t *v)
{
    unsigned op0 = key >> 14 & 3, op1 = key >> 11 & 7, crn = key >> 7 & 15, crm = key >> 3 & 15, op2 = key & 7;
    if (armv8_pmu_owns(op0, op1, crn, crm, op2))
        return armv8_pmu_peek(&A64(c)->pmu, op0, op1, crn, crm, op2, v);
    if (sysreg_read(c, a64_get_pc(c), key, op0, op1, crn, crm, op2, v))
        return true;
    *v = cp_read(c, op0, op1, crn, crm, op2);
    return true;
}

static int a64_pmu_readings(Cpu *c, PmcReading *out, int max)
{
    return armv8_pmu_readings(&A64(c)->pmu, out, max);
}

const CpuOps vcpu_arm64_ops = {
    .arch = ARCH_ARM64,
    .size = sizeof(Arm64Cpu),
    .uc_arch = UC_ARCH_ARM64,
    .uc_mode = UC_MODE_ARM,
    .cs_arch = CS_ARCH_ARM64,
    .cs_mode = CS_MODE_ARM,
    .init = a64_init,
    .reset = a64_reset,
    .trap_kind = a64_trap_kind,
    .trap = a64_trap,
    .intr = a64_intr,
    .insn_accesses = a64_insn_accesses,
    .each_access = a64_each_access,
    .mem_fault = a64_mem_fault,
    .translate = a64_translate_op,
    .mmu_fault = a64_mmu_fault,
    .take_interrupt = a64_take_interrupt,
    .get_pc = a64_get_pc,
    .set_pc = a64_set_pc,
    .save = a64_save,
    .load = a64_load,
    .debug_reg = a64_debug_reg,
    .pmu_readings = a64_pmu_readings,
};
