/* device.h — device models.
 *
 * A device is created from its tree node (DevDesc), occupies an MMIO range or an I/O port
 * range, and is accessed by CPUs through read/write.  Devices never write CPU state: they call
 * machine services (console, exit, power) or raise lines on a CPU.  `peek` reads a register
 * without side effects (for the trace, a debugger, checkpoints).  Each file opens with its
 * register map and the manual it follows.
 */
#ifndef PMUSIM_DEVICE_H
#define PMUSIM_DEVICE_H

#include "sim/fdt.h"
#include "sim/machine.h"

typedef struct DeviceOps {
    const char *type;
    uint64_t (*read)(Device *d, Cpu *c, uint64_t off, unsigned size);
    void (*write)(Device *d, Cpu *c, uint64_t off, unsigned size, uint64_t val);
    uint64_t (*peek)(Device *d, uint64_t off, unsigned size);
    void (*save)(Device *d, Blob *b);
    bool (*load)(Device *d, BlobReader *r);
    void (*destroy)(Device *d);
} DeviceOps;

struct Device {
    const DeviceOps *ops;
    Machine *m;
    char name[128];                 /* tree path */
    uint64_t base, size;
    bool io;                        /* I/O port space */
};

typedef Device *(*DeviceCreateFn)(Machine *m, const DevDesc *dd, Error *err);

/* The constructor for a compatible string, or NULL. */
DeviceCreateFn device_find(const char *compatible);
/* Allocate a device struct of `size` bytes with the common part filled in. */
void *device_alloc(size_t size, const DeviceOps *ops, Machine *m, const DevDesc *dd);

#endif
