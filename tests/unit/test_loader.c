/* test_loader.c — ELF32/ELF64 of both byte orders, symbols, raw images, and malformed files
 * (each refused with a message naming the file and the offset). */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "base/loader.h"
#include "testutil.h"

/* An ELF with one PT_LOAD (code), a .text section, a .symtab with two functions. */
typedef struct Built {
    uint8_t b[4096];
    size_t len;
    size_t phoff, shoff, symoff;
} Built;

static void put(Built *e, bool be, size_t off, unsigned n, uint64_t v)
{
    if (be)
        store_be(e->b + off, n, v);
    else
        store_le(e->b + off, n, v);
}

static Built build(bool is64, bool be, uint16_t machine)
{
    Built e;
    memset(&e, 0, sizeof e);
    memcpy(e.b, ELFMAG, SELFMAG);
    e.b[EI_CLASS] = is64 ? ELFCLASS64 : ELFCLASS32;
    e.b[EI_DATA] = be ? ELFDATA2MSB : ELFDATA2LSB;
    e.b[EI_VERSION] = EV_CURRENT;
    size_t ehsz = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
    size_t phsz = is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
    size_t shsz = is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
    size_t symsz = is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
    unsigned w = is64 ? 8 : 4;                      /* address-sized fields */
    e.phoff = ehsz;
    size_t code = 0x200, strtab = 0x300, shstr = 0x380;
    e.symoff = 0x400;
    e.shoff = 0x600;
    /* header */
    put(&e, be, 16, 2, ET_EXEC);
    put(&e, be, 18, 2, machine);
    put(&e, be, 20, 4, EV_CURRENT);
    put(&e, be, 24, w, 0x100010);                                   /* e_entry */
    put(&e, be, 24 + w, w, e.phoff);
    put(&e, be, 24 + 2 * w, w, e.shoff);
    size_t p = 24 + 3 * w + 4;                                      /* after e_flags */
    put(&e, be, p, 2, ehsz);
    put(&e, be, p + 2, 2, phsz);
    put(&e, be, p + 4, 2, 1);
    put(&e, be, p + 6, 2, shsz);
    put(&e, be, p + 8, 2, 5);                                       /* null, .text, .symtab, .strtab, .shstrtab */
    put(&e, be, p + 10, 2, 4);
    /* PT_LOAD: 0x40 bytes of code at 0x100000, 0x100 in memory */
    size_t ph = e.phoff;
    put(&e, be, ph, 4, PT_LOAD);
    if (is64) {
        put(&e, be, ph + 4, 4, PF_R | PF_X);
        put(&e, be, ph + 8, 8, code);
        put(&e, be, ph + 16, 8, 0x100000);
        put(&e, be, ph + 24, 8, 0x100000);
        put(&e, be, ph + 32, 8, 0x40);
        put(&e, be, ph + 40, 8, 0x100);
    } else {
        put(&e, be, ph + 4, 4, code);
        put(&e, be, ph + 8, 4, 0x100000);
        put(&e, be, ph + 12, 4, 0x100000);
        put(&e, be, ph + 16, 4, 0x40);
        put(&e, be, ph + 20, 4, 0x100);
        put(&e, be, ph + 24, 4, PF_R | PF_X);
    }
    memset(e.b + code, 0x90, 0x40);
    memcpy(e.b + strtab, "\0start\0helper\0", 14);
    memcpy(e.b + shstr, "\0.text\0.symtab\0.strtab\0.shstrtab\0", 33);
    /* symbols: [0] null, [1] start @0x100010 size 0x10 func, [2] helper @0x100020 size 0x20 func */
    for (int i = 1; i <= 2; i++) {
        size_t s = e.symoff + (size_t)i * symsz;
        uint64_t name = i == 1 ? 1 : 7, value = i == 1 ? 0x100010 : 0x100020, size = i == 1 ? 0x10 : 0x20;
        put(&e, be, s, 4, name);
        if (is64) {
            e.b[s + 4] = STT_FUNC | STB_GLOBAL << 4;
            put(&e, be, s + 6, 2, 1);
            put(&e, be, s + 8, 8, value);
            put(&e, be, s + 16, 8, size);
        } else {
            put(&e, be, s + 4, 4, value);
            put(&e, be, s + 8, 4, size);
            e.b[s + 12] = STT_FUNC | STB_GLOBAL << 4;
            put(&e, be, s + 14, 2, 1);
        }
    }
    /* sections: name, type, flags, addr, offset, size, link, info, align, entsize */
    struct { uint32_t name, type; uint64_t flags, addr, off, size; uint32_t link; uint64_t entsize; } sh[5] = {
        { 0, 0, 0, 0, 0, 0, 0, 0 },
        { 1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x100000, code, 0x40, 0, 0 },
        { 7, SHT_SYMTAB, 0, 0, e.symoff, 3 * symsz, 3, symsz },
        { 15, SHT_STRTAB, 0, 0, strtab, 14, 0, 0 },
        { 23, SHT_STRTAB, 0, 0, shstr, 33, 0, 0 },
    };
    for (int i = 0; i < 5; i++) {
        size_t s = e.shoff + (size_t)i * shsz;
        put(&e, be, s, 4, sh[i].name);
        put(&e, be, s + 4, 4, sh[i].type);
        put(&e, be, s + 8, w, sh[i].flags);
        put(&e, be, s + 8 + w, w, sh[i].addr);
        put(&e, be, s + 8 + 2 * w, w, sh[i].off);
        put(&e, be, s + 8 + 3 * w, w, sh[i].size);
        put(&e, be, s + 8 + 4 * w, 4, sh[i].link);
        put(&e, be, s + 16 + 5 * w, w, sh[i].entsize);
    }
    e.len = e.shoff + 5 * shsz;
    return e;
}

