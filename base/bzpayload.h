/* bzpayload.h — the kernel inside an x86 bzImage: its compressed payload, unpacked, and the
 * ELF vmlinux that comes out of it.
 *
 * Linux 6.12 Documentation/arch/x86/boot.rst ("payload_offset", "payload_length"): the
 * protected-mode kernel is the decompressor and, payload_offset bytes from its start,
 * payload_length bytes of compressed kernel whose format its magic number says.
 * arch/x86/boot/compressed/Makefile builds that payload from vmlinux.bin (`objcopy -R .comment
 * -S vmlinux`: an ELF64 without symbols, its section headers kept) followed, on a relocatable
 * kernel, by vmlinux.relocs; the compressor is the one CONFIG_KERNEL_{GZIP,BZIP2,LZMA,XZ,LZO,
 * LZ4,ZSTD} names, and scripts/Makefile.lib's size_append adds the unpacked size as a
 * little-endian u32 after the compressed stream.
 *
 *   magic                 format      read with
 *   1f 8b                 gzip        zlib (linux_image_gunzip)
 *   28 b5 2f fd           zstd        libzstd (a frame; the size word after it is ignored)
 *   fd 37 7a 58 5a 00     xz          liblzma (stream decoder)
 *   5d 00 00              lzma        liblzma (the "lzma alone" format)
 *   42 5a 68 ("BZh")      bzip2       refused: not read
 *   89 4c 5a 4f ("\x89LZO") lzo       refused: not read
 *   02 21 4c 18           lz4 legacy  refused: not read
 *
 * The unpacking is bounded: at most BZ_PAYLOAD_MAX bytes come out (a zip bomb is refused, not
 * followed), and a corrupt or truncated stream is refused with the file and the offset of the
 * payload.
 */
#ifndef PMUSIM_BZPAYLOAD_H
#define PMUSIM_BZPAYLOAD_H

#include "base/bzimage.h"
#include "base/common.h"

/* The most an unpacked payload may take: Debian's 6.12 vmlinux.bin + relocs is 55 MiB. */
#define BZ_PAYLOAD_MAX (512ull << 20)

/* Unpack the payload of the bzImage data[0..size) whose header is h: the bytes in *out
 * (malloc'd, *out_len of them), or false with one message naming `path`, the payload's file
 * offset and what is wrong (outside the file, an unknown or unread format, corrupt,
 * truncated, too large). */
bool bzpayload_unpack(const uint8_t *data, size_t size, const BzHeader *h, const char *path, uint8_t **out,
                      size_t *out_len, Error *err);

/* Is elf[0..len) an ELF64 little-endian x86-64 executable whose program headers lie in it?
 * (false with a message naming `path`, which says where it came from, and the field.) */
bool bzpayload_check_elf(const uint8_t *elf, size_t len, const char *path, Error *err);

/* The n bytes at link address vaddr in the ELF's PT_LOAD segments (file bytes only), or NULL. */
const uint8_t *bzpayload_elf_bytes(const uint8_t *elf, size_t len, uint64_t vaddr, size_t n);

#endif
