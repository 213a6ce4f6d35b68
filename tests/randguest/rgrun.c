/* rgrun.c — run random guests under pmusim and classify each run (the worker of run.sh).
 *
 *   rgrun --pmusim PATH --work DIR --out DIR [--timeout S] [--max-insns N] [--determinism K]
 *         ARCH SEED [ARCH SEED ...]
 *
 * For each guest: generate the image (rg_generate), choose the run's options from the seed
 * (rg_config below: CPUs, trace, model, quantum, checks), run pmusim under a wall-clock bound,
 * and print one line
 *
 *   RESULT ARCH SEED STATUS VERDICT MILLISECONDS
 *
 * VERDICT is PASS or the failure: SIGNAL-n, HANG, INTERNAL-ERROR, SANITIZER, BAD-INPUT,
 * OUTPUT-LOST, STATUS-n, NONDETERMINISTIC.  A failing guest leaves ARCH-SEED.bin, .err and .cmd
 * (line 1: the pmusim command; line 2: the randguest command) in the --out directory.  pmusim
 * passes when it exits with a documented status (0, 1, 3, 4, 6, or a guest's exit status
 * (code << 1) | 1, also above 128 when the trace says so) within the bound and prints neither
 * "internal error" nor a sanitizer report.  Every K-th seed runs twice: the console, trace,
 * stdout, stderr and status must be byte-identical.  One process per batch of guests keeps the
 * runner's own cost small beside pmusim's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rg.h"

#define MAX_ARGS 48
/* No output file of one run may pass this: an exception storm writes trace lines without end
 * (a write past it fails with EFBIG; pmusim then reports the lost output). */
#define MAX_FILE_BYTES (256ull << 20)

typedef struct Runner {
    const char *pmusim, *work, *out;
    unsigned timeout_s;
    uint64_t max_insns;
    unsigned det;
} Runner;

/* The run's options, fixed by the seed: generator options and pmusim options. */
typedef struct Config {
    bool no_vectors;
    const char *args[20];       /* pmusim options; "@TRACE@" stands for the trace file */
    int nargs;
    char quantum[24], cpus[8];
} Config;


/* run_once's status for a process a signal killed: RG_KILLED + the signal (an exit status is
 * below 256, and pmusim's own 128 + N means it ended the run on signal N, outputs complete). */
#define RG_KILLED 1000
static void rg_config(const char *arch, uint64_t s, Config *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->cpus, sizeof c->cpus, "%u", (unsigned)(1 + s % 2));
    c->args[c->nargs++] = "--cpus";
    c->args[c->nargs++] = c->cpus;
    c->no_vectors = s % 8 == 5;
    if (s % 3 == 0) {
        c->args[c->nargs++] = "--trace";
        c->args[c->nargs++] = "@TRACE@";
    }
    switch (s / 2 % 7) {
    case 1:
        c->args[c->nargs++] = "--cpu-model";
        c->args[c->nargs++] = !strcmp(arch, "x86_64") ? "core2duo"
                              : !strcmp(arch, "arm64") ? "cortex-a53"
                              : s / 14 % 2         ? "mpc7448"
                                                   : "mpc7447a";
        break;
    case 2:
        snprintf(c->quantum, sizeof c->quantum, "%u", (unsigned)(1000 + s % 5000));
        c->args[c->nargs++] = "--quantum";
        c->args[c->nargs++] = c->quantum;
        break;
    case 3: c->args[c->nargs++] = "--icount-check"; break;
    case 4: c->args[c->nargs++] = !strcmp(arch, "x86_64") ? "--check-patching" : "--icache=strict"; break;
    case 5: c->args[c->nargs++] = "--strict"; break;
    }
    if (s % 11 == 7)
        c->args[c->nargs++] = "--stats";
}

static bool has_trace(const Config *c)
{
    for (int i = 0; i < c->nargs; i++)
        if (!strcmp(c->args[i], "@TRACE@"))
            return true;
    return false;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        *len = 0;
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *b = malloc(cap + 1);
    size_t got;
    while (b && (got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            char *nb = realloc(b, cap + 1);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
        }
    }
    fclose(f);
    if (b)
        b[n] = 0;
    *len = n;
    return b;
}

