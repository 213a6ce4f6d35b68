/* ib700.c — the iBASE IB700 watchdog as QEMU models it (hw/watchdog/wdt_ib700.c), with the
 * "poweroff" action: guests written for QEMU's 40p board power off through it.
 *
 * Ports (offsets from the node's reg, 0x441 on the board):
 *   0 (0x441) write: disable the watchdog
 *   2 (0x443) write V: (re)start it with the timeout table[V & 15] seconds:
 *                 30 28 26 24 22 20 18 16 14 12 10 8 6 4 2 0
 * When it expires the machine powers off: the run ends with status 0.  The timer runs in
 * simulated time on the CPU that armed it, so expiry is on an exact instruction.
 */
#include "base/state.h"
#include "sim/dev/device.h"

typedef struct Ib700 {
    Device d;
    Event expire;
    int cpu;                        /* whose clock the timer runs on (the expiry is its instruction) */
} Ib700;

static void ib700_expire(Event *ev, void *opaque)
{
    Ib700 *w = opaque;
    const DeviceHost *h = w->d.host;
    h->exit(h->opaque, h->cpu(h->opaque, w->cpu), 0, "watchdog-poweroff");
}

static uint64_t ib700_read(Device *d, Cpu *c, uint64_t off, unsigned size)
{
    return 0;
}

static void ib700_write(Device *d, Cpu *c, uint64_t off, unsigned size, uint64_t val)
{
    static const unsigned timeout_s[16] = { 30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0 };
    Ib700 *w = (Ib700 *)d;
    if (off == 0) {
        evq_remove(&w->expire);
    } else if (off == 2) {
        const DeviceHost *h = d->host;
        w->cpu = h->cpu_index(h->opaque, c);
        h->cpu_schedule(h->opaque, w->cpu, &w->expire, h->cpu_cycles(h->opaque, w->cpu) + timeout_s[val & 15] * h->cpu_hz);
    }
}

/* Raise when the saved state changes (base/state.h). */
#define IB700_STATE_VERSION 1u

/* The section is named after the device's path. */
static void ib700_save(Device *d, Blob *b)
{
    Ib700 *w = (Ib700 *)d;
    size_t at = blob_begin(b, d->name, IB700_STATE_VERSION);
    blob_u32(b, (uint32_t)w->cpu);
    blob_event(b, &w->expire);
    blob_end(b, at);
}

static bool ib700_load(Device *d, BlobReader *r)
{
    Ib700 *w = (Ib700 *)d;
    const DeviceHost *h = d->host;
    BrOuter outer;
    if (!br_begin(r, &outer, d->name, IB700_STATE_VERSION))
        return false;
    w->cpu = (int)br_u32(r);
    if (w->cpu < 0 || w->cpu >= h->ncpus)
        return false;
    br_event(r, &w->expire, h->cpu_events(h->opaque, w->cpu));
    return br_end(r, &outer);
}

static const DeviceOps ib700_ops = {
    .type = "pmusim,ib700", .read = ib700_read, .write = ib700_write, .save = ib700_save, .load = ib700_load,
};

Device *ib700_create(const DeviceHost *host, const DevDesc *dd, Error *err)
{
    if (dd->size < 3) {
        err_set(err, "node %s: property reg: the ib700 uses 3 ports (0x441..0x443)", dd->path);
        return NULL;
    }
    Ib700 *w = device_alloc(sizeof(Ib700), &ib700_ops, host, dd);
    event_init(&w->expire, "ib700", ib700_expire, w);
    return &w->d;
}
