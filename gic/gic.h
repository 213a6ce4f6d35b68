/* gic.h — the Arm Generic Interrupt Controller: GICv3 and GICv2, as QEMU's virt board wires them.
 *
 * @see Arm IHI 0069H "GIC architecture specification, GICv3 and GICv4" (GICv3) and Arm IHI 0048B
 *      "ARM Generic Interrupt Controller Architecture Specification, v2" (GICv2).
 *
 * One Gic is the whole controller: the distributor (GICD, shared), and per CPU the
 * redistributor (GICv3 GICR: RD and SGI frames) or the banked private interrupts (GICv2), and
 * the CPU interface: the ICC_*_EL1 system registers (GICv3, single security state: DS = 1 and
 * affinity routing always on) or the memory-mapped GICC page (GICv2).  The board's tree chooses
 * the version by `compatible` (sim/intc.c creates it).
 *
 * Interrupt lines (base/irq.h): the GIC is a controller.  Its inputs are one line per PPI per CPU
 * (the generic timers, the PMU) and one per SPI (devices); its outputs are each CPU's IRQ and
 * FIQ pins, kept at "the CPU interface's highest-priority pending interrupt can be signalled"
 * (priority below PMR, group priority below the running priority, group enabled).  GICv3
 * signals Group 0 as FIQ and Group 1 as IRQ; GICv2 signals both as IRQ unless GICC_CTLR.FIQEn.
 *
 * Model choices (each a value the architecture allows): 288 INTIDs (16 SGIs, 16 PPIs, 256
 * SPIs, QEMU virt's number); 5 bits of priority (32 preemption levels: the lowest three bits of
 * every priority field are RAZ/WI); no LPIs, no ITS, no 1-of-N SPI routing on GICv3
 * (GICD_TYPER.No1N = 1); SGIs between CPUs arrive when the target's clock reaches the sender's
 * send time, never earlier.  Every register access is a `gic-read`/`gic-write` trace event with
 * the value (old and new for writes); misuse is a `diag` with the architecture's behaviour.
 */
#ifndef PMUSIM_GIC_H
#define PMUSIM_GIC_H

#include "base/clock.h"
#include "base/common.h"
#include "base/cpuport.h"
#include "base/irq.h"
#include "base/trace.h"

typedef struct Blob Blob;
typedef struct BlobReader BlobReader;

#define GIC_MAX_CPUS 16
#define GIC_V2_MAX_CPUS 8           /* GICv2: ITARGETSR has 8 bits (IHI 0048B 4.3.12) */
#define GIC_NR_IRQS 288             /* INTIDs 0..287 */
#define GIC_SGIS 16                 /* INTIDs 0..15 */
#define GIC_PRIV 32                 /* SGIs and PPIs (banked per CPU) */
#define GIC_NR_SPIS (GIC_NR_IRQS - GIC_PRIV)
#define GIC_INTID_SPURIOUS 1023
#define GIC_PRIO_BITS 5
#define GIC_PRIO_MASK 0xf8u         /* the implemented bits of an 8-bit priority field */
#define GIC_PRIO_IDLE 0xffu         /* the running priority with nothing active */
#define GIC_SGI_QUEUE 64

/* The PPIs QEMU virt wires (INTID = PPI + 16; hw/arm/virt.h): the generic timers and the PMU. */
enum { GIC_PPI_PMU = 23, GIC_PPI_VTIMER = 27, GIC_PPI_PTIMER = 30 };

typedef enum GicVersion { GIC_V2 = 2, GIC_V3 = 3 } GicVersion;

/* The MMIO windows: GICv3 GICD and GICR; GICv2 GICD and GICC. */
typedef enum GicRegion { GIC_REGION_DIST, GIC_REGION_REDIST, GIC_REGION_CPUIF } GicRegion;

/* One interrupt's state (IHI 0069H 4.1.2 "Interrupt states"). */
typedef struct GicIrq {
    uint8_t prio;
    uint8_t flags;                  /* GIRQ_* (gic.c) */
} GicIrq;

typedef struct Gic Gic;

typedef struct GicCpu {
    Gic *gic;                       /* the controller, and this CPU's number in it */
    int index;
    const CpuPort *port;            /* NULL until the CPU is connected */
    IrqLine irq, fiq;               /* outputs: the CPU's pins */
    GicIrq priv[GIC_PRIV];          /* its SGIs and PPIs */
    uint8_t sgi_src[GIC_SGIS];      /* GICv2: the CPUs whose SGI n is pending here (bit = CPU) */
    uint8_t act_src[GIC_SGIS];      /* GICv2: the source of an active SGI */
    uint32_t waker;                 /* GICR_WAKER */
    /* the CPU interface */
    uint32_t ctlr;                  /* ICC_CTLR_EL1 (CBPR, EOImode, PMHE) or GICC_CTLR */
    uint8_t pmr, bpr0, bpr1;
    bool grpen0, grpen1;            /* ICC_IGRPEN0/1_EL1 (GICv2: GICC_CTLR.EnableGrp0/1) */
    uint32_t apr[2];                /* ICC_AP0R0/AP1R0: bit n = group priority n << 3 is active */
    /* SGIs sent to this CPU at a time its clock has not reached (the sender ran first) */
    uint32_t nsgi;
    uint64_t sgi_at[GIC_SGI_QUEUE];
    uint8_t sgi_id[GIC_SGI_QUEUE], sgi_from[GIC_SGI_QUEUE];
    Event sgi_ev;
} GicCpu;

