/* device.c — the common part of every device (device.h). */
#include "sim/dev/device.h"

#include <stdio.h>

void *device_alloc(size_t size, const DeviceOps *ops, const DeviceHost *host, const DevDesc *dd)
{
    Device *d = xcalloc(1, size);
    d->ops = ops;
    d->host = host;
    snprintf(d->name, sizeof d->name, "%s", dd->path);
    d->base = dd->base;
    d->size = dd->size;
    d->io = dd->io;
    return d;
}
