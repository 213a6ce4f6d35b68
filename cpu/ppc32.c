/* ppc32.c — the PowerPC 32-bit backend (MPC7450 / MPC7447A / MPC7448), on the engine's E600 model.
 *
 * Entry state (supervisor, real mode, vectors at 0, ePAPR boot registers), exception entry
 * through the classic vectors with SRR0/SRR1 (MPC7450 RM ch. 4: SRR1 takes MSR bits 16-23,
 * 25-27, 30-31 and the exception-specific bits; the new MSR keeps only IP and ME, and LE from
 * ILE), and the instructions the engine must never execute or gets wrong:
 *   - mftb, mfspr/mtspr TBL/TBU/DEC: the engine crashes on them; pmusim owns the timebase
 *     (simulated time at `timebase-frequency`) and the decrementer (0x900 when DEC[0] goes 0->1);
 *   - mfspr PVR / PIR: per model / per cpu node;
 *   - mfspr/mtspr of the SPRs the configured model and the engine's E600 do not share (the
 *     7450's L3 registers; the 7447A/7448's SPRG4-7 and high BATs, absent on the 7450);
 *   - dcbz: the engine crashes the host on it (docs/engine.md); emulated, with mtspr HID0 watched
 *     for the cache enable and lock bits it depends on;
 *   - mfspr/mtspr SRR0/SRR1 and rfi: pmusim owns SRR0/SRR1 (the engine never vectors itself);
 *   - mtmsr: emulated, and a pending interrupt may become takeable after it;
 *   - the MMU's registers: pmusim walks the BATs, segment registers and hashed page table itself
 *     (cpu/ppc32_paging.c, with the engine in its virtual-TLB mode: cpu/mmu.c), so it owns the
 *     BATs, SDR1, SR0-15 and the fault registers DAR and DSISR: mfspr/mtspr of them, mfsr,
 *     mfsrin, mtsr, mtsrin are trap sites, and every write and tlbie flushes the engine's TLB.
 * SPRs the engine keeps but has no API for (SPRGs, HIDs, MMCRs, ...) are read and written for
 * checkpoints by running a one-instruction stub on a private page.
 */
#include <string.h>

#include "base/state.h"
#include "cpu/cpu.h"
#include "cpu/ppc32_paging.h"
#include "pmu/pmu_mpc7450.h"

/* QEMU's exception numbers as the engine reports them (target/ppc/cpu.h). */
enum { EXCP_DSI = 2, EXCP_ISI = 3, EXCP_ALIGN = 5, EXCP_PROGRAM = 6, EXCP_FPU = 7, EXCP_SYSCALL = 8, EXCP_VPU = 73 };

enum { MSR_LE = 1u << 0, MSR_RI = 1u << 1, MSR_DR = 1u << 4, MSR_IR = 1u << 5, MSR_IP = 1u << 6,
       MSR_ME = 1u << 12, MSR_PR = 1u << 14, MSR_EE = 1u << 15, MSR_ILE = 1u << 16 };
/* An exception saves MSR bits 16-23, 25-27 and 29-31 (IBM numbering) in SRR1 and rfi restores
 * them (with bits 0 and 5-9).  Bit 29 is the 7450's PMM: the 74xx manuals save MSR[16-31] whole
 * ("MSR[6, 16-31] are placed into the corresponding bit positions of SRR1", MPC7400UM 4.2), and
 * op_model_7450 relies on rfi clearing PMM to restart the counters.  24 and 28 are reserved. */
#define SRR1_MSR_BITS 0x0000ff77u
#define RFI_MSR_BITS 0x87c0ff77u
enum { SRR1_ILLEGAL = 0x00080000u, SRR1_PRIV = 0x00040000u, SRR1_TRAP = 0x00020000u };
/* Vector offsets (MPC7450 RM table 4-2). */
enum { VEC_MACHINE_CHECK = 0x200, VEC_DSI = 0x300, VEC_ISI = 0x400, VEC_EXTERNAL = 0x500, VEC_ALIGNMENT = 0x600, VEC_DECREMENTER = 0x900,
       VEC_PERFMON = 0xf00 };

/* SPR numbers, as Linux's asm/reg.h spells them (the monitor's are in pmu_mpc7450.h).  The SPR
 * field of mfspr/mtspr holds the number's two 5-bit halves swapped (spr_of, spr_field); numbers
 * with bit SPRN_PRIV_BIT set are privileged (PowerPC OEA book III, 3.3.1). */
enum { SPRN_DSISR = 18, SPRN_DAR = 19, SPRN_SDR1 = 25, SPRN_DEC = 22, SPRN_SRR0 = 26, SPRN_SRR1 = 27, SPRN_TBRL = 268, SPRN_TBRU = 269, SPRN_TBWL = 284,
       SPRN_TBWU = 285, SPRN_PVR = 287, SPRN_HID0 = 1008, SPRN_PIR = 1023, SPRN_PRIV_BIT = 0x10 };
/* The SPRs the 7450 has and the 7447A/7448 (and so the engine's E600) do not: the L3 cache
 * interface (the MPC7450 family product brief: "The MPC7441, MPC7445, MPC7447, MPC7447A, and
 * MPC7448 do not support the L3 cache and the L3 interface").  The set is the engine's own 7450
 * model's (QEMU gen_l3_ctrl and init_proc_7450), which pmusim presented until the E600 move. */
enum { SPRN_L3PM = 983, SPRN_L3ITCR0 = 984, SPRN_L3OHCR = 1000, SPRN_L3ITCR1 = 1001, SPRN_L3ITCR2 = 1002,
       SPRN_L3ITCR3 = 1003, SPRN_L3CR = 1018 };
static const uint16_t l3_sprs[] = { SPRN_L3PM, SPRN_L3ITCR0, SPRN_L3OHCR, SPRN_L3ITCR1, SPRN_L3ITCR2,
                                    SPRN_L3ITCR3, SPRN_L3CR };
/* The SPRs the E600 has and the 7450 does not: SPRG4-7 with their user read aliases USPRG4-7,
 * and the high BATs IBAT4-7/DBAT4-7 (the 7455 and later: Linux's CPU_FTR_HAS_HIGH_BATS is in
 * every 745x entry of its cputable but the 7450's; the engine's 7450 model has neither).  pmusim's
 * walk uses BATs 4-7 only with HID0[HIGH_BAT_EN] set (7447A/7448: MPC7450 RM §2.1.5.1, Linux
 * HID0_HIGH_BAT); the engine's own walk, which used all eight whatever the bit, is not used. */
enum { SPRN_USPRG4 = 260, SPRN_USPRG7 = 263, SPRN_SPRG4 = 276, SPRN_SPRG7 = 279, SPRN_IBAT0U = 528,
       SPRN_DBAT3L = 543, SPRN_IBAT4U = 560, SPRN_DBAT7L = 575 };
/* BATs per array (IBAT or DBAT) in each of the two SPR ranges. */
enum { BATS_PER_RANGE = 4 };
/* The PVR's version field (upper half) of the MPC7450 (Linux cputable, cpu_setup_6xx.S). */
#define PVR_VER_7450 0x8000u
/* HID0 bits dcbz depends on: the data cache is enabled, the data cache is locked (Linux
 * asm/reg.h HID0_DCE, HID0_DLOCK; MPC7400 UM §3.5.1: "HID0[DCE] is cleared on power-up"). */
enum { HID0_DCE = 1u << 14, HID0_DLOCK = 1u << 12, HID0_HIGH_BAT_EN = 1u << 23 };
/* The L1 data cache block: 32 bytes on every MPC7450-family part (MPC7450 RM ch. 3: 32-Kbyte
 * eight-way L1 caches of 32-byte blocks; Linux's L1_CACHE_SHIFT 5 for book3s/32; the engine's
 * E600 has dcache_line_size = 32). */
#define DCACHE_BLOCK 32u

/* Primary opcodes (bits 0-5) and the extended opcodes (XO, bits 21-30) of the instructions pmusim
 * looks at, as Linux spells them (asm/ppc-opcode.h, kvm/book3s_emulate.c). */
