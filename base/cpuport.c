/* cpuport.c — the formatting half of a CPU port's diagnostics (see cpuport.h). */
#include "base/cpuport.h"

#include <stdio.h>

void port_diag(const CpuPort *p, uint64_t pc, const char *what, const char *fmt, ...)
{
    if (!trace_on(p->trace))
        return;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    p->diag(p->opaque, pc, what, msg);
}
