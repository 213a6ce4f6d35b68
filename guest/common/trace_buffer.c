/* trace_buffer.c — the per-CPU trace rings (trace_buffer.h). */
#include "trace_buffer.h"
#include "ftrace.h"
#include "percpu.h"

#define TRACE_POOL_ENTRIES  65536       /* 2 MiB, shared by the CPUs' rings */

struct trace_buffers trace_buffers;
static struct trace_entry pool[TRACE_POOL_ENTRIES];

notrace bool trace_buffer_init(unsigned nr_cpus, unsigned long size, u64 clock_hz, bool overwrite)
{
    if (!size || nr_cpus > MAX_CPUS || size * nr_cpus > TRACE_POOL_ENTRIES)
        return false;
    trace_buffers.nr_cpus = nr_cpus;
    trace_buffers.entry_size = sizeof(struct trace_entry);
    trace_buffers.clock_hz = clock_hz;
    trace_buffers.overwrite = overwrite;
    for (unsigned c = 0; c < nr_cpus; c++)
        trace_buffers.cpu[c] = (struct trace_cpu_buffer){ (uintptr_t)&pool[c * size], size, 0, 0, 0 };
    trace_buffers.version = TRACE_BUFFER_VERSION;
    trace_buffers.magic = TRACE_BUFFER_MAGIC;
    return true;
}

notrace void trace_buffer_write(u16 type, u8 depth, unsigned long ip, u64 arg, u64 ts)
{
    unsigned long irqflags = arch_local_irq_save();
    struct trace_cpu_buffer *b = &trace_buffers.cpu[smp_processor_id()];
    u64 n = b->written - b->overrun;            /* entries in the ring */

    if (b->size && (n < b->size || trace_buffers.overwrite)) {
        struct trace_entry *e = (struct trace_entry *)(uintptr_t)b->entries + b->written % b->size;
        *e = (struct trace_entry){ type, arch_irqs_disabled_flags(irqflags) ? TRACE_FLAG_IRQS_OFF : 0, depth, 0,
                                   ts, ip, arg };
        if (n == b->size)
            b->overrun++;
        b->written++;
    } else {
        b->dropped++;
    }
    arch_local_irq_restore(irqflags);
}
