/* lapic.h — the x86 local APIC, one per CPU.
 *
 * @see Intel SDM vol. 3A chapter 11 "Advanced Programmable Interrupt Controller (APIC)".
 *
 * xAPIC (MMIO) and x2APIC (MSR) register interfaces.  Each x86 CPU embeds a Lapic (cpu/x86_64.c); the `intel,ce4100-lapic` tree node gives the
 * MMIO page (the IA32_APIC_BASE default 0xFEE00000) and the bus clock the timer counts at.
 * An access from a CPU reaches that CPU's own APIC.  The model keeps the IRR/ISR/TMR vectors,
 * TPR/PPR priority classes, EOI, the software enable in SVR, ESR with its latch-on-write
 * semantics, the seven LVT entries, the timer (one-shot, periodic, TSC-deadline) on the CPU's
 * cycle queue, and ICR IPIs with destination shorthands, physical and flat logical destinations.
 *
 * Interrupt lines (base/irq.h): the APIC is a controller.  Its outputs drive its CPU's pins:
 * `intr` is kept at "the highest IRR vector's priority class is above PPR", `nmi` is pulsed for
 * each NMI; the CPU backend takes interrupts between runs (lapic_take_irq moves the vector from
 * IRR to ISR).  Its inputs are the local sources, one line per LVT entry (lapic_lvt_line): a
 * rising edge fires the entry, as the PMU's overflow does through LVT_PC.  The LINT0/LINT1 pins
 * are level inputs: in ExtINT mode LINT0 is the 8259A's INTR (the CPU's INTR follows it while no
 * APIC vector is deliverable, and taking it is the PIC's interrupt acknowledge, `extint_ack`);
 * in the other modes a rising edge fires the entry.  Interrupt messages from the I/O APIC
 * (lapic_bus_deliver) reach the APICs their destination names; a level-triggered vector sets
 * its TMR bit and its EOI is broadcast back (`eoi_out`, SDM 11.8.5).  INIT and STARTUP IPIs go
 * to the CPU through the bus (LapicBus.init/startup: the x86 backend holds its CPUs in the
 * wait-for-SIPI state, docs/machines.md).  Sources the board does not have (SMI, thermal and
 * CMCI events, INIT and STARTUP to a CPU that does not start that way) are reported as
 * `unsupported` diagnostics.
 */
#ifndef PMUSIM_LAPIC_H
#define PMUSIM_LAPIC_H

#include "base/clock.h"
#include "base/common.h"
#include "base/cpuport.h"
#include "base/irq.h"

typedef struct Blob Blob;
typedef struct BlobReader BlobReader;

enum LvtIndex { LVT_CMCI, LVT_TIMER, LVT_THERMAL, LVT_PC, LVT_LINT0, LVT_LINT1, LVT_ERROR, LVT_COUNT };

/* LVT and ICR fields. */
#define APIC_VECTOR_MASK 0xffu
#define APIC_DM_MASK 0x700u
#define APIC_DM_FIXED 0x000u
#define APIC_DM_LOWEST 0x100u
#define APIC_DM_SMI 0x200u
#define APIC_DM_NMI 0x400u
#define APIC_DM_INIT 0x500u
#define APIC_DM_STARTUP 0x600u
#define APIC_DM_EXTINT 0x700u
#define APIC_SEND_PENDING (1u << 12)
#define APIC_LEVEL_ASSERT (1u << 14)
#define APIC_TRIGGER_LEVEL (1u << 15)
#define APIC_LVT_MASKED (1u << 16)
#define APIC_TIMER_MODE_MASK (3u << 17)
#define APIC_TIMER_PERIODIC (1u << 17)
#define APIC_TIMER_TSC_DEADLINE (2u << 17)

#define APIC_DEFAULT_BASE 0xfee00000ull

#define LAPIC_IPI_QUEUE 32

typedef struct Lapic Lapic;

/* The APIC bus: how an IPI reaches the other local APICs (the x86 backend provides it). */
typedef struct LapicBus {
    void *opaque;
    int (*count)(void *opaque);
    Lapic *(*peer)(void *opaque, int i);
    /* INIT and STARTUP IPIs act on the target CPU, not its APIC (SDM vol. 3A §11.6.1, §9.4):
     * an INIT puts it in the wait-for-SIPI state, a STARTUP in that state starts it at
     * vector << 12 in real mode.  `at` is the sender's time.  False: the target's CPU does not
     * start this way (the boot CPU, a spin-table CPU). */
    bool (*init)(void *opaque, Lapic *t, uint64_t at);
    bool (*startup)(void *opaque, Lapic *t, unsigned vector, uint64_t at);
} LapicBus;

struct Lapic {
    const CpuPort *cpu;
    LapicBus bus;
    IrqLine intr, nmi;              /* outputs: the CPU's INTR and NMI pins */
    bool present;                   /* the board has a LAPIC node */
    uint64_t bus_hz;                /* the timer's input clock */
    const uint64_t *tsc_offset;     /* IA32_TSC = cycles + *tsc_offset (TSC-deadline mode) */

