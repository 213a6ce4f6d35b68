/* cpio.c — newc cpio archives, written and checked (the format: cpio.h). */
#include "base/cpio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CPIO_ALIGN 4                    /* names and data end on a multiple of 4 */
#define CPIO_BLOCK 512                  /* gen_init_cpio pads the whole archive to this */
#define CPIO_FIELD_DIGITS 8
#define CPIO_NFIELDS 13
#define CPIO_MAGIC_LEN 6
#define CPIO_MAGIC_NEWC "070701"
#define CPIO_MAGIC_CRC "070702"
#define CPIO_MAGIC_PREFIX_LEN 4        /* "0707": every cpio's, old or new */
#define CPIO_MAGIC_ODC "070707"         /* the old portable format, which Linux refuses */
#define COMPRESS_MAGIC_LEN 2

/* The header's fields in file order (after the magic), for the messages. */
static const char *const field_names[CPIO_NFIELDS] = {
    "c_ino", "c_mode", "c_uid", "c_gid", "c_nlink", "c_mtime", "c_filesize",
    "c_maj", "c_min", "c_rmaj", "c_rmin", "c_namesize", "c_chksum",
};
enum { F_INO, F_MODE, F_UID, F_GID, F_NLINK, F_MTIME, F_FILESIZE, F_MAJ, F_MIN, F_RMAJ, F_RMIN, F_NAMESIZE, F_CHKSUM };

static uint64_t align4(uint64_t v)
{
    return (v + CPIO_ALIGN - 1) & ~(uint64_t)(CPIO_ALIGN - 1);
}

/* ------------------------------------------------------------------ writer */

void cpio_writer_init(CpioWriter *w)
{
    memset(w, 0, sizeof *w);
}

static void put(CpioWriter *w, const void *p, size_t n)
{
    if (n == 0)
        return;
    if (w->len + n > w->cap) {
        w->cap = (w->len + n) * 2;
        w->buf = xrealloc(w->buf, w->cap);
    }
    memcpy(w->buf + w->len, p, n);
    w->len += n;
}

static void pad(CpioWriter *w, size_t to)
{
    static const uint8_t zeros[CPIO_BLOCK];
    put(w, zeros, (to - w->len % to) % to);
}

static void put_header(CpioWriter *w, const uint32_t f[CPIO_NFIELDS])
{
    char hdr[CPIO_HEADER_SIZE + 1];
    int n = snprintf(hdr, sizeof hdr, "%s", CPIO_MAGIC_NEWC);
    for (int i = 0; i < CPIO_NFIELDS; i++)
        n += snprintf(hdr + n, sizeof hdr - (size_t)n, "%08" PRIX32, f[i]);
    put(w, hdr, CPIO_HEADER_SIZE);
}

static void put_entry(CpioWriter *w, uint32_t ino, const char *name, uint32_t mode, uint32_t rmaj, uint32_t rmin,
                      const void *data, size_t size)
{
    uint32_t f[CPIO_NFIELDS] = { 0 };
    f[F_INO] = ino;
    f[F_MODE] = mode;
    f[F_NLINK] = S_ISDIR(mode) ? 2 : 1;   /* "." and the parent's entry, as a fresh directory */
    f[F_FILESIZE] = (uint32_t)size;
    f[F_RMAJ] = rmaj;
    f[F_RMIN] = rmin;
    f[F_NAMESIZE] = (uint32_t)strlen(name) + 1;
    put_header(w, f);
    put(w, name, strlen(name) + 1);
    pad(w, CPIO_ALIGN);
    put(w, data, size);
    pad(w, CPIO_ALIGN);
}

void cpio_add(CpioWriter *w, const char *name, uint32_t mode, uint32_t rmaj, uint32_t rmin, const void *data,
              size_t size)
{
    put_entry(w, ++w->ino, name, mode, rmaj, rmin, data, size);
}

void cpio_finish(CpioWriter *w)
{
    put_entry(w, 0, CPIO_TRAILER, 0, 0, 0, NULL, 0);
    pad(w, CPIO_BLOCK);
}

void cpio_writer_free(CpioWriter *w)
{
    free(w->buf);
    memset(w, 0, sizeof *w);
}

/* ------------------------------------------------------------------ reader */

