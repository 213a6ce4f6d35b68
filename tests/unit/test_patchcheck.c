/* test_patchcheck.c — the patch validator's rules, with sites added by hand and code writes fed
 * as the chokepoint reports them: allowed forms per architecture, a site left torn, a write to a
 * non-site, the x86 INT3 protocol on SMP (with and without the syncs), arm64 concurrent
 * modification, jump-label sizes; the state through a checkpoint.  (The guests exercise the same
 * through real patching: tests/e2e/test_ftrace.sh, tests/e2e/test_checkpoint.sh.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/state.h"
#include "testutil.h"
#include "lxbuild.h"
#include "tracer/linuxpatch.h"
#include "tracer/patchcheck.h"

static uint64_t base;           /* where the fixture is loaded: RAM on every board */
#define SITE (base + 0x2000u)
#define MCOUNT (base + 0x3000u)
#define TRAMP (base + 0x3100u)

static Machine *m;
static PatchCheck pc;
static PatchCheck twin;         /* restored from pc's saved state; fed the same writes once on */
static bool twin_on;

static void setup(Arch arch, const unsigned char *blob, unsigned len, int ncpus)
{
    base = arch == ARCH_ARM64 ? 0x40080000u : 0;
    m = tm_create(arch, blob, len, base, base, 0, ncpus);
    Error err = { { 0 } };
    ck_assert_msg(patchcheck_init(&pc, &m->cl, &m->image, &err), "%s", err.msg);
    pc.mcount = MCOUNT;
    ck_assert(patchcheck_add_trampoline(&pc, TRAMP));
}

static void teardown(void)
{
    patchcheck_destroy(&pc);
    if (twin.cl)
        patchcheck_destroy(&twin);
    twin_on = false;
    tm_destroy(m);
}

/* A store by cpu of `len` bytes at addr, as the chokepoint reports it. */
static void store(int cpu, uint64_t addr, const uint8_t *bytes, unsigned len)
{
    uint8_t *p = mem_ptr(&m->mem, addr, len);
    m->cl.cpus[cpu]->cycles++;
    CodeWrite w = { .cpu = cpu, .pc = 0x1234, .cycle = m->cl.cpus[cpu]->cycles, .addr = addr, .va = addr, .size = len };
    memcpy(w.old_bytes, p, len);
    memcpy(w.new_bytes, bytes, len);
    memcpy(p, bytes, len);
    patchcheck_on_write(&pc, &w);
    if (twin_on)
        patchcheck_on_write(&twin, &w);
}

static void put(uint64_t addr, const uint8_t *bytes, unsigned len)
{
    memcpy(mem_ptr(&m->mem, addr, len), bytes, len);
}

/* A site holding `bytes` (as the image would have it). */
static void site(PatchKind kind, uint64_t addr, const uint8_t *bytes, unsigned len, uint64_t target)
{
    put(addr, bytes, len);
    ck_assert(patchcheck_add_site(&pc, kind, addr, len, target));
}

/* The other CPU serialises (takes an interrupt) after everything so far. */
static void sync_cpu1(void)
{
    m->cl.cpus[1]->exc.serialized_at = m->cl.cpus[1]->cycles = m->cl.cpus[0]->cycles += 10;
}

static void x86_call(uint8_t *b, uint64_t at, uint64_t to)
{
    int32_t rel = (int32_t)(to - (at + 5));
    b[0] = 0xe8;
    memcpy(b + 1, &rel, 4);
}

static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

START_TEST(x86_up_patch_in_two_stores_is_one_transition)
{
    setup(ARCH_X86_64, blob_x86_64_exc, blob_x86_64_exc_len, 1);
    uint8_t call[5];
    x86_call(call, SITE, MCOUNT);
    site(PATCH_FTRACE, SITE, call, 5, 0);
    store(0, SITE, nop5, 1);                        /* torn for a moment */
    ck_assert(pc.sites[0].torn);
    store(0, SITE + 1, nop5 + 1, 4);
    ck_assert(!pc.sites[0].torn);
    x86_call(call, SITE, TRAMP);
    store(0, SITE, call, 5);
    patchcheck_finish(&pc);
    ck_assert_uint_eq(pc.sites[0].transitions, 2);
    ck_assert_uint_eq(pc.nv, 0);
    teardown();
}
END_TEST

