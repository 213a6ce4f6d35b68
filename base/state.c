/* state.c — blobs, blob readers and state tables (state.h). */
#include "base/state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ blobs */

void blob_init(Blob *b)
{
    memset(b, 0, sizeof *b);
}

void blob_free(Blob *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void blob_put(Blob *b, const void *p, size_t n)
{
    if (n == 0)
        return;                     /* an empty body: data may be NULL, and memcpy must not see it */
    if (b->len + n > b->cap) {
        while (b->len + n > b->cap)
            b->cap = b->cap ? b->cap * 2 : 4096;
        b->data = xrealloc(b->data, b->cap);
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void blob_u8(Blob *b, uint8_t v)
{
    blob_put(b, &v, 1);
}

void blob_u32(Blob *b, uint32_t v)
{
    uint8_t t[4];
    store_le(t, 4, v);
    blob_put(b, t, 4);
}

void blob_u64(Blob *b, uint64_t v)
{
    uint8_t t[8];
    store_le(t, 8, v);
    blob_put(b, t, 8);
}

/* An idle event's when and seq are left over from its last schedule (or from a refused
 * restore) and mean nothing: saved as 0, so that the file holds the state, not its history. */
void blob_event(Blob *b, const Event *ev)
{
    bool queued = event_pending(ev);
    blob_u8(b, queued);
    blob_u64(b, queued ? ev->when : 0);
    blob_u64(b, queued ? ev->seq : 0);
}

void blob_str(Blob *b, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    blob_u32(b, n);
    blob_put(b, s, n);
}

/* A field element as an integer, and back (sizes 1, 2, 4, 8; host byte order in the struct). */
static uint64_t field_get(const uint8_t *p, unsigned size)
{
    uint8_t v8;
    uint16_t v16;
    uint32_t v32;
    uint64_t v64;
    switch (size) {
    case 1: memcpy(&v8, p, 1); return v8;
    case 2: memcpy(&v16, p, 2); return v16;
    case 4: memcpy(&v32, p, 4); return v32;
    default: memcpy(&v64, p, 8); return v64;
    }
}

static void field_set(uint8_t *p, unsigned size, uint64_t v)
{
    uint8_t v8 = (uint8_t)v;
    uint16_t v16 = (uint16_t)v;
    uint32_t v32 = (uint32_t)v;
    switch (size) {
    case 1: memcpy(p, &v8, 1); break;
    case 2: memcpy(p, &v16, 2); break;
    case 4: memcpy(p, &v32, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

void blob_fields(Blob *b, const void *obj, const StateField *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < f[i].count; k++) {
            uint8_t t[8];
            store_le(t, f[i].size, field_get((const uint8_t *)obj + f[i].offset + k * f[i].size, f[i].size));
            blob_put(b, t, f[i].size);
        }
}

size_t br_fields_size(const BlobReader *r, const StateField *f, size_t n)
{
    size_t size = 0;
    for (size_t i = 0; i < n; i++)
        if (f[i].since <= r->version)
            size += (size_t)f[i].size * f[i].count;
    return size;
}

size_t blob_begin(Blob *b, const char *name, uint32_t version)
{
    blob_str(b, name);
    blob_u32(b, version);
    blob_u64(b, 0);                 /* the length, once known */
    return b->len - 8;
}

void blob_end(Blob *b, size_t at)
{
    store_le(b->data + at, 8, b->len - at - 8);
}

void br_init(BlobReader *r, const void *p, size_t len, size_t base)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    r->len = len;
    r->base = base;
    r->version = BR_CURRENT;
    r->ok = true;
}

bool br_fail(BlobReader *r, const char *what)
{
    if (r->ok) {
        r->ok = false;
        r->fail_at = r->base + r->off;
        r->bad = what;
        r->fail_in = r->section;
    }
    return false;
}

/* A section header's name: `name`, or the reason it is not (in r->note). */
static bool section_name_is(BlobReader *r, const char *name)
{
    size_t at = r->off, want = strlen(name);
    uint32_t n = br_u32(r);
    if (!r->ok || n > r->len - r->off)
        return br_fail(r, "truncated");
    const char *got = (const char *)r->p + r->off;
    r->off += n;
    if (n == want && !memcmp(got, name, n))
        return true;
    bool readable = n <= 64;
    for (uint32_t i = 0; i < n && readable; i++)
        readable = got[i] >= 0x20 && got[i] < 0x7f && got[i] != '"';
    snprintf(r->note, sizeof r->note, readable ? "expected the %s section, found \"%.*s\"" :
             "expected the %s section, found another", name, (int)n, got);
    r->off = at;
    return br_fail(r, r->note);
}

/* The saved version of section `name`: 1 to `version`, or the reason it is not. */
static bool section_version_ok(BlobReader *r, const char *name, uint32_t saved, uint32_t version)
{
    if (saved >= 1 && saved <= version)
        return true;
    r->off -= 4;
    if (saved == 0)
        return br_fail(r, "section version 0");
    snprintf(r->note, sizeof r->note, "the %s section has version %u; this pmusim reads it up to version %u (the"
             " checkpoint was taken by a newer pmusim)", name, saved, version);
    br_fail(r, r->note);
    r->newer = true;
    return false;
}

bool br_begin(BlobReader *r, BrOuter *outer, const char *name, uint32_t version)
{
    if (!section_name_is(r, name))
        return false;
    uint32_t saved = br_u32(r);
    if (!r->ok || !section_version_ok(r, name, saved, version))
        return false;
    uint64_t len = br_u64(r);
    if (r->ok && len > r->len - r->off) {
        r->off -= 8;
        br_fail(r, "truncated");
    }
    if (!r->ok)
        return false;
    *outer = (BrOuter){ r->len, r->version, r->section };
    r->len = r->off + (size_t)len;
    r->version = saved;
    r->section = name;
    return true;
}

bool br_end(BlobReader *r, const BrOuter *outer)
{
    if (r->ok && r->off != r->len)
        br_fail(r, "bytes after the end of the state");
    r->len = outer->len;
    r->version = outer->version;
    r->section = outer->section;
    return r->ok;
}

bool br_skip(BlobReader *r, const char *name)
{
    BrOuter outer;
    if (!br_begin(r, &outer, name, BR_CURRENT))
        return false;
    r->off = r->len;
    return br_end(r, &outer);
}

bool br_get(BlobReader *r, void *p, size_t n)
{
    if (!r->ok || n > r->len - r->off) {
        br_fail(r, "truncated");
        memset(p, 0, n);
        return false;
    }
    memcpy(p, r->p + r->off, n);
    r->off += n;
    return true;
}

uint8_t br_u8(BlobReader *r)
{
    uint8_t v;
    br_get(r, &v, 1);
    return v;
}

uint32_t br_u32(BlobReader *r)
{
    uint8_t t[4];
    br_get(r, t, 4);
    return (uint32_t)load_le(t, 4);
}

uint64_t br_u64(BlobReader *r)
{
    uint8_t t[8];
    br_get(r, t, 8);
    return load_le(t, 8);
}

bool br_fields(BlobReader *r, void *obj, const StateField *f, size_t n)
{
    for (size_t i = 0; i < n && r->ok; i++)
        for (unsigned k = 0; k < f[i].count && f[i].since <= r->version; k++) {
            uint8_t t[8];
            if (!br_get(r, t, f[i].size))
                return false;
            uint64_t v = load_le(t, f[i].size);
            if (v > f[i].max) {
                r->off -= f[i].size;
                return br_fail(r, f[i].name);
            }
            field_set((uint8_t *)obj + f[i].offset + k * f[i].size, f[i].size, v);
        }
    return r->ok;
}

void br_event(BlobReader *r, Event *ev, EventQueue *q)
{
    bool queued = br_u8(r);
    uint64_t when = br_u64(r), seq = br_u64(r);
    evq_remove(ev);
    if (r->ok && queued)
        evq_insert(q, ev, when, seq);
}

char *br_str(BlobReader *r, size_t max, const char *what)
{
    size_t at = r->off;
    uint32_t n = br_u32(r);
    if (!r->ok || n > max || n > r->len - r->off) {
        if (r->ok) {
            r->off = at;
            br_fail(r, what);
        }
        return xstrdup("");
    }
    char *s = xcalloc(1, (size_t)n + 1);
    br_get(r, s, n);
    if (strlen(s) != n) {           /* a NUL inside: not a string this program wrote */
        r->off = at;
        br_fail(r, what);
    }
    return s;
}

uint32_t br_count(BlobReader *r, size_t min_size, uint32_t max, const char *what)
{
    size_t at = r->off;
    uint32_t n = br_u32(r);
    if (!r->ok)
        return 0;
    if (n > max || (min_size && n > (r->len - r->off) / min_size)) {
        r->off = at;
        br_fail(r, what);
        return 0;
    }
    return n;
}

/* ------------------------------------------------------------------ integrity */

uint32_t blob_crc32(uint32_t crc, const void *p, size_t n)
{
    static uint32_t table[256];
    if (!table[1])
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    const uint8_t *b = p;
    crc = ~crc;
    while (n--)
        crc = table[(crc ^ *b++) & 0xff] ^ (crc >> 8);
    return ~crc;
}


