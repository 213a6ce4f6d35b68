/* cpio.h — initramfs archives: Linux's "newc" cpio, written and read.
 *
 * The format (Linux, Documentation/driver-api/early-userspace/buffer-format.rst; the kernel's
 * reader is init/initramfs.c, its own writer usr/gen_init_cpio.c):
 *
 *   offset  size  field
 *        0     6  magic "070701" (newc), "070702" (newc with a data checksum)
 *        6     8  c_ino        every field: 8 ASCII hex digits, no prefix
 *       14     8  c_mode       S_IFMT | permissions
 *       22     8  c_uid
 *       30     8  c_gid
 *       38     8  c_nlink
 *       46     8  c_mtime
 *       54     8  c_filesize   bytes of data after the name
 *       62     8  c_maj        device of the archived file
 *       70     8  c_min
 *       78     8  c_rmaj       for a device node: its device
 *       86     8  c_rmin
 *       94     8  c_namesize   with the terminating NUL
 *      102     8  c_chksum     070702: the 32-bit sum of the data bytes; else 0
 *      110        the name, NUL-terminated, padded with NULs to a multiple of 4 (from the
 *                 archive's start), then the data, padded likewise
 *
 * An entry named "TRAILER!!!" ends an archive.  An initrd may hold several archives one after
 * the other, NUL bytes between them, and compressed ones (init/initramfs.c, unpack_to_rootfs).
 *
 * The writer makes reproducible archives: the caller's order, inode numbers counting from 1 in
 * that order, uid, gid and mtime 0, the whole padded to a multiple of 512 bytes as
 * gen_init_cpio pads it.
 */
#ifndef PMUSIM_CPIO_H
#define PMUSIM_CPIO_H

#include "base/common.h"

#define CPIO_HEADER_SIZE 110
#define CPIO_TRAILER "TRAILER!!!"
#define CPIO_NAME_MAX 4096              /* Linux's PATH_MAX: init/initramfs.c skips longer names */

/* ---- writer */

typedef struct CpioWriter {
    uint8_t *buf;
    size_t len, cap;
    uint32_t ino;                       /* the last inode number given */
} CpioWriter;

void cpio_writer_init(CpioWriter *w);
/* One entry: mode is S_IFMT | permissions; rmaj/rmin for device nodes; data for regular files
 * and symlinks (the link's target). */
void cpio_add(CpioWriter *w, const char *name, uint32_t mode, uint32_t rmaj, uint32_t rmin, const void *data,
              size_t size);
/* The trailer and the padding: w->buf[0..w->len) is then the archive. */
void cpio_finish(CpioWriter *w);
void cpio_writer_free(CpioWriter *w);

/* ---- reader */

typedef struct CpioEntry {
    uint64_t offset;                    /* of the header, from the start of the buffer */
    uint32_t ino, mode, uid, gid, nlink, mtime, maj, min, rmaj, rmin, chksum;
    bool has_chksum;                    /* magic 070702 */
    const char *name;                   /* in the buffer, NUL-terminated */
    const uint8_t *data;                /* in the buffer */
    uint32_t size;
    uint64_t next;                      /* the next header's offset */
} CpioEntry;

/* The entry whose header is at `offset` (a multiple of 4) of buf[0..len): false with one
 * message naming `path` and the offset of what is wrong. */
bool cpio_entry(const uint8_t *buf, size_t len, uint64_t offset, const char *path, CpioEntry *e, Error *err);

/* Check an initrd as Linux unpacks it: archives (each ending with TRAILER!!!) and NUL padding,
 * up to the end or to compressed data, which is passed unchecked.  A file that does not start
 * (after NULs) with a cpio header or compressed data is not an initramfs (Linux loads it as an
 * initrd image, a RAM disk) and passes too.  false with one message naming the file and the
 * offset. */
bool cpio_check(const uint8_t *buf, size_t len, const char *path, Error *err);

#endif
