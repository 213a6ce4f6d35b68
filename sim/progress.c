/* progress.c — the progress line (progress.h). */
#include "sim/progress.h"

#include <stdio.h>
#include <time.h>

#define NS_PER_S 1000000000ull
#define PROGRESS_LINE 160           /* the longest line drawn */

static uint64_t host_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);     /* for the line only: never simulator state */
    return (uint64_t)t.tv_sec * NS_PER_S + (uint64_t)t.tv_nsec;
}

void progress_init(Progress *p, bool on, uint64_t freq_hz, uint64_t max_insns, uint64_t max_cycles)
{
    *p = (Progress){ .on = on, .freq_hz = freq_hz ? freq_hz : 1, .max_insns = max_insns, .max_cycles = max_cycles };
    if (on)
        p->last_ns = host_ns();
}

/* The share of the nearest limit, as ", 42% of --max-insns" (empty without a limit). */
static void limit_text(const Progress *p, uint64_t cycles, uint64_t insns, char *buf, size_t len)
{
    double pi = p->max_insns ? 100.0 * (double)insns / (double)p->max_insns : -1;
    double pc = p->max_cycles ? 100.0 * (double)cycles / (double)p->max_cycles : -1;
    buf[0] = 0;
    if (pi >= 0 || pc >= 0)
        snprintf(buf, len, ", %.0f%% of --max-%s", pi > pc ? pi : pc, pi > pc ? "insns" : "cycles");
}

void progress_show(Progress *p, uint64_t cycles, uint64_t insns)
{
    uint64_t now = host_ns();
    if (now - p->last_ns < PROGRESS_PERIOD_NS)
        return;
    double mips = (double)(insns - p->last_insns) * 1e3 / (double)(now - p->last_ns);
    char lim[48], line[PROGRESS_LINE];
    limit_text(p, cycles, insns, lim, sizeof lim);
    int n = snprintf(line, sizeof line, "pmusim: %.6f s simulated, %" PRIu64 " insns, %.1f MIPS%s",
                     (double)cycles / (double)p->freq_hz, insns, mips, lim);
    if (n >= (int)sizeof line)
        n = (int)sizeof line - 1;
    fprintf(stderr, "\r%s%*s", line, p->shown > n ? p->shown - n : 0, "");
    fflush(stderr);
    p->shown = n;
    p->last_ns = now;
    p->last_insns = insns;
}

void progress_clear(Progress *p)
{
    if (!p->shown)
        return;
    fprintf(stderr, "\r%*s\r", p->shown, "");
    fflush(stderr);
    p->shown = 0;
}
