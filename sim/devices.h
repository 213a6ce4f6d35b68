/* devices.h — the device models the machine knows, by compatible string. */
#ifndef PMUSIM_DEVICES_H
#define PMUSIM_DEVICES_H

#include "sim/dev/device.h"

/* The constructor for a compatible string, or NULL. */
DeviceCreateFn device_find(const char *compatible);

#endif
