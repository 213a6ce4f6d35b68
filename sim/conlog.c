/* conlog.c — the console input log of --record and --replay (format in conlog.h). */
#include "sim/conlog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/state.h"
#include "base/tunables.h"

#define CONLOG_VERSION_AT 8u
#define CONLOG_ARCH_AT 12u
#define CONLOG_FP_AT 16u
#define CONLOG_START_AT 24u
#define CONLOG_DIGEST_AT 32u
#define CONLOG_PATH_AT 40u          /* u32 length, then the path */
#define CONLOG_TAG_BYTE 'B'
#define CONLOG_TAG_END 'E'
#define CONLOG_CRC 4u
/* The largest log: an entry per byte of the largest console input, header and end. */
#define CONLOG_MAX_FILE ((uint64_t)CONSOLE_INPUT_MAX * CONLOG_ENTRY + CONLOG_PATH_AT + 4 + CONLOG_PATH_MAX + CONLOG_END)

/* ------------------------------------------------------------------ reading */

static bool bad(Error *err, const char *path, size_t off, const char *what)
{
    return err_set(err, "--replay %s: offset %zu: %s", path, off, what);
}

/* The header up to the entries; *at: where they begin. */
static bool parse_header(const uint8_t *p, size_t len, const char *path, ConLog *log, size_t *at, Error *err)
{
    if (len < 8 || memcmp(p, CONLOG_MAGIC, 8))
        return bad(err, path, 0, "not a pmusim console input log (bad magic)");
    if (len < CONLOG_PATH_AT + 4)
        return bad(err, path, len, "truncated log (in the header)");
    uint32_t version = (uint32_t)load_le(p + CONLOG_VERSION_AT, 4);
    if (version != CONLOG_VERSION)
        return err_set(err, "--replay %s: offset %u: log format version %u; this pmusim reads version %u only", path,
                       CONLOG_VERSION_AT, version, CONLOG_VERSION);
    uint32_t arch = (uint32_t)load_le(p + CONLOG_ARCH_AT, 4);
    if (arch >= ARCH_COUNT)
        return bad(err, path, CONLOG_ARCH_AT, "unknown architecture");
    log->arch = (Arch)arch;
    log->fingerprint = load_le(p + CONLOG_FP_AT, 8);
    log->start = load_le(p + CONLOG_START_AT, 8);
    log->start_digest = load_le(p + CONLOG_DIGEST_AT, 8);
    if (log->start > MAX_RUN_LIMIT)
        return bad(err, path, CONLOG_START_AT, "the start position is out of range");
    uint32_t n = (uint32_t)load_le(p + CONLOG_PATH_AT, 4);
    if (n == 0 || n >= CONLOG_PATH_MAX)
        return bad(err, path, CONLOG_PATH_AT, "the UART's path length is out of range");
    if (len - (CONLOG_PATH_AT + 4) < n)
        return bad(err, path, len, "truncated log (in the UART's path)");
    memcpy(log->uart, p + CONLOG_PATH_AT + 4, n);
    log->uart[n] = 0;
    if (strlen(log->uart) != n)
        return bad(err, path, CONLOG_PATH_AT + 4, "a NUL inside the UART's path");
    *at = CONLOG_PATH_AT + 4 + n;
    return true;
}

/* One entry at p (CONLOG_ENTRY bytes there). */
static bool parse_entry(const uint8_t *p, size_t off, const char *path, ConLog *log, Error *err)
{
    if (p[0] != CONLOG_TAG_BYTE)
        return bad(err, path, off, "neither an entry ('B') nor the end marker ('E')");
    if (load_le(p + 4, 4))
        return bad(err, path, off + 4, "reserved bytes of an entry are not zero");
    log->bytes[log->n] = p[1];
    log->cpus[log->n] = (uint16_t)load_le(p + 2, 2);
    log->cycles[log->n] = load_le(p + 8, 8);
    log->n++;
    return true;
}

/* The end marker at off: the count, the end of input, the CRC of all before it, nothing after. */
static bool parse_end(const uint8_t *p, size_t len, size_t off, const char *path, ConLog *log, Error *err)
{
    const uint8_t *e = p + off;
    if (len - off < CONLOG_END)
        return bad(err, path, len, "truncated log (in the end marker)");
    if (e[1] || load_le(e + 2, 2) || load_le(e + 4, 4))
        return bad(err, path, off + 1, "reserved bytes of the end marker are not zero");
    if (load_le(e + 8, 8) != log->n)
        return err_set(err, "--replay %s: offset %zu: the end marker counts %" PRIu64 " entries, the log has %zu",
                       path, off + 8, load_le(e + 8, 8), log->n);
    log->closed = load_le(e + 16, 8);
    size_t crc_at = off + CONLOG_END - CONLOG_CRC;
    uint32_t want = (uint32_t)load_le(p + crc_at, 4), got = blob_crc32(0, p, crc_at);
    if (want != got)
        return err_set(err, "--replay %s: offset %zu: CRC-32 mismatch (stored 0x%08x, computed 0x%08x): the log is"
                       " corrupted", path, crc_at, want, got);
    if (len != off + CONLOG_END)
        return bad(err, path, off + CONLOG_END, "bytes after the end marker");
    return true;
}

