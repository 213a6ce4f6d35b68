/* oprofile_kernel.c (arm64) — the oprofile scenario's kernel on arm64: oprofile-style sampling
 * through PMUv3 overflow interrupts taken as pseudo-NMIs.
 *
 * The same scenario as the ppc32 one (guest/oprofile.c: the same user program, oprofile_user.c,
 * the same bootargs and the same summary), on the arm64 pieces of the watchdog guest: the GICv3
 * with Linux's pseudo-NMI (gic.h: PMR 0x60/0xe0, the PMU's PPI at priority 0x20), the physical
 * generic timer for the HZ tick (arch_timer.h), the PMUv3 perf driver (perf.h), and oprofile on
 * top of perf as ARM's oprofile was (oprofile_perf.h).  The kernel starts the counters, the tick,
 * and drops to the user program at EL0 (user.S), which calls into the kernel with SVC; the
 * kernel computes the checksum with interrupts masked by ICC_PMR_EL1 (spin_lock_irq), where
 * only the NMI gets in, and its samples land there all the same.  Each
 * counter overflow is a pseudo-NMI whose handler re-arms the counter with -period
 * (armpmu_event_set_period) and records the interrupted PC (ELR_EL1) and whether EL0 was
 * interrupted.  When the buffer holds `samples` samples the counters stop, the program exits and
 * the kernel prints its own table (kallsyms): the one `pmusim report` makes, except that a
 * sample's PC here is the interrupted one (where execution resumes) while pmusim records the
 * instruction that overflowed, and a sample the PSTATE.I of an exception entry or an IRQ
 * handler held off lands where the mask is lifted (real hardware's skid, as Linux sees it).
 *
 * Bootargs (/chosen/bootargs, all optional):
 *   event=E     insns (default): PMEVCNTR0_EL0 counts INST_RETIRED (0x08);
 *               cycles: CPU_CYCLES (0x11), on the cycle counter PMCCNTR_EL0;
 *               both: cycles on PMCCNTR_EL0 and instructions on PMEVCNTR0_EL0, each sampling
 *   count=N     events per sample, 100..0x7fffffff (default 9973, a prime: no lock-step with
 *               the workload's loops)
 *   samples=N   samples to take, 1..MAX_SAMPLES (default 10000)
 *   hz=N        timer ticks per second, 1..10000 (default 250)
 *   tuned       the user program's compare_keys after tuning (a word at a time)
 * A bad value is reported and ignored.  The output is the same on every run. */
#include "guest.h"
#include "arch_timer.h"
#include "cmdline.h"
#include "gic.h"
#include "kallsyms.h"
#include "oprofile.h"
#include "oprofile_perf.h"
#include "perf.h"
#include "trap.h"

#define MAX_SAMPLES     32768
#define MAX_SYMBOLS     64              /* distinct symbols in the summary */
#define USER_STACK_SIZE 16384
#define PSR_MODE_MASK   0xf             /* SPSR_EL1.M[3:0] */
#define PSR_MODE_EL0t   0x0
#define ENOSYS          38

/* ---- parameters */

enum { EVENT_INSNS, EVENT_CYCLES, EVENT_BOTH };
static const char *const event_names[] = { "insns", "cycles", "both" };
static unsigned event_mode = EVENT_INSNS;
static unsigned sample_count = 9973;
static unsigned samples_wanted = 10000;
static unsigned hz = 250;
static bool tuned;

static bool event_setup(const char *val, size_t len)
{
    for (unsigned i = 0; i < sizeof(event_names) / sizeof(event_names[0]); i++)
        if (param_is(val, len, event_names[i])) {
            event_mode = i;
            return true;
        }
    return false;
}

static bool count_setup(const char *val, size_t len)
{
    return parse_uint(val, len, 0x7fffffff, &sample_count) && sample_count >= 100;
}

static bool samples_setup(const char *val, size_t len)
{
    unsigned v;

    if (!parse_uint(val, len, MAX_SAMPLES, &v) || !v)
        return false;
    samples_wanted = v;
    return true;
}

static bool hz_setup(const char *val, size_t len)
{
    unsigned v;

    if (!parse_uint(val, len, 10000, &v) || !v)
        return false;
    hz = v;
    return true;
}

static bool tuned_setup(const char *val, size_t len)
{
    tuned = true;
    return true;
}

static const struct kernel_param setup_params[] = {
    { "event=", event_setup },
    { "count=", count_setup },
    { "samples=", samples_setup },
    { "hz=", hz_setup },
    { "tuned", tuned_setup },
};

