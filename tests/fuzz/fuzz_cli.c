/* fuzz_cli.c — option parsing (sim/cli.h: cli_parse, cli_parse_report, cli_parse_diff, cli_parse_stat with the
 * event lists of sim/stat.h, cli_number).
 *
 * Input: the arguments after the program name, separated by NUL bytes ("--cpus\0" "4\0" "k.elf").
 * A first argument "run" is dropped as main() does; a first argument "report" selects
 * cli_parse_report (GUEST.elf and SAMPLES must come from the arguments), "diff" cli_parse_diff
 * (two sides, each a file or a run's arguments, all inside the input), "stat" cli_parse_stat (the
 * run's checks, at most STAT_MAX_EVENTS known events with known modifiers, no --restore, -x and -o
 * pointing into the arguments).  cli_parse() must accept them or refuse them
 * with one message ("pmusim: ..." or the usage text) on its error stream, with no side effect;
 * what it accepts must hold the documented ranges (--cpus 1 to 16, --quantum 1 to 2^32, --max-*
 * and --trace-limit up to 2^62, --mem in whole 4 KiB pages up to 1 TiB, --load-addr only with
 * --arch, --strict and --icache=strict imply --check-patching, a run has a KERNEL, --inject
 * stalls within their ranges and of CPUs below --cpus, sim/inject.h), and every
 * string in the configuration must point into the arguments.  cli_number() is checked on every argument too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/tunables.h"
#include "fuzz.h"
#include "sim/cli.h"

#define MAX_ARGS 64

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    return 0;
}

static const char *buf_lo, *buf_hi;

static void inside(const char *what, const char *s)
{
    if (s && (s < buf_lo || s >= buf_hi))
        fz_fail("cli_parse: %s points outside the arguments", what);
}

/* --inject (sim/inject.h): at most MAX_INJECT, each a stall of a CPU below --cpus (when given)
 * at a cycle up to 2^62 for 1 to 2^62 cycles or for ever, the text inside the arguments; no two
 * of one CPU overlapping. */
static void check_inject(const MachineConfig *c)
{
    if (c->ninject < 0 || c->ninject > MAX_INJECT)
        fz_fail("cli_parse accepted %d --inject options", c->ninject);
    for (int i = 0; i < c->ninject; i++) {
        const InjectSpec *s = &c->inject[i];
        inside("--inject", s->text);
        if (s->kind != INJECT_STALL || s->cpu < 0 || s->cpu >= MAX_CPUS || (c->ncpus && s->cpu >= c->ncpus))
            fz_fail("cli_parse accepted --inject %s as kind %d cpu %d (--cpus %d)", s->text, (int)s->kind, s->cpu,
                    c->ncpus);
        if (s->cycle > MAX_RUN_LIMIT || !s->len || (s->len > MAX_RUN_LIMIT && s->len != INJECT_FOREVER))
            fz_fail("cli_parse accepted --inject %s: cycle %" PRIu64 " for %" PRIu64, s->text, s->cycle, s->len);
        for (int j = 0; j < i; j++)
            if (c->inject[j].cpu == s->cpu && c->inject[j].cycle == s->cycle)
                fz_fail("cli_parse accepted two stalls of cpu %d at cycle %" PRIu64, s->cpu, s->cycle);
    }
}

