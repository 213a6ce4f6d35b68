/* main.c — the pmusim command line.
 *
 *   pmusim [run] [options] KERNEL       run a guest (ELF, or raw with --load-addr)
 *   pmusim --dump-dtb [options] [KERNEL] print the effective machine as DTS
 *   pmusim --dump-symbols [options] KERNEL print the image's symbols as a System.map
 *   pmusim report / pmusim diff ...      sim/report.c, sim/diff.c
 *   pmusim stat [-e EVENTS] ... KERNEL   run a guest and print what its CPUs counted (sim/stat.c)
 *
 * Bad options and bad input files get one message naming the option or file and exit status 2;
 * inputs are read and checked before any output is opened (base/outfile.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/checkpoint.h"
#include "sim/cli.h"
#include "sim/gdbstub.h"
#include "sim/diff.h"
#include "sim/machine.h"
#include "sim/report.h"
#include "sim/stat.h"
#include "sim/ttcheck.h"

static Machine machine;
static GdbStub gdb;                 /* --gdb */

static void on_interrupt(int sig)
{
    mach_interrupt(&machine, sig);
}

/* A crash must not lose the trace and console written so far. */
static void on_fatal(int sig)
{
    mach_rescue_outputs(&machine);
    signal(sig, SIG_DFL);
    raise(sig);
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
#define PMUSIM_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define PMUSIM_SANITIZED 1
#endif
#endif

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
#ifndef PMUSIM_SANITIZED            /* the sanitizers' own reports matter more there */
    sa.sa_handler = on_fatal;
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGABRT, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
#else
    (void)on_fatal;
#endif
}

static int bad_input(const Error *err)
{
    fprintf(stderr, "pmusim: %s\n", err->msg);
    mach_destroy(&machine);
    return EXIT_USAGE;
}

/* No output may overwrite an input or another output (checked before anything is opened; the
 * list of a run's files is sim/cli.c's cli_io_names: add a new file option there); stat_output:
 * pmusim stat -o FILE, or NULL. */
static bool check_files(const MachineConfig *cfg, const char *stat_output, Error *err)
{
    IoName names[CLI_IO_NAMES + 1];
    int n = cli_io_names(cfg, names);
    names[n++] = (IoName){ "stat -o", stat_output, true };
    return outfile_check_distinct(names, n, err);
}

static int dump_dtb(const MachineConfig *cfg)
{
    Error err = { { 0 } };
    if (!mach_create(&machine, cfg, &err))
        return bad_input(&err);
    bool ok = mach_dump_dtb(&machine, &err);
    if (!ok)
        fprintf(stderr, "pmusim: %s\n", err.msg);
    mach_destroy(&machine);
    return ok ? 0 : EXIT_USAGE;
}

/* The image's symbols as `nm -n` prints them (a System.map); an arm64 Linux Image whose
 * kallsyms could not be read is bad input, with the reason. */
static int dump_symbols(const MachineConfig *cfg)
{
    Error err = { { 0 } };
    if (!mach_create(&machine, cfg, &err))
        return bad_input(&err);
    const Image *im = &machine.image;
    if (!im->nsyms) {
        err_set(&err, "%s", im->nosyms ? im->nosyms : "the image has no symbols");
        return bad_input(&err);
    }
    for (int i = 0; i < im->nsyms; i++) {
        const Symbol *s = &im->syms[i];
        printf("%0*" PRIx64 " %c %s\n", im->is64 ? 16 : 8, s->addr, image_symbol_type(s), s->name);
    }
    mach_destroy(&machine);
    return 0;
}

static int check_icount(void)
{
    int status = 0;
    for (int k = 0; k < machine.cl.ncpus; k++) {
        Cpu *c = machine.cl.cpus[k];
        uint64_t ref = vcpu_icount_reference(c);
        bool same = ref == c->insns;
        fprintf(stderr, "icount-check: cpu%d block-count=%" PRIu64 " per-insn=%" PRIu64 " %s\n", k, c->insns, ref,
                same ? "ok" : "MISMATCH");
        if (!same)
            status = EXIT_INTERNAL;
    }
    return status;
}

/* The run ended at --trace-limit: which trace would have grown past it (either, with both). */
static void report_trace_limit(const MachineConfig *cfg)
{
    const char *opt[] = { "--trace", "--trace-dat", "--trace-json" };
    const char *file[] = { cfg->trace_file, cfg->trace_dat_file, cfg->trace_json_file };
    char what[1024] = "";
    size_t n = 0;
    for (size_t i = 0; i < ARRAY_SIZE(opt); i++)
        if (file[i] && n < sizeof what)
            n += (size_t)snprintf(what + n, sizeof what - n, "%s%s %s", n ? " or " : "", opt[i], file[i]);
    fprintf(stderr, "pmusim: %s: the next event would take it past --trace-limit %" PRIu64
            " bytes; the run ends there (docs/trace-format.md)\n", what, cfg->trace_limit);
}

