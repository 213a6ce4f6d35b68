/* cli.c — the option tables of `pmusim [run]`, `pmusim report`, `pmusim diff` and `pmusim stat`, one
 * parser for all (getopt_long), the --help text each prints, and what is generated from the same
 * tables: the manual page (--help-man, roff: man-pages(7), groff_man(7)) and the bash completion
 * (--help-completion: bash(1), "Programmable Completion"). */
#include "sim/cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "base/tunables.h"
#include "sim/checkpoint.h"

enum {
    O_HELP = 'h',
    O_ARCH = 256, O_MACHINE, O_CPUS, O_CPU_MODEL, O_BOOTARGS, O_APPEND, O_MEM, O_GIC_VERSION, O_RTC_BASE, O_DUMP_DTB,
    O_KERNEL, O_LOAD_ADDR, O_ENTRY, O_INITRD, O_SYMBOLS, O_DUMP_SYMBOLS,
    O_QUANTUM, O_MAX_INSNS, O_MAX_CYCLES, O_CONSOLE, O_CONSOLE_INPUT, O_TRACE, O_TRACE_DAT, O_TRACE_JSON, O_TRACE_LIMIT, O_CHECK_PATCHING, O_STRICT,
    O_ICACHE,
    O_GUEST_TRACE, O_SAMPLES, O_STATS, O_SAVE_AT, O_RESTORE, O_SEMIHOSTING, O_ICOUNT_CHECK, O_GDB, O_GDB_WAIT,
    O_TIME_TRAVEL_CHECK, O_INJECT,
    O_VERSION, O_HELP_MAN, O_HELP_COMPLETION, O_CONSOLE_IN, O_RECORD, O_REPLAY, O_QUIET,
    O_TRUTH, O_FOLDED, O_PERF_SCRIPT, /* pmusim report */
    O_CONTEXT, O_IGNORE, O_IGNORE_FIELD,    /* pmusim diff */
    O_NO_AGGR, O_PER_SYMBOL,        /* pmusim stat; its short options are their ids: */
    O_EVENT = 'e', O_PER_CPU = 'A', O_OUTPUT = 'o', O_SEP = 'x',
};

/* An id below this is also the option's short name (-h, -e ...). */
#define CLI_SHORT_MAX 256

typedef struct CliOption {
    const char *name;
    const char *arg;                /* the value's name in --help; NULL: a flag */
    int id;
    bool optional;                  /* the value may be left out (--name or --name=VALUE) */
    const char *group;              /* a heading printed before this option, or NULL */
    const char *help;               /* '\n' continues on the next line */
} CliOption;

/* The words an option's value may be, for the completion (--arch, --cpu-model and -e come from
 * their own lists). */
static const struct {
    int id;
    const char *words;
} option_words[] = {
    { O_ICACHE, "coherent strict" },
    { O_CONSOLE_IN, "stdin" },          /* and files */
    { O_TRUTH, "insns cycles" },
};