static void check_config(const Cli *cli)
{
    const MachineConfig *c = &cli->cfg;
    if (cli->action == CLI_HELP || cli->action == CLI_VERSION)
        return;
    if ((cli->action == CLI_RUN || cli->action == CLI_DUMP_SYMBOLS) && !c->kernel)
        fz_fail("cli_parse accepted a run without a KERNEL");
    if (c->ncpus < 0 || c->ncpus > 16)
        fz_fail("cli_parse accepted --cpus %d", c->ncpus);
    if (c->quantum > MAX_QUANTUM || c->max_insns > MAX_RUN_LIMIT || c->max_cycles > MAX_RUN_LIMIT ||
        c->save_at > MAX_RUN_LIMIT || c->trace_limit > MAX_RUN_LIMIT)
        fz_fail("cli_parse accepted a number out of range (quantum %" PRIu64 ", max-insns %" PRIu64
                ", max-cycles %" PRIu64 ", save-at %" PRIu64 ", trace-limit %" PRIu64 ")", c->quantum, c->max_insns,
                c->max_cycles, c->save_at, c->trace_limit);
    if (c->mem_size % GUEST_PAGE || c->mem_size > DT_RAM_MAX)
        fz_fail("cli_parse accepted --mem %" PRIu64 " (whole 4 KiB pages up to 1 TiB)", c->mem_size);
    if (c->raw && c->arch == ARCH_NONE)
        fz_fail("cli_parse accepted --load-addr without --arch");
    if (c->arch != ARCH_NONE && (c->arch < 0 || c->arch >= ARCH_COUNT))
        fz_fail("cli_parse accepted architecture %d", (int)c->arch);
    if ((c->strict || c->icache_strict) && !c->check_patching)
        fz_fail("--strict or --icache=strict without --check-patching");
    if (cli->action == CLI_DUMP_DTB && !c->kernel && c->arch == ARCH_NONE)
        fz_fail("cli_parse accepted --dump-dtb without a KERNEL or --arch");
    inside("KERNEL", c->kernel);
    inside("--machine", c->machine_file);
    inside("--cpu-model", c->cpu_model);
    inside("--bootargs", c->bootargs);
    inside("--initrd", c->initrd_file);
    inside("--symbols", c->symbols_file);
    inside("--trace", c->trace_file);
    inside("--samples", c->samples_file);
    inside("--guest-trace", c->guest_trace_file);
    inside("--trace-dat", c->trace_dat_file);
    inside("--console", c->console_file);
    inside("--console-input", c->console_input_file);
    inside("--record", c->record_file);
    inside("--replay", c->replay_file);
    if (c->replay_file && c->console_input_file)
        fz_fail("cli_parse accepted --replay with console input");
    if (c->record_file && !c->replay_file && !c->console_input_file)
        fz_fail("cli_parse accepted --record without console input");
    if (c->console_input_file && !c->console_input_opt)
        fz_fail("cli_parse took console input without naming its option");
    inside("--save-at", c->save_file);
    inside("--restore", c->restore_file);
    if (c->save_file && !c->save_file[0])
        fz_fail("cli_parse accepted --save-at with an empty file name");
    check_inject(c);
}

static void check_number(const char *s)
{
    static const uint64_t ranges[][2] = { { 0, UINT64_MAX }, { 1, 16 }, { 1, MAX_QUANTUM }, { 1, MAX_RUN_LIMIT } };
    for (size_t i = 0; i < ARRAY_SIZE(ranges); i++) {
        uint64_t v = 0xdeadbeef;
        if (!cli_number(s, ranges[i][0], ranges[i][1], &v))
            continue;
        if (v < ranges[i][0] || v > ranges[i][1] || s[0] < '0' || s[0] > '9')
            fz_fail("cli_number(\"%s\", %" PRIu64 ", %" PRIu64 ") gave %" PRIu64, s, ranges[i][0], ranges[i][1], v);
    }
}

/* One message that says what it is, or none when the arguments were accepted. */
static void check_message(const char *fn, bool ok, const char *msg, size_t msglen)
{
    if (ok && msglen)
        fz_fail("%s accepted the arguments but wrote \"%s\"", fn, msg);
    if (!ok && strncmp(msg, "pmusim: ", 8) && strncmp(msg, "usage: ", 7))
        fz_fail("%s refused the arguments with \"%s\"", fn, msg);
}

static void check_usage(void (*usage)(FILE *f))
{
    char *msg = NULL;
    size_t msglen = 0;
    FILE *f = open_memstream(&msg, &msglen);
    usage(f);
    fclose(f);
    if (!msglen)
        fz_fail("a usage text is empty");
    free(msg);
}

/* A subcommand's parser, its messages caught and checked (check_message). */
typedef bool (*SubParser)(int argc, char **argv, void *out, FILE *err);

static bool parse_checked(const char *fn, SubParser parse, int argc, char **argv, void *out)
{
    char *msg = NULL;
    size_t msglen = 0;
    FILE *err = open_memstream(&msg, &msglen);
    bool ok = parse(argc, argv, out, err);
    fclose(err);
    check_message(fn, ok, msg, msglen);
    free(msg);
    return ok;
}

static bool run_parser(int argc, char **argv, void *out, FILE *err)
{
    return cli_parse(argc, argv, out, err);
}

static bool report_parser(int argc, char **argv, void *out, FILE *err)
{
    return cli_parse_report(argc, argv, out, err);
}

static bool diff_parser(int argc, char **argv, void *out, FILE *err)
{
    return cli_parse_diff(argc, argv, out, err);
}

static bool stat_parser(int argc, char **argv, void *out, FILE *err)
{
    return cli_parse_stat(argc, argv, out, err);
}