static bool load(const Built *e, size_t len, Image *im, Error *err)
{
    const char *path = testutil_temp_file(e->b, len, ".elf");
    bool ok = image_load_elf(im, path, err);
    if (!ok)
        ck_assert_msg(strstr(err->msg, path) != NULL, "error does not name the file: %s", err->msg);
    remove(path);
    return ok;
}

static void check_good(bool is64, bool be, uint16_t machine, Arch arch)
{
    Built e = build(is64, be, machine);
    Image im;
    Error err = { { 0 } };
    ck_assert_msg(load(&e, e.len, &im, &err), "%s", err.msg);
    ck_assert_int_eq(im.arch, arch);
    ck_assert_uint_eq(im.entry, 0x100010);
    ck_assert_int_eq(im.nsegs, 1);
    ck_assert_uint_eq(im.segs[0].paddr, 0x100000);
    ck_assert_uint_eq(im.segs[0].filesz, 0x40);
    ck_assert_uint_eq(im.segs[0].memsz, 0x100);
    ck_assert_int_eq(im.ncode, 1);
    ck_assert_uint_eq(im.code[0].start, 0x100000);
    ck_assert_uint_eq(im.code[0].end, 0x100040);
    uint64_t off;
    const Symbol *s = image_symbol_at(&im, 0x100024, &off);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(s->name, "helper");
    ck_assert_uint_eq(off, 4);
    uint64_t a;
    ck_assert(image_symbol_addr(&im, "start", &a) && a == 0x100010);
    char buf[64];
    ck_assert_str_eq(image_describe(&im, 0x100011, buf, sizeof buf), "start+0x1");
    image_free(&im);
}

START_TEST(elf64_le_x86_loads)
{
    check_good(true, false, EM_X86_64, ARCH_X86_64);
}
END_TEST

START_TEST(elf64_le_aarch64_loads)
{
    check_good(true, false, EM_AARCH64, ARCH_ARM64);
}
END_TEST

START_TEST(elf32_be_ppc_loads)
{
    check_good(false, true, EM_PPC, ARCH_PPC32);
}
END_TEST

static void check_bad(Built *e, size_t len, const char *want)
{
    Image im;
    Error err = { { 0 } };
    ck_assert(!load(e, len, &im, &err));
    ck_assert_msg(strstr(err.msg, want) != NULL, "expected \"%s\" in: %s", want, err.msg);
    image_free(&im);
}

START_TEST(elf_malformed_files_are_refused_with_offsets)
{
    Built e = build(true, false, EM_X86_64);
    check_bad(&e, 10, "not an ELF file");                                   /* truncated ident */
    Built m = e;
    m.b[0] = 0;
    check_bad(&m, m.len, "offset 0: not an ELF file");
    m = e;
    m.b[EI_CLASS] = 7;
    check_bad(&m, m.len, "bad ELF class");
    check_bad(&e, 40, "too small for an ELF header");
    check_bad(&e, e.phoff + 20, "program headers extend past the end");
    m = e;
    store_le(m.b + e.phoff + 32, 8, 0x200);                                 /* filesz > memsz */
    check_bad(&m, m.len, "exceeds memory size");
    m = e;
    store_le(m.b + e.phoff + 8, 8, 0x5000);                                 /* data past EOF */
    check_bad(&m, m.len, "extends past the end of the file");
    m = e;
    store_le(m.b + e.symoff + 24, 4, 0x9999);                               /* symbol name */
    check_bad(&m, m.len, "outside the string table");
    m = build(true, false, EM_PPC);                                         /* ppc must be ELF32 BE */
    check_bad(&m, m.len, "must be 32-bit big-endian");
    m = build(true, false, 183 + 100);
    check_bad(&m, m.len, "is not x86_64, aarch64 or ppc");
}
END_TEST

