/* linux_image.c — the arm64 Image header and gzip'd images (see linux_image.h). */
#include "base/linux_image.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define GZIP_ID1 0x1f
#define GZIP_ID2 0x8b
#define GZIP_DEFLATE 8
/* windowBits for inflateInit2: 15-bit window, + 16 to expect a gzip wrapper (zlib.h) */
#define ZLIB_GZIP_WINDOW (15 + 16)
#define GUNZIP_CHUNK (1u << 22)

/* Header fields (linux_image.h) */
enum {
    HDR_TEXT_OFFSET = 0x08, HDR_IMAGE_SIZE = 0x10, HDR_FLAGS = 0x18,
};
enum {
    FLAG_BE = 1u << 0, FLAG_PAGE_SHIFT = 1, FLAG_PAGE_MASK = 3u << 1, FLAG_ANYWHERE = 1u << 3,
};
/* EFI zboot (CONFIG_EFI_ZBOOT, drivers/firmware/efi/libstub/zboot-header.S): "MZ", then "zimg"
 * at offset 4; the Image inside is compressed and only its EFI stub can unpack it. */
#define ZBOOT_MAGIC "zimg"
#define ZBOOT_MAGIC_OFF 4u

bool a64_image_is(const uint8_t *data, size_t size)
{
    return size >= A64_IMAGE_HEADER_SIZE && load_le(data + A64_IMAGE_MAGIC_OFF, 4) == A64_IMAGE_MAGIC;
}

bool linux_image_is_gzip(const uint8_t *data, size_t size)
{
    return size >= 3 && data[0] == GZIP_ID1 && data[1] == GZIP_ID2 && data[2] == GZIP_DEFLATE;
}

static bool is_zboot(const uint8_t *data, size_t size)
{
    return size >= ZBOOT_MAGIC_OFF + 4 && data[0] == 'M' && data[1] == 'Z' &&
           !memcmp(data + ZBOOT_MAGIC_OFF, ZBOOT_MAGIC, 4);
}

static bool no_magic(const uint8_t *data, size_t size, const char *path, Error *err)
{
    if (is_zboot(data, size))
        return err_set(err, "%s: an EFI zboot image (CONFIG_EFI_ZBOOT): its Image is compressed for the EFI "
                       "stub; pass the Image itself (arch/arm64/boot/Image)", path);
    if (size < A64_IMAGE_HEADER_SIZE)
        return err_set(err, "%s: %zu bytes, shorter than the %u-byte arm64 Image header", path, size,
                       A64_IMAGE_HEADER_SIZE);
    return err_set(err, "%s: offset 0x%x: magic 0x%08" PRIx64 ", not an arm64 Image (\"ARM\\x64\", 0x%08x)", path,
                   A64_IMAGE_MAGIC_OFF, load_le(data + A64_IMAGE_MAGIC_OFF, 4), A64_IMAGE_MAGIC);
}

bool a64_image_header(const uint8_t *data, size_t size, const char *path, A64ImageHeader *h, Error *err)
{
    static const unsigned page_kib[4] = { 0, 4, 16, 64 };
    if (!a64_image_is(data, size))
        return no_magic(data, size, path, err);
    memset(h, 0, sizeof *h);
    h->text_offset = load_le(data + HDR_TEXT_OFFSET, 8);
    h->image_size = load_le(data + HDR_IMAGE_SIZE, 8);
    h->flags = load_le(data + HDR_FLAGS, 8);
    h->big_endian = h->flags & FLAG_BE;
    h->anywhere = h->flags & FLAG_ANYWHERE;
    h->page_kib = page_kib[(h->flags & FLAG_PAGE_MASK) >> FLAG_PAGE_SHIFT];
    if (h->image_size == 0)
        return err_set(err, "%s: offset 0x%x: image_size is 0, a kernel older than Linux 3.17 that does not say "
                       "how much memory it occupies; not supported", path, HDR_IMAGE_SIZE);
    if (h->big_endian)
        return err_set(err, "%s: offset 0x%x: flags 0x%" PRIx64 " say a big-endian kernel; pmusim's arm64 CPUs "
                       "run little-endian kernels", path, HDR_FLAGS, h->flags);
    if (h->text_offset >= A64_IMAGE_BASE_ALIGN || h->text_offset % A64_IMAGE_MIN_PAGE)
        return err_set(err, "%s: offset 0x%x: text_offset 0x%" PRIx64 " is not a page multiple below 2 MiB", path,
                       HDR_TEXT_OFFSET, h->text_offset);
    if (h->image_size < size || h->image_size > LINUX_IMAGE_MAX)
        return err_set(err, "%s: offset 0x%x: image_size 0x%" PRIx64 " is %s the file's %zu bytes", path,
                       HDR_IMAGE_SIZE, h->image_size, h->image_size < size ? "smaller than" : "far beyond", size);
    return true;
}

static bool gunzip_fail(z_stream *zs, const char *path, size_t in_size, const char *why, Error *err)
{
    size_t at = in_size - zs->avail_in;
    inflateEnd(zs);
    return err_set(err, "%s: offset 0x%zx: gzip stream %s", path, at, why);
}

bool linux_image_gunzip(const uint8_t *data, size_t size, size_t limit, const char *path, uint8_t **out,
                        size_t *out_size, Error *err)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, ZLIB_GZIP_WINDOW) != Z_OK)
        return err_set(err, "%s: zlib could not start inflating", path);
    zs.next_in = (Bytef *)data;
    zs.avail_in = (uInt)(size > UINT32_MAX ? UINT32_MAX : size);
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    for (;;) {
        if (len == cap) {
            if (cap >= limit) {
                free(buf);
                return gunzip_fail(&zs, path, size, "inflates past the largest image pmusim loads", err);
            }
            cap = cap + GUNZIP_CHUNK > limit ? limit : cap + GUNZIP_CHUNK;
            buf = xrealloc(buf, cap);
        }
        zs.next_out = buf + len;
        zs.avail_out = (uInt)(cap - len);
        int rc = inflate(&zs, Z_NO_FLUSH);
        len = cap - zs.avail_out;
        if (rc == Z_STREAM_END)
            break;
        if (rc != Z_OK && !(rc == Z_BUF_ERROR && zs.avail_out == 0)) {
            free(buf);
            return gunzip_fail(&zs, path, size, rc == Z_BUF_ERROR ? "is truncated" : "is corrupt", err);
        }
    }
    inflateEnd(&zs);
    *out = buf;
    *out_size = len;
    return true;
}
