/* state.h — the serialisation every model's checkpoint state goes through.
 *
 * A Blob is a growing byte buffer written little-endian; a BlobReader reads one back with every
 * read bounded by the bytes left, and remembers the file offset and reason of the first failure
 * so that the caller can name them.  A model describes its plain fields once in a StateField
 * table and the same table saves and restores them.  The checkpoint file around these blobs
 * (sections, header, CRC) is sim/checkpoint.h's.
 */
#ifndef PMUSIM_STATE_H
#define PMUSIM_STATE_H

#include <stddef.h>

#include "base/clock.h"
#include "base/common.h"

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
/* u32 length and the bytes (br_str reads it back). */
void blob_str(Blob *b, const char *s);
/* An event's schedule: queued flag, when, seq (0 and 0 when idle). */
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
#define STATE_ARRAY_UPTO(T, f, max) { #f, offsetof(T, f), sizeof(((T *)0)->f[0]), ARRAY_SIZE(((T *)0)->f), (max) }
#define STATE_ARRAY(T, f) STATE_ARRAY_UPTO(T, f, UINT64_MAX)

void blob_fields(Blob *b, const void *obj, const StateField *f, size_t n);
/* The bytes blob_fields writes for such a table. */
size_t blob_fields_size(const StateField *f, size_t n);

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
/* A string saved by blob_str, at most `max` bytes (longer: invalid, `what`); always a new
 * NUL-terminated string the caller frees (empty once r is invalid). */
char *br_str(BlobReader *r, size_t max, const char *what);
/* A u32 count of elements of at least `min_size` bytes each that the rest of the blob must
 * hold, and at most `max`; else invalid (`what`) and 0.  Checked before anything is allocated. */
uint32_t br_count(BlobReader *r, size_t min_size, uint32_t max, const char *what);
/* Restore what blob_fields saved; false (and r->ok false) on a short or invalid blob. */
bool br_fields(BlobReader *r, void *obj, const StateField *f, size_t n);
/* Re-insert an event saved by blob_event into queue q (if it was queued). */
void br_event(BlobReader *r, Event *ev, EventQueue *q);

/* CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) of n bytes, continuing from crc (0 to
 * start): the same value zlib's crc32() and gzip's trailer give. */
uint32_t crc32_ieee(uint32_t crc, const void *p, size_t n);

#endif
