/* device.h — device models, and everything a device may see of the machine.
 *
 * A device is created from its tree node (DevDesc), occupies an MMIO range or an I/O port
 * range, and is accessed by CPUs through read/write.  It sees nothing of the machine but the
 * DeviceHost it is handed (TinyEMU's and Spike's devices are built the same way): the console
 * it transmits to, the trace, the time and event queue of a CPU, and the request to end the
 * run.  The CPU making an access is an opaque handle a device only passes back to the host.
 * Interrupts go out on lines (base/irq.h).  `peek` reads a register without side effects (for
 * the trace, a debugger, checkpoints).  Each file opens with its register map and the manual
 * it follows.
 */
#ifndef PMUSIM_DEVICE_H
#define PMUSIM_DEVICE_H

#include "base/clock.h"
#include "base/common.h"
#include "base/irq.h"
#include "base/state.h"
#include "base/trace.h"

typedef struct Cpu Cpu;             /* opaque here: the CPU making an access */
typedef struct Device Device;

/* The `interrupts` of a node: at most DEV_MAX_IRQS specifiers of up to DEV_IRQ_CELLS_MAX cells
 * each, as many cells as the interrupt parent's #interrupt-cells says (the GIC's three: type,
 * number, flags; Documentation/devicetree/bindings/interrupt-controller/arm,gic-v3.yaml). */
#define DEV_MAX_IRQS 4
#define DEV_IRQ_CELLS_MAX 4

typedef struct DevIrq {
    uint32_t cell[DEV_IRQ_CELLS_MAX];
} DevIrq;

/* A device node of the tree, as the machine description parsed it (sim/fdt.c). */
typedef struct DevDesc {
    char path[128];
    char compatible[64];            /* the compatible string pmusim matched */
    uint64_t base, size;            /* MMIO address, or I/O port when io */
    bool io;
    uint64_t clock_hz;              /* the device's clock: clock-frequency, else the rate of the
                                       fixed-clock its `clocks` names first; 0 if neither */
    bool intc;                      /* a window of the interrupt controller (sim/intc.c makes it) */
    int nirqs;                      /* entries of `interrupts` (0: none) */
    unsigned irq_cells;             /* cells per entry (the parent's #interrupt-cells) */
    DevIrq irqs[DEV_MAX_IRQS];
    char irq_parent[128];           /* the interrupt parent's path ("" without interrupts) */
} DevDesc;

/* --rtc-base's default: 2025-01-01T00:00:00 UTC. */
#define DEV_RTC_DEFAULT_EPOCH 1735689600ull

typedef struct UartRx UartRx;

/* The console input the console UART receives (sim/dev/uart_rx.h): input bytes first ..
 * first + len - 1 are data[0 .. len - 1].  Read whole before the run (--console-in FILE), or
 * live (--console-in stdin on a terminal or pipe: the machine appends what arrived at quantum
 * boundaries and calls uartrx_more), or a replayed log (--replay: byte i arrives at cycle at[i]
 * of CPU cpu[i], whatever the receiver would have chosen). */
typedef struct ConsoleInput {
    const uint8_t *data;
    size_t len;
    uint64_t first;                 /* the input position of data[0] (a log's or live run's start) */
    const char *path;               /* for messages ("-": standard input) */
    bool live;                      /* more may come: a restore may start it at any position */
    const uint64_t *at;             /* --replay: each byte's cycle and CPU; NULL otherwise */
    const uint16_t *cpu;
    UartRx *rx;                     /* the receiver that takes it (uartrx_init) */
} ConsoleInput;

