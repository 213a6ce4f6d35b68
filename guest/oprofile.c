/* oprofile (ppc32): oprofile-style sampling on the MPC7450's performance monitor.
 *
 * The kernel sets up an oprofile driver in the shape of Linux's op_model_7450
 * (arch/ppc32/op_model_7450.c), starts a decrementer tick at HZ, and drops to a user program
 * (oprofile_user.c) that runs in problem state and calls into the kernel with sc.  Every counter
 * that goes negative raises the performance-monitor exception; the handler records SIAR, whether
 * it is a kernel address, and the counter, into a buffer (oprofile_add_ext_sample), rewrites the
 * counter's reset value 0x80000000 - count and restarts.  When the buffer holds `samples`
 * samples profiling stops, the program exits and the kernel prints its own summary: the samples
 * per symbol (kallsyms), the same table `pmusim report` makes from pmusim's --samples file.
 *
 * Bootargs (/chosen/bootargs, all optional):
 *   event=E     insns (default): PMC1 counts instructions completed (selector 2);
 *               cycles: PMC1 counts processor cycles (selector 1);
 *               both: PMC1 cycles and PMC2 instructions, each sampling
 *   count=N     events per sample, 100..0x7fffffff (default 9973, a prime: no lock-step with
 *               the workload's loops)
 *   samples=N   samples to take, 1..MAX_SAMPLES (default 10000)
 *   hz=N        decrementer ticks per second, 1..10000 (default 250)
 *   tuned       the user program's compare_keys after tuning (a word at a time)
 * A bad value is reported and ignored.  The output is the same on every run. */
#include "guest.h"
#include "cmdline.h"
#include "fdt.h"
#include "kallsyms.h"
#include "op_model_7450.h"
#include "oprofile.h"
#include "ppc.h"
#include "trap.h"

#define MAX_SAMPLES     32768
#define MAX_SYMBOLS     64              /* distinct symbols in the summary */
#define USER_STACK_SIZE 16384
#define SPRN_PVR        287

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
    u32 pc;
    u8 counter;
    u8 is_kernel;
};

static struct op_sample sample_buf[MAX_SAMPLES];
static unsigned nr_samples;
static struct op_counter_config counter_config[OP_MAX_COUNTER];

/* User addresses: [__user_addr_start, __user_addr_end) (the linker script): the identity-mapped
 * guest's .user.text; in the -high guest, as Linux's is_kernel_addr() (asm/page.h: x >= TASK_SIZE,
 * PAGE_OFFSET here), everything below KERNELBASE but the real-mode vectors (link.ld.S). */
extern const char __user_addr_start[], __user_addr_end[];

bool is_kernel_addr(unsigned long pc)
{
    return pc < (unsigned long)__user_addr_start || pc >= (unsigned long)__user_addr_end;
}

void oprofile_add_ext_sample(unsigned long pc, struct trap_frame *regs, unsigned long event,
                             bool is_kernel)
{
    if (nr_samples < samples_wanted)
        sample_buf[nr_samples++] = (struct op_sample){ pc, (u8)event, is_kernel };
    if (nr_samples == samples_wanted)
        fsl7450_stop();
}

/* Linux: performance_monitor_exception -> perf_irq -> op_handle_interrupt */
static void performance_monitor_exception(struct trap_frame *f)
{
    fsl7450_handle_interrupt(f, counter_config);
}

/* ---- time: the timebase and the decrementer (Linux: arch/powerpc/kernel/time.c) */

static unsigned long tb_ticks_per_sec, tb_ticks_per_jiffy;
static u64 next_tb, start_tb;
static unsigned long jiffies;

static int time_init(void)
{
    int node = boot_fdt ? fdt_first_cpu(boot_fdt) : -1, len;
    const void *p = node >= 0 ? fdt_prop(boot_fdt, node, "timebase-frequency", &len) : NULL;

    if (p && len == 4)
        tb_ticks_per_sec = fdt_read_cells(p, 1);
    if (!tb_ticks_per_sec) {
        printf("time_init: no timebase-frequency in the device tree\n");
        return -1;
    }
    tb_ticks_per_jiffy = tb_ticks_per_sec / hz;
    if (!tb_ticks_per_jiffy || tb_ticks_per_jiffy > 0x7fffffff) {
        printf("time_init: HZ=%u does not fit the timebase\n", hz);
        return -1;
    }
    return 0;
}