/* Eight hex digits at p, exactly (Linux's simple_strtoul would stop at the first other byte). */
static bool hex_field(const uint8_t *p, uint32_t *v)
{
    uint32_t x = 0;
    for (int i = 0; i < CPIO_FIELD_DIGITS; i++) {
        int c = p[i], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return false;
        x = x << 4 | (uint32_t)d;
    }
    *v = x;
    return true;
}

static bool check_magic(const uint8_t *p, uint64_t off, const char *path, CpioEntry *e, Error *err)
{
    if (!memcmp(p, CPIO_MAGIC_NEWC, CPIO_MAGIC_LEN) || !memcmp(p, CPIO_MAGIC_CRC, CPIO_MAGIC_LEN)) {
        e->has_chksum = !memcmp(p, CPIO_MAGIC_CRC, CPIO_MAGIC_LEN);
        return true;
    }
    if (!memcmp(p, CPIO_MAGIC_ODC, CPIO_MAGIC_LEN))
        return err_set(err, "%s: offset 0x%" PRIx64 ": an old-format cpio header (070707); Linux reads only newc "
                       "(070701, 070702: cpio -H newc)", path, off);
    return err_set(err, "%s: offset 0x%" PRIx64 ": no cpio magic (070701 or 070702)", path, off);
}

static bool parse_fields(const uint8_t *p, uint64_t off, const char *path, uint32_t f[CPIO_NFIELDS], Error *err)
{
    for (int i = 0; i < CPIO_NFIELDS; i++) {
        uint64_t at = CPIO_MAGIC_LEN + (uint64_t)i * CPIO_FIELD_DIGITS;
        if (!hex_field(p + at, &f[i]))
            return err_set(err, "%s: offset 0x%" PRIx64 ": header field %s is not 8 hex digits", path, off + at,
                           field_names[i]);
    }
    return true;
}

static void fill_entry(CpioEntry *e, const uint32_t f[CPIO_NFIELDS])
{
    e->ino = f[F_INO], e->mode = f[F_MODE], e->uid = f[F_UID], e->gid = f[F_GID];
    e->nlink = f[F_NLINK], e->mtime = f[F_MTIME], e->size = f[F_FILESIZE];
    e->maj = f[F_MAJ], e->min = f[F_MIN], e->rmaj = f[F_RMAJ], e->rmin = f[F_RMIN];
    e->chksum = f[F_CHKSUM];
}

/* The name: 1 to CPIO_NAME_MAX bytes, in the file, its last byte the only NUL. */
static bool check_name(const uint8_t *buf, size_t len, uint64_t off, uint32_t namesize, const char *path,
                       CpioEntry *e, Error *err)
{
    uint64_t at = off + CPIO_HEADER_SIZE;
    if (namesize == 0 || namesize > CPIO_NAME_MAX)
        return err_set(err, "%s: offset 0x%" PRIx64 ": name size %" PRIu32 " (1 to %d, with its NUL)", path,
                       off + CPIO_MAGIC_LEN + F_NAMESIZE * CPIO_FIELD_DIGITS, namesize, CPIO_NAME_MAX);
    if (at + namesize > len)
        return err_set(err, "%s: offset 0x%" PRIx64 ": the name (%" PRIu32 " bytes) runs past the end of the file "
                       "(%zu bytes)", path, at, namesize, len);
    const uint8_t *nul = memchr(buf + at, 0, namesize);
    if (!nul || (uint64_t)(nul - (buf + at)) != namesize - 1)
        return err_set(err, "%s: offset 0x%" PRIx64 ": the name is not %" PRIu32 " bytes ending with its only NUL",
                       path, at, namesize);
    e->name = (const char *)(buf + at);
    return true;
}

/* The data: in the file, and for 070702 with the sum Linux checks (init/initramfs.c, do_copy). */
static bool check_data(const uint8_t *buf, size_t len, const char *path, CpioEntry *e, Error *err)
{
    uint64_t at = align4(e->offset + CPIO_HEADER_SIZE + strlen(e->name) + 1);
    if (at + e->size > len)
        return err_set(err, "%s: offset 0x%" PRIx64 ": %s's %" PRIu32 " bytes of data run past the end of the file "
                       "(%zu bytes)", path, at, e->name, e->size, len);
    e->data = buf + at;
    e->next = align4(at + e->size);
    if (!e->has_chksum || !S_ISREG(e->mode))
        return true;
    uint32_t sum = 0;
    for (uint32_t i = 0; i < e->size; i++)
        sum += e->data[i];
    return sum == e->chksum ? true
        : err_set(err, "%s: offset 0x%" PRIx64 ": %s's data sum 0x%08" PRIx32 ", its header says 0x%08" PRIx32,
                  path, at, e->name, sum, e->chksum);
}