bool conlog_parse(const uint8_t *p, size_t len, const char *path, ConLog *log, Error *err)
{
    memset(log, 0, sizeof *log);
    size_t off = 0;
    if (!parse_header(p, len, path, log, &off, err))
        return false;
    log->entries_at = off;
    size_t most = (len - off) / CONLOG_ENTRY;  /* entries that fit: allocated before any is read */
    log->bytes = xcalloc(most + 1, 1);
    log->cpus = xcalloc(most + 1, sizeof *log->cpus);
    log->cycles = xcalloc(most + 1, sizeof *log->cycles);
    for (; off < len && p[off] != CONLOG_TAG_END; off += CONLOG_ENTRY) {
        if (len - off < CONLOG_ENTRY)
            return bad(err, path, len, "truncated log (in an entry; no end marker)");
        if (!parse_entry(p + off, off, path, log, err))
            return false;
    }
    if (off >= len)
        return bad(err, path, len, "truncated log (no end marker)");
    return parse_end(p, len, off, path, log, err);
}

bool conlog_read(const char *path, ConLog *log, Error *err)
{
    memset(log, 0, sizeof *log);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);    /* O_NONBLOCK: a FIFO's open waits */
    if (fd < 0)
        return err_set(err, "--replay %s: %s", path, strerror(errno));
    struct stat st;
    bool ok = false;
    if (fstat(fd, &st) != 0)
        err_set(err, "--replay %s: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        err_set(err, "--replay %s: not a regular file: a log is a file written by --record", path);
    else if ((uint64_t)st.st_size > CONLOG_MAX_FILE)
        err_set(err, "--replay %s: %jd bytes: larger than any log can be", path, (intmax_t)st.st_size);
    else
        ok = true;
    size_t size = ok ? (size_t)st.st_size : 0, got = 0;
    uint8_t *buf = xcalloc(1, size + 1);
    while (ok && got < size) {
        ssize_t k = read(fd, buf + got, size - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            ok = err_set(err, "--replay %s: offset %zu: read error or the file shrank while read", path, got);
        else
            got += (size_t)k;
    }
    close(fd);
    ok = ok && conlog_parse(buf, size, path, log, err);
    free(buf);
    return ok;
}

void conlog_free(ConLog *log)
{
    free(log->bytes);
    free(log->cpus);
    free(log->cycles);
    memset(log, 0, sizeof *log);
}

/* ------------------------------------------------------------------ writing */

static void put(ConLogWriter *w, const void *p, size_t n)
{
    w->crc = blob_crc32(w->crc, p, n);
    outfile_write(&w->out, p, n);
}

bool conlog_create(ConLogWriter *w, const char *path, Arch arch, uint64_t fingerprint, uint64_t start,
                   uint64_t start_digest, const char *uart, Error *err)
{
    memset(w, 0, sizeof *w);
    if (!outfile_open(&w->out, "--record", path, err))
        return false;
    uint32_t n = (uint32_t)strnlen(uart, CONLOG_PATH_MAX - 1);
    uint8_t h[CONLOG_PATH_AT + 4];
    memcpy(h, CONLOG_MAGIC, 8);
    store_le(h + CONLOG_VERSION_AT, 4, CONLOG_VERSION);
    store_le(h + CONLOG_ARCH_AT, 4, (uint32_t)arch);
    store_le(h + CONLOG_FP_AT, 8, fingerprint);
    store_le(h + CONLOG_START_AT, 8, start);
    store_le(h + CONLOG_DIGEST_AT, 8, start_digest);
    store_le(h + CONLOG_PATH_AT, 4, n);
    put(w, h, sizeof h);
    put(w, uart, n);
    return true;
}

static void encode_entry(uint8_t *e, uint8_t c, unsigned cpu, uint64_t cycle)
{
    memset(e, 0, CONLOG_ENTRY);
    e[0] = CONLOG_TAG_BYTE;
    e[1] = c;
    store_le(e + 2, 2, cpu);
    store_le(e + 8, 8, cycle);
}

uint64_t conlog_digest(uint64_t h, uint8_t c, unsigned cpu, uint64_t cycle)
{
    uint8_t e[CONLOG_ENTRY];
    encode_entry(e, c, cpu, cycle);
    return fnv1a(h, e, sizeof e);
}

uint64_t conlog_digest_upto(const ConLog *log, uint64_t i)
{
    uint64_t h = log->start_digest;
    for (uint64_t k = 0; k < i && k < log->n; k++)
        h = conlog_digest(h, log->bytes[k], log->cpus[k], log->cycles[k]);
    return h;
}

void conlog_put(ConLogWriter *w, uint8_t c, unsigned cpu, uint64_t cycle)
{
    uint8_t e[CONLOG_ENTRY];
    encode_entry(e, c, cpu, cycle);
    put(w, e, sizeof e);
    w->count++;
}

bool conlog_finish(ConLogWriter *w, uint64_t closed, Error *err)
{
    uint8_t e[CONLOG_END] = { CONLOG_TAG_END };
    store_le(e + 8, 8, w->count);
    store_le(e + 16, 8, closed);
    w->crc = blob_crc32(w->crc, e, CONLOG_END - CONLOG_CRC);
    store_le(e + CONLOG_END - CONLOG_CRC, 4, w->crc);
    outfile_write(&w->out, e, sizeof e);
    return outfile_commit(&w->out, err);
}
