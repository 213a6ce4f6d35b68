/* linuxpatch.c — an arm64 Linux Image's patch tables (see linuxpatch.h).
 *
 * Encodings (Arm ARM C4.1, C6.2):
 *   B, BL            imm26 in [25:0]       (insn & 0x7c000000) == 0x14000000
 *   CBZ, CBNZ        imm19 in [23:5]       (insn & 0x7e000000) == 0x34000000
 *   B.cond           imm19 in [23:5]       (insn & 0xff000010) == 0x54000000
 *   TBZ, TBNZ        imm14 in [18:5]       (insn & 0x7e000000) == 0x36000000
 *   ADRP             immhi [23:5], immlo [30:29], x 4 KiB   (insn & 0x9f000000) == 0x90000000
 *   BTI {c,j,jc}     (insn & 0xffffff3f) == 0xd503241f
 */
#include "tracer/linuxpatch.h"

#include <stdlib.h>
#include <string.h>

#include "tracer/patchcheck.h"

enum {
    MCOUNT_ENTRY = 8,               /* unsigned long */
    JUMP_ENTRY = 16,                /* struct jump_entry on 64-bit */
    ALT_ENTRY = 12,                 /* struct alt_instr */
    ALT_CB_BIT = 1u << 15,          /* ARM64_CB_BIT */
    A64_INSN = 4,
    A64_FTRACE_SITE = 8,            /* the two NOPs: mov x9, x30; bl */
    A64_OPS_LITERAL = 8,            /* CALL_OPS: the ftrace_ops pointer before the function */
    A64_ADRP_PAGE = 4096,
    HYP_RELOC_WORD = 8,             /* the u64 a hyp relocation rewrites */
    KSYM_NAME = 128,                /* a table's bounding symbol: __stop_ + a variable's name */
};

/* A table: its link address, file offset and size. */
typedef struct Table {
    const char *name;
    uint64_t addr, offset, size;
} Table;

/* A site to add, with where it came from for messages. */
typedef struct Cand {
    uint64_t addr;                  /* physical */
    uint64_t target;
    uint64_t offset;                /* the table entry's file offset */
    const char *table;
    uint8_t len, kind;
} Cand;

typedef struct Cands {
    Cand *c;
    size_t n, cap;
} Cands;

static void cand_add(Cands *cs, const Table *t, uint64_t off, PatchKind kind, uint64_t addr, unsigned len,
                     uint64_t target)
{
    if (cs->n == cs->cap) {
        cs->cap = cs->cap ? 2 * cs->cap : 4096;
        cs->c = xrealloc(cs->c, cs->cap * sizeof *cs->c);
    }
    cs->c[cs->n++] = (Cand){ addr, target, t->offset + off, t->name, (uint8_t)len, (uint8_t)kind };
}

static uint64_t le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static uint64_t rel32(const uint8_t *p, uint64_t field)
{
    return field + (uint64_t)(int64_t)(int32_t)le(p, 4);
}

/* The file offset of `len` bytes at link address va, false if the Image's file has no such bytes. */
static bool file_at(const Image *im, uint64_t va, uint64_t len, uint64_t *off)
{
    const Segment *s = &im->segs[0];
    if (va < s->vaddr || va - s->vaddr > s->filesz || len > s->filesz - (va - s->vaddr))
        return false;
    *off = s->offset + (va - s->vaddr);
    return true;
}

/* The table between two symbols; t->size 0 if the image has neither. */
static bool find_table(const Image *im, const char *name, const char *start, const char *stop, Table *t, Error *err)
{
    uint64_t a, b;
    *t = (Table){ name, 0, 0, 0 };
    bool has_a = image_symbol_addr(im, start, &a), has_b = image_symbol_addr(im, stop, &b);
    if (!has_a && !has_b)
        return true;
    if (!has_a || !has_b || b < a || !file_at(im, a, b - a, &t->offset))
        return err_set(err, "%s: %s: the symbols %s and %s do not bound bytes of the image (0x%" PRIx64 "-0x%" PRIx64
                       ")", im->path, name, start, stop, has_a ? a : 0, has_b ? b : 0);
    t->addr = a;
    t->size = b - a;
    return true;
}