static const CliOption run_options[] = {
    { "arch", "ARCH", O_ARCH, false, "Machine:", "x86_64, arm64 or ppc32 (default: from the ELF)" },
    { "machine", "FILE", O_MACHINE, false, NULL, "device tree (.dts or .dtb) replacing the built-in board" },
    { "cpus", "N", O_CPUS, false, NULL, "number of CPUs, 1 to 16 (clones the first cpu node)" },
    { "cpu-model", "NAME", O_CPU_MODEL, false, NULL,
      "x86_64: generic (default), core2duo; arm64: cortex-a57\n(default), cortex-a53, cortex-a72; ppc32: mpc7450 (default),\nmpc7447a, mpc7448" },
    { "bootargs", "STR", O_BOOTARGS, false, NULL, "/chosen/bootargs" },
    { "append", "STR", O_APPEND, false, NULL, "the kernel command line: the same as --bootargs (QEMU's name)" },
    { "mem", "SIZE", O_MEM, false, NULL,
      "RAM size: bytes, or with a K, M, G or T suffix (256M, 1G),\na multiple of 4K up to 1T; sets the memory node's reg (default\nas in the tree: arm64 1G, x86_64 and ppc32 128M)" },
    { "gic-version", "N", O_GIC_VERSION, false, NULL,
      "arm64: the interrupt controller, 3 (GICv3, default) or 2 (GICv2,\nat most 8 CPUs), at QEMU virt's addresses" },
    { "rtc-base", "DATE", O_RTC_BASE, false, NULL,
      "x86_64: the CMOS clock's time at cycle 0, YYYY-MM-DD or\nYYYY-MM-DDTHH:MM:SS in UTC (default 2025-01-01T00:00:00)" },
    { "dump-dtb", NULL, O_DUMP_DTB, false, NULL, "print the effective device tree as DTS and exit" },
    { "kernel", "FILE", O_KERNEL, false, "Guest image:",
      "the KERNEL operand as an option: an ELF, a Linux kernel image\n(arm64 Image, plain or gzip'd; x86 bzImage) booted as Linux's\nboot protocol says (docs/guest-abi.md, \"Booting Linux\"), or a\nmultiboot kernel (i386 ELF, a.out kludge; \"Multiboot\")" },
    { "load-addr", "ADDR", O_LOAD_ADDR, false, NULL, "KERNEL is a raw binary loaded at ADDR (needs --arch)" },
    { "entry", "ADDR", O_ENTRY, false, NULL, "entry point (default: the ELF entry or the load address)" },
    { "initrd", "FILE", O_INITRD, false, NULL,
      "load FILE into RAM above the image; /chosen gets\nlinux,initrd-start and linux,initrd-end; a bzImage's zero page,\na multiboot kernel's module list (docs/guest-abi.md)" },
    { "symbols", "FILE", O_SYMBOLS, false, NULL,
      "the kernel's symbols from FILE, a vmlinux (ELF) or a\nSystem.map, instead of the image's own (the kallsyms tables\nof an arm64 Linux Image or of an x86 bzImage's payload;\ndocs/guest-abi.md)" },
    { "dump-symbols", NULL, O_DUMP_SYMBOLS, false, NULL,
      "print the image's symbols as a System.map and exit" },
    { "quantum", "CYCLES", O_QUANTUM, false, "Run:", "scheduling quantum, 1 to 2^32 (default 100000)" },
    { "max-insns", "N", O_MAX_INSNS, false, NULL, "stop after exactly N instructions (all CPUs together), N <= 2^62" },
    { "max-cycles", "N", O_MAX_CYCLES, false, NULL, "stop when simulated time reaches N cycles, N <= 2^62" },
    { "console", "FILE", O_CONSOLE, false, NULL, "guest console output to FILE instead of stdout" },
    { "console-in", "FILE|stdin", O_CONSOLE_IN, false, NULL,
      "bytes for the console UART's receiver, delivered one character\ntime apart while the guest takes them: FILE read whole before\nthe run; stdin (or -) on a terminal or pipe is live, read as\nit comes (docs/guest-abi.md)" },
    { "console-input", "FILE", O_CONSOLE_INPUT, false, NULL,
      "the same, FILE always read whole (- for standard input)" },
    { "record", "FILE", O_RECORD, false, NULL,
      "log every console input byte with the cycle it arrived at\n(docs/guest-abi.md, \"Record and replay\")" },
    { "replay", "FILE", O_REPLAY, false, NULL,
      "console input from a --record log, each byte at its logged\ncycle: the recorded run again, bit for bit" },
    { "trace", "FILE", O_TRACE, false, NULL, "event trace (docs/trace-format.md)" },
    { "trace-dat", "FILE", O_TRACE_DAT, false, NULL,
      "the trace and the guest's ftrace rings as a trace.dat for\ntrace-cmd and KernelShark (docs/trace-format.md)" },
    { "trace-json", "FILE", O_TRACE_JSON, false, NULL,
      "the trace as Chrome trace-event JSON for Perfetto: a track\nper CPU, exceptions as slices, PMU counters (docs/trace-format.md)" },
    { "trace-limit", "BYTES", O_TRACE_LIMIT, false, NULL,
      "end the run (status 3) where a trace would grow past BYTES\n(then its exit line); 0: no limit; default 1073741824 (1 GiB)" },
    { "check-patching", NULL, O_CHECK_PATCHING, false, NULL,
      "validate every write to guest code against the image's patch\nsites and the architecture's rules; summary on stderr\n(docs/patching.md)" },
    { "strict", NULL, O_STRICT, false, NULL, "with --check-patching: violations make the exit status 6" },
    { "icache", "MODE", O_ICACHE, false, NULL,
      "coherent (default) or strict: arm64/ppc32 CPUs fetch the old\ninstruction until the cache maintenance is done (implies\n--check-patching)" },
    { "guest-trace", "FILE", O_GUEST_TRACE, false, NULL,
      "the guest's trace rings at the end, in ftrace's function /\nfunction_graph text format (docs/trace-format.md)" },
    { "samples", "FILE", O_SAMPLES, false, NULL, "PMU samples and the exact instruction profile, for\n`pmusim report` (docs/profiling.md)" },
    { "stats", NULL, O_STATS, false, NULL, "per-CPU instruction and cycle counts on stderr at the end" },
    { "quiet", NULL, O_QUIET, false, NULL,
      "no progress line (shown on a terminal), no note when a limit\nends the run" },
    { "save-at", "CYCLE:FILE", O_SAVE_AT, false, NULL, "write a checkpoint at the first quantum boundary >= CYCLE" },
    { "restore", "FILE", O_RESTORE, false, NULL, "continue from a checkpoint (same machine and image)" },
    { "semihosting", NULL, O_SEMIHOSTING, false, NULL, "arm64: hlt #0xf000 semihosting (exit, writec, write0)" },
    { "icount-check", NULL, O_ICOUNT_CHECK, false, NULL, "also count instructions one by one and compare (test aid)" },
    { "inject", "KIND:KEY=VAL:...", O_INJECT, false, NULL,
      "fault injection, repeatable: stall:cpu=N:cycle=C[:for=CYCLES]\nmakes CPU N execute nothing and take no interrupt from\ncycle C on (docs/debugging.md, \"Fault injection\")" },
    { "gdb", "DEV", O_GDB, false, "Debugging:",
      "GDB remote stub on DEV: tcp::PORT (127.0.0.1), tcp:HOST:PORT\nor unix:PATH; one gdb thread per CPU (docs/debugging.md)" },
    { "gdb-wait", NULL, O_GDB_WAIT, false, NULL, "with --gdb: wait for gdb before the first instruction" },
    { "time-travel-check", "STRIDE", O_TIME_TRAVEL_CHECK, false, NULL,
      "every STRIDE instructions of a CPU (in turn), step back and\nforth with time travel and compare the machine states (test\naid, docs/debugging.md)" },
    { "help", NULL, O_HELP, false, "Other:", "this text" },
    { "version", NULL, O_VERSION, false, NULL, "the version" },
    { "help-man", NULL, O_HELP_MAN, false, NULL, "the manual page (roff), generated from these tables" },
    { "help-completion", NULL, O_HELP_COMPLETION, false, NULL, "the bash completion script, generated from them" },
};

static const CliOption report_options[] = {
    { "truth", "MODE", O_TRUTH, true, "Report:",
      "add each symbol's exact share: MODE insns (default), of the\ninstructions retired while a sampling counter counted;\ncycles, of their cycles" },
    { "folded", NULL, O_FOLDED, false, NULL,
      "one line per call stack, app;image;outer;...;inner COUNT\n(flame graphs)" },
    { "perf-script", NULL, O_PERF_SCRIPT, false, NULL,
      "the samples and their call chains as `perf script` prints\nthem (FlameGraph, speedscope, the Firefox Profiler)" },
    { "help", NULL, O_HELP, false, "Other:", "this text" },
};

static const CliOption diff_options[] = {
    { "context", "N", O_CONTEXT, false, "Diff:", "events shown before the first difference, 0 to 100 (default 5)" },
    { "ignore", "KIND[,KIND]", O_IGNORE, false, NULL,
      "skip events of these kinds on both sides (repeatable;\ndocs/trace-format.md lists the kinds)" },
    { "ignore-field", "KEY[,KEY]", O_IGNORE_FIELD, false, NULL,
      "do not compare these fields of any kind (repeatable);\n`cycle`: the cycle" },
    { "help", NULL, O_HELP, false, "Other:", "this text" },
};
static const CliOption stat_options[] = {
    { "event", "LIST", O_EVENT, false, "Stat:",
      "the events to count, comma-separated, perf's names, each with\nperf's modifier :u (user part) or :k (kernel part), or none\n(the total, then both); default cpu-clock,cycles,instructions,\nbranches,branch-misses (EVENTS below)" },
    { "per-cpu", NULL, O_PER_CPU, false, NULL, "a row per CPU, as perf stat -A" },
    { "no-aggr", NULL, O_NO_AGGR, false, NULL, "the same (perf's name)" },
    { "per-symbol", NULL, O_PER_SYMBOL, false, NULL,
      "also the instructions and cycles (and with a branch event, the\nbranches and misses) of each symbol of the guest, exact: every\nretired instruction is counted by address" },
    { "output", "FILE", O_OUTPUT, false, NULL, "the table to FILE instead of standard error" },
    { "field-separator", "SEP", O_SEP, false, NULL, "CSV rows, fields separated by SEP (perf stat -x)" },
    { "help", NULL, O_HELP, false, "Other:", "this text" },
};

#define CLI_MAX_OPTIONS 80

