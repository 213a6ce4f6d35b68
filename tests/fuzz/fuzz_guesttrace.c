/* fuzz_guesttrace.c — the guest trace-ring decoder (--guest-trace FILE, tracer/guesttrace.c).
 *
 * The rings are guest memory: whatever a guest leaves there must give a trace or a refusal with
 * a message, never a crash (house rule: guest errors stay in the guest).  Input: byte 0 picks the
 * architecture (mod 3: the byte order and the machine); the next FZ_GT_DESC bytes are the
 * `trace_buffers` descriptor, written at that symbol's address in the tiny image (fz_tiny_elf);
 * the rest is written at fz_gt_ring_base(arch), where the seeds' rings are.  guesttrace_print()
 * then decodes them into /dev/null (or $FUZZ_GUESTTRACE_OUT, to look at a corpus), and the
 * --trace-dat writer (tracer/tracedat.h) merges the decoded entries into a trace.dat on /dev/null.  The machines (tiny image, small board) are created once and
 * the bytes written are put back after each input.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "tracer/guesttrace.h"
#include "tracer/tracedat.h"

static Machine machines[ARCH_COUNT];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fz_plain_machines(machines, 1, 0);
    return 0;
}

/* Copy bytes into guest RAM at addr, keeping what was there in *saved. */
static uint8_t *poke(Machine *m, uint64_t addr, const uint8_t *p, size_t n, uint8_t **saved)
{
    uint8_t *dst = mem_ptr(&m->mem, addr, n);
    if (!dst)
        fz_fail("0x%" PRIx64 "+%zu is not in the machine's RAM", addr, n);
    *saved = malloc(n ? n : 1);
    memcpy(*saved, dst, n);
    memcpy(dst, p, n);
    return dst;
}

/* The rings as --trace-dat merges them: every guest CPU a block of its own. */
static void write_trace_dat(Machine *m)
{
    GuestTrace gt;
    Error err = { { 0 } };
    bool ok = guesttrace_read(&m->image, &m->mem, &gt, &err);
    TraceDatConfig dc = { "/dev/null", 0, 16, 1000000000u, &m->image, "fuzz" };
    TraceSink *s = ok ? tracedat_open(&dc, &err) : NULL;
    if (ok && !s)
        fz_fail("tracedat_open: %s", err.msg);
    if (s) {
        tracedat_add_guest(s, &gt);
        if (!s->close(s, &err))
            fz_fail("the trace.dat writer lost its output: %s", err.msg);
    }
    guesttrace_free(&gt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 + FZ_GT_DESC + FZ_GT_RING_MAX)
        return 0;
    Arch a = (Arch)(data[0] % 3);
    Machine *m = &machines[a];
    uint64_t va;
    if (!image_symbol_addr(&m->image, "trace_buffers", &va))
        fz_fail("the tiny image has no trace_buffers");
    size_t dlen = size - 1 < FZ_GT_DESC ? size - 1 : FZ_GT_DESC, rlen = size - 1 - dlen;
    uint8_t desc[FZ_GT_DESC] = { 0 };
    memcpy(desc, data + 1, dlen);
    uint8_t *saved_desc, *saved_ring;
    uint8_t *d = poke(m, image_load_addr(&m->image, va), desc, FZ_GT_DESC, &saved_desc);
    uint8_t *r = poke(m, fz_gt_ring_base(a), data + 1 + dlen, rlen, &saved_ring);

    const char *out = getenv("FUZZ_GUESTTRACE_OUT");   /* to look at what a corpus decodes to */
    Error err = { { 0 } };
    FILE *f = fopen(out ? out : "/dev/null", "w");
    if (!f)
        fz_fail("%s: cannot open", out ? out : "/dev/null");
    if (!guesttrace_print(&m->image, &m->mem, f, &err)) {
        if (!err.msg[0])
            fz_fail("guesttrace_print refused the rings without a message");
        fz_note("guesttrace_print: %s", err.msg);
    }
    fclose(f);
    write_trace_dat(m);

    memcpy(d, saved_desc, FZ_GT_DESC);
    memcpy(r, saved_ring, rlen);
    free(saved_desc);
    free(saved_ring);
    return 0;
}
