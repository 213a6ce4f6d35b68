/* diff.c — `pmusim diff`: the first event where two traces differ (docs/tools.md).
 *
 * A side is a trace file, or a `pmusim run` command line (after `--`) that runs here as a child
 * process of the same executable (/proc/self/exe), its trace going into a pipe:
 *
 *   child fd 3 (DIFF_CHILD_TRACE_FD)   the trace: `--trace /dev/fd/3`, written in place
 *                                      (base/outfile.h: a pipe is no regular file)
 *   child fd 1                         /dev/null: the guest's console does not mix into diff's
 *   child fd 2                         a pipe; its first DIFF_CHILD_ERR_MAX bytes are kept and
 *                                      shown when the run fails
 *
 * The two traces are compared in lockstep (tracer/tracediff.c): diff reads the side whose next
 * line it needs, so a child that runs ahead blocks on its full pipe (the kernel's pipe buffer is
 * the only buffering besides the readers' own) and nothing waits in a circle; while it waits for
 * one side, poll(2) keeps both children's standard error drained.  At the first difference both
 * children get SIGTERM and are reaped (their pipes closed: a child still writing gets EPIPE).
 */
#define _GNU_SOURCE 1               /* pipe2 */
#include "sim/diff.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/cli.h"
#include "tracer/tracediff.h"

extern char **environ;

#define DIFF_CHILD_TRACE_FD 3
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)
#define DIFF_CHILD_TRACE_ARG "--trace=/dev/fd/" STRINGIFY(DIFF_CHILD_TRACE_FD)
#define DIFF_CHILD_ERR_MAX 4096
#define SELF_EXE "/proc/self/exe"
#define STDIN_NAME "(standard input)"   /* a side given as - */
#define RUN_WORD "run"
#define CHILD_EXTRA_ARGS 4          /* program, "run", the --trace argument, NULL */

typedef struct Side {
    const char *label;
    char *source;                   /* the file, or "pmusim run ARGS" */
    int fd;                         /* the trace */
    pid_t pid;                      /* 0: a file */
    int err_fd;                     /* the child's standard error, -1 once closed */
    char err[DIFF_CHILD_ERR_MAX];
    size_t nerr;
    bool err_cut;                   /* more than DIFF_CHILD_ERR_MAX bytes came */
    int status;                     /* waitpid's */
    struct Side *all;               /* both sides (for poll) */
} Side;

/* The runs, for a signal that ends diff: they end with it (a Ctrl-C reaches them anyway, through
 * the terminal's process group; a kill(1) of diff alone would leave them running). */
static volatile pid_t running[DIFF_SIDES];

/* "pmusim run A B ...", an argument with a space in quotes. */
static char *join_args(int argc, char **argv)
{
    size_t n = sizeof "pmusim run";
    for (int i = 1; i < argc; i++)
        n += strlen(argv[i]) + 3;
    char *s = xcalloc(1, n), *p = s + sprintf(s, "pmusim run");
    for (int i = 1; i < argc; i++)
        p += sprintf(p, strchr(argv[i], ' ') ? " '%s'" : " %s", argv[i]);
    return s;
}

/* One read of a child's standard error into its bounded buffer; closed at its end. */
static void drain_err(Side *s)
{
    char junk[DIFF_CHILD_ERR_MAX];
    size_t room = sizeof s->err - s->nerr;
    ssize_t n = read(s->err_fd, room ? s->err + s->nerr : junk, room ? room : sizeof junk);
    if (n < 0 && errno == EINTR)
        return;
    if (n <= 0) {
        close(s->err_fd);
        s->err_fd = -1;
        return;
    }
    if (room)
        s->nerr += (size_t)n;
    else
        s->err_cut = true;
}

