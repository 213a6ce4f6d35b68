/* init.c — pmusim's Linux userspace scenario: the initramfs's /init.
 *
 * Linux runs it as the first process (init/main.c, kernel_init: /init of the initramfs) with
 * /dev/console as its standard outputs.  Its command line is the kernel's after "--" (init/main.c
 * hands everything after "--" to init as argv; Documentation/admin-guide/kernel-parameters.rst):
 *
 *     ... console=ttyAMA0 -- [STEP...] [thresh=SECONDS] [timeout=SECONDS] [iters=N]
 *
 * STEP is one of the steps below, run in the order given (none: tracefs ftrace perf kallsyms
 * dmesg); the file systems are mounted first whatever the steps.  Every step prints
 *     pmusim-init: <step> begin
 *     pmusim-init: <step>: ...             (what it saw)
 *     pmusim-init: <step> ok | FAIL: <reason>
 * or "pmusim-init: <step> skipped: <reason>" (perf without a hardware PMU), then the init prints
 * "pmusim-init: done: N ok, M failed[, K skipped]" and powers the machine off (reboot(2)
 * LINUX_REBOOT_CMD_POWER_OFF -> PSCI SYSTEM_OFF on arm64, the ACPI PM1 sleep state S5 on x86-64).  docs/guest-abi.md, "Linux
 * userspace scenario", is the reference for these lines.
 *
 * Steps:
 *   tracefs   events/sched/sched_switch/format; sched events through set_event around the workload
 *   ftrace    the function tracer with set_ftrace_filter, then function_graph with
 *             set_graph_function, then nop
 *   perf      perf_event_open: instructions and cycles of a known user loop (exclude_kernel), the
 *             expected instruction count and the measured one; then sampling with an overflow
 *             period into an mmap'ed ring
 *   kallsyms  kptr_restrict=0, then /proc/kallsyms's lines for a few names
 *   lockup    the watchdog's settings, watchdog_thresh=thresh, then /dev/kmsg watched for the
 *             hard-lockup report (pmusim --inject stall:cpu=1:cycle=N) for `timeout` seconds
 *   dmesg     the kernel's lines about the PMU driver and the board (arm64: GIC, arch timer, PL011;
 *             x86-64: NMI watchdog, I/O APIC, TSC, 16550) from /dev/kmsg
 *
 * The workload (fork, pipes, a known loop, a file read) is small: the whole scenario stays within
 * a few hundred million guest instructions after the boot.
 */
#include "lib.h"
#include "perf.h"

#define TRACING "/sys/kernel/tracing"
#define PRINT_LINES 8                   /* trace lines printed per step */
#define TCSBRK 0x5409                   /* include/uapi/asm-generic/ioctls.h */
#define TCSBRK_DRAIN 1                  /* a non-zero argument: wait, send no break (tty_ioctl(4)) */
#define WORK_CHILDREN 2
#define WORK_WRITES 4                   /* each child writes its pipe this many times */
#define WORK_BLOCK 64                   /* bytes per write */
#define WORK_SPIN 10000                 /* turns of a child's busy loop */
#define DEFAULT_THRESH 1                /* watchdog_thresh for the lockup step, seconds */
#define DEFAULT_TIMEOUT 30              /* the lockup step's wait, seconds of guest time */
#define LOCKUP_WATCH_CPU 0              /* the lockup step runs here; the stalled CPU is another */
#define LOCKUP_POLL_MS 100              /* /dev/kmsg read this often while waiting */
#define KMSG_RECORD 8192                /* one /dev/kmsg read returns one record: room for it */

typedef struct Scenario {
    unsigned long thresh, timeout, iters;
    int ok, failed, skipped;
} Scenario;

static Scenario sc = { DEFAULT_THRESH, DEFAULT_TIMEOUT, PERF_DEFAULT_ITERS, 0, 0, 0 };

static void begin(const char *step)
{
    out("pmusim-init: %s begin\n", step);
}

static int pass(const char *step)
{
    out("pmusim-init: %s ok\n", step);
    sc.ok++;
    return 1;
}

static int fail(const char *step, const char *why, long err)
{
    if (err)
        out("pmusim-init: %s FAIL: %s (error %ld)\n", step, why, -err);
    else
        out("pmusim-init: %s FAIL: %s\n", step, why);
    sc.failed++;
    return 0;
}