enum { OP_TRAP = 3, OP_19 = 19, OP_31 = 31 };
enum { OP_19_XOP_RFI = 50 };
enum {
    OP_31_XOP_TRAP = 4, OP_31_XOP_MFMSR = 83, OP_31_XOP_MTMSR = 146, OP_31_XOP_MTSR = 210, OP_31_XOP_MTSRIN = 242,
    OP_31_XOP_TLBIE = 306, OP_31_XOP_MFSPR = 339, OP_31_XOP_TLBIA = 370, OP_31_XOP_MFTB = 371,
    OP_31_XOP_MTSPR = 467, OP_31_XOP_DCBI = 470, OP_31_XOP_TLBSYNC = 566, OP_31_XOP_MFSR = 595,
    OP_31_XOP_MFSRIN = 659, OP_31_XOP_TLBLD = 978, OP_31_XOP_TLBLI = 1010, OP_31_XOP_DCBZ = 1014,
};
/* Whole instructions pmusim assembles for its stubs, with r0 as the GPR (asm/ppc-opcode.h). */
#define PPC_INST_MFSPR 0x7c0002a6u      /* mfspr r0, SPR (| spr_field) */
#define PPC_INST_MTSPR 0x7c0003a6u      /* mtspr SPR, r0 (| spr_field) */

/* Trap-site kinds. */
enum { T_MFTB = 1, T_MFSPR, T_MTSPR, T_RFI, T_MTMSR, T_DCBZ, T_MFSR, T_MTSR, T_TLBIE, T_TLBIA };

#define EPAPR_MAGIC 0x45504150u
#define STUB_PAGE 0xfeff0000ull         /* private page for SPR stubs (not in the machine's map) */

typedef struct PpcCpu {
    Cpu c;
    uint32_t srr0, srr1;
    uint64_t tb_offset;                 /* TB = cycles converted + offset */
    uint32_t dec_base;                  /* DEC value written ... */
    uint64_t dec_tb;                    /* ... at this TB */
    bool dec_pending;
    Event dec_event;
    uint32_t pir;
    Mpc7450Pmu pmu;                     /* the performance monitor (0xF00) */
    uint32_t hid0;                      /* the engine's HID0, as last written (dcbz reads DCE, DLOCK;
                                         * the walk HIGH_BAT_EN) */
    PpcMmuRegs mmu;                     /* BATs, SRs, SDR1 (msr and nbats: filled per walk) */
    uint32_t dar, dsisr;
    uint32_t l3[ARRAY_SIZE(l3_sprs)];   /* the 7450's L3 SPRs (l3_sprs order): plain storage */
    uint8_t *stub;                      /* host memory of STUB_PAGE */
    uint32_t stub_insn[GUEST_PAGE / 8]; /* the instruction of each stub slot (stub_slot) */
    uint32_t stub_used;                 /* slots written */
} PpcCpu;

static PpcCpu *PPC(Cpu *c)
{
    return (PpcCpu *)c;
}

/* The CPU's performance monitor (for tests and later tools). */
Mpc7450Pmu *vcpu_ppc32_pmu(Cpu *c);
Mpc7450Pmu *vcpu_ppc32_pmu(Cpu *c)
{
    return &PPC(c)->pmu;
}

static uint32_t gpr(Cpu *c, unsigned n)
{
    return (uint32_t)vcpu_reg_read(c, UC_PPC_REG_0 + (int)n);
}

static void set_gpr(Cpu *c, unsigned n, uint32_t v)
{
    vcpu_reg_write(c, UC_PPC_REG_0 + (int)n, v);
}

static unsigned spr_of(uint32_t w)
{
    return ((w >> 16) & 0x1f) | ((w >> 11) & 0x1f) << 5;
}

/* ------------------------------------------------------------------ the configured model's SPRs */

static bool model_is_7450(const Cpu *c)
{
    return (c->model->id >> 16) == PVR_VER_7450;
}

/* The slot in PpcCpu.l3 of an L3 SPR the configured model has (only the 7450 has any), or -1. */
static int l3_slot(const Cpu *c, unsigned spr)
{
    for (size_t i = 0; i < ARRAY_SIZE(l3_sprs) && model_is_7450(c); i++)
        if (l3_sprs[i] == spr)
            return (int)i;
    return -1;
}

/* An SPR the engine's E600 implements and the configured model does not. */
static bool model_lacks(const Cpu *c, unsigned spr)
{
    return model_is_7450(c) && ((spr >= SPRN_USPRG4 && spr <= SPRN_USPRG7) ||
                                (spr >= SPRN_SPRG4 && spr <= SPRN_SPRG7) ||
                                (spr >= SPRN_IBAT4U && spr <= SPRN_DBAT7L));
}

/* An mfspr/mtspr pmusim answers for the configured model rather than the engine. */
static bool model_spr(const Cpu *c, unsigned spr)
{
    return l3_slot(c, spr) >= 0 || model_lacks(c, spr);
}

/* ------------------------------------------------------------------ time base, decrementer */

static uint64_t tb_hz(Cpu *c)
{
    return c->desc->timebase_hz;
}

static uint64_t tb_at(Cpu *c, uint64_t cycles)
{
    return muldiv64(cycles, tb_hz(c), c->cl->clock->freq_hz) + PPC(c)->tb_offset;
}

/* The first cycle at which the timebase reaches tb. */
static uint64_t cycle_of_tb(Cpu *c, uint64_t tb)
{
    uint64_t raw = tb - PPC(c)->tb_offset;
    uint64_t hz = c->cl->clock->freq_hz, th = tb_hz(c);
    return (uint64_t)(((unsigned __int128)raw * hz + th - 1) / th);
}

static uint32_t dec_value(Cpu *c, uint64_t tb)
{
    return PPC(c)->dec_base - (uint32_t)(tb - PPC(c)->dec_tb);
}

/* Schedule the next 0 -> 1 transition of DEC[0], i.e. DEC counting from 0 to -1: that is
 * (unsigned)DEC + 1 ticks away whatever its sign (a negative DEC first wraps through
 * 0x7fffffff, a 1 -> 0 transition that signals nothing). */
static void dec_arm(Cpu *c, uint64_t tb)
{
    PpcCpu *p = PPC(c);
    vcpu_schedule(c, &p->dec_event, cycle_of_tb(c, tb + (uint64_t)dec_value(c, tb) + 1));
}

/* DEC at power-on: all ones, counting down from TB = 0 (the 74xx hard-reset settings; QEMU's
 * cpu_ppc_tb_reset does the same).  DEC[0] is already 1, so the first decrementer exception
 * comes when it next passes through zero, 2^32 ticks after power-on, unless software writes
 * DEC first (every guest that takes 0x900 does). */
#define DEC_RESET 0xffffffffu

static void dec_fire(Event *ev, void *opaque)
{
    Cpu *c = opaque;
    PPC(c)->dec_pending = true;
    dec_arm(c, tb_at(c, c->cycles));
}

/* Power-on: DEC = DEC_RESET at TB 0, counting.  Not at ppc_reset: a secondary released from
 * the spin table has been counting since power-on too. */
static void dec_power_on(Cpu *c)
{
    PpcCpu *p = PPC(c);
    p->dec_base = DEC_RESET;
    p->dec_tb = tb_at(c, c->cycles);
    dec_arm(c, p->dec_tb);
}

static uint64_t tb_now(Cpu *c)
{
    return tb_at(c, c->cycles);
}

/* ------------------------------------------------------------------ exceptions */

static void ppc_take(Cpu *c, TraceKind kind, unsigned vector, uint32_t ret, uint32_t srr1_bits)
{
    PpcCpu *p = PPC(c);
    uint32_t msr = (uint32_t)vcpu_reg_read(c, UC_PPC_REG_MSR);
    p->srr0 = ret;
    p->srr1 = (msr & SRR1_MSR_BITS) | srr1_bits;
    uint32_t nmsr = (msr & (MSR_IP | MSR_ME)) | (msr & MSR_ILE ? MSR_LE : 0);
    uint32_t target = (msr & MSR_IP ? 0xfff00000u : 0) | vector;
    mpc7450_pmu_set_msr(&p->pmu, nmsr);     /* PR and PMM change: counted so far under the old */
    vcpu_set_user(c, (nmsr & MSR_PR) != 0);
    vcpu_reg_write(c, UC_PPC_REG_MSR, nmsr);
    vcpu_reg_write(c, UC_PPC_REG_PC, target);
    vcpu_exception_taken(c, kind, vector, trace_kinds[kind].name, ret, target, p->srr1);
}

static void ppc_program(Cpu *c, uint32_t pc, uint32_t reason)
{
    ppc_take(c, TK_EXCEPTION, 0x700, pc, reason);
}

