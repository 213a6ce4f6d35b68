/* bzpayload.c — a bzImage's compressed kernel, unpacked, and its ELF (see bzpayload.h).
 *
 * Each decompressor is fed the whole payload and writes into a buffer grown in chunks up to
 * BZ_PAYLOAD_MAX; the libraries' own limits (liblzma's memory limit) keep a hostile header from
 * asking for more.  The ELF check reads only what locating symbols and bytes needs: the ELF
 * header (e_ident, e_machine, e_phoff, e_phnum) and the PT_LOAD program headers (System V ABI,
 * "ELF Header", "Program Header").
 */
#include "base/bzpayload.h"

#include <elf.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "base/linux_image.h"

#define PAYLOAD_CHUNK (4u << 20)
/* liblzma's decoder memory limit: the kernel's xz is made with a dictionary of 32 MiB at most
 * (scripts/xz_wrap.sh: --lzma2=,dict=32MiB), lzma's with 8 MiB; twice that is plenty. */
#define LZMA_MEMLIMIT (64ull << 20)

typedef enum { PL_GZIP, PL_ZSTD, PL_XZ, PL_LZMA, PL_BZIP2, PL_LZO, PL_LZ4, PL_UNKNOWN } PayloadKind;

static const struct {
    PayloadKind kind;
    const char *name;
    uint8_t magic[6];
    size_t len;
} magics[] = {
    { PL_GZIP, "gzip", { 0x1f, 0x8b }, 2 },
    { PL_ZSTD, "zstd", { 0x28, 0xb5, 0x2f, 0xfd }, 4 },
    { PL_XZ, "xz", { 0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00 }, 6 },
    { PL_LZMA, "lzma", { 0x5d, 0x00, 0x00 }, 3 },
    { PL_BZIP2, "bzip2", { 'B', 'Z', 'h' }, 3 },
    { PL_LZO, "lzo", { 0x89, 'L', 'Z', 'O' }, 4 },
    { PL_LZ4, "lz4", { 0x02, 0x21, 0x4c, 0x18 }, 4 },
};

/* The output buffer: grown by PAYLOAD_CHUNK up to BZ_PAYLOAD_MAX. */
typedef struct Out {
    uint8_t *buf;
    size_t len, cap;
} Out;

static bool out_grow(Out *o)
{
    if (o->cap >= BZ_PAYLOAD_MAX)
        return false;
    o->cap = o->cap + PAYLOAD_CHUNK > BZ_PAYLOAD_MAX ? BZ_PAYLOAD_MAX : o->cap + PAYLOAD_CHUNK;
    o->buf = xrealloc(o->buf, o->cap);
    return true;
}

static bool too_big(Out *o, const char *where, const char *fmt, Error *err)
{
    free(o->buf);
    return err_set(err, "%s: the %s payload unpacks to more than %llu MiB: refused", where, fmt,
                   BZ_PAYLOAD_MAX >> 20);
}

static bool broken(Out *o, const char *where, const char *fmt, size_t at, const char *why, Error *err)
{
    free(o->buf);
    return err_set(err, "%s: the %s stream is %s (at byte 0x%zx of the payload)", where, fmt, why, at);
}

static bool unzstd(const uint8_t *in, size_t n, const char *where, Out *o, Error *err)
{
    ZSTD_DStream *z = ZSTD_createDStream();
    ZSTD_inBuffer ib = { in, n, 0 };
    size_t rc = 1;
    while (rc != 0) {
        if (o->len == o->cap && !out_grow(o)) {
            ZSTD_freeDStream(z);
            return too_big(o, where, "zstd", err);
        }
        ZSTD_outBuffer ob = { o->buf, o->cap, o->len };
        size_t before = ib.pos;
        rc = ZSTD_decompressStream(z, &ob, &ib);
        o->len = ob.pos;
        bool stuck = !ZSTD_isError(rc) && rc != 0 && ib.pos == n && ib.pos == before && ob.pos < ob.size;
        if (ZSTD_isError(rc) || stuck) {
            ZSTD_freeDStream(z);
            return broken(o, where, "zstd", ib.pos, stuck ? "truncated" : ZSTD_getErrorName(rc), err);
        }
    }
    ZSTD_freeDStream(z);
    return true;
}

static const char *lzma_why(lzma_ret rc)
{
    switch (rc) {
    case LZMA_MEMLIMIT_ERROR: return "asking for more memory than a kernel's dictionary needs";
    case LZMA_FORMAT_ERROR: return "not in the format its magic says";
    case LZMA_OPTIONS_ERROR: return "using options liblzma does not support";
    case LZMA_BUF_ERROR: return "truncated";
    default: return "corrupt";
    }
}

