/* virt.h — what the QEMU-virt test images share (guest/virt/README.md): the boot registers,
 * the firmware (PSCI over HVC), device-tree lookups, and checks that print one line each. */
#ifndef GUEST_VIRT_H
#define GUEST_VIRT_H

#include "guest.h"
#include "fdt.h"

/* PSCI 1.0 function ids (Arm DEN 0022D §5.1) and return codes (§5.2.2). */
#define PSCI_VERSION            0x84000000UL
#define PSCI_CPU_OFF            0x84000002UL
#define PSCI_CPU_ON             0xc4000003UL
#define PSCI_AFFINITY_INFO      0xc4000004UL
#define PSCI_MIGRATE_INFO_TYPE  0x84000006UL
#define PSCI_FEATURES           0x8400000aUL
enum { PSCI_SUCCESS = 0, PSCI_NOT_SUPPORTED = -1, PSCI_INVALID_PARAMETERS = -2, PSCI_ALREADY_ON = -4 };
enum { PSCI_AFF_ON = 0, PSCI_AFF_OFF = 1 };

/* x0..x3 at the image's first instruction (head.S). */
extern u64 virt_boot_regs[4];
/* The image's start and end (head.S, the linker script): what its header's image_size says. */
extern const char virt_head[], __image_end[];
/* PSCI CPU_ON's entry for the images' secondaries: sp = the context id, then
 * virt_secondary_main(context id). */
extern const char virt_secondary_entry[];
void virt_secondary_main(u64 context);

/* A firmware call over HVC #0 (SMC Calling Convention): the result as PSCI returns it, a
 * 32-bit signed value. */
s32 virt_psci(u64 fn, u64 a1, u64 a2, u64 a3);

/* One line "<what>: ok" or "<what>: FAIL", counted; virt_done() prints the count and the
 * verdict and returns 0, so that the image powers off either way (SYSTEM_OFF). */
void virt_check(bool ok, const char *fmt, ...) __printf(2, 3);
int virt_done(const char *image);

/* The root's #address-cells and #size-cells (2 and 1 when absent). */
unsigned virt_root_cells(const void *fdt, unsigned *size_cells);
/* A 1- or 2-cell property of a node as a number; false if absent or of another length. */
bool virt_prop_u64(const void *fdt, int node, const char *name, u64 *v);

#endif
