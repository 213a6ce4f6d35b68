/* intc.c — the board's interrupt controller: the GIC its tree describes, its windows as devices.
 *
 * The tree's interrupt-controller node chooses the GIC by `compatible` ("arm,gic-v3": GICv3 with
 * the distributor and the redistributor regions in `reg`; "arm,cortex-a15-gic" or "arm,gic-400":
 * GICv2 with the distributor and the CPU interface; Linux's bindings
 * Documentation/devicetree/bindings/interrupt-controller/arm,gic-v3.yaml and arm,gic.yaml).
 * intc_create makes the one Gic (gic/gic.h) before the other devices, and each of the node's
 * `reg` windows as a device whose accesses reach the Gic as the accessing CPU.  The CPUs
 * connect themselves (cpu/arm64.c).
 */
#include "sim/intc.h"

#include <stdio.h>
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/x86_64.h"
#include "gic/gic.h"
#include "sim/dev/pc.h"
#include "sim/fdt.h"

typedef struct GicDevice {
    Device d;
    Gic *gic;
    GicRegion region;
} GicDevice;

GicVersion intc_gic_version(const char *compatible)
{
    if (!strcmp(compatible, "arm,gic-v3"))
        return GIC_V3;
    if (!strcmp(compatible, "arm,cortex-a15-gic") || !strcmp(compatible, "arm,gic-400"))
        return GIC_V2;
    return 0;
}

static GicRegion region_of(GicVersion v, int index)
{
    return index == 0 ? GIC_REGION_DIST : v == GIC_V3 ? GIC_REGION_REDIST : GIC_REGION_CPUIF;
}

static const char *region_name(GicRegion r)
{
    return r == GIC_REGION_DIST ? "distributor" : r == GIC_REGION_REDIST ? "redistributor region" : "CPU interface";
}

/* The node's windows: one per region, each as large as the model's registers. */
static bool check_windows(const MachineDesc *d, const DevDesc *first, GicVersion v, Error *err)
{
    int n = 0;
    for (int i = 0; i < d->ndevs; i++) {
        const DevDesc *dd = &d->devs[i];
        if (strcmp(dd->path, first->path))
            continue;
        GicRegion r = region_of(v, n++);
        uint64_t need = gic_region_size(v, r, d->ncpus);
        if (n > 2)
            return err_set(err, "node %s: property reg: a GICv%d has 2 regions, this node has more", dd->path, v);
        if (dd->size < need)
            return err_set(err, "node %s: property reg: the %s 0x%" PRIx64 "+0x%" PRIx64 " is smaller than the "
                           "0x%" PRIx64 " bytes it needs%s", dd->path, region_name(r), dd->base, dd->size, need,
                           r == GIC_REGION_REDIST ? " (128 KiB per CPU)" : "");
    }
    if (n < 2)
        return err_set(err, "node %s: property reg: a GICv%d needs 2 regions (the distributor and the %s)",
                       first->path, v, v == GIC_V3 ? "redistributors" : "CPU interface");
    return true;
}

/* ------------------------------------------------------------------ the windows */

static GicDevice *gdev(Device *d)
{
    return (GicDevice *)d;
}

static uint64_t gic_dev_read(Device *d, Cpu *c, uint64_t off, unsigned size)
{
    uint64_t pc = vcpu_access_pc(c, ACC_READ, d->base + off, size);
    return gic_mmio_read(gdev(d)->gic, gdev(d)->region, d->host->cpu_index(d->host->opaque, c), pc, off, size);
}

static void gic_dev_write(Device *d, Cpu *c, uint64_t off, unsigned size, uint64_t val)
{
    uint64_t pc = vcpu_access_pc(c, ACC_WRITE, d->base + off, size);
    gic_mmio_write(gdev(d)->gic, gdev(d)->region, d->host->cpu_index(d->host->opaque, c), pc, off, size, val);
}

