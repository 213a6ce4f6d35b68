/* checkpoint.h — saving and restoring the whole machine state.
 *
 * File format (all integers little-endian):
 *   "PMUSIMCK" | u32 version | u32 arch | u64 fingerprint | sections...
 * A section is u32 tag | u64 length | payload; sections come in a fixed order: machine (clock,
 * console offset, CPU count), each CPU (counts and state, stop reason, then the backend's
 * CpuOps.save: registers, events), each device (name, DeviceOps.save), the code ranges, then
 * guest memory (every RAM block, with all-zero pages elided), then an end tag.  The fingerprint
 * hashes the effective device tree, the guest image and the quantum, so a checkpoint is only
 * restored onto the machine it was taken from.  Derived state (translation caches, decoded
 * blocks, trap sites) is not saved: it is rebuilt, identically, on demand.
 */
#ifndef PMUSIM_CHECKPOINT_H
#define PMUSIM_CHECKPOINT_H

#include <stddef.h>

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

/* The plain state of a model, described once and used both ways (QEMU's VMState idea): each
 * field is an unsigned integer, bool or enum of 1, 2, 4 or 8 bytes, or an array of them, stored
 * little-endian in table order; a restored value above `max` makes the blob invalid.  State
 * that needs code (engine registers, events, strings) stays beside the table in the model's
 * save/load. */
typedef struct StateField {
    const char *name;               /* for the error message */
    uint32_t offset;
    uint8_t size;                   /* bytes per element */
    uint16_t count;                 /* elements */
    uint64_t max;
} StateField;

#define STATE_UPTO(T, f, max) { #f, offsetof(T, f), sizeof(((T *)0)->f), 1, (max) }
#define STATE_FIELD(T, f) STATE_UPTO(T, f, UINT64_MAX)
#define STATE_BOOL(T, f) STATE_UPTO(T, f, 1)
#define STATE_ARRAY(T, f) { #f, offsetof(T, f), sizeof(((T *)0)->f[0]), ARRAY_SIZE(((T *)0)->f), UINT64_MAX }

void blob_fields(Blob *b, const void *obj, const StateField *f, size_t n);

typedef struct BlobReader {
    const uint8_t *p;
    size_t len, off;
    size_t base;                    /* file offset of p[0], for the error message */
    bool ok;
    size_t fail_at;                 /* once !ok: the file offset of the first failure ... */
    const char *bad;                /* ... and what was wrong there ("truncated" or a field) */
} BlobReader;

void br_init(BlobReader *r, const void *p, size_t len, size_t base);
/* Mark the blob invalid at the current position because of `what`; returns false. */
bool br_fail(BlobReader *r, const char *what);
bool br_get(BlobReader *r, void *p, size_t n);
uint8_t br_u8(BlobReader *r);
uint32_t br_u32(BlobReader *r);
uint64_t br_u64(BlobReader *r);
/* Restore what blob_fields saved; false (and r->ok false) on a short or invalid blob. */
bool br_fields(BlobReader *r, void *obj, const StateField *f, size_t n);
/* Re-insert an event saved by blob_event into queue q (if it was queued). */
void br_event(BlobReader *r, Event *ev, EventQueue *q);

bool checkpoint_save(Machine *m, const char *path, Error *err);
bool checkpoint_restore(Machine *m, const char *path, Error *err);

#endif
