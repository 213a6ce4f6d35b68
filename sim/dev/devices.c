/* devices.c — the table of device models by compatible string. */
#include <stdio.h>
#include <string.h>

#include "sim/dev/device.h"

Device *uart16550_create(Machine *m, const DevDesc *dd, Error *err);
Device *pl011_create(Machine *m, const DevDesc *dd, Error *err);
Device *debug_exit_create(Machine *m, const DevDesc *dd, Error *err);
Device *ib700_create(Machine *m, const DevDesc *dd, Error *err);
Device *lapic_dev_create(Machine *m, const DevDesc *dd, Error *err);

static const struct {
    const char *compatible;
    DeviceCreateFn create;
} device_table[] = {
    { "ns16550a", uart16550_create },
    { "ns16550", uart16550_create },
    { "arm,pl011", pl011_create },
    { "pmusim,isa-debug-exit", debug_exit_create },
    { "pmusim,ib700", ib700_create },
    { "intel,ce4100-lapic", lapic_dev_create },
};

DeviceCreateFn device_find(const char *compatible)
{
    for (size_t i = 0; i < ARRAY_SIZE(device_table); i++)
        if (!strcmp(device_table[i].compatible, compatible))
            return device_table[i].create;
    return NULL;
}

void *device_alloc(size_t size, const DeviceOps *ops, Machine *m, const DevDesc *dd)
{
    Device *d = xcalloc(1, size);
    d->ops = ops;
    d->m = m;
    snprintf(d->name, sizeof d->name, "%s", dd->path);
    d->base = dd->base;
    d->size = dd->size;
    d->io = dd->io;
    return d;
}
