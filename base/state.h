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
 * save/load.
 *
 * Versions (QEMU's VMSTATE_*_V): a model's state has one version, a named constant beside its
 * table, raised when a field is added; the field gets `since`, the version that added it (the
 * *_V macros; 1 for the others).  blob_fields writes every field; br_fields reads those the
 * section's saved version has (BlobReader.version) and leaves the others as they are: a
 * checkpoint of an older pmusim restores onto a freshly created machine, whose values they keep. */
typedef struct StateField {
    const char *name;               /* for the error message */
    uint32_t offset;
    uint8_t size;                   /* bytes per element */
    uint16_t count;                 /* elements */
    uint64_t max;
    uint32_t since;                 /* the model's state version that added the field */
} StateField;

#define STATE_UPTO_V(T, f, max, v) { #f, offsetof(T, f), sizeof(((T *)0)->f), 1, (max), (v) }
#define STATE_FIELD_V(T, f, v) STATE_UPTO_V(T, f, UINT64_MAX, v)
#define STATE_BOOL_V(T, f, v) STATE_UPTO_V(T, f, 1, v)
#define STATE_ARRAY_UPTO_V(T, f, max, v) \
    { #f, offsetof(T, f), sizeof(((T *)0)->f[0]), ARRAY_SIZE(((T *)0)->f), (max), (v) }
#define STATE_ARRAY_V(T, f, v) STATE_ARRAY_UPTO_V(T, f, UINT64_MAX, v)
#define STATE_UPTO(T, f, max) STATE_UPTO_V(T, f, max, 1)
#define STATE_FIELD(T, f) STATE_FIELD_V(T, f, 1)
#define STATE_BOOL(T, f) STATE_BOOL_V(T, f, 1)
#define STATE_ARRAY_UPTO(T, f, max) STATE_ARRAY_UPTO_V(T, f, max, 1)
#define STATE_ARRAY(T, f) STATE_ARRAY_V(T, f, 1)

void blob_fields(Blob *b, const void *obj, const StateField *f, size_t n);

/* A section: a model's state under its name and version, so that a reader knows which fields
 * the writer had (sim/checkpoint.h has the file around them):
 *     u32 name length | name | u32 version | u64 payload length | payload
 * A model that holds another writes the other's section inside its own.  blob_begin returns
 * where the length goes, for blob_end. */
size_t blob_begin(Blob *b, const char *name, uint32_t version);
void blob_end(Blob *b, size_t at);

typedef struct BlobReader {
    const uint8_t *p;
    size_t len, off;                /* len: the end of the section being read (br_begin) */
    size_t base;                    /* file offset of p[0], for the error message */
    uint32_t version;               /* that section's saved version (BR_CURRENT outside sections) */
    const char *section;            /* and its name (NULL outside sections) */
    bool ok;
    size_t fail_at;                 /* once !ok: the file offset of the first failure ... */
    const char *bad;                /* ... what was wrong there ("truncated", a field, note) ... */
    const char *fail_in;            /* ... in which section (NULL: outside sections) */
    bool newer;                     /* ... a section newer than this pmusim's model of it */
    char note[160];                 /* a reason with words of its own (bad points here) */
} BlobReader;

/* What this program writes: a reader outside any section reads every field. */
#define BR_CURRENT UINT32_MAX

/* The reader's place outside the section br_begin entered, for br_end. */
typedef struct BrOuter {
    size_t len;
    uint32_t version;
    const char *section;
} BrOuter;

void br_init(BlobReader *r, const void *p, size_t len, size_t base);
/* Enter the next section: it must be `name`, of a version from 1 to `version` (this pmusim's
 * model; a newer one is refused: r->newer), and fit in what is left.  Reads inside it see its
 * saved version and end at its end. */
bool br_begin(BlobReader *r, BrOuter *outer, const char *name, uint32_t version);
/* Leave it: its bytes must all have been read. */
bool br_end(BlobReader *r, const BrOuter *outer);
/* Step over the next section, `name`, of any version (state this run does not keep). */
bool br_skip(BlobReader *r, const char *name);
/* The bytes br_fields reads for such a table in the current section's version. */
size_t br_fields_size(const BlobReader *r, const StateField *f, size_t n);
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
/* Restore what blob_fields saved, the fields the section's version has (the others keep their
 * value); false (and r->ok false) on a short or invalid blob. */
bool br_fields(BlobReader *r, void *obj, const StateField *f, size_t n);
/* Re-insert an event saved by blob_event into queue q (if it was queued). */
void br_event(BlobReader *r, Event *ev, EventQueue *q);

/* CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) of n bytes, continuing from crc (0 to
 * start): the same value zlib's crc32() and gzip's trailer give. */
uint32_t blob_crc32(uint32_t crc, const void *p, size_t n);

#endif
