/* stat.h — `pmusim stat`: the events a run's CPUs counted, user and kernel apart, in perf stat's
 * layout (docs/tools.md).
 *
 * The counts come from outside the guest, with no driver in it: the CPU core folds the PMU's
 * event sources at every change of privilege (cpu/cpu.h, CpuPrivSplit), so the totals are the
 * run's own (`--stats` prints the same instructions) and each level's part is what the guest's
 * PMU counts with a user or kernel filter.  Events (perf's generic names, the first of each line;
 * the others are perf's aliases):
 *
 *   cpu-clock                        simulated time of the CPU, halted included (msec)
 *   cycles, cpu-cycles               unhalted core cycles (the PMU's cycle counter)
 *   instructions                     retired instructions
 *   branches, branch-instructions    retired branches            (tracked: the slow path)
 *   branch-misses                    mispredicted retired branches (tracked)
 *   L1-dcache-loads, mem-loads       retired instructions that load   (tracked)
 *   L1-dcache-stores, mem-stores     retired instructions that store  (tracked)
 *   mem_access                       retired instructions that load or store (Arm's MEM_ACCESS)
 *
 * An event may carry perf's modifiers: `:u` the user part alone, `:k` the kernel part, `:uk`
 * the total; with none, three rows: the total, then `:u` and `:k`.
 */
#ifndef PMUSIM_STAT_H
#define PMUSIM_STAT_H

#include <stdio.h>

#include "sim/machine.h"

#define STAT_MAX_EVENTS 32

/* Which rows an event prints. */
typedef enum StatMod { STAT_MOD_SPLIT, STAT_MOD_USER, STAT_MOD_KERNEL, STAT_MOD_ALL } StatMod;

typedef struct StatSel {
    uint8_t ev;                     /* index into the event table */
    uint8_t mod;                    /* StatMod */
    bool alias;                     /* named by its alias: printed so, as perf does */
} StatSel;

typedef struct StatConfig {
    StatSel sel[STAT_MAX_EVENTS];   /* in the order -e gave them */
    int n;                          /* 0: the default list */
    bool per_cpu;                   /* --per-cpu, -A, --no-aggr */
    bool per_symbol;                /* --per-symbol */
    const char *output;             /* -o FILE: instead of standard error */
    const char *sep;                /* -x SEP: CSV with this separator */
} StatConfig;

/* Add the events of a comma-separated -e list; false with err naming the bad event. */
bool stat_parse_events(StatConfig *s, const char *list, Error *err);
/* The default list (perf stat's hardware defaults) when -e gave none, and what the machine must
 * count for the list (branch and load/store tracking only when asked for, the profile for
 * --per-symbol). */
void stat_configure(StatConfig *s, MachineConfig *cfg);
/* The n-th event name (0, 1, ... then NULL), aliases included: for --help and completion. */
const char *stat_event_name(int n);
/* After the run: print the table on standard error or to -o FILE; 0, or EXIT_OUTPUT after a
 * message if the file could not be written.  `guest` names the run in the header. */
int stat_print(const StatConfig *s, Machine *m, const char *guest);

#endif