/* The reader's fill for a child's pipe: wait for it, keeping both standard errors drained. */
static ssize_t child_fill(void *opaque, void *buf, size_t len)
{
    Side *s = opaque;
    for (;;) {
        struct pollfd p[1 + DIFF_SIDES] = { { s->fd, POLLIN, 0 } };
        Side *who[1 + DIFF_SIDES] = { s };
        nfds_t n = 1;
        for (int k = 0; k < DIFF_SIDES; k++)
            if (s->all[k].err_fd >= 0) {
                who[n] = &s->all[k];
                p[n++] = (struct pollfd){ s->all[k].err_fd, POLLIN, 0 };
            }
        if (poll(p, n, -1) < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        for (nfds_t i = 1; i < n; i++)
            if (p[i].revents)
                drain_err(who[i]);
        if (p[0].revents)
            return read(s->fd, buf, len);
    }
}

/* Start `pmusim run ARGS --trace=/dev/fd/3` with its pipes. */
static bool spawn_run(Side *s, int argc, char **argv, Error *err)
{
    int tp[2], ep[2];
    if (pipe2(tp, O_CLOEXEC) != 0)
        return err_set(err, "%s: cannot make a pipe: %s", s->label, strerror(errno));
    if (pipe2(ep, O_CLOEXEC) != 0) {
        close(tp[0]);
        close(tp[1]);
        return err_set(err, "%s: cannot make a pipe: %s", s->label, strerror(errno));
    }
    char **args = xcalloc((size_t)argc + CHILD_EXTRA_ARGS, sizeof *args);
    args[0] = (char *)"pmusim";
    args[1] = (char *)RUN_WORD;
    memcpy(args + 2, argv + 1, (size_t)(argc - 1) * sizeof *args);
    args[argc + 1] = (char *)DIFF_CHILD_TRACE_ARG;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t dfl;                   /* diff ignores SIGPIPE (below); the run must not inherit that */
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGPIPE);
    posix_spawnattr_init(&at);
    posix_spawnattr_setsigdefault(&at, &dfl);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, tp[1], DIFF_CHILD_TRACE_FD);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, ep[1], STDERR_FILENO);
    int rc = posix_spawn(&s->pid, SELF_EXE, &fa, &at, args, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    free(args);
    close(tp[1]);
    close(ep[1]);
    s->fd = tp[0];
    s->err_fd = ep[0];
    if (rc != 0) {
        s->pid = 0;
        return err_set(err, "%s: cannot start %s: %s", s->label, SELF_EXE, strerror(rc));
    }
    return true;
}

/* A side's files, for the check below: a trace file (an input), or what its run reads and writes
 * (cli_io_names), each named with the side ("RUN_B --console"). */
typedef struct SideFiles {
    IoName names[CLI_IO_NAMES];
    char what[CLI_IO_NAMES][32];
    int n;
} SideFiles;

static void side_files(const CliDiff *d, int k, SideFiles *f)
{
    if (!d->run_argv[k]) {
        f->names[0] = (IoName){ k ? "TRACE_B" : "TRACE_A", d->file[k], false };
        f->n = 1;
        return;
    }
    Cli run;
    cli_parse(d->run_argc[k], d->run_argv[k], &run, stderr);   /* (accepted once already: silent) */
    f->n = cli_io_names(&run.cfg, f->names);
    for (int i = 0; i < f->n; i++) {
        snprintf(f->what[i], sizeof f->what[i], "%s %s", d->opts.label[k], f->names[i].what);
        f->names[i].what = f->what[i];
    }
}

/* No run may write over what the other side reads or writes (each run checks its own files). */
static bool check_files(const CliDiff *d, Error *err)
{
    SideFiles f[DIFF_SIDES];
    for (int k = 0; k < DIFF_SIDES; k++)
        side_files(d, k, &f[k]);
    for (int k = 0; k < DIFF_SIDES; k++) {
        IoName both[2 * CLI_IO_NAMES];
        int n = 0;
        for (int i = 0; i < f[k].n; i++)
            if (f[k].names[i].output)
                both[n++] = f[k].names[i];
        memcpy(both + n, f[!k].names, (size_t)f[!k].n * sizeof *both);
        if (n && !outfile_check_distinct(both, n + f[!k].n, err))
            return false;
    }
    return true;
}

static bool open_side(Side *s, const CliDiff *d, int k, Error *err)
{
    s->label = d->opts.label[k];
    s->err_fd = -1;
    if (d->run_argv[k]) {
        s->source = join_args(d->run_argc[k], d->run_argv[k]);
        return spawn_run(s, d->run_argc[k], d->run_argv[k], err);
    }
    s->source = xstrdup(strcmp(d->file[k], "-") ? d->file[k] : STDIN_NAME);
    s->fd = strcmp(d->file[k], "-") ? open(d->file[k], O_RDONLY | O_CLOEXEC) : dup(STDIN_FILENO);
    if (s->fd < 0)
        return err_set(err, "%s: cannot open: %s", d->file[k], strerror(errno));
    return true;
}

