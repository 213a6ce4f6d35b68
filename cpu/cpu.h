/* cpu.h — one simulated CPU: a Unicorn engine over the shared guest RAM, exact instruction and
 * cycle accounting, and the architecture backend behind CpuOps.
 *
 * Accounting.  A UC_HOOK_BLOCK callback runs at the start of every translated block.  It looks
 * the block up in a direct-mapped cache (blockcache.h: instruction count, cycle cost and
 * per-instruction offsets/costs, decoded once with Capstone) and adds the whole block to
 * `insns` and `cycles` before the block executes.  That is the only per-block work on the
 * common path: one lookup, two compares, two adds.
 *
 * Limits.  A run has a soft cycle limit (the end of the scheduling quantum: stop at the first
 * block boundary at or after it) and hard limits (the next event, in cycles or instructions, and
 * --max-insns: stop exactly there).  When a block would cross a hard limit the block hook stops
 * the engine before the block runs and cpu.c "cuts": it re-runs just that block under a
 * UC_HOOK_CODE hook limited to the block's range that counts instructions one by one and stops
 * precisely after the k-th — so events land on their exact instruction with no per-instruction
 * hook on the common path.
 *
 * Mid-block stops.  When execution leaves a block early — a trapped instruction emulated by the
 * backend, an exception raised by the engine — the instructions of the block that did not run
 * are taken back (vcpu_retire_upto), using the per-instruction table of the current block.
 *
 * Trap sites.  Instructions the engine gets wrong or makes nondeterministic (rdtsc, rdmsr,
 * mftb, ...) are found by the backend while a block is decoded; each gets a one-address
 * UC_HOOK_CODE hook, and the block is retranslated before it first runs, so a trapped
 * instruction never executes natively.
 */
#ifndef PMUSIM_CPU_H
#define PMUSIM_CPU_H

#include <capstone/capstone.h>
#include <unicorn/unicorn.h>

#include "base/clock.h"
#include "base/common.h"
#include "base/cpuport.h"
#include "base/irq.h"
#include "base/mem.h"
#include "base/trace_events.h"
#include "cpu/blockcache.h"
#include "cpu/cluster.h"
#include "cpu/cycle_model.h"
#include "cpu/trapsite.h"
#include "pmu/pmc.h"

typedef struct Cpu Cpu;
typedef struct Blob Blob;
typedef struct BlobReader BlobReader;
typedef struct PmcReading PmcReading;

/* A CPU model selectable with --cpu-model. */
typedef struct CpuModel {
    const char *name;           /* "cortex-a57" */
    Arch arch;
    const char *compatible;     /* cpu node compatible, "arm,cortex-a57" */
    int uc_model;               /* Unicorn CPU model */
    uint64_t id;                /* MIDR_EL1 / PVR / CPUID.1:EAX */
    uint8_t pmu_idcode;         /* arm64: PMCR_EL0.IDCODE */
    /* x86: architectural PMU (CPUID leaf 0xA): version, general-purpose counters and width,
     * fixed counters and width */
    uint8_t pmu_version, pmu_gp, pmu_gp_width, pmu_fixed, pmu_fixed_width;
} CpuModel;

const CpuModel *vcpu_model_find(Arch arch, const char *name_or_compatible);
const CpuModel *vcpu_model_default(Arch arch);
/* Comma-separated list of model names for an architecture, for messages. */
const char *vcpu_model_list(Arch arch);

typedef enum CpuState {
    CPU_OFF,        /* held before release / after PSCI CPU_OFF: executes nothing */
    CPU_RUNNING,
    CPU_HALTED,     /* hlt / wfi: sleeps until an interrupt it can take */
    CPU_DEAD,       /* triple fault, checkstop: never runs again */
} CpuState;

/* Why the engine returned to vcpu_run's loop. */
typedef enum StopKind {
    STOP_NONE,
    STOP_BOUNDARY,      /* at a block boundary (quantum end, requested stop); PC = stop_pc */
    STOP_CUT,           /* a hard limit falls inside the block at stop_pc: run part of it */
    STOP_RETRANSLATE,   /* new trap sites in the block at stop_pc: run it again */
    STOP_PRECISE,       /* stopped by a code hook: PC is exact */
} StopKind;


/* A code hook over the bytes of a block Capstone cannot decode (x86): there the engine's own
 * instruction boundaries are counted (cpu.c: hook_tail).  One per distinct range. */
typedef struct TailHook {
    uint64_t start, end;            /* [start, end) */
    uc_hook hook;
} TailHook;

/* The kind of access the access locator looks for. */
typedef enum AccessKind { ACC_READ, ACC_WRITE, ACC_IN, ACC_OUT } AccessKind;

/* One memory access an instruction makes (CpuOps.each_access): its virtual address and length;
 * true stops the enumeration. */
typedef bool (*AccessVisit)(Cpu *c, void *ctx, uint64_t ea, uint64_t len);

/* Trap kinds the core owns (backends' kinds are below). */
#define TRAP_KIND_ICACHE 0x8000     /* --icache=strict: a stale word or a maintenance instruction */

