/* test_cpio.c — the newc cpio writer and reader (base/cpio.h): the writer's exact layout and
 * reproducibility, the reader's fields, and cpio_check on the initrds Linux accepts (archives
 * one after another, NUL padding, compressed data, a RAM-disk image) and on malformed archives,
 * each refused with the file and the offset of what is wrong. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/cpio.h"
#include "testutil.h"

#define PATH "t.cpio"
static const char init_data[] = "#!init\n";     /* 7 bytes: the data needs a pad of 1 */

/* dev/, dev/console (c 5 1), init: the shape of the scenario's initramfs */
static void sample(CpioWriter *w)
{
    cpio_writer_init(w);
    cpio_add(w, "dev", S_IFDIR | 0755, 0, 0, NULL, 0);
    cpio_add(w, "dev/console", S_IFCHR | 0600, 5, 1, NULL, 0);
    cpio_add(w, "init", S_IFREG | 0755, 0, 0, init_data, strlen(init_data));
    cpio_finish(w);
}

/* A copy of the sample archive that the caller edits and frees; *len its size. */
static uint8_t *sample_copy(size_t *len)
{
    CpioWriter w;
    sample(&w);
    uint8_t *p = malloc(w.len + 64);
    memcpy(p, w.buf, w.len);
    *len = w.len;
    cpio_writer_free(&w);
    return p;
}

/* The offset of the header of the entry named `name` in the sample. */
static uint64_t entry_at(const uint8_t *p, size_t len, const char *name)
{
    CpioEntry e;
    Error err;
    for (uint64_t off = 0; cpio_entry(p, len, off, PATH, &e, &err); off = e.next)
        if (!strcmp(e.name, name))
            return off;
    ck_abort_msg("no entry %s", name);
    return 0;
}

/* cpio_check refuses p[0..len) with a message containing `want` */
static void refused(const uint8_t *p, size_t len, const char *want)
{
    Error err = { { 0 } };
    ck_assert_msg(!cpio_check(p, len, PATH, &err), "accepted; wanted: %s", want);
    ck_assert_msg(strstr(err.msg, want), "message \"%s\" lacks \"%s\"", err.msg, want);
    ck_assert_msg(!strncmp(err.msg, PATH ": offset 0x", strlen(PATH ": offset 0x")), "%s", err.msg);
}

START_TEST(writer_layout_is_newc)
{
    CpioWriter w;
    sample(&w);
    /* the first header, field by field (buffer-format.rst) */
    static const char first[] = "070701" "00000001" "000041ED" "00000000" "00000000" "00000002" "00000000"
                                "00000000" "00000000" "00000000" "00000000" "00000000" "00000004" "00000000";
    ck_assert_int_eq(strlen(first), CPIO_HEADER_SIZE);
    ck_assert(!memcmp(w.buf, first, CPIO_HEADER_SIZE));
    ck_assert(!memcmp(w.buf + CPIO_HEADER_SIZE, "dev\0\0\0", 6));      /* 110 + 4 -> 116: 2 NULs of pad */
    ck_assert_uint_eq(w.len % 512, 0);
    CpioEntry e;
    Error err;
    uint64_t off = entry_at(w.buf, w.len, "dev/console");
    ck_assert(cpio_entry(w.buf, w.len, off, PATH, &e, &err));
    ck_assert_uint_eq(e.ino, 2);
    ck_assert_uint_eq(e.mode, S_IFCHR | 0600);
    ck_assert_uint_eq(e.rmaj, 5);
    ck_assert_uint_eq(e.rmin, 1);
    ck_assert_uint_eq(e.nlink, 1);
    ck_assert(cpio_entry(w.buf, w.len, e.next, PATH, &e, &err));
    ck_assert_str_eq(e.name, "init");
    ck_assert_uint_eq(e.ino, 3);
    ck_assert_uint_eq(e.size, strlen(init_data));
    ck_assert(!memcmp(e.data, init_data, e.size));
    ck_assert_uint_eq((uintptr_t)(e.data - w.buf) % 4, 0);
    ck_assert_uint_eq(e.next % 4, 0);
    ck_assert(cpio_entry(w.buf, w.len, e.next, PATH, &e, &err));
    ck_assert_str_eq(e.name, CPIO_TRAILER);
    ck_assert_uint_eq(e.ino, 0);
    cpio_writer_free(&w);
}
END_TEST

START_TEST(writer_is_reproducible)
{
    CpioWriter a, b;
    sample(&a);
    sample(&b);
    ck_assert_uint_eq(a.len, b.len);
    ck_assert(!memcmp(a.buf, b.buf, a.len));
    cpio_writer_free(&a);
    cpio_writer_free(&b);
}
END_TEST