/* Inputs first (image, tree, checkpoint), then the outputs, then the run; `stat`: pmusim stat's
 * table at the end (NULL for pmusim run). */
static int run(MachineConfig *cfg, const StatConfig *stat)
{
    Error err = { { 0 } };
    cfg->progress = !cfg->quiet && isatty(STDERR_FILENO);
    if (!check_files(cfg, stat ? stat->output : NULL, &err) || !mach_create(&machine, cfg, &err))
        return bad_input(&err);
    if (cfg->restore_file && !checkpoint_restore(&machine, cfg->restore_file, &err))
        return bad_input(&err);
    if (cfg->gdb && !gdbstub_open(&gdb, &machine, cfg->gdb, cfg->gdb_wait, &err))
        return bad_input(&err);     /* before any output is opened */
    if (!mach_open_outputs(&machine, &err)) {
        if (cfg->gdb)
            gdbstub_close(&gdb, EXIT_USAGE);
        return bad_input(&err);
    }
    if (!cfg->restore_file)
        mach_boot(&machine);
    install_signals();
    if (cfg->gdb && cfg->tt_check)
        gdbstub_start(&gdb);        /* else gdbstub_run waits, with time travel started */
    int status = cfg->tt_check ? ttcheck_run(&machine, cfg->tt_check)
               : cfg->gdb    ? gdbstub_run(&gdb)
                             : mach_run(&machine);
    if (cfg->gdb)
        gdbstub_close(&gdb, status);
    if (machine.exit_reason && !strcmp(machine.exit_reason, "trace-limit"))
        report_trace_limit(cfg);
    if (machine.exit_reason && machine.exit_status != 0 && strcmp(machine.exit_reason, "debug-exit") &&
        !(cfg->quiet && machine.exit_status == EXIT_LIMIT))
    {
        fprintf(stderr, "pmusim: run ended: %s (status %d)\n", machine.exit_reason, status);
        if (machine.exit_status == EXIT_LIMIT || machine.exit_status == EXIT_HUNG || machine.exit_status == EXIT_PANIC)
            mach_print_pcs(&machine, stderr);
    }
    if (cfg->stats)
        mach_print_stats(&machine);
    if (cfg->icount_check && check_icount())
        status = EXIT_INTERNAL;
    if (stat) {
        int st = stat_print(stat, &machine, cfg->kernel);
        status = st ? st : status;
    }
    mach_destroy(&machine);
    return status;
}

/* The texts any command line may ask for instead of a run; -1 if none. */
static int print_text(CliAction action)
{
    switch (action) {
    case CLI_HELP:              cli_usage(stdout); return 0;
    case CLI_HELP_MAN:          cli_print_man(stdout); return 0;
    case CLI_HELP_COMPLETION:   cli_print_completion(stdout); return 0;
    case CLI_VERSION:           puts("pmusim " PMUSIM_VERSION); return 0;
    default:                    return -1;
    }
}

/* `pmusim stat`: the run, with the CPU core counting user and kernel apart. */
static int stat_main(int argc, char **argv)
{
    CliStat st;
    if (!cli_parse_stat(argc, argv, &st, stderr))
        return EXIT_USAGE;
    if (st.help) {
        cli_stat_usage(stdout);
        return 0;
    }
    int text = print_text(st.run.action);
    if (text >= 0)
        return text;
    stat_configure(&st.stat, &st.run.cfg);
    return run(&st.run.cfg, &st.stat);
}

/* What went to standard output through stdio (report, --dump-dtb, --help) must have arrived. */
static int finish_stdout(int status)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return status;
    fprintf(stderr, "pmusim: standard output: write error: %s\n", strerror(errno));
    return EXIT_OUTPUT;
}

static int dispatch(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "report"))
        return report_main(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "stat"))
        return stat_main(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "diff"))
        return diff_main(argc - 1, argv + 1);
    bool sub = argc > 1 && !strcmp(argv[1], "run");
    Cli cli;
    if (!cli_parse(argc - sub, argv + sub, &cli, stderr))
        return EXIT_USAGE;
    int text = print_text(cli.action);
    if (text >= 0)
        return text;
    if (cli.action == CLI_DUMP_SYMBOLS)
        return dump_symbols(&cli.cfg);
    return cli.action == CLI_DUMP_DTB ? dump_dtb(&cli.cfg) : run(&cli.cfg, NULL);
}

int main(int argc, char **argv)
{
    return finish_stdout(dispatch(argc, argv));
}
