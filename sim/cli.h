/* cli.h — the command lines of `pmusim [run]`, `pmusim --dump-dtb`, `pmusim report`, `pmusim diff`
 * and `pmusim stat`.
 *
 * One option table per command (cli.c) gives getopt_long its options and --help its text.  Parsing has no
 * side effect: it fills a Cli, opens no file and never exits, so the fuzzing harness can call it
 * on any argv.  Every number is checked whole: digits only (decimal or 0x hex), no sign, no
 * overflow, inside the option's documented range.
 */
#ifndef PMUSIM_CLI_H
#define PMUSIM_CLI_H

#include <stdio.h>

#include "base/outfile.h"
#include "sim/machine.h"
#include "sim/stat.h"
#include "tracer/tracediff.h"

typedef enum CliAction {
    CLI_RUN,        /* run KERNEL */
    CLI_DUMP_DTB,   /* --dump-dtb: print the effective tree */
    CLI_DUMP_SYMBOLS,   /* --dump-symbols: print the image's symbols as a System.map */
    CLI_HELP,       /* --help: usage printed on stdout */
    CLI_VERSION,    /* --version */
    CLI_HELP_MAN,   /* --help-man: the manual page (roff) on stdout */
    CLI_HELP_COMPLETION,    /* --help-completion: the bash completion script on stdout */
} CliAction;

typedef struct Cli {
    CliAction action;
    MachineConfig cfg;
} Cli;

/* Parse argv (argv[0] is the program or subcommand name).  Returns true, or false after one
 * message on `err` ("pmusim: ..." naming the option and its value). */
bool cli_parse(int argc, char **argv, Cli *cli, FILE *err);

/* The usage text, generated from the option table. */
void cli_usage(FILE *f);

/* `pmusim report [options] GUEST.elf SAMPLES` */
typedef struct CliReport {
    const char *elf, *samples;
    bool truth;                     /* --truth[=insns|cycles] */
    bool by_cycles;                 /* --truth=cycles */
    bool folded;                    /* --folded */
    bool perf_script;               /* --perf-script */
    bool help;                      /* --help: usage printed on stdout */
} CliReport;

/* Parse the arguments after "report" (argv[0] is "report"); as cli_parse. */
bool cli_parse_report(int argc, char **argv, CliReport *r, FILE *err);
void cli_report_usage(FILE *f);

/* The files a run reads and writes, each named by its option, for outfile_check_distinct (no
 * output may be an input or another output); returns how many (at most CLI_IO_NAMES). */
#define CLI_IO_NAMES 24
int cli_io_names(const MachineConfig *cfg, IoName names[CLI_IO_NAMES]);

/* `pmusim diff [options] TRACE_A TRACE_B`, or a side as a run: `pmusim diff [options] [TRACE_A]
 * -- RUN_ARGS_A [-- RUN_ARGS_B]` (docs/tools.md).  Everything after the first `--` is command
 * lines of `pmusim run`, one after each `--`; each is checked with cli_parse (a run, without
 * --trace, which diff gives it). */
typedef struct CliDiff {
    const char *file[DIFF_SIDES];   /* a trace file, or NULL: the side is run_argv */
    char **run_argv[DIFF_SIDES];    /* into argv: run_argv[s][0] is the `--` (as argv[0]) */
    int run_argc[DIFF_SIDES];
    DiffOptions opts;               /* --context, --ignore, --ignore-field */
    bool help;
} CliDiff;

/* Parse the arguments after "diff" (argv[0] is "diff"); as cli_parse. */
bool cli_parse_diff(int argc, char **argv, CliDiff *d, FILE *err);
void cli_diff_usage(FILE *f);
/* `pmusim stat [stat options] [--] [run options] KERNEL` (the stat options and the run's may be
 * mixed; after "--" only the run's). */
typedef struct CliStat {
    Cli run;                        /* the run options, as cli_parse fills them */
    StatConfig stat;
    bool help;                      /* --help: usage printed on stdout */
} CliStat;

/* Parse the arguments after "stat" (argv[0] is "stat"); as cli_parse. */
bool cli_parse_stat(int argc, char **argv, CliStat *s, FILE *err);
void cli_stat_usage(FILE *f);

/* Generated from every command's option table: the manual page (roff) and the bash completion
 * script. */
void cli_print_man(FILE *f);
void cli_print_completion(FILE *f);

/* A whole unsigned number (decimal or 0x hex) within [lo, hi]. */
bool cli_number(const char *s, uint64_t lo, uint64_t hi, uint64_t *v);

#endif