/* The supervisor-only instructions of the 7450 (MPC7450 RM appendix A, "privileged"). */
static bool insn_privileged(uint32_t w)
{
    static const uint16_t xo31[] = { OP_31_XOP_MFMSR, OP_31_XOP_MTMSR, OP_31_XOP_MTSR, OP_31_XOP_MTSRIN,
                                     OP_31_XOP_TLBIE, OP_31_XOP_TLBIA, OP_31_XOP_TLBSYNC, OP_31_XOP_MFSR,
                                     OP_31_XOP_MFSRIN, OP_31_XOP_DCBI, OP_31_XOP_TLBLD, OP_31_XOP_TLBLI };
    unsigned op = w >> 26, xo = (w >> 1) & 0x3ff;
    if (op == OP_19)
        return xo == OP_19_XOP_RFI;
    if (op != OP_31)
        return false;
    if (xo == OP_31_XOP_MFSPR || xo == OP_31_XOP_MTSPR)
        return spr_of(w) & SPRN_PRIV_BIT;
    for (size_t i = 0; i < ARRAY_SIZE(xo31); i++)
        if (xo == xo31[i])
            return true;
    return false;
}

/* Why a program exception happened, from the instruction (the engine does not say). */
static uint32_t program_reason(Cpu *c, uint32_t w)
{
    unsigned op = w >> 26, xo = (w >> 1) & 0x3ff;
    if (op == OP_TRAP || (op == OP_31 && xo == OP_31_XOP_TRAP))
        return SRR1_TRAP;                               /* twi, tw */
    bool user = vcpu_reg_read(c, UC_PPC_REG_MSR) & MSR_PR;
    return user && insn_privileged(w) ? SRR1_PRIV : SRR1_ILLEGAL;
}

static bool ppc_ls_decode(Cpu *c, uint32_t w, bool *store, uint32_t *ea, unsigned *len);

/* An alignment exception's DSISR (PEM §6.4.6, table 6-14): bits 15-21 from the opcode (X-form:
 * instruction bits 29-30, 25, 21-24; D-form: 0, 0, bit 5, bits 1-4), rD/rS in 22-26, rA in
 * 27-31.  DAR is the EA (PEM table 6-15). */
static uint32_t alignment_dsisr(uint32_t w)
{
    uint32_t op = (w >> 26) == OP_31 ? ((w >> 1) & 3) << 5 | ((w >> 6) & 1) << 4 | ((w >> 7) & 0xf)
                                     : ((w >> 26) & 1) << 4 | ((w >> 27) & 0xf);
    return op << 10 | ((w >> 21) & 0x1f) << 5 | ((w >> 16) & 0x1f);
}

/* DAR and DSISR for an alignment exception of instruction w (the engine keeps its own, out of
 * reach: the registers the guest reads are pmusim's). */
static void alignment_regs(Cpu *c, uint32_t w)
{
    bool store;
    uint32_t ea = 0;
    unsigned len;
    ppc_ls_decode(c, w, &store, &ea, &len);
    PPC(c)->dar = ea;
    PPC(c)->dsisr = alignment_dsisr(w);
}

static void ppc_intr(Cpu *c, uint32_t intno)
{
    /* The engine reports exceptions with NIP already advanced past the instruction. */
    uint32_t nip = (uint32_t)vcpu_reg_read(c, UC_PPC_REG_PC), pc = nip - 4;
    uint8_t b[4];
    uint32_t w = vcpu_fetch_read(c, pc, b, 4) ? (uint32_t)load_be(b, 4) : 0;
    if (intno == EXCP_SYSCALL) {                        /* sc retires; SRR0 = the next instruction */
        vcpu_retire_upto(c, nip, false);
        ppc_take(c, TK_EXCEPTION, 0xc00, nip, 0);
        return;
    }
    /* Everything else is a fault of the instruction at pc: it does not retire. */
    static const struct { uint32_t intno; uint16_t vector; } faults[] = {
        { EXCP_FPU, 0x800 }, { EXCP_VPU, 0xf20 }, { EXCP_ALIGN, 0x600 }, { EXCP_DSI, 0x300 }, { EXCP_ISI, 0x400 },
    };
    vcpu_retire_upto(c, pc, false);
    for (size_t i = 0; i < ARRAY_SIZE(faults); i++)
        if (faults[i].intno == intno) {
            /* Translation faults come from pmusim's walk (ppc_mmu_fault); the engine's own
             * storage exceptions (none seen) come without DAR and DSISR. */
            if (intno == EXCP_DSI || intno == EXCP_ISI)
                vcpu_diag(c, pc, "mmu-fault", "a storage exception the engine raised itself: DAR/DSISR not reported");
            if (intno == EXCP_ALIGN)
                alignment_regs(c, w);
            ppc_take(c, TK_EXCEPTION, faults[i].vector, pc, 0);
            return;
        }
    /* program exceptions, and anything unexpected, as a program check */
    ppc_program(c, pc, intno == EXCP_PROGRAM ? program_reason(c, w) : SRR1_ILLEGAL);
}

/* A machine check at pc, or the checkstop it is with MSR[ME] = 0. */
static void machine_check(Cpu *c, uint64_t pc)
{
    if (!(vcpu_reg_read(c, UC_PPC_REG_MSR) & MSR_ME)) {
        vcpu_stop(c, CPU_DEAD, "checkstop");
        vcpu_exit(c, EXIT_HUNG, "checkstop");
        return;
    }
    ppc_take(c, TK_EXCEPTION, VEC_MACHINE_CHECK, (uint32_t)pc, 0);
}

/* An access with nothing behind it: a machine check (a checkstop with MSR[ME] = 0). */
static void ppc_mem_fault(Cpu *c, uint64_t addr, bool write, bool fetch)
{
    machine_check(c, c->fault.pc);
}

/* A DSI: DAR = the EA, DSISR the cause (PEM §6.4.3: SRR0 the instruction, SRR1 bits 0-15
 * cleared).  DAR and DSISR are pmusim's (mfspr/mtspr of them are trap sites), so delivery is two
 * stores. */
static void ppc_dsi(Cpu *c, uint32_t pc, uint32_t ea, uint32_t dsisr)
{
    PPC(c)->dar = ea;
    PPC(c)->dsisr = dsisr;
    ppc_take(c, TK_EXCEPTION, VEC_DSI, pc, 0);
}

/* Between runs, when MSR[EE] allows: the external interrupt (the CPU's IRQ pin), the
 * performance monitor (its PMI pin), then the decrementer.  The
 * asynchronous exceptions' priorities (MPC7450 RM §4.2, table 4-3 "Exception priorities": 4
 * external interrupt, 5 performance monitor, 6 decrementer; the same order in MPC7400 UM table 4-3,
 * whose §11.1 says "below the external interrupt and above the decrementer interrupt").  The
 * other stays pending and is taken when the handler re-enables EE.  (QEMU's generic order, which
 * its 74xx models use, takes the decrementer first: the manual wins.) */
/* MSR bits pmusim does not model yet: little-endian mode (LE, and ILE for exception entry).
 * pmusim decodes, counts and traps instructions in big-endian order; under LE the engine would
 * run other instructions than those pmusim decoded.  The bits are cleared, with a diag, as if the
 * implementation had none.  Translation (IR, DR) is modelled: pmusim walks the MMU
 * (cpu/ppc32_paging.c) and decodes code at the physical address the walk gives. */
#define MSR_UNMODELLED (MSR_LE | MSR_ILE)

static uint32_t msr_supported(Cpu *c, uint32_t pc, uint32_t msr)
{
    if (!(msr & MSR_UNMODELLED))
        return msr;
    vcpu_diag(c, pc, "unsupported", "MSR 0x%08" PRIx32 ": LE and ILE are not modelled: cleared", msr);
    return msr & ~(uint32_t)MSR_UNMODELLED;
}

static bool ppc_take_interrupt(Cpu *c)
{
    PpcCpu *p = PPC(c);
    uint32_t msr = (uint32_t)vcpu_reg_read(c, UC_PPC_REG_MSR);
    mpc7450_pmu_set_msr(&p->pmu, msr);      /* after an mtmsr */
    vcpu_set_user(c, (msr & MSR_PR) != 0);
    if (!(msr & MSR_EE))
        return false;
    uint32_t pc = (uint32_t)vcpu_reg_read(c, UC_PPC_REG_PC);
    if (c->pins.irq) {
        c->pins.irq = false;            /* taken: no controller yet to hold the line */
        ppc_take(c, TK_INTERRUPT, VEC_EXTERNAL, pc, 0);
        return true;
    }
    if (c->pins.pmi) {
        mpc7450_pmu_taken(&p->pmu);
        ppc_take(c, TK_INTERRUPT, VEC_PERFMON, pc, 0);
        return true;
    }
    if (p->dec_pending) {
        p->dec_pending = false;
        ppc_take(c, TK_INTERRUPT, VEC_DECREMENTER, pc, 0);
        return true;
    }
    return false;
}

