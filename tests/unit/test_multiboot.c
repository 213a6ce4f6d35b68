/* test_multiboot.c — the multiboot v1 header (base/multiboot.h): where it is found, its
 * refusals (each naming the field and the offset), the a.out kludge's load, the information
 * structure and memory map. */
#include <string.h>

#include "base/multiboot.h"
#include "testutil.h"

#define HDR 0x40                        /* where the header is in the test image */
#define LEN 0x400

/* An image with a header at HDR: flags, and with bit 16 the a.out fields for a load at
 * 0x100000 (the file's first byte) of the whole file and a BSS to 0x102000. */
static uint8_t *image(uint32_t flags)
{
    static uint8_t b[LEN];
    memset(b, 0, sizeof b);
    uint32_t w[] = { MB_HEADER_MAGIC, flags, -(MB_HEADER_MAGIC + flags), 0x100000 + HDR, 0x100000, 0x100000 + LEN,
                     0x102000, 0x100080 };
    for (unsigned i = 0; i < 8; i++)
        store_le(b + HDR + 4 * i, 4, w[i]);
    return b;
}

static const char *refusal(const uint8_t *b, size_t len)
{
    static Error err;
    MbHeader h;
    memset(&err, 0, sizeof err);
    if (multiboot_header(b, len, "k.mb", &h, &err)) {
        MbLoad ld;
        ck_assert_msg(!multiboot_aout_load(&h, len, "k.mb", &ld, &err), "accepted");
    }
    ck_assert_msg(strstr(err.msg, "k.mb"), "%s", err.msg);
    return err.msg;
}

START_TEST(header_and_aout_load)
{
    MbHeader h;
    MbLoad ld;
    Error err = { { 0 } };
    uint8_t *b = image(MB_FLAG_AOUT | MB_FLAG_MEMORY);
    ck_assert_msg(multiboot_header(b, LEN, "k", &h, &err), "%s", err.msg);
    ck_assert_uint_eq(h.offset, HDR);
    ck_assert_uint_eq(h.entry_addr, 0x100080);
    ck_assert_msg(multiboot_aout_load(&h, LEN, "k", &ld, &err), "%s", err.msg);
    ck_assert_uint_eq(ld.file_offset, 0);
    ck_assert_uint_eq(ld.filesz, LEN);
    ck_assert_uint_eq(ld.memsz, 0x2000);
    /* load_end_addr 0: to the end of the file; bss_end_addr 0: no BSS; a later load_addr */
    store_le(b + HDR + 16, 4, 0x100010);
    store_le(b + HDR + 20, 4, 0);
    store_le(b + HDR + 24, 4, 0);
    ck_assert(multiboot_header(b, LEN, "k", &h, &err) && multiboot_aout_load(&h, LEN, "k", &ld, &err));
    ck_assert_uint_eq(ld.file_offset, 0x10);
    ck_assert_uint_eq(ld.filesz, LEN - 0x10);
    ck_assert_uint_eq(ld.memsz, LEN - 0x10);
    /* the first aligned magic counts; unaligned ones and those past 8 KiB do not */
    size_t off;
    uint8_t late[MB_SEARCH + 64] = { 0 };
    store_le(late + 2, 4, MB_HEADER_MAGIC);
    store_le(late + MB_SEARCH, 4, MB_HEADER_MAGIC);
    ck_assert(!multiboot_find(late, sizeof late, &off));
}
END_TEST