/* A step that cannot run on this machine, for a reason the kernel gave: neither ok nor failed. */
static int skip(const char *step, const char *why)
{
    out("pmusim-init: %s skipped: %s\n", step, why);
    sc.skipped++;
    return 0;
}

/* ------------------------------------------------------------------ mounts */

static int mount_all(void)
{
    static const struct { const char *src, *dir, *type; } mounts[] = {
        { "proc", "/proc", "proc" },
        { "sysfs", "/sys", "sysfs" },
        { "devtmpfs", "/dev", "devtmpfs" },
        { "tracefs", TRACING, "tracefs" },
    };
    begin("mount");
    for (unsigned i = 0; i < sizeof mounts / sizeof mounts[0]; i++) {
        long r = sys_mount(mounts[i].src, mounts[i].dir, mounts[i].type);
        if (r < 0)
            return fail("mount", mounts[i].dir, r);
        out("pmusim-init: mount: %s on %s\n", mounts[i].type, mounts[i].dir);
    }
    return pass("mount");
}

/* ------------------------------------------------------------------ the workload */

/* A child: a known busy loop, a file read (vfs_read, do_sys_openat2), writes into its pipe. */
static void child(int wfd, int index)
{
    char block[WORK_BLOCK], version[READ_CHUNK];
    volatile unsigned long spin = 0;
    for (unsigned long i = 0; i < WORK_SPIN; i++)
        spin += i;
    read_small("/proc/version", version, sizeof version);
    memset(block, 'a' + index, sizeof block);
    for (int i = 0; i < WORK_WRITES; i++)
        sys_write(wfd, block, sizeof block);
    sys_exit(index);
}

/* Fork the children, read every pipe to its end, reap them: 1 if all went as planned. */
static int workload(const char *step)
{
    int fds[WORK_CHILDREN][2];
    long bytes = 0, statuses = 0;
    for (int i = 0; i < WORK_CHILDREN; i++) {
        if (sys_pipe(fds[i]) < 0)
            return fail(step, "pipe2", 0);
        long pid = sys_fork();
        if (pid == 0) {
            sys_close(fds[i][0]);
            child(fds[i][1], i);
        }
        sys_close(fds[i][1]);
        if (pid < 0)
            return fail(step, "clone", pid);
    }
    char buf[WORK_BLOCK];
    for (int i = 0; i < WORK_CHILDREN; i++) {
        long n;
        while ((n = sys_read(fds[i][0], buf, sizeof buf)) > 0)
            bytes += n;
        sys_close(fds[i][0]);
    }
    for (int i = 0; i < WORK_CHILDREN; i++) {
        int status = 0;
        if (sys_wait(&status) > 0)
            statuses += (status >> 8) & 0xff;       /* WEXITSTATUS */
    }
    out("pmusim-init: %s: workload: %d children, %ld bytes through pipes, exit codes sum %ld\n", step,
        WORK_CHILDREN, bytes, statuses);
    return bytes == WORK_CHILDREN * WORK_WRITES * WORK_BLOCK;
}

/* ------------------------------------------------------------------ tracefs and ftrace */

/* Print a file's first `max` lines as "pmusim-init: <step>: <tag>: <line>" (comment lines, #,
 * skipped when skip_comments).  Returns the number of lines in the whole file, or -errno. */
static long print_file(const char *step, const char *tag, const char *path, int max, int skip_comments)
{
    static Lines l;
    long fd = sys_open(path, O_RDONLY), count = 0;
    if (fd < 0)
        return fd;
    lines_init(&l, (int)fd);
    while (lines_next(&l)) {
        if (skip_comments && l.line[0] == '#')
            continue;
        if (count++ < max)
            out("pmusim-init: %s: %s: %s\n", step, tag, l.line);
    }
    sys_close((int)fd);
    return count;
}

/* One pass over tracefs's `trace` (formatting it costs the guest: read it once): its first
 * PRINT_LINES lines printed, and counts[i] = the lines containing " <keys[i]>" + suffix. */