/* DEC raises 0x900 when it goes negative: program the time to next_tb. */
static void set_dec(void)
{
    s64 d = (s64)(next_tb - get_tb());

    mtspr(SPRN_DEC, d > 0 ? (unsigned long)d : 1);
}

static void timer_interrupt(struct trap_frame *f)
{
    jiffies++;
    next_tb += tb_ticks_per_jiffy;
    set_dec();
}

/* ---- system calls */

static void print_summary(long code);

static void system_call(struct trap_frame *f)
{
    /* On the kernel's stack, as Linux's (the -high build's exception prolog switches to it; the
     * identity build keeps the user stack, which its is_kernel_addr counts as the kernel's). */
    if (!is_kernel_addr((unsigned long)f))
        panic("system call frame at %p: on the user stack", (void *)f);
    local_irq_enable();                 /* as Linux runs them */
    switch (f->gpr[0]) {
    case SYS_checksum: {
        extern unsigned long do_checksum(const void *buf, unsigned long len);
        f->gpr[3] = do_checksum((const void *)f->gpr[3], f->gpr[4]);
        break;
    }
    case SYS_profiling:
        f->gpr[3] = nr_samples < samples_wanted;
        break;
    case SYS_exit:
        local_irq_disable();
        print_summary((long)f->gpr[3]);
        guest_exit(0);
    default:
        f->gpr[3] = -38;                /* ENOSYS */
    }
    local_irq_disable();
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

static void print_summary(long code)
{
    static struct sym_count syms[MAX_SYMBOLS];
    unsigned nsyms = 0, kernel = 0, other = 0;

    fsl7450_stop();
    mtspr(SPRN_DEC, 0x7fffffff);        /* no more ticks */
    for (unsigned i = 0; i < nr_samples; i++) {
        unsigned long size, off;
        const char *name = kallsyms_lookup(sample_buf[i].pc, &size, &off);
        bool k = sample_buf[i].is_kernel;
        unsigned j;

        kernel += k;
        if (!name)
            name = "(no symbol)";
        for (j = 0; j < nsyms; j++)
            if (syms[j].name == name && syms[j].is_kernel == k)
                break;
        if (j == nsyms) {
            if (nsyms == MAX_SYMBOLS) {
                other++;
                continue;
            }
            syms[nsyms++] = (struct sym_count){ name, k, 0 };
        }
        syms[j].count++;
    }
    for (unsigned i = 1; i < nsyms; i++)        /* insertion sort: a few dozen symbols */
        for (unsigned j = i; j > 0 && sym_before(&syms[j], &syms[j - 1]); j--) {
            struct sym_count t = syms[j];
            syms[j] = syms[j - 1];
            syms[j - 1] = t;
        }
    printf("oprofile: %u samples (%u kernel, %u user) in %lu jiffies, %llu timebase ticks; "
           "program exit %ld\n", nr_samples, kernel, nr_samples - kernel, jiffies,
           (unsigned long long)(get_tb() - start_tb), code);
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

int main(void)
{
    static const unsigned pmc1_event[] = { 2, 1, 1 };   /* insns, cycles, both */

    parse_bootargs(cmdline_bootargs(), setup_params, sizeof(setup_params) / sizeof(setup_params[0]),
                   "oprofile");
    if (time_init())
        return GUEST_EXIT_FAIL;
    printf("oprofile: PVR %08lx, timebase %lu Hz, HZ=%u\n", mfspr(SPRN_PVR), tb_ticks_per_sec, hz);
    printf("oprofile: event=%s count=%u samples=%u%s\n", event_names[event_mode], sample_count,
           samples_wanted, tuned ? " tuned" : "");

    counter_config[0] = (struct op_counter_config){ true, pmc1_event[event_mode], sample_count };
    if (event_mode == EVENT_BOTH)
        counter_config[1] = (struct op_counter_config){ true, 2, sample_count };
    struct op_system_config sys = { .enable_kernel = true, .enable_user = true };

    trap_set_handler(TRAP_VEC(0x900), timer_interrupt);
    trap_set_handler(TRAP_VEC(0xf00), performance_monitor_exception);
    trap_set_handler(TRAP_SYSCALL, system_call);
    fsl7450_reg_setup(counter_config, &sys, OP_MAX_COUNTER);
    fsl7450_cpu_setup(counter_config);

    start_tb = get_tb();
    next_tb = start_tb + tb_ticks_per_jiffy;
    set_dec();
    fsl7450_start(counter_config);
    user_args.tuned = tuned;
    enter_user(user_main, &user_args, user_stack + USER_STACK_SIZE);
}
