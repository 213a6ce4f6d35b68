/* icache.h — strict instruction-cache mode (`--icache=strict`, arm64 and ppc32).
 *
 * QEMU and Unicorn retranslate code on every store, so a guest that patches code without the
 * cache maintenance its architecture requires still works under them.  Real hardware keeps
 * fetching the old instruction.  In strict mode pmusim does too: after a write to code, every
 * CPU goes on executing the old word until the maintenance sequence is complete —
 *
 *   arm64:  DC CVAU (or CVAC, CIVAC) of the line, DSB        the line reaches the point of
 *                                                             unification
 *           IC IVAU of the line (or IC IALLU[IS]), DSB       every CPU's I-cache forgets it
 *                                                             (broadcast: Inner Shareable)
 *           ISB                                               the invalidating CPU's pipeline
 *   ppc32:  dcbst (or dcbf), sync; icbi, sync; isync          (MPC7450 RM 5.1.5.2; icbi is
 *                                                             broadcast)
 *
 * — and each execution of a stale word is reported (a `stale-exec` trace event, a violation of
 * the patch validator, counts in its summary) and executes the old instruction: NOP, B, BL and
 * arm64's `mov x9, x30` are emulated; anything else is reported as not emulated and executes the
 * new word.  Exception entry, arm64 ERET and ppc32 rfi are context synchronisation events too.  A CPU other than the invalidating one counts as fresh once the invalidation is
 * complete: its fetch buffer holds a few instructions at most.  Cache lines are 64 bytes
 * (arm64) or 32 bytes (MPC7450).  The default, `--icache=coherent`, models none of this.
 */
#ifndef PMUSIM_ICACHE_H
#define PMUSIM_ICACHE_H

#include <stdio.h>

#include "base/common.h"
#include "cpu/cluster.h"
#include "cpu/codewatch.h"

typedef struct Cluster Cluster;
typedef struct Cpu Cpu;
typedef struct Blob Blob;
typedef struct BlobReader BlobReader;

enum { ICACHE_MAX_CPUS = 16 };

typedef enum StaleStage { STALE_WRITTEN, STALE_CLEANED, STALE_INVALIDATED } StaleStage;

typedef struct StaleWord {
    uint64_t addr;                      /* 4-byte aligned */
    uint8_t old[4];                     /* what a stale CPU fetches */
    uint8_t stage;                      /* StaleStage */
    int16_t clean_cpu, inval_cpu;       /* a DC/dcbst, IC/icbi waiting for that CPU's barrier */
    int16_t sync_cpu;                   /* the invalidating CPU: fresh after its ISB/isync */
    uint32_t fresh;                     /* CPUs that fetch the new word */
    uint64_t execs[ICACHE_MAX_CPUS];    /* stale executions per CPU */
} StaleWord;

/* Where a stale execution is reported besides the trace: the patch validator, when it runs
 * (sim/machine.c wires it; zero: nowhere).  `disasm` writes "mnemonic operands" of len bytes. */
typedef struct ICacheReporter {
    void *opaque;
    void (*disasm)(void *opaque, uint64_t addr, const uint8_t *b, size_t len, char *out, size_t outlen);
    void (*violation)(void *opaque, int cpu, uint64_t cycle, uint64_t pc, const char *what);
} ICacheReporter;

typedef struct ICache {
    Cluster *cl;
    ICacheReporter report;
    unsigned line;                      /* bytes */
    StaleWord *w;
    int n, cap;
    uint64_t stale_execs;
    /* finished words' counts, for the summary */
    uint64_t retired_execs;
} ICache;

void icache_init(ICache *ic, Cluster *cl);
void icache_destroy(ICache *ic);
/* Trap kind for the instruction at addr on c (cpu.c block decode): 0 or TRAP_KIND_ICACHE. */
int icache_trap_kind(ICache *ic, Cpu *c, uint64_t addr, const uint8_t *bytes, unsigned len);
/* The trapped instruction is about to execute on c.  Returns a TrapResult. */
int icache_trap(ICache *ic, Cpu *c, uint64_t pc);
/* c took an exception: a context synchronisation event. */
void icache_context_sync(ICache *ic, Cpu *c);
/* Summary lines (words still stale, executions) for the patch validator's report. */
void icache_report(const ICache *ic, FILE *f);
/* Checkpoints: the stale words in order and the execution counts.  The trap sites they make
 * are derived: the restored CPUs decode their blocks again and ask icache_trap_kind. */
void icache_save(const ICache *ic, Blob *b);
bool icache_load(ICache *ic, BlobReader *r);

void icache_on_write(void *opaque, const CodeWrite *w);
/* How the CPUs reach the model (Cluster.watch). */
ExecWatch icache_watch(ICache *ic);

#endif