/* ------------------------------------------------------------------ the MMU's registers */

/* An SPR of the MMU's that pmusim keeps: DAR, DSISR, SDR1, the BATs. */
static bool mmu_spr(unsigned spr)
{
    return spr == SPRN_DAR || spr == SPRN_DSISR || spr == SPRN_SDR1 || (spr >= SPRN_IBAT0U && spr <= SPRN_DBAT3L) ||
           (spr >= SPRN_IBAT4U && spr <= SPRN_DBAT7L);
}

/* pmusim's storage of an mmu_spr.  Each range holds IBATnU, IBATnL for its four n, then the
 * DBATs (MPC7450 RM table 2-1). */
static uint32_t *mmu_spr_reg(PpcCpu *p, unsigned spr)
{
    if (spr == SPRN_DAR || spr == SPRN_DSISR || spr == SPRN_SDR1)
        return spr == SPRN_DAR ? &p->dar : spr == SPRN_DSISR ? &p->dsisr : &p->mmu.sdr1;
    bool high = spr >= SPRN_IBAT4U;
    unsigned off = spr - (high ? SPRN_IBAT4U : SPRN_IBAT0U);
    uint32_t(*bat)[2] = off >= 2 * BATS_PER_RANGE ? p->mmu.dbat : p->mmu.ibat;
    off %= 2 * BATS_PER_RANGE;
    return &bat[(high ? BATS_PER_RANGE : 0) + off / 2][off & 1];
}

/* A translation may have changed (a BAT, SDR1, a segment register, HID0[HIGH_BAT_EN], tlbie):
 * the engine's TLB goes.  The code map notices a virtual page that comes back mapped elsewhere
 * at its next fetch fill (cpu/mmu.c). */
static void mmu_changed(Cpu *c)
{
    vcpu_engine_flush_tlb(c);
}

/* mfsr rD, SR and mfsrin rD, rB; mtsr SR, rS and mtsrin rS, rB (SR = rB[0:3]; PEM ch. 8). */
static void sr_move(Cpu *c, uint32_t w, bool write)
{
    PpcCpu *p = PPC(c);
    unsigned xo = (w >> 1) & 0x3ff, rd = (w >> 21) & 0x1f;
    unsigned sr = xo == OP_31_XOP_MFSRIN || xo == OP_31_XOP_MTSRIN ? gpr(c, (w >> 11) & 0x1f) >> 28 : (w >> 16) & 0xf;
    if (!write) {
        set_gpr(c, rd, p->mmu.sr[sr]);
        return;
    }
    p->mmu.sr[sr] = gpr(c, rd);
    mmu_changed(c);
}

/* The registers of a walk now: MSR, and BATs 4-7 only with HID0[HIGH_BAT_EN] (MPC7450 RM
 * §2.1.5.1; the 7450 has no high BATs: model_lacks). */
static const PpcMmuRegs *mmu_regs(Cpu *c)
{
    PpcCpu *p = PPC(c);
    p->mmu.msr = (uint32_t)vcpu_reg_read(c, UC_PPC_REG_MSR);
    p->mmu.nbats = !model_is_7450(c) && (p->hid0 & HID0_HIGH_BAT_EN) ? PPC_BAT_PAIRS : BATS_PER_RANGE;
    return &p->mmu;
}

/* ------------------------------------------------------------------ trapped instructions */

static int ppc_trap_kind(Cpu *c, const cs_insn *insn, const uint8_t *bytes)
{
    uint32_t w = (uint32_t)load_be(bytes, 4);
    unsigned op = w >> 26, xo = (w >> 1) & 0x3ff, spr = spr_of(w);
    if (op == OP_19 && xo == OP_19_XOP_RFI)
        return T_RFI;
    if (op != OP_31)
        return 0;
    switch (xo) {
    case OP_31_XOP_DCBZ:
        return T_DCBZ;
    case OP_31_XOP_MFSR:
    case OP_31_XOP_MFSRIN:
        return T_MFSR;
    case OP_31_XOP_MTSR:
    case OP_31_XOP_MTSRIN:
        return T_MTSR;
    case OP_31_XOP_TLBIE:
        return T_TLBIE;
    case OP_31_XOP_TLBIA:
        return T_TLBIA;
    case OP_31_XOP_MFTB:
        return T_MFTB;
    case OP_31_XOP_MTMSR:
        return T_MTMSR;
    case OP_31_XOP_MFSPR:
        return spr == SPRN_DEC || spr == SPRN_SRR0 || spr == SPRN_SRR1 || spr == SPRN_TBRL || spr == SPRN_TBRU ||
                       spr == SPRN_TBWL || spr == SPRN_TBWU || spr == SPRN_PVR || spr == SPRN_PIR ||
                       mpc7450_pmu_owns(spr) || model_spr(c, spr) || mmu_spr(spr)
                   ? T_MFSPR
                   : 0;
    case OP_31_XOP_MTSPR:
        return spr == SPRN_DEC || spr == SPRN_SRR0 || spr == SPRN_SRR1 || spr == SPRN_TBWL || spr == SPRN_TBWU ||
                       spr == SPRN_TBRL || spr == SPRN_TBRU || spr == SPRN_PVR || spr == SPRN_PIR ||
                       spr == SPRN_HID0 || mpc7450_pmu_owns(spr) || model_spr(c, spr) || mmu_spr(spr)
                   ? T_MTSPR
                   : 0;
    default:
        return 0;
    }
}

static void request_stop_if_deliverable(Cpu *c, uint32_t msr)
{
    if ((msr & MSR_EE) && (PPC(c)->dec_pending || c->pins.pmi || c->pins.irq))
        vcpu_request_stop(c);
}

/* A performance-monitor SPR access, traced; false: the program exception was raised. */
static bool pmu_spr(Cpu *c, uint32_t pc, unsigned spr, unsigned rd, bool write, bool user)
{
    PpcCpu *p = PPC(c);
    uint32_t v = write ? gpr(c, rd) : 0, old = 0;
    if (write)
        mpc7450_pmu_mfspr(&p->pmu, spr, false, &old);     /* for the trace */
    PpcSprResult r = write ? mpc7450_pmu_mtspr(&p->pmu, spr, user, v) : mpc7450_pmu_mfspr(&p->pmu, spr, user, &v);
    uint64_t old64 = old;
    trace_mfspr(c->cl->trace, write ? TK_MTSPR : TK_MFSPR, c->cycles, c->index, pc, spr, mpc7450_pmu_spr_name(spr),
                write ? &old64 : NULL, v, r == SPR_OK ? NULL : r == SPR_PRIVILEGED ? "privileged" : "illegal");
    if (r == SPR_PRIVILEGED || r == SPR_ILLEGAL) {
        vcpu_retire_upto(c, pc, false);          /* it does not complete */
        ppc_program(c, pc, r == SPR_PRIVILEGED ? SRR1_PRIV : SRR1_ILLEGAL);
        return false;
    }
    if (!write)
        set_gpr(c, rd, v);
    return true;
}

/* An SPR of the configured model's own (model_spr); 0, or the program exception's SRR1 reason.
 * The 7450's L3 registers are plain supervisor storage (the engine's 7450 model kept them so; no
 * L3 is modelled).  An SPR the model lacks is an illegal-instruction program exception: the 74xx
 * decode the whole SPR field ("The MPC7400 fully decodes the SPR field of the instruction.  If an
 * undefined SPR is specified, a program exception is taken", MPC7400 UM §4.6.7), privileged first
 * in problem state when the number has the privileged bit (PEM §6.4.7: a privileged-instruction
 * program exception for spr[0] = 1 with MSR[PR] = 1).  The engine's 7450 model, like QEMU, made
 * an undefined SPR a no-op in supervisor state; the SPRs no model has still are (docs/engine.md). */
static uint32_t model_spr_access(Cpu *c, unsigned spr, unsigned rd, bool write, bool user)
{
    PpcCpu *p = PPC(c);
    int slot = l3_slot(c, spr);
    if (user && (slot >= 0 || (spr & SPRN_PRIV_BIT)))
        return SRR1_PRIV;               /* the L3 registers are supervisor-only, 1000-1003 included */
    if (slot < 0)
        return SRR1_ILLEGAL;
    if (write)
        p->l3[slot] = gpr(c, rd);
    else
        set_gpr(c, rd, p->l3[slot]);
    return 0;
}