#define MAX_KEYS 8
static long scan_trace(const char *step, const char *tag, const char *const *keys, unsigned nkeys,
                       const char *suffix, long counts[])
{
    static Lines l;
    char match[MAX_KEYS][LINE_MAX];
    long fd = sys_open(TRACING "/trace", O_RDONLY), lines = 0;
    if (fd < 0)
        return fd;
    for (unsigned i = 0; i < nkeys && i < MAX_KEYS; i++) {
        format(match[i], sizeof match[i], " %s%s", keys[i], suffix);
        counts[i] = 0;
    }
    lines_init(&l, (int)fd);
    while (lines_next(&l)) {
        if (l.line[0] == '#')
            continue;
        if (lines++ < PRINT_LINES)
            out("pmusim-init: %s: %s: %s\n", step, tag, l.line);
        for (unsigned i = 0; i < nkeys && i < MAX_KEYS; i++)
            counts[i] += str_find(l.line, match[i]) != NULL;
    }
    sys_close((int)fd);
    out("pmusim-init: %s: %s: %ld lines\n", step, tag, lines);
    return lines;
}

/* Write a tracefs file (TRACING/<file>), replacing what it held. */
static long tset(const char *file, const char *value)
{
    char path[LINE_MAX];
    format(path, sizeof path, TRACING "/%s", file);
    return write_str(path, value, O_TRUNC);
}

/* A list of tracefs writes, stopping at the first error (its file named in *what). */
typedef struct TraceWrite {
    const char *file, *value;
} TraceWrite;

static long tset_all(const TraceWrite *w, int n, const char **what)
{
    for (int i = 0; i < n; i++) {
        long r = tset(w[i].file, w[i].value);
        if (r < 0) {
            *what = w[i].file;
            return r;
        }
    }
    return 0;
}

/* The sched events, counted per event in `trace` after the workload. */
static const char *const sched_events[] = { "sched_switch", "sched_process_fork", "sched_process_exec",
                                            "sched_process_exit", "sched_wakeup" };
#define N_SCHED_EVENTS (sizeof sched_events / sizeof sched_events[0])

static int tracefs_events(void)
{
    static const TraceWrite on[] = {
        { "tracing_on", "0" }, { "current_tracer", "nop" }, { "trace", "" },
        { "set_event", "sched:sched_switch sched:sched_process_fork sched:sched_process_exec "
                       "sched:sched_process_exit sched:sched_wakeup" },
        { "tracing_on", "1" },
    };
    static const TraceWrite off[] = { { "tracing_on", "0" }, { "set_event", "" } };
    const char *what = "";
    long r = tset_all(on, sizeof on / sizeof on[0], &what);
    if (r < 0)
        return fail("tracefs", what, r);
    int work = workload("tracefs");
    if ((r = tset_all(off, sizeof off / sizeof off[0], &what)) < 0)
        return fail("tracefs", what, r);
    long counts[N_SCHED_EVENTS];
    if ((r = scan_trace("tracefs", "trace", sched_events, N_SCHED_EVENTS, ": ", counts)) < 0)
        return fail("tracefs", "trace", r);
    int missing = 0;
    for (unsigned i = 0; i < N_SCHED_EVENTS; i++) {
        out("pmusim-init: tracefs: events: %s %ld\n", sched_events[i], counts[i]);
        missing += counts[i] <= 0 && strcmp(sched_events[i], "sched_process_exec") != 0;  /* nothing execs */
    }
    if (!work)
        return fail("tracefs", "the workload did not run as planned", 0);
    return missing ? fail("tracefs", "an event was not recorded", 0) : pass("tracefs");
}

static int tracefs(void)
{
    begin("tracefs");
    long n = print_file("tracefs", "format", TRACING "/events/sched/sched_switch/format", 1 << 10, 0);
    if (n <= 0)
        return fail("tracefs", "events/sched/sched_switch/format", n);
    return tracefs_events();
}

/* The function tracer's filter and what the trace shows of each function. */
static const char *const ftrace_funcs[] = { "schedule", "do_sys_openat2", "vfs_read" };
#define N_FTRACE_FUNCS (sizeof ftrace_funcs / sizeof ftrace_funcs[0])
/* function_graph's filter: vfs_read and what it calls for the workload's reads (fs/read_write.c,
 * fs/pipe.c, fs/seq_file.c) */
#define GRAPH_FILTER "vfs_read rw_verify_area security_file_permission pipe_read seq_read_iter"

/* Run the workload under the tracer `tracer` (tracing on around it only), then read the trace
 * once: counts[i] for keys[i] + suffix. */
