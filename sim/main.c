/* main.c — the pmusim command line.
 *
 *   pmusim [run] [options] KERNEL       run a guest (ELF, or raw with --load-addr)
 *   pmusim --dump-dtb [options] [KERNEL] print the effective machine as DTS
 *
 * Bad options and bad input files get one message naming the option or file and exit status 2.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/checkpoint.h"
#include "sim/machine.h"
#include "sim/report.h"

static Machine machine;

static void usage(FILE *f)
{
    fputs(
"usage: pmusim [run] [options] KERNEL\n"
"       pmusim --dump-dtb [options] [KERNEL]\n"
"       pmusim report GUEST.elf SAMPLES [--truth[=insns|cycles]] [--folded]\n"
"\n"
"Machine:\n"
"  --arch ARCH              x86_64, arm64 or ppc32 (default: from the ELF)\n"
"  --machine FILE           device tree (.dts or .dtb) replacing the built-in board\n"
"  --cpus N                 number of CPUs (clones the first cpu node)\n"
"  --cpu-model NAME         x86_64: generic (default), core2duo; arm64: cortex-a57\n"
"                           (default), cortex-a53, cortex-a72; ppc32: mpc7450 (default),\n"
"                           mpc7447a\n"
"  --bootargs STR           /chosen/bootargs\n"
"  --dump-dtb               print the effective device tree as DTS and exit\n"
"Guest image:\n"
"  --load-addr ADDR         KERNEL is a raw binary loaded at ADDR (needs --arch)\n"
"  --entry ADDR             entry point (default: the ELF entry or the load address)\n"
"Run:\n"
"  --quantum CYCLES         scheduling quantum (default 100000)\n"
"  --max-insns N            stop after exactly N instructions (all CPUs together)\n"
"  --max-cycles N           stop when simulated time reaches N cycles\n"
"  --console FILE           guest console output to FILE instead of stdout\n"
"  --trace FILE             event trace (docs/trace-format.md)\n"
"  --check-patching         validate every write to guest code against the image's patch\n"
"                           sites and the architecture's rules; summary on stderr\n"
"                           (docs/patching.md)\n"
"  --strict                 with --check-patching: violations make the exit status 6\n"
"  --icache MODE            coherent (default) or strict: arm64/ppc32 CPUs fetch the old\n"
"                           instruction until the cache maintenance is done (implies\n"
"                           --check-patching)\n"
"  --guest-trace FILE       the guest's trace rings at the end, in ftrace's function /\n"
"                           function_graph text format (docs/trace-format.md)\n"
"  --samples FILE           PMU samples and the exact instruction profile, for\n"
"                           `pmusim report` (docs/profiling.md)\n"
"  --stats                  per-CPU instruction and cycle counts on stderr at the end\n"
"  --save-at CYCLE:FILE     write a checkpoint at the first quantum boundary >= CYCLE\n"
"  --restore FILE           continue from a checkpoint (same machine and image)\n"
"  --icount-check           also count instructions one by one and compare (test aid)\n"
"  --help, --version\n"
"\n"
"Exit status: the guest's; 2 bad input; 3 a --max-* limit; 4 the guest hung or died;\n"
"5 internal error; 6 patching violations with --strict (docs/guest-abi.md).\n", f);
}

static int fail(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "pmusim: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return EXIT_USAGE;
}

static bool parse_u64(const char *s, uint64_t *v)
{
    char *end;
    if (!*s || *s == '-')
        return false;
    *v = strtoull(s, &end, 0);
    return *end == 0;
}

static void on_interrupt(int sig)
{
    machine.interrupted = true;
}

/* A crash must not lose the trace and console written so far. */
static void on_fatal(int sig)
{
    trace_flush_all();
    if (machine.console.len)
        (void)!write(machine.console.fd, machine.console.buf, machine.console.len);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = on_fatal;
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGABRT, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
}

