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

void device_free(Device *d)
{
    free(d);
}

void device_save_fields(Device *d, Blob *b, uint32_t version, const StateField *f, size_t n)
{
    size_t at = blob_begin(b, d->name, version);
    blob_fields(b, d, f, n);
    blob_end(b, at);
}

bool device_load_fields(Device *d, BlobReader *r, uint32_t version, const StateField *f, size_t n)
{
    BrOuter outer;
    return br_begin(r, &outer, d->name, version) && br_fields(r, d, f, n) && br_end(r, &outer);
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

/* No state of its own: the owner saves the device. */
static const DeviceOps window_ops = {
    .type = "window", .read = window_read, .write = window_write, .peek = window_peek, .destroy = device_free,
};

Device *device_window(Device *owner, unsigned k, const DevDesc *dd)
{
    DevWindow *w = device_alloc(sizeof *w, &window_ops, owner->host, dd);
    w->owner = owner;
    w->tag = (uint64_t)k << DEV_WINDOW_SHIFT;
    return &w->d;
}
