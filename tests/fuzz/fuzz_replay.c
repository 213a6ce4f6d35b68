/* fuzz_replay.c — the console input log reader (--replay FILE, sim/conlog.c and sim/conin.c).
 *
 * Input: a log file (sim/conlog.h).  conlog_parse() must read it or refuse it with a message
 * naming the file and an offset.  A log it reads must write back to the same bytes through
 * the --record writer (conlog_create, conlog_put, conlog_finish): the format has one spelling
 * of each log, so a reader that accepts more than the writer writes is a finding.  Then the
 * replay's own checks run as `pmusim run --replay` makes them before a run: the log, with its
 * fingerprint made the machine's (fz_checkpoint_config's, created once per architecture) and
 * its CRC-32 made again, so that mutations get past them, through conin_replay (the CPUs of
 * the entries), conin_check_uart (the log's UART and another) and conin_check_start at the
 * position of a run from boot; each refusal with a message.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sim/conin.h"

#define LOG_ARCH_AT 12
#define LOG_FP_AT 16
#define LOG_CRC 4

static Machine machines[ARCH_COUNT];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fz_plain_machines(machines, 2, 0);
    return 0;
}

static void refused(const char *what, const Error *err, const char *path)
{
    if (!err->msg[0] || !strstr(err->msg, path))
        fz_fail("%s refused the log without naming it: \"%s\"", what, err->msg);
    fz_note("%s: %s", what, err->msg);
}

/* What the writer makes of the parsed log must be the input again. */
static void round_trip(const ConLog *log, const uint8_t *data, size_t size)
{
    const char *path = fz_file("written.log", "", 0);
    ConLogWriter w;
    Error err = { { 0 } };
    if (!conlog_create(&w, path, log->arch, log->fingerprint, log->start, log->start_digest, log->uart, &err))
        fz_fail("cannot write the log back: %s", err.msg);
    for (size_t i = 0; i < log->n; i++)
        conlog_put(&w, log->bytes[i], log->cpus[i], log->cycles[i]);
    if (!conlog_finish(&w, log->closed, &err))
        fz_fail("cannot write the log back: %s", err.msg);
    size_t len;
    uint8_t *back = fz_slurp(path, &len);
    if (!back)
        fz_fail("%s: %s", path, strerror(errno));
    if (len != size || memcmp(back, data, size))
        fz_fail("the log read (%zu entries) writes back to other bytes (%zu, not %zu)", log->n, len, size);
    free(back);
}

/* The checks a run makes before it starts, on a machine of the log's architecture. */
static void replay_checks(const ConLog *log, const uint8_t *data, size_t size)
{
    Machine *m = &machines[log->arch];
    uint8_t *copy = malloc(size);
    memcpy(copy, data, size);
    store_le(copy + LOG_FP_AT, 8, mach_fingerprint(m));
    store_le(copy + size - LOG_CRC, 4, blob_crc32(0, copy, size - LOG_CRC));
    const char *path = fz_file("replay.log", copy, size);
    free(copy);
    ConIn ci;
    conin_init(&ci);
    Error err = { { 0 } };
    if (!conin_replay(&ci, path, m->arch, mach_fingerprint(m), m->cl.ncpus, &err))
        refused("conin_replay", &err, path);
    else if (!conin_check_uart(&ci, log->uart, &err))
        fz_fail("conin_check_uart refused the log's own UART: %s", err.msg);
    else if (conin_check_uart(&ci, "/another-uart", &err))
        fz_fail("conin_check_uart took another UART than the log's (%s)", log->uart);
    else if (!conin_check_start(&ci, 0, FNV1A64_BASIS, &err))
        refused("conin_check_start", &err, path);
    conin_free(&ci);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = "fuzz.log";
    ConLog log;
    Error err = { { 0 } };
    if (!conlog_parse(data, size, path, &log, &err)) {
        refused("conlog_parse", &err, path);
        conlog_free(&log);
        return 0;
    }
    round_trip(&log, data, size);
    if (size > LOG_FP_AT + 8 && data[LOG_ARCH_AT] < ARCH_COUNT)
        replay_checks(&log, data, size);
    conlog_free(&log);
    return 0;
}