typedef struct CliCommand {
    const char *name;               /* in messages: "pmusim", "pmusim report" */
    const char *sub;                /* the subcommand word: "run", "report", "stat" */
    const char *usage;              /* the usage lines, before the options */
    const char *footer;             /* after them, or NULL */
    const CliOption *opts;
    size_t n;
} CliCommand;

static const CliCommand run_command = {
    "pmusim", "run",
    "usage: pmusim [run] [options] KERNEL\n"
    "       pmusim --dump-dtb [options] [KERNEL]\n"
    "       pmusim --dump-symbols [options] KERNEL\n"
    "       pmusim report GUEST.elf SAMPLES [--truth[=insns|cycles]] [--folded] [--perf-script]\n"
    "       pmusim diff [options] TRACE_A TRACE_B   (pmusim diff --help)\n"
    "       pmusim stat [-e EVENTS] [--per-cpu] [--per-symbol] [--] [run options] KERNEL\n",
    "\nExit status: the guest's; 2 bad input; 3 --max-insns, --max-cycles or --trace-limit;\n"
    "4 the guest hung or died; 5 internal error; 6 patching violations with --strict; 7 an\n"
    "output could not be written completely; 8 the Linux kernel panicked; 128 + N signal N\n"
    "(docs/guest-abi.md).\n",
    run_options, ARRAY_SIZE(run_options),
};

static const CliCommand report_command = {
    "pmusim report", "report",
    "usage: pmusim report [options] GUEST.elf SAMPLES\n"
    "the samples of a --samples run by symbol of GUEST.elf, as opreport prints them\n"
    "(docs/profiling.md)\n",
    "\nExit status: 0; 2 bad input.\n",
    report_options, ARRAY_SIZE(report_options),
};

static const CliCommand diff_command = {
    "pmusim diff", "diff",
    "usage: pmusim diff [options] TRACE_A TRACE_B\n"
    "       pmusim diff [options] [TRACE_A] -- RUN_ARGS_A [-- RUN_ARGS_B]\n"
    "the first event where two traces differ, with the events before it; a side after `--` is\n"
    "a `pmusim run` command line, run here with its trace read as it comes (docs/tools.md)\n",
    "\nExit status: 0 the same; 1 they differ; 2 bad input (an option, a trace, a run that fails).\n",
    diff_options, ARRAY_SIZE(diff_options),
};

static const CliCommand stat_command = {
    "pmusim stat", "stat",
    "usage: pmusim stat [stat options] [--] [run options] KERNEL\n"
    "run KERNEL as `pmusim run` does and print the events its CPUs counted, user and\n"
    "kernel apart, as perf stat does (on standard error); counted from outside the\n"
    "guest.  Stat and run options may be mixed; after -- only run options follow\n"
    "(docs/tools.md)\n",
    "\nExit status: as pmusim run's; 2 bad input (an unknown event too); 7 -o FILE could\n"
    "not be written.\n",
    stat_options, ARRAY_SIZE(stat_options),
};

/* Every command: the manual page and the completion are generated from this list (a new
 * subcommand's table goes here). */
static const CliCommand *const commands[] = { &run_command, &report_command, &diff_command,
                                                &stat_command };

#define HELP_COLUMN 27

static void print_usage(const CliCommand *cmd, FILE *f)
{
    fputs(cmd->usage, f);
    for (size_t i = 0; i < cmd->n; i++) {
        const CliOption *o = &cmd->opts[i];
        if (o->group)
            fprintf(f, "%s%s\n", i ? "" : "\n", o->group);
        int n = o->id < CLI_SHORT_MAX ? fprintf(f, "  -%c, --", o->id) : fprintf(f, "  --");
        n += fprintf(f, "%s%s%s%s", o->name, !o->arg ? "" : o->optional ? "[=" : " ", o->arg ? o->arg : "",
                     o->optional ? "]" : "");
        for (const char *h = o->help; *h;) {
            const char *nl = strchr(h, '\n');
            int len = nl ? (int)(nl - h) : (int)strlen(h);
            fprintf(f, "%*s%.*s\n", n < HELP_COLUMN ? HELP_COLUMN - n : 1, "", len, h);
            n = 0;
            h += len + (nl != NULL);
        }
    }
    if (cmd->footer)
        fputs(cmd->footer, f);
}

void cli_usage(FILE *f)
{
    print_usage(&run_command, f);
}

void cli_report_usage(FILE *f)
{
    print_usage(&report_command, f);
}

void cli_diff_usage(FILE *f)
{
    print_usage(&diff_command, f);
}

bool cli_number(const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
    if (s[0] < '0' || s[0] > '9')   /* strtoull would take spaces, a sign, "-1" as 2^64 - 1 */
        return false;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(s, &end, 0);
    if (errno || *end || n < lo || n > hi)
        return false;
    *v = n;
    return true;
}

static bool bad(FILE *err, const char *fmt, const char *a, const char *b)
{
    fputs("pmusim: ", err);
    fprintf(err, fmt, a, b);
    fputc('\n', err);
    return false;
}

/* --save-at CYCLE:FILE */
static bool parse_save_at(MachineConfig *cfg, const char *val, FILE *err)
{
    const char *colon = strchr(val, ':');
    char num[32];
    if (!colon || colon == val || (size_t)(colon - val) >= sizeof num || !colon[1])
        return bad(err, "--save-at %s: expected CYCLE:FILE%s", val, "");
    snprintf(num, sizeof num, "%.*s", (int)(colon - val), val);
    if (!cli_number(num, 0, MAX_RUN_LIMIT, &cfg->save_at))
        return bad(err, "--save-at %s: the cycle must be a number from 0 to 2^62%s", val, "");
    cfg->save_file = colon + 1;
    cfg->save = checkpoint_save;
    return true;
}

/* --inject SPEC (sim/inject.h), repeatable; the CPUs are checked with the others at the end. */
static bool parse_inject(MachineConfig *cfg, const char *val, FILE *err)
{
    Error e;
    if (cfg->ninject == MAX_INJECT)
        return bad(err, "--inject %s: more than %s --inject options", val, "16");
    if (!inject_parse(val, &cfg->inject[cfg->ninject], &e))
        return bad(err, "%s%s", e.msg, "");
    cfg->ninject++;
    return true;
}

/* --mem SIZE: digits (decimal or 0x hex) and an optional binary suffix, as QEMU's -m takes
 * them; whole 4 KiB pages (the engines map memory in pages) up to DT_RAM_MAX. */
