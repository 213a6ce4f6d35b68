/* ftrace_work.h — the ftrace scenario's workload (ftrace_work.c, built with the call-site
 * instrumentation) and the static key it branches on. */
#ifndef GUEST_FTRACE_WORK_H
#define GUEST_FTRACE_WORK_H

#include "guest.h"
#include "jump_label.h"

extern struct static_key work_stats_key;

/* One round of the workload; returns a checksum of what it computed. */
unsigned long work_round(unsigned seed);
/* Rounds that took the static key's branch. */
extern unsigned long work_stats_hits[MAX_CPUS], work_checksum_hits[MAX_CPUS];

#endif
