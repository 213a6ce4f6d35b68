/* ftrace: Linux's dynamic function tracer and static keys, on every architecture.
 *
 * At boot ftrace_init() turns every call site into a NOP and jump_label_init() every static-key
 * site into the NOP while its key is false; all of it before any other CPU runs.  Then the
 * secondaries start and run the workload (ftrace_work.c) round after round.  CPU 0 runs it too,
 * with the tracer off; then, once every other CPU has run a round, it enables the tracer the
 * bootargs chose on the functions of the filter (patching the sites into calls to ftrace_caller)
 * and turns the static key on, runs `rounds` rounds traced, waits for two more rounds of every
 * other CPU, turns both off again (the sites back to NOPs) and runs once more untraced.  Every patch of live code goes through text_poke: the x86
 * INT3 protocol with IPI syncs, arm64 and ppc32 a word store and the cache maintenance.  The
 * trace is in the per-CPU rings (trace_buffer.h) for `pmusim run --guest-trace`.
 *
 * Bootargs (/chosen/bootargs, all optional):
 *   ftrace=T              function (default) or function_graph; nop traces nothing
 *   ftrace_filter=G[,G]   functions to trace, globs with * and ? (default: all)
 *   trace_buf_size=N      bytes of ring per CPU (default 65536; entries are 32 bytes)
 *   trace_options=O       overwrite (default) or nooverwrite (a full ring drops new entries)
 *   rounds=N              traced rounds on CPU 0, 1..100000 (default 3)
 * A bad value is reported and ignored. */
#include "guest.h"
#include "cmdline.h"
#include "fdt.h"
#include "ftrace.h"
#include "ftrace_work.h"
#include "jump_label.h"
#include "smp.h"
#include "text_poke.h"
#include "trace_buffer.h"
#ifdef __powerpc__
#include "feature_fixups.h"
extern unsigned long l3_flushes;
#endif

static const char *const tracer_names[] = { "nop", "function", "function_graph" };
static unsigned tracer = TRACER_FUNCTION;
static char filter[128];
static unsigned buf_size = 65536;
static bool overwrite = true;
static unsigned rounds = 3;

notrace static bool ftrace_setup(const char *val, size_t len)
{
    for (unsigned i = 0; i < sizeof(tracer_names) / sizeof(tracer_names[0]); i++)
        if (param_is(val, len, tracer_names[i])) {
            tracer = i;
            return true;
        }
    return false;
}

notrace static bool filter_setup(const char *val, size_t len)
{
    if (len >= sizeof(filter))
        return false;
    memcpy(filter, val, len);
    filter[len] = 0;
    return true;
}

notrace static bool buf_size_setup(const char *val, size_t len)
{
    unsigned v;
    if (!parse_uint(val, len, 1u << 24, &v) || v < sizeof(struct trace_entry))
        return false;
    buf_size = v;
    return true;
}

notrace static bool options_setup(const char *val, size_t len)
{
    if (param_is(val, len, "overwrite"))
        overwrite = true;
    else if (param_is(val, len, "nooverwrite"))
        overwrite = false;
    else
        return false;
    return true;
}

notrace static bool rounds_setup(const char *val, size_t len)
{
    return parse_uint(val, len, 100000, &rounds) && rounds;
}

static const struct kernel_param setup_params[] = {
    { "ftrace=", ftrace_setup },
    { "ftrace_filter=", filter_setup },
    { "trace_buf_size=", buf_size_setup },
    { "trace_options=", options_setup },
    { "rounds=", rounds_setup },
};

/* ---- the other CPUs: the workload until told to stop */

static volatile bool stop_secondaries;
static unsigned secondaries_done;
static unsigned long secondary_sum[MAX_CPUS];
static unsigned rounds_done[MAX_CPUS];

notrace static void secondary_main(unsigned cpu)
{
    ftrace_arch_cpu_init(cpu);
    unsigned long sum = 0;
    for (unsigned r = 0; !stop_secondaries; r++) {
        sum += work_round(cpu * 1000 + r);
        __atomic_store_n(&rounds_done[cpu], r + 1, __ATOMIC_RELEASE);
    }
    secondary_sum[cpu] = sum;
    __atomic_add_fetch(&secondaries_done, 1, __ATOMIC_RELEASE);
}

/* Until every other CPU has finished `more` rounds from now: the patching then happens while
 * they run the code, and they run some of it traced. */
