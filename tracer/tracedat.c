/* tracedat.c — the trace as a trace.dat, version 6 (see tracedat.h).
 *
 * The file (trace-cmd.dat.v6(5); every number little-endian, long 8 bytes, pages of 4096):
 *
 *   "\x17\x08\x44tracing" "6\0" u8 endian=0 u8 long_size=8 u32 page_size
 *   "header_page\0"  u64 size, text      the page header (ring_buffer_print_page_header)
 *   "header_event\0" u64 size, text      the event header (ring_buffer_print_entry_header)
 *   u32 3, { u64 size, format }          ftrace's function, funcgraph_entry, funcgraph_exit
 *   u32 1, "pmusim\0", u32 TK_COUNT, { u64 size, format }   one event per registry kind
 *   u32 size, kallsyms                   the image's symbols, "addr T name" lines
 *   u32 0                                printk formats: none
 *   u64 size, saved_cmdlines             "0 swapper"
 *   u32 blocks                           the CPUs, then one block for the machine's events
 *   "options  \0" { u16 id, u32 size, data } u16 0   trace clock "local", uname
 *   "flyrecord\0" { u64 offset, u64 size } per block; u64 size, trace_clock text
 *   padding to a page, then each block's pages
 *
 * A page: u64 timestamp (of its first event), u64 commit (bytes of events), then events, each a
 * 32-bit header — type_len:5 (bits 0-4), time_delta:27 (the ns since the previous event) — and
 * its data: type_len 1..28 gives the length in words, 0 puts the length (+4) in the next word,
 * 30 is a time extend (the delta's upper bits in the next word) before an event whose delta does
 * not fit 27 bits (Linux kernel/trace/ring_buffer.c, Documentation/trace/ring-buffer-design.rst).
 *
 * A pmusim record: the common fields (u16 type, u8 flags, u8 preempt count, s32 pid 0), then
 * every hex/dec field as a u64, then a __data_loc u32 (length << 16 | offset) for every string
 * (symbols included) and byte string, then `_present` (bit i: the kind's field i is there) for
 * kinds with optional fields, then the strings' bytes.
 */
#include "tracer/tracedat.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/loader.h"
#include "base/outfile.h"
#include "base/trace_events.h"

#define DAT_MAGIC "\x17\x08\x44tracing"
#define DAT_MAGIC_LEN 10
#define DAT_VERSION "6"
#define DAT_LONG_SIZE 8
#define DAT_PAGE 4096
#define DAT_PAGE_HDR 16             /* u64 timestamp, local_t commit (long) */
#define DAT_PAGE_DATA (DAT_PAGE - DAT_PAGE_HDR)

/* ring_buffer.c: enum ring_buffer_type, RB_ALIGNMENT, RB_MAX_SMALL_DATA, TS_SHIFT */
#define RB_TYPE_PADDING 29
#define RB_TYPE_TIME_EXTEND 30
#define RB_TYPE_TIME_STAMP 31
#define RB_TYPE_DATA_MAX 28
#define RB_ALIGN 4
#define RB_MAX_SMALL (RB_ALIGN * RB_TYPE_DATA_MAX)
#define RB_TS_BITS 27
#define RB_TS_MASK ((1u << RB_TS_BITS) - 1)
#define RB_EVENT_HDR 4
#define RB_EXTEND 8                 /* a time extend event */
#define RB_EXTEND_MAX (1ull << (RB_TS_BITS + 32))   /* a delta a time extend cannot hold */

/* Linux kernel/trace/trace.h, enum trace_type: the ftrace events' ids */
#define FTRACE_ID_FUNCTION 1
#define FTRACE_ID_GRAPH_RET 10
#define FTRACE_ID_GRAPH_ENT 11
#define PMUSIM_ID_BASE 1000         /* pmusim's kinds: PMUSIM_ID_BASE + TraceKind */

#define TRACECMD_OPTION_DONE 0      /* trace-cmd's lib/trace-cmd/include/private/trace-cmd-private.h */
#define TRACECMD_OPTION_TRACECLOCK 4
#define TRACECMD_OPTION_UNAME 5

#define COMMON_SIZE 8               /* common_type, common_flags, common_preempt_count, common_pid */
/* the largest record: a page less an event header, its length word and a time extend */
#define REC_MAX (DAT_PAGE_DATA - RB_EVENT_HDR - RB_ALIGN - RB_EXTEND)
#define STR_MAX 1024                /* one string of a record, NUL included (longer: cut) */
#define MAX_BLOCKS 65               /* CPUs and the machine */
#define KIND_CACHE_BITS 6

