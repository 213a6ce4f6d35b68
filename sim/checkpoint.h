/* checkpoint.h — saving and restoring the whole machine state.
 *
 * File format, version 4 (all integers little-endian):
 *
 *   offset 0   "PMUSIMCK"
 *          8   u32 version (4)
 *         12   u32 arch
 *         16   u64 fingerprint: the effective device tree, the guest image and the quantum, so
 *              a checkpoint is only restored onto the machine it was taken from
 *         24   u64 length of the whole file, CRC included
 *         32   u32 options that carry state: 1 --check-patching, 2 --icache=strict, 4 --samples
 *         36   sections, each u32 tag | u64 length | payload, in a fixed order: machine (clock,
 *              console offset, CPU count), each CPU (counts and state, stop reason, last retired
 *              PC, then the backend's CpuOps.save: registers, events), each device (name,
 *              DeviceOps.save), the code ranges, guest memory (every RAM block, all-zero pages
 *              elided), then per option the patch validator, the strict I-cache model and the
 *              profile (each CPU's sampling-window flag, then the profile), then an end tag
 *   length-4   u32 CRC-32 (IEEE 802.3, as zlib and gzip) of every byte before it
 *
 * Restoring reads a regular file no larger than the machine's RAM allows (plus CK_MAX_STATE),
 * checks magic, version, declared length, CRC and fingerprint in that order, then every
 * section, and refuses the file at the first failure with its offset and the reason.  Other
 * versions are refused (the stream is positional: any change of a model's fields changes it).
 * State the engine rebuilds from guest memory (x86 FS and GS: the engine loads their
 * descriptors from the GDT or LDT) is loaded last, from the restored RAM, and refused when the
 * engine could not read it without a fault (cpu/x86_64.c, x86_load_finish).
 *
 * Options: the tools' state is in the file only when the saving run had them.  --icache must
 * be the same at save and restore (it changes what the guest executes); --check-patching (and
 * --strict) and --samples may be dropped at restore (their sections are skipped, and the run
 * is exactly the uninterrupted run without them) but not added (their state before the
 * checkpoint is unknown).  Everything else (--trace, --console, --stats, --guest-trace,
 * --max-*, --icount-check) is free.  Derived state (translation caches, decoded blocks, trap
 * sites) is not saved: it is rebuilt, identically, on demand.
 */
#ifndef PMUSIM_CHECKPOINT_H
#define PMUSIM_CHECKPOINT_H

#include <stddef.h>

#include "base/common.h"
#include "base/state.h"

typedef struct Machine Machine;

bool checkpoint_save(Machine *m, const char *path, Error *err);
bool checkpoint_restore(Machine *m, const char *path, Error *err);

#endif