/* Section header i of a build() image: its type and file offset. */
static void set_section(Built *e, int i, uint32_t type, uint64_t offset)
{
    size_t s = e->shoff + (size_t)i * sizeof(Elf64_Shdr);
    store_le(e->b + s + offsetof(Elf64_Shdr, sh_type), 4, type);
    store_le(e->b + s + offsetof(Elf64_Shdr, sh_offset), 8, offset);
}

/* Every section the loader hands out has its bytes in the file, whatever its type says: an
 * SHT_NULL patch table with a bad offset once reached the patch validator unchecked. */
START_TEST(elf_section_bytes_outside_the_file_are_refused_whatever_the_type)
{
    Built e = build(true, false, EM_X86_64);
    Built m = e;
    set_section(&m, 1, SHT_NULL, 0x7fffff00);
    check_bad(&m, m.len, "offset 0x640: section header 1 (.text): its bytes [0x7fffff00, +0x40) extend past the end");
    m = e;
    set_section(&m, 1, SHT_PROGBITS, m.len - 0x20);                         /* half inside */
    check_bad(&m, m.len, "offset 0x640: section header 1 (.text)");
    m = e;
    set_section(&m, 3, SHT_NULL, 0x300);                                     /* SHT_NULL, in the file */
    Image im;
    Error err = { { 0 } };
    ck_assert_msg(load(&m, m.len, &im, &err), "%s", err.msg);
    const Section *s = image_section(&im, ".strtab");
    ck_assert(s && !s->nobits && s->offset + s->size <= im.size);
    image_free(&im);
    m = e;
    set_section(&m, 1, SHT_NOBITS, 0x7fffff00);                              /* no bytes: any offset */
    ck_assert_msg(load(&m, m.len, &im, &err), "%s", err.msg);
    s = image_section(&im, ".text");
    ck_assert(s && s->nobits);
    image_free(&im);
}
END_TEST

START_TEST(elf_missing_file_names_it)
{
    Image im;
    Error err = { { 0 } };
    ck_assert(!image_load_elf(&im, "/nonexistent/guest.elf", &err));
    ck_assert(strstr(err.msg, "/nonexistent/guest.elf") != NULL);
    image_free(&im);
}
END_TEST

START_TEST(raw_image_is_one_code_segment)
{
    uint8_t code[100];
    memset(code, 0x1f, sizeof code);
    const char *path = testutil_temp_file(code, sizeof code, ".bin");
    Image im;
    Error err = { { 0 } };
    ck_assert(image_load_raw(&im, path, ARCH_ARM64, 0x40080000, 0x40080010, &err));
    ck_assert_int_eq(im.nsegs, 1);
    ck_assert_uint_eq(im.segs[0].paddr, 0x40080000);
    ck_assert_uint_eq(im.segs[0].filesz, 100);
    ck_assert_uint_eq(im.entry, 0x40080010);
    ck_assert_uint_eq(im.code[0].end, 0x40080064);
    image_free(&im);
    remove(path);
}
END_TEST

/* An arm64 Image header (Documentation/arch/arm64/booting.rst) with the given fields, then body. */
static size_t a64_image(uint8_t *buf, uint64_t text_offset, uint64_t image_size, uint64_t flags, size_t body)
{
    memset(buf, 0, 64 + body);
    store_le(buf + 0x00, 4, 0x14000010);            /* b +0x40 */
    store_le(buf + 0x08, 8, text_offset);
    store_le(buf + 0x10, 8, image_size);
    store_le(buf + 0x18, 8, flags);
    store_le(buf + 0x38, 4, 0x644d5241);
    for (size_t i = 0; i < body; i++)
        buf[64 + i] = (uint8_t)(i * 7);
    return 64 + body;
}

static const char *kernel_error(const uint8_t *data, size_t len, const char *suffix)
{
    static Error err;
    const char *path = testutil_temp_file(data, len, suffix);
    Image im;
    memset(&err, 0, sizeof err);
    bool ok = image_load_kernel(&im, path, &err);
    ck_assert_msg(!ok, "accepted");
    ck_assert_msg(strstr(err.msg, path) != NULL, "%s", err.msg);
    image_free(&im);
    remove(path);
    return err.msg;
}

