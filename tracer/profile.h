/* profile.h — PMU samples and the exact instruction profile behind `pmusim report`.
 *
 * With `pmusim run --samples FILE`, every sample the hardware signals (a ppc32 counter becoming
 * negative with its exception enabled, SIAR; an x86 counter overflow that fires a PMI through
 * LVTPC; an arm64 overflow with its PMINTENSET_EL1 bit) is recorded with the address of the
 * instruction that caused it, the privilege level it ran at and the guest's call chain there
 * (tracer/callchain.c), and every retired instruction is counted by address: each block's retired
 * prefix is recorded when the CPU leaves the block (an exact per-instruction count, since a
 * block is straight-line code).  The count is kept twice: all instructions, and those retired in
 * the *sampling window*, while a counter whose overflow raises a sample was counting (the
 * population the samples are drawn from; a PMU driver's own handler usually runs outside it).  At the end of the run both go to FILE (docs/profiling.md), which
 * `pmusim report ELF FILE` turns into an opreport-style table with the exact shares beside the
 * sampled ones.  Profiling sends every block through the block hook's slow path.
 */
#ifndef PMUSIM_PROFILE_H
#define PMUSIM_PROFILE_H

#include <stdio.h>

#include "base/common.h"

/* The first line of a samples file begins so (docs/profiling.md): format version 2, which
 * gives each sample its call chain and the header the CPU clock; the reader also reads 1. */
#define SAMPLES_MAGIC "# pmusim samples 2 "
#define SAMPLES_MAGIC_V1 "# pmusim samples 1 "

typedef struct BlockEntry BlockEntry;
typedef struct Blob Blob;
typedef struct BlobReader BlobReader;

typedef struct ProfBlock {
    uint64_t pc;
    uint32_t size, n;               /* bytes, instructions; size 0 = empty slot */
    uint16_t *off;                  /* instruction offsets */
    uint8_t *cost;                  /* instruction costs in cycles (cycle model) */
    /* Difference arrays over the instructions (n + 1 entries): a run of instructions [a, b)
     * retired adds 1 at a and takes 1 at b; the prefix sums are the per-instruction counts. */
    uint64_t *d_all;                /* every retired instruction */
    uint64_t *d_win;                /* those retired in the sampling window */
} ProfBlock;

typedef struct ProfSample {
    uint64_t cycle, pc;
    int cpu;
    bool user;
    char counter[16];
    uint32_t chain_at, nchain;      /* its call chain: Profile.frames[chain_at, + nchain) */
} ProfSample;

/* Retired branches by address (pmusim stat --per-symbol with branch events; not in the samples
 * file nor in checkpoints). */
typedef struct ProfBranch {
    uint64_t pc;
    uint64_t count, misses;         /* count 0: an empty slot */
} ProfBranch;

typedef struct Profile {
    ProfBlock *tab;                 /* open addressing on (pc, size) */
    uint32_t cap, used;
    ProfBranch *br;                 /* open addressing on pc */
    uint32_t br_cap, br_used;
    ProfSample *samples;
    size_t nsamples, samples_cap;
    uint64_t *frames;               /* every sample's call chain, one after the other */
    size_t nframes, frames_cap;
} Profile;

void profile_init(Profile *p);
void profile_destroy(Profile *p);
/* Instructions [from, to) of block e retired, in the sampling window or not. */
void profile_block(Profile *p, const BlockEntry *e, uint32_t from, uint32_t to, bool window);
/* A sample at pc, with its call chain (the callers' return addresses, innermost first; at most
 * CALLCHAIN_DEPTH are kept). */
void profile_sample(Profile *p, int cpu, uint64_t cycle, uint64_t pc, bool user, const char *counter,
                    const uint64_t *chain, size_t nchain);
/* The branch at pc retired, mispredicted or not. */
void profile_branch(Profile *p, uint64_t pc, bool miss);
/* Print the samples file (docs/profiling.md) to f: the header (arch, the CPU clock in Hz), the
 * samples with their call chains and the per-address counts (sorted by address): instructions
 * retired, those in the sampling window, and the window's cycles (count x the instruction's
 * cost).  The caller owns the file and its errors. */
void profile_print(const Profile *p, const char *arch, uint64_t hz, FILE *f);

/* A sample line as the reader found it (valid during the visitor's call).  Version 1 files and
 * lines without a field: cpu and cycle 0, counter "", no chain; hz 0 if the header has none. */
typedef struct SampleRec {
    uint64_t pc, cycle, hz;
    unsigned cpu;
    bool user;
    const char *counter;
    const uint64_t *chain;          /* callers' return addresses, innermost first */
    size_t nchain;
} SampleRec;

/* Reading a samples file back (`pmusim report`): each line, in file order, to the visitor.  A
 * visitor function returns false when a sum it keeps would overflow (the read then fails at that
 * line).  False with err ("FILE:LINE: what") on a malformed file. */
typedef struct SamplesVisitor {
    bool (*sample)(void *opaque, const SampleRec *s);
    bool (*insns)(void *opaque, uint64_t pc, uint64_t count, uint64_t window, uint64_t cycles);
} SamplesVisitor;
bool profile_read(const char *path, const SamplesVisitor *v, void *opaque, Error *err);
/* Checkpoints: every block (by address and size, not table order) with its instruction
 * offsets, costs and counts, then the samples in order.  Loading replaces the profile; the
 * samples must name CPUs below ncpus. */
void profile_save(const Profile *p, Blob *b);
bool profile_load(Profile *p, BlobReader *r, int ncpus);

#endif
