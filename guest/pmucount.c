/* pmucount (x86_64): the guest's own PMU counts a workload, for pmusim stat's check against it
 * (tests/e2e/test_stat.sh).
 *
 * Fixed counter 0 counts retired instructions (INST_RETIRED.ANY) and fixed counter 1 unhalted
 * core cycles (CPU_CLK_UNHALTED.CORE), both at CPL 0 (the OS bit of IA32_FIXED_CTR_CTRL, Intel
 * SDM vol. 3B §20.2.2), from the WRMSR of IA32_PERF_GLOBAL_CTRL that enables them to the RDPMCs
 * that read them; the values are in the trace (`rdpmc ecx=0x40000000 value=...`).  Between them
 * the kernel runs `rounds` rounds of a fixed loop.  Nothing else differs between two runs with
 * different rounds=N (one digit: the command line parses alike), so the difference between the
 * counters' values of two runs is the difference between pmusim stat's totals of the same runs,
 * if both count what the CPU retired and spent.
 *
 * Bootargs: rounds=N, 1..9 (default 1). */
#include "guest.h"
#include "cmdline.h"
#include "perf.h"
#include "x86.h"

#define ROUND_ITERATIONS 1000
#define MAX_ROUNDS 9

static unsigned rounds = 1;

static bool rounds_setup(const char *val, size_t len)
{
    return parse_uint(val, len, MAX_ROUNDS, &rounds) && rounds;
}

static const struct kernel_param setup_params[] = {
    { "rounds=", rounds_setup },
};

/* A multiply-accumulate the compiler keeps (the asm hides the value). */
static __attribute__((noinline)) unsigned long work(unsigned n)
{
    unsigned long acc = 1;
    for (unsigned i = 0; i < n * ROUND_ITERATIONS; i++) {
        acc = acc * 6364136223846793005ul + i;
        asm volatile("" : "+r"(acc));
    }
    return acc;
}

int main(void)
{
    parse_bootargs(cmdline_bootargs(), setup_params, sizeof(setup_params) / sizeof(setup_params[0]), "pmucount");
    wrmsr(MSR_ARCH_PERFMON_FIXED_CTR0, 0);
    wrmsr(MSR_ARCH_PERFMON_FIXED_CTR0 + 1, 0);
    wrmsr(MSR_ARCH_PERFMON_FIXED_CTR_CTRL, INTEL_FIXED_0_KERNEL | INTEL_FIXED_0_KERNEL << 4);
    wrmsr(MSR_CORE_PERF_GLOBAL_CTRL, 3ull << INTEL_PMC_IDX_FIXED);
    work(rounds);
    rdpmc(INTEL_PMC_FIXED_RDPMC_BASE | 0);      /* read for the trace: printing the values would */
    rdpmc(INTEL_PMC_FIXED_RDPMC_BASE | 1);      /* run more instructions for longer numbers */
    wrmsr(MSR_CORE_PERF_GLOBAL_CTRL, 0);
    printf("pmucount: rounds=%u\n", rounds);
    return 0;
}
