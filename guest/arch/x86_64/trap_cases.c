/* trap_cases.c (x86_64) — the traps of the trap guest (fired by trap_fire.S). */
#include "trap_cases.h"

TRAP_CASE_DECL(int3);
TRAP_CASE_DECL(ud2);
TRAP_CASE_DECL(rdmsr);
TRAP_CASE_DECL(int80);

const struct trap_case trap_cases[] = {
    TRAP_CASE(int3, TRAP_BP, 0),
    TRAP_CASE(ud2, TRAP_UD, 2),         /* skip the 2-byte instruction */
    TRAP_CASE(rdmsr, TRAP_GP, 2),
    TRAP_CASE(int80, 0x80, 0),
    { 0 },
};

void trap_case_report(const struct trap_case *c, const struct trap_frame *f)
{
    printf("vector=%lu err=0x%lx rip=%s+0x%lx\n", f->vector, f->error, c->site_name,
           f->rip - (uintptr_t)c->site);
}