static bool same_file(const char *a, const char *b)
{
    size_t la, lb;
    char *x = slurp(a, &la), *y = slurp(b, &lb);
    bool same = (!x && !y) || (x && y && la == lb && !memcmp(x, y, la));
    free(x);
    free(y);
    return same;
}

static bool copy_file(const char *from, const char *to)
{
    size_t n;
    char *b = slurp(from, &n);
    FILE *f = b ? fopen(to, "wb") : NULL;
    bool ok = f && fwrite(b, 1, n, f) == n;
    if (f && fclose(f) != 0)
        ok = false;
    free(b);
    return ok;
}

/* Run pmusim once: outputs DIR/TAG.{console,trace,out,err}.  Returns the status (128 + signal
 * when killed by one) or -1 for a run past the bound. */
/* dir: at most 1200 bytes (rgrun refuses longer --work / --out paths). */
static int run_once(const Runner *r, const char *dir, const char *tag, const char *arch, const char *load,
                    const Config *c, bool trace, const char *img)
{
    char console[4096], tr[4096], out[4096], err[4096], maxi[32];
    snprintf(console, sizeof console, "%s/%s.console", dir, tag);
    snprintf(tr, sizeof tr, "%s/%s.trace", dir, tag);
    snprintf(out, sizeof out, "%s/%s.out", dir, tag);
    snprintf(err, sizeof err, "%s/%s.err", dir, tag);
    snprintf(maxi, sizeof maxi, "%" PRIu64, r->max_insns);
    const char *argv[MAX_ARGS];
    int n = 0;
    argv[n++] = r->pmusim;
    argv[n++] = "run";
    argv[n++] = "--arch";
    argv[n++] = arch;
    argv[n++] = "--load-addr";
    argv[n++] = load;
    argv[n++] = "--max-insns";
    argv[n++] = maxi;
    argv[n++] = "--max-cycles";
    argv[n++] = "50000000";
    argv[n++] = "--console";
    argv[n++] = console;
    if (!strcmp(arch, "arm64")) {
        /* the board the generator's address pools describe (rg_arm64.c: RAM ends at 0x48000000)
         * and the seeds of regressions.txt were found on, before its RAM became 1 GiB */
        argv[n++] = "--mem";
        argv[n++] = "128M";
    }
    bool traced = false;
    for (int i = 0; i < c->nargs; i++) {
        argv[n++] = !strcmp(c->args[i], "@TRACE@") ? tr : c->args[i];
        traced |= !strcmp(c->args[i], "@TRACE@");
    }
    if (trace && !traced) {
        argv[n++] = "--trace";
        argv[n++] = tr;
    }
    argv[n++] = img;
    argv[n] = NULL;

    sigset_t chld, old;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &old);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);                                  /* its own group: a kill reaches anything it started */
        sigprocmask(SIG_SETMASK, &old, NULL);
        struct rlimit fs = { MAX_FILE_BYTES, MAX_FILE_BYTES };
        setrlimit(RLIMIT_FSIZE, &fs);
        signal(SIGXFSZ, SIG_IGN);
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
            _exit(126);
        close(fo);
        close(fe);
        execv(r->pmusim, (char *const *)argv);
        _exit(127);
    }
    if (pid < 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        return 126;
    }
    /* Wait for the child, at most timeout_s; then SIGTERM, and SIGKILL 2 s later. */
    double deadline = now_ms() + 1000.0 * r->timeout_s;
    int status = 0, phase = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            status = 126 << 8;                          /* lost the child: count it as a failure */
            break;
        }
        double left = deadline - now_ms();
        if (left <= 0) {
            kill(-pid, phase == 0 ? SIGTERM : SIGKILL);
            phase++;
            deadline = now_ms() + 2000.0;
            continue;
        }
        struct timespec ts = { (time_t)(left / 1000), (long)((left - 1000.0 * (time_t)(left / 1000)) * 1e6) };
        sigtimedwait(&chld, NULL, &ts);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (phase)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : RG_KILLED + WTERMSIG(status);
}