START_TEST(x86_wrong_nop_size_and_stray_write_are_violations)
{
    setup(ARCH_X86_64, blob_x86_64_exc, blob_x86_64_exc_len, 1);
    uint8_t call[5];
    x86_call(call, SITE, MCOUNT);
    site(PATCH_FTRACE, SITE, call, 5, 0);
    site(PATCH_FTRACE, SITE + 16, call, 5, 0);
    static const uint8_t two_nops[5] = { 0x66, 0x90, 0x0f, 0x1f, 0x00 };
    store(0, SITE, two_nops, 5);
    ck_assert_uint_eq(pc.nv, 0);                    /* maybe a patch in progress */
    store(0, SITE + 16, nop5, 5);                   /* the writer moved on: it was left torn */
    ck_assert_uint_eq(pc.nv, 1);
    ck_assert(strstr(pc.v[0].what, "left holding"));
    store(0, SITE + 8, nop5, 2);                    /* no site there */
    ck_assert_uint_eq(pc.nv, 2);
    ck_assert(strstr(pc.v[1].what, "unexpected code write"));
    teardown();
}
END_TEST

START_TEST(x86_smp_needs_the_int3_protocol_and_its_syncs)
{
    setup(ARCH_X86_64, blob_x86_64_exc, blob_x86_64_exc_len, 2);
    m->cl.cpus[1]->state = CPU_RUNNING;
    site(PATCH_FTRACE, SITE, nop5, 5, 0);
    uint8_t call[5], int3 = 0xcc;
    x86_call(call, SITE, TRAMP);
    /* text_poke_bp: INT3, sync, tail, sync, first byte */
    store(0, SITE, &int3, 1);
    sync_cpu1();
    store(0, SITE + 1, call + 1, 2);
    store(0, SITE + 3, call + 3, 2);                /* the tail may take several stores */
    sync_cpu1();
    store(0, SITE, call, 1);
    ck_assert_uint_eq(pc.nv, 0);
    ck_assert_uint_eq(pc.sites[0].transitions, 1);
    /* the same without the second sync */
    store(0, SITE, &int3, 1);
    sync_cpu1();
    store(0, SITE + 1, nop5 + 1, 4);
    store(0, SITE, nop5, 1);
    ck_assert_uint_eq(pc.nv, 1);
    ck_assert(strstr(pc.v[0].what, "before cpu 1 serialised"));
    /* and in place, no INT3 */
    store(0, SITE, call, 5);
    ck_assert_uint_eq(pc.nv, 2);
    ck_assert(strstr(pc.v[1].what, "without the INT3 protocol"));
    teardown();
}
END_TEST

START_TEST(x86_jump_labels_keep_their_size)
{
    setup(ARCH_X86_64, blob_x86_64_exc, blob_x86_64_exc_len, 1);
    static const uint8_t jmp2[2] = { 0xeb, 0x10 }, nop2[2] = { 0x66, 0x90 };
    site(PATCH_JUMP, SITE, jmp2, 2, SITE + 2 + 0x10);
    store(0, SITE, nop2, 2);
    store(0, SITE, jmp2, 2);
    ck_assert_uint_eq(pc.sites[0].transitions, 2);
    static const uint8_t wrong[2] = { 0xeb, 0x20 };  /* a jump elsewhere */
    store(0, SITE, wrong, 2);
    patchcheck_finish(&pc);
    ck_assert_uint_eq(pc.nv, 1);
    teardown();
}
END_TEST

static void a64(uint8_t *b, uint32_t w)
{
    memcpy(b, &w, 4);       /* the host is little-endian, like the guest */
}