/* What a device may ask of the machine it is plugged into. */
typedef struct DeviceHost {
    void *opaque;
    Arch arch;
    Trace *trace;
    uint64_t cpu_hz;                /* the CPUs' clock (cycles per second) */
    int ncpus;
    uint64_t rtc_epoch;             /* the real-time clock's time at cycle 0, seconds since 1970 (UTC) */
    /* A byte out of the console (a UART transmitted it). */
    void (*console_out)(void *opaque, uint8_t c);
    /* End the run with `status`; `cpu` is the CPU whose access caused it, or NULL. */
    void (*exit)(void *opaque, Cpu *cpu, int status, const char *reason);
    /* The logical number of an accessing CPU, and the CPU of a number. */
    int (*cpu_index)(void *opaque, Cpu *cpu);
    Cpu *(*cpu)(void *opaque, int n);
    /* CPU n's local time, and its queue of cycle events (timers run on one CPU's clock, so
     * that they expire on an exact instruction of it). */
    uint64_t (*cpu_cycles)(void *opaque, int n);
    EventQueue *(*cpu_events)(void *opaque, int n);
    void (*cpu_schedule)(void *opaque, int n, Event *ev, uint64_t cycle);
    /* The local time of `cpu` at the instruction making the access being dispatched (its
     * cpu_cycles outside an access): when a register write happened, to the cycle. */
    uint64_t (*now)(void *opaque, Cpu *cpu);
    /* Interrupt output n of the device, entry n of its node's `interrupts`, connected to
     * whatever that entry names; an unconnected line (base/irq.h) when there is none. */
    IrqLine (*irq)(void *opaque, const DevDesc *dd, unsigned n);
    /* The console input if this device is the console's UART (the node /chosen stdout-path
     * names, else the first UART to ask), else NULL (nothing ever arrives). */
    ConsoleInput *(*console_input)(void *opaque, const DevDesc *dd);
    /* The receiver took console input byte `pos` (c) at cycle `when` of CPU `cpu` (--record). */
    void (*console_taken)(void *opaque, uint64_t pos, uint8_t c, int cpu, uint64_t when);
    /* --replay: input byte `pos` cannot arrive where it was logged (`why`): the run has left the
     * recorded one; the machine says so and ends the run. */
    void (*console_refused)(void *opaque, uint64_t pos, const char *why);
    /* cpu_schedule for an event whose scheduling moment depends on the host (a live input's
     * arrival): after every other event of its cycle, without drawing a sequence number. */
    void (*cpu_schedule_last)(void *opaque, int n, Event *ev, uint64_t cycle);
    /* A diagnostic about what the guest did with the access `cpu` is making (trace `diag`). */
    void (*diag)(void *opaque, Cpu *cpu, const char *what, const char *fmt, ...) PMUSIM_PRINTF(4, 5);
} DeviceHost;

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
    const DeviceHost *host;
    char name[128];                 /* tree path */
    uint64_t base, size;
    bool io;                        /* I/O port space */
};

typedef Device *(*DeviceCreateFn)(const DeviceHost *host, const DevDesc *dd, Error *err);

/* Allocate a device struct of `size` bytes with the common part filled in. */
void *device_alloc(size_t size, const DeviceOps *ops, const DeviceHost *host, const DevDesc *dd);

/* The models (sim/dev/, and the machine's table of them by compatible: sim/devices.c). */
Device *uart16550_create(const DeviceHost *host, const DevDesc *dd, Error *err);
Device *pl011_create(const DeviceHost *host, const DevDesc *dd, Error *err);
Device *debug_exit_create(const DeviceHost *host, const DevDesc *dd, Error *err);
Device *ib700_create(const DeviceHost *host, const DevDesc *dd, Error *err);
Device *ioapic_create(const DeviceHost *host, const DevDesc *dd, Error *err);
Device *i8259_create(const DeviceHost *host, const DevDesc *dd, Error *err);
Device *i8254_create(const DeviceHost *host, const DevDesc *dd, Error *err);
Device *mc146818_create(const DeviceHost *host, const DevDesc *dd, Error *err);
Device *acpi_pm_create(const DeviceHost *host, const DevDesc *dd, Error *err);
Device *reset_control_create(const DeviceHost *host, const DevDesc *dd, Error *err);

/* DeviceOps.destroy of a device with nothing to release but itself. */
void device_free(Device *d);

/* A device whose state is one StateField table over its struct: its checkpoint section, named
 * after its path. */
void device_save_fields(Device *d, Blob *b, uint32_t version, const StateField *f, size_t n);
bool device_load_fields(Device *d, BlobReader *r, uint32_t version, const StateField *f, size_t n);

/* A node with several `reg` windows is one device: the machine makes the first window's, and for
 * window k > 0 a window device that hands each access on with offset k << DEV_WINDOW_SHIFT | off
 * (an 8259A pair and its ELCR, the PIT and port 0x61). */
#define DEV_WINDOW_SHIFT 16
Device *device_window(Device *owner, unsigned k, const DevDesc *dd);

#endif
