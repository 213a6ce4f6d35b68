/* codewatch.h — the one chokepoint for writes to guest code.
 *
 * Code is the executable sections of the image plus every block a CPU has executed.  Code pages
 * are mapped read-only in every engine; a store to one raises the engine's write-protection
 * hook, which calls codewatch_store().  It performs the store itself (the engine discards stores
 * to read-only pages), and when the bytes written overlap code it records the write
 * (address, size, old and new bytes, writer CPU and PC, cycle) as a trace event and for every
 * listener (the patch validator of a later issue), then removes the stale translations and
 * decoded blocks from every CPU.
 */
#ifndef PMUSIM_CODEWATCH_H
#define PMUSIM_CODEWATCH_H

#include "base/common.h"
#include "base/loader.h"

typedef struct Machine Machine;
typedef struct Cpu Cpu;

/* The widest store one record holds; a wider one (an x86 exception frame, a store multiple) is
 * recorded as consecutive pieces of at most this size. */
#define CODEWRITE_MAX 16

typedef struct CodeWrite {
    int cpu;                        /* the writing CPU */
    uint64_t pc;                    /* writer's instruction */
    uint64_t cycle;
    uint64_t addr;
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
void codewatch_add_range(CodeWatch *cw, uint64_t start, uint64_t end);
bool codewatch_overlaps(const CodeWatch *cw, uint64_t addr, uint64_t size);
void codewatch_listen(CodeWatch *cw, CodeWriteListener fn, void *opaque);

/* A guest store of `size` bytes (already in guest byte order) to a write-protected page. */
void codewatch_store(Machine *m, Cpu *c, uint64_t addr, const uint8_t *bytes, unsigned size);

#endif