/* dcbz's exception with the MMU off: the machine check of an access with nothing behind it (a
 * checkstop with MSR[ME] = 0), as ppc_mem_fault. */
static TrapResult dcbz_bus_error(Cpu *c, uint32_t pc, uint32_t line)
{
    vcpu_diag(c, pc, "bus-error", "dcbz of unbacked physical address 0x%08" PRIx32 ": machine check", line);
    if (!(vcpu_reg_read(c, UC_PPC_REG_MSR) & MSR_ME)) {
        vcpu_stop(c, CPU_DEAD, "checkstop");
        vcpu_exit(c, EXIT_HUNG, "checkstop");
        return TRAP_FAULTED;
    }
    ppc_take(c, TK_EXCEPTION, VEC_MACHINE_CHECK, pc, 0);
    return TRAP_FAULTED;
}

/* Zero the data cache block at `line` through pmusim's store paths: RAM (a block holding code goes
 * through the code-write chokepoint, vcpu_mem_write), ROM (ignored, as any store to it), a device
 * window, or nothing. */
static TrapResult dcbz_store(Cpu *c, uint32_t pc, uint32_t line)
{
    static const uint8_t zero[DCACHE_BLOCK];
    RamBlock *b = mem_block(c->mem, line);
    if (b && b->rom) {
        vcpu_diag(c, pc, "rom-write", "dcbz of ROM at 0x%08" PRIx32 " ignored", line);
        return TRAP_DONE;
    }
    if (vcpu_mem_write(c, line, zero, sizeof zero))
        return TRAP_DONE;
    if (!vcpu_engine_maps(c, line, sizeof zero))
        return dcbz_bus_error(c, pc, line);
    /* Real-mode data accesses are cacheable (below), so the hardware establishes a zeroed block
     * that reaches the device when it is cast out; without a data cache model, as every other
     * real-mode store to a device, it reaches the device now. */
    vcpu_diag(c, pc, "dcbz-device", "dcbz of device window 0x%08" PRIx32 ": 32 zero bytes written to the device",
              line);
    if (uc_mem_write(c->uc, line, zero, sizeof zero) != UC_ERR_OK)
        return dcbz_bus_error(c, pc, line);
    return TRAP_DONE;
}

static void mmu_diag(Cpu *c, uint32_t pc, const MmuResult *r, uint32_t ea);

/* dcbz's alignment exception: DAR = EA, DSISR from the instruction (PEM §6.4.6). */
static TrapResult dcbz_alignment(Cpu *c, uint32_t pc, uint32_t w, uint32_t ea)
{
    alignment_regs(c, w);
    PPC(c)->dar = ea;
    ppc_take(c, TK_EXCEPTION, VEC_ALIGNMENT, pc, 0);
    return TRAP_FAULTED;
}

/* dcbz rA, rB zeroes the 32-byte block holding EA = (rA|0) + rB (PEM "dcbz"; MPC7450 RM ch. 3).
 * The engine's helper crashes the host (docs/engine.md), so the engine never runs it.
 * - A disabled or locked data cache (HID0[DCE] = 0 or HID0[DLOCK] = 1) makes it an alignment
 *   exception ("Executing a dcbz instruction to a disabled or locked data cache generates an
 *   alignment exception", MPC7400 UM §3.5.3.3, which the 7450 family keeps; Linux's 32-bit memset
 *   skips its dcbz loop until the caches are on: patch__memset_nocache), with a diag.
 * - With MSR[DR] = 1 EA is translated as a store (BATs, page table: ppc_translate_op, which sets
 *   R and C): a refusal is a DSI (DAR = EA, DSISR with the store bit), and a write-through or
 *   caching-inhibited block or page (W or I) the alignment exception ("dcbz instruction to
 *   write-through or cache-inhibited segment or block", MPC7400 UM table 5-4).  With MSR[DR] = 0
 *   data accesses are caching-allowed, write-back, coherent and guarded (WIMG = 0011, PEM §5.2
 *   real addressing mode). */
static TrapResult ppc_dcbz(Cpu *c, uint32_t pc, uint32_t w)
{
    PpcCpu *p = PPC(c);
    unsigned ra = (w >> 16) & 0x1f, rb = (w >> 11) & 0x1f;
    uint32_t ea = (ra ? gpr(c, ra) : 0) + gpr(c, rb), line = ea & ~(DCACHE_BLOCK - 1);
    if (!(p->hid0 & HID0_DCE) || (p->hid0 & HID0_DLOCK)) {
        vcpu_diag(c, pc, "alignment", "dcbz 0x%08" PRIx32 " with the data cache %s (HID0 0x%08" PRIx32
                  "): alignment exception", ea, p->hid0 & HID0_DCE ? "locked" : "disabled", p->hid0);
        return dcbz_alignment(c, pc, w, ea);
    }
    MmuResult m;
    PpcXlate x;
    if (!vcpu_ppc_walk(c, mmu_regs(c), line, MMU_WRITE, false, &m, &x)) {
        mmu_diag(c, pc, &m, ea);
        if (m.kind == PPC_MMU_MCHECK)
            machine_check(c, pc);
        else
            ppc_dsi(c, pc, ea, (uint32_t)m.syndrome);
        return TRAP_FAULTED;
    }
    if (x.wimg & (PPC_WIMG_W | PPC_WIMG_I))
        return dcbz_alignment(c, pc, w, ea);
    line = (uint32_t)m.pa | (line & (GUEST_PAGE - 1));
    TrapResult r = dcbz_store(c, pc, line);
    if (r == TRAP_DONE)
        vcpu_reg_write(c, UC_PPC_REG_PC, pc + 4);
    return r;
}