/* ---- the oprofile core: the sample buffer (Linux: drivers/oprofile/cpu_buffer.c) */

struct op_sample {
    unsigned long pc;
    u8 counter;
    u8 is_kernel;
};

static struct op_sample sample_buf[MAX_SAMPLES];
static unsigned nr_samples;

/* Linux: user_mode(regs) (arch/arm64/include/asm/ptrace.h): the exception came from EL0t. */
static bool user_mode(const struct trap_frame *regs)
{
    return (regs->spsr & PSR_MODE_MASK) == PSR_MODE_EL0t;
}

/* In the overflow NMI.  The last sample wanted stops the counters there and then, so that the
 * samples pmusim records are exactly the ones kept here. */
void oprofile_add_sample(struct trap_frame *regs, unsigned long event)
{
    if (nr_samples < samples_wanted)
        sample_buf[nr_samples++] = (struct op_sample){ trap_pc(regs), (u8)event, !user_mode(regs) };
    if (nr_samples == samples_wanted)
        oprofile_perf_stop();
}

/* ---- time: the generic timer's tick (Linux: kernel/time/tick-common.c's periodic tick) */

static unsigned long jiffies;
static u64 start_cnt;

static void timer_interrupt(struct trap_frame *regs)
{
    jiffies++;
}

/* ---- system calls (Linux: el0_svc -> invoke_syscall; x8 the number, x0.. the arguments) */

static void print_summary(long code);

/* Linux runs system calls with interrupts on (el0_svc: local_daif_restore(DAIF_PROCCTX)): PSTATE.I
 * clear, PMR as the user left it (GIC_PRIO_IRQON).  PSTATE.I is set again before the return, so
 * that no interrupt overwrites ELR_EL1 and SPSR_EL1 on the way out (vectors.S). */
static inline void syscall_irqs_on(void)
{
    asm volatile("msr daifclr, #2" ::: "memory");
}

static inline void syscall_irqs_off(void)
{
    asm volatile("msr daifset, #2" ::: "memory");
}

static void system_call(struct trap_frame *f)
{
    if (!user_mode(f))
        panic("SVC from EL1 at %lx", f->elr);
    syscall_irqs_on();
    switch (f->x[8]) {
    case SYS_checksum: {
        extern unsigned long do_checksum(const void *buf, unsigned long len);
        /* as under a spin_lock_irq(): masked by PMR, where only the NMI gets in, so that its
         * samples land in do_checksum and not where the mask is lifted */
        local_irq_disable();
        f->x[0] = do_checksum((const void *)f->x[0], f->x[1]);
        local_irq_enable();
        break;
    }
    case SYS_profiling:
        f->x[0] = nr_samples < samples_wanted;
        break;
    case SYS_exit:
        local_irq_disable();
        print_summary((long)f->x[0]);
        guest_exit(0);
    default:
        f->x[0] = -ENOSYS;
    }
    syscall_irqs_off();
}

/* A 32-bit ones'-complement sum of the words of buf (Linux's csum_partial, minus the tail). */
__attribute__((noinline)) unsigned long do_checksum(const void *buf, unsigned long len)
{
    const u32 *p = buf;
    u64 sum = 0;

    for (unsigned long i = 0; i < len / 4; i++)
        sum += p[i];
    while (sum >> 32)
        sum = (sum & 0xffffffff) + (sum >> 32);
    return (unsigned long)sum;
}

/* ---- the summary: samples per symbol, as pmusim report orders them */

struct sym_count {
    const char *name;
    bool is_kernel;
    unsigned long count;
};

static bool sym_before(const struct sym_count *a, const struct sym_count *b)
{
    if (a->count != b->count)
        return a->count > b->count;
    if (a->is_kernel != b->is_kernel)
        return a->is_kernel;
    return strcmp(a->name, b->name) < 0;
}

/* Count sample i into syms (a new row if its symbol is new); false if the table is full. */
static bool count_sample(struct sym_count *syms, unsigned *nsyms, unsigned i)
{
    unsigned long size, off;
    const char *name = kallsyms_lookup(sample_buf[i].pc, &size, &off);
    bool k = sample_buf[i].is_kernel;
    unsigned j;

    if (!name)
        name = "(no symbol)";
    for (j = 0; j < *nsyms; j++)
        if (syms[j].name == name && syms[j].is_kernel == k)
            break;
    if (j == *nsyms) {
        if (*nsyms == MAX_SYMBOLS)
            return false;
        syms[(*nsyms)++] = (struct sym_count){ name, k, 0 };
    }
    syms[j].count++;
    return true;
}

