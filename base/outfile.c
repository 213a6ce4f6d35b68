/* outfile.c — outputs written beside their destination and renamed into place (outfile.h). */
#define _GNU_SOURCE 1  /* mkostemp */
#include "base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether an output is written in place: a device, a FIFO, or a link whose target has no path of
 * its own (a dangling link; a memfd or a pipe behind /proc/self/fd/N).  Otherwise it goes through
 * a temporary file renamed onto *dest: the path itself, or the regular file a symbolic link at
 * path names (a rename onto the link would replace the link, and its target would keep the old
 * contents). */
static bool in_place(const char *path, char **dest)
{
    struct stat st;
    *dest = NULL;
    if (lstat(path, &st) != 0)
        return false;                           /* a new file */
    if (!S_ISLNK(st.st_mode))
        return !S_ISREG(st.st_mode);
    char *real = realpath(path, NULL);
    if (!real || stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
        free(real);
        return true;
    }
    *dest = real;
    return false;
}

bool outfile_open(OutFile *o, const char *what, const char *path, Error *err)
{
    memset(o, 0, sizeof *o);
    o->what = what;
    o->fd = -1;
    if (!path || !strcmp(path, "-")) {
        o->fd = STDOUT_FILENO;
        return true;
    }
    o->path = xstrdup(path);
    if (in_place(path, &o->dest)) {
        o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (o->fd < 0)
            goto fail;
        return true;
    }
    if (!o->dest)
        o->dest = xstrdup(path);
    size_t n = strlen(o->dest) + sizeof ".pmusim-XXXXXX";
    o->tmp = xcalloc(1, n);
    snprintf(o->tmp, n, "%s.pmusim-XXXXXX", o->dest);
    o->fd = mkostemp(o->tmp, O_CLOEXEC);
    if (o->fd < 0)
        goto fail;
    struct stat st;                 /* the mode of the file it replaces, or a plain create's (mkstemp's is 0600) */
    fchmod(o->fd, stat(o->dest, &st) == 0 ? st.st_mode & 07777 : 0644);
    return true;
fail:
    err_set(err, "%s %s: cannot create: %s", what, path, strerror(errno));
    free(o->tmp);
    free(o->dest);
    free(o->path);
    memset(o, 0, sizeof *o);
    o->fd = -1;
    return false;
}

void outfile_write(OutFile *o, const void *buf, size_t len)
{
    const char *p = buf;
    while (len && !o->errnum && o->fd >= 0) {
        ssize_t w = write(o->fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            o->errnum = w < 0 ? errno : ENOSPC;
            break;
        }
        p += w;
        len -= (size_t)w;
    }
    o->lost += len;
}

void outfile_put(OutFile *o, char *buf, size_t cap, size_t *len, const void *p, size_t n)
{
    if (*len + n > cap) {
        size_t full = *len;
        *len = 0;               /* first: a fatal signal's rescue must not write them again */
        outfile_write(o, buf, full);
    }
    if (n > cap) {
        outfile_write(o, p, n);
        return;
    }
    memcpy(buf + *len, p, n);
    *len += n;
}

static void outfile_free(OutFile *o)
{
    free(o->tmp);
    free(o->dest);
    free(o->path);
    o->tmp = o->dest = o->path = NULL;
    o->fd = -1;
}

bool outfile_commit(OutFile *o, Error *err)
{
    if (o->fd < 0 && !o->path)
        return true;                /* never opened */
    if (o->fd > STDOUT_FILENO && close(o->fd) != 0 && !o->errnum)
        o->errnum = errno;
    if (!o->errnum && o->tmp && rename(o->tmp, o->dest) != 0)
        o->errnum = errno;
    bool ok = !o->errnum;
    if (!ok) {
        char lost[48] = "";
        if (o->lost)
            snprintf(lost, sizeof lost, " (%" PRIu64 " bytes lost)", o->lost);
        err_set(err, "%s %s: write error: %s%s", o->what, o->path ? o->path : "(stdout)", strerror(o->errnum), lost);
        if (o->tmp)
            unlink(o->tmp);
    }
    outfile_free(o);
    return ok;
}

void outfile_discard(OutFile *o)
{
    if (o->fd > STDOUT_FILENO)
        close(o->fd);
    if (o->tmp)
        unlink(o->tmp);
    outfile_free(o);
}

void outfile_rescue(OutFile *o)
{
    if (o->tmp && o->fd >= 0)
        (void)rename(o->tmp, o->dest);
}

bool outfile_write_stdio(const char *what, const char *path, bool (*fill)(FILE *f, void *arg, Error *err),
                         void *arg, Error *err)
{
    OutFile o;
    if (!outfile_open(&o, what, path, err))
        return false;
    int fd = dup(o.fd);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        err_set(err, "%s %s: cannot write: %s", what, path, strerror(errno));
        outfile_discard(&o);
        return false;
    }
    Error ferr = { { 0 } };
    bool filled = fill(f, arg, &ferr);
    if ((ferror(f) | fclose(f)) && !o.errnum)
        o.errnum = errno ? errno : EIO;
    if (!filled) {
        err_set(err, "%s", ferr.msg);
        outfile_discard(&o);
        return false;
    }
    return outfile_commit(&o, err);
}

/* ------------------------------------------------------------------ inputs vs outputs */

typedef struct FileId {
    dev_t dev;
    ino_t ino;
    const char *name;               /* NULL for an existing file; else the name in that directory */
    bool device;                    /* not a regular file or directory: may repeat */
} FileId;

static bool file_id(const char *path, FileId *id)
{
    struct stat st;
    memset(id, 0, sizeof *id);
    if (stat(path, &st) == 0) {
        id->dev = st.st_dev;
        id->ino = st.st_ino;
        id->device = S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
        return true;
    }
    /* not there yet: its directory and its name */
    char *copy = xstrdup(path);
    bool ok = stat(dirname(copy), &st) == 0;
    free(copy);
    if (!ok)
        return false;
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    id->name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    return true;
}

static bool same_file(const FileId *a, const FileId *b)
{
    if (a->dev != b->dev || a->ino != b->ino || !a->name != !b->name)
        return false;
    return !a->name || !strcmp(a->name, b->name);
}

bool outfile_check_distinct(const IoName *names, int n, Error *err)
{
    FileId ids[OUTFILE_CHECK_MAX];
    if (n > (int)ARRAY_SIZE(ids))   /* never a silent cut: the names past it would go unchecked */
        return err_set(err, "internal: %d file names to check, at most %d (OUTFILE_CHECK_MAX)", n, OUTFILE_CHECK_MAX);
    for (int i = 0; i < n; i++) {
        if (!names[i].path || !strcmp(names[i].path, "-") || !file_id(names[i].path, &ids[i]))
            continue;               /* stdout; or a path that cannot be resolved: opening it will say why */
        for (int k = 0; k < i; k++) {
            if (!names[k].path || !strcmp(names[k].path, "-") || !(names[i].output || names[k].output))
                continue;
            FileId idk;
            if (!file_id(names[k].path, &idk) || !same_file(&ids[i], &idk) || (ids[i].device && idk.device))
                continue;
            return err_set(err, "%s %s and %s %s are the same file: an output may not overwrite %s",
                           names[k].what, names[k].path, names[i].what, names[i].path,
                           names[k].output && names[i].output ? "another output" : "an input");
        }
    }
    return true;
}
