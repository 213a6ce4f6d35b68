/* checkpoint.h — saving and restoring the whole machine state.
 *
 * File format, version 5 (all integers little-endian):
 *
 *   offset 0   "PMUSIMCK"
 *          8   u32 format version (5)
 *         12   u32 arch
 *         16   u64 fingerprint: the effective device tree, the guest image and the quantum, so
 *              a checkpoint is only restored onto the machine it was taken from
 *         24   u64 length of the whole file, CRC included
 *         32   u32 options that carry state: 1 --check-patching, 2 --icache=strict, 4 --samples,
 *              8 console input (--console-in, --console-input, --replay)
 *         36   sections (below), in a fixed order, then
 *   length-4   u32 CRC-32 (IEEE 802.3, as zlib and gzip) of every byte before it
 *
 * A section is one model's state under the model's name and the version of its state
 * (base/state.h):
 *
 *     u32 name length | name | u32 version | u64 payload length | payload
 *
 * and a model that holds another holds the other's section in its payload.  In order:
 *   "machine"          clock, sequence counter, console offset, CPU count
 *   "cpu"              per CPU: counts and state, stop reason, last retired PC, then the
 *                      backend's section ("x86_64", "arm64", "ppc32": registers, events, and
 *                      in it "lapic", "x86-pmu" / "armv8-pmu" / "mpc7450-pmu", in which "pmc")
 *   device path        per device with state, named after its tree path ("/isa/serial@i3f8")
 *   "code"             the code ranges
 *   "memory"           every RAM block, all-zero pages elided
 *   "console-input"    with console input: the input position and the digest of the bytes
 *                      taken (sim/conlog.h), for --replay and --record from here
 *   "patchcheck"       with --check-patching: the patch validator
 *   "icache"           with --icache=strict: the strict I-cache model
 *   "windows", "profile"  with --samples: each CPU's sampling-window flag, the profile
 *   "end"              empty
 *
 * Versions (QEMU's vmstate version_id): each model has one named constant for its state
 * version beside its StateField table (LAPIC_STATE_VERSION ...), raised when it saves a field
 * more; the field is marked with the version that added it (STATE_FIELD_V).  A section of an
 * older version loads: the fields it does not have keep the value the freshly created machine
 * gave them (a restore loads into a machine just built from the tree and image, before any
 * boot).  A section of a newer version than this pmusim's model is refused, naming the offset
 * of its version, the section and both versions.  The format version changes only with the
 * framing (header, section header, order).
 *
 * Restoring reads a regular file no larger than the machine's RAM allows (plus CK_MAX_STATE),
 * checks magic, format version, declared length, CRC and fingerprint in that order, then every
 * section (its name, its version, that it is used up exactly), and refuses the file at the
 * first failure with its offset and the reason.  Other format versions are refused.  State
 * the engine rebuilds from guest memory (x86 FS and GS: the engine loads their descriptors
 * from the GDT or LDT) is loaded last, from the restored RAM, and refused when the engine
 * could not read it without a fault (cpu/x86_64.c, x86_load_finish).
 *
 * Options: the tools' state is in the file only when the saving run had them.  --icache must
 * be the same at save and restore (it changes what the guest executes); --check-patching (and
 * --strict) and --samples may be dropped at restore (their sections are skipped, and the run
 * is exactly the uninterrupted run without them) but not added (their state before the
 * checkpoint is unknown).  Everything else (--trace, --console, --stats, --guest-trace,
 * --max-*, --icount-check) is free.  Console input may change at restore (a file, a live
 * input, a --replay log) as long as it reaches the position; a --replay must be the log of
 * the checkpoint's run up to there (the digest), and a --record log started at a restore
 * begins at that position (sim/conlog.h).  Derived state (translation caches, decoded blocks, trap
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
/* The same through memory (time travel's snapshots, sim/timetravel.h): the file's bytes into
 * `out` (its old contents replaced, its buffer reused), and a restore from such bytes (`path`
 * names them in messages).  A restore into a machine that has run needs the preparation
 * timetravel.c does first (tt_restore): the loads assume a freshly created machine's queues,
 * code ranges and pins. */
void checkpoint_save_blob(Machine *m, Blob *out);
bool checkpoint_load_blob(Machine *m, const Blob *data, const char *path, Error *err);

#endif
