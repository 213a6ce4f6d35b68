/* fuzz_rsp.c — the GDB stub's packet parser (--gdb, sim/gdbstub.c): the RSP framing
 * (base/rsp.c) and every packet it decodes handed to the command dispatcher, with the machine
 * stopped as at a breakpoint.  A client may send anything: the stub refuses it with a message or
 * an E reply, never crashes.  Input: byte 0 picks the architecture (mod 3); the rest is the byte
 * stream from the client.  The stub has no socket (fd -1): its replies go nowhere.  `k` (which
 * ends the run) is skipped; breakpoints and watchpoints are cleared after each input.
 */
#include <string.h>

#include "cpu/debug.h"
#include "fuzz.h"
#include "sim/gdbstub.h"

static Machine machines[ARCH_COUNT];
static GdbStub stubs[ARCH_COUNT];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    /* 32 MiB of RAM each: M and X packets write anywhere in it, and the touched pages stay
     * (arm64's default 1 GiB took the harness past libFuzzer's RSS limit) */
    fz_plain_machines(machines, 2, (uint64_t)32 << 20);
    for (int a = 0; a < ARCH_COUNT; a++) {
        GdbStub *s = &stubs[a];
        s->m = &machines[a];
        s->dev = "fuzz";
        s->fd = s->listen_fd = -1;
        s->stopped = machines[a].cl.cpus[0];
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    GdbStub *s = &stubs[data[0] % ARCH_COUNT];
    rsp_init(&s->dec);
    s->g_cpu = s->c_cpu = 0;
    for (size_t i = 1; i < size; i++)
        if (rsp_feed(&s->dec, data[i]) == RSP_PACKET && s->dec.buf[0] != 'k') {
            gdbstub_packet(s, s->dec.buf, s->dec.len);
            if (s->out_len > sizeof s->out)
                fz_fail("reply of %zu bytes overran its buffer", s->out_len);
        }
    vcpu_debug_clear(&s->m->cl);
    return 0;
}