static TrapResult ppc_trap(Cpu *c, uint64_t pc64, const TrapSite *t)
{
    PpcCpu *p = PPC(c);
    uint32_t pc = (uint32_t)pc64;
    uint32_t w = (uint32_t)load_be(t->bytes, 4);
    unsigned rd = (w >> 21) & 0x1f, spr = spr_of(w);
    uint32_t msr = (uint32_t)vcpu_reg_read(c, UC_PPC_REG_MSR);
    bool user = msr & MSR_PR;
    uint64_t tb;
    uint32_t why;
    switch (t->kind) {
    case T_DCBZ:
        return ppc_dcbz(c, pc, w);
    case T_MFTB:
        if (spr != SPRN_TBRL && spr != SPRN_TBRU)
            goto illegal;
        tb = tb_at(c, c->cycles);
        set_gpr(c, rd, spr == SPRN_TBRU ? (uint32_t)(tb >> 32) : (uint32_t)tb);
        break;
    case T_MFSPR:
        if (mpc7450_pmu_owns(spr)) {
            if (!pmu_spr(c, pc, spr, rd, false, user))
                return TRAP_FAULTED;
            break;
        }
        if (model_spr(c, spr)) {
            if ((why = model_spr_access(c, spr, rd, false, user)))
                goto program;
            break;
        }
        if (user && spr != SPRN_TBRL && spr != SPRN_TBRU)
            goto privileged;
        if (mmu_spr(spr)) {
            set_gpr(c, rd, *mmu_spr_reg(p, spr));
            break;
        }
        switch (spr) {
        case SPRN_DEC: set_gpr(c, rd, dec_value(c, tb_at(c, c->cycles))); break;
        case SPRN_SRR0: set_gpr(c, rd, p->srr0); break;
        case SPRN_SRR1: set_gpr(c, rd, p->srr1); break;
        case SPRN_TBRL: set_gpr(c, rd, (uint32_t)tb_at(c, c->cycles)); break;
        case SPRN_TBRU: set_gpr(c, rd, (uint32_t)(tb_at(c, c->cycles) >> 32)); break;
        case SPRN_PVR: set_gpr(c, rd, (uint32_t)c->model->id); break;
        case SPRN_PIR: set_gpr(c, rd, p->pir); break;
        case SPRN_TBWL:             /* write-only (the engine would read its own, absent, timebase) */
        case SPRN_TBWU: goto illegal;
        }
        break;
    case T_MTSPR: {
        uint32_t v = gpr(c, rd);
        if (mpc7450_pmu_owns(spr)) {
            vcpu_retire_upto(c, pc, true);       /* takes effect when it completes */
            if (!pmu_spr(c, pc, spr, rd, true, user))
                return TRAP_FAULTED;
            break;
        }
        if (model_spr(c, spr)) {
            if ((why = model_spr_access(c, spr, rd, true, user)))
                goto program;
            break;
        }
        if (user)
            goto privileged;
        if (mmu_spr(spr)) {
            *mmu_spr_reg(p, spr) = v;
            if (spr != SPRN_DAR && spr != SPRN_DSISR)
                mmu_changed(c);
            break;
        }
        switch (spr) {
        case SPRN_DEC:
            tb = tb_at(c, c->cycles);
            p->dec_base = v;
            p->dec_tb = tb;
            dec_arm(c, tb);
            break;
        case SPRN_SRR0: p->srr0 = v; break;
        case SPRN_SRR1: p->srr1 = v; break;
        case SPRN_TBWL:
        case SPRN_TBWU: {
            uint64_t now = tb_at(c, c->cycles), want;
            want = spr == SPRN_TBWL ? (now & ~0xffffffffull) | v : (uint64_t)v << 32 | (uint32_t)now;
            uint64_t dec = dec_value(c, now);
            mpc7450_pmu_tb_write(&p->pmu, true);
            p->tb_offset += want - now;
            p->dec_base = (uint32_t)dec;                /* DEC keeps its value across the TB jump */
            p->dec_tb = want;
            dec_arm(c, want);
            mpc7450_pmu_tb_write(&p->pmu, false);
            break;
        }
        case SPRN_PIR: p->pir = v; break;
        case SPRN_HID0:                                 /* the engine keeps HID0 too */
            if ((p->hid0 ^ v) & HID0_HIGH_BAT_EN)
                mmu_changed(c);
            p->hid0 = v;
            return TRAP_NATIVE;
        default: goto illegal;                          /* TBL/TBU read numbers, PVR: read-only */
        }
        break;
    }
    case T_RFI: {
        if (user)
            goto privileged;
        uint32_t nmsr = msr_supported(c, pc, (msr & ~RFI_MSR_BITS) | (p->srr1 & RFI_MSR_BITS));
        vcpu_retire_upto(c, pc, true);           /* rfi completes in the old state */
        uint64_t to = p->srr0 & ~3u;
        trace_exception_return(c->cl->trace, c->cycles, c->index, pc, &to);
        if (c->cl->watch.context_sync)          /* a context-synchronising instruction */
            c->cl->watch.context_sync(c->cl->watch.opaque, c);
        mpc7450_pmu_set_msr(&p->pmu, nmsr);
        vcpu_set_user(c, (nmsr & MSR_PR) != 0);
        vcpu_reg_write(c, UC_PPC_REG_MSR, nmsr);
        vcpu_reg_write(c, UC_PPC_REG_PC, to);
        request_stop_if_deliverable(c, nmsr);
        return TRAP_DONE;
    }
    case T_MFSR:                                /* mfsr rD, SR; mfsrin rD, rB: SR = rB[0:3] */
    case T_MTSR:                                /* mtsr SR, rS; mtsrin rS, rB */
        if (user)
            goto privileged;
        sr_move(c, w, t->kind == T_MTSR);
        break;
    case T_TLBIE:                               /* the whole engine TLB: a superset of the class */
        if (user)
            goto privileged;
        mmu_changed(c);
        break;
    case T_TLBIA:
        /* Not implemented by the 74xx ("implements all TLB-related instructions except tlbia,
         * which is treated as an illegal instruction", MPC7400 UM §5.1.8; Linux's book3s32
         * _tlbia loops over tlbie), which the engine's E600 executes. */
        goto illegal;
    case T_MTMSR:                               /* emulated: unmodelled bits never reach the engine */
        if (user)
            goto privileged;
        vcpu_reg_write(c, UC_PPC_REG_MSR, msr_supported(c, pc, gpr(c, rd)));
        vcpu_request_stop(c);                    /* PR/PMM/EE: looked at right after it */
        break;
    }
    vcpu_reg_write(c, UC_PPC_REG_PC, pc + 4);
    return TRAP_DONE;
privileged:
    ppc_program(c, pc, SRR1_PRIV);
    return TRAP_FAULTED;
program:
    ppc_program(c, pc, why);
    return TRAP_FAULTED;
illegal:
    ppc_program(c, pc, SRR1_ILLEGAL);
    return TRAP_FAULTED;
}

/* ------------------------------------------------------------------ SPR stubs */

/* A stub is one instruction in its own 8-byte slot of the private page, followed by a branch to
 * itself whose code hook stops the engine.  Each distinct instruction keeps its slot for the
 * CPU's life, so the engine translates it once: rewriting one stub word made it translate the
 * stub again at every SPR move of every checkpoint.  Not a count-limited run either: the engine
 * flushes every translation at the first run without a count after one (docs/engine.md). */
#define STUB_SLOT 8u
#define STUB_SLOTS (GUEST_PAGE / STUB_SLOT)
#define PPC_B_SELF 0x48000000u          /* b . */

static void hook_stub_end(uc_engine *uc, uint64_t pc, uint32_t size, void *opaque)
{
    if (pc & 4)
        uc_emu_stop(uc);
}

/* The slot of a stub instruction, written the first time it is needed.  No translation covers a
 * fresh slot (every translated slot ends at its own branch), so writing one needs no flush. */
static uint64_t stub_slot(PpcCpu *p, uint32_t insn)
{
    for (uint32_t i = 0; i < p->stub_used; i++)
        if (p->stub_insn[i] == insn)
            return STUB_PAGE + i * STUB_SLOT;
    if (p->stub_used == STUB_SLOTS) {   /* more distinct stubs than slots: start over */
        p->stub_used = 0;
        vcpu_engine_forget(&p->c, STUB_PAGE, STUB_PAGE + GUEST_PAGE);
    }
    uint32_t i = p->stub_used++;
    p->stub_insn[i] = insn;
    store_be(p->stub + i * STUB_SLOT, 4, insn);
    store_be(p->stub + i * STUB_SLOT + 4, 4, PPC_B_SELF);
    return STUB_PAGE + i * STUB_SLOT;
}

/* Run one instruction (mfspr/mtspr with r0) on the private page.  Used only for
 * checkpoints.  It runs in a fixed MSR whatever the guest's (supervisor, real addressing,
 * big-endian, no trace, no power saving: MPC7450 RM table 2-11), keeping only ME and IP: with
 * MSR[LE] set the engine would fetch the big-endian stub byte-reversed (MPC7450 RM §3.1.2.2) and
 * the SPR and segment register moves would silently do nothing. */
static uint32_t stub_run(Cpu *c, uint32_t insn, uint32_t r0)
{
    PpcCpu *p = PPC(c);
    uint64_t pc = vcpu_reg_read(c, UC_PPC_REG_PC), msr = vcpu_reg_read(c, UC_PPC_REG_MSR);
    uint32_t old_r0 = gpr(c, 0);
    uint64_t at = stub_slot(p, insn);
    vcpu_reg_write(c, UC_PPC_REG_MSR, msr & (MSR_ME | MSR_IP));
    set_gpr(c, 0, r0);
    vcpu_quiet_run(c, at);
    uint32_t out = gpr(c, 0);
    set_gpr(c, 0, old_r0);
    vcpu_reg_write(c, UC_PPC_REG_MSR, msr);
    vcpu_reg_write(c, UC_PPC_REG_PC, pc);
    return out;
}

static uint32_t spr_field(unsigned spr)
{
    return ((spr & 0x1f) << 16) | ((spr >> 5) << 11);
}

static uint32_t stub_mfspr(Cpu *c, unsigned spr)
{
    return stub_run(c, PPC_INST_MFSPR | spr_field(spr), 0);
}

static void stub_mtspr(Cpu *c, unsigned spr, uint32_t v)
{
    stub_run(c, PPC_INST_MTSPR | spr_field(spr), v);
}

/* The supervisor SPRs of a checkpoint (MPC7450 RM table 2-1): SPRG0-3, DAR, DSISR, SDR1, HID0/1,
 * the BATs, L2CR, ICTC, THRM1-3, MSSCR0, LDSTCR, IABR, DABR, EAR (the performance monitor is
 * pmusim's own: pmu/pmu_mpc7450.c).  DAR, DSISR, SDR1 and the BATs, and the segment registers
 * after them, are pmusim's since the guest MMU (mmu_spr): their slots hold pmusim's values, so
 * the layout did not change; the others are the engine's, moved through the SPR stubs. */