static bool parse_mem(MachineConfig *cfg, const char *val, FILE *err)
{
    static const char suffixes[] = "KMGT";
    char num[32];
    size_t len = strlen(val);
    const char *sfx = len ? strchr(suffixes, toupper((unsigned char)val[len - 1])) : NULL;
    unsigned shift = sfx && *sfx ? 10u * (unsigned)(sfx - suffixes + 1) : 0;
    uint64_t n;
    if (shift)
        len--;
    bool ok = len && len < sizeof num;
    if (ok) {
        snprintf(num, sizeof num, "%.*s", (int)len, val);
        ok = cli_number(num, 1, DT_RAM_MAX >> shift, &n);
    }
    if (ok)
        n <<= shift;
    if (!ok || n % GUEST_PAGE)
        return bad(err, "--mem %s: expected a size from 4K to 1T in whole 4 KiB pages: bytes, or a number with a "
                   "K, M, G or T suffix (256M, 1G)%s", val, "");
    cfg->mem_size = n;
    return true;
}

static bool parse_number(const char *opt, const char *val, uint64_t lo, uint64_t hi, const char *range,
                         uint64_t *dst, FILE *err)
{
    if (cli_number(val, lo, hi, dst))
        return true;
    fprintf(err, "pmusim: --%s %s: expected %s\n", opt, val, range);
    return false;
}

static bool run_operand(void *ctx, const char *arg, FILE *err);

static bool apply_value(Cli *cli, int id, const char *val, FILE *err)
{
    MachineConfig *cfg = &cli->cfg;
    uint64_t n;
    switch (id) {
    case O_ARCH:
        cfg->arch = isa_from_name(val);
        return cfg->arch != ARCH_NONE || bad(err, "--arch %s: unknown architecture (x86_64, arm64, ppc32)%s", val, "");
    case O_MACHINE:     cfg->machine_file = val; return true;
    case O_CPU_MODEL:   cfg->cpu_model = val; return true;
    case O_BOOTARGS:
    case O_APPEND:      cfg->bootargs = val; return true;
    case O_KERNEL:      return run_operand(cli, val, err);
    case O_INITRD:      cfg->initrd_file = val; return true;
    case O_SYMBOLS:     cfg->symbols_file = val; return true;
    case O_MEM:         return parse_mem(cfg, val, err);
    case O_GIC_VERSION:
        if (!parse_number("gic-version", val, 2, 3, "2 or 3", &n, err))
            return false;
        cfg->gic_version = (int)n;
        return true;
    case O_RTC_BASE:
        if (!civil_parse_iso(val, &cfg->rtc_base))
            return bad(err, "--rtc-base %s: expected a date YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS (UTC) from 1970 to 9999%s",
                       val, "");
        cfg->rtc_base_set = true;
        return true;
    case O_TRACE:       cfg->trace_file = val; return true;
    case O_TRACE_DAT:   cfg->trace_dat_file = val; return true;
    case O_TRACE_JSON:  cfg->trace_json_file = val; return true;
    case O_GUEST_TRACE: cfg->guest_trace_file = val; return true;
    case O_SAMPLES:     cfg->samples_file = val; return true;
    case O_CONSOLE:     cfg->console_file = val; return true;
    case O_CONSOLE_INPUT:
    case O_CONSOLE_IN:
        cfg->console_input_file = val;
        cfg->console_input_opt = id == O_CONSOLE_IN ? "--console-in" : "--console-input";
        cfg->console_input_live = id == O_CONSOLE_IN;
        return true;
    case O_RECORD:      cfg->record_file = val; return true;
    case O_REPLAY:      cfg->replay_file = val; return true;
    case O_RESTORE:     cfg->restore_file = val; return true;
    case O_GDB:         cfg->gdb = val; return true;
    case O_SAVE_AT:     return parse_save_at(cfg, val, err);
    case O_INJECT:      return parse_inject(cfg, val, err);
    case O_CPUS:
        if (!parse_number("cpus", val, 1, MAX_CPUS, "a number from 1 to 16", &n, err))
            return false;
        cfg->ncpus = (int)n;
        return true;
    case O_LOAD_ADDR:
        cfg->raw = true;
        return parse_number("load-addr", val, 0, UINT64_MAX, "an address", &cfg->load_addr, err);
    case O_ENTRY:
        cfg->entry_set = true;
        return parse_number("entry", val, 0, UINT64_MAX, "an address", &cfg->entry, err);
    case O_QUANTUM:
        return parse_number("quantum", val, 1, MAX_QUANTUM, "a number of cycles from 1 to 2^32", &cfg->quantum, err);
    case O_MAX_INSNS:
        return parse_number("max-insns", val, 1, MAX_RUN_LIMIT, "a number from 1 to 2^62", &cfg->max_insns, err);
    case O_MAX_CYCLES:
        return parse_number("max-cycles", val, 1, MAX_RUN_LIMIT, "a number from 1 to 2^62", &cfg->max_cycles, err);
    case O_TRACE_LIMIT:
        return parse_number("trace-limit", val, 0, MAX_RUN_LIMIT, "a number of bytes from 0 to 2^62", &cfg->trace_limit,
                            err);
    case O_TIME_TRAVEL_CHECK:
        return parse_number("time-travel-check", val, 1, MAX_RUN_LIMIT, "a number from 1 to 2^62", &cfg->tt_check,
                            err);
    case O_ICACHE:
        if (!strcmp(val, "strict"))
            cfg->icache_strict = cfg->check_patching = true;
        else if (strcmp(val, "coherent"))
            return bad(err, "--icache %s: expected strict or coherent%s", val, "");
        return true;
    }
    return bad(err, "internal: option %s has no handler%s", val, "");
}

static bool apply_flag(Cli *cli, int id)
{
    MachineConfig *cfg = &cli->cfg;
    switch (id) {
    case O_HELP:            cli->action = CLI_HELP; return true;
    case O_VERSION:         cli->action = CLI_VERSION; return true;
    case O_HELP_MAN:        cli->action = CLI_HELP_MAN; return true;
    case O_HELP_COMPLETION: cli->action = CLI_HELP_COMPLETION; return true;
    case O_DUMP_DTB:        cli->action = CLI_DUMP_DTB; return true;
    case O_DUMP_SYMBOLS:    cli->action = CLI_DUMP_SYMBOLS; return true;
    case O_STATS:           cfg->stats = true; return true;
    case O_SEMIHOSTING:     cfg->semihosting = true; return true;
    case O_GDB_WAIT:        cfg->gdb_wait = true; return true;
    case O_ICOUNT_CHECK:    cfg->icount_check = true; return true;
    case O_QUIET:           cfg->quiet = true; return true;
    case O_CHECK_PATCHING:  cfg->check_patching = true; return true;
    case O_STRICT:          cfg->check_patching = cfg->strict = true; return true;
    }
    return false;
}

/* The tables a parse takes options from: the command's own, then (pmusim stat) the run's. */
typedef struct CliTables {
    const CliCommand *cmd[2];
    int n;
} CliTables;

static const CliOption *option_by_id(const CliTables *t, int id)
{
    for (int k = 0; k < t->n; k++)
        for (size_t i = 0; i < t->cmd[k]->n; i++)
            if (t->cmd[k]->opts[i].id == id)
                return &t->cmd[k]->opts[i];
    return NULL;
}