int main(int argc, char **argv)
{
    MachineConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.arch = ARCH_NONE;
    bool dump = false;
    int i = 1;
    if (i < argc && !strcmp(argv[i], "report"))
        return report_main(argc - 2, argv + 2);
    if (i < argc && !strcmp(argv[i], "run"))
        i++;
    for (; i < argc; i++) {
        const char *o = argv[i];
        if (o[0] != '-' || !strcmp(o, "-")) {
            if (cfg.kernel)
                return fail("more than one KERNEL: %s and %s", cfg.kernel, o);
            cfg.kernel = o;
            continue;
        }
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(o, "--version")) {
            puts("pmusim 0.1");
            return 0;
        }
        if (!strcmp(o, "--dump-dtb")) { dump = true; continue; }
        if (!strcmp(o, "--stats")) { cfg.stats = true; continue; }
        if (!strcmp(o, "--semihosting")) { cfg.semihosting = true; continue; }
        if (!strcmp(o, "--icount-check")) { cfg.icount_check = true; continue; }
        if (!strcmp(o, "--check-patching")) { cfg.check_patching = true; continue; }
        if (!strcmp(o, "--strict")) { cfg.check_patching = cfg.strict = true; continue; }
        /* options with a value: --opt VALUE or --opt=VALUE */
        const char *eq = strchr(o, '=');
        char name[64];
        const char *val;
        if (eq) {
            snprintf(name, sizeof name, "%.*s", (int)(eq - o), o);
            val = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", o);
            if (i + 1 >= argc)
                return fail("option %s needs a value%s", o, "");
            val = argv[++i];
        }
        uint64_t n;
        if (!strcmp(name, "--arch")) {
            cfg.arch = isa_from_name(val);
            if (cfg.arch == ARCH_NONE)
                return fail("--arch %s: unknown architecture (x86_64, arm64, ppc32)%s", val, "");
        } else if (!strcmp(name, "--machine")) {
            cfg.machine_file = val;
        } else if (!strcmp(name, "--cpus")) {
            if (!parse_u64(val, &n) || n < 1 || n > MAX_CPUS)
                return fail("--cpus %s: expected a number from 1 to 16%s", val, "");
            cfg.ncpus = (int)n;
        } else if (!strcmp(name, "--cpu-model")) {
            cfg.cpu_model = val;
        } else if (!strcmp(name, "--bootargs")) {
            cfg.bootargs = val;
        } else if (!strcmp(name, "--load-addr")) {
            if (!parse_u64(val, &cfg.load_addr))
                return fail("--load-addr %s: not an address%s", val, "");
            cfg.raw = true;
        } else if (!strcmp(name, "--entry")) {
            if (!parse_u64(val, &cfg.entry))
                return fail("--entry %s: not an address%s", val, "");
            cfg.entry_set = true;
        } else if (!strcmp(name, "--quantum")) {
            if (!parse_u64(val, &cfg.quantum) || cfg.quantum == 0)
                return fail("--quantum %s: expected a positive number of cycles%s", val, "");
        } else if (!strcmp(name, "--max-insns")) {
            if (!parse_u64(val, &cfg.max_insns) || !cfg.max_insns)
                return fail("--max-insns %s: expected a positive number%s", val, "");
        } else if (!strcmp(name, "--max-cycles")) {
            if (!parse_u64(val, &cfg.max_cycles) || !cfg.max_cycles)
                return fail("--max-cycles %s: expected a positive number%s", val, "");
        } else if (!strcmp(name, "--trace")) {
            cfg.trace_file = val;
        } else if (!strcmp(name, "--icache")) {
            if (!strcmp(val, "strict"))
                cfg.icache_strict = cfg.check_patching = true;
            else if (strcmp(val, "coherent"))
                return fail("--icache %s: expected strict or coherent%s", val, "");
        } else if (!strcmp(name, "--guest-trace")) {
            cfg.guest_trace_file = val;
        } else if (!strcmp(name, "--samples")) {
            cfg.samples_file = val;
        } else if (!strcmp(name, "--console")) {
            cfg.console_file = val;
        } else if (!strcmp(name, "--save-at")) {
            const char *colon = strchr(val, ':');
            char num[64];
            if (!colon || colon == val || (size_t)(colon - val) >= sizeof num || !colon[1])
                return fail("--save-at %s: expected CYCLE:FILE%s", val, "");
            snprintf(num, sizeof num, "%.*s", (int)(colon - val), val);
            if (!parse_u64(num, &cfg.save_at))
                return fail("--save-at %s: bad cycle number%s", val, "");
            cfg.save_file = colon + 1;
        } else if (!strcmp(name, "--restore")) {
            cfg.restore_file = val;
        } else {
            fprintf(stderr, "pmusim: unknown option %s (see pmusim --help)\n", o);
            return EXIT_USAGE;
        }
    }
    if (cfg.raw && cfg.arch == ARCH_NONE)
        return fail("--load-addr needs --arch (a raw binary does not say what it is)%s%s", "", "");
    if (!cfg.kernel && !(dump && cfg.arch != ARCH_NONE)) {
        usage(stderr);
        return EXIT_USAGE;
    }

    Error err = { { 0 } };
    install_signals();
    if (!mach_create(&machine, &cfg, &err)) {
        fprintf(stderr, "pmusim: %s\n", err.msg);
        mach_destroy(&machine);
        return EXIT_USAGE;
    }
    if (dump) {
        bool ok = mach_dump_dtb(&machine, &err);
        if (!ok)
            fprintf(stderr, "pmusim: %s\n", err.msg);
        mach_destroy(&machine);
        return ok ? 0 : EXIT_USAGE;
    }
    if (cfg.restore_file) {
        if (!checkpoint_restore(&machine, cfg.restore_file, &err)) {
            fprintf(stderr, "pmusim: %s\n", err.msg);
            mach_destroy(&machine);
            return EXIT_USAGE;
        }
    } else {
        mach_boot(&machine);
    }
    int status = mach_run(&machine);
    if (machine.exit_reason && machine.exit_status != 0 && strcmp(machine.exit_reason, "debug-exit"))
        fprintf(stderr, "pmusim: run ended: %s (status %d)\n", machine.exit_reason, status);
    if (cfg.stats)
        mach_print_stats(&machine);
    if (cfg.icount_check) {
        for (int k = 0; k < machine.ncpus; k++) {
            Cpu *c = machine.cpus[k];
            bool same = c->ref_insns == c->insns;
            fprintf(stderr, "icount-check: cpu%d block-count=%" PRIu64 " per-insn=%" PRIu64 " %s\n", k, c->insns,
                    c->ref_insns, same ? "ok" : "MISMATCH");
            if (!same)
                status = EXIT_INTERNAL;
        }
    }
    mach_destroy(&machine);
    return status;
}