static uint64_t gic_dev_peek(Device *d, uint64_t off, unsigned size)
{
    return gic_mmio_peek(gdev(d)->gic, gdev(d)->region, 0, off, size);
}

/* The whole controller is saved once, with its distributor's window. */
static void gic_dev_save(Device *d, Blob *b)
{
    gic_save(gdev(d)->gic, b);
}

static bool gic_dev_load(Device *d, BlobReader *r)
{
    return gic_load(gdev(d)->gic, r);
}

static const DeviceOps gic_dist_ops = {
    .type = "gic", .read = gic_dev_read, .write = gic_dev_write, .peek = gic_dev_peek, .save = gic_dev_save,
    .load = gic_dev_load,
};
static const DeviceOps gic_window_ops = {
    .type = "gic", .read = gic_dev_read, .write = gic_dev_write, .peek = gic_dev_peek,
};

static Device *window_create(const DeviceHost *host, const DevDesc *dd, Gic *gic, GicRegion r)
{
    GicDevice *g = device_alloc(sizeof *g, r == GIC_REGION_DIST ? &gic_dist_ops : &gic_window_ops, host, dd);
    g->gic = gic;
    g->region = r;
    return &g->d;
}

/* The node's checks, the Gic and its windows. */
static Gic *make_gic(const MachineDesc *d, const DevDesc *first, GicVersion v, const IntcHost *h, Error *err)
{
    if (d->arch != ARCH_ARM64)
        return err_set(err, "node %s: a GIC needs arm64 CPUs", first->path), NULL;
    if (v == GIC_V2 && d->ncpus > GIC_V2_MAX_CPUS)
        return err_set(err, "node %s: a GICv2 serves at most %d CPUs, the tree has %d", first->path, GIC_V2_MAX_CPUS,
                       d->ncpus), NULL;
    if (!check_windows(d, first, v, err))
        return NULL;
    Gic *g = xcalloc(1, sizeof *g);
    gic_init(g, v, d->ncpus, h->trace);
    int k = 0;
    for (int i = 0; i < d->ndevs; i++)
        if (!strcmp(d->devs[i].path, first->path))
            h->devs[(*h->ndevs)++] = window_create(h->host, &d->devs[i], g, region_of(v, k++));
    return g;
}

bool intc_create(const MachineDesc *d, const IntcHost *h, Gic **gic, Error *err)
{
    *gic = NULL;
    for (int i = 0; i < d->ndevs; i++) {
        GicVersion v = intc_gic_version(d->devs[i].compatible);
        if (!v || (*gic && !strcmp(d->devs[i].path, (*gic)->node)))
            continue;
        if (*gic)
            return err_set(err, "node %s: a second interrupt controller (pmusim models one GIC)", d->devs[i].path);
        if (*h->ndevs + 2 > h->max)
            return err_set(err, "too many devices");
        if (!(*gic = make_gic(d, &d->devs[i], v, h, err)))
            return false;
        snprintf((*gic)->node, sizeof (*gic)->node, "%s", d->devs[i].path);
    }
    return true;
}

/* ------------------------------------------------------------------ the PC's controllers */

enum { DT_IOAPIC_CELLS = 2, PIC_CASCADE = 2, GSI_TIMER = 2, ISA_TIMER = 0 };

/* The ISA IRQ that drives GSI `gsi`, or -1: the identity but for the timer's override (IRQ 0 on
 * GSI 2) and GSI 0, which no ISA line drives (the 8259A's INTR on real boards). */
static int isa_irq_of(unsigned gsi)
{
    if (gsi == GSI_TIMER)
        return ISA_TIMER;
    return gsi == 0 || gsi >= ISA_IRQS ? -1 : (int)gsi;
}

