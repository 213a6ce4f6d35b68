/* trap_cases.c (ppc32) — the traps of the trap guest (fired by trap_fire.S). */
#include "trap_cases.h"

TRAP_CASE_DECL(sc);
TRAP_CASE_DECL(trap);
TRAP_CASE_DECL(illegal);

const struct trap_case trap_cases[] = {
    TRAP_CASE(sc, TRAP_SYSCALL, 0),
    TRAP_CASE(trap, TRAP_PROGRAM, 4),
    TRAP_CASE(illegal, TRAP_PROGRAM, 4),
    { 0 },
};

void trap_case_report(const struct trap_case *c, const struct trap_frame *f)
{
    printf("vector=0x%lx reason=0x%08lx srr0=%s+0x%lx\n", f->vector, f->srr1 & SRR1_REASON,
           c->site_name, f->srr0 - (uintptr_t)c->site);
}
