/* linuxwatch.c — the end of a Linux panic on the console (see linuxwatch.h). */
#include "sim/linuxwatch.h"

#include <string.h>

/* kernel/panic.c: pr_emerg("---[ end Kernel panic - not syncing: %s ]---\n", buf); the line may
 * start with printk's "[    1.234567] " time stamp and a caller id. */
#define PANIC_END "---[ end Kernel panic - not syncing: "

bool linuxwatch_char(LinuxWatch *w, uint8_t ch)
{
    if (!w->on)
        return false;
    if (ch != '\n') {
        if (w->len < sizeof w->line - 1)
            w->line[w->len++] = (char)ch;
        return false;
    }
    w->line[w->len] = 0;
    w->len = 0;
    return strstr(w->line, PANIC_END) != NULL;
}
