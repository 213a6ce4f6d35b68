/* trace_buffer.h — per-CPU trace ring buffers in guest memory, in a format pmusim decodes
 * (`pmusim run --guest-trace FILE`, docs/trace-format.md "Guest trace buffers").
 *
 * One descriptor, `trace_buffers` (pmusim finds it by that symbol), holds the clock rate of the
 * timestamps and, per CPU, an array of fixed-size entries used as a ring.  In overwrite mode
 * (Linux's default) a full ring overwrites its oldest entry and counts an overrun; otherwise the
 * new entry is dropped and counted.  Every field is a 32- or 64-bit integer in the CPU's byte
 * order.  The function tracer writes TRACE_FN / TRACE_GRAPH_* entries; later event sources share
 * the entry header. */
#ifndef GUEST_TRACE_BUFFER_H
#define GUEST_TRACE_BUFFER_H

#include "guest.h"

#define TRACE_BUFFER_MAGIC      0x504d5442u     /* "PMTB" */
#define TRACE_BUFFER_VERSION    1

enum trace_type {
    TRACE_FN = 1,                   /* ip called from parent: arg = parent ip */
    TRACE_GRAPH_ENT = 2,            /* ip entered at depth */
    TRACE_GRAPH_RET = 3,            /* ip returned at depth: arg = its entry timestamp */
};

/* Linux's trace flags (kernel/trace/trace.h) that these guests know. */
#define TRACE_FLAG_IRQS_OFF     0x01
#define TRACE_FLAG_HARDIRQ      0x08

struct trace_entry {                /* 32 bytes */
    u16 type;                       /* enum trace_type */
    u8 flags;                       /* TRACE_FLAG_* */
    u8 depth;                       /* function_graph call depth */
    u32 pid;                        /* 0: these guests have no tasks */
    u64 ts;                         /* the trace clock (arch_trace_clock) */
    u64 ip;
    u64 arg;
};

struct trace_cpu_buffer {
    u64 entries;                    /* address of struct trace_entry[size] */
    u64 size;                       /* entries in the ring */
    u64 written;                    /* entries written, overwritten ones included */
    u64 overrun;                    /* entries overwritten (overwrite mode) */
    u64 dropped;                    /* entries dropped on a full ring (no overwrite) */
};

struct trace_buffers {
    u32 magic, version;
    u32 nr_cpus, entry_size;
    u32 tracer;                     /* 0 nop, 1 function, 2 function_graph */
    u32 overwrite;
    u64 clock_hz;                   /* ticks per second of trace_entry.ts */
    struct trace_cpu_buffer cpu[MAX_CPUS];
};

extern struct trace_buffers trace_buffers;

/* Boot CPU: rings of `size` entries for nr_cpus CPUs (from a static pool), the clock rate and
 * the mode.  false if the pool is too small. */
bool trace_buffer_init(unsigned nr_cpus, unsigned long size, u64 clock_hz, bool overwrite);
/* Appends an entry on this CPU's ring, with interrupts off (safe against the CPU's own
 * interrupt handlers). */
void trace_buffer_write(u16 type, u8 depth, unsigned long ip, u64 arg, u64 ts);

#endif
