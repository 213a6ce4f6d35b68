/* acpi_pm.c — the ACPI power-management block of the pc board: PM1a event and control
 * registers and the PM timer, the fixed hardware the FADT describes (sim/acpi.c), at QEMU's
 * PIIX4 PM offsets (sim/dev/acpi_pm.h; ACPI 6.4 §4.8 "ACPI Hardware Features").
 *
 * Ports (offsets from the node's reg, 0x600 on the board; any width 1, 2 or 4 at any offset:
 * each byte is its register's byte):
 *   0x00 PM1_STS   bit 0 TMR_STS: set when the timer's bit 31 changed since it was last cleared
 *                  (§4.8.3.1.1 for a 32-bit timer); write 1 to clear.  The other status bits
 *                  (power button, RTC, wake) have no source here and read 0.
 *   0x02 PM1_EN    TMR_EN (0), GBL_EN (5), PWRBTN_EN (8), RTC_EN (10): kept, read back.  No SCI
 *                  is raised (the board has no interrupt line for it yet: docs/machines.md).
 *   0x04 PM1_CNT   bit 0 SCI_EN reads 1: the board is always in ACPI mode (the FADT's SMI_CMD is
 *                  0, for which §4.8.3.2.1 lets the bit be hardwired); BM_RLD (1) and SLP_TYP
 *                  (12:10) kept; GBL_RLS (2) and SLP_EN (13) are write-only and read 0.  Writing
 *                  SLP_EN with SLP_TYP = ACPI_SLP_TYP_S5 powers the machine off: the run ends
 *                  with status 0, reason `acpi-poweroff`, at that OUT.  Another SLP_TYP is a
 *                  sleep state the DSDT does not offer: a diagnostic, nothing else.
 *   0x06           reserved, reads 0
 *   0x08 PM_TMR    read-only, 32 bits: floor(cycles * 3579545 / cpu_hz) mod 2^32 at the reading
 *                  instruction (exact integer arithmetic: no drift), counting from power-on
 *   0x0c-          reserved, read 0
 */
#include <string.h>

#include "base/state.h"
#include "sim/dev/acpi_pm.h"
#include "sim/dev/device.h"

enum {
    PM1_TMR_STS = 1u << 0,
    PM1_EN_MASK = (1u << 0) | (1u << 5) | (1u << 8) | (1u << 10),   /* TMR_EN GBL_EN PWRBTN_EN RTC_EN */
    PM1_SCI_EN = 1u << 0,
    PM1_CNT_KEEP = (1u << 1) | (7u << 10),                          /* BM_RLD, SLP_TYP */
    PM1_SLP_TYP_SHIFT = 10,
    PM1_SLP_EN = 1u << 13,
    TMR_CARRY_SHIFT = 31,                                           /* TMR_STS follows bit 31 */
};
#define PM_REGS_BYTES 16u

typedef struct AcpiPm {
    Device d;
    uint16_t en, cnt;
    uint64_t tmr_cleared;           /* the tick count when TMR_STS was last cleared */
} AcpiPm;

/* Ticks of the PM timer since power-on at `cycles` of a clock of cpu_hz. */
static uint64_t pm_ticks(const DeviceHost *h, uint64_t cycles)
{
    return (uint64_t)((unsigned __int128)cycles * ACPI_PM_TIMER_HZ / h->cpu_hz);
}

static uint64_t ticks_at(AcpiPm *p, Cpu *c)
{
    const DeviceHost *h = p->d.host;
    return pm_ticks(h, c ? h->now(h->opaque, c) : h->cpu_cycles(h->opaque, 0));
}

/* The block's bytes as a read at tick count t sees them. */
static void pm_regs(const AcpiPm *p, uint64_t t, uint8_t r[PM_REGS_BYTES])
{
    memset(r, 0, PM_REGS_BYTES);
    unsigned sts = (t >> TMR_CARRY_SHIFT) != (p->tmr_cleared >> TMR_CARRY_SHIFT) ? PM1_TMR_STS : 0;
    store_le(r + ACPI_PM_EVT_OFF, 2, sts);
    store_le(r + ACPI_PM_EVT_OFF + 2, 2, p->en);
    store_le(r + ACPI_PM_CNT_OFF, 2, (p->cnt & PM1_CNT_KEEP) | PM1_SCI_EN);
    store_le(r + ACPI_PM_TMR_OFF, 4, (uint32_t)t);
}

