/* trap_cases.c (arm64) — the traps of the trap guest (fired by trap_fire.S). */
#include "trap_cases.h"

TRAP_CASE_DECL(svc);
TRAP_CASE_DECL(brk);
TRAP_CASE_DECL(udf);
TRAP_CASE_DECL(dabt);

const struct trap_case trap_cases[] = {
    TRAP_CASE(svc, TRAP_EC_SVC64, 0),
    TRAP_CASE(brk, TRAP_EC_BRK64, 4),
    TRAP_CASE(udf, TRAP_EC_UNKNOWN, 4),
    TRAP_CASE(dabt, TRAP_EC_DABT_CUR, 4),
    { 0 },
};

void trap_case_report(const struct trap_case *c, const struct trap_frame *f)
{
    unsigned long ec = ESR_EC(f->esr), iss = ESR_ISS(f->esr), off = f->elr - (uintptr_t)c->site;

    if (ec == TRAP_EC_DABT_CUR)         /* FAR_EL1 is UNKNOWN for the others */
        printf("ec=0x%lx iss=0x%lx far=0x%lx elr=%s+0x%lx\n", ec, iss, f->far, c->site_name, off);
    else
        printf("ec=0x%lx iss=0x%lx elr=%s+0x%lx\n", ec, iss, c->site_name, off);
}
