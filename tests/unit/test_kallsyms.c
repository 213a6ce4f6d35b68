/* test_kallsyms.c — the kallsyms reader (base/kallsyms.c) on synthetic tables (tests/unit/
 * ksbuild.c): both byte orders and word sizes, both table orders, absolute-percpu offsets, long
 * names; malformed tables each refused with a message naming the table and the offset;
 * System.map; and an arm64 Image's symbols through the loader (link address, physical PCs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/kallsyms.h"
#include "base/loader.h"
#include "ksbuild.h"
#include "testutil.h"

#define NSYMS 700                       /* three markers */
#define BASE64 0xffff800080000000ull
#define BASE32 0xc0000000ull
#define PREFIX 4093                     /* filler before the tables: not aligned */

static KsbSym syms[NSYMS];
static char names[NSYMS][KSYM_NAME_LEN];

/* _text, start_kernel, a 300-character name (two length bytes), then fn_NNNN of mixed types;
 * the address order, a few sharing an address. */
static void make_syms(uint64_t base)
{
    static const char types[] = "TtDdBbRrWV";
    for (int i = 0; i < NSYMS; i++) {
        if (i == 0)
            snprintf(names[i], sizeof names[i], "_text");
        else if (i == 1)
            snprintf(names[i], sizeof names[i], "start_kernel");
        else if (i == 2)
            snprintf(names[i], sizeof names[i], "long_%0295d", 7);
        else
            snprintf(names[i], sizeof names[i], "fn_%04d.isra", i);
        syms[i] = (KsbSym){ base + (uint64_t)(i / 3) * 0x40, i == 0 ? 'T' : types[i % 10], names[i] };
    }
}

static uint8_t *build(const KsbOptions *o, uint64_t base, size_t *len, KSymLayout *at)
{
    make_syms(base);
    return ksb_build(syms, NSYMS, base, o, len, at);
}

static void check_table(const KSymTable *t, const KSymLayout *at)
{
    ck_assert_uint_eq(t->n, NSYMS);
    for (int i = 0; i < NSYMS; i++) {
        ck_assert_uint_eq(t->syms[i].addr, syms[i].addr);
        ck_assert_int_eq(t->syms[i].type, syms[i].type);
        ck_assert_str_eq(t->names + t->syms[i].name, syms[i].name);
    }
    ck_assert_uint_eq(t->at.num_syms, at->num_syms);
    ck_assert_uint_eq(t->at.names, at->names);
    ck_assert_uint_eq(t->at.markers, at->markers);
    ck_assert_uint_eq(t->at.token_table, at->token_table);
    ck_assert_uint_eq(t->at.token_index, at->token_index);
    ck_assert_uint_eq(t->at.offsets, at->offsets);
    ck_assert_uint_eq(t->at.relative_base, at->relative_base);
    ck_assert_uint_eq(t->at.seqs_of_names, at->seqs_of_names);
    ck_assert_int_eq(t->at.absolute_percpu, at->absolute_percpu);
}

static void read_back(const KsbOptions *o)
{
    uint64_t base = o->is64 ? BASE64 : BASE32;
    size_t len;
    KSymLayout at;
    uint8_t *b = build(o, base, &len, &at);
    KSymTable t;
    Error err = { { 0 } };
    ck_assert_msg(ksyms_find(&t, b, len, o->is64, o->big_endian, "img", &err), "%s", err.msg);
    check_table(&t, &at);
    ck_assert_uint_eq(t.relative_base, base);
    ck_assert_ptr_nonnull(ksyms_lookup(&t, "start_kernel"));
    ck_assert_ptr_null(ksyms_lookup(&t, "start_kerne"));
    ksyms_free(&t);
    /* the other byte order finds nothing */
    ck_assert(!ksyms_find(&t, b, len, o->is64, !o->big_endian, "img", &err));
    free(b);
}

