/* gdbstub.h — the GDB remote stub (--gdb DEV, --gdb-wait): one gdb thread per CPU, all-stop.
 *
 * The stub listens on DEV (tcp::PORT on 127.0.0.1, tcp:HOST:PORT, unix:PATH).  With
 * --gdb-wait it waits for a client before the first instruction; without, a client is taken at
 * the next quantum boundary, which stops the machine there.  While the machine runs, the stub
 * looks at the socket only at quantum boundaries (a Ctrl-C, a disconnection); the stops
 * themselves come from cpu/debug.h.  A client that goes away (or detaches) leaves the run to
 * go on to its end as if none had been there; a new one may attach at a later boundary.
 * Reverse execution (bs, bc; reverse-finish is gdb's bc then bs) goes through time travel
 * (sim/timetravel.h), which gdbstub_run starts: the request pauses the run, and the move is done
 * from the run loop, outside vcpu_run.
 * docs/debugging.md has the packets and the monitor commands.
 */
#ifndef PMUSIM_GDBSTUB_H
#define PMUSIM_GDBSTUB_H

#include "base/rsp.h"
#include "cpu/debugstate.h"
#include "sim/machine.h"
#include "sim/timetravel.h"

#define GDB_UNIX_PATH_MAX 108       /* sun_path */
#define GDB_OUT_MAX (2 * RSP_PACKET_MAX + 8)

typedef struct GdbStub {
    Machine *m;
    const char *dev;
    bool wait;                      /* --gdb-wait */
    int listen_fd, fd;              /* fd -1: no client */
    char unix_path[GDB_UNIX_PATH_MAX];  /* unlinked at the end */
    bool noack;                     /* QStartNoAckMode */
    bool held;                      /* a packet came instead of an acknowledgement: dec.buf has it */
    bool between_rounds;            /* the stop is at a quantum boundary (checkpoints) */
    RspDecoder dec;
    Cpu *stopped;                   /* the CPU whose stop was reported */
    int g_cpu, c_cpu;               /* Hg, Hc: CPU index */
    char *checkpoint;               /* monitor checkpoint FILE, for the next boundary */
    uint64_t hw[DEBUG_MAX_BREAK];   /* the breakpoints set with Z1 (the stop says hwbreak:) */
    unsigned nhw;
    /* reverse execution (bs, bc): the request waits for the run to pause at the top level */
    TimeTravel tt;
    bool tt_on;                     /* gdbstub_run: time travel started */
    bool tt_busy;                   /* a tt_* move under way: stops are not the client's */
    char reverse;                   /* 's' or 'c' requested, 0: none */
    bool history_begin;             /* the last reverse move reached the start of history */
    char out[GDB_OUT_MAX];          /* a reply's payload */
    size_t out_len;
} GdbStub;

/* Listen on dev (the message names --gdb and dev); false with err. */
bool gdbstub_open(GdbStub *s, Machine *m, const char *dev, bool wait, Error *err);
/* Before the run: with --gdb-wait, wait for a client and serve it until it resumes. */
void gdbstub_start(GdbStub *s);
/* The run (instead of mach_run) with time travel on, for reverse execution: the machine pauses
 * when the client asks for a reverse step or continue, which runs here, outside vcpu_run (a
 * restore replaces the machine's state in place).  The exit status as mach_run's. */
int gdbstub_run(GdbStub *s);
/* After the run: tell a client the exit status (W), stop listening. */
void gdbstub_close(GdbStub *s, int status);

/* For the fuzzing harness and the unit tests: handle one packet's payload with the machine
 * stopped at cpu, the reply in s->out (true if it resumes the machine). */
bool gdbstub_packet(GdbStub *s, const char *pkt, size_t len);

#endif