/* The guest MMU, when pmusim owns it (CpuOps.translate; mmu.c, docs/engine.md "The guest MMU"). */
typedef enum MmuAccess { MMU_READ, MMU_WRITE, MMU_FETCH } MmuAccess;

/* What a backend's page walk found: a translation for the engine's TLB, or the fault the
 * architecture raises, described for the backend's mmu_fault. */
typedef struct MmuResult {
    uint64_t pa;                    /* the page's physical address (page-aligned) */
    uint32_t perms;                 /* UC_PROT_*: what the engine may do through the entry */
    MmuAccess acc;                  /* the access that faulted */
    uint64_t va;                    /* its page (the exact address is the backend's to find) */
    uint64_t syndrome;              /* x86 #PF error code, ESR_EL1, DSISR */
    uint64_t entry, entry_pa;       /* the table entry that decided it, and where it is */
    int level;                      /* the walk level that decided it */
    int kind;                       /* the backend's exception for it */
} MmuResult;

/* Virtual code pages a CPU has fetched from, and their physical pages (fills of its engine's
 * TLB for instruction fetches): pmusim decodes the bytes the CPU fetched, and a code write to a
 * physical page drops the translations under every virtual page that maps it. */
typedef struct CodeMapSlot {
    uint64_t vpage, ppage;          /* vpage UINT64_MAX: free */
} CodeMapSlot;
typedef struct AliasList {
    uint64_t ppage;                 /* UINT64_MAX: free */
    uint64_t *vpages;               /* every virtual page seen mapping it (some may be stale) */
    uint32_t n, cap;
} AliasList;
typedef struct CpuMmu {
    bool own;                       /* pmusim walks the page tables (ops->translate) */
    bool fault_pending;             /* a TLB fill failed: fault describes it */
    bool invalidating;              /* uc_ctl_remove_cache is running: fills only probe */
    bool stale_fill;                /* ... and entered a translation the guest does not have */
    bool flush_due;                 /* another CPU's broadcast TLBI: flush before the next use */
    MmuResult fault;
    CodeMapSlot *fwd;               /* by vpage */
    AliasList *rev;                 /* by ppage */
    uint32_t cap, n;                /* both tables' capacity (a power of two) and use */
    uint8_t *buf;                   /* a block's bytes when they span two pages */
    uint64_t shadow;                /* the code-write window's base (mmu.c) */
    struct CodeShadow *shadows;     /* its regions, one per RAM block */
} CpuMmu;

/* What a backend's trap handler did. */
typedef enum TrapResult {
    TRAP_NATIVE,        /* let the engine execute the instruction itself */
    TRAP_DONE,          /* emulated and retired; the handler set the next PC */
    TRAP_FAULTED,       /* raised an exception instead; the handler performed the entry */
} TrapResult;

typedef struct CpuOps {
    Arch arch;
    size_t size;                                        /* sizeof the backend struct */
    uc_arch uc_arch;
    int uc_mode;
    cs_arch cs_arch;
    int cs_mode;
    /* Arch-specific engine setup after RAM and devices are mapped: hooks, fixed registers. */
    bool (*init)(Cpu *c, Error *err);
    /* Entry state (docs/guest-abi.md); arg0/arg1 are the first two argument registers. */
    void (*reset)(Cpu *c, uint64_t entry, uint64_t arg0, uint64_t arg1);
    /* Is the decoded instruction a trap site?  0 = no, else a backend kind. */
    int (*trap_kind)(Cpu *c, const cs_insn *insn, const uint8_t *bytes);
    /* Emulate a trap site (called before it executes, from the engine's hook). */
    TrapResult (*trap)(Cpu *c, uint64_t pc, const TrapSite *site);
    /* An exception the engine raised (UC_HOOK_INTR): account and perform the entry. */
    void (*intr)(Cpu *c, uint32_t intno);
    /* Does this instruction, with the current registers, make the access (access locator)? */
    bool (*insn_accesses)(Cpu *c, const cs_insn *insn, AccessKind kind, uint64_t addr, unsigned size);
    /* Optional (with translate): the instruction's memory accesses of a kind (read or write),
     * from its operands and the current registers (vcpu_insn_accesses, vcpu_fault_address). */
    bool (*each_access)(Cpu *c, const cs_insn *insn, AccessKind kind, AccessVisit fn, void *ctx);
    /* The engine stopped on an access to unmapped memory at c->fault.pc (already retired up to
     * it and reported): deliver the architecture's fault. */
    void (*mem_fault)(Cpu *c, uint64_t addr, bool write, bool fetch);
    /* x86: the Capstone mode of the code the CPU executes now (NULL: always cs_mode). */
    int (*decode_mode)(Cpu *c);
    /* Optional: pmusim's guest MMU (NULL: the engine's own).  Translate va for an access at the
     * CPU's current privilege: true with r->pa and r->perms; false when the access faults, with
     * the fault described in r.  probe: no side effects (accessed and dirty bits, diags). */
    bool (*translate)(Cpu *c, uint64_t va, MmuAccess acc, bool probe, MmuResult *r);
    /* Deliver the fault translate described; the faulting instruction (at the PC) did not retire. */
    void (*mmu_fault)(Cpu *c, const MmuResult *r);
    /* Between runs: deliver an interrupt that is pending and allowed; true if one was taken. */
    bool (*take_interrupt)(Cpu *c);
    /* Optional (x86): a stalled CPU (CpuStall) spins as `cli; jmp .` would, which an NMI still
     * interrupts: deliver a pending NMI that is not blocked (true if taken); and is the CPU in
     * an NMI handler (until its return)? */
    bool (*nmi_take)(Cpu *c);
    bool (*in_nmi)(Cpu *c);
    uint64_t (*get_pc)(Cpu *c);
    void (*set_pc)(Cpu *c, uint64_t pc);
    /* Checkpoint the architectural state (the engine's registers and the backend's). */
    void (*save)(Cpu *c, Blob *b);
    bool (*load)(Cpu *c, BlobReader *r);
    /* Optional: the part of a restore that reads guest memory (x86: the FS and GS descriptors),
     * once every section, RAM included, is loaded; false with err (naming path) if the state
     * cannot be restored. */
    bool (*load_finish)(Cpu *c, const char *path, Error *err);
    void (*destroy)(Cpu *c);
    /* Optional, for the debugger (cpu/gdb_regs.c): read, without side effects, a register the
     * engine does not hold, by the backend's number for it (arm64: the system-register key of
     * base/a64sysreg.h; ppc32: the SPR number); false if it has none such. */
    bool (*debug_reg)(Cpu *c, uint32_t id, uint64_t *v);
    /* Optional: the PMU's counters now, without changing any state (pmu/pmc.h pmc_peek); returns
     * how many it wrote (at most max). */
    int (*pmu_readings)(Cpu *c, PmcReading *out, int max);
} CpuOps;

