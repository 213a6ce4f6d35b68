/* kallsyms.c — the kernel's kallsyms tables in an image, and System.map (see kallsyms.h).
 *
 * The tables as scripts/kallsyms.c (write_src) emits them into .rodata since Linux 6.4
 * ("scripts/kallsyms: change the output order"), each label aligned to the word size W
 * (ALGN: .balign 8 on 64-bit, 4 on 32-bit), all in the kernel's byte order:
 *
 *   kallsyms_num_syms       u32 n, then padding to W
 *   kallsyms_names          n entries: a length L (one byte below 0x80, or two: ULEB128 up to
 *                           0x3fff), then L token codes; the expanded name's first character
 *                           is the nm type letter
 *   kallsyms_markers        ceil(n / 256) u32: the offset in names of entry 256 * i
 *   kallsyms_token_table    256 NUL-terminated strings: code c expands to string c
 *   kallsyms_token_index    256 u16: the offset of string c in the token table
 *   kallsyms_offsets        n u32 in address order: address - relative_base; with
 *                           CONFIG_KALLSYMS_ABSOLUTE_PERCPU s32: >= 0 an absolute address,
 *                           < 0 relative_base - 1 - offset (kernel/kallsyms.c
 *                           kallsyms_sym_address)
 *   kallsyms_relative_base  one word
 *   kallsyms_seqs_of_names  n 3-byte big-endian symbol numbers in name order
 *
 * Before 6.4 kallsyms_offsets and kallsyms_relative_base came first, before kallsyms_num_syms;
 * that order is read too when there are no kallsyms_seqs_of_names between the markers and the
 * token table (kernels before 6.2; 6.2 and 6.3 put them there and are not recognised).
 *
 * How they are found: the token index is the anchor, 256 ascending u16 from 0 whose strings
 * (the token table just before it) are printable and NUL-terminated exactly where the index
 * says.  Every W-aligned offset is tried; the first 8 bytes reject almost all of them, so the
 * scan of a 40 MB image takes milliseconds.  From the token table back: the markers (a
 * strictly ascending u32 run ending at the table, starting at 0), then kallsyms_num_syms and
 * the names, whose walk must end at the markers and agree with every marker.  A candidate that
 * fails is passed over; if none succeeds the message of the one that got furthest is given.
 */
#include "base/kallsyms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KS_TOKENS 256               /* token codes: one byte */
#define KS_MARKER_STRIDE 256        /* names between two markers */
#define KS_LEN_LONG 0x80            /* a length byte with this bit set has a second byte */
#define KS_CODES_MAX KSYM_NAME_LEN  /* a name's codes: each expands to a character at least */
#define KS_SEQ_BYTES 3              /* one kallsyms_seqs_of_names entry */
#define KS_U32 4
#define KS_U16 2

typedef struct KsReader {
    const uint8_t *buf;
    size_t size;
    unsigned word;                  /* 4 or 8: the kernel's long and its ALGN */
    bool be;
    const char *path;
    Error *err;
    int stage;                      /* how far the best candidate got (for its message) */
} KsReader;

/* Stages of a candidate, for choosing which failure to report. */
enum { ST_NONE, ST_TOKENS, ST_MARKERS, ST_NAMES, ST_OFFSETS };

static bool fits(const KsReader *r, uint64_t off, uint64_t len)
{
    return off <= r->size && len <= r->size - off;
}

/* An n-byte field at off; the caller checked it fits. */
static uint64_t rd(const KsReader *r, uint64_t off, unsigned n)
{
    return r->be ? load_be(r->buf + off, n) : load_le(r->buf + off, n);
}

static uint64_t align_up(uint64_t v, unsigned a)
{
    return (v + a - 1) & ~(uint64_t)(a - 1);
}

