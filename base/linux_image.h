/* linux_image.h — Linux kernel images as boot loaders receive them (not ELF): the arm64 Image,
 * plain or gzip'd.
 *
 * The arm64 Image header (Documentation/arch/arm64/booting.rst, "Call the kernel image"), 64
 * bytes, little-endian whatever the kernel's own byte order:
 *
 *   0x00 u32 code0, u32 code1   executable code (a branch to the kernel's entry)
 *   0x08 u64 text_offset        where the image goes above a 2 MiB aligned base
 *   0x10 u64 image_size         bytes the kernel occupies from there, its BSS included
 *                               (0: a kernel older than 3.17, which did not say)
 *   0x18 u64 flags              bit 0 big-endian kernel; bits 2:1 page size (0 unspecified,
 *                               1 4K, 2 16K, 3 64K); bit 3 placement anywhere in RAM (else as
 *                               close as possible to its base)
 *   0x20 u64 res2, res3, res4
 *   0x38 u32 magic              0x644d5241, "ARM\x64"
 *   0x3c u32 res5               offset of the PE header (EFI stub), or 0
 *
 * A gzip'd Image (RFC 1952; what `make Image.gz` makes) is inflated first.
 */
#ifndef PMUSIM_LINUX_IMAGE_H
#define PMUSIM_LINUX_IMAGE_H

#include "base/common.h"

#define A64_IMAGE_HEADER_SIZE 64u
#define A64_IMAGE_MAGIC 0x644d5241u
#define A64_IMAGE_MAGIC_OFF 0x38u
/* The base below text_offset is 2 MiB aligned (booting.rst). */
#define A64_IMAGE_BASE_ALIGN (2ull << 20)
#define A64_IMAGE_MIN_PAGE 4096u
/* An inflated image larger than this is refused before it is allocated (RAM is at most 1 TiB,
 * and no kernel image comes near). */
#define LINUX_IMAGE_MAX (1ull << 30)

typedef struct A64ImageHeader {
    uint64_t text_offset, image_size, flags;
    unsigned page_kib;              /* 4, 16, 64, or 0 when the header does not say */
    bool big_endian, anywhere;
} A64ImageHeader;

/* Is this the start of an arm64 Image (its magic at 0x38)? */
bool a64_image_is(const uint8_t *data, size_t size);
/* Does it start like a gzip member (RFC 1952: 0x1f 0x8b, method 8)? */
bool linux_image_is_gzip(const uint8_t *data, size_t size);
/* Parse and check the header of the Image in data[0..size) (`path` names it in messages). */
bool a64_image_header(const uint8_t *data, size_t size, const char *path, A64ImageHeader *h, Error *err);
/* Inflate the gzip member in data[0..size) into a new buffer (*out, *out_size; the caller frees
 * it), at most `limit` bytes: a truncated or corrupt stream, or one that inflates past the limit,
 * is refused with the offset in the file where it went wrong. */
bool linux_image_gunzip(const uint8_t *data, size_t size, size_t limit, const char *path, uint8_t **out,
                        size_t *out_size, Error *err);

#endif
