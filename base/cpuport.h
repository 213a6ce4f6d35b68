/* cpuport.h — what a model attached to one CPU (its local APIC, its PMU) sees of that CPU.
 *
 * The CPU backend owns its models and hands each the CPU's port (cpu/cpu.c, vcpu_create fills
 * it): the CPU's clock and counts to read, its event queues to schedule on, the current
 * instruction, the PMU's event sources and the trace.  The models never see struct Cpu or the
 * machine (docs/architecture.md, "Floors"): a model includes this header and base/irq.h for
 * the interrupts it raises, and the CPU floor above implements both.  The clock and the counts
 * are read through pointers (no call on the paths that read them often).
 */
#ifndef PMUSIM_CPUPORT_H
#define PMUSIM_CPUPORT_H

#include "base/clock.h"
#include "base/common.h"
#include "base/trace.h"

/* The events a CPU counts for its PMU (pmu/pmc.c programs the limits).  Branches are retired
 * at block ends, only while track_branches; reaching lim_branches or lim_br_misses fires
 * branch_limit_ev before the next block.  Loads and stores (PMC_SRC_LOADS/STORES/MEMOPS) are
 * counted per block on the slow path while track_mem; the current block's part is added on
 * demand (CpuPort.mem_count), and reaching a lim_* fires mem_limit_ev (an instruction-queue
 * event) after the instruction that reaches it. */
typedef struct PmuEvents {
    bool track_branches, track_mem;
    uint64_t branches, br_misses;
    uint64_t lim_branches, lim_br_misses;
    Event *branch_limit_ev;
    uint64_t loads, stores, memops; /* in the blocks left so far */
    uint64_t lim_loads, lim_stores, lim_memops;
    Event *mem_limit_ev;
} PmuEvents;

typedef struct CpuPort {
    void *opaque;                   /* the CPU: passed back to every function */
    int index;                      /* logical CPU number */
    uint64_t hwid;                  /* APIC ID / MPIDR / PIR */
    Trace *trace;
    uint64_t freq_hz;               /* the CPU clock */
    const uint64_t *cycles;         /* local time */
    const uint64_t *idle_cycles;    /* the part of it spent halted or off */
    const uint64_t *insns;          /* retired instructions */
    PmuEvents *ev;
    EventQueue *events;             /* keyed by the CPU's cycles */
    EventQueue *insn_events;        /* keyed by its retired instructions */
    /* Has the CPU been started (an IPI to one that has not is dropped)? */
    bool (*started)(void *opaque);
    /* The instruction executing now (from a hook), the last retired one, and the local time at
     * the start of the instruction at pc of the current block. */
    uint64_t (*pc)(void *opaque);
    uint64_t (*last_retired_pc)(void *opaque);
    uint64_t (*cycles_at)(void *opaque, uint64_t pc);
    /* An event at a cycle of this CPU, or at a retired-instruction count. */
    void (*schedule)(void *opaque, Event *ev, uint64_t cycle);
    void (*schedule_insns)(void *opaque, Event *ev, uint64_t insns);
    /* PMU sources: count branches or memory operations from now on (or stop), and the loads,
     * stores and memory instructions retired so far. */
    void (*track_branches)(void *opaque, bool on);
    void (*track_mem)(void *opaque, bool on);
    void (*mem_count)(void *opaque, uint64_t *loads, uint64_t *stores, uint64_t *memops);
    /* --samples: a sampling counter starts or stops counting; a sample at pc. */
    void (*profile_window)(void *opaque, bool on);
    void (*sample)(void *opaque, uint64_t pc, bool user, const char *counter);
} CpuPort;

static inline uint64_t port_cycles(const CpuPort *p) { return *p->cycles; }
static inline uint64_t port_pc(const CpuPort *p) { return p->pc(p->opaque); }
static inline void port_schedule(const CpuPort *p, Event *ev, uint64_t cycle) { p->schedule(p->opaque, ev, cycle); }
/* A diagnostic about what the guest did at pc, in the trace, printf-style. */
void port_diag(const CpuPort *p, uint64_t pc, const char *what, const char *fmt, ...) PMUSIM_PRINTF(4, 5);

#endif