/* A failure of a candidate at `stage`: kept if no candidate got further. */
static bool fail(KsReader *r, int stage, const char *fmt, ...) PMUSIM_PRINTF(3, 4);
static bool fail(KsReader *r, int stage, const char *fmt, ...)
{
    if (stage < r->stage)
        return false;
    r->stage = stage;
    char msg[sizeof r->err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    err_set(r->err, "%s: %s", r->path, msg);
    return false;
}

/* ------------------------------------------------------------------ token table and index */

typedef struct Tokens {
    uint64_t table, index;          /* file offsets */
    uint16_t at[KS_TOKENS];         /* kallsyms_token_index */
    uint16_t len[KS_TOKENS];        /* each token's length */
} Tokens;

/* The cheap first look at a token index candidate: 0, then two ascending offsets. */
static bool index_start(const KsReader *r, uint64_t off)
{
    if (rd(r, off, KS_U16) != 0)
        return false;
    uint64_t a = rd(r, off + KS_U16, KS_U16), b = rd(r, off + 2 * KS_U16, KS_U16);
    return a >= 2 && b > a;
}

/* The token table that ends just before the index at tk->index (its last string, then NUL
 * padding to the word): its start, from the last string's NUL-terminated predecessor. */
static bool locate_table(const KsReader *r, Tokens *tk)
{
    uint64_t p = tk->index;
    for (unsigned pad = 0; p > 0 && r->buf[p - 1] == 0 && pad <= r->word; pad++)
        p--;
    uint64_t end = p;                   /* one past the last token's last character */
    while (p > 0 && r->buf[p - 1] != 0 && end - p < KSYM_NAME_LEN)
        p--;
    if (p == end || p == 0 || r->buf[p - 1] != 0 || p < tk->at[KS_TOKENS - 1])
        return false;
    tk->table = p - tk->at[KS_TOKENS - 1];
    return tk->table % r->word == 0;
}

/* Every token a printable string ending where the next begins. */
static bool tokens_valid(const KsReader *r, Tokens *tk)
{
    for (unsigned c = 0; c < KS_TOKENS; c++) {
        uint64_t s = tk->table + tk->at[c];
        uint64_t e = c + 1 < KS_TOKENS ? tk->table + tk->at[c + 1] - 1 : tk->index;
        uint64_t k = s;
        while (k < e && r->buf[k] > ' ' && r->buf[k] < 0x7f)
            k++;
        if (k == s || r->buf[k] != 0)
            return false;
        tk->len[c] = (uint16_t)(k - s);
    }
    return true;
}

static bool tokens_at(const KsReader *r, uint64_t off, Tokens *tk)
{
    if (!fits(r, off, KS_TOKENS * KS_U16) || !index_start(r, off))
        return false;
    tk->index = off;
    for (unsigned c = 0; c < KS_TOKENS; c++) {
        tk->at[c] = (uint16_t)rd(r, off + c * KS_U16, KS_U16);
        if (c && tk->at[c] <= tk->at[c - 1])
            return false;
    }
    return locate_table(r, tk) && tokens_valid(r, tk);
}

/* ------------------------------------------------------------------ markers, names */

typedef struct Names {
    uint64_t markers, nmarkers;     /* offset, count */
    uint64_t start, n;              /* kallsyms_names, kallsyms_num_syms */
    uint64_t num_syms;              /* offset of kallsyms_num_syms */
} Names;

/* The markers ending at `end`: a strictly ascending u32 run back to the 0 of marker 0. */
static bool markers_ending(const KsReader *r, uint64_t end, Names *nm)
{
    uint64_t p = end, above = UINT64_MAX;
    while (p >= KS_U32) {
        uint64_t v = rd(r, p - KS_U32, KS_U32);
        if (v >= above)
            return false;
        p -= KS_U32;
        if (v == 0)
            break;
        above = v;
    }
    if (p == end || rd(r, p, KS_U32) != 0 || p % r->word)
        return false;
    nm->markers = p;
    nm->nmarkers = (end - p) / KS_U32;
    return true;
}

/* One name's length and its first code at *off; false if it runs past `end`. */
static bool name_len(const KsReader *r, uint64_t *off, uint64_t end, unsigned *len)
{
    if (*off >= end)
        return false;
    unsigned l = r->buf[(*off)++];
    if (l & KS_LEN_LONG) {
        if (*off >= end)
            return false;
        l = (l & ~KS_LEN_LONG) | (unsigned)r->buf[(*off)++] << 7;
    }
    *len = l;
    return l != 0 && l <= KS_CODES_MAX && l <= end - *off;
}

/* Walk n names from nm->start: each marker must be where its entry starts, and the walk must
 * end within the padding before the markers (report: say why not). */
static bool names_walk(KsReader *r, const Names *nm, bool report)
{
    uint64_t off = nm->start;
    for (uint64_t i = 0; i < nm->n; i++) {
        if (i % KS_MARKER_STRIDE == 0 &&
            rd(r, nm->markers + i / KS_MARKER_STRIDE * KS_U32, KS_U32) != off - nm->start)
            return report && fail(r, ST_NAMES, "offset 0x%" PRIx64 ": kallsyms_markers[%" PRIu64 "] (0x%" PRIx64
                                  ") is not where symbol %" PRIu64 " starts in kallsyms_names (0x%" PRIx64 ")",
                                  nm->markers + i / KS_MARKER_STRIDE * KS_U32, i / KS_MARKER_STRIDE,
                                  rd(r, nm->markers + i / KS_MARKER_STRIDE * KS_U32, KS_U32), i, off - nm->start);
        unsigned len;
        if (!name_len(r, &off, nm->markers, &len))
            return report && fail(r, ST_NAMES, "offset 0x%" PRIx64 ": kallsyms_names: symbol %" PRIu64
                                  " has length 0 or runs into kallsyms_markers at 0x%" PRIx64, off, i, nm->markers);
        off += len;
    }
    if (align_up(off, r->word) != nm->markers)
        return report && fail(r, ST_NAMES, "offset 0x%" PRIx64 ": kallsyms_names of %" PRIu64
                              " symbols ends 0x%" PRIx64 " bytes before kallsyms_markers", nm->start, nm->n,
                              nm->markers - off);
    return true;
}

/* kallsyms_num_syms and the names: the names start W-aligned, one word after the count, and
 * the last marker's group starts inside them; the count must need exactly nmarkers markers.
 * Scans back over the room the last group of names can take. */
static bool find_names(KsReader *r, Names *nm)
{
    uint64_t last = rd(r, nm->markers + (nm->nmarkers - 1) * KS_U32, KS_U32);
    if (last + r->word > nm->markers)
        return fail(r, ST_MARKERS, "offset 0x%" PRIx64 ": kallsyms_markers: the last marker 0x%" PRIx64
                    " points before the start of the file", nm->markers, last);
    uint64_t hi = (nm->markers - last) / r->word * r->word;
    uint64_t room = (uint64_t)KS_MARKER_STRIDE * (KS_CODES_MAX + 2);
    uint64_t lo = hi > room ? hi - room : r->word;
    Names first = { 0 };
    for (uint64_t s = hi; s >= lo && s >= r->word; s -= r->word) {
        uint64_t n = rd(r, s - r->word, KS_U32);
        if (n == 0 || (n + KS_MARKER_STRIDE - 1) / KS_MARKER_STRIDE != nm->nmarkers)
            continue;
        nm->start = s;
        nm->n = n;
        nm->num_syms = s - r->word;
        if (names_walk(r, nm, false))
            return true;
        if (!first.n)
            first = *nm;
    }
    if (first.n)                    /* a count that fits the markers: why its names do not */
        return names_walk(r, &first, true);
    return fail(r, ST_MARKERS, "offset 0x%" PRIx64 ": kallsyms_markers (%" PRIu64
                " of them) found, but no kallsyms_num_syms and kallsyms_names before them that match",
                nm->markers, nm->nmarkers);
}

/* ------------------------------------------------------------------ addresses */

/* The address of symbol i from kallsyms_offsets at `offs`. */
static uint64_t sym_addr(const KsReader *r, uint64_t offs, uint64_t i, uint64_t base, bool abs_percpu)
{
    uint32_t v = (uint32_t)rd(r, offs + i * KS_U32, KS_U32);
    if (!abs_percpu)
        return base + v;
    int32_t s = (int32_t)v;
    return s >= 0 ? (uint64_t)s : base - 1 - (uint64_t)(int64_t)s;
}

/* The offsets in address order under one reading (relative, or absolute percpu). */
static bool sorted(const KsReader *r, uint64_t offs, uint64_t n, uint64_t base, bool abs_percpu, uint64_t *bad)
{
    uint64_t prev = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t a = sym_addr(r, offs, i, base, abs_percpu);
        if (i && a < prev) {
            *bad = i;
            return false;
        }
        prev = a;
    }
    return true;
}

