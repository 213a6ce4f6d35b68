/* cli.c — the option tables of `pmusim [run]` and `pmusim report`, one parser for both
 * (getopt_long) and the --help text each prints. */
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
    O_ARCH = 256, O_MACHINE, O_CPUS, O_CPU_MODEL, O_BOOTARGS, O_MEM, O_DUMP_DTB,
    O_LOAD_ADDR, O_ENTRY, O_INITRD,
    O_QUANTUM, O_MAX_INSNS, O_MAX_CYCLES, O_CONSOLE, O_CONSOLE_INPUT, O_TRACE, O_TRACE_LIMIT, O_CHECK_PATCHING, O_STRICT,
    O_ICACHE,
    O_GUEST_TRACE, O_SAMPLES, O_STATS, O_SAVE_AT, O_RESTORE, O_SEMIHOSTING, O_ICOUNT_CHECK,
    O_TIME_TRAVEL_CHECK,
    O_VERSION,
    O_TRUTH, O_FOLDED,              /* pmusim report */
};

typedef struct CliOption {
    const char *name;
    const char *arg;                /* the value's name in --help; NULL: a flag */
    int id;
    bool optional;                  /* the value may be left out (--name or --name=VALUE) */
    const char *group;              /* a heading printed before this option, or NULL */
    const char *help;               /* '\n' continues on the next line */
} CliOption;

static const CliOption run_options[] = {
    { "arch", "ARCH", O_ARCH, false, "Machine:", "x86_64, arm64 or ppc32 (default: from the ELF)" },
    { "machine", "FILE", O_MACHINE, false, NULL, "device tree (.dts or .dtb) replacing the built-in board" },
    { "cpus", "N", O_CPUS, false, NULL, "number of CPUs, 1 to 16 (clones the first cpu node)" },
    { "cpu-model", "NAME", O_CPU_MODEL, false, NULL,
      "x86_64: generic (default), core2duo; arm64: cortex-a57\n(default), cortex-a53, cortex-a72; ppc32: mpc7450 (default),\nmpc7447a, mpc7448" },
    { "bootargs", "STR", O_BOOTARGS, false, NULL, "/chosen/bootargs" },
    { "mem", "SIZE", O_MEM, false, NULL,
      "RAM size: bytes, or with a K, M, G or T suffix (256M, 1G),\na multiple of 4K up to 1T; sets the memory node's reg (default\nas in the tree: arm64 1G, x86_64 and ppc32 128M)" },
    { "dump-dtb", NULL, O_DUMP_DTB, false, NULL, "print the effective device tree as DTS and exit" },
    { "load-addr", "ADDR", O_LOAD_ADDR, false, "Guest image:", "KERNEL is a raw binary loaded at ADDR (needs --arch)" },
    { "entry", "ADDR", O_ENTRY, false, NULL, "entry point (default: the ELF entry or the load address)" },
    { "initrd", "FILE", O_INITRD, false, NULL,
      "load FILE into RAM above the image; /chosen gets\nlinux,initrd-start and linux,initrd-end (docs/guest-abi.md)" },
    { "quantum", "CYCLES", O_QUANTUM, false, "Run:", "scheduling quantum, 1 to 2^32 (default 100000)" },
    { "max-insns", "N", O_MAX_INSNS, false, NULL, "stop after exactly N instructions (all CPUs together), N <= 2^62" },
    { "max-cycles", "N", O_MAX_CYCLES, false, NULL, "stop when simulated time reaches N cycles, N <= 2^62" },
    { "console", "FILE", O_CONSOLE, false, NULL, "guest console output to FILE instead of stdout" },
    { "console-input", "FILE", O_CONSOLE_INPUT, false, NULL,
      "bytes for the console UART's receiver, read whole before the\nrun (- for standard input), delivered one character time\napart while the guest takes them (docs/guest-abi.md)" },
    { "trace", "FILE", O_TRACE, false, NULL, "event trace (docs/trace-format.md)" },
    { "trace-limit", "BYTES", O_TRACE_LIMIT, false, NULL,
      "end the run (status 3) where the trace would grow past BYTES\n(then its exit line); 0: no limit; default 1073741824 (1 GiB)" },
    { "check-patching", NULL, O_CHECK_PATCHING, false, NULL,
      "validate every write to guest code against the image's patch\nsites and the architecture's rules; summary on stderr\n(docs/patching.md)" },
    { "strict", NULL, O_STRICT, false, NULL, "with --check-patching: violations make the exit status 6" },
    { "icache", "MODE", O_ICACHE, false, NULL,
      "coherent (default) or strict: arm64/ppc32 CPUs fetch the old\ninstruction until the cache maintenance is done (implies\n--check-patching)" },
    { "guest-trace", "FILE", O_GUEST_TRACE, false, NULL,
      "the guest's trace rings at the end, in ftrace's function /\nfunction_graph text format (docs/trace-format.md)" },
    { "samples", "FILE", O_SAMPLES, false, NULL, "PMU samples and the exact instruction profile, for\n`pmusim report` (docs/profiling.md)" },
    { "stats", NULL, O_STATS, false, NULL, "per-CPU instruction and cycle counts on stderr at the end" },
    { "save-at", "CYCLE:FILE", O_SAVE_AT, false, NULL, "write a checkpoint at the first quantum boundary >= CYCLE" },
    { "restore", "FILE", O_RESTORE, false, NULL, "continue from a checkpoint (same machine and image)" },
    { "semihosting", NULL, O_SEMIHOSTING, false, NULL, "arm64: hlt #0xf000 semihosting (exit, writec, write0)" },
    { "icount-check", NULL, O_ICOUNT_CHECK, false, NULL, "also count instructions one by one and compare (test aid)" },
    { "time-travel-check", "STRIDE", O_TIME_TRAVEL_CHECK, false, NULL,
      "every STRIDE instructions of a CPU (in turn), step back and\nforth with time travel and compare the machine states (test\naid, docs/debugging.md)" },
    { "help", NULL, O_HELP, false, "Other:", "this text (also -h)" },
    { "version", NULL, O_VERSION, false, NULL, "the version" },
};

