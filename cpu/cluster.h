/* cluster.h — the machine's CPUs as one thing, and all the CPU floor sees of the machine.
 *
 * The machine (sim/machine.c) owns one Cluster and wires it: the CPUs, the RAM they share, the
 * trace, the clock, the code-write chokepoint, the flags that end the run, the board facts a
 * CPU backend needs (from the device tree), and a ClusterHost: the few things only the machine
 * can do (end the run, the console, I/O ports, the profile).  A CPU and the tools that watch
 * the CPUs (the I-cache model, the patch validator) are handed the cluster, never the machine,
 * so that nothing below sim/ depends on it (docs/architecture.md, "Floors").  Devices see less
 * still: sim/dev/device.h's DeviceHost.
 */
#ifndef PMUSIM_CLUSTER_H
#define PMUSIM_CLUSTER_H

#include <signal.h>

#include "base/clock.h"
#include "base/common.h"
#include "base/mem.h"
#include "base/trace.h"
#include "cpu/codewatch.h"
#include "cpu/debugstate.h"

#define MAX_CPUS 16

typedef struct Cpu Cpu;
typedef struct CpuModel CpuModel;
typedef struct BlockEntry BlockEntry;
typedef struct Gic Gic;

/* How a secondary CPU starts (docs/machines.md): PSCI CPU_ON (arm64), a spin table, or (x86)
 * INIT and STARTUP IPIs through the local APIC, from the wait-for-SIPI state. */
typedef enum EnableMethod { ENABLE_BOOT, ENABLE_PSCI, ENABLE_SPIN_TABLE, ENABLE_SIPI } EnableMethod;

/* x86: the entry state every CPU starts in (cpu/x86_64.c x86_reset; docs/guest-abi.md, "Entry
 * state"): pmusim's own (long mode), Linux's 64-bit boot protocol (long mode, its GDT
 * selectors), multiboot's (32-bit protected mode, paging off). */
typedef enum X86Entry { X86_ENTRY_LONG, X86_ENTRY_LINUX64, X86_ENTRY_MULTIBOOT } X86Entry;

/* A cpu node of the device tree (sim/fdt.c parses it). */
typedef struct CpuDesc {
    char path[128];
    uint64_t hwid;                  /* reg */
    const CpuModel *model;
    uint64_t clock_hz;
    uint64_t timebase_hz;           /* ppc32 */
    EnableMethod enable;
    uint64_t release_addr;          /* spin table */
    uint64_t tpidr_el1;             /* arm64: pmusim,tpidr-el1 */
} CpuDesc;

/* A model that takes part in execution, wired by the machine (--icache=strict: the strict
 * I-cache model, cpu/icache.h): trap sites of its own (kind TRAP_KIND_ICACHE), and the context
 * synchronisation events it must see (exception entries, ISB, isync, ERET).  The functions
 * return a TrapResult; all are NULL without such a model. */
typedef struct ExecWatch {
    void *opaque;
    int (*trap_kind)(void *opaque, Cpu *c, uint64_t addr, const uint8_t *bytes, unsigned len);
    int (*trap)(void *opaque, Cpu *c, uint64_t pc);
    void (*context_sync)(void *opaque, Cpu *c);
} ExecWatch;

/* What only the machine can do for a CPU.  `cpu` is the CPU asking. */
typedef struct ClusterHost {
    void *opaque;
    /* End the run with `status`; pc is the instruction that caused it (UINT64_MAX: the CPU's
     * PC, or the access being dispatched). */
    void (*exit)(void *opaque, Cpu *cpu, uint64_t pc, int status, const char *reason);
    /* A byte out of the console (arm64 semihosting writes). */
    void (*console_out)(void *opaque, uint8_t ch);
    /* Map the device windows (and, on x86, unassigned space) into a new CPU's engine. */
    bool (*map_devices)(void *opaque, Cpu *cpu, Error *err);
    /* I/O port space (x86 IN/OUT). */
    uint64_t (*io_read)(void *opaque, Cpu *cpu, uint64_t port, unsigned size);
    void (*io_write)(void *opaque, Cpu *cpu, uint64_t port, unsigned size, uint64_t val);
    /* --samples (they do nothing without it): the retired instructions [from, to) of a block,
     * and a PMU sample. */
    void (*profile_retired)(void *opaque, Cpu *cpu, const BlockEntry *blk, uint32_t from, uint32_t to, bool window);
    void (*sample)(void *opaque, Cpu *cpu, uint64_t pc, bool user, const char *counter);
    /* pmusim stat --per-symbol with branch events (NULL otherwise): the branch at pc retired,
     * mispredicted or not. */
    void (*branch_retired)(void *opaque, Cpu *cpu, uint64_t pc, bool miss);
} ClusterHost;

typedef struct Cluster {
    Arch arch;
    Cpu *cpus[MAX_CPUS];
    int ncpus;
    GuestMem *mem;
    Trace *trace;
    Clock *clock;
    CodeWatch cw;
    ExecWatch watch;                /* --icache=strict, else all NULL */
    bool stopping;                  /* no CPU runs again once set */
    volatile sig_atomic_t interrupted;  /* the signal that ended the run (mach_interrupt), or 0 */
    /* the run's options and the board's facts */
    uint64_t max_insns, max_cycles; /* 0 = unlimited */
    bool icount_check;              /* --icount-check */
    bool semihosting;               /* arm64 --semihosting */
    bool psci;                      /* arm64: a psci node with method "hvc" */
    uint64_t timer_hz;              /* arm64: the generic counter's frequency */
    uint64_t lapic_hz;              /* x86: the local APIC timer's bus clock (0: no APIC node) */
    X86Entry x86_entry;             /* x86: the entry state (the boot protocol of the image) */
    Gic *gic;                       /* arm64: the interrupt controller (gic/gic.h), or NULL */
    unsigned timer_intid[2];        /* arm64: the PPIs of the physical and virtual timers (0: none) */
    unsigned pmu_intid;             /* arm64: the PMU's PPI (0: none) */
    ClusterHost host;
    ClusterDebug dbg;               /* a debugger's breakpoints, watchpoints, callbacks (cpu/debugstate.h) */
    /* Time travel (sim/timetravel.h), else NULL: called wherever a running CPU is about to run
     * its engine (its due events fired, its interrupts taken), before its pause is checked. */
    void (*boundary)(void *opaque, Cpu *c);
    void *boundary_opaque;
} Cluster;

/* End the run (ClusterHost.exit). */
static inline void cluster_exit(Cluster *cl, Cpu *c, uint64_t pc, int status, const char *reason)
{
    cl->host.exit(cl->host.opaque, c, pc, status, reason);
}

#endif