/* "[local]": pmusim's time is each CPU's own, as the kernel's local clock (trace_clock_local) */
static const char trace_clock_text[] = "[local] global counter uptime perf mono mono_raw boot\n";

/* ------------------------------------------------------------------ growable buffer */

typedef struct Buf {
    uint8_t *p;
    size_t n, cap;
} Buf;

static void buf_put(Buf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 256;
        b->p = xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void buf_le(Buf *b, unsigned n, uint64_t v)
{
    uint8_t t[8];
    store_le(t, n, v);
    buf_put(b, t, n);
}

static void buf_printf(Buf *b, const char *fmt, ...) PMUSIM_PRINTF(2, 3);
static void buf_printf(Buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *t = xcalloc(1, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(t, (size_t)n + 1, fmt, ap);
    va_end(ap);
    buf_put(b, t, (size_t)n);
    free(t);
}

/* a section of text with its size before it (sizebytes: 4 or 8) */
static void buf_sized(Buf *b, unsigned sizebytes, const Buf *text)
{
    buf_le(b, sizebytes, text->n);
    buf_put(b, text->p, text->n);
}

/* ------------------------------------------------------------------ page packing */

typedef struct PageOut {
    void (*page)(struct PageOut *o, const uint8_t *page);
    uint64_t pages;
} PageOut;

typedef struct Packer {
    uint8_t page[DAT_PAGE];
    uint32_t used;                  /* bytes of events */
    uint64_t last;                  /* time of the last event */
} Packer;

static uint32_t rec_space(uint32_t len, uint64_t delta)
{
    uint32_t words = (len + RB_ALIGN - 1) / RB_ALIGN * RB_ALIGN;
    return RB_EVENT_HDR + (len > RB_MAX_SMALL ? RB_ALIGN : 0) + words + (delta > RB_TS_MASK ? RB_EXTEND : 0);
}

static void pk_flush(Packer *pk, PageOut *o)
{
    if (!pk->used)
        return;
    store_le(pk->page + 8, 8, pk->used);
    o->page(o, pk->page);
    o->pages++;
    pk->used = 0;
}

static void pk_word(Packer *pk, uint32_t w)
{
    store_le(pk->page + DAT_PAGE_HDR + pk->used, 4, w);
    pk->used += 4;
}

/* Does a record of len bytes at ts start a new page (whose timestamp is a whole u64)? */
static bool pk_needs_page(const Packer *pk, uint64_t ts, uint32_t len)
{
    return !pk->used || pk->used + rec_space(len, ts - pk->last) > DAT_PAGE_DATA || ts - pk->last >= RB_EXTEND_MAX;
}

/* Append a record (len <= REC_MAX) at time ts (>= the last), starting a new page when full. */
static void pk_add(Packer *pk, uint64_t ts, const uint8_t *data, uint32_t len, PageOut *o)
{
    if (pk_needs_page(pk, ts, len)) {
        pk_flush(pk, o);
        memset(pk->page, 0, DAT_PAGE);
        store_le(pk->page, 8, ts);
        pk->last = ts;
    }
    uint64_t delta = ts - pk->last;
    pk->last = ts;
    if (delta > RB_TS_MASK) {       /* rb_add_time_stamp: the delta's low bits, then the rest */
        pk_word(pk, RB_TYPE_TIME_EXTEND | (uint32_t)(delta & RB_TS_MASK) << 5);
        pk_word(pk, (uint32_t)(delta >> RB_TS_BITS));
        delta = 0;
    }
    if (len > RB_MAX_SMALL) {       /* rb_update_event: type_len 0, array[0] = length + 4 */
        pk_word(pk, (uint32_t)delta << 5);
        pk_word(pk, len + RB_ALIGN);
    } else {
        pk_word(pk, (len + RB_ALIGN - 1) / RB_ALIGN | (uint32_t)delta << 5);
    }
    memcpy(pk->page + DAT_PAGE_HDR + pk->used, data, len);
    pk->used += (len + RB_ALIGN - 1) / RB_ALIGN * RB_ALIGN;
}

/* ------------------------------------------------------------------ reading pages back */

typedef struct PageReader {
    const uint8_t *page;
    uint32_t pos, end;              /* in page */
    uint64_t ts;
} PageReader;

static void pr_start(PageReader *r, const uint8_t *page)
{
    r->page = page;
    r->ts = load_le(page, 8);
    r->pos = DAT_PAGE_HDR;
    r->end = DAT_PAGE_HDR + (uint32_t)load_le(page + 8, 4);
}

/* The next record of the page (our own pages: only the forms pk_add writes). */
static bool pr_next(PageReader *r, const uint8_t **data, uint32_t *len)
{
    while (r->pos + RB_EVENT_HDR <= r->end) {
        uint32_t w = (uint32_t)load_le(r->page + r->pos, 4), type = w & 31;
        r->ts += w >> 5;
        if (type == RB_TYPE_TIME_EXTEND) {
            r->ts += load_le(r->page + r->pos + 4, 4) << RB_TS_BITS;
            r->pos += RB_EXTEND;
            continue;
        }
        uint32_t hdr = RB_EVENT_HDR + (type ? 0 : RB_ALIGN);
        *len = type ? type * RB_ALIGN : (uint32_t)load_le(r->page + r->pos + 4, 4) - RB_ALIGN;
        *data = r->page + r->pos + hdr;
        r->pos += hdr + (*len + RB_ALIGN - 1) / RB_ALIGN * RB_ALIGN;
        return true;
    }
    return false;
}

/* ------------------------------------------------------------------ the event formats */

enum { DF_U64, DF_STR, DF_BYTES };

typedef struct DatKind {
    uint16_t fixed;                 /* bytes before the strings */
    int16_t present;                /* offset of `_present` (a name no key has); -1: none */
    uint8_t ndyn;                   /* strings and byte strings */
    uint16_t off[TRACE_MAX_FIELDS];
    uint8_t cls[TRACE_MAX_FIELDS];
} DatKind;

static const char common_fields[] =
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";

/* events/ftrace/<event>/format of Linux 6.1 (kernel/trace/trace_entries.h) */
static const char *const ftrace_formats[] = {
    "name: function\nID: 1\nformat:\n%s"
    "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n\n"
    "print fmt: \" %%ps <-- %%ps\", (void *)REC->ip, (void *)REC->parent_ip\n",
    "name: funcgraph_entry\nID: 11\nformat:\n%s"
    "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n\n"
    "print fmt: \"--> %%ps (%%d)\", (void *)REC->func, REC->depth\n",
    "name: funcgraph_exit\nID: 10\nformat:\n%s"
    "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n"
    "\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
    "\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n\n"
    "print fmt: \"<-- %%ps (%%d) (start: %%llx  end: %%llx) over: %%d\", (void *)REC->func, REC->depth, "
    "REC->calltime, REC->rettime, REC->depth\n",
};

/* the record layouts of the ftrace events above */
#define FN_SIZE 24
#define GRAPH_ENT_SIZE 20
#define GRAPH_RET_SIZE 40

static uint8_t field_class(TraceFieldType t)
{
    return t == TF_HEX || t == TF_DEC ? DF_U64 : t == TF_BYTES ? DF_BYTES : DF_STR;
}

static void layout_kind(DatKind *dk, const TraceKindDesc *kd)
{
    uint16_t off = COMMON_SIZE;
    bool opt = false;
    for (int pass = DF_U64; pass <= DF_STR; pass++)      /* the u64s first: aligned */
        for (int i = 0; i < kd->nfields; i++) {
            dk->cls[i] = field_class(kd->fields[i].type);
            if ((dk->cls[i] == DF_U64) != (pass == DF_U64))
                continue;
            dk->off[i] = off;
            off += dk->cls[i] == DF_U64 ? 8 : 4;
            dk->ndyn += dk->cls[i] != DF_U64;
            opt |= kd->fields[i].optional;
        }
    dk->present = opt ? (int16_t)off : -1;
    dk->fixed = off + (opt ? 4 : 0);
}

static void kind_name(char *buf, size_t len, const char *kind)
{
    snprintf(buf, len, "%s", kind);
    for (char *p = buf; *p; p++)
        if (*p == '-')
            *p = '_';               /* an event name is one C identifier for the format parser */
}

/* Is field i of kd left out of some events (optional, or the symbol of an optional address)? */
static bool field_optional(const TraceKindDesc *kd, int i)
{
    const TraceKindField *f = &kd->fields[i];
    return f->optional || (f->sym_of >= 0 && kd->fields[f->sym_of].optional);
}

/* Printed only when there: a string, or a hex number (%s prints a long-sized field in hex; a
 * decimal one, of which the registry has no optional one, prints always, 0 when absent). */
static bool print_if_present(const DatKind *dk, const TraceKindDesc *kd, int i)
{
    return field_optional(kd, i) && (dk->cls[i] == DF_STR || kd->fields[i].type == TF_HEX);
}

/* "key=value ..." as the text trace writes it.  A field that may be absent prints only when its
 * `_present` bit is set: a conditional (libtraceevent evaluates `c ? a : b` for %s, and prints a
 * long-sized field given to %s in hex), so the line has the text trace's keys. */
static void kind_print_fmt(Buf *b, const DatKind *dk, const TraceKindDesc *kd)
{
    buf_printf(b, "print fmt: \"");
    for (int i = 0; i < kd->nfields; i++) {
        const char *sep = i ? " " : "", *k = kd->fields[i].key;
        if (print_if_present(dk, kd, i))
            buf_printf(b, "%%s%%s");
        else if (dk->cls[i] == DF_U64)
            buf_printf(b, "%s%s=%s", sep, k, kd->fields[i].type == TF_DEC ? "%llu" : "0x%llx");
        else
            buf_printf(b, "%s%s=%%s", sep, k);
    }
    buf_printf(b, "\"");
    for (int i = 0; i < kd->nfields; i++) {
        const char *k = kd->fields[i].key;
        if (print_if_present(dk, kd, i))
            buf_printf(b, ", REC->_present & %u ? \"%s%s=%s\" : \"\"", 1u << i, i ? " " : "", k,
                       dk->cls[i] == DF_U64 ? "0x" : "");
        if (dk->cls[i] == DF_U64 && print_if_present(dk, kd, i))
            buf_printf(b, ", REC->_present & %u ? REC->%s : \"\"", 1u << i, k);
        else if (dk->cls[i] == DF_U64)
            buf_printf(b, ", REC->%s", k);
        else if (dk->cls[i] == DF_STR)
            buf_printf(b, ", __get_str(%s)", k);
        else
            buf_printf(b, ", __print_hex_str(__get_dynamic_array(%s), __get_dynamic_array_len(%s))", k, k);
    }
    buf_printf(b, "\n");
}

static void kind_format(Buf *b, int k, const DatKind *dk)
{
    const TraceKindDesc *kd = &trace_kinds[k];
    char name[64];
    kind_name(name, sizeof name, kd->name);
    buf_printf(b, "name: %s\nID: %d\nformat:\n%s", name, PMUSIM_ID_BASE + k, common_fields);
    for (int i = 0; i < kd->nfields; i++)
        buf_printf(b, "\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:0;\n",
                   dk->cls[i] == DF_U64 ? "u64" : dk->cls[i] == DF_STR ? "__data_loc char[]" : "__data_loc u8[]",
                   kd->fields[i].key, dk->off[i], dk->cls[i] == DF_U64 ? 8 : 4);
    if (dk->present >= 0)
        buf_printf(b, "\tfield:unsigned int _present;\toffset:%d;\tsize:4;\tsigned:0;\n", dk->present);
    buf_printf(b, "\n");
    kind_print_fmt(b, dk, kd);
}

/* ------------------------------------------------------------------ the sink */

typedef struct DatBlock {
    Packer pk;                      /* the page being filled */
    uint32_t *pages;                /* its full pages, by number in the spool */
    size_t npages, cap;
    uint64_t last;                  /* ns of its last event */
} DatBlock;

typedef struct DatSink {
    TraceSink sink;
    PageOut spool_out;              /* full pages go to the spool (spool_page) */
    OutFile out;
    TraceDatConfig cfg;
    int spool;                      /* unlinked temporary of full pages; -1 if none */
    uint32_t spooled;               /* pages in it */
    int spool_err;                  /* the first error writing it */
    int nblocks;
    DatBlock *blk;
    DatKind kinds[TK_COUNT];
    struct { const char *name; int k; } cache[1 << KIND_CACHE_BITS];
    uint64_t pages;                 /* pages started: --trace-limit */
    DatBlock *cur;                  /* the block spool_out writes for */
    GuestTrace guest;
    char uname[128];
    uint8_t rec[REC_MAX];
} DatSink;

static void spool_page(PageOut *o, const uint8_t *page)
{
    DatSink *s = (DatSink *)((char *)o - offsetof(DatSink, spool_out));
    DatBlock *b = s->cur;
    errno = 0;
    if (!s->spool_err && pwrite(s->spool, page, DAT_PAGE, (off_t)s->spooled * DAT_PAGE) != DAT_PAGE)
        s->spool_err = errno ? errno : ENOSPC;      /* a short write: the disk is full */
    if (b->npages == b->cap) {
        b->cap = b->cap * 2 + 64;
        b->pages = xrealloc(b->pages, b->cap * sizeof *b->pages);
    }
    b->pages[b->npages++] = s->spooled++;
}

static int kind_of(DatSink *s, const char *name)
{
    unsigned h = hash_fib((uint64_t)(uintptr_t)name, KIND_CACHE_BITS);   /* speed only: never in the output */
    if (s->cache[h].name == name)
        return s->cache[h].k;
    for (int k = 0; k < TK_COUNT; k++)
        if (!strcmp(trace_kinds[k].name, name)) {
            s->cache[h].name = name;
            s->cache[h].k = k;
            return k;
        }
    return -1;
}

/* A string or byte string at *dyn (at most room bytes), its __data_loc at off. */
static void put_dynamic(uint8_t *rec, uint16_t off, uint32_t *dyn, uint32_t room, const TraceField *f, bool str)
{
    uint32_t n = str ? (uint32_t)strlen(f->s) + 1 : f->n;
    if (n > room)
        n = room;
    if (n > STR_MAX)
        n = STR_MAX;
    memcpy(rec + *dyn, f->s, n);
    if (str && n)
        rec[*dyn + n - 1] = 0;      /* a cut string still ends */
    store_le(rec + off, 4, (uint64_t)n << 16 | *dyn);
    *dyn += n;
}

/* The record of ev (kind k) in s->rec; its length. */
static uint32_t encode(DatSink *s, const TraceEvent *ev, int k)
{
    const TraceKindDesc *kd = &trace_kinds[k];
    const DatKind *dk = &s->kinds[k];
    uint8_t *rec = s->rec;
    memset(rec, 0, dk->fixed);
    store_le(rec, 2, PMUSIM_ID_BASE + k);
    uint32_t dyn = dk->fixed, present = 0, later = dk->ndyn;    /* later: a byte each, at least */
    for (int i = 0, j = 0; j < kd->nfields; j++) {
        const TraceField *f = i < ev->nfields ? &ev->f[i] : NULL;
        bool there = f && (f->key == kd->fields[j].key || !strcmp(f->key, kd->fields[j].key));
        i += there;
        present |= (uint32_t)there << j;
        if (dk->cls[j] == DF_U64) {
            if (there)
                store_le(rec + dk->off[j], 8, f->u);
            continue;
        }
        later--;                    /* an optional string left out: an empty one */
        put_dynamic(rec, dk->off[j], &dyn, REC_MAX - later - dyn, there ? f : &(TraceField){ .s = "" },
                    dk->cls[j] == DF_STR);
    }
    if (dk->present >= 0)
        store_le(rec + dk->present, 4, present);
    return dyn;
}

static uint64_t cycles_to_ns(const DatSink *s, uint64_t cycle)
{
    return (uint64_t)((unsigned __int128)cycle * 1000000000u / s->cfg.cpu_hz);
}

static bool dat_emit(TraceSink *sink, const TraceEvent *ev, bool last)
{
    DatSink *s = (DatSink *)sink;
    int k = kind_of(s, ev->kind);
    if (k < 0)
        return true;                /* not in the registry: nothing describes it */
    DatBlock *b = &s->blk[ev->cpu >= 0 && ev->cpu < s->cfg.ncpus ? ev->cpu : s->cfg.ncpus];
    uint64_t ns = cycles_to_ns(s, ev->cycle);
    if (ns < b->last)               /* stamped before its CPU's previous event: at that one's time */
        ns = b->last;
    uint32_t len = encode(s, ev, k);
    if (pk_needs_page(&b->pk, ns, len)) {
        if (s->cfg.limit && !last && (s->pages + 1) * DAT_PAGE > s->cfg.limit)
            return false;
        s->pages++;
    }
    b->last = ns;
    s->cur = b;
    pk_add(&b->pk, ns, s->rec, len, &s->spool_out);
    return true;
}

static void dat_flush(TraceSink *sink)
{
}

/* ------------------------------------------------------------------ assembling the file */

/* One block's records in time order: its spooled pages, its page in memory, and the guest's
 * entries of that CPU, merged. */
typedef struct Merge {
    DatSink *s;
    DatBlock *b;
    size_t page;                    /* next of b->pages; then b->pk */
    bool in_mem;
    uint8_t buf[DAT_PAGE];
    PageReader pr;
    bool have_pr;
    int cpu;                        /* the guest's CPU, -1: none (the machine block) */
    size_t gi;                      /* next guest entry to look at */
    uint8_t grec[GRAPH_RET_SIZE];
} Merge;

static bool next_page(Merge *m)
{
    DatBlock *b = m->b;
    if (m->page < b->npages) {
        errno = 0;
        if (pread(m->s->spool, m->buf, DAT_PAGE, (off_t)b->pages[m->page++] * DAT_PAGE) != DAT_PAGE) {
            if (!m->s->spool_err)
                m->s->spool_err = errno ? errno : EIO;
            return false;
        }
        pr_start(&m->pr, m->buf);
        return true;
    }
    if (m->in_mem || !b->pk.used)
        return false;
    m->in_mem = true;
    memcpy(m->buf, b->pk.page, DAT_PAGE);
    store_le(m->buf + 8, 8, b->pk.used);
    pr_start(&m->pr, m->buf);
    return true;
}

static bool next_spooled(Merge *m, uint64_t *ts, const uint8_t **data, uint32_t *len)
{
    while (m->have_pr) {
        if (pr_next(&m->pr, data, len)) {
            *ts = m->pr.ts;
            return true;
        }
        m->have_pr = next_page(m);
    }
    return false;
}

/* The guest's entry e as an ftrace record in m->grec; its length. */
static uint32_t encode_guest(Merge *m, const GuestTraceEntry *e)
{
    const GuestTrace *gt = &m->s->guest;
    uint8_t *r = m->grec;
    memset(r, 0, sizeof m->grec);
    r[2] = e->flags;                /* TRACE_FLAG_IRQS_OFF, TRACE_FLAG_HARDIRQ as Linux's */
    store_le(r + 8, 8, e->ip);
    if (e->type == GT_FUNCTION) {
        store_le(r, 2, FTRACE_ID_FUNCTION);
        store_le(r + 16, 8, e->arg);
        return FN_SIZE;
    }
    store_le(r + 16, 4, e->depth);
    if (e->type == GT_GRAPH_ENTRY) {
        store_le(r, 2, FTRACE_ID_GRAPH_ENT);
        return GRAPH_ENT_SIZE;
    }
    store_le(r, 2, FTRACE_ID_GRAPH_RET);
    store_le(r + 24, 8, guesttrace_ns(gt, e->arg));
    store_le(r + 32, 8, guesttrace_ns(gt, e->ts));
    return GRAPH_RET_SIZE;
}

static const GuestTraceEntry *next_guest(Merge *m)
{
    const GuestTrace *gt = &m->s->guest;
    for (; m->cpu >= 0 && m->gi < gt->n; m->gi++) {
        const GuestTraceEntry *e = &gt->e[m->gi];
        if (e->cpu == m->cpu && e->type >= GT_FUNCTION && e->type <= GT_GRAPH_RETURN)
            return e;
    }
    return NULL;
}

/* Pack block bi, merged, into pages for o. */
static void merge_block(DatSink *s, int bi, PageOut *o)
{
    Merge *m = xcalloc(1, sizeof *m);
    *m = (Merge){ .s = s, .b = &s->blk[bi], .cpu = bi < s->cfg.ncpus ? bi : -1 };
    m->have_pr = next_page(m);
    Packer *pk = xcalloc(1, sizeof *pk);
    uint64_t ts = 0;
    const uint8_t *data = NULL;
    uint32_t len = 0;
    bool have = next_spooled(m, &ts, &data, &len);
    const GuestTraceEntry *g = next_guest(m);
    while (have || g) {
        uint64_t gts = g ? guesttrace_ns(&s->guest, g->ts) : 0;
        if (have && (!g || ts <= gts)) {
            pk_add(pk, ts, data, len, o);
            have = next_spooled(m, &ts, &data, &len);
        } else {
            pk_add(pk, gts < pk->last ? pk->last : gts, m->grec, encode_guest(m, g), o);   /* never back */
            m->gi++;
            g = next_guest(m);
        }
    }
    pk_flush(pk, o);
    free(pk);
    free(m);
}

typedef struct FileOut {
    PageOut po;
    OutFile *out;
} FileOut;

static void file_page(PageOut *o, const uint8_t *page)
{
    outfile_write(((FileOut *)o)->out, page, DAT_PAGE);
}

static void count_page(PageOut *o, const uint8_t *page)
{
}

static void header_formats(Buf *h, DatSink *s)
{
    Buf t = { 0 };
    buf_le(h, 4, ARRAY_SIZE(ftrace_formats));
    for (size_t i = 0; i < ARRAY_SIZE(ftrace_formats); i++) {
        t.n = 0;
        buf_printf(&t, ftrace_formats[i], common_fields);
        buf_sized(h, 8, &t);
    }
    buf_le(h, 4, 1);
    buf_put(h, "pmusim", sizeof "pmusim");
    buf_le(h, 4, TK_COUNT);
    for (int k = 0; k < TK_COUNT; k++) {
        t.n = 0;
        kind_format(&t, k, &s->kinds[k]);
        buf_sized(h, 8, &t);
    }
    free(t.p);
}

/* The image's symbols as /proc/kallsyms lists them: the kernel's own type letters when they
 * came from its kallsyms tables or a System.map. */
static void header_kallsyms(Buf *h, const Image *im)
{
    Buf t = { 0 };
    for (int i = 0; im && i < im->nsyms; i++) {
        const Symbol *s = &im->syms[i];
        if (s->name[0])
            buf_printf(&t, "%0*" PRIx64 " %c %s\n", im->is64 ? 16 : 8, s->addr, image_symbol_type(s), s->name);
    }
    buf_sized(h, 4, &t);
    free(t.p);
}

static void header_start(Buf *h, DatSink *s)
{
    buf_put(h, DAT_MAGIC, DAT_MAGIC_LEN);
    buf_put(h, DAT_VERSION, sizeof DAT_VERSION);
    buf_le(h, 1, 0);                /* little-endian */
    buf_le(h, 1, DAT_LONG_SIZE);
    buf_le(h, 4, DAT_PAGE);
    Buf t = { 0 };
    /* ring_buffer_print_page_header, ring_buffer_print_entry_header */
    buf_printf(&t, "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
                   "\tfield: local_t commit;\toffset:8;\tsize:%d;\tsigned:1;\n"
                   "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
                   "\tfield: char data;\toffset:%d;\tsize:%d;\tsigned:1;\n", DAT_LONG_SIZE, DAT_PAGE_HDR, DAT_PAGE_DATA);
    buf_put(h, "header_page", sizeof "header_page");
    buf_sized(h, 8, &t);
    t.n = 0;
    buf_printf(&t, "# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
                   "\tarray       :   32 bits\n\n\tpadding     : type == %d\n\ttime_extend : type == %d\n"
                   "\ttime_stamp : type == %d\n\tdata max type_len  == %d\n",
               RB_TYPE_PADDING, RB_TYPE_TIME_EXTEND, RB_TYPE_TIME_STAMP, RB_TYPE_DATA_MAX);
    buf_put(h, "header_event", sizeof "header_event");
    buf_sized(h, 8, &t);
    free(t.p);
}

static void header_option(Buf *h, uint16_t id, const char *text)
{
    buf_le(h, 2, id);
    buf_le(h, 4, strlen(text) + 1);
    buf_put(h, text, strlen(text) + 1);
}

/* The header's end: the CPU count, the options, the flyrecord table of blocks (counts[b] pages
 * of block b, from the first page boundary after the header), the trace clock, the padding. */
static void header_blocks(Buf *h, DatSink *s, const uint64_t *counts)
{
    buf_le(h, 4, s->nblocks);
    buf_put(h, "options  ", 10);
    header_option(h, TRACECMD_OPTION_TRACECLOCK, trace_clock_text);
    header_option(h, TRACECMD_OPTION_UNAME, s->uname);
    buf_le(h, 2, TRACECMD_OPTION_DONE);
    buf_put(h, "flyrecord", 10);
    uint64_t data = h->n + 16 * (uint64_t)s->nblocks + 8 + sizeof trace_clock_text - 1;
    data = (data + DAT_PAGE - 1) / DAT_PAGE * DAT_PAGE;
    for (int b = 0; b < s->nblocks; b++) {
        buf_le(h, 8, data);
        buf_le(h, 8, counts[b] * DAT_PAGE);
        data += counts[b] * DAT_PAGE;
    }
    buf_le(h, 8, sizeof trace_clock_text - 1);      /* version 6: the clock after the table */
    buf_put(h, trace_clock_text, sizeof trace_clock_text - 1);
    static const uint8_t zero[DAT_PAGE];
    buf_put(h, zero, (DAT_PAGE - h->n % DAT_PAGE) % DAT_PAGE);
}

/* Everything before the CPU data; counts[b] pages of block b follow it. */
static void write_header(DatSink *s, const uint64_t *counts)
{
    Buf h = { 0 };
    header_start(&h, s);
    header_formats(&h, s);
    header_kallsyms(&h, s->cfg.image);
    buf_le(&h, 4, 0);               /* printk formats */
    static const char cmdlines[] = "0 swapper\n";
    buf_le(&h, 8, sizeof cmdlines - 1);
    buf_put(&h, cmdlines, sizeof cmdlines - 1);
    header_blocks(&h, s, counts);
    outfile_write(&s->out, h.p, h.n);
    free(h.p);
}

static void assemble(DatSink *s)
{
    uint64_t *counts = xcalloc((size_t)s->nblocks, sizeof *counts);
    for (int b = 0; b < s->nblocks; b++) {
        PageOut count = { count_page, 0 };
        merge_block(s, b, &count);
        counts[b] = count.pages;
    }
    write_header(s, counts);
    FileOut fo = { { file_page, 0 }, &s->out };
    for (int b = 0; b < s->nblocks; b++)
        merge_block(s, b, &fo.po);
    free(counts);
}

static void dat_free(DatSink *s)
{
    for (int b = 0; b < s->nblocks; b++)
        free(s->blk[b].pages);
    free(s->blk);
    guesttrace_free(&s->guest);
    if (s->spool >= 0)
        close(s->spool);
    free(s);
}

static bool dat_close(TraceSink *sink, Error *err)
{
    DatSink *s = (DatSink *)sink;
    assemble(s);
    bool ok;
    if (s->spool_err) {
        outfile_discard(&s->out);
        ok = err_set(err, "--trace-dat %s: its spool: %s", s->cfg.path, strerror(s->spool_err));
    } else {
        ok = outfile_commit(&s->out, err);
    }
    dat_free(s);
    return ok;
}

void tracedat_add_guest(TraceSink *sink, GuestTrace *gt)
{
    DatSink *s = (DatSink *)sink;
    guesttrace_free(&s->guest);
    s->guest = *gt;
    memset(gt, 0, sizeof *gt);
}

void tracedat_abandon(TraceSink *sink)
{
    DatSink *s = (DatSink *)sink;
    if (s->out.tmp)
        unlink(s->out.tmp);
}

/* The spool: an unlinked temporary beside the output's own temporary (for a device or a pipe,
 * in $TMPDIR), so it never outlives pmusim. */
static int open_spool(const OutFile *o)
{
    const char *dir = getenv("TMPDIR");
    char tmpl[4096];
    if (o->tmp)
        snprintf(tmpl, sizeof tmpl, "%s.spool-XXXXXX", o->tmp);
    else
        snprintf(tmpl, sizeof tmpl, "%s/pmusim-trace-dat.spool-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(tmpl);
    if (fd >= 0)
        unlink(tmpl);
    return fd;
}

TraceSink *tracedat_open(const TraceDatConfig *cfg, Error *err)
{
    if (cfg->ncpus < 1 || cfg->ncpus >= MAX_BLOCKS || !cfg->cpu_hz)
        return err_set(err, "--trace-dat %s: %d CPUs at %" PRIu64 " Hz", cfg->path, cfg->ncpus, cfg->cpu_hz), NULL;
    DatSink *s = xcalloc(1, sizeof *s);
    s->cfg = *cfg;
    snprintf(s->uname, sizeof s->uname, "%s", cfg->uname ? cfg->uname : "pmusim");
    s->spool = -1;
    if (!outfile_open(&s->out, "--trace-dat", cfg->path, err)) {
        free(s);
        return NULL;
    }
    s->spool = open_spool(&s->out);
    if (s->spool < 0) {
        int e = errno;
        outfile_discard(&s->out);
        free(s);
        return err_set(err, "--trace-dat %s: cannot create its spool: %s", cfg->path, strerror(e)), NULL;
    }
    s->nblocks = cfg->ncpus + 1;
    s->blk = xcalloc((size_t)s->nblocks, sizeof *s->blk);
    for (int k = 0; k < TK_COUNT; k++)
        layout_kind(&s->kinds[k], &trace_kinds[k]);
    s->spool_out.page = spool_page;
    s->sink.emit = dat_emit;
    s->sink.flush = dat_flush;
    s->sink.close = dat_close;
    return &s->sink;
}
