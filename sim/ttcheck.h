/* ttcheck.h — --time-travel-check: time travel checked against the run itself (a test aid).
 *
 * The run goes forward with time travel on (sim/timetravel.h).  Every STRIDE instructions of one
 * CPU (the CPUs in turn) it stops at a position P, keeps the machine's state A (the checkpoint
 * bytes) and its PC, steps one position forward to Q (state B), then:
 *   reverse-stepi      back to the CPU's previous stop T: T must be P (when no exception entry
 *                      came between) and the state A, byte for byte;
 *   forward again      to Q: the state must be B;
 *   reverse-continue   from Q with a breakpoint at T's PC on every CPU: it must stop at T, with
 *                      T's state;
 * and goes on forward from Q.  A difference is reported on stderr with the position, the
 * section and the offset of the first differing byte, and the exit status is then 5.  The
 * console, the trace and the other outputs are those of the run without the option (what the
 * re-execution writes again is muted).  A summary line goes to stderr at the end.
 */
#ifndef PMUSIM_TTCHECK_H
#define PMUSIM_TTCHECK_H

#include "sim/machine.h"

/* mach_run with the checks above every `stride` instructions; returns the exit status. */
int ttcheck_run(Machine *m, uint64_t stride);

#endif