static const CliOption report_options[] = {
    { "truth", "MODE", O_TRUTH, true, "Report:",
      "add each symbol's exact share: MODE insns (default), of the\ninstructions retired while a sampling counter counted;\ncycles, of their cycles" },
    { "folded", NULL, O_FOLDED, false, NULL, "one line per symbol, app;image;symbol COUNT (flame graphs)" },
    { "help", NULL, O_HELP, false, "Other:", "this text (also -h)" },
};

#define CLI_MAX_OPTIONS 48

typedef struct CliCommand {
    const char *name;               /* in messages: "pmusim", "pmusim report" */
    const char *usage;              /* the usage lines, before the options */
    const char *footer;             /* after them, or NULL */
    const CliOption *opts;
    size_t n;
} CliCommand;

static const CliCommand run_command = {
    "pmusim",
    "usage: pmusim [run] [options] KERNEL\n"
    "       pmusim --dump-dtb [options] [KERNEL]\n"
    "       pmusim report GUEST.elf SAMPLES [--truth[=insns|cycles]] [--folded]\n",
    "\nExit status: the guest's; 2 bad input; 3 --max-insns, --max-cycles or --trace-limit;\n"
    "4 the guest hung or died; 5 internal error; 6 patching violations with --strict; 7 an\n"
    "output could not be written completely; 128 + N signal N (docs/guest-abi.md).\n",
    run_options, ARRAY_SIZE(run_options),
};

static const CliCommand report_command = {
    "pmusim report",
    "usage: pmusim report [options] GUEST.elf SAMPLES\n"
    "the samples of a --samples run by symbol of GUEST.elf, as opreport prints them\n"
    "(docs/profiling.md)\n",
    "\nExit status: 0; 2 bad input.\n",
    report_options, ARRAY_SIZE(report_options),
};

#define HELP_COLUMN 27

