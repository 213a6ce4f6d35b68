/* ksbuild.c — synthetic kallsyms tables (see ksbuild.h).
 *
 * The token table: codes 0x21-0x7e stand for their own character; the other codes for
 * multi-character tokens (a few common ones, then filler strings no name contains).  Names are
 * compressed greedily, longest token first, as a name's codes. */
#define _GNU_SOURCE                     /* qsort_r */
#include "ksbuild.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KSB_CODES 256
#define KSB_TOKEN_MAX 16
#define KSB_FILL 0xee                   /* filler byte before the tables */

static const char *const common_tokens[] = { "__", "fn_", "sched", "ule", "start_", "kernel", "_text", "long_" };

typedef struct Buf {
    uint8_t *b;
    size_t len, cap;
    const KsbOptions *o;
} Buf;

static void put(Buf *b, const void *p, size_t n)
{
    if (!n)
        return;                     /* (b->b may still be NULL: no pointer arithmetic on it) */
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 4096;
        b->b = realloc(b->b, b->cap);
    }
    memcpy(b->b + b->len, p, n);
    b->len += n;
}

static void put_int(Buf *b, unsigned n, uint64_t v)
{
    uint8_t x[8];
    if (b->o->big_endian)
        store_be(x, n, v);
    else
        store_le(x, n, v);
    put(b, x, n);
}

static size_t align(Buf *b)
{
    static const uint8_t zero[8];
    unsigned w = b->o->is64 ? 8 : 4;
    put(b, zero, (w - b->len % w) % w);
    return b->len;
}

static void tokens(char tok[KSB_CODES][KSB_TOKEN_MAX])
{
    size_t common = 0;
    for (unsigned c = 0; c < KSB_CODES; c++) {
        if (c > ' ' && c < 0x7f)
            snprintf(tok[c], KSB_TOKEN_MAX, "%c", c);
        else if (common < sizeof common_tokens / sizeof *common_tokens)
            snprintf(tok[c], KSB_TOKEN_MAX, "%s", common_tokens[common++]);
        else
            snprintf(tok[c], KSB_TOKEN_MAX, "~%02x", c);
    }
}

/* "type" + name as codes; returns how many. */
static size_t compress(char tok[KSB_CODES][KSB_TOKEN_MAX], const char *s, uint8_t *out)
{
    size_t n = 0;
    while (*s) {
        unsigned best = (unsigned char)*s;
        size_t bl = 1;
        for (unsigned c = 0; c < KSB_CODES; c++) {
            size_t l = strlen(tok[c]);
            if (l > bl && !strncmp(s, tok[c], l)) {
                best = c;
                bl = l;
            }
        }
        out[n++] = (uint8_t)best;
        s += bl;
    }
    return n;
}

static void names(Buf *b, const KsbSym *syms, size_t n, char tok[KSB_CODES][KSB_TOKEN_MAX], uint32_t *markers)
{
    size_t start = b->len;
    for (size_t i = 0; i < n; i++) {
        char full[KSYM_NAME_LEN * 2];
        uint8_t codes[KSYM_NAME_LEN * 2];
        snprintf(full, sizeof full, "%c%s", syms[i].type, syms[i].name);
        size_t l = compress(tok, full, codes);
        if (i % 256 == 0)
            markers[i / 256] = (uint32_t)(b->len - start);
        uint8_t len[2] = { (uint8_t)(l | 0x80), (uint8_t)(l >> 7) };
        put(b, l < 0x80 ? (uint8_t[]){ (uint8_t)l } : len, l < 0x80 ? 1 : 2);
        put(b, codes, l);
    }
}

static void token_tables(Buf *b, char tok[KSB_CODES][KSB_TOKEN_MAX], KSymLayout *at)
{
    uint16_t idx[KSB_CODES];
    at->token_table = align(b);
    for (unsigned c = 0; c < KSB_CODES; c++) {
        idx[c] = (uint16_t)(b->len - at->token_table);
        put(b, tok[c], strlen(tok[c]) + 1);
    }
    at->token_index = align(b);
    for (unsigned c = 0; c < KSB_CODES; c++)
        put_int(b, 2, idx[c]);
}

static void addresses(Buf *b, const KsbSym *syms, size_t n, uint64_t base, KSymLayout *at)
{
    at->offsets = align(b);
    for (size_t i = 0; i < n; i++) {
        uint64_t v = syms[i].addr - base;
        if (b->o->absolute_percpu)
            v = syms[i].addr < base ? syms[i].addr : base - syms[i].addr - 1;
        put_int(b, 4, (uint32_t)v);
    }
    at->relative_base = align(b);
    put_int(b, b->o->is64 ? 8 : 4, base);
}

static int by_name(const void *x, const void *y, void *ctx)
{
    const KsbSym *s = ctx;
    const size_t *a = x, *c = y;
    int r = strcmp(s[*a].name, s[*c].name);
    return r ? r : (*a > *c) - (*a < *c);
}

static void seqs(Buf *b, const KsbSym *syms, size_t n, KSymLayout *at)
{
    size_t *order = calloc(n, sizeof *order);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    qsort_r(order, n, sizeof *order, by_name, (void *)syms);
    at->seqs_of_names = align(b);
    for (size_t i = 0; i < n; i++) {
        uint8_t x[3];
        store_be(x, 3, order[i]);
        put(b, x, 3);
    }
    free(order);
}

uint8_t *ksb_build(const KsbSym *syms, size_t n, uint64_t relative_base, const KsbOptions *o, size_t *len,
                   KSymLayout *at)
{
    Buf b = { NULL, 0, 0, o };
    char tok[KSB_CODES][KSB_TOKEN_MAX];
    uint32_t *markers = calloc(n / 256 + 1, sizeof *markers);
    memset(at, 0, sizeof *at);
    at->absolute_percpu = o->absolute_percpu;
    tokens(tok);
    for (size_t i = 0; i < o->prefix; i++)
        put(&b, (uint8_t[]){ KSB_FILL }, 1);
    if (o->old_order)
        addresses(&b, syms, n, relative_base, at);
    at->num_syms = align(&b);
    put_int(&b, 4, n);
    at->names = align(&b);
    names(&b, syms, n, tok, markers);
    at->markers = align(&b);
    for (size_t i = 0; i < (n + 255) / 256; i++)
        put_int(&b, 4, markers[i]);
    token_tables(&b, tok, at);
    if (!o->old_order) {
        addresses(&b, syms, n, relative_base, at);
        seqs(&b, syms, n, at);
    }
    align(&b);
    free(markers);
    *len = b.len;
    return b.b;
}
