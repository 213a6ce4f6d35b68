/* conin.c — the console UART's input: a file, a live standard input, a replay (conin.h). */
#include "sim/conin.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/tunables.h"

#define CONIN_CHUNK 4096u           /* a live input's first buffer, and a read's size */

void conin_init(ConIn *ci)
{
    memset(ci, 0, sizeof *ci);
    ci->fd = -1;
    ci->digest = FNV1A64_BASIS;
}

/* Every byte of fd, read before the run (at most CONSOLE_INPUT_MAX). */
static bool read_whole(ConIn *ci, int fd, const char *name, Error *err)
{
    size_t cap = CONIN_CHUNK, n = 0;    /* grows to CONSOLE_INPUT_MAX + 1: a byte more is too much */
    uint8_t *buf = xcalloc(1, cap);
    for (;;) {
        if (n == cap && cap > CONSOLE_INPUT_MAX)
            break;
        if (n == cap) {
            cap = cap > CONSOLE_INPUT_MAX / 2 ? CONSOLE_INPUT_MAX + 1 : 2 * cap;
            buf = xrealloc(buf, cap);
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            if (got < 0)
                err_set(err, "%s %s: %s", ci->opt, name, strerror(errno));
            break;
        }
        n += (size_t)got;
    }
    if (err->msg[0] || n > CONSOLE_INPUT_MAX) {
        free(buf);
        return err->msg[0] ? false : err_set(err, "%s %s: larger than %s", ci->opt, ci->in.path, CONSOLE_INPUT_MAX_TEXT);
    }
    ci->in.data = buf;
    ci->in.len = n;
    return true;
}

static bool is_stdin(const char *path)
{
    return !strcmp(path, "-") || !strcmp(path, "stdin");
}

/* A terminal sends each key as it is typed, without echoing it (the guest echoes, as a serial
 * terminal's far end does: QEMU's -serial stdio does the same), ^D a byte like any other; ISIG
 * stays on, so ^C still ends the run (SIGINT, every output complete).  termios(3). */
static void raw_tty(ConIn *ci)
{
    struct termios t;
    if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &ci->tio) != 0)
        return;
    t = ci->tio;
    t.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ECHONL | IEXTEN);
    t.c_iflag &= ~(tcflag_t)(ICRNL | IXON);
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    ci->tty = tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0;
}

void conin_restore_tty(ConIn *ci)
{
    if (ci->tty)
        tcsetattr(STDIN_FILENO, TCSANOW, &ci->tio);
    ci->tty = false;
}

/* Standard input that is not a regular file is live: it may still be written to. */
static bool start_live(ConIn *ci)
{
    struct stat st;
    if (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode))
        return false;
    ci->fd = STDIN_FILENO;
    ci->cap = CONIN_CHUNK;
    ci->in.data = xcalloc(1, ci->cap);
    ci->in.live = true;
    ci->closed = CONLOG_OPEN;
    raw_tty(ci);
    return true;
}

bool conin_read(ConIn *ci, const char *opt, const char *path, bool live_ok, Error *err)
{
    ci->opt = opt;
    ci->in.path = path;
    bool std = is_stdin(path) && (live_ok || !strcmp(path, "-"));
    if (std && live_ok && start_live(ci))
        return true;
    int fd = std ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return err_set(err, "%s %s: %s", opt, path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        return err_set(err, "%s %s: a directory", opt, path);
    }
    bool ok = read_whole(ci, fd, std ? "standard input" : path, err);
    if (!std)
        close(fd);
    return ok;
}

bool conin_replay(ConIn *ci, const char *path, Arch arch, uint64_t fingerprint, int ncpus, Error *err)
{
    ConLog *log = &ci->log;
    ci->opt = "--replay";
    ci->replay = true;
    ci->replay_path = path;
    if (!conlog_read(path, log, err))
        return false;
    if (log->arch != arch || log->fingerprint != fingerprint)
        return err_set(err, "--replay %s: offset 12: the log was recorded on a different machine (device tree, guest"
                       " image or --quantum differ)", path);
    for (size_t i = 0; i < log->n; i++)
        if (log->cpus[i] >= ncpus)
            return err_set(err, "--replay %s: offset %" PRIu64 ": entry %zu names cpu%u; the machine has %d", path,
                           conlog_offset(log, i) + 2, i, log->cpus[i], ncpus);
    ci->in = (ConsoleInput){ .data = log->bytes, .len = log->n, .first = log->start, .path = path,
                             .at = log->cycles, .cpu = log->cpus };
    ci->closed = log->closed;
    return true;
}