static const uint16_t engine_sprs[] = {
    272, 273, 274, 275, 19, 18, 25, 1008, 1009,
    528, 529, 530, 531, 532, 533, 534, 535, 536, 537, 538, 539, 540, 541, 542, 543,
    560, 561, 562, 563, 564, 565, 566, 567, 568, 569, 570, 571, 572, 573, 574, 575,
    1017, 1019, 1020, 1021, 1022, 1014, 1016, 1010, 1013, 282,
};
/* Added in state version 2: SPRG4-7, which the 7447A, the 7448 and the engine's E600 have (the
 * 7450 does not: model_lacks keeps them at 0 there). */
static const uint16_t engine_sprs_v2[] = { SPRN_SPRG4, SPRN_SPRG4 + 1, SPRN_SPRG4 + 2, SPRN_SPRG7 };

/* The PMU's time-base event source (PMC_SRC_EXT) reads this CPU's time base. */
static uint64_t pmu_tb_now(void *c)
{
    return tb_now(c);
}

static uint64_t pmu_cycle_of_tb(void *c, uint64_t tb)
{
    return cycle_of_tb(c, tb);
}

/* ------------------------------------------------------------------ CpuOps */

static bool ppc_init(Cpu *c, Error *err)
{
    vcpu_port_init(c);                 /* before the models that are handed it */
    PpcCpu *p = PPC(c);
    p->stub = xcalloc(1, GUEST_PAGE);
    if (uc_mem_map_ptr(c->uc, STUB_PAGE, GUEST_PAGE, UC_PROT_READ | UC_PROT_EXEC, p->stub) != UC_ERR_OK)
        return err_set(err, "cpu%d: cannot map the SPR stub page", c->index);
    uc_hook h;
    if (uc_hook_add(c->uc, &h, UC_HOOK_CODE, (void *)hook_stub_end, c, STUB_PAGE, STUB_PAGE + GUEST_PAGE - 1) !=
        UC_ERR_OK)
        return err_set(err, "cpu%d: cannot hook the end of the SPR stub", c->index);
    event_init(&p->dec_event, "decrementer", dec_fire, c);
    /* ppc32 CPUs do not sleep (MSR[POW] is not modelled): a held or dead CPU is one the
     * decrementer cannot wake, so it must not keep a machine of such CPUs alive (mach_hung). */
    p->dec_event.deferrable = true;
    p->pir = (uint32_t)c->hwid;
    mpc7450_pmu_init(&p->pmu, &c->port, vcpu_pin(c, CPU_PIN_PMI), pmu_tb_now, pmu_cycle_of_tb);
    dec_power_on(c);
    return true;
}

static void ppc_destroy(Cpu *c)
{
    evq_remove(&PPC(c)->dec_event);
    free(PPC(c)->stub);
}

static void ppc_reset(Cpu *c, uint64_t entry, uint64_t arg0, uint64_t arg1)
{
    PpcCpu *p = PPC(c);
    for (unsigned i = 0; i < 32; i++)
        set_gpr(c, i, 0);
    set_gpr(c, 3, (uint32_t)arg0);
    set_gpr(c, 6, (uint32_t)arg1);                      /* ePAPR magic on the boot CPU, 0 on secondaries */
    uint64_t ram = 0;
    for (int i = 0; i < c->mem->n; i++)
        if (!c->mem->blk[i].rom)
            ram += c->mem->blk[i].size;
    set_gpr(c, 7, (uint32_t)ram);                       /* initial mapped area: all of RAM, real mode */
    vcpu_reg_write(c, UC_PPC_REG_MSR, MSR_ME);
    vcpu_reg_write(c, UC_PPC_REG_PC, (uint32_t)entry);
    p->pir = (uint32_t)c->hwid;
}

/* ------------------------------------------------------------------ access locator */

/* Effective address and size of a load/store word, from its encoding (PowerPC UISA ch. 3). */
static bool ppc_ls_decode(Cpu *c, uint32_t w, bool *store, uint32_t *ea, unsigned *len)
{
    unsigned op = w >> 26, ra = (w >> 16) & 0x1f, rb = (w >> 11) & 0x1f, rs = (w >> 21) & 0x1f;
    uint32_t base = ra ? gpr(c, ra) : 0;
    if (op >= 32 && op <= 55) {                         /* D-form */
        static const uint8_t sizes[24] = { 4, 4, 1, 1, 4, 4, 1, 1, 2, 2, 2, 2, 2, 2, 0, 0, 4, 4, 8, 8, 4, 4, 8, 8 };
        static const uint8_t st[24] = { 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1 };
        unsigned i = op - 32;
        *store = st[i];
        *ea = base + (uint32_t)(int32_t)(int16_t)(w & 0xffff);
        *len = sizes[i] ? sizes[i] : (32 - rs) * 4;     /* lmw/stmw */
        return true;
    }
    if (op != 31)
        return false;
    unsigned xo = (w >> 1) & 0x3ff;
    static const struct { uint16_t xo; uint8_t len, store; } xf[] = {
        { 23, 4, 0 }, { 55, 4, 0 }, { 87, 1, 0 }, { 119, 1, 0 }, { 279, 2, 0 }, { 311, 2, 0 }, { 343, 2, 0 },
        { 375, 2, 0 }, { 534, 4, 0 }, { 790, 2, 0 }, { 20, 4, 0 }, { 151, 4, 1 }, { 183, 4, 1 }, { 215, 1, 1 },
        { 247, 1, 1 }, { 407, 2, 1 }, { 439, 2, 1 }, { 662, 4, 1 }, { 918, 2, 1 }, { 150, 4, 1 },
        { 535, 4, 0 }, { 567, 4, 0 }, { 599, 8, 0 }, { 631, 8, 0 }, { 663, 4, 1 }, { 695, 4, 1 }, { 727, 8, 1 },
        { 759, 8, 1 }, { 1014, 32, 1 },
    };
    for (size_t i = 0; i < ARRAY_SIZE(xf); i++)
        if (xf[i].xo == xo) {
            *store = xf[i].store;
            *ea = base + gpr(c, rb);
            *len = xf[i].len;
            return true;
        }
    return false;
}

/* CpuOps.each_access: the one access a load or store makes (EA and length from its encoding). */
static bool ppc_each_access(Cpu *c, const cs_insn *insn, AccessKind kind, AccessVisit fn, void *ctx)
{
    if (kind != ACC_READ && kind != ACC_WRITE)
        return false;
    bool store;
    uint32_t ea;
    unsigned len;
    if (!ppc_ls_decode(c, (uint32_t)load_be(insn->bytes, 4), &store, &ea, &len) || store != (kind == ACC_WRITE))
        return false;
    if (len == DCACHE_BLOCK)
        ea &= ~(DCACHE_BLOCK - 1);                      /* dcbz: the cache block */
    return fn(c, ctx, ea, len);
}

static bool ppc_insn_accesses(Cpu *c, const cs_insn *insn, AccessKind kind, uint64_t addr, unsigned size)
{
    return vcpu_insn_accesses(c, insn, kind, addr, size);
}

/* ------------------------------------------------------------------ the guest MMU */

static bool same_mode_ir_dr(uint32_t msr)
{
    return !(msr & MSR_IR) == !(msr & MSR_DR);
}

/* CpuOps.translate: an access at the CPU's privilege (MSR[PR]) through the BATs and the page
 * table (cpu/ppc32_paging.c).  The engine keeps one TLB entry per page and MMU index, and its
 * index is the same for fetches and data when MSR[IR] = MSR[DR] (QEMU's hreg_compute_mem_idx):
 * the entry then carries the other kind's rights too, but only where the other walk (IBATs for
 * data, DBATs for fetches) reaches the same physical page. */
static bool ppc_translate_op(Cpu *c, uint64_t va, MmuAccess acc, bool probe, MmuResult *r)
{
    const PpcMmuRegs *g = mmu_regs(c);
    if (!vcpu_ppc_walk(c, g, (uint32_t)va, acc, probe, r, NULL))
        return false;
    uint32_t own = acc == MMU_FETCH ? UC_PROT_EXEC : UC_PROT_READ | UC_PROT_WRITE;
    MmuResult o;
    r->perms &= own;
    if (same_mode_ir_dr(g->msr) && vcpu_ppc_walk(c, g, (uint32_t)va, acc == MMU_FETCH ? MMU_READ : MMU_FETCH, true, &o, NULL) &&
        o.pa == r->pa)
        r->perms |= o.perms & ~own;
    return true;
}