notrace static void wait_rounds(unsigned more)
{
    unsigned start[MAX_CPUS];
    for (unsigned c = 1; c < nr_cpus; c++)
        start[c] = __atomic_load_n(&rounds_done[c], __ATOMIC_ACQUIRE);
    for (unsigned c = 1; c < nr_cpus; c++)
        while (__atomic_load_n(&rounds_done[c], __ATOMIC_ACQUIRE) - start[c] < more)
            cpu_relax();
}

/* The faulty fixtures' bugs that are not in the patching primitives themselves. */
notrace static void inject_bugs(void)
{
    if (ftrace_bug("non-site")) {
        /* Rewrite an instruction that is no patch site (with itself: harmless, but a write to
         * code the kernel has no business making). */
        volatile u8 *p = (volatile u8 *)(ftrace_records[0].ip + 8);
        *p = *p;
    }
#ifdef __aarch64__
    if (ftrace_bug("concurrent")) {
        /* ftrace_init's MOV again, with the other CPUs running: MOV may not change under them. */
        for (unsigned i = 0; i < ftrace_nr_records; i++) {
            static const u32 nop = 0xd503201fu, mov = 0xaa1e03e9u;
            text_poke(ftrace_records[i].ip, (const u8 *)&nop, 4);
            text_poke(ftrace_records[i].ip, (const u8 *)&mov, 4);
        }
    }
#endif
}

notrace int main(void)
{
    parse_bootargs(cmdline_bootargs(), setup_params, sizeof(setup_params) / sizeof(setup_params[0]),
                   "ftrace");
    smp_init();
    u64 hz = ftrace_arch_clock_hz();
    if (!hz) {
        printf("ftrace: no trace clock rate in the device tree\n");
        return GUEST_EXIT_FAIL;
    }
    if (!trace_buffer_init(nr_cpus, buf_size / sizeof(struct trace_entry), hz, overwrite)) {
        printf("ftrace: trace_buf_size=%u is too large for %u cpus\n", buf_size, nr_cpus);
        return GUEST_EXIT_FAIL;
    }
    ftrace_arch_init();
    ftrace_arch_cpu_init(0);
#ifdef __powerpc__
    unsigned long pvr;
    asm volatile("mfspr %0, 287" : "=r"(pvr));
    unsigned long features = cpu_features_from_pvr(pvr);
    printf("cpu: PVR 0x%08lx, features 0x%lx: %u feature section(s) patched out\n", pvr, features,
           do_feature_fixups(features));
#endif
    int n = ftrace_init();
    if (n < 0)
        return GUEST_EXIT_FAIL;
    printf("ftrace: allocated %d entries\n", n);
    jump_label_init();
    unsigned selected = ftrace_set_filter(filter);
    printf("ftrace: tracer=%s filter=%s: %u of %d functions, %u cpus, %u-entry rings (%s)\n",
           tracer_names[tracer], filter[0] ? filter : "*", selected, n, nr_cpus,
           buf_size / (unsigned)sizeof(struct trace_entry), overwrite ? "overwrite" : "nooverwrite");

    if (nr_cpus > 1) {
        smp_boot_secondaries(secondary_main);
        while (num_online_cpus() < nr_cpus)
            cpu_relax();
    }
    unsigned long sum = work_round(1);                          /* untraced */
    wait_rounds(1);
    inject_bugs();
    if (tracer != TRACER_NOP && ftrace_start(tracer))
        return GUEST_EXIT_FAIL;
    static_key_enable(&work_stats_key);
    for (unsigned r = 0; r < rounds; r++)
        sum += work_round(2 + r);
    wait_rounds(2);
    static_key_disable(&work_stats_key);
    ftrace_stop();
    sum += work_round(1);                                       /* untraced again */
    wait_rounds(1);

    stop_secondaries = true;
    while (__atomic_load_n(&secondaries_done, __ATOMIC_ACQUIRE) < nr_cpus - 1)
        cpu_relax();
    printf("ftrace: cpu 0: rounds=%u sum=0x%lx stats=%lu/%lu\n", rounds + 2, sum, work_stats_hits[0],
           work_checksum_hits[0]);
#ifdef __powerpc__
    printf("ftrace: L3 feature section ran %lu times\n", l3_flushes);
#endif
    for (unsigned c = 0; c < nr_cpus; c++) {
        const struct trace_cpu_buffer *b = &trace_buffers.cpu[c];
        printf("ftrace: cpu %u: entries=%llu overrun=%llu dropped=%llu\n", c,
               (unsigned long long)(b->written - b->overrun), (unsigned long long)b->overrun,
               (unsigned long long)b->dropped);
    }
    return 0;
}