/* ------------------------------------------------------------------ __mcount_loc */

static bool a64_is_bti(uint32_t insn)
{
    return (insn & 0xffffff3fu) == 0xd503241fu;
}

static bool mcount_entry(const Image *im, Cands *cs, const Table *t, uint64_t off, bool call_ops, Error *err)
{
    uint64_t p = le(im->data + t->offset + off, MCOUNT_ENTRY), at;
    if (!p)
        return true;                        /* a dropped weak function (scripts/sorttable.c) */
    if (call_ops && p % A64_OPS_LITERAL)
        return true;                        /* ftrace_call_adjust refuses it: never patched */
    uint64_t site = call_ops ? p + A64_OPS_LITERAL : p;
    if (!file_at(im, p, site - p + A64_INSN + A64_FTRACE_SITE, &at))
        return err_set(err, "%s: offset 0x%" PRIx64 ": %s entry %" PRIu64 ": 0x%" PRIx64 " is not in the image",
                       im->path, t->offset + off, t->name, off / MCOUNT_ENTRY, p);
    if (call_ops && a64_is_bti((uint32_t)le(im->data + at + A64_OPS_LITERAL, A64_INSN)))
        site += A64_INSN;
    if (call_ops)
        cand_add(cs, t, off, PATCH_OPS, image_load_addr(im, p), A64_OPS_LITERAL, 0);
    cand_add(cs, t, off, PATCH_FTRACE, image_load_addr(im, site), A64_FTRACE_SITE, 0);
    return true;
}

static bool mcount_sites(const Image *im, Cands *cs, Error *err)
{
    Table t;
    if (!find_table(im, "__mcount_loc", "__start_mcount_loc", "__stop_mcount_loc", &t, err))
        return false;
    uint64_t x;
    bool call_ops = image_symbol_addr(im, "ftrace_list_ops", &x);     /* kernel/trace/ftrace.c */
    for (uint64_t off = 0; off + MCOUNT_ENTRY <= t.size; off += MCOUNT_ENTRY)
        if (!mcount_entry(im, cs, &t, off, call_ops, err))
            return false;
    return true;
}

/* ------------------------------------------------------------------ __jump_table */

static bool jump_sites(const Image *im, Cands *cs, Error *err)
{
    Table t;
    if (!find_table(im, "__jump_table", "__start___jump_table", "__stop___jump_table", &t, err))
        return false;
    for (uint64_t off = 0; off + JUMP_ENTRY <= t.size; off += JUMP_ENTRY) {
        const uint8_t *e = im->data + t.offset + off;
        uint64_t code = rel32(e, t.addr + off), target = rel32(e + 4, t.addr + off + 4);
        cand_add(cs, &t, off, PATCH_JUMP, image_load_addr(im, code), A64_INSN, image_load_addr(im, target));
    }
    return true;
}

/* ------------------------------------------------------------------ .altinstructions */

