/* trap.c — dispatch of the frames the arch entry code saves (see trap.h). */
#include "trap.h"

static trap_handler_t handlers[NR_TRAPS];

void trap_set_handler(unsigned trapno, trap_handler_t h)
{
    if (trapno >= NR_TRAPS)
        panic("trap number %u out of range", trapno);
    handlers[trapno] = h;
}

void trap_dispatch(struct trap_frame *f)
{
    unsigned nr = arch_trap_nr(f);
    trap_handler_t h = nr < NR_TRAPS ? handlers[nr] : NULL;

    if (h) {
        h(f);
        return;
    }
    printf_unlocked("unhandled trap %u\n", nr);
    arch_dump_frame(f);
    panic("unhandled trap");
}
