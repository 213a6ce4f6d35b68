/* pmc.h — lazy performance counters with predicted overflow, shared by the PMU models.
 *
 * A counter does no work while it counts.  It holds its value as of the bank's last sync and
 * the CPU-wide source it follows (unhalted cycles, retired instructions, retired branches,
 * mispredicted branches); its current value is value + (source now - source at the sync).  A
 * model syncs the bank whenever the counting conditions change (a register write, a change of
 * privilege level) and re-arms it afterwards: every counting counter gets an event on its CPU's
 * queue at the exact point where it will wrap (cycle queue for cycle sources, instruction queue
 * for instruction sources; branch and load/store sources are checked by the block hook, see
 * cpu.h: a branch source when the next block starts, a load/store source when the block that
 * reaches it starts, which schedules an instruction-queue event after that instruction).  When the
 * event fires on its instruction, the bank syncs, reports the wrap to the model and re-arms.
 *
 * A counter may also count "cycles minus an event" (x86 INV/CMASK): the source then advances
 * by at most one per cycle, so the wrap is predicted on the cycle queue as a lower bound and
 * re-predicted when that point is reached, which still lands on the exact instruction.
 */
#ifndef PMUSIM_PMC_H
#define PMUSIM_PMC_H

#include "base/clock.h"
#include "base/common.h"
#include "base/cpuport.h"


typedef struct Blob Blob;
typedef struct BlobReader BlobReader;

typedef enum PmcSource {
    PMC_SRC_NONE,           /* counts nothing */
    PMC_SRC_CYCLES,         /* core cycles while not halted or off */
    PMC_SRC_INSNS,          /* retired instructions */
    PMC_SRC_BRANCHES,       /* retired branch instructions (cpu.h: branch tracking) */
    PMC_SRC_BRMISS,         /* retired mispredicted branches (cycle_model.h: the predictor) */
    PMC_SRC_EXT,            /* a model-defined function of time (ppc32: timebase-bit transitions) */
    PMC_SRC_LOADS,          /* retired instructions that load (cpu.h: memory-access counting) */
    PMC_SRC_STORES,         /* retired instructions that store */
    PMC_SRC_MEMOPS,         /* retired instructions that load or store */
    PMC_SRC_COUNT
} PmcSource;

#define PMC_MAX 16

typedef struct Pmc {
    uint64_t value;         /* as of the bank's last sync */
    uint64_t mask;          /* (1 << width) - 1 */
    uint64_t trip;          /* the value whose crossing (from below) is reported: 0 = the wrap
                               (x86); 1 << 31 for counters that signal on becoming negative (ppc) */
    uint8_t src, sub;       /* while active: value += d(src) - d(sub) */
    bool active;
    bool sampling;          /* reaching the trip raises a sample (ppc CE bit, x86 INT/PMI bit):
                               while such a counter is active, the CPU is in the sampling window
                               the exact profile weighs (vcpu_profile_window) */
    Event ev;               /* the predicted wrap */
} Pmc;

typedef struct PmcBank PmcBank;
/* Counters (bit i = counter i) reached their trip value (or wrapped) at the current instruction. */
typedef void (*PmcOverflowFn)(PmcBank *b, uint32_t wrapped);

struct PmcBank {
    const CpuPort *cpu;
    unsigned n;
    Pmc ctr[PMC_MAX];
    uint64_t at[PMC_SRC_COUNT];     /* source values at the last sync */
    Event check;                    /* fired by the block hook at a branch-source limit */
    Event mem_check;                /* fired after the instruction that reaches a load/store limit */
    PmcOverflowFn overflow;
    void *opaque;                   /* the model */
    /* PMC_SRC_EXT: its value now, and the first cycle at which it reaches `value` (it only
     * grows with time, so a wrap is predicted exactly on the cycle queue). */
    uint64_t (*ext_value)(PmcBank *b);
    uint64_t (*ext_cycle_at)(PmcBank *b, uint64_t value);
};

void pmc_bank_init(PmcBank *b, const CpuPort *c, unsigned n, PmcOverflowFn overflow, void *opaque, const char *name);
/* A source's current value on the bank's CPU (exact at trap hooks and between runs). */
uint64_t pmc_source(const CpuPort *c, PmcSource s);
/* Increments until counter p next reaches its trip value. */
uint64_t pmc_left(const Pmc *p);
/* Fold what happened since the last sync into the counting counters; reports wraps. */
void pmc_sync(PmcBank *b);
/* Re-predict every counting counter's wrap (call after changing counters or conditions); also
 * tells the CPU's profile whether a sampling counter is counting. */
void pmc_arm(PmcBank *b);
/* The definition of PMC_SRC_EXT changed (after a sync): count on from its new value. */
void pmc_rebase_ext(PmcBank *b);
/* Does any counter need the CPU's branch tracking? */
bool pmc_needs_branches(const PmcBank *b);

/* Counter i's value now, without a sync: what a read would return, and no state changes (for
 * exporters that sample the counters; exact at trap hooks and between runs). */
uint64_t pmc_peek(PmcBank *b, unsigned i);

/* A counter as an exporter shows it: the architectural register's name and its value. */
typedef struct PmcReading {
    const char *name;
    uint64_t value;
} PmcReading;

/* The `pmu-overflow` trace event (docs/trace-format.md), shared by the PMU models. */
void pmc_trace_overflow(const PmcBank *b, uint64_t pc, const char *counter, uint64_t status, bool pmi);

void pmc_save(const PmcBank *b, Blob *blob);
bool pmc_load(PmcBank *b, BlobReader *r);

#endif