/* kallsyms_offsets at offs and kallsyms_relative_base at rb: in the file and in order. */
static bool addresses(KsReader *r, KSymTable *t, uint64_t offs, uint64_t rb)
{
    uint64_t n = t->n, bad = 0;
    if (!fits(r, offs, n * KS_U32) || !fits(r, rb, r->word))
        return fail(r, ST_OFFSETS, "offset 0x%" PRIx64 ": kallsyms_offsets (%" PRIu64
                    " entries) and kallsyms_relative_base extend past the end of the file (%zu bytes)",
                    offs, n, r->size);
    uint64_t base = rd(r, rb, r->word);
    t->at.absolute_percpu = !sorted(r, offs, n, base, false, &bad);
    if (t->at.absolute_percpu && !sorted(r, offs, n, base, true, &bad))
        return fail(r, ST_OFFSETS, "offset 0x%" PRIx64 ": kallsyms_offsets: symbol %" PRIu64
                    " is below the one before it (the table is in address order)", offs + bad * KS_U32, bad);
    t->relative_base = base;
    t->at.offsets = offs;
    t->at.relative_base = rb;
    return true;
}

/* The kallsyms_seqs_of_names at `at`: a permutation of 0 .. n-1. */
static bool seqs_at(const KsReader *r, uint64_t at, uint64_t n)
{
    if (!fits(r, at, n * KS_SEQ_BYTES))
        return false;
    uint8_t *seen = xcalloc(n / 8 + 1, 1);
    bool ok = true;
    for (uint64_t i = 0; i < n && ok; i++) {
        uint64_t v = load_be(r->buf + at + i * KS_SEQ_BYTES, KS_SEQ_BYTES);
        ok = v < n && !(seen[v / 8] & 1u << v % 8);
        if (ok)
            seen[v / 8] |= (uint8_t)(1u << v % 8);
    }
    free(seen);
    return ok;
}

