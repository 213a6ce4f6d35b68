/* hostproc.h — running a helper program on the host (dtc), bounded, without copying pmusim.
 *
 * The helper starts in a child that shares pmusim's memory until it calls exec, as glibc's
 * posix_spawn does: a fork() would copy the page tables of the whole simulator, which under the
 * fuzzing harness's sanitizer was most of the time a DTS input took (3x its exec).  posix_spawn
 * itself cannot set the limits a helper needs, so the child is started here with clone(2).
 * The helper never touches simulated state: nothing here is part of a run's determinism.
 */
#ifndef PMUSIM_HOSTPROC_H
#define PMUSIM_HOSTPROC_H

#include <stdint.h>

typedef struct HostLimits {
    uint64_t mem_bytes;             /* RLIMIT_AS */
    uint64_t file_bytes;            /* RLIMIT_FSIZE: the largest file it may write */
    unsigned seconds;               /* alarm(2): SIGALRM ends it (0: no limit) */
} HostLimits;

#define HOSTPROC_SIGNALLED 0x100    /* hostproc_run: ended by signal (rc - HOSTPROC_SIGNALLED) */

/* Run argv[0] (searched in PATH) with argv, its standard output on out_fd if >= 0 (else ours),
 * its standard error ours, the limits set and every signal handler of ours back to the default.
 * Returns its exit status, HOSTPROC_SIGNALLED + the signal that ended it, or -1 if it could not
 * be started (exit status 127 included: the child's "exec failed"). */
int hostproc_run(char *const argv[], int out_fd, const HostLimits *lim);

#endif