START_TEST(arm64_concurrent_modification_is_limited)
{
    setup(ARCH_ARM64, blob_arm64_exc, blob_arm64_exc_len, 2);
    uint8_t b[8];
    a64(b, 0xd503201fu);
    a64(b + 4, 0xd503201fu);
    site(PATCH_FTRACE, SITE, b, 8, 0);
    a64(b, 0xaa1e03e9u);                            /* mov x9, x30: only with one CPU up */
    store(0, SITE, b, 4);
    ck_assert_uint_eq(pc.nv, 0);
    m->cl.cpus[1]->state = CPU_RUNNING;
    uint32_t bl = 0x94000000u | ((TRAMP - (SITE + 4)) >> 2);
    a64(b, bl);
    store(0, SITE + 4, b, 4);                       /* NOP -> BL: allowed */
    ck_assert_uint_eq(pc.nv, 0);
    ck_assert_uint_eq(pc.sites[0].transitions, 2);
    a64(b, 0xd503201fu);
    store(0, SITE, b, 4);                           /* MOV -> NOP under a running CPU */
    ck_assert_uint_eq(pc.nv, 1);
    ck_assert(strstr(pc.v[0].what, "concurrent modification"));
    teardown();
}
END_TEST

static void be32(uint8_t *b, uint32_t w)
{
    b[0] = (uint8_t)(w >> 24), b[1] = (uint8_t)(w >> 16), b[2] = (uint8_t)(w >> 8), b[3] = (uint8_t)w;
}

START_TEST(ppc32_mcount_nop_trampoline)
{
    setup(ARCH_PPC32, blob_ppc32_exc, blob_ppc32_exc_len, 1);
    uint8_t b[4];
    be32(b, 0x48000001u | ((MCOUNT - SITE) & 0x03fffffcu));
    site(PATCH_FTRACE, SITE, b, 4, 0);
    static const uint8_t nop[4] = { 0x60, 0, 0, 0 };
    store(0, SITE, nop, 4);
    be32(b, 0x48000001u | ((TRAMP - SITE) & 0x03fffffcu));
    store(0, SITE, b, 4);
    patchcheck_finish(&pc);
    ck_assert_uint_eq(pc.sites[0].transitions, 2);
    ck_assert_uint_eq(pc.nv, 0);
    teardown();
}
END_TEST

/* The twin: the same sites and trampolines as pc, from the bytes the image has (call before any
 * store, as a restored run's validator is made from the image). */
static void twin_setup(void)
{
    Error err = { { 0 } };
    ck_assert_msg(patchcheck_init(&twin, &m->cl, &m->image, &err), "%s", err.msg);
    twin.mcount = pc.mcount;
    ck_assert(patchcheck_add_trampoline(&twin, TRAMP));
    for (int i = 0; i < pc.n; i++)
        ck_assert(patchcheck_add_site(&twin, pc.sites[i].kind, pc.sites[i].addr, pc.sites[i].len, pc.sites[i].target));
}

/* pc's state saved, with byte `at` replaced by `v` when at >= 0, and loaded into the twin. */
static bool twin_load(long at, uint8_t v, BlobReader *r)
{
    Blob b;
    blob_init(&b);
    patchcheck_save(&pc, &b);
    if (at >= 0)
        b.data[at] = v;
    br_init(r, b.data, b.len, 0);
    bool ok = patchcheck_load(&twin, r) && r->off == r->len;
    blob_free(&b);
    return ok;
}

static char *report(const PatchCheck *p)
{
    char *text;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    patchcheck_report(p, f);
    fclose(f);
    return text;
}

START_TEST(x86_state_saved_mid_int3_protocol_continues_identically)
{
    setup(ARCH_X86_64, blob_x86_64_exc, blob_x86_64_exc_len, 2);
    m->cl.cpus[1]->state = CPU_RUNNING;
    site(PATCH_FTRACE, SITE, nop5, 5, 0);
    twin_setup();
    uint8_t call[5], int3 = 0xcc;
    x86_call(call, SITE, TRAMP);
    store(0, SITE + 8, nop5, 2);                    /* a violation before the checkpoint */
    store(0, SITE, &int3, 1);                       /* text_poke_bp under way ... */
    sync_cpu1();
    store(0, SITE + 1, call + 1, 4);                /* ... the tail written: the checkpoint */
    BlobReader r;
    ck_assert_msg(twin_load(-1, 0, &r), "%s at %zu", r.bad, r.fail_at);
    twin_on = true;
    store(0, SITE, call, 1);                        /* the first byte before the second sync */
    x86_call(call, SITE, MCOUNT);
    store(0, SITE, call, 5);                        /* and a change in place */
    patchcheck_finish(&pc);
    patchcheck_finish(&twin);
    ck_assert_uint_eq(pc.nv, 3);
    ck_assert_uint_eq(twin.nv, pc.nv);
    char *a = report(&pc), *b = report(&twin);
    ck_assert_str_eq(b, a);
    free(a);
    free(b);
    teardown();
}
END_TEST