/* The offsets after the token index, with the seqs_of_names after them (6.4 and later), else
 * before kallsyms_num_syms (before 6.2). */
static bool find_addresses(KsReader *r, KSymTable *t, const Tokens *tk)
{
    uint64_t offs = align_up(tk->index + KS_TOKENS * KS_U16, r->word);
    uint64_t rb = align_up(offs + t->n * KS_U32, r->word), seqs = rb + r->word;
    if (seqs_at(r, seqs, t->n)) {
        t->at.seqs_of_names = seqs;
        return addresses(r, t, offs, rb);
    }
    if (t->at.num_syms < r->word + t->n * KS_U32)
        return fail(r, ST_OFFSETS, "offset 0x%" PRIx64 ": no kallsyms_offsets, kallsyms_relative_base and "
                    "kallsyms_seqs_of_names after kallsyms_token_index, nor room for them before kallsyms_num_syms",
                    offs);
    uint64_t old_rb = t->at.num_syms - r->word;      /* before 6.2: offsets, relative_base, num_syms */
    uint64_t old_offs = (old_rb - t->n * KS_U32) / r->word * r->word;
    if (!addresses(r, t, old_offs, old_rb))
        return false;
    /* Any run of equal words is "in order": a kernel's symbols span more than one address. */
    if (t->relative_base == 0 || rd(r, old_offs, KS_U32) == rd(r, old_offs + (t->n - 1) * KS_U32, KS_U32))
        return fail(r, ST_OFFSETS, "offset 0x%" PRIx64 ": no kallsyms_offsets after kallsyms_token_index (no "
                    "kallsyms_seqs_of_names after them) nor before kallsyms_num_syms", old_offs);
    return true;
}

/* ------------------------------------------------------------------ names */

/* Expand the names into t->names: the first character is the type, the rest the name. */
static bool expand_names(KsReader *r, KSymTable *t, const Tokens *tk)
{
    uint64_t off = t->at.names, end = t->at.markers;
    t->syms = xcalloc(t->n, sizeof *t->syms);
    size_t cap = 1 << 16;
    t->names = xcalloc(1, cap);
    for (uint64_t i = 0; i < t->n; i++) {
        unsigned len = 0;
        name_len(r, &off, end, &len);           /* the walk checked it */
        char buf[KSYM_NAME_LEN + 1];
        size_t k = 0;
        for (unsigned j = 0; j < len; j++) {
            unsigned c = r->buf[off + j];
            if (k + tk->len[c] > KSYM_NAME_LEN)
                return fail(r, ST_OFFSETS, "offset 0x%" PRIx64 ": kallsyms_names: symbol %" PRIu64
                            " expands to more than %d characters", off, i, KSYM_NAME_LEN);
            memcpy(buf + k, r->buf + tk->table + tk->at[c], tk->len[c]);
            k += tk->len[c];
        }
        off += len;
        if (k < 2)
            return fail(r, ST_OFFSETS, "offset 0x%" PRIx64 ": kallsyms_names: symbol %" PRIu64
                        " has a type but no name", off - len, i);
        while (t->names_len + k > cap) {
            cap *= 2;
            t->names = xrealloc(t->names, cap);
        }
        KSym *s = &t->syms[i];
        s->type = buf[0];
        s->name = (uint32_t)t->names_len;
        s->addr = sym_addr(r, t->at.offsets, i, t->relative_base, t->at.absolute_percpu);
        memcpy(t->names + t->names_len, buf + 1, k - 1);
        t->names[t->names_len + k - 1] = 0;
        t->names_len += k;
    }
    return true;
}