bool cpio_entry(const uint8_t *buf, size_t len, uint64_t offset, const char *path, CpioEntry *e, Error *err)
{
    uint32_t f[CPIO_NFIELDS];
    memset(e, 0, sizeof *e);
    e->offset = offset;
    if (offset > len || len - offset < CPIO_HEADER_SIZE)
        return err_set(err, "%s: offset 0x%" PRIx64 ": a cpio header (%d bytes) runs past the end of the file (%zu "
                       "bytes)", path, offset, CPIO_HEADER_SIZE, len);
    const uint8_t *p = buf + offset;
    if (!check_magic(p, offset, path, e, err) || !parse_fields(p, offset, path, f, err))
        return false;
    fill_entry(e, f);
    return check_name(buf, len, offset, f[F_NAMESIZE], path, e, err) && check_data(buf, len, path, e, err);
}

/* One archive from `offset` to its trailer: the offset after it in *end. */
static bool check_archive(const uint8_t *buf, size_t len, uint64_t offset, const char *path, uint64_t *end,
                          Error *err)
{
    CpioEntry e;
    for (;;) {
        if (offset >= len)
            return err_set(err, "%s: offset 0x%" PRIx64 ": the archive ends without its %s entry", path, offset,
                           CPIO_TRAILER);
        if (!cpio_entry(buf, len, offset, path, &e, err))
            return false;
        offset = e.next;
        if (!strcmp(e.name, CPIO_TRAILER))
            break;
    }
    *end = offset;
    return true;
}

/* Compressed data that Linux would decompress (lib/decompress.c, compressed_formats): two bytes. */
static bool compressed_at(const uint8_t *buf, size_t len, uint64_t off)
{
    static const uint8_t magic[][COMPRESS_MAGIC_LEN] = {
        { 0x1f, 0x8b }, { 0x1f, 0x9e },     /* gzip */
        { 0x42, 0x5a },                     /* bzip2 */
        { 0x5d, 0x00 },                     /* lzma */
        { 0xfd, 0x37 },                     /* xz */
        { 0x89, 0x4c },                     /* lzo */
        { 0x02, 0x21 },                     /* lz4 */
        { 0x28, 0xb5 },                     /* zstd */
    };
    if (len - off < COMPRESS_MAGIC_LEN)
        return false;
    for (size_t i = 0; i < ARRAY_SIZE(magic); i++)
        if (!memcmp(buf + off, magic[i], COMPRESS_MAGIC_LEN))
            return true;
    return false;
}

/* The first archive is taken for one when its magic's first 4 bytes are there ("0707"): a
 * file that merely starts with '0' is an initrd image, as Linux ends up loading it. */
static bool looks_like_cpio(const uint8_t *buf, size_t len, uint64_t off)
{
    return len - off >= CPIO_MAGIC_PREFIX_LEN && !memcmp(buf + off, CPIO_MAGIC_NEWC, CPIO_MAGIC_PREFIX_LEN);
}

/* What comes after the NULs at `off`: another archive (at a multiple of 4, as Linux wants it),
 * compressed data (unchecked: the end of the check), or junk. */
bool cpio_check(const uint8_t *buf, size_t len, const char *path, Error *err)
{
    uint64_t off = 0;
    bool archive_seen = false;
    for (;;) {
        while (off < len && buf[off] == 0)
            off++;
        if (off >= len || compressed_at(buf, len, off))
            return true;
        if (!archive_seen && !looks_like_cpio(buf, len, off))
            return true;                    /* not an initramfs: an initrd image (a RAM disk) */
        if (buf[off] != '0')
            return err_set(err, "%s: offset 0x%" PRIx64 ": junk after the archive (neither a cpio header nor "
                           "compressed data)", path, off);
        if (off % CPIO_ALIGN)
            return err_set(err, "%s: offset 0x%" PRIx64 ": a cpio header not at a multiple of 4 (broken padding)",
                           path, off);
        if (!check_archive(buf, len, off, path, &off, err))
            return false;
        archive_seen = true;
    }
}
