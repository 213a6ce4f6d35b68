/* bench: one benchmark workload per ELF (bench-<name>.elf, built with -DBENCH_WORKLOAD=<name>).
 * bench-none boots and exits: pmusim and QEMU net times subtract it.  bench/run.sh also calls
 * the same functions on the bare engine, with bench_iterations read from the ELF. */
#include "guest.h"

#ifndef BENCH_WORKLOAD
#define BENCH_WORKLOAD none
#endif
#define STR2(x) #x
#define STR(x) STR2(x)

/* arch/<arch>/bench_kernels.S: fixed block shapes (see there) */
unsigned long bench_tight(unsigned long n);     /* 2 instructions per iteration */
unsigned long bench_alu(unsigned long n);       /* one 10-instruction block per iteration */
unsigned long bench_store(unsigned long n);     /* one store per iteration, store-bound */
unsigned long bench_load(unsigned long n);      /* one load per iteration */

/* Call-heavy: two calls per iteration into tiny functions (noipa: compiled as written). */
__attribute__((noipa)) unsigned long bench_add(unsigned long a, unsigned long b)
{
    return a + b;
}

__attribute__((noipa)) unsigned long bench_mul(unsigned long a, unsigned long b)
{
    return a * b;
}

__attribute__((noipa)) unsigned long bench_calls(unsigned long n)
{
    unsigned long s = 0;
    for (unsigned long i = 0; i < n; i++)
        s = bench_add(s, bench_mul(i, 3));
    return s;
}

static const struct {
    const char *name;
    unsigned long (*fn)(unsigned long);
    unsigned long n;
} workloads[] = {
    { "tight", bench_tight, 100000000 },
    { "alu", bench_alu, 20000000 },
    { "calls", bench_calls, 10000000 },
    { "store", bench_store, 10000000 },
    { "load", bench_load, 100000000 },
};

/* Where CPU 0's stack starts (link.ld.S), so the bare-engine runner uses the same stack: the
 * engine's store cost depends on how close stores are to translated code. */
extern char __stacks[];
char *const bench_stack_top = __stacks + STACK_SIZE;

/* The iterations of this ELF's workload, for the bare-engine runner. */
const unsigned long bench_iterations =
    __builtin_strcmp(STR(BENCH_WORKLOAD), "tight") == 0 ? 100000000 :
    __builtin_strcmp(STR(BENCH_WORKLOAD), "alu") == 0 ? 20000000 :
    __builtin_strcmp(STR(BENCH_WORKLOAD), "load") == 0 ? 100000000 :
    __builtin_strcmp(STR(BENCH_WORKLOAD), "none") == 0 ? 0 : 10000000;

int main(void)
{
    const char *want = STR(BENCH_WORKLOAD);
    for (unsigned i = 0; i < sizeof workloads / sizeof workloads[0]; i++)
        if (!strcmp(workloads[i].name, want)) {
            unsigned long r = workloads[i].fn(workloads[i].n);
            printf("bench %s n=%lu r=%lu\n", want, workloads[i].n, r);
            return 0;
        }
    printf("bench none\n");
    return 0;
}
