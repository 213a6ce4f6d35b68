/* progress.h — the progress line of a long run, on stderr when it is a terminal.
 *
 *   pmusim: 12.345678 s simulated, 1234567890 insns, 456.7 MIPS, 42% of --max-insns
 *
 * One line, rewritten in place (a carriage return, then the text padded over the last one)
 * about every PROGRESS_PERIOD_NS of host time, and erased before anything else is printed, so
 * that it never mixes with a message.  The machine offers it its counters at quantum boundaries
 * (progress_due, a count of rounds: the host clock is read only every PROGRESS_ROUNDS rounds);
 * it only reads them: no simulator state and no output file depends on it (the host time it
 * reads is for the line alone).  Off without a terminal on stderr and with --quiet.
 */
#ifndef PMUSIM_PROGRESS_H
#define PMUSIM_PROGRESS_H

#include "base/common.h"

#define PROGRESS_ROUNDS 8u          /* quanta between two looks at the host clock */
#define PROGRESS_PERIOD_NS 500000000ull

typedef struct Progress {
    bool on;
    uint64_t freq_hz;               /* cycles per simulated second */
    uint64_t max_insns, max_cycles; /* 0: no such limit */
    unsigned rounds;                /* since the host clock was last read */
    uint64_t last_ns, last_insns;   /* when the line was last drawn, and the count then */
    int shown;                      /* characters of the line now on the terminal */
} Progress;

void progress_init(Progress *p, bool on, uint64_t freq_hz, uint64_t max_insns, uint64_t max_cycles);
/* Called every round: is it time to look at the host clock? */
static inline bool progress_due(Progress *p)
{
    if (!p->on || ++p->rounds < PROGRESS_ROUNDS)
        return false;
    p->rounds = 0;
    return true;
}
/* Redraw the line if PROGRESS_PERIOD_NS have passed: machine time `cycles`, `insns` retired. */
void progress_show(Progress *p, uint64_t cycles, uint64_t insns);
/* Erase the line (before a message, at the end of the run). */
void progress_clear(Progress *p);

#endif