static bool bad_stderr(const char *err, bool *sanitizer)
{
    size_t n;
    char *b = slurp(err, &n);
    static const char *const san[] = { "AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer", "runtime error:",
                                       "ThreadSanitizer", "MemorySanitizer" };
    bool bad = false;
    *sanitizer = false;
    for (size_t i = 0; b && i < sizeof san / sizeof san[0]; i++)
        if (strstr(b, san[i]))
            bad = *sanitizer = true;
    if (b && strstr(b, "internal error"))
        bad = true;
    free(b);
    return bad;
}

/* Did the guest itself end the run with status st?  Its status, (code << 1) | 1, can be any odd
 * number, 5 (internal error), 7 (output lost) and 129 and up included.  pmusim says "run ended:
 * REASON (status N)" on stderr for every end but the guest's debug-exit (and names the
 * semihosting exit), and "write error" for a lost output. */
static bool guest_exit(const char *err, int st)
{
    size_t n;
    char *b = slurp(err, &n), semi[64];
    snprintf(semi, sizeof semi, "pmusim: run ended: semihosting-exit (status %d)\n", st);
    bool yes = b && (strstr(b, semi) || !strstr(b, "pmusim: run ended:")) && !strstr(b, "write error");
    free(b);
    return yes;
}

/* The verdict for status st (-1: past the bound) and the stderr file. */
static const char *classify(int st, const char *err, char *buf, size_t len)
{
    bool san;
    if (bad_stderr(err, &san))
        return san ? "SANITIZER" : "INTERNAL-ERROR";
    if (st < 0)
        return "HANG";
    if (st < RG_KILLED && st % 2 && guest_exit(err, st))
        return "PASS";
    switch (st) {
    case 0: case 1: case 3: case 4: case 6: return "PASS";
    case 2: return "BAD-INPUT";
    case 5: return "INTERNAL-ERROR";
    case 7: return "OUTPUT-LOST";
    }
    if (st >= RG_KILLED || st > 128) {
        snprintf(buf, len, "SIGNAL-%d", st >= RG_KILLED ? st - RG_KILLED : st - 128);
        return buf;
    }
    if (st % 2)
        return "PASS";
    snprintf(buf, len, "STATUS-%d", st);
    return buf;
}

/* Remove the guest's directory and everything in it (temporaries of killed runs too). */
static void rm_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[1600];
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