static int ftrace_run(const char *tracer, const char *const *keys, unsigned nkeys, const char *suffix,
                      long counts[])
{
    const TraceWrite on[] = { { "current_tracer", tracer }, { "trace", "" }, { "tracing_on", "1" } };
    const char *what = "";
    long r = tset_all(on, sizeof on / sizeof on[0], &what);
    if (r < 0)
        return fail("ftrace", what, r);
    workload("ftrace");
    tset("tracing_on", "0");
    long n = scan_trace("ftrace", tracer, keys, nkeys, suffix, counts);
    return n > 0 ? 1 : fail("ftrace", "no trace lines", n);
}

static int ftrace_function(void)
{
    long counts[N_FTRACE_FUNCS];
    if (tset("set_ftrace_filter", "schedule do_sys_openat2 vfs_read") < 0)
        return fail("ftrace", "set_ftrace_filter", 0);
    print_file("ftrace", "filter", TRACING "/set_ftrace_filter", PRINT_LINES, 1);
    if (!ftrace_run("function", ftrace_funcs, N_FTRACE_FUNCS, " <-", counts))
        return 0;
    int missing = 0;
    for (unsigned i = 0; i < N_FTRACE_FUNCS; i++) {
        out("pmusim-init: ftrace: function: %s %ld\n", ftrace_funcs[i], counts[i]);
        missing += counts[i] <= 0;
    }
    return missing ? fail("ftrace", "a filtered function was not traced", 0) : 1;
}

static int ftrace(void)
{
    static const char *const graph_funcs[] = { "vfs_read" };
    long n;
    begin("ftrace");
    if (!ftrace_function())
        return 0;
    /* The graph's functions are filtered too: without a filter function_graph would patch and
     * trace every one of the kernel's ~50000 functions (costly in guest instructions). */
    if (tset("set_ftrace_filter", GRAPH_FILTER) < 0 || tset("set_graph_function", "vfs_read") < 0)
        return fail("ftrace", "set_graph_function", 0);
    if (!ftrace_run("function_graph", graph_funcs, 1, "() {", &n))
        return 0;
    out("pmusim-init: ftrace: function_graph: vfs_read %ld\n", n);
    tset("set_graph_function", "");
    tset("set_ftrace_filter", "");
    if (tset("current_tracer", "nop") < 0)
        return fail("ftrace", "current_tracer nop", 0);
    return n > 0 ? pass("ftrace") : fail("ftrace", "no vfs_read() { in the graph", 0);
}

/* ------------------------------------------------------------------ perf */

/* 1 ok, 0 failed, -1 no hardware PMU (the step skipped) */
static int perf_counting(void)
{
    PerfCount c;
    long r = perf_count(&c, sc.iters);
    if (r < 0 && c.no_pmu)
        return skip("perf", "no hardware PMU (ENOENT)"), -1;
    if (r < 0)
        return fail("perf", c.what, r);
    out("pmusim-init: perf: loop of %lu iterations: instructions expected %llu measured %llu\n", sc.iters,
        (unsigned long long)c.expected, (unsigned long long)c.insns);
    out("pmusim-init: perf: cycles measured %llu\n", (unsigned long long)c.cycles);
    return c.insns == c.expected ? 1 : fail("perf", "the instruction count is not the expected one", 0);
}

static int perf_sampling(void)
{
    PerfSamples s;
    long r = perf_sample(&s, sc.iters, PERF_SAMPLE_PERIOD);
    if (r < 0)
        return fail("perf", s.what, r);
    out("pmusim-init: perf: sampling every %u instructions: %lu samples, %lu in the loop, %lu lost\n",
        PERF_SAMPLE_PERIOD, s.samples, s.in_loop, s.lost);
    for (unsigned i = 0; i < s.nips; i++)
        out("pmusim-init: perf: sample ip 0x%lx\n", s.ips[i]);
    return s.samples > 0 ? 1 : fail("perf", "no samples", 0);
}

/* Without a hardware PMU (QEMU TCG: Linux's x86 perf driver finds no counters, "Performance
 * Events: PMU not available due to virtualization") the step is skipped, not failed: only when
 * the kernel itself says so (ENOENT for the hardware event). */
static int perf(void)
{
    begin("perf");
    int r = perf_counting();
    if (r <= 0 || !perf_sampling())
        return 0;
    return pass("perf");
}