static bool check_combination(Cli *cli, FILE *err)
{
    const MachineConfig *cfg = &cli->cfg;
    if (cfg->raw && cfg->arch == ARCH_NONE)
        return bad(err, "--load-addr needs --arch (a raw binary does not say what it is)%s%s", "", "");
    if ((cli->action == CLI_RUN || cli->action == CLI_DUMP_SYMBOLS) && !cfg->kernel) {
        cli_usage(err);
        return false;
    }
    if (cfg->replay_file && cfg->console_input_file)
        return bad(err, "--replay and %s exclude each other: the log is the console input%s", cfg->console_input_opt, "");
    if (cfg->record_file && !cfg->replay_file && !cfg->console_input_file)
        return bad(err, "--record needs console input to record (--console-in or --replay)%s%s", "", "");
    if (cli->action == CLI_DUMP_DTB && !cfg->kernel && cfg->arch == ARCH_NONE)
        return bad(err, "--dump-dtb needs a KERNEL or --arch%s%s", "", "");
    if (cfg->gdb_wait && !cfg->gdb)
        return bad(err, "--gdb-wait needs --gdb (nothing to wait for)%s%s", "", "");
    Error e;
    if (!inject_check(cfg->inject, cfg->ninject, cfg->ncpus, &e))
        return bad(err, "%s%s", e.msg, "");
    return true;
}

/* What a command does with what getopt_long finds: an option (val: its value, NULL for a flag or
 * an optional value left out), an operand; false after one message on err. */
typedef struct CliHandler {
    bool (*option)(void *ctx, int id, const char *val, FILE *err);
    bool (*operand)(void *ctx, const char *arg, FILE *err);
    bool (*done)(void *ctx);        /* stop early (--help, --version) */
} CliHandler;

/* getopt_long's tables from ours: the long options, and the short ones in `shorts` after "-:"
 * ('-': operands come back in order as 1 whatever POSIXLY_CORRECT says; ':': a missing value is
 * ':').  false if they do not fit. */
static bool getopt_tables(const CliTables *t, struct option *lopts, char *shorts, size_t slen)
{
    size_t n = 0, k = 2;
    memset(lopts, 0, (CLI_MAX_OPTIONS + 1) * sizeof *lopts);
    memcpy(shorts, "-:", 3);
    for (int c = 0; c < t->n; c++)
        for (size_t i = 0; i < t->cmd[c]->n; i++) {
            const CliOption *o = &t->cmd[c]->opts[i];
            int has = !o->arg ? no_argument : o->optional ? optional_argument : required_argument;
            if (n == CLI_MAX_OPTIONS || k + 3 > slen)
                return false;
            lopts[n++] = (struct option){ o->name, has, NULL, o->id };
            if (o->id < CLI_SHORT_MAX && !strchr(shorts, o->id)) {
                shorts[k++] = (char)o->id;
                if (o->arg)
                    shorts[k++] = ':';
                shorts[k] = 0;
            }
        }
    return true;
}

/* The one getopt_long loop, over the tables.  It stops at "--": *rest (if not NULL) is then the
 * index of the argument after it, else argc. */
static bool parse_tables(const CliTables *t, int argc, char **argv, const CliHandler *h, void *ctx, FILE *err,
                         int *rest)
{
    struct option lopts[CLI_MAX_OPTIONS + 1];
    char shorts[2 * CLI_MAX_OPTIONS + 3];
    const CliCommand *cmd = t->cmd[0];
    if (!getopt_tables(t, lopts, shorts, sizeof shorts))
        return bad(err, "internal: %s has more than %s options", cmd->name, "CLI_MAX_OPTIONS");
    opterr = 0;
    optind = 0;                     /* glibc: start afresh (the fuzzing harness parses again and again) */
    if (rest)
        *rest = argc;
    for (int id; (id = getopt_long(argc, argv, shorts, lopts, NULL)) != -1;) {
        const char *arg = argv[optind - 1];
        const CliOption *o = option_by_id(t, id);
        bool ok;
        if (id == 1)
            ok = h->operand(ctx, optarg, err);
        else if (id == ':')
            ok = bad(err, "option %s needs a value%s", arg, "");
        else if (!o && optopt && optopt < CLI_SHORT_MAX && arg[0] == '-' && arg[1] != '-')
            ok = bad(err, "unknown option -%c (see %s --help)", (const char[]){ (char)optopt, 0 }, cmd->name);
        else if (!o)
            ok = bad(err, "unknown option %s (see %s --help)", arg, cmd->name);
        else
            ok = h->option(ctx, id, o->arg ? optarg : NULL, err);
        if (!ok)
            return false;
        if (h->done && h->done(ctx))
            return true;
    }
    if (rest && optind < argc)
        *rest = optind;
    return true;
}

static bool parse_with(const CliCommand *cmd, int argc, char **argv, const CliHandler *h, void *ctx, FILE *err)
{
    const CliTables t = { { cmd }, 1 };
    return parse_tables(&t, argc, argv, h, ctx, err, NULL);
}

/* ------------------------------------------------------------------ pmusim [run] */

static bool run_option(void *ctx, int id, const char *val, FILE *err)
{
    return val ? apply_value(ctx, id, val, err) : apply_flag(ctx, id);
}

static bool run_operand(void *ctx, const char *arg, FILE *err)
{
    Cli *cli = ctx;
    if (cli->cfg.kernel)
        return bad(err, "more than one KERNEL: %s and %s", cli->cfg.kernel, arg);
    cli->cfg.kernel = arg;
    return true;
}

static bool run_done(void *ctx)
{
    const Cli *cli = ctx;
    return cli->action == CLI_HELP || cli->action == CLI_VERSION || cli->action == CLI_HELP_MAN ||
           cli->action == CLI_HELP_COMPLETION;
}

bool cli_parse(int argc, char **argv, Cli *cli, FILE *err)
{
    static const CliHandler h = { run_option, run_operand, run_done };
    memset(cli, 0, sizeof *cli);
    cli->cfg.arch = ARCH_NONE;
    cli->cfg.trace_limit = DEFAULT_TRACE_LIMIT;
    if (!parse_with(&run_command, argc, argv, &h, cli, err))
        return false;
    return run_done(cli) || check_combination(cli, err);
}

/* Standard input is no file of the run's (--console-in's "stdin" means it, not ./stdin). */
static const char *console_input_path(const MachineConfig *cfg)
{
    const char *p = cfg->console_input_file;
    return p && cfg->console_input_live && !strcmp(p, "stdin") ? NULL : p;
}