START_TEST(check_accepts_what_linux_unpacks)
{
    Error err = { { 0 } };
    size_t len;
    uint8_t *p = sample_copy(&len), *two = calloc(1, 2 * len + 8 + 2);
    ck_assert_msg(cpio_check(p, len, PATH, &err), "%s", err.msg);
    memcpy(two, p, len);                            /* archive, 8 NULs, archive, gzip magic */
    memcpy(two + len + 8, p, len);
    memcpy(two + 2 * len + 8, "\x1f\x8b", 2);
    ck_assert_msg(cpio_check(two, 2 * len + 10, PATH, &err), "%s", err.msg);
    ck_assert(cpio_check((const uint8_t *)"1\n2\n3\n", 6, PATH, &err));    /* a RAM-disk image */
    ck_assert(cpio_check((const uint8_t *)"0\n1\n", 4, PATH, &err));
    ck_assert(cpio_check((const uint8_t *)"\x1f\x8b\x08", 3, PATH, &err));  /* gzip: unchecked */
    ck_assert(cpio_check(two + len, 8, PATH, &err));                        /* NULs only */
    ck_assert(cpio_check(p, 0, PATH, &err));
    free(two);
    free(p);
}
END_TEST

/* refused(), with the offset in the message formatted from `at` */
static void refused_at(const uint8_t *p, size_t len, uint64_t at, const char *what)
{
    char want[256];
    snprintf(want, sizeof want, "offset 0x%" PRIx64 ": %s", at, what);
    refused(p, len, want);
}

/* A fresh copy of the sample with `n` bytes of `s` at `at`. */
static uint8_t *edited(uint64_t at, const char *s, size_t n, size_t *len)
{
    uint8_t *p = sample_copy(len);
    memcpy(p + at, s, n);
    return p;
}

START_TEST(check_refuses_malformed_archives)
{
    size_t len;
    uint8_t *p = sample_copy(&len);
    uint64_t console = entry_at(p, len, "dev/console"), init = entry_at(p, len, "init");
    uint64_t trailer = entry_at(p, len, CPIO_TRAILER);
    free(p);
    p = sample_copy(&len);
    refused_at(p, 50, 0, "a cpio header (110 bytes) runs past the end of the file (50 bytes)");
    refused_at(p, trailer, trailer, "the archive ends without its TRAILER!!! entry");
    refused_at(p, init + 120, init + 116, "init's 7 bytes of data run past the end of the file");
    p[len] = 'J';
    refused_at(p, len + 1, len, "junk after the archive");
    memcpy(p + len, "\0" "0707", 5);
    refused_at(p, len + 5, len + 1, "a cpio header not at a multiple of 4");
    free(p);
    struct { uint64_t at; const char *bytes, *what; uint64_t where; } edits[] = {
        { 0, "070707", "an old-format cpio header (070707)", 0 },
        { console, "x", "no cpio magic", console },
        { init + 17, "g", "header field c_mode is not 8 hex digits", init + 14 },
        { init + 94, "00000000", "name size 0 (1 to 4096, with its NUL)", init + 94 },
        { init + 94, "00001001", "name size 4097", init + 94 },
        { init + 114, "x", "the name is not 5 bytes ending with its only NUL", init + 110 },
    };
    for (size_t i = 0; i < ARRAY_SIZE(edits); i++) {
        p = edited(edits[i].at, edits[i].bytes, strlen(edits[i].bytes), &len);
        refused_at(p, len, edits[i].where, edits[i].what);
        free(p);
    }
}
END_TEST

/* 070702: the data's byte sum is checked, as Linux checks it (init/initramfs.c). */
START_TEST(check_verifies_the_crc_format_sum)
{
    size_t len;
    uint8_t *p = sample_copy(&len);
    uint64_t init = entry_at(p, len, "init");
    uint32_t sum = 0;
    char hex[9];
    for (size_t i = 0; i < strlen(init_data); i++)
        sum += (uint8_t)init_data[i];
    memcpy(p + init, "070702", 6);
    char what[128];
    snprintf(what, sizeof what, "init's data sum 0x%08" PRIx32 ", its header says 0x00000000", sum);
    refused_at(p, len, init + 116, what);
    snprintf(hex, sizeof hex, "%08" PRIX32, sum);
    memcpy(p + init + 102, hex, 8);
    Error err = { { 0 } };
    ck_assert_msg(cpio_check(p, len, PATH, &err), "%s", err.msg);
    free(p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cpio");
    TCase *t = tcase_create("cpio");
    tcase_add_test(t, writer_layout_is_newc);
    tcase_add_test(t, writer_is_reproducible);
    tcase_add_test(t, check_accepts_what_linux_unpacks);
    tcase_add_test(t, check_refuses_malformed_archives);
    tcase_add_test(t, check_verifies_the_crc_format_sum);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