/* ------------------------------------------------------------------ kallsyms */

/* The symbols looked up; the read stops when all are found. */
static const char *const ksyms[] = { "_text", "_stext", "schedule", "vfs_read", "do_sys_openat2",
                                     "start_kernel" };
#define N_KSYMS (sizeof ksyms / sizeof ksyms[0])

/* The name of a /proc/kallsyms line "ADDR T NAME[\t[module]]" */
static const char *ksym_name(const char *line)
{
    const char *p = str_find(line, " ");
    return p && p[1] && p[2] == ' ' ? p + 3 : "";
}

static int kallsyms(void)
{
    static Lines l;
    begin("kallsyms");
    long r = write_str("/proc/sys/kernel/kptr_restrict", "0", O_TRUNC);
    if (r < 0)
        return fail("kallsyms", "kptr_restrict", r);
    long fd = sys_open("/proc/kallsyms", O_RDONLY);
    if (fd < 0)
        return fail("kallsyms", "/proc/kallsyms", fd);
    unsigned found = 0, seen[N_KSYMS] = { 0 };
    lines_init(&l, (int)fd);
    while (found < N_KSYMS && lines_next(&l))
        for (unsigned i = 0; i < N_KSYMS; i++)
            if (!seen[i] && !strcmp(ksym_name(l.line), ksyms[i])) {
                seen[i] = 1, found++;
                out("pmusim-init: kallsyms: %s\n", l.line);
            }
    sys_close((int)fd);
    out("pmusim-init: kallsyms: %u of %u names found\n", found, (unsigned)N_KSYMS);
    return found == N_KSYMS ? pass("kallsyms") : fail("kallsyms", "a name is missing", 0);
}

/* ------------------------------------------------------------------ lockup and dmesg */

/* /dev/kmsg's record "PRI,SEQ,TS,FLAGS;MESSAGE\n" (Documentation/ABI/testing/dev-kmsg): the
 * message, its continuation lines (" KEY=VALUE") cut off. */
static char *kmsg_text(char *rec, long n)
{
    rec[n] = 0;
    char *nl = (char *)str_find(rec, "\n");
    if (nl)
        *nl = 0;
    const char *semi = str_find(rec, ";");
    return semi ? (char *)semi + 1 : rec;
}

/* Print the kernel's records that contain one of `keys` (NULL-terminated) until none is left;
 * *hit set when one contains `stop`.  Returns the number printed. */
static long kmsg_scan(int fd, const char *step, const char *const *keys, const char *stop, int *hit)
{
    static char rec[KMSG_RECORD];
    long n, printed = 0;
    while ((n = sys_read(fd, rec, sizeof rec - 1)) > 0 || n == -EPIPE) {
        if (n < 0)
            continue;                   /* -EPIPE: records overwritten before we read them */
        const char *text = kmsg_text(rec, n);
        for (const char *const *k = keys; *k; k++)
            if (str_find(text, *k)) {
                out("pmusim-init: %s: %s\n", step, text);
                printed++;
                break;
            }
        if (stop && str_find(text, stop))
            *hit = 1;
    }
    return printed;
}

static void print_setting(const char *path)
{
    char buf[LINE_MAX];
    long r = read_small(path, buf, sizeof buf);
    if (r < 0)
        out("pmusim-init: lockup: %s: error %ld\n", path, -r);
    else
        out("pmusim-init: lockup: %s = %s\n", path, buf);
}