START_TEST(header_refusals)
{
    uint8_t *b = image(MB_FLAG_AOUT);
    store_le(b + HDR + 8, 4, 0);
    ck_assert(strstr(refusal(b, LEN), "offset 0x48: multiboot checksum 0x00000000"));
    b = image(1u << 5);
    ck_assert(strstr(refusal(b, LEN), "offset 0x44: multiboot flags 0x00000020 require bits 0x20"));
    b = image(MB_FLAG_AOUT);
    ck_assert(strstr(refusal(b, HDR + 20), "address fields (flags bit 16) would end at 0x60, past the end of the file"));
    b = image(MB_FLAG_VIDEO);
    ck_assert(strstr(refusal(b, HDR + 40), "video fields"));
    b = image(0);
    store_le(b + HDR, 4, 0);
    ck_assert(strstr(refusal(b, LEN), "no multiboot header"));
    b = image(MB_FLAG_AOUT);
    store_le(b + HDR + 16, 4, 0x100000 + HDR + 4);          /* load_addr after the header */
    ck_assert(strstr(refusal(b, LEN), "offset 0x50: multiboot load_addr"));
    b = image(MB_FLAG_AOUT);
    store_le(b + HDR + 16, 4, 0xff000);                      /* the image would start before the file */
    ck_assert(strstr(refusal(b, LEN), "before the beginning of the file"));
    b = image(MB_FLAG_AOUT);
    store_le(b + HDR + 20, 4, 0x100000 + LEN + 1);
    ck_assert(strstr(refusal(b, LEN), "offset 0x54: multiboot load_end_addr 0x100401: past the end of the file"));
    b = image(MB_FLAG_AOUT);
    store_le(b + HDR + 24, 4, 0x100001);
    ck_assert(strstr(refusal(b, LEN), "offset 0x58: multiboot bss_end_addr"));
}
END_TEST

/* The information structure: mem_lower/mem_upper from the map's usable entries at 0 and 1 MiB,
 * the addresses given, the memory map's 24-byte entries. */
START_TEST(information_structure)
{
    E820Entry map[] = { { 0, 0x9fc00, E820_RAM }, { 0x9fc00, 0x60400, E820_RESERVED },
                        { 0x100000, 0x7f00000, E820_RAM } };
    uint8_t info[MB_INFO_SIZE], mm[3 * MB_MMAP_ENTRY_SIZE];
    MbBoot b = { map, 3, 0x20100, 0x21000, 0x20e00, 0x20f00, 1 };
    memset(info, 0xcc, sizeof info);
    multiboot_info(info, &b);
    ck_assert_uint_eq(load_le(info, 4), 0x24f);
    ck_assert_uint_eq(load_le(info + 4, 4), 639);
    ck_assert_uint_eq(load_le(info + 8, 4), 0x7f00000 / 1024);
    ck_assert_uint_eq(load_le(info + 16, 4), 0x21000);
    ck_assert_uint_eq(load_le(info + 20, 4), 1);
    ck_assert_uint_eq(load_le(info + 24, 4), 0x20e00);
    ck_assert_uint_eq(load_le(info + 44, 4), 3 * MB_MMAP_ENTRY_SIZE);
    ck_assert_uint_eq(load_le(info + 48, 4), 0x20100);
    ck_assert_uint_eq(load_le(info + 64, 4), 0x20f00);
    ck_assert_uint_eq(load_le(info + 28, 4), 0);            /* no symbols */
    ck_assert_uint_eq(multiboot_mmap(mm, map, 3), 72);
    ck_assert_uint_eq(load_le(mm + 24, 4), 20);
    ck_assert_uint_eq(load_le(mm + 28, 8), 0x9fc00);
    ck_assert_uint_eq(load_le(mm + 36, 8), 0x60400);
    ck_assert_uint_eq(load_le(mm + 44, 4), 2);
    /* no usable memory at 0 (it starts reserved): mem_lower 0; a map larger than 640 KiB below: capped */
    E820Entry low[] = { { 0, 0x1000, E820_RESERVED }, { 0x1000, 0x200000, E820_RAM } };
    b = (MbBoot){ low, 2, 0, 0, 0, 0, 0 };
    multiboot_info(info, &b);
    ck_assert_uint_eq(load_le(info + 4, 4), 0);
    ck_assert_uint_eq(load_le(info + 8, 4), (0x201000 - 0x100000) / 1024);
    E820Entry big[] = { { 0, 0x200000, E820_RAM } };
    b = (MbBoot){ big, 1, 0, 0, 0, 0, 0 };
    multiboot_info(info, &b);
    ck_assert_uint_eq(load_le(info + 4, 4), 640);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("multiboot");
    TCase *t = tcase_create("multiboot");
    tcase_add_test(t, header_and_aout_load);
    tcase_add_test(t, header_refusals);
    tcase_add_test(t, information_structure);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