/* The limits of the current run. */
typedef struct CpuLimits {
    uint64_t fast;                  /* min(soft, cycles): the block fast path bound */
    uint64_t soft;                  /* quantum end or next lazy event: stop at a block boundary */
    uint64_t cycles;                /* next cycle event not lazy (hard: cut the block) */
    uint64_t insns;                 /* next instruction event or --max-insns (hard) */
} CpuLimits;

/* Why and where the engine was asked to stop. */
typedef struct CpuStopRequest {
    StopKind kind;
    uint64_t pc;
    bool next_block;                /* a hook asked to stop at the next block boundary */
    /* A trap hook emulated the instruction at hand and wrote the PC.  The engine still calls the
     * instruction's other code hooks (Unicorn 2.1: a PC write ends the block but, unlike
     * uc_emu_stop, not the hook loop; docs/engine.md), which must ignore it; the next block
     * hook clears it. */
    bool redirected;
} CpuStopRequest;

/* A cut: part of one block run under a counting code hook, to stop on an exact instruction. */
typedef struct CpuCut {
    bool active;
    bool entered;                   /* the cut's block hook has run: a cut is one pass of one block */
    uint64_t start, end;
    uint32_t left;
} CpuCut;

/* Time travel (sim/timetravel.h): stop this CPU exactly at a position: the first point between
 * two of its instructions with `insns` retired and at least `entries` exceptions taken
 * (exc.serialized).  The cut (CpuCut) stops it there exactly.  Inside a block, where a run that
 * does not pause goes on, it pauses at once; where a run stops anyway (an event, the end of a
 * block with a stop requested), after what such a stop does (due events, interrupts).  vcpu_run
 * then returns with `paused`, and the next vcpu_run goes straight on to the engine, as if it had
 * never returned: a stop requested inside the block (an interrupt pin that became active) is
 * kept for the block's end (`keep_stop`), where the run without the pause takes it. */
typedef struct CpuPause {
    bool armed;
    uint64_t insns, entries;
    bool paused;                    /* vcpu_run returned at the target: resume at the engine */
    bool keep_stop;                 /* a stop request pending at a pause inside a block */
} CpuPause;

/* --samples: every block through the slow path, profiled. */
typedef struct CpuProfiling {
    bool on;
    bool window;                    /* a sampling counter is counting (vcpu_profile_window) */
    uint32_t from;                  /* instructions of blk already in the profile */
} CpuProfiling;

/* `pmusim stat`: the PMU's event sources (pmu/pmc.h: cycles, instructions, branches, loads ...)
 * counted at user and kernel level apart, from outside the guest.  The backends tell the CPU
 * core of every change of privilege at the points where they tell the PMU (x86 CPL, arm64 EL,
 * ppc32 MSR[PR]: vcpu_set_user), so a stretch between two changes ran at one level and the
 * split agrees with the guest's own PMU filters (x86 USR/OS, PMEVTYPER's U/P, MMCR0 FCP/FCS).
 * Nothing is done per block: the cost is one fold of the sources per change of level. */