START_TEST(widths_and_orders)
{
    for (int k = 0; k < 4; k++) {
        KsbOptions o = { .is64 = k & 1, .big_endian = k & 2, .prefix = PREFIX };
        read_back(&o);
        o.old_order = true;
        read_back(&o);
    }
}
END_TEST

/* CONFIG_KALLSYMS_ABSOLUTE_PERCPU: per-CPU symbols (below the base) absolute, the rest
 * negative offsets from the base. */
START_TEST(absolute_percpu)
{
    KsbOptions o = { .is64 = true, .absolute_percpu = true, .prefix = 64 };
    make_syms(BASE64);
    for (int i = 0; i < 10; i++)
        syms[i].addr = 0x1000 + (uint64_t)i * 8;
    size_t len;
    KSymLayout at;
    uint8_t *b = ksb_build(syms, NSYMS, BASE64, &o, &len, &at);
    KSymTable t;
    Error err = { { 0 } };
    ck_assert_msg(ksyms_find(&t, b, len, true, false, "img", &err), "%s", err.msg);
    check_table(&t, &at);
    ksyms_free(&t);
    free(b);
}
END_TEST

/* A malformed copy of the 64-bit little-endian tables: corrupt(b, at) breaks it; the message
 * must name the file, `what` and an offset. */
static void refused(void (*corrupt)(uint8_t *b, size_t *len, const KSymLayout *at), const char *what)
{
    KsbOptions o = { .is64 = true, .prefix = PREFIX };
    size_t len;
    KSymLayout at;
    uint8_t *b = build(&o, BASE64, &len, &at);
    corrupt(b, &len, &at);
    KSymTable t;
    Error err = { { 0 } };
    ck_assert_msg(!ksyms_find(&t, b, len, true, false, "bad.img", &err), "accepted (%s)", what);
    ck_assert_msg(strstr(err.msg, "bad.img: ") == err.msg, "%s", err.msg);
    ck_assert_msg(strstr(err.msg, what), "expected '%s' in: %s", what, err.msg);
    ck_assert_msg(strstr(err.msg, "offset") || strstr(err.msg, "bytes"), "%s", err.msg);
    free(b);
}

static void no_tables(uint8_t *b, size_t *len, const KSymLayout *at)
{
    memset(b, 0, *len);
    (void)at;
}
static void token_not_printable(uint8_t *b, size_t *len, const KSymLayout *at)
{
    b[at->token_table + 1] = 0x01;      /* inside the token of code 0 */
    (void)len;
}
static void marker_moved(uint8_t *b, size_t *len, const KSymLayout *at)
{
    store_le(b + at->markers + 4, 4, load_le(b + at->markers + 4, 4) + 1);
    (void)len;
}
static void marker_descending(uint8_t *b, size_t *len, const KSymLayout *at)
{
    store_le(b + at->markers + 8, 4, 1);
    (void)len;
}
static void count_wrong(uint8_t *b, size_t *len, const KSymLayout *at)
{
    store_le(b + at->num_syms, 4, 3);
    (void)len;
}
static void name_length_zero(uint8_t *b, size_t *len, const KSymLayout *at)
{
    b[at->names] = 0;
    (void)len;
}
static void offsets_unordered(uint8_t *b, size_t *len, const KSymLayout *at)
{
    store_le(b + at->offsets + 40 * 4, 4, 0x7ffffff0);
    (void)len;
}
static void truncated_offsets(uint8_t *b, size_t *len, const KSymLayout *at)
{
    (void)b;
    *len = at->offsets + 100;
}
static void truncated_names(uint8_t *b, size_t *len, const KSymLayout *at)
{
    (void)b;
    *len = at->names + 100;
}

START_TEST(malformed)
{
    refused(no_tables, "no kallsyms_token_index");
    refused(token_not_printable, "no kallsyms_token_index");
    refused(marker_moved, "kallsyms_markers[1]");
    refused(marker_descending, "no kallsyms_markers end before it");
    refused(count_wrong, "no kallsyms_num_syms and kallsyms_names");
    refused(name_length_zero, "symbol 0 has length 0");
    refused(offsets_unordered, "kallsyms_offsets: symbol 41 is below");
    refused(truncated_offsets, "no kallsyms_offsets after kallsyms_token_index");
    refused(truncated_names, "no kallsyms_token_index");
}
END_TEST

