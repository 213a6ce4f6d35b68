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

/* Iterations per workload: long enough that the net time (the workload's run minus bench-none's)
 * stands well above the runner's process start-up noise (tens of ms on a VM): store runs 100M
 * iterations (400-500M instructions), not 10M, for a ratio to QEMU that holds from run to run. */
#define N_TIGHT 100000000ul
#define N_ALU 20000000ul
#define N_CALLS 10000000ul
#define N_STORE 100000000ul
#define N_LOAD 100000000ul

static const struct {
    const char *name;
    unsigned long (*fn)(unsigned long);
    unsigned long n;
} workloads[] = {
    { "tight", bench_tight, N_TIGHT },
    { "alu", bench_alu, N_ALU },
    { "calls", bench_calls, N_CALLS },
    { "store", bench_store, N_STORE },
    { "load", bench_load, N_LOAD },
};

/* Where CPU 0's stack starts (link.ld.S), so the bare-engine runner uses the same stack: the
 * engine's store cost depends on how close stores are to translated code. */
extern char __stacks[];
char *const bench_stack_top = __stacks + STACK_SIZE;

#define IS(w) (__builtin_strcmp(STR(BENCH_WORKLOAD), w) == 0)
/* The iterations of this ELF's workload, for the bare-engine runner. */
const unsigned long bench_iterations = IS("tight") ? N_TIGHT : IS("alu") ? N_ALU : IS("calls") ? N_CALLS :
                                       IS("store") ? N_STORE : IS("load") ? N_LOAD : 0;

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
