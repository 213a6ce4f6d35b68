/* ftrace.h — a dynamic function tracer in the shape of Linux's (kernel/trace/ftrace.c,
 * arch/<arch>/kernel/ftrace.c).
 *
 * The compiler puts a call site at the entry of every function built with the instrumentation
 * (x86 `-pg -mfentry -mrecord-mcount`: `call __fentry__`; arm64 `-fpatchable-function-entry=2`:
 * two NOPs; ppc32 `-pg`: `bl _mcount`) and lists the sites in a table (`__mcount_loc`,
 * `__patchable_function_entries`; on ppc32 the build makes `__mcount_loc` from the `_mcount`
 * relocations).  ftrace_init() turns every site into the architecture's NOP, after checking that
 * it holds what the compiler put there (ftrace_make_nop).  Enabling a tracer turns the sites that
 * match the filter into calls to the tracer's trampoline, ftrace_caller (ftrace_make_call);
 * disabling turns them back.  The trampoline calls ftrace_trace_entry(); function_graph also
 * hooks the function's return (return_to_handler -> ftrace_return_to_handler).  Entries go to
 * the per-CPU trace rings (trace_buffer.h).
 *
 * Code patching goes through the architecture's text_poke (x86 INT3 protocol on SMP with IPIs;
 * arm64 cache maintenance; ppc32 dcbst/sync/icbi/isync). */
#ifndef GUEST_FTRACE_H
#define GUEST_FTRACE_H

#include "guest.h"
#include "trap.h"

/* Not instrumented: the tracer itself and what it calls. */
#define notrace __attribute__((no_instrument_function, patchable_function_entry(0, 0)))

#define FTRACE_FL_ENABLED   1u          /* the site calls the trampoline */

struct dyn_ftrace {
    unsigned long ip;                   /* the site */
    unsigned long flags;
    const char *name;                   /* its function (kallsyms) */
};

enum ftrace_tracer { TRACER_NOP, TRACER_FUNCTION, TRACER_FUNCTION_GRAPH };

extern struct dyn_ftrace *ftrace_records;
extern unsigned ftrace_nr_records;

/* Boot CPU, before any other CPU runs: a record per site, each site made a NOP.  The number of
 * sites, or -1 (a site holds something unexpected: Linux's ftrace_bug). */
int ftrace_init(void);
/* Selects the records whose function matches one of the comma-separated globs (* and ?);
 * NULL or "" selects all.  Returns the number selected. */
unsigned ftrace_set_filter(const char *globs);
/* Patches the selected sites into calls and starts the tracer; 0 or -1. */
int ftrace_start(enum ftrace_tracer t);
/* Patches every enabled site back into a NOP. */
void ftrace_stop(void);
bool ftrace_glob_match(const char *glob, size_t glen, const char *s);

/* The faulty fixtures (bad/<name>.c, build/guest/<arch>/bad-<name>.elf) define
 * ftrace_default_bug; the correct guest does not.  Is this guest's bug `name`? */
extern const char ftrace_default_bug[] __attribute__((weak));
bool ftrace_bug(const char *name);

/* Called by the trampolines (arch ftrace_*.S). */
void ftrace_trace_entry(unsigned long ip, unsigned long *parent);
unsigned long ftrace_return_to_handler(void);

/* ---- implemented by arch/<arch>/ftrace.c ---- */
/* The site's instruction(s) as the compiler emitted them, the NOP, and a call to addr. */
int ftrace_make_nop(struct dyn_ftrace *rec);               /* at init: compiler's -> NOP */
int ftrace_make_call(struct dyn_ftrace *rec, unsigned long addr);
int ftrace_make_nop_live(struct dyn_ftrace *rec, unsigned long addr); /* call -> NOP */
/* Before and after a batch of live patches (x86: nothing; arm64/ppc32 nothing either: each
 * patch does its own cache maintenance). */
extern const char ftrace_caller[], return_to_handler[];

#endif
