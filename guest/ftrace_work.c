/* ftrace_work.c — the functions the ftrace scenario traces.  Built with the instrumentation
 * (Makefile: INSTRUMENT_<arch>): every function here starts with a call site.  Small on purpose:
 * a round calls a dozen functions two or three deep, so a trace of a few rounds reads well. */
#include "ftrace_work.h"
#include "percpu.h"

struct static_key work_stats_key = STATIC_KEY_INIT_FALSE;
unsigned long work_stats_hits[MAX_CPUS];

__attribute__((noinline)) static unsigned long mix(unsigned long h, unsigned long v)
{
    h ^= v;
    return h * 0x9e3779b1u + (h >> 7);
}

__attribute__((noinline)) unsigned fib(unsigned n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) static int cmp_u32(u32 a, u32 b)
{
    return a < b ? -1 : a > b;
}

__attribute__((noinline)) void sort_small(u32 *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++)
        for (unsigned j = i; j > 0 && cmp_u32(v[j - 1], v[j]) > 0; j--) {
            u32 t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

unsigned long work_checksum_hits[MAX_CPUS];

__attribute__((noinline)) unsigned long checksum(const u32 *v, unsigned n)
{
    unsigned long h = 0;
    for (unsigned i = 0; i < n; i++)
        h = mix(h, v[i]);
    if (static_branch_unlikely_nop5(&work_stats_key))      /* x86: a 5-byte site */
        work_checksum_hits[smp_processor_id()]++;
    return h;
}

__attribute__((noinline)) static void record_stats(unsigned long h)
{
    work_stats_hits[smp_processor_id()] += 1 + (h & 0);
}

#ifdef __powerpc__
#include "feature_fixups.h"

unsigned long l3_flushes;

/* A CPU feature section: only on CPUs with an L3 cache controller (BEGIN_FTR_SECTION ...
 * END_FTR_SECTION_IFSET(CPU_FTR_L3CR)); do_feature_fixups NOPs it out elsewhere. */
__attribute__((noinline)) static void l3_flush_hint(void)
{
    unsigned long n = l3_flushes;
    asm volatile("97:\n\taddi %0, %0, 1\n98:\n\t" FTR_SECTION_ENTRY(0x00040000, 0x00040000) : "+r"(n));
    l3_flushes = n;
}
#define FEATURE_HOOK()  l3_flush_hint()
#else
#define FEATURE_HOOK()  do { } while (0)
#endif

__attribute__((noinline)) unsigned long work_round(unsigned seed)
{
    u32 v[4];
    for (unsigned i = 0; i < 4; i++)
        v[i] = (seed + i) * 2654435761u >> 16;
    sort_small(v, 4);
    unsigned long h = checksum(v, 4) + fib(3);
    FEATURE_HOOK();
    if (static_branch_unlikely(&work_stats_key))
        record_stats(h);
    return h;
}
