/* device.c — the common part of every device (device.h). */
#include "sim/dev/device.h"

#include <stdio.h>
#include <stdlib.h>

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

/* ------------------------------------------------------------------ a device's further windows */

typedef struct DevWindow {
    Device d;
    Device *owner;
    uint64_t tag;                   /* k << DEV_WINDOW_SHIFT */
} DevWindow;

static uint64_t window_read(Device *d, Cpu *c, uint64_t off, unsigned size)
{
    DevWindow *w = (DevWindow *)d;
    return w->owner->ops->read(w->owner, c, w->tag | off, size);
}

static void window_write(Device *d, Cpu *c, uint64_t off, unsigned size, uint64_t val)
{
    DevWindow *w = (DevWindow *)d;
    w->owner->ops->write(w->owner, c, w->tag | off, size, val);
}

static uint64_t window_peek(Device *d, uint64_t off, unsigned size)
{
    DevWindow *w = (DevWindow *)d;
    return w->owner->ops->peek ? w->owner->ops->peek(w->owner, w->tag | off, size) : 0;
}

static void window_destroy(Device *d)
{
    free(d);
}

/* No state of its own: the owner saves the device. */
static const DeviceOps window_ops = {
    .type = "window", .read = window_read, .write = window_write, .peek = window_peek, .destroy = window_destroy,
};

Device *device_window(Device *owner, unsigned k, const DevDesc *dd)
{
    DevWindow *w = device_alloc(sizeof *w, &window_ops, owner->host, dd);
    w->owner = owner;
    w->tag = (uint64_t)k << DEV_WINDOW_SHIFT;
    return &w->d;
}
