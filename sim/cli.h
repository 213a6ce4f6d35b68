/* cli.h — the command line of `pmusim [run]` and `pmusim --dump-dtb`.
 *
 * One option table (cli.c) gives getopt_long its options and --help its text.  Parsing has no
 * side effect: it fills a Cli, opens no file and never exits, so the fuzzing harness can call it
 * on any argv.  Every number is checked whole: digits only (decimal or 0x hex), no sign, no
 * overflow, inside the option's documented range.
 */
#ifndef PMUSIM_CLI_H
#define PMUSIM_CLI_H

#include <stdio.h>

#include "sim/machine.h"

typedef enum CliAction {
    CLI_RUN,        /* run KERNEL */
    CLI_DUMP_DTB,   /* --dump-dtb: print the effective tree */
    CLI_HELP,       /* --help: usage printed on stdout */
    CLI_VERSION,    /* --version */
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

/* A whole unsigned number (decimal or 0x hex) within [lo, hi]. */
bool cli_number(const char *s, uint64_t lo, uint64_t hi, uint64_t *v);

#endif
