/* nmi.h (x86_64) — NMI dispatch as in Linux arch/x86/kernel/nmi.c: exc_nmi -> default_do_nmi ->
 * nmi_handle(NMI_LOCAL) walks the registered handlers; an NMI none of them claims goes to the
 * NMI_UNKNOWN handlers, then to unknown_nmi_error.  Handlers run with NMIs blocked (until the
 * entry code's IRETQ), on the interrupted stack. */
#ifndef GUEST_NMI_H
#define GUEST_NMI_H

#include "guest.h"
#include "percpu.h"
#include "trap.h"

#define TRAP_NMI    2                   /* the IDT vector */

enum { NMI_LOCAL, NMI_UNKNOWN, NMI_MAX };
#define NMI_DONE    0                   /* a handler's result: not mine */
#define NMI_HANDLED 1

typedef int (*nmi_handler_t)(unsigned type, struct trap_frame *regs);

struct nmiaction {
    nmi_handler_t handler;
    const char *name;
    struct nmiaction *next;
};

/* Installs exc_nmi on vector 2 (boot CPU, once). */
void nmi_init(void);
/* Appends a handler to a list (Linux: __register_nmi_handler).  Register before the source
 * can raise NMIs: the lists are walked without a lock. */
void register_nmi_handler(unsigned type, struct nmiaction *action);

/* Per-CPU counts (Linux: nmi_stats). */
struct nmi_stats {
    unsigned normal, unknown, swallow;
};
DECLARE_PER_CPU(struct nmi_stats, nmi_stats);

#endif
