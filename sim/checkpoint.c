/* checkpoint.c — machine checkpoints (format in checkpoint.h). */
#include "sim/checkpoint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/dev/device.h"
#include "sim/machine.h"

#define CK_MAGIC "PMUSIMCK"
#define CK_VERSION 3u

enum { SEC_MACHINE = 1, SEC_CPU = 2, SEC_DEVICE = 3, SEC_CODE = 4, SEC_MEMORY = 5, SEC_END = 0xff };

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

void blob_event(Blob *b, const Event *ev)
{
    blob_u8(b, event_pending(ev));
    blob_u64(b, ev->when);
    blob_u64(b, ev->seq);
}

static void blob_str(Blob *b, const char *s)
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

void br_init(BlobReader *r, const void *p, size_t len, size_t base)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    r->len = len;
    r->base = base;
    r->ok = true;
}

bool br_fail(BlobReader *r, const char *what)
{
    if (r->ok) {
        r->ok = false;
        r->fail_at = r->base + r->off;
        r->bad = what;
    }
    return false;
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
        for (unsigned k = 0; k < f[i].count; k++) {
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

static char *br_str(BlobReader *r)
{
    uint32_t n = br_u32(r);
    if (!r->ok || n > 256) {
        br_fail(r, "string length");
        return xstrdup("");
    }
    char *s = xcalloc(1, n + 1);
    br_get(r, s, n);
    return s;
}

/* ------------------------------------------------------------------ machine state */

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* Identifies the machine a checkpoint belongs to: the tree, the image, the quantum. */
static uint64_t fingerprint(const Machine *m)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv1a(h, m->fdt, m->fdt_size);
    h = fnv1a(h, m->image.data, m->image.size);
    h = fnv1a(h, &m->clock.quantum, sizeof m->clock.quantum);
    return h;
}

static void section(Blob *out, uint32_t tag, Blob *body)
{
    blob_u32(out, tag);
    blob_u64(out, body->len);
    blob_put(out, body->data, body->len);
    blob_free(body);
}

static const StateField cpu_fields[] = {
    STATE_UPTO(Cpu, state, CPU_DEAD),
    STATE_FIELD(Cpu, hwid),
    STATE_FIELD(Cpu, insns),
    STATE_FIELD(Cpu, cycles),
    STATE_FIELD(Cpu, idle_cycles),
    STATE_FIELD(Cpu, serialized),
    STATE_FIELD(Cpu, serialized_at),
    STATE_FIELD(Cpu, loads),
    STATE_FIELD(Cpu, stores),
    STATE_FIELD(Cpu, memops),
    STATE_BOOL(Cpu, nmi_pending),
    STATE_BOOL(Cpu, irq_pending),
    STATE_BOOL(Cpu, start_pending),
    STATE_FIELD(Cpu, start_entry),
    STATE_FIELD(Cpu, start_arg),
    STATE_FIELD(Cpu, start_at),
    STATE_FIELD(Cpu, branches),
    STATE_FIELD(Cpu, br_misses),
    STATE_ARRAY(Cpu, bp.pht),
    STATE_ARRAY(Cpu, bp.btb),
    STATE_ARRAY(Cpu, bp.ras),
    STATE_UPTO(Cpu, bp.ras_top, BP_RAS - 1),
    STATE_UPTO(Cpu, bp.ras_n, BP_RAS),
};

static void save_cpu(Cpu *c, Blob *b)
{
    vcpu_mem_flush(c);               /* the current block's loads/stores into the saved totals */
    blob_fields(b, c, cpu_fields, ARRAY_SIZE(cpu_fields));
    blob_str(b, c->stop_reason);
    c->ops->save(c, b);
}

static bool load_cpu(Cpu *c, BlobReader *r)
{
    if (!br_fields(r, c, cpu_fields, ARRAY_SIZE(cpu_fields)))
        return false;
    c->stop_reason = br_str(r);     /* lives until exit, like the literals it replaces */
    return r->ok && c->ops->load(c, r);
}

/* RAM as: for each page, a flag byte (0 = all zero) and the page if not. */
static void save_memory(Machine *m, Blob *b)
{
    static const uint8_t zero[GUEST_PAGE];
    blob_u32(b, (uint32_t)m->mem.n);
    for (int i = 0; i < m->mem.n; i++) {
        const RamBlock *rb = &m->mem.blk[i];
        blob_u64(b, rb->base);
        blob_u64(b, rb->size);
        for (uint64_t off = 0; off < rb->size; off += GUEST_PAGE) {
            bool nz = memcmp(rb->host + off, zero, GUEST_PAGE) != 0;
            blob_u8(b, nz);
            if (nz)
                blob_put(b, rb->host + off, GUEST_PAGE);
        }
    }
}

static bool load_memory(Machine *m, BlobReader *r)
{
    if (br_u32(r) != (uint32_t)m->mem.n)
        return br_fail(r, "another RAM layout");
    for (int i = 0; i < m->mem.n; i++) {
        RamBlock *rb = &m->mem.blk[i];
        if (br_u64(r) != rb->base || br_u64(r) != rb->size)
            return br_fail(r, "another RAM layout");
        for (uint64_t off = 0; off < rb->size && r->ok; off += GUEST_PAGE) {
            if (br_u8(r))
                br_get(r, rb->host + off, GUEST_PAGE);
            else
                memset(rb->host + off, 0, GUEST_PAGE);
        }
    }
    return r->ok;
}

bool checkpoint_save(Machine *m, const char *path, Error *err)
{
    Blob out, b;
    blob_init(&out);
    blob_put(&out, CK_MAGIC, 8);
    blob_u32(&out, CK_VERSION);
    blob_u32(&out, (uint32_t)m->arch);
    blob_u64(&out, fingerprint(m));

    blob_init(&b);
    blob_u64(&b, m->clock.now);
    blob_u64(&b, m->clock.seq);
    blob_u64(&b, m->console.bytes);
    blob_u32(&b, (uint32_t)m->ncpus);
    section(&out, SEC_MACHINE, &b);
    for (int i = 0; i < m->ncpus; i++) {
        blob_init(&b);
        save_cpu(m->cpus[i], &b);
        section(&out, SEC_CPU, &b);
    }
    for (int i = 0; i < m->ndevs; i++) {
        Device *d = m->devs[i];
        blob_init(&b);
        blob_str(&b, d->name);
        if (d->ops->save)
            d->ops->save(d, &b);
        section(&out, SEC_DEVICE, &b);
    }
    blob_init(&b);
    blob_u32(&b, (uint32_t)m->cw.n);
    for (int i = 0; i < m->cw.n; i++) {
        blob_u64(&b, m->cw.ranges[i].start);
        blob_u64(&b, m->cw.ranges[i].end);
    }
    section(&out, SEC_CODE, &b);
    blob_init(&b);
    save_memory(m, &b);
    section(&out, SEC_MEMORY, &b);
    blob_init(&b);
    section(&out, SEC_END, &b);

    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(out.data, 1, out.len, f) == out.len;
    if (f && fclose(f) != 0)
        ok = false;
    blob_free(&out);
    return ok ? true : err_set(err, "%s: cannot write the checkpoint: %s", path, strerror(errno));
}

/* Read the next section; false (with err) if the file ends or the tag is not `want`. */
static bool next_section(BlobReader *file, uint32_t want, BlobReader *sec, const char *path, const char *what,
                         Error *err)
{
    size_t at = file->off;
    uint32_t tag = br_u32(file);
    uint64_t len = br_u64(file);
    if (!file->ok || len > file->len - file->off)
        return err_set(err, "%s: offset %zu: truncated checkpoint (in %s)", path, at, what);
    if (tag != want)
        return err_set(err, "%s: offset %zu: expected the %s section, found tag %u", path, at, what, tag);
    br_init(sec, file->p + file->off, len, file->off);
    file->off += len;
    return true;
}

/* A section that did not load: where and why. */
static bool section_error(Error *err, const char *path, BlobReader *sec, const char *what)
{
    br_fail(sec, "invalid contents");
    return err_set(err, "%s: offset %zu: the %s section is malformed (%s)", path, sec->fail_at, what, sec->bad);
}

bool checkpoint_restore(Machine *m, const char *path, Error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return err_set(err, "%s: %s", path, strerror(errno));
    Blob data;
    blob_init(&data);
    uint8_t buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        blob_put(&data, buf, n);
    fclose(f);
    BlobReader file, sec;
    br_init(&file, data.data, data.len, 0);
    bool ok = false;
    char magic[8];
    if (!br_get(&file, magic, 8) || memcmp(magic, CK_MAGIC, 8)) {
        err_set(err, "%s: offset 0: not a pmusim checkpoint (bad magic)", path);
        goto out;
    }
    uint32_t version = br_u32(&file), arch = br_u32(&file);
    uint64_t fp = br_u64(&file);
    if (!file.ok) {
        err_set(err, "%s: offset %zu: truncated checkpoint header", path, file.off);
        goto out;
    }
    if (version != CK_VERSION) {
        err_set(err, "%s: offset 8: checkpoint version %u, this pmusim reads version %u", path, version, CK_VERSION);
        goto out;
    }
    if (arch != (uint32_t)m->arch || fp != fingerprint(m)) {
        err_set(err, "%s: offset 16: the checkpoint was taken on a different machine (device tree, guest image"
                  " or --quantum differ)", path);
        goto out;
    }
    if (!next_section(&file, SEC_MACHINE, &sec, path, "machine", err))
        goto out;
    m->clock.now = br_u64(&sec);
    m->clock.seq = br_u64(&sec);
    m->console.bytes = br_u64(&sec);
    if (br_u32(&sec) != (uint32_t)m->ncpus) {
        br_fail(&sec, "another CPU count");
        section_error(err, path, &sec, "machine");
        goto out;
    }
    for (int i = 0; i < m->ncpus; i++) {
        if (!next_section(&file, SEC_CPU, &sec, path, "cpu", err))
            goto out;
        if (!load_cpu(m->cpus[i], &sec)) {
            char what[16];
            snprintf(what, sizeof what, "cpu%d", i);
            section_error(err, path, &sec, what);
            goto out;
        }
    }
    for (int i = 0; i < m->ndevs; i++) {
        Device *d = m->devs[i];
        if (!next_section(&file, SEC_DEVICE, &sec, path, "device", err))
            goto out;
        char *name = br_str(&sec);
        if (strcmp(name, d->name))
            br_fail(&sec, "another device");
        free(name);
        if (!sec.ok || (d->ops->load && !d->ops->load(d, &sec)) || !sec.ok) {
            section_error(err, path, &sec, d->name);
            goto out;
        }
    }
    if (!next_section(&file, SEC_CODE, &sec, path, "code", err))
        goto out;
    uint32_t nr = br_u32(&sec);
    for (uint32_t i = 0; i < nr && sec.ok; i++) {
        uint64_t s = br_u64(&sec), e = br_u64(&sec);
        if (sec.ok && (s >= e || !mem_ptr(&m->mem, s, e - s)))
            br_fail(&sec, "a code range outside RAM");
        if (!sec.ok) {
            section_error(err, path, &sec, "code");
            goto out;
        }
        codewatch_add_range(&m->cw, s, e);
        for (uint64_t a = s & ~(GUEST_PAGE - 1); a < e; a += GUEST_PAGE)
            if (!mem_page_is_code(&m->mem, a))
                mem_note_code_page(&m->mem, a);
    }
    if (!next_section(&file, SEC_MEMORY, &sec, path, "memory", err))
        goto out;
    if (!load_memory(m, &sec)) {
        section_error(err, path, &sec, "memory");
        goto out;
    }
    if (!next_section(&file, SEC_END, &sec, path, "end", err))
        goto out;
    ok = true;
out:
    blob_free(&data);
    return ok;
}
