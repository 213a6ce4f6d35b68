/* trap: installs a handler for each of the architecture's test traps
 * (arch/<arch>/trap_cases.c), takes each one, resumes after it and reports what the handler
 * saw.  Printing from here rather than from the handler shows that the return worked. */
#include "guest.h"
#include "trap.h"
#include "trap_cases.h"

static const struct trap_case *current;
static struct trap_frame seen;
static unsigned taken;

static void on_trap(struct trap_frame *f)
{
    seen = *f;
    taken++;
    trap_set_pc(f, trap_pc(f) + current->skip);
}

int main(void)
{
    unsigned failed = 0;
    const struct trap_case *c;

    for (c = trap_cases; c->name; c++)
        trap_set_handler(c->trapno, on_trap);
    for (c = trap_cases; c->name; c++) {
        unsigned before = taken;

        current = c;
        c->fire();
        if (taken != before + 1 || arch_trap_nr(&seen) != c->trapno) {
            printf("trap: %s: expected trap %u, taken %u times\n", c->name, c->trapno,
                   taken - before);
            failed++;
            continue;
        }
        printf("trap: %s ", c->name);
        trap_case_report(c, &seen);
    }
    if (failed) {
        printf("trap: %u failed\n", failed);
        return GUEST_EXIT_FAIL;
    }
    printf("trap: all done\n");
    return 0;
}
