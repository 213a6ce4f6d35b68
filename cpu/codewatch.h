/* codewatch.h — the one chokepoint for writes to guest code.
 *
 * Code is the executable sections of the image plus every block a CPU has executed.  Code pages
 * are mapped read-only in every engine; a store to one raises the engine's write-protection
 * hook, and the CPU's store path (cpu/access.c, vcpu_code_store) performs the store itself
 * (the engine discards stores to read-only pages).  When the bytes written overlap code it records the
 * write here (address, size, old and new bytes, writer CPU and PC, cycle): a trace event, and a
 * call of every listener (the patch validator, the strict I-cache model); then it removes the
 * stale translations and decoded blocks from every CPU.  This file keeps the code ranges and
 * the listeners, and knows nothing of the CPUs.
 */
#ifndef PMUSIM_CODEWATCH_H
#define PMUSIM_CODEWATCH_H

#include "base/common.h"
#include "base/loader.h"
#include "base/trace.h"


/* The widest store one record holds; a wider one (an x86 exception frame, a store multiple) is
 * recorded as consecutive pieces of at most this size. */
#define CODEWRITE_MAX 16

typedef struct CodeWrite {
    int cpu;                        /* the writing CPU */
    uint64_t pc;                    /* writer's instruction */
    uint64_t cycle;
    uint64_t addr;                  /* physical */
    uint64_t va;                    /* the code's virtual address, as the writer fetches it */
    unsigned size;
    uint8_t old_bytes[CODEWRITE_MAX], new_bytes[CODEWRITE_MAX];
} CodeWrite;

typedef void (*CodeWriteListener)(void *opaque, const CodeWrite *w);

typedef struct CodeWatch {
    Range *ranges;                  /* sorted, disjoint, merged */
    int n, cap;
    struct {
        CodeWriteListener fn;
        void *opaque;
    } listeners[4];
    int nlisteners;
    uint64_t writes;                /* code writes seen */
} CodeWatch;

void codewatch_init(CodeWatch *cw);
void codewatch_destroy(CodeWatch *cw);
/* Forget every range (an in-place restore puts back the saved ones). */
void codewatch_clear_ranges(CodeWatch *cw);
void codewatch_add_range(CodeWatch *cw, uint64_t start, uint64_t end);
bool codewatch_overlaps(const CodeWatch *cw, uint64_t addr, uint64_t size);
void codewatch_listen(CodeWatch *cw, CodeWriteListener fn, void *opaque);

/* A write to code (the CPUs' store path found it: cpu/access.c, vcpu_code_store): counted, handed to every
 * listener, traced. */
void codewatch_record(CodeWatch *cw, Trace *t, const CodeWrite *w);

#endif