/* A name of 300 codes of 2-character tokens expands past KSYM_NAME_LEN. */
START_TEST(name_too_long)
{
    KsbOptions o = { .is64 = true };
    make_syms(BASE64);
    char big[KSYM_NAME_LEN + 100] = "";
    for (int i = 0; i < 300; i++)
        strcat(big, "__");              /* 300 codes, 600 characters */
    syms[5].name = big;
    size_t len;
    KSymLayout at;
    uint8_t *b = ksb_build(syms, NSYMS, BASE64, &o, &len, &at);
    KSymTable t;
    Error err = { { 0 } };
    ck_assert(!ksyms_find(&t, b, len, true, false, "img", &err));
    ck_assert_msg(strstr(err.msg, "symbol 5 expands to more than 512"), "%s", err.msg);
    free(b);
}
END_TEST

START_TEST(system_map)
{
    static const char good[] = "ffff800080000000 T _text\n"
                               "ffff800080010000 t __pi__stext\n"
                               "0000000000000000 A _kernel_flags_le\n"
                               "ffff800080010000 T _stext\n"
                               "ffff800080f4d1b0 T schedule\n"
                               "ffff800081000000 D jiffies";
    KSymTable t;
    Error err = { { 0 } };
    ck_assert_msg(ksyms_parse_map(&t, good, strlen(good), "System.map", &err), "%s", err.msg);
    ck_assert_uint_eq(t.n, 5);          /* the absolute one left out */
    ck_assert_str_eq(t.names + t.syms[4].name, "jiffies");
    ck_assert_int_eq(t.syms[4].type, 'D');
    ck_assert_uint_eq(ksyms_lookup(&t, "schedule")->addr, 0xffff800080f4d1b0ull);
    ksyms_free(&t);
    static const char *const bad[] = { "ffff800080000000 T _text\nzzzz T x\n", "ffff800080000000 T _text\n\n",
                                       "ffff800080000000 T  two spaces\n", "00000000000000001 T x\n",
                                       "ffff800080000000 T _text\nffff T\n", "" };
    static const char *const said[] = { "line 2 ", "line 2 ", "line 1 ", "line 1 ", "line 2 ", "no symbols" };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        ck_assert_msg(!ksyms_parse_map(&t, bad[i], strlen(bad[i]), "System.map", &err), "accepted %s", bad[i]);
        ck_assert_msg(strstr(err.msg, "System.map: ") == err.msg && strstr(err.msg, said[i]), "%s", err.msg);
    }
}
END_TEST

/* The arm64 Image header (booting.rst): magic "ARM\x64" at 56. */
static uint8_t *arm64_image(size_t *len)
{
    KsbOptions o = { .is64 = true, .prefix = 0x1000 };
    KSymLayout at;
    uint8_t *b = build(&o, BASE64, len, &at);
    memset(b, 0, 64);
    memcpy(b + 56, "ARM\x64", 4);
    return b;
}

