/* trap_cases.h — between the trap guest (trap.c) and its per-architecture list of traps
 * (arch/<arch>/trap_cases.c, fired by arch/<arch>/trap_fire.S). */
#ifndef GUEST_TRAP_CASES_H
#define GUEST_TRAP_CASES_H

#include "trap.h"

struct trap_case {
    const char *name;
    unsigned trapno;            /* the trap number it must raise */
    void (*fire)(void);         /* executes the trapping instruction at site */
    const char *site;
    const char *site_name;
    unsigned skip;              /* bytes the handler adds to the saved PC to resume */
};

/* Terminated by an entry with name == NULL. */
extern const struct trap_case trap_cases[];
/* Prints the rest of the report line: what the frame says about the trap, PC relative to site. */
void trap_case_report(const struct trap_case *c, const struct trap_frame *f);

#define TRAP_CASE_DECL(n)   void fire_##n(void); extern const char n##_site[]
#define TRAP_CASE(n, trapno, skip)  { #n, trapno, fire_##n, n##_site, #n "_site", skip }

#endif