static bool gsi_set(void *opaque, int gsi, bool level)
{
    PcIrq *pc = opaque;
    bool taken = false;
    if (pc->ioapic) {
        IrqLine l = ioapic_input(pc->ioapic, (unsigned)gsi);
        taken |= irq_set(&l, level);
    }
    int irq = isa_irq_of((unsigned)gsi);
    if (pc->pic && irq >= 0) {
        IrqLine l = i8259_input(pc->pic, (unsigned)irq);
        taken |= irq_set(&l, level);
    }
    return taken;
}

static const DevDesc *find_node(const MachineDesc *d, const char *path)
{
    for (int i = 0; i < d->ndevs; i++)
        if (!strcmp(d->devs[i].path, path))
            return &d->devs[i];
    return NULL;
}

/* The GSI entry n of dd's `interrupts` names, or -1 when its parent is not a PC controller; -2
 * when the entry names no input of it. */
static int gsi_of(const MachineDesc *d, const DevDesc *dd, unsigned n)
{
    const DevDesc *parent = n < (unsigned)dd->nirqs ? find_node(d, dd->irq_parent) : NULL;
    if (!parent)
        return -1;
    uint32_t in = dd->irqs[n].cell[0];
    if (!strcmp(parent->compatible, "intel,ce4100-ioapic"))
        return dd->irq_cells == DT_IOAPIC_CELLS && in < IOAPIC_PINS ? (int)in : -2;
    if (!strcmp(parent->compatible, "intel,i8259"))
        return dd->irq_cells == DT_IOAPIC_CELLS && in < ISA_IRQS && in != PIC_CASCADE
                   ? (in == ISA_TIMER ? GSI_TIMER : (int)in) : -2;
    return -1;
}

IrqLine intc_pc_line(PcIrq *pc, const MachineDesc *d, const DevDesc *dd, unsigned n)
{
    int gsi = gsi_of(d, dd, n);
    return gsi < 0 ? irq_line(NULL, NULL, 0) : irq_line(gsi_set, pc, gsi);
}

bool intc_pc_check(const MachineDesc *d, Error *err)
{
    for (int i = 0; i < d->ndevs; i++)
        for (int k = 0; k < d->devs[i].nirqs; k++)
            if (gsi_of(d, &d->devs[i], (unsigned)k) == -2)
                return err_set(err, "node %s: property interrupts: entry %d <%u ...> is not an input of %s (<0..%d "
                               "sense> on the I/O APIC, <0..15 sense> but 2 on the 8259A pair)", d->devs[i].path, k,
                               d->devs[i].irqs[k].cell[0], d->devs[i].irq_parent, IOAPIC_PINS - 1);
    return true;
}

static void send_msg(void *opaque, const IrqMsg *msg)
{
    Cluster *cl = opaque;
    lapic_bus_deliver(vcpu_x86_lapic(cl->cpus[0]), msg);
}

static void eoi_bcast(void *opaque, unsigned vector)
{
    ioapic_eoi(opaque, vector);
}

static int pic_ack(void *opaque)
{
    return i8259_intack(opaque);
}

void intc_pc_connect(PcIrq *pc, Cluster *cl, Device **devs, int ndevs)
{
    for (int i = 0; i < ndevs; i++) {
        if (ioapic_is(devs[i]) && !pc->ioapic)
            pc->ioapic = devs[i];
        if (i8259_is(devs[i]) && !pc->pic)
            pc->pic = devs[i];
    }
    if (pc->ioapic) {
        ioapic_connect(pc->ioapic, (IrqMsgSink){ send_msg, cl });
        for (int i = 0; i < cl->ncpus; i++)
            vcpu_x86_lapic(cl->cpus[i])->eoi_out = (EoiSink){ eoi_bcast, pc->ioapic };
    }
    if (pc->pic) {
        Lapic *bsp = vcpu_x86_lapic(cl->cpus[0]);
        bsp->extint_ack = pic_ack;
        bsp->extint_opaque = pc->pic;
        lapic_set_virtual_wire(bsp);
        i8259_connect(pc->pic, lapic_lvt_line(bsp, LVT_LINT0));
    }
}