static uint64_t pm_read_at(AcpiPm *p, uint64_t t, uint64_t off, unsigned size)
{
    uint8_t r[PM_REGS_BYTES];
    pm_regs(p, t, r);
    uint64_t v = 0;
    for (unsigned i = 0; i < size; i++)
        if (off + i < PM_REGS_BYTES)
            v |= (uint64_t)r[off + i] << (8 * i);
    return v;
}

static uint64_t pm_read(Device *d, Cpu *c, uint64_t off, unsigned size)
{
    AcpiPm *p = (AcpiPm *)d;
    return pm_read_at(p, ticks_at(p, c), off, size);
}

static uint64_t pm_peek(Device *d, uint64_t off, unsigned size)
{
    AcpiPm *p = (AcpiPm *)d;
    return pm_read_at(p, ticks_at(p, NULL), off, size);
}

/* SLP_EN was written with SLP_TYP = typ (ACPI 6.4 chapter 16, "Waking and Sleeping"). */
static void pm_sleep(AcpiPm *p, Cpu *c, unsigned typ)
{
    const DeviceHost *h = p->d.host;
    if (typ == ACPI_SLP_TYP_S5) {
        h->exit(h->opaque, c, 0, "acpi-poweroff");
        return;
    }
    h->diag(h->opaque, c, "acpi-sleep", "%s: PM1_CNT SLP_EN with SLP_TYP %u: only S5 (soft off, SLP_TYP %u) is "
            "modelled; ignored", p->d.name, typ, ACPI_SLP_TYP_S5);
}

/* One byte of a write, at offset `off` of the block; *slp set when it wrote SLP_EN. */
static void pm_write_byte(AcpiPm *p, Cpu *c, uint64_t off, uint8_t b, bool *slp)
{
    unsigned shift = 8 * (off & 1);
    uint16_t mask = (uint16_t)(0xffu << shift), val = (uint16_t)(b << shift);
    if (off == ACPI_PM_EVT_OFF && (b & PM1_TMR_STS))
        p->tmr_cleared = ticks_at(p, c);
    else if (off - (ACPI_PM_EVT_OFF + 2) < 2)
        p->en = (uint16_t)(((p->en & ~mask) | val) & PM1_EN_MASK);
    else if (off - ACPI_PM_CNT_OFF < 2) {
        p->cnt = (uint16_t)(((p->cnt & ~mask) | val) & PM1_CNT_KEEP);
        *slp |= (val & PM1_SLP_EN) != 0;
    }
}

static void pm_write(Device *d, Cpu *c, uint64_t off, unsigned size, uint64_t val)
{
    AcpiPm *p = (AcpiPm *)d;
    bool slp = false;
    for (unsigned i = 0; i < size; i++)
        pm_write_byte(p, c, off + i, (uint8_t)(val >> (8 * i)), &slp);
    if (slp)
        pm_sleep(p, c, (p->cnt >> PM1_SLP_TYP_SHIFT) & 7u);
}

/* Raise when the saved state changes (base/state.h). */
#define ACPI_PM_STATE_VERSION 1u

static const StateField pm_fields[] = {
    STATE_UPTO(AcpiPm, en, PM1_EN_MASK), STATE_UPTO(AcpiPm, cnt, PM1_CNT_KEEP), STATE_FIELD(AcpiPm, tmr_cleared),
};

static void pm_save(Device *d, Blob *b)
{
    device_save_fields(d, b, ACPI_PM_STATE_VERSION, pm_fields, ARRAY_SIZE(pm_fields));
}

static bool pm_load(Device *d, BlobReader *r)
{
    return device_load_fields(d, r, ACPI_PM_STATE_VERSION, pm_fields, ARRAY_SIZE(pm_fields));
}

static const DeviceOps acpi_pm_ops = {
    .type = ACPI_PM_COMPATIBLE, .read = pm_read, .write = pm_write, .peek = pm_peek, .save = pm_save, .load = pm_load,
};

Device *acpi_pm_create(const DeviceHost *host, const DevDesc *dd, Error *err)
{
    if (dd->size < ACPI_PM_MIN_SIZE) {
        err_set(err, "node %s: property reg: the ACPI PM block uses %u ports (PM1 event, control, timer)", dd->path,
                ACPI_PM_MIN_SIZE);
        return NULL;
    }
    return device_alloc(sizeof(AcpiPm), &acpi_pm_ops, host, dd);
}