typedef struct CpuPrivSplit {
    bool on;
    bool user;                      /* the level the CPU runs at now */
    bool branches, mem;             /* keep branch / load-store tracking on (the slow path) */
    uint64_t at[PMC_SRC_COUNT];     /* the sources at the last change */
    uint64_t user_sum[PMC_SRC_COUNT];   /* counted at user level before it */
} CpuPrivSplit;


/* Fault injection (--inject stall, sim/inject.h; docs/debugging.md, "Fault injection"): from
 * the first instruction boundary at or after a stall's cycle (the CPU's own clock: the start is
 * a hard cycle limit of its runs, as an event is) the CPU executes nothing more and takes no
 * interrupt, as one stuck with every interrupt masked (arm64 PSTATE.DAIF = 0b1111: IRQ, FIQ and
 * the GIC's pseudo-NMI; x86 `cli; jmp .`: IF = 0, but an NMI is taken, its handler runs and its
 * IRET returns into the stall (CpuOps.nmi_take); the pins stay as the controllers
 * drive them, so what was pending is taken when a stall with an end resumes.  Its clock goes on
 * with the others' and the time is busy (not idle_cycles): a PMU counting cycles counts it; no
 * instruction retires (the model is an instruction that does not complete: the PC stays at
 * it).  A CPU off at the stall's cycle stalls when it first runs after it. */
#define MAX_CPU_STALLS 16
typedef struct CpuStallAt {
    uint64_t cycle, len;            /* from cycle (or when the CPU next runs), len cycles (UINT64_MAX: for ever) */
} CpuStallAt;
typedef struct CpuStall {
    CpuStallAt at[MAX_CPU_STALLS];  /* the run's options, by cycle, not overlapping */
    uint32_t n;
    uint32_t next;                  /* the first not begun (saved) */
    bool active;                    /* stalled now (saved) */
    bool in_nmi;                    /* x86: running the handler of an NMI taken in the stall (saved) */
    uint64_t end;                   /* the active one's end, in the CPU's clock (saved) */
} CpuStall;

/* The interrupt pins (vcpu_pin): a controller sets them, the backend takes them between runs.
 * irq and pmi follow their lines' levels; nmi latches the NMI line's rising edge until taken. */
typedef struct CpuPins {
    bool nmi, irq;
    bool pmi;                       /* not saved: the PMU's state sets it again on a restore */
    bool fiq;
} CpuPins;

/* A start the firmware accepted (PSCI CPU_ON): the CPU starts at its next quantum. */
typedef struct CpuStartRequest {
    bool pending;
    uint64_t entry, arg, at;
} CpuStartRequest;

/* The access locator's cursor (vcpu_access_pc). */
typedef struct CpuLocator {
    const BlockEntry *blk;
    uint64_t gen;                   /* insns before the block when the cursor was set: the execution */
    uint32_t idx;
    AccessKind kind;
    uint64_t last, addr;
    /* While a trap handler emulates an instruction, every access is that instruction's (a
     * ppc32 dcbz zeroing 32 bytes of code is recorded as two 16-byte pieces). */
    bool in_trap;
    uint64_t trap_pc;
    /* The instruction a hook is handling in the middle of a block (vcpu_access_begin .. end) */
    bool active;
    AccessKind cur_kind;
    uint64_t cur_addr;
    unsigned cur_size;
    uint64_t cur_pc;                /* UINT64_MAX: not located yet */
} CpuLocator;

/* An access to unmapped memory (or a fetch from a device window), found by the engine hook and
 * delivered by vcpu_run. */
typedef struct CpuFault {
    bool pending, write, fetch, device;
    uint64_t addr, pc;
} CpuFault;

/* --icount-check: the reference count, one code hook on every instruction. */
typedef struct CpuRefCount {
    uint64_t insns;                 /* instructions seen */
    uint64_t pc;                    /* the last of them */
    uint64_t prev_pc;               /* the one before it */
    bool abandoned;                 /* it faulted instead of retiring (see vcpu_retire_upto) */
} CpuRefCount;

/* Exception and interrupt entries. */
typedef struct CpuExceptions {
    uint64_t insns_at;              /* retired count at the last entry */
    uint64_t serialized;            /* entries taken: each serialises the CPU */
    uint64_t serialized_at;         /* the cycle of the last (the patch validator's text_poke_sync check) */
    unsigned repeats;               /* entries in a row with no instruction retired between */
} CpuExceptions;

/* Common state, first member of every backend struct, by concern. */
struct Cpu {
    /* identity and engine */
    const CpuOps *ops;
    Cluster *cl;                    /* the CPUs it belongs to, and what it sees of the machine */
    GuestMem *mem;                  /* cl->mem: RAM and ROM (guest physical addresses) */
    const CpuDesc *desc;            /* its cpu node */
    int index;                      /* logical CPU number (DT order) */
    uint64_t hwid;                  /* APIC ID / MPIDR / PIR from the cpu node */
    const CpuModel *model;
    const CycleTable *ctab;
    uc_engine *uc;
    csh cs;
    int cs_mode_now;                /* the mode Capstone decodes in (vcpu_sync_decode_mode) */
    CpuState state;
    const char *stop_reason;        /* for --stats: why this CPU stopped */

