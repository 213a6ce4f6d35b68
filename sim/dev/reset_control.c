/* reset_control.c — the PC's reset control register (Intel ICH9 datasheet, "RST_CNT — Reset
 * Control Register", I/O 0xCF9; PIIX3 has the same), the ACPI RESET_REG the FADT names
 * (sim/acpi.c; ACPI 6.4 §4.8.3.6 "Reset Register").
 *
 * Port (offset 0 of the node's reg, 0xCF9 on the board; one byte):
 *   read   the last value written, bits 3:1 (SYS_RST, RST_CPU, FULL_RST); 0 at power-on
 *   write  with RST_CPU (bit 2) set: the machine resets.  pmusim ends the run there, status 0,
 *          reason `system-reset`, as PSCI SYSTEM_RESET does on arm64 (the run is one boot).
 *          Without RST_CPU: the bits are kept (Linux's BOOT_CF9 writes SYS_RST first, then
 *          SYS_RST | RST_CPU: arch/x86/kernel/reboot.c).
 */
#include "sim/dev/acpi_pm.h"
#include "sim/dev/device.h"

enum { RST_KEEP = 0x0e };           /* FULL_RST, RST_CPU, SYS_RST */

typedef struct ResetControl {
    Device d;
    uint8_t val;
} ResetControl;

static uint64_t rc_read(Device *d, Cpu *c, uint64_t off, unsigned size)
{
    return off == 0 ? ((ResetControl *)d)->val : 0;
}

static uint64_t rc_peek(Device *d, uint64_t off, unsigned size)
{
    return rc_read(d, NULL, off, size);
}

static void rc_write(Device *d, Cpu *c, uint64_t off, unsigned size, uint64_t val)
{
    if (off != 0)
        return;
    ((ResetControl *)d)->val = (uint8_t)(val & RST_KEEP);
    if (val & RESET_CF9_RST_CPU)
        d->host->exit(d->host->opaque, c, 0, "system-reset");
}

/* Raise when the saved state changes (base/state.h). */
#define RESET_CONTROL_STATE_VERSION 1u

static const StateField rc_fields[] = { STATE_UPTO(ResetControl, val, RST_KEEP) };

static void rc_save(Device *d, Blob *b)
{
    device_save_fields(d, b, RESET_CONTROL_STATE_VERSION, rc_fields, ARRAY_SIZE(rc_fields));
}

static bool rc_load(Device *d, BlobReader *r)
{
    return device_load_fields(d, r, RESET_CONTROL_STATE_VERSION, rc_fields, ARRAY_SIZE(rc_fields));
}

static const DeviceOps reset_control_ops = {
    .type = RESET_CONTROL_COMPATIBLE, .read = rc_read, .write = rc_write, .peek = rc_peek, .save = rc_save,
    .load = rc_load,
};

Device *reset_control_create(const DeviceHost *host, const DevDesc *dd, Error *err)
{
    return device_alloc(sizeof(ResetControl), &reset_control_ops, host, dd);
}