static int64_t sext(uint64_t v, unsigned bits)
{
    return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

/* A branch's immediate field: its shift and width (the offset is imm * 4); 0 width if none. */
static void branch_field(uint32_t insn, unsigned *lsb, unsigned *width)
{
    *lsb = 5;
    *width = 0;
    if ((insn & 0x7c000000u) == 0x14000000u) {
        *lsb = 0;
        *width = 26;
    } else if ((insn & 0x7e000000u) == 0x34000000u || (insn & 0xff000010u) == 0x54000000u) {
        *width = 19;
    } else if ((insn & 0x7e000000u) == 0x36000000u) {
        *width = 14;
    }
}

uint32_t linuxpatch_alt_insn(uint32_t insn, uint64_t orig, uint64_t alt, uint64_t alt_start, unsigned alt_len)
{
    unsigned lsb, width;
    branch_field(insn, &lsb, &width);
    if (width) {
        uint32_t mask = ((1u << width) - 1) << lsb;
        uint64_t target = alt + (uint64_t)(sext((insn & mask) >> lsb, width) * A64_INSN);
        if (target >= alt_start && target <= alt_start + alt_len)
            return insn;                    /* a branch within the replacement (branch_insn_requires_update) */
        uint64_t d = (target - orig) / A64_INSN;
        return (insn & ~mask) | (((uint32_t)d << lsb) & mask);
    }
    if ((insn & 0x9f000000u) == 0x90000000u) {      /* ADRP: the same 4 KiB page */
        uint64_t imm = ((insn >> 5) & 0x7ffffu) << 2 | ((insn >> 29) & 3u);
        uint64_t page = (alt & ~(uint64_t)(A64_ADRP_PAGE - 1)) + (uint64_t)(sext(imm, 21) * A64_ADRP_PAGE);
        uint64_t d = (page - (orig & ~(uint64_t)(A64_ADRP_PAGE - 1))) / A64_ADRP_PAGE;
        return (insn & 0x9f00001fu) | ((uint32_t)(d & 3u) << 29) | ((uint32_t)((d >> 2) & 0x7ffffu) << 5);
    }
    return insn;
}

/* One alt_instr: sites of at most PATCH_MAX_LEN bytes over its original code. */
static bool alt_entry(PatchCheck *pc, const Image *im, Cands *cs, const Table *t, uint64_t off, Error *err)
{
    const uint8_t *e = im->data + t->offset + off;
    uint64_t orig = rel32(e, t->addr + off), alt = rel32(e + 4, t->addr + off + 4), at, from = 0;
    unsigned cap = (unsigned)le(e + 8, 2), olen = e[10], alen = e[11];
    bool cb = cap & ALT_CB_BIT;
    if (olen % A64_INSN || (!cb && alen != olen) || !file_at(im, orig, olen, &at) ||
        (!cb && !file_at(im, alt, alen, &from)))
        return err_set(err, "%s: offset 0x%" PRIx64 ": %s entry %" PRIu64 ": original 0x%" PRIx64 "+%u, %s 0x%" PRIx64
                       "+%u: not whole instructions in the image", im->path, t->offset + off, t->name,
                       off / ALT_ENTRY, orig, olen, cb ? "callback" : "replacement", alt, alen);
    for (unsigned k = 0; k < olen; k += PATCH_MAX_LEN) {
        unsigned n = olen - k < PATCH_MAX_LEN ? olen - k : PATCH_MAX_LEN;
        uint64_t target = alt;
        if (!cb) {
            uint8_t b[PATCH_MAX_LEN];
            for (unsigned i = 0; i < n; i += A64_INSN) {
                uint32_t w = linuxpatch_alt_insn((uint32_t)le(im->data + from + k + i, A64_INSN), orig + k + i,
                                                 alt + k + i, alt, alen);
                for (unsigned j = 0; j < A64_INSN; j++)
                    b[i + j] = (uint8_t)(w >> (8 * j));
            }
            target = patchcheck_add_alt_bytes(pc, b, n);
        }
        cand_add(cs, t, off, cb ? PATCH_ALT_CB : PATCH_ALT, image_load_addr(im, orig + k), n, target);
    }
    return true;
}

static bool alt_sites(PatchCheck *pc, const Image *im, Cands *cs, Error *err)
{
    Table t;
    if (!find_table(im, ".altinstructions", "__alt_instructions", "__alt_instructions_end", &t, err))
        return false;
    for (uint64_t off = 0; off + ALT_ENTRY <= t.size; off += ALT_ENTRY)
        if (!alt_entry(pc, im, cs, &t, off, err))
            return false;
    return true;
}

/* ------------------------------------------------------------------ runtime constants, hyp relocations */

/* A table of s32 entries, each relative to itself, each naming a site of len bytes. */
static bool rel32_sites(const Image *im, Cands *cs, const Table *t, PatchKind kind, unsigned len)
{
    for (uint64_t off = 0; off + 4 <= t->size; off += 4) {
        uint64_t at = rel32(im->data + t->offset + off, t->addr + off);
        cand_add(cs, t, off, kind, image_load_addr(im, at), len, 0);
    }
    return true;
}

/* Every __start_runtime_<shift|ptr>_NAME .. __stop_runtime_..._NAME (RUNTIME_CONST in
 * include/asm-generic/vmlinux.lds.h: one table per constant). */
static bool rtconst_sites(const Image *im, Cands *cs, Error *err)
{
    static const struct { const char *prefix; unsigned len; } kinds[] = {
        { "__start_runtime_shift_", LINUX_RTCONST_SHIFT_LEN },
        { "__start_runtime_ptr_", LINUX_RTCONST_PTR_LEN },
    };
    for (int i = 0; i < im->nsyms; i++)
        for (unsigned k = 0; k < ARRAY_SIZE(kinds); k++) {
            const char *name = im->syms[i].name;
            size_t pl = strlen(kinds[k].prefix);
            if (strncmp(name, kinds[k].prefix, pl))
                continue;
            char stop[KSYM_NAME];
            snprintf(stop, sizeof stop, "__stop_%s", name + strlen("__start_"));
            Table t;
            if (!find_table(im, name, name, stop, &t, err) || !rel32_sites(im, cs, &t, PATCH_RTCONST, kinds[k].len))
                return false;
        }
    return true;
}

static bool hyp_sites(const Image *im, Cands *cs, Error *err)
{
    Table t;
    return find_table(im, "__hyp_reloc", "__hyp_reloc_begin", "__hyp_reloc_end", &t, err) &&
           rel32_sites(im, cs, &t, PATCH_HYP, HYP_RELOC_WORD);
}

/* ------------------------------------------------------------------ all of them */

static int cand_cmp(const void *a, const void *b)
{
    const Cand *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;     /* distinct entries: a total order */
}

static bool add_all(PatchCheck *pc, const Image *im, Cands *cs, Error *err)
{
    if (cs->n)                      /* (cs->c is NULL with no candidates: qsort's argument must not be) */
        qsort(cs->c, cs->n, sizeof *cs->c, cand_cmp);
    for (size_t i = 0; i < cs->n; i++) {
        const Cand *c = &cs->c[i];
        if (!patchcheck_add_site(pc, (PatchKind)c->kind, c->addr, c->len, c->target))
            return err_set(err, "%s: offset 0x%" PRIx64 ": %s entry: site 0x%" PRIx64 "+%u overlaps another or is not "
                           "in RAM", im->path, c->offset, c->table, c->addr, c->len);
    }
    return true;
}

static void init_range(PatchCheck *pc, const Image *im)
{
    uint64_t a, b;
    if (image_symbol_addr(im, "__init_begin", &a) && image_symbol_addr(im, "__init_end", &b) && a < b) {
        pc->init_start = image_load_addr(im, a);
        pc->init_end = image_load_addr(im, b);
    }
}

bool linuxpatch_load(PatchCheck *pc, const Image *im, Error *err)
{
    if (im->nsecs || im->nsegs != 1 || im->arch != ARCH_ARM64 || !im->nsyms)
        return true;                        /* an ELF has its sections (patchcheck.c) */
    Cands cs = { 0 };
    bool ok = mcount_sites(im, &cs, err) && jump_sites(im, &cs, err) && alt_sites(pc, im, &cs, err) &&
              rtconst_sites(im, &cs, err) && hyp_sites(im, &cs, err) && add_all(pc, im, &cs, err);
    if (ok && cs.n) {
        pc->linux_tables = true;
        init_range(pc, im);
    }
    free(cs.c);
    return ok;
}
