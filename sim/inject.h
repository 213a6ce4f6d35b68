/* inject.h — fault injection (--inject KIND:key=value:...; docs/debugging.md, "Fault
 * injection"): the parser of one option's value and the check of all of them together.
 *
 * The one kind today is `stall`: from the first instruction boundary at or after cycle C of its
 * own clock, CPU N executes nothing and takes no interrupt (cpu/cpu.h, CpuStall), for ever or
 * for `for=` cycles.
 *
 *   stall:cpu=N:cycle=C[:for=CYCLES]      keys in any order, each once
 *
 * Numbers are decimal or 0x hex; cycle and for take a decimal suffix K, M or G (x 10^3, 10^6,
 * 10^9: simulated cycles are counted in decimal units, as clock rates are).
 */
#ifndef PMUSIM_INJECT_H
#define PMUSIM_INJECT_H

#include "base/common.h"

#define MAX_INJECT 16                   /* --inject options in one run */
#define INJECT_FOREVER UINT64_MAX       /* a stall without for= */

typedef enum InjectKind { INJECT_STALL } InjectKind;

typedef struct InjectSpec {
    const char *text;                   /* the option's value, for messages */
    InjectKind kind;
    int cpu;                            /* 0-based index of the cpu node */
    uint64_t cycle;                     /* the first cycle of the stall, the CPU's own clock */
    uint64_t len;                       /* for=, or INJECT_FOREVER */
} InjectSpec;

/* Parse one --inject value into *out; false with err ("--inject SPEC: what at offset N", the
 * offset 0-based in SPEC). */
bool inject_parse(const char *spec, InjectSpec *out, Error *err);
/* All of a run's specs together: each cpu below ncpus (when ncpus > 0) and no two stalls of one
 * CPU overlapping (the later would start inside the earlier); false with err. */
bool inject_check(const InjectSpec *specs, int n, int ncpus, Error *err);

#endif