START_TEST(saved_state_out_of_range_or_for_other_sites_is_refused)
{
    setup(ARCH_X86_64, blob_x86_64_exc, blob_x86_64_exc_len, 1);
    site(PATCH_FTRACE, SITE, nop5, 5, 0);
    twin_setup();
    BlobReader r;
    /* the section header (name length, "patchcheck", version, length: 26 bytes), n, then the
     * site: addr, len, kind, form[32], transitions, hist[0] at offset 26 + 50 */
    enum { PAYLOAD = 26 };
    ck_assert(!twin_load(PAYLOAD + 50, 200, &r));
    ck_assert_str_eq(r.bad, "hist");
    ck_assert_uint_eq(r.fail_at, PAYLOAD + 50);
    ck_assert(!twin_load(PAYLOAD + 4, 0x01, &r));    /* another site address */
    ck_assert_str_eq(r.bad, "a patch site the image does not have");
    ck_assert(!twin_load(PAYLOAD, 2, &r));           /* another site count */
    ck_assert_str_eq(r.bad, "another set of patch sites");
    ck_assert(twin_load(-1, 0, &r));
    teardown();
}
END_TEST

/* ------------------------------------------------------------------ an arm64 Linux Image's tables */

/* The synthetic Image of lxbuild.h, linked at LXB_LINK and loaded at base. */
static uint8_t lx[LXB_SIZE];

static void lx_build(void)
{
    lxb_build(lx);
}

static void lx32(unsigned off, uint32_t v)
{
    memcpy(lx + off, &v, 4);
}

static void lx_rel(unsigned field, unsigned to)
{
    lx32(field, (uint32_t)((int32_t)to - (int32_t)field));
}

/* The machine with lx loaded and its symbols; patchcheck_init's verdict in err. */
static bool lx_setup(int skip_sym, Error *err)
{
    base = 0x40080000u;
    m = tm_create(ARCH_ARM64, lx, sizeof lx, base, base, 0, 1);
    Image *im = &m->image;
    im->segs[0].vaddr = LXB_LINK;
    im->syms = xcalloc(LXB_NSYMS, sizeof *im->syms);
    for (unsigned i = 0; i < LXB_NSYMS; i++)
        if ((int)i != skip_sym)
            im->syms[im->nsyms++] = (Symbol){ .addr = LXB_LINK + lxb_syms[i].off, .name = lxb_syms[i].name, .type = 'T' };
    return patchcheck_init(&pc, &m->cl, im, err);
}

static const PatchSite *lx_site(unsigned off)
{
    for (int i = 0; i < pc.n; i++)
        if (pc.sites[i].addr == base + off)
            return &pc.sites[i];
    return NULL;
}

static void lx_expect(unsigned off, PatchKind kind, unsigned len)
{
    const PatchSite *s = lx_site(off);
    ck_assert_msg(s, "no site at +0x%x", off);
    ck_assert_uint_eq(s->kind, kind);
    ck_assert_uint_eq(s->len, len);
}

START_TEST(linux_tables_give_every_kind_of_site)
{
    lx_build();
    Error err = { { 0 } };
    ck_assert_msg(lx_setup(-1, &err), "%s", err.msg);
    ck_assert(pc.linux_tables);
    ck_assert_int_eq(pc.n, 10);                     /* the zero mcount entry is skipped */
    lx_expect(LXB_FN_A, PATCH_OPS, 8);
    lx_expect(LXB_FN_A + 8, PATCH_FTRACE, 8);
    lx_expect(LXB_FN_B, PATCH_OPS, 8);
    lx_expect(LXB_FN_B + 12, PATCH_FTRACE, 8);       /* after the BTI */
    lx_expect(LXB_JUMP, PATCH_JUMP, 4);
    ck_assert_uint_eq(lx_site(LXB_JUMP)->target, base + LXB_JUMP_TO);
    lx_expect(LXB_ALT, PATCH_ALT, 8);
    lx_expect(LXB_CB, PATCH_ALT_CB, 4);
    lx_expect(LXB_PTR, PATCH_RTCONST, 16);
    lx_expect(LXB_SHIFT, PATCH_RTCONST, 4);
    lx_expect(LXB_HYP, PATCH_HYP, 8);
    ck_assert_uint_eq(pc.init_start, base + LXB_INIT);
    ck_assert_uint_eq(pc.init_end, base + LXB_INIT_END);
    teardown();
}
END_TEST

