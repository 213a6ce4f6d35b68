/* cpuport.c — a CPU port's diagnostics (see cpuport.h). */
#include "base/cpuport.h"


void port_diag(const CpuPort *p, uint64_t pc, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    trace_vdiagf(p->trace, *p->cycles, p->index, what, &pc, fmt, ap);
    va_end(ap);
}