bool conin_check_uart(const ConIn *ci, const char *uart, Error *err)
{
    if (!ci->replay || !strcmp(ci->log.uart, uart))
        return true;
    return err_set(err, "--replay %s: offset 44: the log's input went to %s; this machine's console UART is %s",
                   ci->replay_path, ci->log.uart, uart);
}

bool conin_check_start(const ConIn *ci, uint64_t pos, uint64_t digest, Error *err)
{
    const ConLog *log = &ci->log;
    if (!ci->replay)
        return true;
    if (pos < log->start)
        return err_set(err, "--replay %s: offset 24: the log starts at input byte %" PRIu64 ", the run is at byte %"
                       PRIu64 " (%s)", ci->replay_path, log->start, pos,
                       pos ? "another checkpoint" : "replay it from the checkpoint its run was restored from");
    if (pos - log->start > log->n)
        return err_set(err, "--replay %s: offset %" PRIu64 ": the log ends at input byte %" PRIu64 ", before the"
                       " checkpoint's position %" PRIu64, ci->replay_path, conlog_offset(log, log->n),
                       log->start + log->n, pos);
    if (conlog_digest_upto(log, pos - log->start) != digest)
        return err_set(err, "--replay %s: offset %" PRIu64 ": the log's input up to byte %" PRIu64 " is not the input"
                       " of the checkpoint's run: a log of another run", ci->replay_path,
                       pos > log->start ? conlog_offset(log, 0) : 32, pos);
    return true;
}

bool conin_record(ConIn *ci, const char *path, Arch arch, uint64_t fingerprint, uint64_t start, const char *uart,
                  Error *err)
{
    if (!conlog_create(&ci->rec, path, arch, fingerprint, start, ci->digest, uart, err))
        return false;
    ci->recording = true;
    return true;
}

/* Room for CONIN_CHUNK more bytes (a live input is bounded as a file is). */
static bool live_room(ConIn *ci)
{
    if (ci->in.len + CONIN_CHUNK <= ci->cap)
        return true;
    if (ci->cap >= CONSOLE_INPUT_MAX)
        return false;
    ci->cap *= 2;
    ci->in.data = xrealloc((void *)ci->in.data, ci->cap);
    return true;
}

/* poll(2) with no wait, then one read(2): what is there now, never blocking. */
bool conin_poll(ConIn *ci, uint64_t now)
{
    if (ci->fd < 0)
        return false;
    struct pollfd p = { .fd = ci->fd, .events = POLLIN };
    if (poll(&p, 1, 0) <= 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)))
        return false;
    bool room = live_room(ci);
    if (!room)
        fprintf(stderr, "pmusim: %s %s: more than %s in this run: the rest is not read\n", ci->opt, ci->in.path,
                CONSOLE_INPUT_MAX_TEXT);
    ssize_t got = room ? read(ci->fd, (uint8_t *)ci->in.data + ci->in.len, CONIN_CHUNK) : 0;
    if (got < 0 && (errno == EINTR || errno == EAGAIN))
        return false;
    if (got <= 0) {                 /* the end (or an error, or more than a file may hold): no more */
        ci->fd = -1;
        ci->closed = now;
        return false;
    }
    ci->in.len += (size_t)got;
    return true;
}

bool conin_open(const ConIn *ci, uint64_t now)
{
    return ci->closed == CONLOG_OPEN || now < ci->closed;
}

void conin_taken(ConIn *ci, uint8_t c, int cpu, uint64_t when)
{
    ci->digest = conlog_digest(ci->digest, c, (unsigned)cpu, when);
    if (ci->recording)
        conlog_put(&ci->rec, c, (unsigned)cpu, when);
}

uint64_t conin_log_offset(const ConIn *ci, uint64_t pos)
{
    return conlog_offset(&ci->log, pos - ci->log.start);
}

bool conin_finish(ConIn *ci, Error *err)
{
    if (!ci->recording)
        return true;
    ci->recording = false;
    return conlog_finish(&ci->rec, ci->closed, err);
}

void conin_rescue(ConIn *ci)
{
    if (ci->recording)
        outfile_rescue(&ci->rec.out);
    conin_restore_tty(ci);
}

void conin_free(ConIn *ci)
{
    conin_restore_tty(ci);
    if (ci->recording)
        outfile_discard(&ci->rec.out);
    if (ci->replay)
        conlog_free(&ci->log);
    else
        free((void *)ci->in.data);
    conin_init(ci);
}
