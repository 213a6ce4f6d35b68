/* checkpoint.h — saving and restoring the whole machine state.
 *
 * File format (all integers little-endian):
 *   "PMUSIMCK" | u32 version | u32 arch | u64 fingerprint | sections...
 * A section is u32 tag | u64 length | payload; sections come in a fixed order: machine (clock,
 * console offset, exit state), each CPU (architectural registers through CpuOps.save, counts,
 * events), each device (DeviceOps.save), then guest memory (every RAM block, with all-zero pages
 * elided).  The fingerprint hashes the effective device tree and the guest image, so a
 * checkpoint is only restored onto the machine it was taken from.  Derived state (translation
 * caches, decoded blocks, trap sites) is not saved: it is rebuilt, identically, on demand.
 */
#ifndef PMUSIM_CHECKPOINT_H
#define PMUSIM_CHECKPOINT_H

#include "sim/clock.h"
#include "sim/common.h"

typedef struct Machine Machine;

typedef struct Blob {
    uint8_t *data;
    size_t len, cap;
} Blob;

void blob_init(Blob *b);
void blob_free(Blob *b);
void blob_put(Blob *b, const void *p, size_t n);
void blob_u8(Blob *b, uint8_t v);
void blob_u32(Blob *b, uint32_t v);
void blob_u64(Blob *b, uint64_t v);
/* An event's schedule: queued flag, when, seq. */
void blob_event(Blob *b, const Event *ev);

typedef struct BlobReader {
    const uint8_t *p;
    size_t len, off;
    bool ok;
    const char *what;               /* for the error message */
} BlobReader;

void br_init(BlobReader *r, const void *p, size_t len, const char *what);
bool br_get(BlobReader *r, void *p, size_t n);
uint8_t br_u8(BlobReader *r);
uint32_t br_u32(BlobReader *r);
uint64_t br_u64(BlobReader *r);
/* Re-insert an event saved by blob_event into queue q (if it was queued). */
void br_event(BlobReader *r, Event *ev, EventQueue *q);

bool checkpoint_save(Machine *m, const char *path, Error *err);
bool checkpoint_restore(Machine *m, const char *path, Error *err);

#endif