/* Stop a child (SIGTERM unless it is left to end by itself), read what is left of its standard
 * error, reap it. */
static void stop_side(Side *s, bool terminate)
{
    if (s->pid && terminate)
        kill(s->pid, SIGTERM);
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    while (s->err_fd >= 0)
        drain_err(s);
    while (s->pid && waitpid(s->pid, &s->status, 0) < 0 && errno == EINTR)
        ;
    for (int k = 0; k < DIFF_SIDES; k++)
        if (running[k] == s->pid)
            running[k] = 0;
}

static void print_child_err(const Side *s)
{
    if (!s->pid)
        return;
    if (WIFEXITED(s->status))
        fprintf(stderr, "pmusim diff: %s (%s) ended with status %d", s->label, s->source, WEXITSTATUS(s->status));
    else
        fprintf(stderr, "pmusim diff: %s (%s) ended by signal %d", s->label, s->source, WTERMSIG(s->status));
    fprintf(stderr, "%s\n", s->nerr ? "; its standard error:" : "");
    fprintf(stderr, "%.*s%s", (int)s->nerr, s->err, s->err_cut ? "...\n" : "");
}

static int compare_sides(Side side[DIFF_SIDES], const CliDiff *d)
{
    TraceReader rd[DIFF_SIDES], *r[DIFF_SIDES] = { &rd[0], &rd[1] };
    DiffOptions o = d->opts;
    for (int k = 0; k < DIFF_SIDES; k++) {
        if (side[k].pid)
            trace_reader_init(&rd[k], side[k].label, child_fill, &side[k]);
        else
            trace_reader_init_fd(&rd[k], side[k].source, &side[k].fd);
        o.source[k] = side[k].source;
    }
    Error err = { { 0 } };
    int bad_side = 0;
    int rc = trace_diff(r, &o, stdout, &bad_side, &err);
    fflush(stdout);
    for (int k = 0; k < DIFF_SIDES; k++) {
        stop_side(&side[k], rc != DIFF_SAME);
        trace_reader_free(&rd[k]);
    }
    if (rc == DIFF_BAD) {
        fprintf(stderr, "pmusim diff: %s\n", err.msg);
        print_child_err(&side[bad_side]);
    }
    return rc == DIFF_BAD ? EXIT_USAGE : rc;
}

static void on_signal(int sig)
{
    for (int k = 0; k < DIFF_SIDES; k++)
        if (running[k] > 0)
            kill(running[k], SIGTERM);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A reader of diff's output that goes away (`| head`) must not kill diff before it has stopped
 * the runs: a write error is the exit status 7 instead (main.c, finish_stdout). */
static void install_signals(void)
{
    static const int ends[] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    for (size_t i = 0; i < ARRAY_SIZE(ends); i++)
        sigaction(ends[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* Check the files, then open or start both sides; false with err set (what started is stopped). */
static bool open_sides(Side side[DIFF_SIDES], const CliDiff *d, Error *err)
{
    for (int k = 0; k < DIFF_SIDES; k++) {
        side[k].fd = side[k].err_fd = -1;
        side[k].all = side;
    }
    bool ok = check_files(d, err);
    for (int k = 0; k < DIFF_SIDES && ok; k++) {
        ok = open_side(&side[k], d, k, err);
        running[k] = side[k].pid;
    }
    for (int k = 0; k < DIFF_SIDES && !ok; k++)
        stop_side(&side[k], true);
    return ok;
}

int diff_main(int argc, char **argv)
{
    CliDiff d;
    if (!cli_parse_diff(argc, argv, &d, stderr))
        return EXIT_USAGE;
    if (d.help) {
        cli_diff_usage(stdout);
        return 0;
    }
    Side side[DIFF_SIDES];
    memset(side, 0, sizeof side);
    Error err = { { 0 } };
    install_signals();
    bool ok = open_sides(side, &d, &err);
    int rc = ok ? compare_sides(side, &d) : EXIT_USAGE;
    for (int k = 0; k < DIFF_SIDES; k++)
        free(side[k].source);
    if (!ok)
        fprintf(stderr, "pmusim diff: %s\n", err.msg);
    return rc;
}