struct Gic {
    char node[128];                 /* the tree node it was made from */
    GicVersion version;
    int ncpus;
    Trace *trace;
    uint32_t ctlr;                  /* GICD_CTLR */
    GicIrq spi[GIC_NR_SPIS];
    uint64_t irouter[GIC_NR_SPIS];  /* GICv3 GICD_IROUTER<n> */
    uint8_t itargets[GIC_NR_SPIS];  /* GICv2 GICD_ITARGETSR<n> */
    GicCpu cpu[GIC_MAX_CPUS];
};

void gic_init(Gic *g, GicVersion v, int ncpus, Trace *trace);
/* CPU n's port and pins; its affinity (MPIDR) is port->hwid.  Call once per CPU. */
void gic_connect_cpu(Gic *g, int n, const CpuPort *port, IrqLine irq, IrqLine fiq);
/* Input lines: PPI `intid` (16..31) of CPU n, and SPI `intid` (32..287); levels. */
IrqLine gic_ppi_line(Gic *g, int n, unsigned intid);
IrqLine gic_spi_line(Gic *g, unsigned intid);

/* The window sizes a region needs (GICv3 GICR: one 128 KiB frame pair per CPU). */
uint64_t gic_region_size(GicVersion v, GicRegion r, int ncpus);
/* An MMIO access by CPU n from the instruction at pc, at offset `off` of region r. */
uint64_t gic_mmio_read(Gic *g, GicRegion r, int n, uint64_t pc, uint64_t off, unsigned size);
void gic_mmio_write(Gic *g, GicRegion r, int n, uint64_t pc, uint64_t off, unsigned size, uint64_t val);
uint64_t gic_mmio_peek(Gic *g, GicRegion r, int n, uint64_t off, unsigned size);

/* GICv3's CPU interface: is (op0, op1, crn, crm, op2) one of the ICC_*_EL1 registers, and an
 * access to it by CPU n at pc (false: UNDEFINED). */
bool gic_icc_owns(unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2);
bool gic_icc_read(Gic *g, int n, uint64_t pc, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2,
                  uint64_t *val);
bool gic_icc_write(Gic *g, int n, uint64_t pc, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2,
                   uint64_t val);

/* Would that access be allowed (no side effects): the register exists and is not read-only for
 * a write or write-only for a read. */
bool gic_icc_access_ok(const Gic *g, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2, bool write);

void gic_save(const Gic *g, Blob *b);
bool gic_load(Gic *g, BlobReader *r);

/* gic.c's core, shared by the register front ends (gic_regs.c, gic_cpuif.c). */
/* Drive CPU n's pins from its interface's state; gic_redrive only the FIQ or the IRQ pin (the
 * one the CPU consumed by taking it). */
void gic_update_cpu(Gic *g, int n);
void gic_redrive(Gic *g, int n, bool fiq);

GicIrq *gic_irq(Gic *g, int n, unsigned intid);
bool gic_pending(const GicIrq *q);
void gic_update(Gic *g);
void gic_set_pending(Gic *g, int n, unsigned intid, bool on);
void gic_send_sgi(Gic *g, int from, uint64_t pc, unsigned intid, uint32_t targets, bool group1);
/* Trace helpers: a register read or write by CPU n. */
void gic_trace_read(Gic *g, int n, uint64_t pc, const char *reg, uint64_t val);
void gic_trace_write(Gic *g, int n, uint64_t pc, const char *reg, uint64_t old, uint64_t val);
void gic_diag(Gic *g, int n, uint64_t pc, const char *what, const char *fmt, ...) PMUSIM_PRINTF(5, 6);
/* The CPU interface's acknowledge, end of interrupt, deactivate (shared by GICv3 and GICv2). */
unsigned gic_cpu_ack(Gic *g, int n, uint64_t pc, bool group1);
void gic_cpu_eoi(Gic *g, int n, uint64_t pc, unsigned intid, bool group1);
void gic_cpu_dir(Gic *g, int n, uint64_t pc, unsigned intid);
unsigned gic_cpu_hppi(Gic *g, int n, bool *group1);
uint8_t gic_running_prio(const GicCpu *gc);
/* GICv2's memory-mapped CPU interface (gic_cpuif.c). */
uint64_t gic_cpuif_mmio_read(Gic *g, int n, uint64_t pc, uint64_t off, unsigned size);
void gic_cpuif_mmio_write(Gic *g, int n, uint64_t pc, uint64_t off, unsigned size, uint64_t val);

#endif