static void print_summary(long code)
{
    static struct sym_count syms[MAX_SYMBOLS];
    unsigned nsyms = 0, kernel = 0, other = 0;

    oprofile_perf_stop();
    for (unsigned i = 0; i < nr_samples; i++) {
        kernel += sample_buf[i].is_kernel;
        other += !count_sample(syms, &nsyms, i);
    }
    for (unsigned i = 1; i < nsyms; i++)        /* insertion sort: a few dozen symbols */
        for (unsigned j = i; j > 0 && sym_before(&syms[j], &syms[j - 1]); j--) {
            struct sym_count t = syms[j];
            syms[j] = syms[j - 1];
            syms[j - 1] = t;
        }
    printf("oprofile: %u samples (%u kernel, %u user) in %lu jiffies, %llu counter ticks; "
           "program exit %ld\n", nr_samples, kernel, nr_samples - kernel, jiffies,
           (unsigned long long)(arch_counter_get_cntpct() - start_cnt), code);
    printf("oprofile: samples  image    symbol\n");
    for (unsigned i = 0; i < nsyms; i++)
        printf("oprofile: %-8lu %-8s %s\n", syms[i].count, syms[i].is_kernel ? "kernel" : "user",
               syms[i].name);
    if (other)
        printf("oprofile: %-8u (more than %u symbols)\n", other, MAX_SYMBOLS);
}

/* ---- boot */

static u8 user_stack[USER_STACK_SIZE] __user_bss __attribute__((aligned(16)));
static struct user_args user_args __user_bss;

/* The GIC, the timer and the PMU, as the watchdog brings them up (watchdog_arch.h). */
static int oprofile_arch_setup(void)
{
    if (!gic_init()) {
        printf("oprofile: no GICv3\n");
        return GUEST_EXIT_FAIL;
    }
    if (!arch_timer_init()) {
        printf("oprofile: no generic timer with a PPI\n");
        return GUEST_EXIT_FAIL;
    }
    arch_timer_event_handler = timer_interrupt;
    if (init_hw_perf_events())
        return GUEST_EXIT_FAIL;
    gic_cpu_init();
    armv8pmu_cpu_init();
    return 0;
}

/* The counters as oprofilefs would set them (Linux: oprofile_perf.c's counter_config). */
static void counter_setup(void)
{
    static const unsigned long ctr0_event[] = {
        ARMV8_PMUV3_PERFCTR_INST_RETIRED, ARMV8_PMUV3_PERFCTR_CPU_CYCLES,
        ARMV8_PMUV3_PERFCTR_CPU_CYCLES,
    };

    counter_config[0] = (struct op_counter_config){
        .enabled = true, .event = ctr0_event[event_mode], .count = sample_count,
        .kernel = true, .user = true,
    };
    if (event_mode == EVENT_BOTH)
        counter_config[1] = (struct op_counter_config){
            .enabled = true, .event = ARMV8_PMUV3_PERFCTR_INST_RETIRED, .count = sample_count,
            .kernel = true, .user = true,
        };
}

int main(void)
{
    unsigned long midr;

    parse_bootargs(cmdline_bootargs(), setup_params, sizeof(setup_params) / sizeof(setup_params[0]),
                   "oprofile");
    int err = oprofile_arch_setup();
    if (err)
        return err;
    asm volatile("mrs %0, midr_el1" : "=r"(midr));
    printf("oprofile: MIDR %08lx, counter %lu Hz, HZ=%u\n", midr, (unsigned long)arch_timer_rate,
           hz);
    printf("oprofile: event=%s count=%u samples=%u%s\n", event_names[event_mode], sample_count,
           samples_wanted, tuned ? " tuned" : "");
    trap_set_handler(TRAP_EC_SVC64, system_call);
    counter_setup();
    start_cnt = arch_counter_get_cntpct();
    if (arch_timer_set_periodic(arch_timer_rate / hz ? arch_timer_rate / hz : 1))
        return GUEST_EXIT_FAIL;
    if (oprofile_perf_start())
        return GUEST_EXIT_FAIL;
    local_irq_enable();                 /* PMR: the user runs with interrupts on */
    user_args.tuned = tuned;
    enter_user(user_main, &user_args, user_stack + USER_STACK_SIZE);
}