/* The segment register or page table entry a refused translation names, for a diag. */
static void mmu_diag(Cpu *c, uint32_t pc, const MmuResult *r, uint32_t ea)
{
    if (r->kind == PPC_MMU_MCHECK)
        vcpu_diag(c, pc, "page-table", "the page table search for 0x%08" PRIx32 " read nothing at physical 0x%08"
                  PRIx64 " (SDR1 0x%08" PRIx32 ", the table is outside RAM): machine check", ea, r->entry_pa,
                  PPC(c)->mmu.sdr1);
    else if (r->level == PPC_BY_SEGMENT && (r->entry & 0x80000000u))
        vcpu_diag(c, pc, "page-table", "direct-store segment: SR%u = 0x%08" PRIx64 " (T = 1) mapping 0x%08" PRIx32
                  ", which the 7450 family does not support: %s", (unsigned)r->entry_pa, r->entry, ea,
                  r->kind == PPC_MMU_DSI ? "DSI" : "ISI");
}

/* CpuOps.mmu_fault: the instruction at the PC faulted in the walk: a DSI with DAR = the first byte
 * of its access on the page (PEM §6.4.3) and the DSISR, an ISI with SRR0 = the instruction and
 * the SRR1 bits (PEM §6.4.4), or the machine check of a table search with nothing behind it. */
static void ppc_mmu_fault(Cpu *c, const MmuResult *r)
{
    uint32_t pc = (uint32_t)vcpu_reg_read(c, UC_PPC_REG_PC);
    uint32_t ea = (uint32_t)vcpu_fault_address(c, pc, r, r->acc == MMU_FETCH ? "SRR0" : "DAR");
    mmu_diag(c, pc, r, ea);
    if (r->kind == PPC_MMU_MCHECK)
        machine_check(c, pc);
    else if (r->kind == PPC_MMU_ISI)
        ppc_take(c, TK_EXCEPTION, VEC_ISI, ea, (uint32_t)r->syndrome);
    else
        ppc_dsi(c, pc, ea, (uint32_t)r->syndrome);
}

static uint64_t ppc_get_pc(Cpu *c)
{
    return vcpu_reg_read(c, UC_PPC_REG_PC);
}

static void ppc_set_pc(Cpu *c, uint64_t pc)
{
    vcpu_reg_write(c, UC_PPC_REG_PC, (uint32_t)pc);
}

/* ------------------------------------------------------------------ checkpoints */

static const int ppc_saved_regs[] = { UC_PPC_REG_PC,  UC_PPC_REG_LR, UC_PPC_REG_CTR,
                                      UC_PPC_REG_XER, UC_PPC_REG_CR, UC_PPC_REG_FPSCR };

/* Raise when a field is added (base/state.h).  2: SPRG4-7 (engine_sprs_v2) and the 7450's L3
 * SPRs (l3). */
#define PPC_STATE_VERSION 2u

static const StateField ppc_fields[] = {
    STATE_FIELD(PpcCpu, srr0),
    STATE_FIELD(PpcCpu, srr1),
    STATE_FIELD(PpcCpu, tb_offset),
    STATE_FIELD(PpcCpu, dec_base),
    STATE_FIELD(PpcCpu, dec_tb),
    STATE_BOOL(PpcCpu, dec_pending),
    STATE_FIELD(PpcCpu, pir),
    STATE_ARRAY_V(PpcCpu, l3, 2),
};

static void ppc_save(Cpu *c, Blob *b)
{
    PpcCpu *p = PPC(c);
    size_t at = blob_begin(b, "ppc32", PPC_STATE_VERSION);
    for (unsigned i = 0; i < 32; i++)
        blob_u32(b, gpr(c, i));
    for (size_t i = 0; i < ARRAY_SIZE(ppc_saved_regs); i++)
        blob_u64(b, vcpu_reg_read(c, ppc_saved_regs[i]));
    for (int i = 0; i < 32; i++) {
        uint64_t f = 0;
        uc_reg_read(c->uc, UC_PPC_REG_FPR0 + i, &f);
        blob_u64(b, f);
    }
    for (size_t i = 0; i < ARRAY_SIZE(engine_sprs); i++)
        blob_u32(b, mmu_spr(engine_sprs[i]) ? *mmu_spr_reg(p, engine_sprs[i]) : stub_mfspr(c, engine_sprs[i]));
    for (size_t i = 0; i < ARRAY_SIZE(engine_sprs_v2); i++)
        blob_u32(b, stub_mfspr(c, engine_sprs_v2[i]));
    for (unsigned sr = 0; sr < 16; sr++)
        blob_u32(b, p->mmu.sr[sr]);
    blob_u64(b, vcpu_reg_read(c, UC_PPC_REG_MSR));       /* last: it may switch the MMU on */
    blob_fields(b, p, ppc_fields, ARRAY_SIZE(ppc_fields));
    blob_event(b, &p->dec_event);
    mpc7450_pmu_save(&p->pmu, b);
    blob_end(b, at);
}

static bool ppc_load(Cpu *c, BlobReader *r)
{
    PpcCpu *p = PPC(c);
    BrOuter outer;
    if (!br_begin(r, &outer, "ppc32", PPC_STATE_VERSION))
        return false;
    uint32_t g[32];
    for (unsigned i = 0; i < 32; i++)
        g[i] = br_u32(r);
    uint64_t rv[ARRAY_SIZE(ppc_saved_regs)];
    for (size_t i = 0; i < ARRAY_SIZE(ppc_saved_regs); i++)
        rv[i] = br_u64(r);
    for (int i = 0; i < 32; i++) {
        uint64_t f = br_u64(r);
        uc_reg_write(c->uc, UC_PPC_REG_FPR0 + i, &f);
    }
    for (size_t i = 0; i < ARRAY_SIZE(engine_sprs); i++) {
        uint32_t v = br_u32(r);
        if (mmu_spr(engine_sprs[i]))
            *mmu_spr_reg(p, engine_sprs[i]) = v;
        else
            stub_mtspr(c, engine_sprs[i], v);
        if (engine_sprs[i] == SPRN_HID0)
            p->hid0 = v;                                /* dcbz's view of it */
    }
    for (size_t i = 0; i < ARRAY_SIZE(engine_sprs_v2) && r->version >= 2; i++)
        stub_mtspr(c, engine_sprs_v2[i], br_u32(r));
    for (unsigned sr = 0; sr < 16; sr++)
        p->mmu.sr[sr] = br_u32(r);
    mmu_changed(c);             /* a machine restored over its own earlier state (fuzzing) */
    uint64_t msr = br_u64(r);
    if (!r->ok)
        return false;
    if (msr > UINT32_MAX || (msr & MSR_UNMODELLED)) {
        r->off -= 8;                /* a state no run reaches: mtmsr and rfi clear these bits */
        return br_fail(r, "MSR (LE or ILE set: not modelled)");
    }
    for (unsigned i = 0; i < 32; i++)
        set_gpr(c, i, g[i]);
    for (size_t i = 0; i < ARRAY_SIZE(ppc_saved_regs); i++)
        vcpu_reg_write(c, ppc_saved_regs[i], rv[i]);
    vcpu_reg_write(c, UC_PPC_REG_MSR, msr);
    br_fields(r, p, ppc_fields, ARRAY_SIZE(ppc_fields));
    br_event(r, &p->dec_event, &c->events);
    mpc7450_pmu_load(&p->pmu, r);
    return br_end(r, &outer);
}

static int ppc_pmu_readings(Cpu *c, PmcReading *out, int max)
{
    return mpc7450_pmu_readings(&PPC(c)->pmu, out, max);
}

const CpuOps vcpu_ppc32_ops = {
    .arch = ARCH_PPC32,
    .size = sizeof(PpcCpu),
    .uc_arch = UC_ARCH_PPC,
    .uc_mode = UC_MODE_PPC32 | UC_MODE_BIG_ENDIAN,
    .cs_arch = CS_ARCH_PPC,
    .cs_mode = CS_MODE_32 | CS_MODE_BIG_ENDIAN,
    .init = ppc_init,
    .reset = ppc_reset,
    .trap_kind = ppc_trap_kind,
    .trap = ppc_trap,
    .intr = ppc_intr,
    .insn_accesses = ppc_insn_accesses,
    .each_access = ppc_each_access,
    .mem_fault = ppc_mem_fault,
    .translate = ppc_translate_op,
    .mmu_fault = ppc_mmu_fault,
    .take_interrupt = ppc_take_interrupt,
    .get_pc = ppc_get_pc,
    .set_pc = ppc_set_pc,
    .save = ppc_save,
    .load = ppc_load,
    .destroy = ppc_destroy,
    .pmu_readings = ppc_pmu_readings,
};