static void parse_run(int argc, char **argv)
{
    int sub = argc > 1 && !strcmp(argv[1], "run");
    Cli cli;
    bool ok = parse_checked("cli_parse", run_parser, argc - sub, argv + sub, &cli);
    if (ok)
        check_config(&cli);
    if (ok && cli.action == CLI_HELP)
        check_usage(cli_usage);
}

/* `pmusim report`: GUEST.elf and SAMPLES from the arguments, --truth=cycles implying --truth. */
static void parse_report(int argc, char **argv)
{
    CliReport r;
    bool ok = parse_checked("cli_parse_report", report_parser, argc, argv, &r);
    if (ok && r.help) {
        check_usage(cli_report_usage);
        return;
    }
    if (ok && (!r.elf || !r.samples || (r.by_cycles && !r.truth)))
        fz_fail("cli_parse_report accepted GUEST.elf %s, SAMPLES %s, truth %d, by cycles %d", r.elf ? r.elf : "none",
                r.samples ? r.samples : "none", r.truth, r.by_cycles);
    inside("GUEST.elf", r.elf);
    inside("SAMPLES", r.samples);
}

/* `pmusim diff`: two sides, each a trace file or a run's arguments inside the input (each a
 * valid run, checked by cli_parse), --context within 0 to 100. */
static void parse_diff(int argc, char **argv)
{
    CliDiff d;
    bool ok = parse_checked("cli_parse_diff", diff_parser, argc, argv, &d);
    if (ok && d.help) {
        check_usage(cli_diff_usage);
        return;
    }
    if (ok && d.opts.context > DIFF_CONTEXT_MAX)
        fz_fail("cli_parse_diff accepted --context %u", d.opts.context);
    for (int s = 0; ok && s < DIFF_SIDES; s++) {
        if (!d.file[s] == !d.run_argv[s])
            fz_fail("cli_parse_diff: side %d is %s", s, d.file[s] ? "a file and a run" : "neither a file nor a run");
        inside("TRACE", d.file[s]);
        for (int i = 0; d.run_argv[s] && i < d.run_argc[s]; i++)
            inside("RUN_ARGS", d.run_argv[s][i]);
    }
}

/* `pmusim stat`: what cli_parse accepts, and the events and outputs of stat. */
static void parse_stat(int argc, char **argv)
{
    CliStat st;
    bool ok = parse_checked("cli_parse_stat", stat_parser, argc, argv, &st);
    if (!ok)
        return;
    if (st.help) {
        check_usage(cli_stat_usage);
        return;
    }
    check_config(&st.run);
    if (st.stat.n < 0 || st.stat.n > STAT_MAX_EVENTS)
        fz_fail("cli_parse_stat accepted %d events", st.stat.n);
    for (int i = 0; i < st.stat.n; i++)
        if (st.stat.sel[i].mod > STAT_MOD_ALL || !stat_event_name(st.stat.sel[i].ev))
            fz_fail("cli_parse_stat accepted event %d modifier %d", st.stat.sel[i].ev, st.stat.sel[i].mod);
    if (st.run.action == CLI_RUN && st.run.cfg.restore_file)
        fz_fail("cli_parse_stat accepted --restore");
    if (st.stat.sep && !st.stat.sep[0])
        fz_fail("cli_parse_stat accepted an empty -x");
    inside("-o", st.stat.output);
    inside("-x", st.stat.sep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    /* argv[0] and the NUL-separated arguments, in one buffer that ends with a NUL */
    static const char prog[] = "pmusim";
    char *buf = malloc(sizeof prog + size + 1);
    memcpy(buf, prog, sizeof prog);
    memcpy(buf + sizeof prog, data, size);
    buf[sizeof prog + size] = 0;
    buf_lo = buf;
    buf_hi = buf + sizeof prog + size + 1;
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    /* a NUL ends an argument: "a" and "a\0" are one argument, "a\0\0" two */
    for (char *p = buf; p < buf + sizeof prog + size && argc < MAX_ARGS; p += strlen(p) + 1)
        argv[argc++] = p;
    argv[argc] = NULL;
    for (int i = 1; i < argc; i++)
        check_number(argv[i]);

    if (argc > 1 && !strcmp(argv[1], "report"))
        parse_report(argc - 1, argv + 1);
    else if (argc > 1 && !strcmp(argv[1], "diff"))
        parse_diff(argc - 1, argv + 1);
    else if (argc > 1 && !strcmp(argv[1], "stat"))
        parse_stat(argc - 1, argv + 1);
    else
        parse_run(argc, argv);
    free(buf);
    return 0;
}