/* One token index candidate through to the symbols. */
static bool try_candidate(KsReader *r, KSymTable *t, const Tokens *tk)
{
    Names nm;
    uint64_t ends[] = { tk->table, tk->table - KS_U32 };     /* no padding, or 4 bytes of it */
    bool found = false;
    for (size_t e = 0; e < ARRAY_SIZE(ends) && !found; e++) {
        if (tk->table < KS_U32 || (e == 1 && (r->word == KS_U32 || rd(r, ends[e], KS_U32) != 0)))
            continue;
        found = markers_ending(r, ends[e], &nm) && find_names(r, &nm);
    }
    if (!found)
        return fail(r, ST_TOKENS, "offset 0x%" PRIx64 ": kallsyms_token_table found, but no kallsyms_markers end "
                    "before it", tk->table);
    memset(t, 0, sizeof *t);
    t->n = nm.n;
    t->at = (KSymLayout){ nm.num_syms, nm.start, nm.markers, tk->table, tk->index, 0, 0, 0, false };
    if (find_addresses(r, t, tk) && expand_names(r, t, tk))
        return true;
    ksyms_free(t);
    return false;
}

bool ksyms_find(KSymTable *t, const uint8_t *buf, size_t size, bool is64, bool big_endian, const char *path,
                Error *err)
{
    KsReader r = { buf, size, is64 ? 8 : 4, big_endian, path, err, ST_NONE };
    memset(t, 0, sizeof *t);
    err_set(err, "%s: no kallsyms tables: no kallsyms_token_index (256 ascending 16-bit offsets into a table of "
            "256 strings) in its %zu bytes", path, size);
    Tokens tk;
    for (uint64_t off = 0; off + KS_TOKENS * KS_U16 <= size; off += r.word)
        if (tokens_at(&r, off, &tk) && try_candidate(&r, t, &tk))
            return true;
    return false;
}

/* ------------------------------------------------------------------ System.map */

#define MAP_TYPES_SKIPPED "UaANnu"

static bool hexdigit(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* One "ADDRESS TYPE NAME" line (without its newline) into *s, the name appended to t->names. */
static bool map_line(KSymTable *t, const char *l, size_t len, KSym *s)
{
    size_t i = 0;
    while (i < len && hexdigit(l[i]))
        i++;
    if (i == 0 || i > 16 || len < i + 4 || l[i] != ' ' || l[i + 1] <= ' ' || l[i + 1] >= 0x7f || l[i + 2] != ' ')
        return false;
    const char *name = l + i + 3;
    size_t nlen = len - (i + 3);
    for (size_t k = 0; k < nlen; k++)
        if ((unsigned char)name[k] <= ' ' || name[k] == 0x7f)
            return false;
    if (nlen >= KSYM_NAME_LEN)
        return false;
    s->addr = strtoull(l, NULL, 16);
    s->type = l[i + 1];
    s->name = (uint32_t)t->names_len;
    memcpy(t->names + t->names_len, name, nlen);
    t->names[t->names_len + nlen] = 0;
    t->names_len += nlen + 1;
    return true;
}

static int cmp_ksym(const void *a, const void *b)
{
    const KSym *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;     /* the file's order */
}

bool ksyms_parse_map(KSymTable *t, const char *text, size_t len, const char *path, Error *err)
{
    memset(t, 0, sizeof *t);
    t->names = xcalloc(1, len + 1);
    t->syms = xcalloc(len / 4 + 1, sizeof *t->syms);     /* a line takes 5 bytes at least */
    size_t line = 1;
    for (size_t p = 0; p < len; line++) {
        const char *nl = memchr(text + p, '\n', len - p);
        size_t l = nl ? (size_t)(nl - (text + p)) : len - p;
        KSym s;
        size_t names = t->names_len;
        if (!map_line(t, text + p, l, &s)) {
            ksyms_free(t);
            return err_set(err, "%s: line %zu (offset %zu): expected \"ADDRESS TYPE NAME\" (hex address, one type "
                           "letter, a name without spaces)", path, line, p);
        }
        if (strchr(MAP_TYPES_SKIPPED, s.type))
            t->names_len = names;
        else
            t->syms[t->n++] = s;
        p += l + (nl != NULL);
    }
    if (!t->n) {
        ksyms_free(t);
        return err_set(err, "%s: no symbols (an empty System.map)", path);
    }
    qsort(t->syms, t->n, sizeof *t->syms, cmp_ksym);
    return true;
}

const KSym *ksyms_lookup(const KSymTable *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->names + t->syms[i].name, name))
            return &t->syms[i];
    return NULL;
}

void ksyms_free(KSymTable *t)
{
    free(t->syms);
    free(t->names);
    memset(t, 0, sizeof *t);
}