/* --kernel: an arm64 Image is one segment of image_size bytes at text_offset from the base
 * image_place_linux gives it; the same Image gzip'd loads the same bytes. */
START_TEST(linux_arm64_image_plain_and_gzipped)
{
    static uint8_t buf[64 + 4096];
    size_t n = a64_image(buf, 0x80000, 0x100000, 0xa, 4096);
    const char *path = testutil_temp_file(buf, n, ".Image");
    Image im;
    Error err = { { 0 } };
    ck_assert_msg(image_load_kernel(&im, path, &err), "%s", err.msg);
    ck_assert(im.linux_image && im.arch == ARCH_ARM64);
    ck_assert_uint_eq(im.segs[0].memsz, 0x100000);
    image_place_linux(&im, 0x40000000);
    ck_assert_uint_eq(im.segs[0].paddr, 0x40080000);
    ck_assert_uint_eq(im.entry, 0x40080000);
    image_free(&im);
    remove(path);
    uint8_t *gz = NULL;
    size_t gzlen = 0;
    char cmd[600];                                      /* gzip(1): a writer independent of zlib's use here */
    snprintf(cmd, sizeof cmd, "gzip -n -c < %s", testutil_temp_file(buf, n, ".raw"));
    FILE *f = popen(cmd, "r");
    ck_assert_ptr_nonnull(f);
    gz = malloc(n + 1024);
    gzlen = fread(gz, 1, n + 1024, f);
    ck_assert_int_eq(pclose(f), 0);
    path = testutil_temp_file(gz, gzlen, ".Image.gz");
    ck_assert_msg(image_load_kernel(&im, path, &err), "%s", err.msg);
    ck_assert_uint_eq(im.size, n);
    ck_assert(!memcmp(im.data, buf, n));
    image_free(&im);
    remove(path);
    /* cut short: the offset where the stream ends */
    const char *msg = kernel_error(gz, gzlen / 2, ".gz");
    ck_assert_msg(strstr(msg, "truncated"), "%s", msg);
    gz[gzlen / 2] ^= 0xff;
    gz[gzlen / 2 + 1] ^= 0x55;
    msg = kernel_error(gz, gzlen, ".gz");
    ck_assert_msg(strstr(msg, "gzip stream"), "%s", msg);
    free(gz);
}
END_TEST

/* What is not a bootable arm64 Image is refused with the reason and the offset. */
START_TEST(linux_arm64_image_header_refusals)
{
    static uint8_t buf[64 + 256];
    size_t n = a64_image(buf, 0, 0, 0xa, 256);
    ck_assert(strstr(kernel_error(buf, n, ".Image"), "older than Linux 3.17"));
    n = a64_image(buf, 0, 0x10000, 0xb, 256);
    ck_assert(strstr(kernel_error(buf, n, ".Image"), "big-endian"));
    n = a64_image(buf, 0x1234, 0x10000, 0xa, 256);
    ck_assert(strstr(kernel_error(buf, n, ".Image"), "text_offset"));
    n = a64_image(buf, 0, 0x100, 0xa, 256);
    ck_assert(strstr(kernel_error(buf, n, ".Image"), "smaller than"));
    n = a64_image(buf, 0, 0x10000, 0xa, 256);
    buf[0x38] = 'X';
    ck_assert(strstr(kernel_error(buf, n, ".Image"), "not an ELF file"));
    ck_assert(strstr(kernel_error(buf, 10, ".Image"), "not an ELF file"));
    memcpy(buf, "MZ\0\0zimg", 8);
    ck_assert(strstr(kernel_error(buf, n, ".efi"), "EFI zboot"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("loader");
    TCase *t = tcase_create("elf");
    tcase_add_test(t, elf64_le_x86_loads);
    tcase_add_test(t, elf64_le_aarch64_loads);
    tcase_add_test(t, elf32_be_ppc_loads);
    tcase_add_test(t, elf_malformed_files_are_refused_with_offsets);
    tcase_add_test(t, elf_section_bytes_outside_the_file_are_refused_whatever_the_type);
    tcase_add_test(t, elf_missing_file_names_it);
    tcase_add_test(t, raw_image_is_one_code_segment);
    tcase_add_test(t, linux_arm64_image_plain_and_gzipped);
    tcase_add_test(t, linux_arm64_image_header_refusals);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