    /* time and accounting */
    uint64_t insns;                 /* retired instructions */
    uint64_t cycles;                /* local time */
    uint64_t idle_cycles;           /* part of `cycles` spent halted or off */
    CpuLimits lim;
    CpuStopRequest stop;
    BlockEntry *blk;                /* the block being executed */
    uint32_t blk_counted;           /* how many of its instructions are in insns/cycles */
    BlockEntry blk_stale;           /* blk, when a code write dropped it from the cache while it
                                       runs (vcpu_invalidate_code) */
    bool quiet;                     /* a pmusim-internal run (vcpu_quiet_run): hooks do nothing */
    CpuCut cut;
    BlockCache bc;
    EventQueue events;              /* keyed by this CPU's cycles */
    EventQueue insn_events;         /* keyed by this CPU's retired instructions */

    /* events counted for the PMU (base/cpuport.h), and the bookkeeping behind them: with branch
     * tracking on, every block goes through the slow path, which retires the previous block's
     * final branch (vcpu_branch_retire) and runs the predictor; loads and stores are counted per
     * block on the slow path while track_mem. */
    PmuEvents pev;
    uint32_t mem_from;              /* instructions of blk already in pev's loads/stores */
    bool br_done;                   /* the current block's branch has been retired */
    uint64_t prev_last_pc;          /* last retired instruction of the block before blk */
    BranchPredictor bp;
    CpuProfiling prof;
    CpuPause pause;
    CpuPrivSplit priv;              /* pmusim stat */
    CpuStall stall;                 /* --inject stall */

    /* trap sites and code hooks */
    TrapTable trap;
    TailHook *tails;                /* x86: code hooks over the tails Capstone cannot decode */
    uint32_t ntails, tails_cap;

    /* exceptions and interrupts */
    CpuPins pins;
    CpuStartRequest start;
    CpuFault fault;
    CpuExceptions exc;

    CpuLocator acc;
    CpuRefCount ref;
    CpuMmu mmu;

    CpuPort port;                   /* what its APIC and PMU see of it (base/cpuport.h) */
    CpuDebug dbg;                   /* a debugger's step and stops (cpu/debug.h) */
};

/* Create CPU `index` of the cluster from its cpu node, with the backend for the cluster's
 * architecture (engine opened, RAM and devices mapped, hooks installed). */
Cpu *vcpu_create(Cluster *cl, int index, const CpuDesc *desc, const CpuOps *ops, Error *err);
void vcpu_destroy(Cpu *c);
/* Instructions retired by every CPU of the cluster, and a CPU by hardware id (APIC ID, MPIDR,
 * PIR) or NULL. */
uint64_t vcpu_total_insns(const Cluster *cl);
Cpu *vcpu_by_hwid(const Cluster *cl, uint64_t hwid);
/* Fill c->port (cpu/port.c): each backend's init does, before it creates the models it hands
 * the port to. */
void vcpu_port_init(Cpu *c);

/* Run until the CPU's local time reaches `until` (at block granularity), firing this CPU's
 * events on their exact instruction.  Returns when the quantum is used up, the CPU sleeps, the
 * machine is stopping or the CPU reached its pause (vcpu_pause_at; pause.paused). */
void vcpu_run(Cpu *c, uint64_t until);

/* --inject stall: CPU c stalls from cycle `cycle` of its clock for `len` cycles (UINT64_MAX:
 * for ever); added before the run, in order of cycle, not overlapping (sim/inject.c checks). */
void vcpu_stall_add(Cpu *c, uint64_t cycle, uint64_t len);

/* The run loop (cpu.c): the cycle the next stall begins at (UINT64_MAX: none, or one is
 * active); at an instruction boundary, end a stall that is over and begin one that is due
 * (traced as `inject`), take an NMI (x86) or come back from one; true while the CPU spins
 * (executes nothing). */
uint64_t vcpu_stall_next(const Cpu *c);
static inline bool vcpu_stalled_forever(const Cpu *c)
{
    return c->stall.active && c->stall.end == UINT64_MAX;
}
/* Can a CPU stalled for good still do anything?  Its events reach only itself; x86 takes an NMI
 * in the stall (its PMU's overflow: Linux's perf NMI watchdog on the stuck CPU itself), and the
 * stall's time is busy, so even a counter of running time (a deferrable event) can bring one;
 * and while the handler runs (counters off), the CPU executes. */
static inline bool vcpu_stall_alive(const Cpu *c)
{
    return c->ops->nmi_take && (c->stall.in_nmi || c->events.n || c->pins.nmi);
}
bool vcpu_stall_update(Cpu *c);

/* Time travel: pause at (insns, entries) (CpuPause), or no longer. */
void vcpu_pause_at(Cpu *c, uint64_t insns, uint64_t entries);
void vcpu_pause_cancel(Cpu *c);
/* Time travel: an in-place restore is about to replace the CPU's state; drop what derives from
 * the old registers (the engine's TLB, a block in progress, a cut, stop requests, a fault to
 * deliver, the access locator, a pause) and lower the pins that the models drive again as they
 * load (PMI, FIQ).  What derives from code bytes (translations, decoded blocks, trap sites)
 * stays: the restore drops it for each page of code whose bytes it changes
 * (vcpu_invalidate_code), and a virtual page that comes back mapped elsewhere loses it at its
 * next fetch fill (mmu.c). */
