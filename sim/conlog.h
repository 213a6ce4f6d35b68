/* conlog.h — the console input log: what --record writes and --replay reads back.
 *
 * A live console input (--console-in stdin on a terminal or a pipe) arrives when the host
 * delivers it, so two runs differ; the log keeps, for every byte the console UART's receiver
 * took, the cycle and the CPU whose clock the line ran on, and a replay delivers each byte at
 * exactly that cycle: the same run again, bit for bit (docs/guest-abi.md, "Record and replay").
 *
 * File format, version 1 (all integers little-endian):
 *
 *   offset 0   "PMUSIMRL"
 *          8   u32 format version (1)
 *         12   u32 arch
 *         16   u64 fingerprint: the checkpoints' (the effective device tree, the guest image, the
 *              quantum), so a log is replayed only on the machine it was recorded on
 *         24   u64 start: input bytes the receiver had taken before the first entry (0 for a
 *              run from boot; a checkpoint's position for a run restored from one)
 *         32   u64 the digest of those bytes (conlog_digest; FNV1A64_BASIS for none)
 *         40   u32 n, then n bytes: the console UART's tree path (1 to CONLOG_PATH_MAX - 1)
 *     44 + n   entries, CONLOG_ENTRY (16) bytes each, one per byte taken, in the order taken:
 *                  u8 'B' | u8 the byte | u16 CPU | u32 0 | u64 cycle of that CPU's clock
 *              then the end marker, CONLOG_END (28) bytes:
 *                  u8 'E' | u8 0 | u16 0 | u32 0 | u64 entries | u64 closed | u32 CRC-32
 *
 * `closed` is the machine time (a quantum boundary) from which no more input came: a live
 * input's end of file, 0 for a file read whole, CONLOG_OPEN when the input was still open as
 * the run ended; a replay keeps the machine awake until then as the live input did.  The CRC-32
 * (base/state.h's, zlib's) covers every byte before it.  A file without its end marker is
 * truncated; every refusal names the file and the offset.
 *
 * The digest chains every byte taken since boot (FNV-1a over each entry's 16 bytes, as the
 * file has them): a checkpoint keeps it with the input position, so that a --replay restored
 * from a checkpoint is refused unless the log's bytes up to there are the checkpoint's run's.
 */
#ifndef PMUSIM_CONLOG_H
#define PMUSIM_CONLOG_H

#include "base/common.h"
#include "base/outfile.h"

#define CONLOG_MAGIC "PMUSIMRL"
#define CONLOG_VERSION 1u
#define CONLOG_PATH_MAX 128u        /* a tree path's room, with its NUL (DevDesc.path) */
#define CONLOG_ENTRY 16u
#define CONLOG_END 28u
#define CONLOG_OPEN UINT64_MAX      /* `closed`: the input was open when the run ended */

/* A log read whole: entry i is bytes[i], taken at cycles[i] of CPU cpus[i]. */
typedef struct ConLog {
    Arch arch;
    uint64_t fingerprint;
    uint64_t start;
    uint64_t start_digest;
    char uart[CONLOG_PATH_MAX];
    uint8_t *bytes;
    uint64_t *cycles;
    uint16_t *cpus;
    size_t n;
    uint64_t closed;
    size_t entries_at;              /* file offset of entry 0, for messages */
} ConLog;

/* Parse a whole log held in memory (`path` names it in messages).  Checks the magic, version,
 * header, every entry's tag and reserved bytes, the end marker's count and CRC, and that nothing
 * follows it.  false with err naming the path and offset. */
bool conlog_parse(const uint8_t *p, size_t len, const char *path, ConLog *log, Error *err);
/* Read a regular file (no larger than a log of CONSOLE_INPUT_MAX bytes) and parse it. */
bool conlog_read(const char *path, ConLog *log, Error *err);
/* The file offset of entry i. */
static inline uint64_t conlog_offset(const ConLog *log, uint64_t i)
{
    return log->entries_at + i * CONLOG_ENTRY;
}
void conlog_free(ConLog *log);

/* The digest h (FNV1A64_BASIS before any byte) with one more byte taken. */
uint64_t conlog_digest(uint64_t h, uint8_t c, unsigned cpu, uint64_t cycle);
/* The digest at the log's entry i (its start's, then entries 0 .. i - 1). */
uint64_t conlog_digest_upto(const ConLog *log, uint64_t i);

/* A log being written (--record), through base/outfile.h: complete or not in place at all. */
typedef struct ConLogWriter {
    OutFile out;
    uint32_t crc;
    uint64_t count;
} ConLogWriter;

bool conlog_create(ConLogWriter *w, const char *path, Arch arch, uint64_t fingerprint, uint64_t start,
                   uint64_t start_digest, const char *uart, Error *err);
void conlog_put(ConLogWriter *w, uint8_t c, unsigned cpu, uint64_t cycle);
/* The end marker, then the file into place; false with err if a byte was lost. */
bool conlog_finish(ConLogWriter *w, uint64_t closed, Error *err);

#endif
