/* mkinitramfs.c — the host tool that packs the scenario's init into an initramfs.
 *
 *   mkinitramfs OUT.cpio INIT
 *
 * OUT.cpio is a newc cpio (base/cpio.h) of the tree below, INIT as /init: what Linux needs to
 * run it (init/main.c: console_on_rootfs opens /dev/console for init's standard input and
 * outputs before anything mounts devtmpfs; /proc, /sys, /sys/kernel/tracing and /dev are the
 * mount points the init uses).  Reproducible: the same INIT gives the same bytes (fixed order,
 * inode numbers, uid/gid and mtime 0).  Built from base/cpio.c by guest/Makefile; the output is
 * written through base/outfile.h (a temporary renamed into place).  Exit 2 for a bad input, 7
 * when the output cannot be written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "base/cpio.h"
#include "base/outfile.h"

#define INIT_MAX (64u << 20)            /* a static init is tens of KiB; refuse anything absurd */
#define TTY_MAJOR 5                     /* Documentation/admin-guide/devices.txt: 5,1 /dev/console */
#define CONSOLE_MINOR 1

typedef struct Node {
    const char *name;
    uint32_t mode;                      /* S_IFMT | permissions */
    uint32_t rmaj, rmin;
} Node;

/* The tree, parents first; /init is added after it. */
static const Node tree[] = {
    { "dev", S_IFDIR | 0755, 0, 0 },
    { "dev/console", S_IFCHR | 0600, TTY_MAJOR, CONSOLE_MINOR },
    { "proc", S_IFDIR | 0555, 0, 0 },
    { "sys", S_IFDIR | 0555, 0, 0 },
    { "tmp", S_IFDIR | 01777, 0, 0 },
    { "root", S_IFDIR | 0700, 0, 0 },
};

static uint8_t *read_init(const char *path, size_t *len, Error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        err_set(err, "%s: %s", path, strerror(errno));
        return NULL;
    }
    uint8_t *buf = xcalloc(1, INIT_MAX + 1);
    *len = fread(buf, 1, INIT_MAX + 1, f);
    bool bad = ferror(f) || *len > INIT_MAX;
    fclose(f);
    if (bad) {
        err_set(err, "%s: %s", path, *len > INIT_MAX ? "larger than 64 MiB" : "read error");
        free(buf);
        return NULL;
    }
    return buf;
}

static int write_archive(const char *out, const CpioWriter *w)
{
    OutFile o;
    Error err = { { 0 } };
    if (!outfile_open(&o, "mkinitramfs", out, &err)) {
        fprintf(stderr, "mkinitramfs: %s\n", err.msg);
        return EXIT_OUTPUT;
    }
    outfile_write(&o, w->buf, w->len);
    if (!outfile_commit(&o, &err)) {
        fprintf(stderr, "mkinitramfs: %s\n", err.msg);
        return EXIT_OUTPUT;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: mkinitramfs OUT.cpio INIT\n");
        return EXIT_USAGE;
    }
    Error err = { { 0 } };
    size_t len;
    uint8_t *init = read_init(argv[2], &len, &err);
    if (!init) {
        fprintf(stderr, "mkinitramfs: %s\n", err.msg);
        return EXIT_USAGE;
    }
    CpioWriter w;
    cpio_writer_init(&w);
    for (size_t i = 0; i < ARRAY_SIZE(tree); i++)
        cpio_add(&w, tree[i].name, tree[i].mode, tree[i].rmaj, tree[i].rmin, NULL, 0);
    cpio_add(&w, "init", S_IFREG | 0755, 0, 0, init, len);
    cpio_finish(&w);
    free(init);
    int rc = write_archive(argv[1], &w);
    cpio_writer_free(&w);
    return rc;
}