void vcpu_forget_all(Cpu *c);

/* Power a CPU on at `entry` with the arch's entry state (arg registers per the ABI), no earlier
 * than cycle `at` (the time of the release: a CPU does not start before it is released). */
void vcpu_start(Cpu *c, uint64_t entry, uint64_t arg0, uint64_t arg1, uint64_t at, const char *why);
void vcpu_stop(Cpu *c, CpuState state, const char *why);

/* Turn branch tracking on or off (pmc.c does, from the counters' configuration). */
void vcpu_set_branch_tracking(Cpu *c, bool on);
/* Retire the final branch of the block just executed, if it ran to its end and has not been
 * retired yet; `next` is where execution went on. */
void vcpu_branch_retire(Cpu *c, uint64_t next);

/* --samples: a sampling PMU counter starts or stops counting at the current instruction
 * boundary; what the block retired so far goes to the profile under the old state. */
void vcpu_profile_window(Cpu *c, bool on);
/* --samples: the current block's retired instructions not yet in the profile go there. */
void vcpu_profile_flush(Cpu *c);
/* The PMU's counters now, by register name, for exporters (no state changes; 0 without a PMU). */
int vcpu_pmu_readings(Cpu *c, PmcReading *out, int max);
/* Loads, stores and memory instructions retired so far (exact at trap hooks and events). */
void vcpu_mem_count(Cpu *c, uint64_t *loads, uint64_t *stores, uint64_t *memops);
/* The current block's retired part goes into c->loads/stores/memops. */
void vcpu_mem_flush(Cpu *c);
/* Count loads and stores from now on (every block through the slow path). */
void vcpu_set_mem_tracking(Cpu *c, bool on);

/* pmusim stat: count user and kernel apart from now on (the CPU at kernel level: before the
 * boot), with branch and load/store tracking kept on when asked for. */
void vcpu_priv_start(Cpu *c, bool branches, bool mem);
/* The backend: the CPU runs at user level (x86 CPL > 0, arm64 EL0, ppc32 MSR[PR] = 1) from this
 * instruction boundary on, or at kernel level; what ran before counted at the old level. */
void vcpu_set_user(Cpu *c, bool user);
/* A source's count so far, all of it and the user-level part. */
void vcpu_priv_count(Cpu *c, PmcSource s, uint64_t *all, uint64_t *user);

/* The address of the last instruction that retired (between runs, or from a trap hook). */
uint64_t vcpu_last_retired_pc(Cpu *c);

/* A CPU's interrupt pins, as lines a controller drives (base/irq.h): the IRQ pin is level-
 * triggered (x86 INTR, arm64 IRQ, ppc32 external interrupt), the NMI pin edge-triggered (x86
 * NMI), the PMI pin level-triggered (ppc32: the performance-monitor exception, 0xF00, pending
 * while the PMU holds it), the FIQ pin level-triggered (arm64 FIQ).  A pin that becomes active stops the running block at its next
 * boundary, where the backend looks at it. */
typedef enum CpuPin { CPU_PIN_IRQ, CPU_PIN_NMI, CPU_PIN_PMI, CPU_PIN_FIQ } CpuPin;
IrqLine vcpu_pin(Cpu *c, CpuPin pin);

/* Schedule an event on this CPU at a cycle or at a retired-instruction count. */
void vcpu_schedule(Cpu *c, Event *ev, uint64_t cycle);
/* The same, after every other event of its cycle, without drawing a sequence number: for an
 * event whose scheduling moment depends on the host (live console input, sim/dev/uart_rx.h), so
 * that the machine's sequence counter and the order of every other event do not. */
void vcpu_schedule_last(Cpu *c, Event *ev, uint64_t cycle);
void vcpu_schedule_insns(Cpu *c, Event *ev, uint64_t insns);

/* --- for backends and models, called from engine hooks --- */

/* Keep in the counts only the instructions of the current block that lie before `pc`
 * (`inclusive`: also the one at pc).  Used when execution leaves the block early. */
void vcpu_retire_upto(Cpu *c, uint64_t pc, bool inclusive);
/* Ask the engine to stop at the next block boundary (after the current instruction when the
 * hook also redirected the PC).  Never call uc_emu_stop from a device callback: the PC would
 * be stale and the stop point unknown. */
