/* trap.h — exception dispatch.
 *
 * Every architecture's entry code saves the interrupted state in a struct trap_frame (arch.h)
 * and calls trap_dispatch(), which calls the handler registered for the trap's number.  What a
 * trap number means is per architecture (arch.h: TRAP_*): the x86_64 IDT vector, the arm64
 * exception class of a synchronous exception (or TRAP_IRQ/FIQ/SERROR), the ppc32 vector offset
 * / 0x20.  A handler may change the frame (e.g. trap_set_pc() to skip an instruction); the
 * entry code resumes from it.  A trap with no handler panics with a register dump. */
#ifndef GUEST_TRAP_H
#define GUEST_TRAP_H

#include "guest.h"

typedef void (*trap_handler_t)(struct trap_frame *f);

void trap_set_handler(unsigned trapno, trap_handler_t h);
void trap_dispatch(struct trap_frame *f);   /* called by the arch entry code only */

/* ---- implemented by arch/<arch>/arch.c ---- */
unsigned arch_trap_nr(const struct trap_frame *f);
void arch_dump_frame(const struct trap_frame *f);  /* to the console, unlocked */

#endif
