/* replay.c — the plain-C driver linked with each harness when it is not built with libFuzzer (the
 * normal gcc tree, the sanitizer tree): feeds every file named on the command line, and every
 * file of every directory named (sorted by name, dot files and README skipped), to
 * LLVMFuzzerTestOneInput, in that order.  A crash, sanitizer report or fz_fail() ends the process
 * like it ends a fuzzer; a directory that does not exist counts as empty; no input at all is an
 * error (a corpus that went missing must not pass).
 *
 *   fuzz_<name> [--min N] FILE|DIR...     at least N inputs (default 1), else exit status 1
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fuzz.h"

static unsigned long inputs;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);     /* the driver's own report, never simulator state */
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void replay_file(const char *path)
{
    size_t len;
    uint8_t *data = fz_slurp(path, &len);
    if (!data) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    /* a copy of exactly len bytes, as libFuzzer gives: overreads show up under ASan */
    uint8_t *copy = malloc(len ? len : 1);
    memcpy(copy, data, len);
    free(data);
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
    double t = now();
    LLVMFuzzerTestOneInput(copy, len);
    fprintf(stderr, "replay: %s: %.1f ms\n", path, (now() - t) * 1e3);
    free(copy);
    inputs++;
}

static int skip(const struct dirent *e)
{
    return e->d_name[0] != '.' && strncmp(e->d_name, "README", 6);
}

static void replay_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        replay_file(path);
        return;
    }
    struct dirent **names;
    int n = scandir(path, &names, skip, alphasort);
    if (n < 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    for (int i = 0; i < n; i++) {
        char file[4096];
        snprintf(file, sizeof file, "%s/%s", path, names[i]->d_name);
        if (stat(file, &st) == 0 && S_ISREG(st.st_mode))
            replay_file(file);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    unsigned long min = 1;
    int i = 1;
    if (i + 1 < argc && !strcmp(argv[i], "--min")) {
        min = strtoul(argv[i + 1], NULL, 10);
        i += 2;
    }
    LLVMFuzzerInitialize(&argc, &argv);
    for (; i < argc; i++)
        replay_path(argv[i]);
    fprintf(stderr, "replay: %lu inputs, no finding\n", inputs);
    if (inputs < min) {
        fprintf(stderr, "replay: expected at least %lu inputs: is a corpus missing?\n", min);
        return 1;
    }
    return 0;
}