START_TEST(image_symbols)
{
    size_t len;
    uint8_t *b = arm64_image(&len);
    const char *path = testutil_temp_file(b, len, ".Image");
    Image im;
    Error err = { { 0 } };
    ck_assert_msg(image_load_raw(&im, path, ARCH_ARM64, 0x40200000, 0x40200000, &err), "%s", err.msg);
    ck_assert_int_eq(im.nsyms, NSYMS);
    ck_assert_ptr_null(im.nosyms);
    ck_assert_uint_eq(im.segs[0].vaddr, BASE64);            /* _text */
    ck_assert_uint_eq(im.segs[0].paddr, 0x40200000);
    ck_assert_uint_eq(image_load_addr(&im, BASE64 + 0x40), 0x40200040);
    char buf[64];
    ck_assert_str_eq(image_describe(&im, BASE64 + 0x44, buf, sizeof buf), "fn_0003.isra+0x4");
    ck_assert_str_eq(image_describe(&im, 0x40200044, buf, sizeof buf), "fn_0003.isra+0x4");  /* MMU off */
    ck_assert_str_eq(image_describe(&im, BASE64 + 4, buf, sizeof buf), "_text+0x4");  /* the first at its address */
    uint64_t a;
    ck_assert(image_symbol_addr(&im, "fn_0003.isra", &a) && a == BASE64 + 0x40);
    /* --symbols: a System.map replaces them and moves the link address */
    static const char map[] = "ffff800090000000 T _text\nffff800090000100 T other\n";
    const char *mp = testutil_temp_file(map, strlen(map), ".map");
    ck_assert_msg(image_load_symbols(&im, mp, &err), "%s", err.msg);
    ck_assert_int_eq(im.nsyms, 2);
    ck_assert_uint_eq(im.segs[0].vaddr, 0xffff800090000000ull);
    ck_assert_str_eq(image_describe(&im, 0x40200104, buf, sizeof buf), "other+0x4");
    static const char badmap[] = "ffff800090000000 T _text\nnonsense\n";
    mp = testutil_temp_file(badmap, strlen(badmap), ".map");
    ck_assert(!image_load_symbols(&im, mp, &err));
    ck_assert_msg(strstr(err.msg, mp) && strstr(err.msg, "line 2"), "%s", err.msg);
    image_free(&im);
    /* no tables: no symbols, and why */
    memset(b + 64, 0, len - 64);
    path = testutil_temp_file(b, len, ".Image");
    ck_assert(image_load_raw(&im, path, ARCH_ARM64, 0x40200000, 0x40200000, &err));
    ck_assert_int_eq(im.nsyms, 0);
    ck_assert_msg(im.nosyms && strstr(im.nosyms, "no kallsyms_token_index"), "%s", im.nosyms);
    image_free(&im);
    free(b);
}
END_TEST

/* --symbols vmlinux: an ELF's symbol table replaces kallsyms; one of another architecture, or
 * without symbols, is refused. */
START_TEST(elf_symbols)
{
    size_t len;
    uint8_t *b = arm64_image(&len);
    const char *path = testutil_temp_file(b, len, ".Image");
    Image im, elf;
    Error err = { { 0 } };
    ck_assert_msg(image_load_raw(&im, path, ARCH_ARM64, 0x40200000, 0x40200000, &err), "%s", err.msg);
    const char *guest = testutil_build_path("guest/arm64/hello.elf");
    ck_assert_msg(image_load_elf(&elf, guest, &err), "%s", err.msg);
    ck_assert_msg(image_load_symbols(&im, guest, &err), "%s", err.msg);
    ck_assert_int_eq(im.nsyms, elf.nsyms);
    ck_assert_str_eq(im.syms[0].name, elf.syms[0].name);
    ck_assert_uint_eq(im.segs[0].vaddr, BASE64);            /* no _text: the link address stays */
    ck_assert(!image_load_symbols(&im, testutil_build_path("guest/x86_64/hello.elf"), &err));
    ck_assert_msg(strstr(err.msg, "the ELF is x86_64, the image arm64"), "%s", err.msg);
    image_free(&elf);
    image_free(&im);
    free(b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kallsyms");
    TCase *tc = tcase_create("kallsyms");
    tcase_add_test(tc, widths_and_orders);
    tcase_add_test(tc, absolute_percpu);
    tcase_add_test(tc, malformed);
    tcase_add_test(tc, name_too_long);
    tcase_add_test(tc, system_map);
    tcase_add_test(tc, image_symbols);
    tcase_add_test(tc, elf_symbols);
    suite_add_tcase(s, tc);
    return testutil_run(s);
}