    bool x2apic;                    /* x2APIC mode (IA32_APIC_BASE.EXTD): MSRs 0x800-0x8ff */
    uint32_t id, tpr, ldr, dfr, svr;
    uint32_t esr, esr_pending;      /* ESR: latched on write from the errors seen since */
    uint32_t icr_lo, icr_hi;
    uint32_t lvt[LVT_COUNT];
    uint32_t irr[8], isr[8], tmr[8];

    uint32_t timer_icr, timer_dcr;
    uint32_t timer_start;           /* the count at timer_base (the initial count) */
    uint64_t timer_base;            /* cycle at which the count was timer_start */
    bool timer_armed;               /* one-shot/periodic counting (not yet expired) */
    uint64_t tsc_deadline;
    Event timer_ev;

    /* IPIs in flight: sent at a cycle this CPU has not reached yet (the sender ran first in
     * the round); each arrives when this CPU's clock reaches the sender's send time. */
    uint64_t ipi_at[LAPIC_IPI_QUEUE];
    uint8_t ipi_vec[LAPIC_IPI_QUEUE];           /* vector, or 0 for an NMI */
    uint32_t nipi;
    Event ipi_ev;

    /* The PC's interrupt hardware, when the board has it (the machine connects it). */
    bool lint[2];                   /* the LINT0 and LINT1 pins' levels */
    bool virtual_wire;              /* the firmware's virtual wire mode on this (the boot) CPU */
    int (*extint_ack)(void *opaque);    /* ExtINT: the 8259A's interrupt acknowledge -> the vector */
    void *extint_opaque;
    EoiSink eoi_out;                /* the EOI of a level-triggered vector, to the I/O APICs */
};

void lapic_init(Lapic *l, const CpuPort *c, LapicBus bus, IrqLine intr, IrqLine nmi, uint64_t bus_hz,
                const uint64_t *tsc_offset);
void lapic_reset(Lapic *l);

/* A 32-bit register access at offset `off` of the page by the instruction at pc. */
uint32_t lapic_read(Lapic *l, uint64_t pc, uint64_t off, unsigned size);
void lapic_write(Lapic *l, uint64_t pc, uint64_t off, unsigned size, uint32_t val);

/* x2APIC mode: the registers as MSRs 0x800 + offset / 16 (SDM 11.12).  Outside x2APIC mode, or
 * for a register x2APIC does not have, an access #GPs (false); as does a write of a read-only
 * register, a read of a write-only one, a non-zero EOI or reserved bits. */
bool lapic_x2apic_read(Lapic *l, uint32_t msr, uint64_t *v, uint64_t pc);
bool lapic_x2apic_write(Lapic *l, uint32_t msr, uint64_t v, uint64_t pc);
/* Switch between xAPIC and x2APIC mode (IA32_APIC_BASE.EXTD); false for x2APIC -> xAPIC, which
 * only a disable (lapic_reset) does: the backend keeps the transitions of SDM 11.12.5. */
bool lapic_set_x2apic(Lapic *l, bool on);
const char *lapic_x2apic_msr_name(uint32_t msr);

/* IA32_TSC_DEADLINE (MSR 0x6E0). */
uint64_t lapic_tsc_deadline(const Lapic *l);
void lapic_set_tsc_deadline(Lapic *l, uint64_t deadline);

/* A local interrupt source fires through its LVT entry (the PMU's overflow: LVT_PC).  Returns
 * false when the entry is masked (the interrupt is lost, as on hardware). */
bool lapic_fire_lvt(Lapic *l, unsigned lvt, uint64_t pc);
/* The input line of an LVT entry: a rising edge fires it at the CPU's current instruction;
 * the line reports whether the interrupt was delivered. */
IrqLine lapic_lvt_line(Lapic *l, unsigned lvt);
/* Accept a fixed-mode vector from an IPI or an LVT entry. */
void lapic_accept(Lapic *l, unsigned vector);
/* An interrupt message (the I/O APIC's) to every APIC on l's bus that its destination names:
 * fixed, lowest priority (to the lowest-priority target, the lowest APIC ID on a tie), NMI;
 * other modes are reported `unsupported`. */
void lapic_bus_deliver(Lapic *l, const IrqMsg *m);
/* The firmware's virtual wire mode, as a PC BIOS leaves the boot CPU's APIC (MultiProcessor
 * Specification 1.4 §3.6.2.2): LINT0 ExtINT, LINT1 NMI, unmasked, now and after every reset. */
void lapic_set_virtual_wire(Lapic *l);
/* The vector to take now (IRR -> ISR, else the 8259A's through an ExtINT LINT0), or -1 when
 * none is deliverable. */
int lapic_take_irq(Lapic *l);

const char *lapic_reg_name(uint64_t off);

void lapic_save(const Lapic *l, Blob *b);
bool lapic_load(Lapic *l, BlobReader *r);

#endif