static bool unlzma(const uint8_t *in, size_t n, bool xz, const char *where, Out *o, Error *err)
{
    const char *fmt = xz ? "xz" : "lzma";
    lzma_stream s = LZMA_STREAM_INIT;
    lzma_ret rc = xz ? lzma_stream_decoder(&s, LZMA_MEMLIMIT, 0) : lzma_alone_decoder(&s, LZMA_MEMLIMIT);
    if (rc != LZMA_OK)
        return err_set(err, "%s: liblzma could not start a %s decoder", where, fmt);
    s.next_in = in;
    s.avail_in = n;
    while (rc == LZMA_OK) {
        if (o->len == o->cap && !out_grow(o)) {
            lzma_end(&s);
            return too_big(o, where, fmt, err);
        }
        s.next_out = o->buf + o->len;
        s.avail_out = o->cap - o->len;
        rc = lzma_code(&s, LZMA_FINISH);
        o->len = o->cap - s.avail_out;
        if (rc == LZMA_BUF_ERROR && s.avail_out == 0)
            rc = LZMA_OK;                   /* room, not input, ran out */
    }
    size_t at = n - s.avail_in;
    lzma_end(&s);
    return rc == LZMA_STREAM_END || broken(o, where, fmt, at, lzma_why(rc), err);
}

static PayloadKind payload_kind(const uint8_t *p, size_t n, const char **name)
{
    for (size_t i = 0; i < ARRAY_SIZE(magics); i++)
        if (n >= magics[i].len && !memcmp(p, magics[i].magic, magics[i].len)) {
            *name = magics[i].name;
            return magics[i].kind;
        }
    *name = "unknown";
    return PL_UNKNOWN;
}

static bool unpack(const uint8_t *p, size_t n, const char *where, Out *o, Error *err)
{
    const char *name;
    switch (payload_kind(p, n, &name)) {
    case PL_GZIP:
        return linux_image_gunzip(p, n, BZ_PAYLOAD_MAX, where, &o->buf, &o->len, err);
    case PL_ZSTD:
        return unzstd(p, n, where, o, err);
    case PL_XZ:
    case PL_LZMA:
        return unlzma(p, n, name[0] == 'x', where, o, err);
    case PL_UNKNOWN:
        return err_set(err, "%s: magic %02x %02x %02x %02x is none of the kernel's compressors (gzip, bzip2, lzma, "
                       "xz, lzo, lz4, zstd)", where, n > 0 ? p[0] : 0, n > 1 ? p[1] : 0, n > 2 ? p[2] : 0,
                       n > 3 ? p[3] : 0);
    default:
        return err_set(err, "%s: a %s payload: pmusim reads gzip, zstd, xz and lzma payloads (the kernel's "
                       "CONFIG_KERNEL_* choice)", where, name);
    }
}

bool bzpayload_unpack(const uint8_t *data, size_t size, const BzHeader *h, const char *path, uint8_t **out,
                      size_t *out_len, Error *err)
{
    uint64_t at = (uint64_t)h->pm_offset + h->payload_offset;
    if (h->payload_length == 0 || at > size || h->payload_length > size - at)
        return err_set(err, "%s: offset 0x248: the payload (payload_offset 0x%x, payload_length 0x%x after the "
                       "protected-mode kernel's start at 0x%zx) is %s", path, h->payload_offset, h->payload_length,
                       h->pm_offset, h->payload_length ? "not inside the file" : "empty");
    char where[sizeof err->msg];
    snprintf(where, sizeof where, "%s: payload at offset 0x%" PRIx64, path, at);
    Out o = { 0 };
    if (!unpack(data + at, h->payload_length, where, &o, err))
        return false;
    *out = o.buf;
    *out_len = o.len;
    return true;
}

/* ------------------------------------------------------------------ the ELF inside */

static const Elf64_Phdr *phdr(const uint8_t *elf, uint64_t phoff, unsigned i, Elf64_Phdr *ph)
{
    memcpy(ph, elf + phoff + (uint64_t)i * sizeof *ph, sizeof *ph);
    return ph;
}

bool bzpayload_check_elf(const uint8_t *elf, size_t len, const char *path, Error *err)
{
    Elf64_Ehdr eh;
    if (len < sizeof eh || memcmp(elf, ELFMAG, SELFMAG))
        return err_set(err, "%s: offset 0: not an ELF (arch/x86/boot/compressed packs vmlinux.bin, an ELF)", path);
    memcpy(&eh, elf, sizeof eh);
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64)
        return err_set(err, "%s: offset 0x%zx: e_machine %u: not a little-endian ELF64 for x86-64", path,
                       offsetof(Elf64_Ehdr, e_machine), eh.e_machine);
    if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > len ||
        (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > len - eh.e_phoff)
        return err_set(err, "%s: offset 0x%zx: e_phoff 0x%" PRIx64 " with %u program headers of %u bytes is not "
                       "inside the %zu bytes", path, offsetof(Elf64_Ehdr, e_phoff), (uint64_t)eh.e_phoff,
                       eh.e_phnum, eh.e_phentsize, len);
    return true;
}

const uint8_t *bzpayload_elf_bytes(const uint8_t *elf, size_t len, uint64_t vaddr, size_t n)
{
    Elf64_Ehdr eh;
    memcpy(&eh, elf, sizeof eh);
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        phdr(elf, eh.e_phoff, i, &ph);
        uint64_t d = vaddr - ph.p_vaddr;
        if (ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr && d <= ph.p_filesz && n <= ph.p_filesz - d &&
            ph.p_offset <= len && ph.p_filesz <= len - ph.p_offset)
            return elf + ph.p_offset + d;
    }
    return NULL;
}
