/* devices.c — the table of device models by compatible string. */
#include "sim/devices.h"

#include <string.h>

#include "cpu/x86_64.h"
#include "sim/dev/acpi_pm.h"

static const struct {
    const char *compatible;
    DeviceCreateFn create;
} device_table[] = {
    { "ns16550a", uart16550_create },
    { "ns16550", uart16550_create },
    { "arm,pl011", pl011_create },
    { "pmusim,isa-debug-exit", debug_exit_create },
    { "pmusim,ib700", ib700_create },
    { ACPI_PM_COMPATIBLE, acpi_pm_create },
    { RESET_CONTROL_COMPATIBLE, reset_control_create },
    { "intel,ce4100-lapic", vcpu_x86_lapic_dev_create },
    { "intel,ce4100-ioapic", ioapic_create },
    { "intel,i8259", i8259_create },
    { "intel,8254", i8254_create },
    { "motorola,mc146818", mc146818_create },
};

DeviceCreateFn device_find(const char *compatible)
{
    for (size_t i = 0; i < ARRAY_SIZE(device_table); i++)
        if (!strcmp(device_table[i].compatible, compatible))
            return device_table[i].create;
    return NULL;
}