int cli_io_names(const MachineConfig *cfg, IoName names[CLI_IO_NAMES])
{
    const IoName all[] = {
        { "KERNEL", cfg->kernel, false },
        { "--machine", cfg->machine_file, false },
        { "--initrd", cfg->initrd_file, false },
        { "--symbols", cfg->symbols_file, false },
        { "--restore", cfg->restore_file, false },
        { cfg->console_input_opt ? cfg->console_input_opt : "--console-input", console_input_path(cfg), false },
        { "--replay", cfg->replay_file, false },
        { "--record", cfg->record_file, true },
        { "--trace", cfg->trace_file, true },
        { "--trace-dat", cfg->trace_dat_file, true },
        { "--trace-json", cfg->trace_json_file, true },
        { "--console", cfg->console_file, true },
        { "--samples", cfg->samples_file, true },
        { "--guest-trace", cfg->guest_trace_file, true },
        { "--save-at", cfg->save_file, true },
    };
    _Static_assert(ARRAY_SIZE(all) <= CLI_IO_NAMES, "CLI_IO_NAMES is too small");
    memcpy(names, all, sizeof all);
    return (int)ARRAY_SIZE(all);
}

/* ------------------------------------------------------------------ pmusim report */

static bool report_option(void *ctx, int id, const char *val, FILE *err)
{
    CliReport *r = ctx;
    switch (id) {
    case O_HELP:
        r->help = true;
        return true;
    case O_FOLDED:
    case O_PERF_SCRIPT:
        *(id == O_FOLDED ? &r->folded : &r->perf_script) = true;
        return !(r->folded && r->perf_script) ||
               bad(err, "report: --folded and --perf-script are two outputs: one at a time%s%s", "", "");
    case O_TRUTH:
        r->truth = true;
        r->by_cycles = val && !strcmp(val, "cycles");
        return !val || r->by_cycles || !strcmp(val, "insns") ||
               bad(err, "--truth=%s: expected insns or cycles%s", val, "");
    }
    return bad(err, "internal: a report option has no handler%s%s", "", "");
}

static bool report_operand(void *ctx, const char *arg, FILE *err)
{
    CliReport *r = ctx;
    if (r->samples)
        return bad(err, "report: too many arguments (%s)%s", arg, "");
    *(r->elf ? &r->samples : &r->elf) = arg;
    return true;
}

static bool report_done(void *ctx)
{
    return ((const CliReport *)ctx)->help;
}

bool cli_parse_report(int argc, char **argv, CliReport *r, FILE *err)
{
    static const CliHandler h = { report_option, report_operand, report_done };
    memset(r, 0, sizeof *r);
    if (!parse_with(&report_command, argc, argv, &h, r, err))
        return false;
    if (r->help || r->samples)
        return true;
    cli_report_usage(err);
    return false;
}

/* ------------------------------------------------------------------ pmusim diff */

static bool diff_option(void *ctx, int id, const char *val, FILE *err)
{
    CliDiff *d = ctx;
    Error e = { { 0 } };
    uint64_t n;
    switch (id) {
    case O_HELP:
        d->help = true;
        return true;
    case O_CONTEXT:
        if (!parse_number("context", val, 0, DIFF_CONTEXT_MAX, "a number of events from 0 to 100", &n, err))
            return false;
        d->opts.context = (unsigned)n;
        return true;
    case O_IGNORE:
    case O_IGNORE_FIELD:
        if ((id == O_IGNORE ? diff_ignore_kinds : diff_ignore_fields)(&d->opts, val, &e))
            return true;
        return bad(err, "%s%s", e.msg, "");
    }
    return bad(err, "internal: a diff option has no handler%s%s", "", "");
}

/* The next free side, or -1 (more than two). */
static int free_side(const CliDiff *d)
{
    for (int s = 0; s < DIFF_SIDES; s++)
        if (!d->file[s] && !d->run_argv[s])
            return s;
    return -1;
}

static bool diff_operand(void *ctx, const char *arg, FILE *err)
{
    CliDiff *d = ctx;
    int s = free_side(d);
    if (s < 0)
        return bad(err, "diff: more than two traces (%s)%s", arg, "");
    d->file[s] = arg;
    return true;
}

static bool diff_done(void *ctx)
{
    return ((const CliDiff *)ctx)->help;
}

/* A side's `pmusim run` arguments: a run (a KERNEL, no --help, --dump-dtb), without --trace. */
static bool check_run_args(int argc, char **argv, const char *label, FILE *err)
{
    Cli run;
    if (!cli_parse(argc, argv, &run, err))
        return bad(err, "diff: the command line of %s is not a run (above)%s", label, "");
    if (run.action != CLI_RUN)
        return bad(err, "diff: %s: --help, --version and --dump-dtb are not runs%s", label, "");
    if (run.cfg.trace_file)
        return bad(err, "diff: %s: leave --trace out: diff reads the run's trace itself (%s)", label,
                   run.cfg.trace_file);
    const char *in = run.cfg.console_input_file;
    if (in && (!strcmp(in, "-") || (run.cfg.console_input_live && !strcmp(in, "stdin"))))
        return bad(err, "diff: %s: console input from standard input: diff's standard input is not the run's; give a"
                   " file (%s)", label, run.cfg.console_input_opt);
    return true;
}

/* After the first `--`: one run per `--`, each up to the next. */
static bool diff_runs(CliDiff *d, int argc, char **argv, int first, FILE *err)
{
    for (int i = first; i < argc;) {
        int end = i + 1;
        while (end < argc && strcmp(argv[end], "--"))
            end++;
        int s = free_side(d);
        if (s < 0)
            return bad(err, "diff: more than two sides (the run after argument %s)%s", argv[i], "");
        bool sub = end > i + 1 && !strcmp(argv[i + 1], "run");     /* `-- run ARGS` as `-- ARGS` */
        d->run_argv[s] = argv + i + sub;
        d->run_argc[s] = end - i - sub;
        if (!check_run_args(d->run_argc[s], d->run_argv[s], d->opts.label[s], err))
            return false;
        i = end;
    }
    return true;
}

bool cli_parse_diff(int argc, char **argv, CliDiff *d, FILE *err)
{
    static const CliHandler h = { diff_option, diff_operand, diff_done };
    memset(d, 0, sizeof *d);
    diff_options_init(&d->opts);
    int dashes = 1;
    while (dashes < argc && strcmp(argv[dashes], "--"))
        dashes++;
    if (!parse_with(&diff_command, dashes, argv, &h, d, err))
        return false;
    if (d->help)
        return true;
    if (!diff_runs(d, argc, argv, dashes, err))
        return false;
    if (free_side(d) >= 0) {
        cli_diff_usage(err);
        return false;
    }
    if (d->file[0] && d->file[1] && !strcmp(d->file[0], "-") && !strcmp(d->file[1], "-"))
        return bad(err, "diff: - (standard input) for both traces%s%s", "", "");
    return true;
}

/* ------------------------------------------------------------------ pmusim stat */

