/* linuxwatch.h — what pmusim reads in a Linux guest's console: the end of a panic.
 *
 * panic() (kernel/panic.c) prints "Kernel panic - not syncing: <reason>", the backtrace, and
 * last "---[ end Kernel panic - not syncing: <reason> ]---", then spins forever with interrupts
 * enabled.  Nothing more can happen in the guest, so the run ends on that line with its own
 * status (EXIT_PANIC), the kernel's message already on the console.
 */
#ifndef PMUSIM_LINUXWATCH_H
#define PMUSIM_LINUXWATCH_H

#include "base/common.h"

#define LINUXWATCH_LINE 192

typedef struct LinuxWatch {
    bool on;                        /* the guest is a Linux kernel image */
    char line[LINUXWATCH_LINE];     /* the current console line (its first bytes) */
    unsigned len;
} LinuxWatch;

/* One console byte; true when it completes the panic's last line. */
bool linuxwatch_char(LinuxWatch *w, uint8_t ch);

#endif