static void lx_store32(unsigned off, uint32_t w)
{
    uint8_t b[4];
    a64(b, w);
    store(0, base + off, b, 4);
}

START_TEST(linux_patches_in_allowed_forms_are_explained)
{
    lx_build();
    Error err = { { 0 } };
    ck_assert_msg(lx_setup(-1, &err), "%s", err.msg);
    uint8_t ops[8] = { 0x30, 0x81, 0xf9, 0x80, 0x00, 0x80, 0xff, 0xff };
    store(0, base + LXB_FN_A, ops, 8);               /* ftrace_rec_set_ops: any pointer */
    lx_store32(LXB_FN_A + 8, 0xaa1e03e9u);           /* ftrace_init_nop */
    lx_store32(LXB_FN_A + 12, 0x94000000u | ((LXB_CALLER - (LXB_FN_A + 12)) >> 2));  /* ftrace_make_call */
    lx_store32(LXB_JUMP, A64_B(LXB_JUMP, LXB_JUMP_TO));
    lx_store32(LXB_ALT, 0xc8dffc20u);                /* the replacement, its branch moved */
    lx_store32(LXB_ALT + 4, A64_B(LXB_ALT + 4, LXB_BRANCH_TO));
    lx_store32(LXB_CB, 0xd2800000u);                 /* a callback writes what it wants */
    lx_store32(LXB_PTR, 0xd2900001u);                /* new imm16 */
    lx_store32(LXB_SHIFT, 0x530f7f20u);              /* new shift */
    uint8_t hyp[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    store(0, base + LXB_HYP, hyp, 8);
    uint8_t poison[8];
    memset(poison, 0xcc, sizeof poison);
    store(0, base + LXB_INIT, poison, 8);            /* free_initmem */
    lx_store32(LXB_INIT + 0x10, 0x12345678u);        /* the freed page reused */
    patchcheck_finish(&pc);
    ck_assert_msg(pc.nv == 0, "%s", pc.nv ? pc.v[0].what : "");
    ck_assert_uint_eq(pc.kind_writes[PATCH_OPS] + pc.kind_writes[PATCH_FTRACE], 3);
    ck_assert_uint_eq(pc.kind_writes[PATCH_ALT] + pc.kind_writes[PATCH_ALT_CB], 3);
    ck_assert_uint_eq(pc.kind_writes[PATCH_RTCONST], 2);
    ck_assert_uint_eq(pc.freed_writes, 2);
    ck_assert_uint_eq(lx_site(LXB_ALT)->transitions, 1);
    teardown();
}
END_TEST

START_TEST(linux_writes_no_table_explains_are_violations)
{
    lx_build();
    Error err = { { 0 } };
    ck_assert_msg(lx_setup(-1, &err), "%s", err.msg);
    lx_store32(LXB_ALT, 0xc8dffc20u);
    lx_store32(LXB_ALT + 4, lx[LXB_REPL + 4] | (uint32_t)lx[LXB_REPL + 5] << 8 | (uint32_t)lx[LXB_REPL + 6] << 16 |
                           (uint32_t)lx[LXB_REPL + 7] << 24);    /* the branch not moved: torn */
    lx_store32(LXB_PTR + 4, 0xf2a00002u);            /* movk into another register */
    lx_store32(LXB_INIT + 0x10, 0x12345678u);        /* init text before it is freed */
    lx_store32(0x20, 0xd2800000u);                  /* no site */
    patchcheck_finish(&pc);
    ck_assert_uint_eq(pc.stray_writes, 2);
    ck_assert_uint_eq(pc.nv, 4);
    ck_assert(strstr(pc.v[0].what, "unexpected code write") || strstr(pc.v[0].what, "left holding"));
    bool writer = false;
    for (size_t i = 0; i < pc.nv; i++)
        writer |= strstr(pc.v[i].what, "writer sym=") != NULL;
    ck_assert(writer);
    teardown();
}
END_TEST

START_TEST(linux_malformed_tables_are_refused_with_their_offset)
{
    lx_build();
    lx[LXB_ALTS + 10] = 6;                           /* orig_len: not whole instructions */
    Error err = { { 0 } };
    ck_assert(!lx_setup(-1, &err));
    ck_assert_msg(strstr(err.msg, "offset 0x1040: .altinstructions entry 0"), "%s", err.msg);
    teardown();
    lx_build();
    memset(&err, 0, sizeof err);
    ck_assert(!lx_setup(7, &err));                  /* __stop_mcount_loc missing */
    ck_assert_msg(strstr(err.msg, "__mcount_loc: the symbols"), "%s", err.msg);
    teardown();
    lx_build();
    lx_rel(LXB_JT, LXB_FN_A + 4);                     /* a jump label inside an ftrace site */
    memset(&err, 0, sizeof err);
    ck_assert(!lx_setup(-1, &err));
    ck_assert_msg(strstr(err.msg, "overlaps another"), "%s", err.msg);
    teardown();
}
END_TEST

START_TEST(linux_alternative_branches_keep_their_targets)
{
    uint64_t orig = LXB_LINK + 0x1000, alt = LXB_LINK + 0x90000, to = LXB_LINK + 0x2000;
    uint32_t b = A64_B(alt, to);
    ck_assert_uint_eq(linuxpatch_alt_insn(b, orig, alt, alt, 8), A64_B(orig, to));
    uint32_t inside = A64_B(alt, alt + 4);          /* within the replacement: unchanged */
    ck_assert_uint_eq(linuxpatch_alt_insn(inside, orig, alt, alt, 8), inside);
    uint32_t cbz = 0xb4000000u | (uint32_t)(((to - alt) >> 2) & 0x7ffff) << 5;
    ck_assert_uint_eq(linuxpatch_alt_insn(cbz, orig, alt, alt, 8), 0xb4000000u | (uint32_t)(((to - orig) >> 2) & 0x7ffff) << 5);
    uint32_t adrp = 0x90000000u;                    /* adrp x0, <alt's page> */
    uint32_t moved = linuxpatch_alt_insn(adrp, orig, alt, alt, 8);
    uint64_t pages = (alt >> 12) - (orig >> 12);    /* 0x8f pages up */
    ck_assert_uint_eq(moved, 0x90000000u | (uint32_t)(pages & 3) << 29 | (uint32_t)(pages >> 2) << 5);
    ck_assert_uint_eq(linuxpatch_alt_insn(0xf9400020u, orig, alt, alt, 8), 0xf9400020u);
}
END_TEST

Suite *patchcheck_suite(void)
{
    Suite *s = suite_create("patchcheck");
    TCase *t = tcase_create("rules");
    tcase_add_test(t, x86_up_patch_in_two_stores_is_one_transition);
    tcase_add_test(t, x86_state_saved_mid_int3_protocol_continues_identically);
    tcase_add_test(t, saved_state_out_of_range_or_for_other_sites_is_refused);
    tcase_add_test(t, x86_wrong_nop_size_and_stray_write_are_violations);
    tcase_add_test(t, x86_smp_needs_the_int3_protocol_and_its_syncs);
    tcase_add_test(t, x86_jump_labels_keep_their_size);
    tcase_add_test(t, arm64_concurrent_modification_is_limited);
    tcase_add_test(t, ppc32_mcount_nop_trampoline);
    suite_add_tcase(s, t);
    TCase *lt = tcase_create("linux tables");
    tcase_add_test(lt, linux_tables_give_every_kind_of_site);
    tcase_add_test(lt, linux_patches_in_allowed_forms_are_explained);
    tcase_add_test(lt, linux_writes_no_table_explains_are_violations);
    tcase_add_test(lt, linux_malformed_tables_are_refused_with_their_offset);
    tcase_add_test(lt, linux_alternative_branches_keep_their_targets);
    suite_add_tcase(s, lt);
    return s;
}

int main(void)
{
    return testutil_run(patchcheck_suite());
}