static int lockup(void)
{
    static const char *const keys[] = { "LOCKUP", "lockup", "Watchdog", NULL };
    char v[LINE_MAX];
    begin("lockup");
    /* On CPU 0 only: a task whose CPU stalls (--inject stall:cpu=1) would never run again, and
     * a sleeping one is woken on the CPU it last ran on. */
    long pin = sys_pin_cpu(LOCKUP_WATCH_CPU);
    if (pin < 0)
        return fail("lockup", "sched_setaffinity", pin);
    print_setting("/proc/sys/kernel/watchdog");
    print_setting("/proc/sys/kernel/nmi_watchdog");
    print_setting("/proc/sys/kernel/watchdog_thresh");
    format(v, sizeof v, "%lu", sc.thresh);
    long r = write_str("/proc/sys/kernel/watchdog_thresh", v, O_TRUNC);
    if (r < 0)
        return fail("lockup", "watchdog_thresh", r);
    print_setting("/proc/sys/kernel/watchdog_thresh");
    long fd = sys_open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
    if (fd < 0)
        return fail("lockup", "/dev/kmsg", fd);
    sys_lseek((int)fd, 0, SEEK_END);    /* only what comes from now on */
    int hit = 0;
    unsigned long polls = sc.timeout * (NSEC_PER_SEC / NSEC_PER_MSEC) / LOCKUP_POLL_MS;
    for (unsigned long i = 0; i < polls && !hit; i++) {
        sys_sleep_ns(LOCKUP_POLL_MS * NSEC_PER_MSEC);
        kmsg_scan((int)fd, "lockup", keys, "Watchdog detected hard LOCKUP on cpu", &hit);
    }
    sys_close((int)fd);
    return hit ? pass("lockup") : fail("lockup", "no hard lockup reported in time", 0);
}

static int dmesg(void)
{
    static const char *const keys[] = { ARCH_DMESG_KEYS, NULL };
    begin("dmesg");
    long fd = sys_open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
    if (fd < 0)
        return fail("dmesg", "/dev/kmsg", fd);
    int hit = 0;
    long n = kmsg_scan((int)fd, "dmesg", keys, ARCH_DMESG_PMU, &hit);
    sys_close((int)fd);
    out("pmusim-init: dmesg: %ld lines\n", n);
    return hit ? pass("dmesg") : fail("dmesg", "no PMU driver line (" ARCH_DMESG_PMU ")", 0);
}

/* ------------------------------------------------------------------ the command line */

typedef struct Step {
    const char *name;
    int (*run)(void);
} Step;

static const Step steps[] = {
    { "tracefs", tracefs }, { "ftrace", ftrace }, { "perf", perf },
    { "kallsyms", kallsyms }, { "lockup", lockup }, { "dmesg", dmesg },
};
#define N_STEPS (sizeof steps / sizeof steps[0])
static const char *const default_steps[] = { "tracefs", "ftrace", "perf", "kallsyms", "dmesg" };

/* "name=N": N into *v; 1 if the word was this setting. */
static int setting(const char *word, const char *name, unsigned long *v)
{
    size_t n = strlen(name);
    int ok;
    if (!str_starts(word, name) || word[n] != '=')
        return 0;
    unsigned long x = str_to_ul(word + n + 1, &ok);
    if (ok && x)
        *v = x;
    else
        fail("args", word, 0);
    return 1;
}

static void run_step(const char *word)
{
    for (unsigned i = 0; i < N_STEPS; i++)
        if (!strcmp(word, steps[i].name)) {
            steps[i].run();
            return;
        }
    out("pmusim-init: args FAIL: unknown step '%s'\n", word);
    sc.failed++;
}

void init_main(int argc, char **argv, char **envp)
{
    int nsteps = 0;
    out("pmusim-init: start (%d arguments)\n", argc - 1);
    for (int i = 1; i < argc; i++)
        if (!str_find(argv[i], "="))
            nsteps++;
        else if (!setting(argv[i], "thresh", &sc.thresh) && !setting(argv[i], "timeout", &sc.timeout) &&
                 !setting(argv[i], "iters", &sc.iters))
            fail("args", argv[i], 0);
    if (mount_all()) {
        for (int i = 1; i < argc; i++)
            if (!str_find(argv[i], "="))
                run_step(argv[i]);
        for (unsigned i = 0; !nsteps && i < sizeof default_steps / sizeof default_steps[0]; i++)
            run_step(default_steps[i]);
    }
    if (sc.skipped)
        out("pmusim-init: done: %d ok, %d failed, %d skipped\n", sc.ok, sc.failed, sc.skipped);
    else
        out("pmusim-init: done: %d ok, %d failed\n", sc.ok, sc.failed);
    (void)envp;
    /* tcdrain(3): the console driver sends what it queued (up to its 4 KiB ring, in the UART's
     * own time) only if the machine is still on; powered off at once, that tail is lost. */
    sys_ioctl(1, TCSBRK, TCSBRK_DRAIN);
    long r = sys_poweroff();
    out("pmusim-init: poweroff FAIL (error %ld)\n", -r);
    sys_exit(1);
}