static inline void vcpu_request_stop(Cpu *c)
{
    c->stop.next_block = true;
    c->lim.fast = 0;                /* forces the block hook off its fast path */
}
/* The instruction of the current block that made a memory or I/O access (exact; see cpu.c). */
uint64_t vcpu_access_pc(Cpu *c, AccessKind kind, uint64_t addr, unsigned size);
/* A hook in the middle of a block handles one instruction, which retires, and the engine goes on
 * in the block after it: a device access or a store to a code page (located when first asked:
 * every vcpu_access_pc for this access then gives the same instruction, where a second search
 * would look on past it, as for the block's next access), or an emulated instruction at a known
 * pc (vcpu_insn_begin).  An end of the run meanwhile (an exit, the trace full at --trace-limit)
 * makes it the last instruction retired (vcpu_access_current).  Between the calls, always
 * vcpu_access_end. */
void vcpu_access_begin(Cpu *c, AccessKind kind, uint64_t addr, unsigned size);
void vcpu_insn_begin(Cpu *c, uint64_t pc);
void vcpu_access_end(Cpu *c);
/* That instruction, or UINT64_MAX outside such a hook. */
uint64_t vcpu_access_current(Cpu *c);
/* A diagnostic about something the guest did wrong at pc (or that pmusim does not model), in
 * the trace. */
void vcpu_diag(Cpu *c, uint64_t pc, const char *what, const char *fmt, ...) PMUSIM_PRINTF(4, 5);
/* End the run because of this CPU's instruction (the last retired, or the device access being
 * dispatched; vcpu_exit_at: the one at pc, when the PC has moved on). */
static inline void vcpu_exit_at(Cpu *c, uint64_t pc, int status, const char *reason)
{
    cluster_exit(c->cl, c, pc, status, reason);
}
static inline void vcpu_exit(Cpu *c, int status, const char *reason)
{
    vcpu_exit_at(c, UINT64_MAX, status, reason);
}
/* The engine or pmusim failed in a way that is not the guest's doing: the run ends. */
void vcpu_internal_error(Cpu *c, const char *fmt, ...) PMUSIM_PRINTF(2, 3);
/* Local time and retired-instruction count at the start of the instruction at pc of the
 * current block (from a hook that did not stop the block: a sysreg or I/O hook). */
uint64_t vcpu_cycles_at(Cpu *c, uint64_t pc);
uint64_t vcpu_insns_at(Cpu *c, uint64_t pc);
/* The same once the instruction at pc has retired too (from its trap site, before the engine
 * executes it: an ERET whose own count belongs to the EL it leaves). */
uint64_t vcpu_cycles_after(Cpu *c, uint64_t pc);
static inline uint64_t vcpu_insns_after(Cpu *c, uint64_t pc)
{
    return vcpu_insns_at(c, pc) + 1;
}
/* Run code at pc for pmusim's own purposes (e.g. reading a register the engine has no API
 * for) until a hook of the caller's stops the engine: nothing is counted, trapped or traced.
 * No instruction count: after a count-limited run the engine flushes every translation. */
void vcpu_quiet_run(Cpu *c, uint64_t pc);
/* --icount-check: instructions retired by the reference count (a code hook on every one). */
uint64_t vcpu_icount_reference(const Cpu *c);
/* The CPU may have changed its code mode (x86: a far transfer, an exception entry, IRET to a
 * compatibility-mode segment): decode in the mode it now executes in, and drop the blocks
 * decoded in the other. */
void vcpu_sync_decode_mode(Cpu *c);
/* Write-protect, in every engine, the pages that became code (first executed: block_decode notes
 * them, and the CPU stops at its next block boundary so that this runs before any other
 * instruction can store there): from then on every store to them comes to the code-write
 * chokepoint, and any stale translation another engine may hold goes.  Called between engine
 * runs only (uc_mem_protect changes the engines' memory maps). */
void vcpu_protect_code_pages(Cluster *cl);
/* Remove every cached translation and decoded block overlapping the physical range
 * [start, end), under every virtual address this CPU fetched it through. */
void vcpu_invalidate_code(Cpu *c, uint64_t start, uint64_t end);

/* --- the guest MMU (mmu.c) --- */

/* Install the TLB fill hook when the backend walks the page tables itself (false: engine error). */
bool vcpu_mmu_init(Cpu *c, Error *err);
/* The code-write window (mmu.c, "Code pages and stores"), mapped after RAM, if the CPU uses
 * one (else code pages are write-protected engine regions). */
bool vcpu_code_window_used(const Cpu *c);
bool vcpu_map_code_window(Cpu *c, Error *err);
/* A store of size bytes of value to the code page at physical addr (the window's callback). */
void vcpu_store_to_code(Cpu *c, uint64_t addr, unsigned size, uint64_t value);
void vcpu_mmu_destroy(Cpu *c);
/* The physical address the CPU fetches va from (identity under the engine's own MMU); false if
 * it cannot fetch there now. */
bool vcpu_fetch_pa(Cpu *c, uint64_t va, uint64_t *pa);
/* The physical address a data access at va reaches now (identity under the engine's own MMU;
 * no side effects); false if it would fault. */
bool vcpu_data_pa(Cpu *c, uint64_t va, uint64_t *pa);
/* A virtual address this CPU fetches physical pa through: the most recent one still mapped
 * (pa itself when none, or under the engine's own MMU).  For naming code in reports. */