static void print_usage(const CliCommand *cmd, FILE *f)
{
    fputs(cmd->usage, f);
    for (size_t i = 0; i < cmd->n; i++) {
        const CliOption *o = &cmd->opts[i];
        if (o->group)
            fprintf(f, "%s%s\n", i ? "" : "\n", o->group);
        int n = fprintf(f, "  --%s%s%s%s", o->name, !o->arg ? "" : o->optional ? "[=" : " ", o->arg ? o->arg : "",
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
    case O_BOOTARGS:    cfg->bootargs = val; return true;
    case O_INITRD:      cfg->initrd_file = val; return true;
    case O_MEM:         return parse_mem(cfg, val, err);
    case O_TRACE:       cfg->trace_file = val; return true;
    case O_GUEST_TRACE: cfg->guest_trace_file = val; return true;
    case O_SAMPLES:     cfg->samples_file = val; return true;
    case O_CONSOLE:     cfg->console_file = val; return true;
    case O_CONSOLE_INPUT: cfg->console_input_file = val; return true;
    case O_RESTORE:     cfg->restore_file = val; return true;
    case O_SAVE_AT:     return parse_save_at(cfg, val, err);
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
    case O_DUMP_DTB:        cli->action = CLI_DUMP_DTB; return true;
    case O_STATS:           cfg->stats = true; return true;
    case O_SEMIHOSTING:     cfg->semihosting = true; return true;
    case O_ICOUNT_CHECK:    cfg->icount_check = true; return true;
    case O_CHECK_PATCHING:  cfg->check_patching = true; return true;
    case O_STRICT:          cfg->check_patching = cfg->strict = true; return true;
    }
    return false;
}

static const CliOption *option_by_id(const CliCommand *cmd, int id)
{
    for (size_t i = 0; i < cmd->n; i++)
        if (cmd->opts[i].id == id)
            return &cmd->opts[i];
    return NULL;
}

static bool check_combination(Cli *cli, FILE *err)
{
    const MachineConfig *cfg = &cli->cfg;
    if (cfg->raw && cfg->arch == ARCH_NONE)
        return bad(err, "--load-addr needs --arch (a raw binary does not say what it is)%s%s", "", "");
    if (cli->action == CLI_RUN && !cfg->kernel) {
        cli_usage(err);
        return false;
    }
    if (cli->action == CLI_DUMP_DTB && !cfg->kernel && cfg->arch == ARCH_NONE)
        return bad(err, "--dump-dtb needs a KERNEL or --arch%s%s", "", "");
    return true;
}

/* What a command does with what getopt_long finds: an option (val: its value, NULL for a flag or
 * an optional value left out), an operand; false after one message on err. */
typedef struct CliHandler {
    bool (*option)(void *ctx, int id, const char *val, FILE *err);
    bool (*operand)(void *ctx, const char *arg, FILE *err);
    bool (*done)(void *ctx);        /* stop early (--help, --version) */
} CliHandler;

/* The one getopt_long loop, over cmd's table. */
static bool parse_with(const CliCommand *cmd, int argc, char **argv, const CliHandler *h, void *ctx, FILE *err)
{
    struct option lopts[CLI_MAX_OPTIONS + 1];
    memset(lopts, 0, sizeof lopts);
    if (cmd->n > CLI_MAX_OPTIONS)
        return bad(err, "internal: %s has more than %s options", cmd->name, "CLI_MAX_OPTIONS");
    for (size_t i = 0; i < cmd->n; i++) {
        const CliOption *o = &cmd->opts[i];
        int has = !o->arg ? no_argument : o->optional ? optional_argument : required_argument;
        lopts[i] = (struct option){ o->name, has, NULL, o->id };
    }
    opterr = 0;
    optind = 0;                     /* glibc: start afresh (the fuzzing harness parses again and again) */
    /* '-': operands come back in order as 1 whatever POSIXLY_CORRECT says; ':': a missing value is ':' */
    for (int id; (id = getopt_long(argc, argv, "-:h", lopts, NULL)) != -1;) {
        const char *arg = argv[optind - 1];
        const CliOption *o = option_by_id(cmd, id);
        bool ok;
        if (id == 1)
            ok = h->operand(ctx, optarg, err);
        else if (id == ':')
            ok = bad(err, "option %s needs a value%s", arg, "");
        else if (!o)
            ok = bad(err, "unknown option %s (see %s --help)", arg, cmd->name);
        else
            ok = h->option(ctx, id, o->arg ? optarg : NULL, err);
        if (!ok)
            return false;
        if (h->done && h->done(ctx))
            return true;
    }
    return true;
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
    return cli->action == CLI_HELP || cli->action == CLI_VERSION;
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

/* ------------------------------------------------------------------ pmusim report */

static bool report_option(void *ctx, int id, const char *val, FILE *err)
{
    CliReport *r = ctx;
    switch (id) {
    case O_HELP:
        r->help = true;
        return true;
    case O_FOLDED:
        r->folded = true;
        return true;
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
