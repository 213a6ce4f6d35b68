/* test_hostproc.c — a helper program run without copying pmusim: its status, its output, its
 * limits, and what it inherits of pmusim's signal state. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hostproc.h"
#include "testutil.h"

static const HostLimits roomy = { .mem_bytes = 1ull << 30, .file_bytes = 1ull << 20, .seconds = 20 };

static int sh(const char *script, int out_fd, const HostLimits *lim)
{
    char *argv[] = { "sh", "-c", (char *)script, NULL };
    return hostproc_run(argv, out_fd, lim);
}

/* Run argv with its output in a temporary file; returns the output (static buffer). */
static const char *run_output(char *const argv[], const HostLimits *lim, int *rc)
{
    static char buf[256];
    char path[] = "/tmp/pmusim-hostproc-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    unlink(path);
    *rc = hostproc_run(argv, fd, lim);
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

static const char *sh_output(const char *script, const HostLimits *lim, int *rc)
{
    char *argv[] = { "sh", "-c", (char *)script, NULL };
    return run_output(argv, lim, rc);
}

START_TEST(exit_status_signal_and_missing_program)
{
    ck_assert_int_eq(sh("exit 0", -1, &roomy), 0);
    ck_assert_int_eq(sh("exit 3", -1, &roomy), 3);
    ck_assert_int_eq(sh("kill -TERM $$", -1, &roomy), HOSTPROC_SIGNALLED + SIGTERM);
    char *argv[] = { "pmusim-no-such-program", NULL };
    ck_assert_int_eq(hostproc_run(argv, -1, &roomy), -1);
}
END_TEST

START_TEST(output_goes_to_the_given_file)
{
    int rc;
    ck_assert_str_eq(sh_output("echo hello", &roomy, &rc), "hello\n");
    ck_assert_int_eq(rc, 0);
}
END_TEST

START_TEST(limits_are_set_before_the_program_runs)
{
    int rc;
    const HostLimits lim = { .mem_bytes = 256ull << 20, .file_bytes = 16ull << 20, .seconds = 10 };
    /* ulimit -v is in KiB; dash's ulimit -f in 512-byte blocks */
    ck_assert_str_eq(sh_output("ulimit -v; ulimit -f", &lim, &rc), "262144\n32768\n");
    ck_assert_int_eq(rc, 0);
    const HostLimits brief = { .mem_bytes = 1ull << 30, .file_bytes = 1ull << 20, .seconds = 1 };
    ck_assert_int_eq(sh("while :; do :; done", -1, &brief), HOSTPROC_SIGNALLED + SIGALRM);
}
END_TEST

static void on_usr1(int sig) { (void)sig; }

/* The caller's signal mask is the program's; its handlers are not (exec resets them, and the
 * child reset them before it). */
START_TEST(signal_mask_is_inherited_and_restored)
{
    signal(SIGUSR1, on_usr1);
    sigset_t usr2, before, after;
    sigemptyset(&usr2);
    sigaddset(&usr2, SIGUSR2);
    sigprocmask(SIG_BLOCK, &usr2, &before);
    int rc;
    char *argv[] = { "grep", "SigBlk", "/proc/self/status", NULL };    /* no shell: dash resets it */
    const char *mask = run_output(argv, &roomy, &rc);
    ck_assert_int_eq(rc, 0);
    unsigned long long blk = strtoull(strchr(mask, ':') + 1, NULL, 16);
    ck_assert_uint_eq(blk, 1ull << (SIGUSR2 - 1));
    sigprocmask(SIG_SETMASK, NULL, &after);
    ck_assert(sigismember(&after, SIGUSR2) && !sigismember(&after, SIGINT));
    ck_assert_int_eq(sh("kill -USR1 $$", -1, &roomy), HOSTPROC_SIGNALLED + SIGUSR1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hostproc");
    TCase *t = tcase_create("run");
    tcase_set_timeout(t, 30);
    tcase_add_test(t, exit_status_signal_and_missing_program);
    tcase_add_test(t, output_goes_to_the_given_file);
    tcase_add_test(t, limits_are_set_before_the_program_runs);
    tcase_add_test(t, signal_mask_is_inherited_and_restored);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
