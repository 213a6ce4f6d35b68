/* debug_exit.c — QEMU's isa-debug-exit: a write of V ends the run with status (V << 1) | 1.
 * Reads return 0.  The status keeps QEMU's encoding so scripts written for QEMU still work. */
#include "sim/dev/device.h"

static uint64_t debug_exit_read(Device *d, Cpu *c, uint64_t off, unsigned size)
{
    return 0;
}

static void debug_exit_write(Device *d, Cpu *c, uint64_t off, unsigned size, uint64_t val)
{
    d->host->exit(d->host->opaque, c, (int)(((val << 1) | 1) & 0xff), "debug-exit");
}

static const DeviceOps debug_exit_ops = {
    .type = "pmusim,isa-debug-exit", .read = debug_exit_read, .write = debug_exit_write,
};

Device *debug_exit_create(const DeviceHost *host, const DevDesc *dd, Error *err)
{
    return device_alloc(sizeof(Device), &debug_exit_ops, host, dd);
}
