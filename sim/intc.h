/* intc.h — the board's interrupt controller (the GIC), made from the device tree. */
#ifndef PMUSIM_INTC_H
#define PMUSIM_INTC_H

#include "gic/gic.h"
#include "sim/dev/device.h"
#include "sim/fdt.h"

/* Where intc_create puts what it makes: the trace the GIC writes to, and the device list its
 * windows join (devs[*ndevs], at most max in all), created with `host`. */
typedef struct IntcHost {
    const DeviceHost *host;
    Trace *trace;
    Device **devs;
    int *ndevs, max;
} IntcHost;

/* The GIC version a compatible string names, or 0. */
GicVersion intc_gic_version(const char *compatible);
/* Make the tree's GIC and its windows, before the other devices; *gic = NULL if the tree has
 * none.  The machine frees it (free). */
bool intc_create(const MachineDesc *d, const IntcHost *h, Gic **gic, Error *err);

#endif
