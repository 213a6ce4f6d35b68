/* conin.h — where the console UART's input comes from: a file read whole, a live standard
 * input, or a --replay log; and the --record log of what the receiver took.
 *
 *   --console-in FILE      read whole before the run: the schedule follows from the file and
 *   --console-input FILE   the guest alone (--console-input: the older name; its `-` reads
 *                          standard input whole, a pipe too, as it always did)
 *   --console-in stdin|-   standard input: a regular file is read whole as above; a terminal,
 *                          pipe, socket or device is LIVE: read without blocking at quantum
 *                          boundaries (conin_poll), the bytes handed to the receiver as they
 *                          come; the run never waits for them, so when they arrive depends on
 *                          the host: --record keeps it; a terminal is put in
 *                          non-canonical mode without echo for the run (conin_restore_tty)
 *   --replay LOG           the log's bytes at the log's cycles (sim/conlog.h): the recorded run again
 *
 * The ConsoleInput (sim/dev/device.h) is what the UART sees.  The machine calls conin_poll
 * after every round, conin_open to know whether input may still come (a machine whose CPUs all
 * sleep is not hung while a live input is open, nor, in a replay, before the recorded run's
 * input closed), and conin_taken for every byte the receiver took.
 */
#ifndef PMUSIM_CONIN_H
#define PMUSIM_CONIN_H

#include <termios.h>

#include "sim/conlog.h"
#include "sim/dev/device.h"

typedef struct ConIn {
    ConsoleInput in;                /* what the console UART takes */
    const char *opt;                /* the option that named it, for messages */
    int fd;                         /* live: standard input; -1 otherwise */
    size_t cap;                     /* live: room in the buffer */
    bool tty;                       /* live from a terminal: its modes, restored at the end */
    struct termios tio;
    uint64_t closed;                /* machine time from which no more input came (CONLOG_OPEN: open) */
    uint64_t digest;                /* of every byte taken since boot (conlog_digest) */
    bool replay;
    ConLog log;                     /* --replay */
    const char *replay_path;
    bool recording;
    ConLogWriter rec;               /* --record */
} ConIn;

void conin_init(ConIn *ci);
/* --console-in / --console-input (`opt`) PATH; `live_ok`: standard input may be live (only
 * --console-in's "stdin" and "-").  false with err naming the option and the file. */
bool conin_read(ConIn *ci, const char *opt, const char *path, bool live_ok, Error *err);
/* --replay PATH, for a machine of `arch`, `fingerprint` and `ncpus` CPUs. */
bool conin_replay(ConIn *ci, const char *path, Arch arch, uint64_t fingerprint, int ncpus, Error *err);
/* Once the console UART is known (its tree path): a replay's log must name the same. */
bool conin_check_uart(const ConIn *ci, const char *uart, Error *err);
/* --record PATH (opened once the inputs are checked); `start`: the input position now. */
bool conin_record(ConIn *ci, const char *path, Arch arch, uint64_t fingerprint, uint64_t start, const char *uart,
                  Error *err);
/* Before a replay runs: its log must start where the input is (`pos`: 0 from boot, a
 * checkpoint's position), with the same bytes up to there (`digest`: the checkpoint's). */
bool conin_check_start(const ConIn *ci, uint64_t pos, uint64_t digest, Error *err);
/* A live input: take what standard input has without waiting; true if bytes came.  `now`:
 * the machine time, kept as the end of input when it ends. */
bool conin_poll(ConIn *ci, uint64_t now);
/* May more input come at machine time `now`? */
bool conin_open(const ConIn *ci, uint64_t now);
/* The receiver took the next input byte (c) at cycle `when` of CPU `cpu`. */
void conin_taken(ConIn *ci, uint8_t c, int cpu, uint64_t when);
/* Byte `pos` of a replay: the log's file offset of its entry. */
uint64_t conin_log_offset(const ConIn *ci, uint64_t pos);
/* The end of the run: the record log's end marker, the file into place. */
bool conin_finish(ConIn *ci, Error *err);
/* From a fatal-signal handler: the record log as far as it got (without its end marker), the
 * terminal's modes back. */
void conin_rescue(ConIn *ci);
/* The terminal's modes as they were before the run (async-signal-safe; conin_free does it). */
void conin_restore_tty(ConIn *ci);
void conin_free(ConIn *ci);

#endif