static void run_guest(const Runner *r, const char *arch, uint64_t seed)
{
    const RgArch *a = rg_arch_find(arch);
    if (!a) {
        printf("RESULT %s %" PRIu64 " - BAD-INPUT 0\n", arch, seed);
        return;
    }
    Config c;
    rg_config(arch, seed, &c);
    char dir[1200], img[4096], load[32], verdict_buf[32];
    snprintf(dir, sizeof dir, "%s/%s-%" PRIu64, r->work, arch, seed);
    snprintf(img, sizeof img, "%s/guest.bin", dir);
    snprintf(load, sizeof load, "0x%" PRIx64, a->load);
    mkdir(dir, 0755);
    RgOptions o = { .vectors = !c.no_vectors, .random_pct = 3 };
    RgImage image;
    rg_generate(a, seed, &o, false, &image);
    FILE *f = fopen(img, "wb");
    bool written = f && fwrite(image.buf, 1, image.size, f) == image.size;
    if (f && fclose(f) != 0)
        written = false;
    rg_image_free(&image);
    if (!written) {
        fprintf(stderr, "rgrun: %s: %s\n", img, strerror(errno));
        printf("RESULT %s %" PRIu64 " - GENERATOR-FAILED 0\n", arch, seed);
        return;
    }
    bool det = r->det && seed % r->det == 0;
    double t0 = now_ms();
    char err[4096];
    snprintf(err, sizeof err, "%s/a.err", dir);
    int st = run_once(r, dir, "a", arch, load, &c, det, img);
    double ms = now_ms() - t0;
    const char *verdict = classify(st, err, verdict_buf, sizeof verdict_buf);
    char stbuf[32];
    snprintf(stbuf, sizeof stbuf, "%d", st < 0 ? 137 : st);
    if (!strcmp(verdict, "PASS") && det) {
        int st2 = run_once(r, dir, "b", arch, load, &c, true, img);
        static const char *const ext[] = { "console", "trace", "out", "err" };
        bool same = st2 == st;
        for (size_t k = 0; k < 4 && same; k++) {
            char pa[4096], pb[4096];
            snprintf(pa, sizeof pa, "%s/a.%s", dir, ext[k]);
            snprintf(pb, sizeof pb, "%s/b.%s", dir, ext[k]);
            same = same_file(pa, pb);
        }
        if (!same) {
            verdict = "NONDETERMINISTIC";
            snprintf(stbuf, sizeof stbuf, "%d/%d", st, st2);
        }
    }
    if (strcmp(verdict, "PASS")) {
        char to[4096];
        snprintf(to, sizeof to, "%s/%s-%" PRIu64 ".bin", r->out, arch, seed);
        copy_file(img, to);
        snprintf(to, sizeof to, "%s/%s-%" PRIu64 ".err", r->out, arch, seed);
        copy_file(err, to);
        snprintf(to, sizeof to, "%s/%s-%" PRIu64 ".cmd", r->out, arch, seed);
        FILE *cmd = fopen(to, "w");
        if (cmd) {
            fprintf(cmd, "%s run --arch %s --load-addr %s --max-insns %" PRIu64 " --max-cycles 50000000", r->pmusim, arch,
                    load, r->max_insns);
            for (int i = 0; i < c.nargs; i++) {
                if (!strcmp(c.args[i], "@TRACE@"))
                    fprintf(cmd, " %s-%" PRIu64 ".trace", arch, seed);
                else
                    fprintf(cmd, " %s", c.args[i]);
            }
            if (det && !has_trace(&c))
                fprintf(cmd, " --trace %s-%" PRIu64 ".trace", arch, seed);
            fprintf(cmd, " %s/%s-%" PRIu64 ".bin\n", r->out, arch, seed);
            fprintf(cmd, "randguest%s %s %" PRIu64 " %s-%" PRIu64 ".bin\n", c.no_vectors ? " --no-vectors" : "", arch,
                    seed, arch, seed);
            fclose(cmd);
        }
    }
    printf("RESULT %s %" PRIu64 " %s %s %.0f\n", arch, seed, stbuf, verdict, ms);
    fflush(stdout);
    rm_dir(dir);
}

static int usage(void)
{
    fputs("usage: rgrun --pmusim PATH --work DIR --out DIR [--timeout S] [--max-insns N] [--determinism K]\n"
          "             ARCH SEED [ARCH SEED ...]\n",
          stderr);
    return 2;
}

int main(int argc, char **argv)
{
    Runner r = { .timeout_s = 20, .max_insns = 20000, .det = 0 };
    int i = 1;
    signal(SIGCHLD, SIG_DFL);                           /* waitpid needs its children unreaped */
    for (; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
        const char *o = argv[i], *v = argv[i + 1];
        if (!strcmp(o, "--pmusim"))
            r.pmusim = v;
        else if (!strcmp(o, "--work"))
            r.work = v;
        else if (!strcmp(o, "--out"))
            r.out = v;
        else if (!strcmp(o, "--timeout"))
            r.timeout_s = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(o, "--max-insns"))
            r.max_insns = strtoull(v, NULL, 10);
        else if (!strcmp(o, "--determinism"))
            r.det = (unsigned)strtoul(v, NULL, 10);
        else
            return usage();
    }
    if (!r.pmusim || !r.work || !r.out || r.timeout_s == 0 || r.max_insns == 0 || (argc - i) % 2)
        return usage();
    if (strlen(r.work) > 1000 || strlen(r.out) > 1000) {
        fputs("rgrun: --work and --out paths up to 1000 bytes\n", stderr);
        return 2;
    }
    for (; i + 1 < argc; i += 2) {
        char *end;
        uint64_t seed = strtoull(argv[i + 1], &end, 10);
        if (*end)
            return usage();
        run_guest(&r, argv[i], seed);
    }
    return 0;
}
