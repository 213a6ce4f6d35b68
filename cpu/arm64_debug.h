/* arm64_debug.h — AArch64 self-hosted debug (Arm ARM DDI 0487, chapter D2): one CPU's
 * breakpoints, watchpoints, software step and OS Lock, owned by pmusim.  The engine's own debug
 * registers are never written: a write that arms a breakpoint makes it flush every translation
 * from inside the running block, and it crashes (docs/engine.md, "Debug registers").
 *
 * The arm64 backend (arm64.c) hands this model the MRS/MSR of its registers and asks it at the
 * points where a debug exception can arise; the model decides, and performs the exception
 * through the backend's entry (`take`, given at init: the model never calls the backend):
 *
 *   breakpoints   an instruction at an armed address is a trap site (a64dbg_bp_site); before it
 *                 runs, a64dbg_breakpoint takes the Breakpoint exception if one matches;
 *   watchpoints   a page holding watched bytes gets no data permission in the engine's TLB
 *                 (a64dbg_fill), so its first access stops the engine at the instruction, before
 *                 the access; a64dbg_watch_fault takes the Watchpoint exception if a watchpoint
 *                 matches the instruction's accesses, else lets that one instruction through;
 *   software step PSTATE.SS is the model's: an ERET (a64dbg_eret) may make the step active, an
 *                 instruction event then ends the run after the one stepped instruction and takes
 *                 the Software Step exception; every exception entry saves PSTATE.SS in SPSR_EL1
 *                 (a64dbg_entry);
 *   check points  an instruction that may enable debug exceptions (MSR DAIF, MSR of the debug
 *                 registers, CONTEXTIDR_EL1) calls a64dbg_sync: a step that is now pending, or an
 *                 unlinked context breakpoint that now matches, is taken before the next one.
 */
#ifndef PMUSIM_ARM64_DEBUG_H
#define PMUSIM_ARM64_DEBUG_H

#include "base/state.h"
#include "cpu/cpu.h"
#include "pmu/pmu_armv8.h"

/* The Cortex-A53, A57 and A72 implement 6 breakpoints, the last 2 context-aware, and 4
 * watchpoints (their TRMs, "ID_AA64DFR0_EL1"). */
#define A64DBG_BRPS 6
#define A64DBG_WRPS 4
#define A64DBG_CTX_CMPS 2

/* The OS save/restore registers of the external debug state: OSDTRRX_EL1, OSDTRTX_EL1, OSECCR_EL1 */
enum { OS_DTRRX, OS_DTRTX, OS_ECCR, A64DBG_OS_SAVE };

/* MmuResult.kind of a data access refused because its page holds watched bytes (not an FSC). */
#define A64DBG_WATCH_FILL 0x100
/* PSTATE.SS and SPSR_EL1.SS, bit 21: the engine's PSTATE never holds it (the model's does) */
#define A64DBG_PSTATE_SS (1u << 21)

/* The backend's synchronous exception entry to EL1: preferred return address, ESR_EL1.EC and
 * ISS, FAR_EL1 when far_valid. */
typedef void (*A64DebugTake)(Cpu *c, uint64_t ret, unsigned ec, uint32_t iss, bool far_valid, uint64_t far);

typedef struct A64Debug {
    Cpu *cpu;
    A64DebugTake take;
    /* the registers (reset values: a64dbg_reset) */
    uint64_t mdscr;                         /* MDSCR_EL1 */
    uint64_t bvr[A64DBG_BRPS], bcr[A64DBG_BRPS];
    uint64_t wvr[A64DBG_WRPS], wcr[A64DBG_WRPS];
    uint64_t mdccint;                       /* MDCCINT_EL1: the DCC interrupt enables (no DCC) */
    bool oslk;                              /* OSLSR_EL1.OSLK, the OS Lock: set by a reset */
    bool dlk;                               /* OSDLR_EL1.DLK, the OS Double Lock */
    bool corenpdrq;                         /* DBGPRCR_EL1.CORENPDRQ */
    uint8_t claim;                          /* DBGCLAIMSET_EL1 / DBGCLAIMCLR_EL1 tags */
    uint32_t os_save[A64DBG_OS_SAVE];       /* OSDTRRX_EL1, OSDTRTX_EL1, OSECCR_EL1 */
    /* derived from the registers (a64dbg_rearm) */
    uint8_t bp_sites;                       /* address breakpoints with E set: trap sites */
    uint64_t site_va[A64DBG_BRPS];          /* ... at these addresses */
    uint8_t bp_ctx;                         /* unlinked context breakpoints with E set */
    uint8_t wp_armed;                       /* watchpoints with E set: their pages are refused */
    /* software step: PSTATE.SS is 1 while ss_on and fewer than ss_until have retired */
    Event due;                              /* a debug exception may be due before the next insn */
    bool ss_on;                             /* step active (not pending, then pending) */
    uint64_t ss_until;                      /* retired count at which the step is pending */
    bool ss_isv;                            /* an instruction was stepped: ESR_EL1.ISS.ISV */
    uint64_t ss_pc;                         /* the stepped instruction (ISS.EX: a load-exclusive) */
    /* a data access to a watched page that no watchpoint matched: the instruction runs alone */
    Event pass;
    bool passing;
} A64Debug;