uint64_t vcpu_code_va(Cpu *c, uint64_t pa);
/* Read len bytes of code at va as the CPU fetches them; false if any is not fetchable RAM. */
bool vcpu_fetch_read(Cpu *c, uint64_t va, void *buf, size_t len);
/* The bytes of code [va, va + len), contiguous (copied into a buffer of the CPU's when they
 * span two pages, valid until the next call); NULL if not fetchable RAM. */
const uint8_t *vcpu_fetch_bytes(Cpu *c, uint64_t va, size_t len);
/* Does a data access at virtual [ea, ea + len) touch physical (or, without pmusim's MMU,
 * virtual) [addr, addr + size)?  The access locator's test. */
bool vcpu_access_matches(Cpu *c, uint64_t ea, uint64_t len, uint64_t addr, unsigned size);
/* Drop the engine's translations of virtual [va, va_end) (uc_ctl_remove_cache: every call
 * goes through here, which keeps the engine's TLB as the guest's page tables have it). */
void vcpu_engine_forget(Cpu *c, uint64_t va, uint64_t va_end);
/* uc_hook_del, with the fills it makes probing only (mmu.c). */
void vcpu_engine_hook_del(Cpu *c, uc_hook h);
/* Drop every translation in the engine's TLB (not its translated code): the guest changed a
 * translation register or invalidated a TLB entry the engine cannot see (ppc32: pmusim owns the
 * MMU's registers).  Callable from a trap handler. */
void vcpu_engine_flush_tlb(Cpu *c);
/* The same for another CPU than the one running, done before that CPU's engine is next used
 * (vcpu_engine_tlb_catch_up): it runs no instruction before then. */
void vcpu_engine_flush_tlb_remote(Cpu *c);
void vcpu_engine_tlb_catch_up(Cpu *c);
/* uc_mem_protect of physical [pa, pa + size) in the CPU's engine (every call goes through here). */
uc_err vcpu_engine_protect(Cpu *c, uint64_t pa, uint64_t size, uint32_t perms);
/* Drop pmusim's decoded blocks and trap sites over virtual [va, va_end) (code written, or a
 * virtual page mapped elsewhere now). */
void vcpu_forget_code(Cpu *c, uint64_t va, uint64_t va_end);
/* Does the instruction make a read or write touching [addr, addr + size) (physical under
 * pmusim's MMU): ops->each_access with vcpu_access_matches, for backends' insn_accesses. */
bool vcpu_insn_accesses(Cpu *c, const cs_insn *insn, AccessKind kind, uint64_t addr, unsigned size);
/* The exact faulting address of the access that failed the walk r (its page in r->va) made by
 * the instruction at pc: for a fetch the PC or the page it runs into; for data the first byte
 * of the instruction's access on that page, found among its operands (the engine's fill hook
 * is given only the page).  Not found: the page, with a `fault-address` diag naming `reg`. */
uint64_t vcpu_fault_address(Cpu *c, uint64_t pc, const MmuResult *r, const char *reg);
/* Call fn for each virtual range through which this CPU fetched code of physical [start, end). */
void vcpu_code_aliases(Cpu *c, uint64_t start, uint64_t end, void (*fn)(Cpu *c, uint64_t va, uint64_t va_end));
/* The engine's run ended with a failed fill: deliver the fault (true), or false if none. */
bool vcpu_mmu_fault_deliver(Cpu *c);

/* Every exception or interrupt entry goes through here: it is traced, costs cycles (the cycle
 * table's trap cost), and EXCEPTION_LOOP_LIMIT entries in a row with no instruction retiring
 * between any two of them (a handler faulting on itself, or two handlers faulting into each
 * other) stop the CPU instead of spinning forever. */
void vcpu_exception_taken(Cpu *c, TraceKind kind, uint64_t vector, const char *name, uint64_t from, uint64_t to,
                         uint64_t info);

/* Engine register access that cannot fail on valid ids (failures are internal errors). */
uint64_t vcpu_reg_read(Cpu *c, int reg);
void vcpu_reg_write(Cpu *c, int reg, uint64_t v);

/* A guest store of `size` bytes (in guest byte order) to a write-protected page: the code-write
 * chokepoint (cpu/codewatch.h).  Done here, since the engine drops stores to read-only pages; one
 * that overlaps code is recorded, and the stale translations are dropped from every CPU. */
void vcpu_code_store(Cpu *c, uint64_t addr, const uint8_t *bytes, unsigned size);
/* Guest memory access by the CPU's backend (physical, through the machine). */
bool vcpu_mem_read(Cpu *c, uint64_t addr, void *buf, size_t len);
bool vcpu_mem_write(Cpu *c, uint64_t addr, const void *buf, size_t len);
/* Is [addr, addr + len) (within one page) mapped in the CPU's engine: RAM, ROM or a device window? */
bool vcpu_engine_maps(Cpu *c, uint64_t addr, uint64_t len);

/* The backends, defined in x86_64.c, arm64.c, ppc32.c. */
extern const CpuOps vcpu_x86_64_ops, vcpu_arm64_ops, vcpu_ppc32_ops;

#endif