static bool stat_option(void *ctx, int id, const char *val, FILE *err)
{
    CliStat *st = ctx;
    StatConfig *s = &st->stat;
    Error e = { { 0 } };
    switch (id) {
    case O_HELP:        st->help = true; return true;
    case O_PER_CPU:
    case O_NO_AGGR:     s->per_cpu = true; return true;
    case O_PER_SYMBOL:  s->per_symbol = true; return true;
    case O_OUTPUT:      s->output = val; return true;
    case O_SEP:
        s->sep = val;
        return *val || bad(err, "-x: an empty separator%s%s", "", "");
    case O_EVENT:
        return stat_parse_events(s, val, &e) || bad(err, "%s%s", e.msg, "");
    }
    return run_option(&st->run, id, val, err);
}

static bool stat_operand(void *ctx, const char *arg, FILE *err)
{
    return run_operand(&((CliStat *)ctx)->run, arg, err);
}

static bool stat_done(void *ctx)
{
    CliStat *st = ctx;
    return st->help || run_done(&st->run);
}

/* What a counting run cannot be: no run at all, or one that starts from a checkpoint (the counts
 * before it, user and kernel apart, are not in the file). */
static bool stat_check(CliStat *st, FILE *err)
{
    const MachineConfig *cfg = &st->run.cfg;
    if (st->run.action == CLI_DUMP_DTB || st->run.action == CLI_DUMP_SYMBOLS)
        return bad(err, "stat: %s runs nothing to count%s", st->run.action == CLI_DUMP_DTB ? "--dump-dtb" : "--dump-symbols",
                   "");
    if (cfg->restore_file)
        return bad(err, "stat --restore %s: the counts before the checkpoint, user and kernel apart, are not in it: "
                   "count a run from its start%s", cfg->restore_file, "");
    if (st->stat.output && st->run.action == CLI_RUN && cfg->kernel && !strcmp(st->stat.output, cfg->kernel))
        return bad(err, "stat -o %s: the output would overwrite KERNEL%s", st->stat.output, "");
    return check_combination(&st->run, err);
}

bool cli_parse_stat(int argc, char **argv, CliStat *st, FILE *err)
{
    static const CliHandler h = { stat_option, stat_operand, stat_done };
    static const CliHandler after = { run_option, run_operand, run_done };
    const CliTables both = { { &stat_command, &run_command }, 2 };
    memset(st, 0, sizeof *st);
    st->run.cfg.arch = ARCH_NONE;
    st->run.cfg.trace_limit = DEFAULT_TRACE_LIMIT;
    int rest;
    if (!parse_tables(&both, argc, argv, &h, st, err, &rest))
        return false;
    if (stat_done(st))
        return true;
    /* after "--": run options only (the argument "--" stands for argv[0]) */
    if (rest < argc && !parse_with(&run_command, argc - rest + 1, argv + rest - 1, &after, &st->run, err))
        return false;
    if (stat_done(st))
        return true;
    if (st->run.action == CLI_RUN && !st->run.cfg.kernel) {
        cli_stat_usage(err);
        return false;
    }
    return stat_check(st, err);
}

void cli_stat_usage(FILE *f)
{
    print_usage(&stat_command, f);
    fputs("\nEvents (-e; perf's names and aliases, each may take :u, :k or :uk):\n", f);
    for (int i = 0; stat_event_name(i); i++)
        fprintf(f, "  %s\n", stat_event_name(i));
    fputs("\nRun options: pmusim run --help.\n", f);
}

/* ------------------------------------------------------------------ the manual page */

/* Text for roff (groff_man(7), man-pages(7)): a backslash as \e, a hyphen as \- (options are
 * typed with ASCII minus signs), a line never starting with a control character ('.' or '\''),
 * the table's line breaks (made for an 80-column --help) joined with spaces. */
static void roff(FILE *f, const char *s, size_t len, bool join)
{
    bool bol = true;
    for (size_t i = 0; i < len && s[i]; i++) {
        char ch = s[i];
        if (bol && (ch == '.' || ch == '\''))
            fputs("\\&", f);
        bol = false;
        if (ch == '\\')
            fputs("\\e", f);
        else if (ch == '-')
            fputs("\\-", f);
        else if (ch == '\n' && join)
            fputc(' ', f);
        else
            fputc(ch, f);
        bol = ch == '\n' && !join;
    }
}

static void roff_str(FILE *f, const char *s)
{
    roff(f, s, strlen(s), false);
}

static void man_option(FILE *f, const CliOption *o)
{
    fputs(".TP\n", f);
    if (o->id < CLI_SHORT_MAX)
        fprintf(f, "\\fB\\-%c\\fR, ", o->id);
    fputs("\\fB\\-\\-", f);
    roff_str(f, o->name);
    fputs("\\fR", f);
    if (o->arg) {
        fputs(o->optional ? "[=\\fI" : " \\fI", f);
        roff_str(f, o->arg);
        fputs(o->optional ? "\\fR]" : "\\fR", f);
    }
    fputc('\n', f);
    roff(f, o->help, strlen(o->help), true);
    fputc('\n', f);
}

static void man_command(FILE *f, const CliCommand *cmd)
{
    fprintf(f, ".SS \"pmusim %s\"\n.nf\n", cmd->sub);
    roff_str(f, cmd->usage);
    fputs(".fi\n", f);
    for (size_t i = 0; i < cmd->n; i++) {
        if (cmd->opts[i].group) {
            fputs(".PP\n.I \"", f);
            roff_str(f, cmd->opts[i].group);
            fputs("\"\n", f);
        }
        man_option(f, &cmd->opts[i]);
    }
    if (cmd->footer) {
        fputs(".PP\n", f);
        roff(f, cmd->footer + (cmd->footer[0] == '\n'), strlen(cmd->footer), true);
        fputc('\n', f);
    }
}

/* The synopsis: each command's first usage line, and the run's other lines that are not another
 * command's. */
static void man_synopsis(FILE *f)
{
    fputs(".SH SYNOPSIS\n.nf\n", f);
    for (size_t c = 0; c < ARRAY_SIZE(commands); c++) {
        for (const char *l = commands[c]->usage; *l;) {
            const char *nl = strchr(l, '\n');
            size_t len = nl ? (size_t)(nl - l) : strlen(l);
            const char *p = strstr(l, "pmusim");
            bool other = false;
            for (size_t k = 1; c == 0 && p && k < ARRAY_SIZE(commands); k++)
                other |= !strncmp(p + strlen("pmusim "), commands[k]->sub, strlen(commands[k]->sub));
            if (p && p < l + len && !other && (c == 0 || l == commands[c]->usage)) {
                roff(f, p, len - (size_t)(p - l), false);
                fputc('\n', f);
            }
            l += len + (nl != NULL);
        }
    }
    fputs(".fi\n", f);
}

