/* outfile.h — every file pmusim writes: never over an input, never half-written, never silently short.
 *
 * A regular-file output is written to a temporary file beside it and renamed into place when
 * it is complete, so the old file stays whole until then (and an input named as an output is
 * refused before anything is opened: outfile_check_distinct).  A device or a FIFO (/dev/null,
 * /dev/stdout, a pipe) is written in place.  The first write error is kept; committing reports
 * it with the number of bytes lost, and the caller turns that into exit status 7.
 */
#ifndef PMUSIM_OUTFILE_H
#define PMUSIM_OUTFILE_H

#include <stdio.h>

#include "base/common.h"

typedef struct OutFile {
    const char *what;               /* the option that named it ("--trace"), for messages */
    char *path;                     /* NULL: standard output */
    char *dest;                     /* what tmp is renamed to: path, or the file a link at path names */
    char *tmp;                      /* the temporary file renamed to dest; NULL: written in place */
    int fd;                         /* -1 when closed */
    int errnum;                     /* the first write error, 0 if none */
    uint64_t lost;                  /* bytes not written because of it */
} OutFile;

/* Open an output: `path` (NULL or "-" for standard output).  false with err set. */
bool outfile_open(OutFile *o, const char *what, const char *path, Error *err);
/* Write all of it (retrying short writes); on error the bytes are counted as lost.  Uses only
 * write(2): safe in a fatal-signal handler. */
void outfile_write(OutFile *o, const void *buf, size_t len);
/* Buffered writing for streaming outputs (the trace sinks): append n bytes to buf (cap bytes,
 * *len used), writing the buffer out first when they do not fit; more than cap bytes go out
 * directly. */
void outfile_put(OutFile *o, char *buf, size_t cap, size_t *len, const void *p, size_t n);
/* Finish: close, and rename the temporary into place.  false with err set ("--trace t: write
 * error: No space left on device (1234 bytes lost)") if any byte was lost; the temporary is
 * then removed and the old file, if any, left as it was. */
bool outfile_commit(OutFile *o, Error *err);
/* Give up (the run never started): remove the temporary, leave the old file as it was. */
void outfile_discard(OutFile *o);
/* From a fatal-signal handler: put what was written in place (rename(2) only). */
void outfile_rescue(OutFile *o);
static inline bool outfile_is_open(const OutFile *o) { return o->fd >= 0; }

/* Whole-file writers that format with stdio: fill(f, arg) writes to f; the file is then
 * committed as above.  false with err set (including the filler's own error, if it sets one). */
bool outfile_write_stdio(const char *what, const char *path, bool (*fill)(FILE *f, void *arg, Error *err),
                         void *arg, Error *err);

/* Before anything is opened: refuse an output that is one of the inputs or another output
 * (the same file by device and inode, through any name or link; for an output that does not
 * exist yet, the same directory and name).  Devices (/dev/null, /dev/stdout) may repeat.
 * names[i] says which option gave paths[i], for the message. */
typedef struct IoName {
    const char *what;               /* "--trace", "KERNEL" */
    const char *path;               /* NULL: not given */
    bool output;
} IoName;
#define OUTFILE_CHECK_MAX 64         /* names outfile_check_distinct takes (two runs' files for pmusim diff) */
bool outfile_check_distinct(const IoName *names, int n, Error *err);

#endif
