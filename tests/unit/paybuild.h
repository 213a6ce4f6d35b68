/* paybuild.h — synthetic bzImage payloads for the unit tests and the fuzzing seeds: a buffer
 * compressed in each format base/bzpayload.c reads (gzip, zstd, xz, lzma, as the kernel's
 * build makes them: scripts/Makefile.lib, scripts/xz_wrap.sh), put into a bzImage as its
 * payload, and a vmlinux holding x86-64 kallsyms tables to compress. */
#ifndef PMUSIM_PAYBUILD_H
#define PMUSIM_PAYBUILD_H

#include "base/common.h"

/* The payload formats, in the order pay_compress takes them by name. */
#define PAY_KINDS { "gzip", "zstd", "xz", "lzma" }

/* in[0..n) compressed as `kind` into dst (room for cap bytes): its length, 0 if it failed. */
size_t pay_compress(const char *kind, const uint8_t *in, size_t n, uint8_t *dst, size_t cap);

/* A bzImage: the first pm_off + pm_size bytes of bz (a setup header and its protected-mode
 * kernel, which starts at pm_off), then in[0..n) compressed as `kind` right after them, with
 * payload_offset, payload_length and syssize set; NULL if the compressor failed.  *len: its size. */
uint8_t *pay_bzimage(const uint8_t *bz, size_t pm_off, size_t pm_size, const char *kind, const uint8_t *in, size_t n,
                     size_t *len);

/* A vmlinux as a bzImage's payload holds it: a tiny x86-64 ELF (`elf`, elen bytes), then at the
 * next 8-byte boundary the kallsyms tables of nsyms symbols (x86-64: the first four absolute
 * per-CPU ones from 0, then _text at 0xffffffff81000000 and functions and data every 16 bytes). */
uint8_t *pay_vmlinux(const uint8_t *elf, size_t elen, int nsyms, size_t *len);

#endif