/* A new CPU's debug state (cold reset), with its entry.  a64dbg_reset: a reset (power on). */
void a64dbg_init(A64Debug *d, Cpu *c, A64DebugTake take);
void a64dbg_reset(A64Debug *d);

/* The system registers of the model (op0 2, and ID_AA64DFR0_EL1, CONTEXTIDR_EL1's write) */
bool a64dbg_owns(unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2);
/* Is the access UNDEFINED at EL1 (a write of a read-only register, a read of a write-only one)? */
bool a64dbg_undefined(unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2, bool write);
/* EL1 read (no side effects) and write of an owned register; false: UNDEFINED.  A write is done
 * at the MSR's trap site, pc: it may arm a breakpoint or make a debug exception due. */
bool a64dbg_read(A64Debug *d, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2, uint64_t *v);
bool a64dbg_write(A64Debug *d, uint64_t pc, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2,
                  uint64_t v);
/* An access from EL0: MDCCSR_EL0 as MDSCR_EL1.TDCC allows, the others UNDEFINED. */
ArmEl0Access a64dbg_el0_access(const A64Debug *d, unsigned op0, unsigned op1, unsigned crn, unsigned crm,
                               unsigned op2, bool write);

/* Is the instruction at va a breakpoint's trap site (an address breakpoint with E set)? */
bool a64dbg_bp_site(const A64Debug *d, uint64_t va);
/* Before the instruction at pc runs (its trap site, or the engine's UNDEFINED for a word Capstone
 * cannot decode): take the Breakpoint exception if a breakpoint matches; true if taken. */
bool a64dbg_breakpoint(A64Debug *d, uint64_t pc);

/* CpuOps.translate's last word on a translation r of va the walk granted: a page holding
 * watched bytes gets no data permission; a data access there (not a probe) is refused (false,
 * r->kind = A64DBG_WATCH_FILL).  Costs nothing while no watchpoint has E set. */
bool a64dbg_fill(A64Debug *d, uint64_t va, MmuAccess acc, bool probe, MmuResult *r);
/* The refused access (to the guest page at `page`) of the instruction at pc, not retired: the
 * Watchpoint exception, or the instruction is let through alone. */
void a64dbg_watch_fault(A64Debug *d, uint64_t pc, uint64_t page);

/* The ERET at pc (its trap site), returning with spsr to the EL and PSTATE.D the SPSR holds (or
 * staying at the current EL: illegal): PSTATE.SS after it (DebugExceptionReturnSS), and the step
 * it starts.  true: a debug exception is due before the first instruction there. */
bool a64dbg_eret(A64Debug *d, uint64_t pc, uint64_t spsr, bool illegal);
/* The instruction at pc (its trap site) has changed what enables debug exceptions (MSR DAIF):
 * a step now pending or a context breakpoint now matching is taken before the next one. */
void a64dbg_sync(A64Debug *d, uint64_t pc);
/* An exception entry whose preferred return is ret: PSTATE.SS, for SPSR_EL1.SS (0 or 1); the
 * step and a watchpoint pass end there. */
uint64_t a64dbg_entry(A64Debug *d, uint64_t ret);

/* Checkpoints: the section "arm64-debug" (inside the arm64 backend's). */
void a64dbg_save(const A64Debug *d, Blob *b);
bool a64dbg_load(A64Debug *d, BlobReader *r);

#endif
