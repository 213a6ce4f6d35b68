/* hostproc.c — a helper program started without copying pmusim (see hostproc.h). */
#define _GNU_SOURCE
#include "base/hostproc.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILD_STACK (256u << 10)    /* execvp builds PATH candidates on it */
#define EXEC_FAILED 127             /* the shell's status for "command not found" */

typedef struct Child {
    char *const *argv;
    int out_fd;
    const HostLimits *lim;
    sigset_t mask;                  /* the caller's signal mask, for the helper */
} Child;

/* Every handler pmusim installed goes back to the default: a signal between clone and exec
 * would otherwise run pmusim's handler in the child, on memory the parent shares. */
static void child_default_signals(void)
{
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction sa;
        if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN && sa.sa_handler != SIG_DFL) {
            sa.sa_handler = SIG_DFL;
            sa.sa_flags = 0;
            sigaction(sig, &sa, NULL);
        }
    }
}

static bool child_limit(int resource, uint64_t v)
{
    struct rlimit rl = { v, v };
    return setrlimit(resource, &rl) == 0;
}

/* The child: its own stack, the parent's memory (the parent waits until exec or _exit: CLONE_VFORK),
 * its own signal handlers, limits and file table (no CLONE_SIGHAND, CLONE_FILES).  Only system
 * calls from here on; errno is the parent thread's and is clobbered, which the parent expects.
 * Not instrumented: the sanitizer's stack bookkeeping would poison the shadow of this stack. */
__attribute__((no_sanitize("address", "undefined")))
static int child_main(void *arg)
{
    const Child *c = arg;
    child_default_signals();
    sigprocmask(SIG_SETMASK, &c->mask, NULL);
    if ((c->out_fd >= 0 && dup2(c->out_fd, STDOUT_FILENO) < 0) ||
        !child_limit(RLIMIT_AS, c->lim->mem_bytes) || !child_limit(RLIMIT_FSIZE, c->lim->file_bytes))
        _exit(EXEC_FAILED);
    alarm(c->lim->seconds);         /* a pending alarm survives exec */
    execvp(c->argv[0], c->argv);
    _exit(EXEC_FAILED);
}

static int wait_child(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (WIFSIGNALED(status))
        return HOSTPROC_SIGNALLED + WTERMSIG(status);
    return WEXITSTATUS(status) == EXEC_FAILED ? -1 : WEXITSTATUS(status);
}

int hostproc_run(char *const argv[], int out_fd, const HostLimits *lim)
{
    Child c = { argv, out_fd, lim, { { 0 } } };
    void *stack = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED)
        return -1;
    sigset_t all;
    sigfillset(&all);
    fflush(NULL);                   /* its output comes after ours */
    /* no handler of ours may run in the child before it has reset them (see child_default_signals) */
    pthread_sigmask(SIG_BLOCK, &all, &c.mask);
    pid_t pid = clone(child_main, (char *)stack + CHILD_STACK, CLONE_VM | CLONE_VFORK | SIGCHLD, &c);
    pthread_sigmask(SIG_SETMASK, &c.mask, NULL);
    munmap(stack, CHILD_STACK);     /* the child has exec'd or exited: CLONE_VFORK */
    return pid < 0 ? -1 : wait_child(pid);
}