void cli_print_man(FILE *f)
{
    fputs(".\\\" pmusim.1: generated by `pmusim --help-man` from the option tables of sim/cli.c; do not edit.\n"
          ".TH PMUSIM 1 \"\" \"pmusim " PMUSIM_VERSION "\" \"User Commands\"\n"
          ".SH NAME\npmusim \\- a deterministic cycle\\-level CPU and PMU simulator for kernel developers\n", f);
    man_synopsis(f);
    fputs(".SH DESCRIPTION\npmusim runs guest kernels on x86\\-64, AArch64 and PowerPC 7450 machines described by "
          "device trees, counts every instruction and cycle exactly, and gives the same trace, console output and "
          "counts on every run.\n.B pmusim run\nruns a guest;\n.B pmusim report\nprints an opreport\\-style table of "
          "the samples a run recorded;\n.B pmusim diff\nnames the first event where two runs differ;\n.B pmusim stat\nruns a guest and prints the events its CPUs counted, user and "
          "kernel apart, in the layout of perf stat.\n.SH OPTIONS\n", f);
    for (size_t c = 0; c < ARRAY_SIZE(commands); c++)
        man_command(f, commands[c]);
    fputs(".SH EVENTS\nThe events of\n.BR \"pmusim stat \\-e\" :\n.PP\n", f);
    for (int i = 0; stat_event_name(i); i++) {
        roff_str(f, stat_event_name(i));
        fputs("\n.br\n", f);
    }
    fputs(".SH EXIT STATUS\nThe guest's (isa\\-debug\\-exit gives (code << 1) | 1); 2 bad input; 3 a limit ended the "
          "run; 4 the guest hung or died; 5 internal error; 6 patching violations with \\-\\-strict; 7 an output could "
          "not be written completely; 128 + N signal N.\n"
          ".SH FILES\n.TP\n.I share/bash\\-completion/completions/pmusim\nthe bash completion "
          "(\\fBpmusim \\-\\-help\\-completion\\fR), under the installation prefix\n"
          ".TP\n.I docs/\nin the source tree: the full documentation (architecture, trace format, profiling, "
          "tools)\n"
          ".SH SEE ALSO\n.BR perf\\-stat (1),\n.BR perf\\-report (1),\n.BR opreport (1),\n.BR trace\\-cmd (1),\n"
          ".BR qemu\\-system\\-x86_64 (1)\n", f);
}

/* ------------------------------------------------------------------ bash completion */

/* The option names of a command, "--name" and "-c" (the run's too for stat). */
static void comp_opts(FILE *f, const CliCommand *cmd)
{
    for (size_t i = 0; i < cmd->n; i++) {
        const CliOption *o = &cmd->opts[i];
        fprintf(f, " --%s", o->name);
        if (o->id < CLI_SHORT_MAX)
            fprintf(f, " -%c", o->id);
    }
}

static const char *words_of(int id)
{
    for (size_t i = 0; i < ARRAY_SIZE(option_words); i++)
        if (option_words[i].id == id)
            return option_words[i].words;
    return NULL;
}

/* The values an option takes, as a case branch: files, fixed words, architectures, CPU models,
 * events (the last item of a comma list); nothing to offer for a number or a string. */
static void comp_value(FILE *f, const CliOption *o)
{
    fprintf(f, "    --%s", o->name);
    if (o->id < CLI_SHORT_MAX)
        fprintf(f, "|-%c", o->id);
    if (o->id == O_EVENT) {
        fputs(") local pre=\"\"; [[ $cur == *,* ]] && pre=${cur%,*},\n"
              "        COMPREPLY=($(compgen -P \"$pre\" -W \"", f);
        for (int i = 0; stat_event_name(i); i++)
            fprintf(f, "%s%s", i ? " " : "", stat_event_name(i));
        fputs("\" -- \"${cur##*,}\")); return;;\n", f);
        return;
    }
    fputs(") COMPREPLY=($(compgen ", f);
    if (o->arg && !strncmp(o->arg, "FILE", 4)) {    /* FILE, or FILE|word */
        const char *w = words_of(o->id);
        fprintf(f, "-f %s%s%s-- \"$cur\")); return;;\n", w ? "-W \"" : "", w ? w : "", w ? "\" " : "");
    } else if (o->id == O_ARCH || o->id == O_CPU_MODEL || words_of(o->id)) {
        const char *w = words_of(o->id);
        fprintf(f, "-W \"%s", w ? w : "");
        for (int a = 0; !w && a < ARCH_COUNT; a++) {
            const char *v = o->id == O_ARCH ? isa_name((Arch)a) : vcpu_model_list((Arch)a);
            for (; *v; v++)                 /* "a, b": the list's commas go */
                if (*v != ',')
                    fputc(*v, f);
            fputc(' ', f);
        }
        fputs("\" -- \"$cur\")); return;;\n", f);
    } else {
        fputs("-W \"\" -- \"$cur\")); return;;\n", f);
    }
}

static void comp_command(FILE *f, const CliCommand *cmd)
{
    fprintf(f, "  %s)\n    opts=\"", cmd->sub);
    comp_opts(f, cmd);
    if (cmd != &run_command && !strcmp(cmd->sub, "stat"))
        comp_opts(f, &run_command);
    fputs("\"\n    case $prev in\n", f);
    for (int pass = 0; pass < 2; pass++) {
        const CliCommand *t = pass ? &run_command : cmd;
        if (pass && (cmd == &run_command || strcmp(cmd->sub, "stat")))
            break;
        for (size_t i = 0; i < t->n; i++)
            if (t->opts[i].arg && !t->opts[i].optional)
                comp_value(f, &t->opts[i]);
    }
    fputs("    esac;;\n", f);
}

void cli_print_completion(FILE *f)
{
    fputs("# bash completion for pmusim: generated by `pmusim --help-completion` from the option tables of\n"
          "# sim/cli.c; do not edit.  Source it, or install it as\n"
          "# share/bash-completion/completions/pmusim (make install does).\n"
          "_pmusim()\n{\n    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=run opts\n"
          "    case ${COMP_WORDS[1]} in\n", f);
    for (size_t c = 1; c < ARRAY_SIZE(commands); c++)
        fprintf(f, "    %s) cmd=%s;;\n", commands[c]->sub, commands[c]->sub);
    fputs("    esac\n    case $cmd in\n", f);
    for (size_t c = 0; c < ARRAY_SIZE(commands); c++)
        comp_command(f, commands[c]);
    fputs("    esac\n    if [[ $cur == -* ]]; then\n        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
          "    elif ((COMP_CWORD == 1)); then\n        COMPREPLY=($(compgen -W \"", f);
    for (size_t c = 0; c < ARRAY_SIZE(commands); c++)
        fprintf(f, "%s%s", c ? " " : "", commands[c]->sub);
    fputs("\" -- \"$cur\") $(compgen -f -- \"$cur\"))\n    else\n        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
          "    fi\n}\ncomplete -F _pmusim pmusim\n", f);
}
