/* gdbstub.c — the GDB remote stub (gdbstub.h; docs/debugging.md).
 *
 * @see GDB manual, appendix E "Remote Protocol": E.3 "Stop Reply Packets" (T, W), E.4 "General
 *      Query Packets" (qSupported, qXfer:features:read, qRcmd, qfThreadInfo, qC, qAttached),
 *      E.2 "Packets" (? g G p P m M X Z z c s vCont D k H T), E.11 (QStartNoAckMode).
 *
 * Packet map (thread id = CPU index + 1; all-stop: a stop pauses the whole machine):
 *   ?                      the last stop: T05thread:N; (T02 after a Ctrl-C; watch:/rwatch:/awatch:ADDR)
 *   g G p P                registers of the Hg CPU (cpu/gdb_regs.h); P/G write engine registers only
 *   m M X                  memory by virtual address through the Hg CPU's MMU; writes to code pages
 *                          are refused (E0e): breakpoints never write memory
 *   Z0 Z1 / z0 z1          breakpoints (both kinds the same: cpu/debug.h)
 *   Z2 Z3 Z4 / z2 z3 z4    write, read, access watchpoints
 *   c s vCont;c/s/C/S      continue, exact single-step (signals are ignored: a guest has none)
 *   bs bc                  reverse step, reverse continue (E.2; sim/timetravel.h): the run pauses
 *                          and gdbstub_run moves the machine back, outside vcpu_run
 *   D k                    detach (the run goes on), kill (the run ends, status 137)
 *   qRcmd                  monitor: help, pmu, apic, gic, trace on|off, checkpoint FILE
 */
#include "sim/gdbstub.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "apic/lapic.h"
#include "cpu/debug.h"
#include "cpu/gdb_regs.h"
#include "cpu/x86_64.h"
#include "gic/gic.h"
#include "pmu/pmc.h"
#include "sim/checkpoint.h"
#include "sim/cli.h"

#define GDB_KILL_STATUS (128 + 9)   /* `k`: as a shell reports a process killed by SIGKILL */
#define GDB_MAX_ACK_TRIES 3         /* resends of a packet the client asked again with '-' */
#define GDB_MONITOR_MAX 16384       /* a monitor command's output */
#define GDB_O_CHUNK 2000            /* output bytes per 'O' packet */
#define GDB_IN_BUF 4096
#define GDB_LISTEN_BACKLOG 1
#define GDB_PORT_MAX 65535
#define GDB_MEM_MAX (RSP_PACKET_MAX / 2)        /* m: hex doubles the bytes */

/* GDB's errno values for E replies (File-I/O "Errno Values"): what pmusim answers with. */
enum { GDB_EPERM = 1, GDB_EFAULT = 14, GDB_EINVAL = 22, GDB_ENOSPC = 28 };

static uint8_t in_buf[GDB_IN_BUF];
static size_t in_len, in_pos;

/* ------------------------------------------------------------------ transport */

static void note(const GdbStub *s, const char *fmt, ...) PMUSIM_PRINTF(2, 3);
static void note(const GdbStub *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "pmusim: --gdb %s: ", s->dev);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void disconnect(GdbStub *s, const char *why)
{
    if (s->fd < 0)
        return;
    if (rsp_in_packet(&s->dec))
        note(s, "the client left in the middle of the packet at offset %" PRIu64 "; the run goes on", s->dec.start);
    else if (why)
        note(s, "%s; the run goes on", why);
    close(s->fd);
    s->fd = -1;
    s->noack = s->held = false;
    s->nhw = 0;
    in_len = in_pos = 0;
    rsp_init(&s->dec);
    vcpu_debug_clear(&s->m->cl);
}

static void send_raw(GdbStub *s, const char *buf, size_t len)
{
    while (s->fd >= 0 && len) {
        ssize_t k = send(s->fd, buf, len, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            disconnect(s, "the connection failed on a write");
            return;
        }
        buf += k;
        len -= (size_t)k;
    }
}

/* The next byte from the client: -1 at its end (or an error), -2 when nothing is there yet
 * (only when !block) or a signal arrived. */
static int next_byte(GdbStub *s, bool block)
{
    if (in_pos < in_len)
        return in_buf[in_pos++];
    struct pollfd p = { s->fd, POLLIN, 0 };
    int r = poll(&p, 1, block ? -1 : 0);
    if (r <= 0)
        return r < 0 && errno != EINTR ? -1 : -2;
    ssize_t k = read(s->fd, in_buf, sizeof in_buf);
    if (k < 0 && errno == EINTR)
        return -2;
    if (k <= 0)
        return -1;
    in_len = (size_t)k;
    in_pos = 1;
    return in_buf[0];
}

/* The next complete thing from the client; RSP_NONE if it left, nothing is there (!block) or a
 * signal is ending the run.  Malformed packets are reported and asked again. */
static RspEvent next_event(GdbStub *s, bool block)
{
    while (s->fd >= 0 && !s->m->cl.interrupted) {
        int b = next_byte(s, block);
        if (b == -1) {
            disconnect(s, "the client disconnected");
            return RSP_NONE;
        }
        if (b == -2) {
            if (!block)
                return RSP_NONE;
            continue;
        }
        RspEvent e = rsp_feed(&s->dec, (uint8_t)b);
        if (e == RSP_ERROR) {
            note(s, "refused: %s (stream offset %" PRIu64 ")", s->dec.err, s->dec.err_at);
            if (!s->noack)
                send_raw(s, "-", 1);
            continue;
        }
        if (e != RSP_NONE)
            return e;
    }
    return RSP_NONE;
}

static void send_packet(GdbStub *s, const char *payload, size_t len)
{
    static char framed[2 * GDB_OUT_MAX + 4];
    size_t n = rsp_frame(payload, len, framed, sizeof framed);
    for (int tries = 0; tries < GDB_MAX_ACK_TRIES && s->fd >= 0; tries++) {
        send_raw(s, framed, n);
        if (s->noack)
            return;
        RspEvent e;
        while ((e = next_event(s, true)) == RSP_INTERRUPT)
            ;                       /* a Ctrl-C crossing the reply: the machine is stopped */
        s->held = e == RSP_PACKET;  /* the next packet without '+': taken as the acknowledgement */
        if (e != RSP_NAK)
            return;
    }
}

static void send_reply(GdbStub *s)
{
    send_packet(s, s->out, s->out_len);
}

/* ------------------------------------------------------------------ replies */

static void reply(GdbStub *s, const char *fmt, ...) PMUSIM_PRINTF(2, 3);
static void reply(GdbStub *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->out, sizeof s->out, fmt, ap);
    va_end(ap);
    s->out_len = n < 0 ? 0 : (size_t)n < sizeof s->out ? (size_t)n : sizeof s->out - 1;
}

static void reply_err(GdbStub *s, int code)
{
    reply(s, "E%02x", code);
}

static Cpu *cpu_of(GdbStub *s, int index)
{
    return index >= 0 && index < s->m->cl.ncpus ? s->m->cl.cpus[index] : s->stopped;
}

static int hw_find(const GdbStub *s, uint64_t addr)
{
    for (unsigned i = 0; i < s->nhw; i++)
        if (s->hw[i] == addr)
            return (int)i;
    return -1;
}

/* A Z1 breakpoint set or removed (the core does both kinds alike; the stop reply tells them). */
static void hw_note(GdbStub *s, uint64_t addr, bool set)
{
    int i = hw_find(s, addr);
    if (set && i < 0 && s->nhw < DEBUG_MAX_BREAK)
        s->hw[s->nhw++] = addr;
    else if (!set && i >= 0)
        s->hw[i] = s->hw[--s->nhw];
}

static void stop_reply(GdbStub *s)
{
    static const char *const watch_name[] = { [WATCH_WRITE] = "watch", [WATCH_READ] = "rwatch",
                                              [WATCH_ACCESS] = "awatch" };
    const DebugStop *st = &s->stopped->dbg.stop;
    unsigned tid = (unsigned)s->stopped->index + 1;
    if (s->history_begin)           /* reverse execution reached the start of history (E.3) */
        reply(s, "T05replaylog:begin;thread:%x;", tid);
    else if (st->kind == DBG_INTERRUPT)
        reply(s, "T02thread:%x;", tid);
    else if (st->kind == DBG_WATCH)
        reply(s, "T05%s:%" PRIx64 ";thread:%x;", watch_name[st->wkind], st->addr, tid);
    else if (st->kind == DBG_BREAK)     /* swbreak+/hwbreak+: the PC is the breakpoint's (E.3) */
        reply(s, "T05%s:;thread:%x;", hw_find(s, st->addr) >= 0 ? "hwbreak" : "swbreak", tid);
    else
        reply(s, "T05thread:%x;", tid);
}

/* ------------------------------------------------------------------ registers and memory */

static void regs_read(GdbStub *s, Cpu *c)
{
    const GdbTarget *t = gdb_target(c->ops->arch);
    size_t n = 0;
    uint8_t v[GDB_REG_MAX_BYTES];
    for (unsigned i = 0; i < gdb_nregs(t); i++) {
        unsigned bytes = gdb_reg_bytes(gdb_reg(t, i));
        if (gdb_reg_read(c, i, v))
            rsp_hex(v, bytes, s->out + n);
        else
            memset(s->out + n, 'x', 2 * bytes);     /* unavailable (E.2, 'g') */
        n += 2 * bytes;
    }
    s->out_len = n;
}

static void regs_write(GdbStub *s, Cpu *c, const char *hex, size_t len)
{
    const GdbTarget *t = gdb_target(c->ops->arch);
    uint8_t v[GDB_REG_MAX_BYTES];
    size_t at = 0;
    for (unsigned i = 0; i < gdb_nregs(t) && at < len; i++) {
        const GdbReg *r = gdb_reg(t, i);
        unsigned bytes = gdb_reg_bytes(r);
        if (at + 2 * bytes > len || !rsp_unhex(hex + at, bytes, v)) {
            reply_err(s, GDB_EINVAL);
            return;
        }
        if (r->src == GR_ENGINE)
            gdb_reg_write(c, i, v);
        at += 2 * bytes;
    }
    reply(s, "OK");
}

static void reg_one(GdbStub *s, Cpu *c, const char *arg)
{
    uint64_t n;
    const GdbReg *r;
    if (!rsp_hex_u64(&arg, &n) || !(r = gdb_reg(gdb_target(c->ops->arch), (unsigned)n)) || n > UINT32_MAX) {
        reply_err(s, GDB_EINVAL);
        return;
    }
    uint8_t v[GDB_REG_MAX_BYTES];
    unsigned bytes = gdb_reg_bytes(r);
    if (*arg == 0) {                /* p n */
        if (gdb_reg_read(c, (unsigned)n, v))
            rsp_hex(v, bytes, s->out);
        else
            memset(s->out, 'x', 2 * bytes);
        s->out_len = 2 * bytes;
        return;
    }
    if (*arg != '=' || strlen(arg + 1) != 2 * bytes || !rsp_unhex(arg + 1, bytes, v))
        reply_err(s, GDB_EINVAL);
    else if (!gdb_reg_write(c, (unsigned)n, v))
        reply_err(s, GDB_EPERM);    /* a register pmusim keeps: read-only here */
    else
        reply(s, "OK");
}

/* Copy between buf and virtual [va, va + len) as CPU c sees it; returns the bytes done. */
static size_t mem_access(GdbStub *s, Cpu *c, uint64_t va, uint8_t *buf, size_t len, bool write)
{
    size_t done = 0;
    while (done < len) {
        uint64_t a = va + done, pa;
        size_t n = len - done, room = GUEST_PAGE - (a & (GUEST_PAGE - 1));
        n = n < room ? n : room;
        if (!vcpu_data_pa(c, a, &pa) && !vcpu_fetch_pa(c, a, &pa))
            break;
        uint8_t *p = mem_ptr(&s->m->mem, pa, n);
        if (!p || (write && mem_page_is_code(&s->m->mem, pa)))
            break;
        memcpy(write ? p : buf + done, write ? buf + done : p, n);
        done += n;
    }
    return done;
}

/* "addr,len" then the rest at *rest. */
static bool addr_len(const char **p, uint64_t *addr, uint64_t *len)
{
    return rsp_hex_u64(p, addr) && *(*p)++ == ',' && rsp_hex_u64(p, len);
}

static void mem_read(GdbStub *s, Cpu *c, const char *arg)
{
    uint64_t addr, len;
    static uint8_t buf[GDB_MEM_MAX];
    if (!addr_len(&arg, &addr, &len) || *arg) {
        reply_err(s, GDB_EINVAL);
        return;
    }
    size_t n = mem_access(s, c, addr, buf, len < GDB_MEM_MAX ? len : GDB_MEM_MAX, false);
    if (!n && len)
        reply_err(s, GDB_EFAULT);
    else {
        rsp_hex(buf, n, s->out);
        s->out_len = 2 * n;
    }
}

/* M addr,len:hex and X addr,len:binary */
static void mem_write(GdbStub *s, Cpu *c, const char *arg, size_t arglen, bool binary)
{
    uint64_t addr, len;
    static uint8_t buf[RSP_PACKET_MAX];
    const char *p = arg;
    if (!addr_len(&p, &addr, &len) || *p++ != ':' || len > sizeof buf) {
        reply_err(s, GDB_EINVAL);
        return;
    }
    size_t have = arglen - (size_t)(p - arg);
    bool ok = binary ? have == len : have == 2 * len && rsp_unhex(p, len, buf);
    if (!ok) {
        reply_err(s, GDB_EINVAL);
        return;
    }
    if (binary)
        memcpy(buf, p, len);
    if (mem_access(s, c, addr, buf, len, true) != len)
        reply_err(s, GDB_EFAULT);   /* unmapped, or a code page: breakpoints need no write */
    else
        reply(s, "OK");
}

/* ------------------------------------------------------------------ breakpoints */

static void set_point(GdbStub *s, const char *arg, bool set)
{
    uint64_t type, addr, kind;
    const char *p = arg;
    if (!rsp_hex_u64(&p, &type) || *p++ != ',' || !addr_len(&p, &addr, &kind) || (*p && *p != ';')) {
        reply_err(s, GDB_EINVAL);
        return;
    }
    bool ok;
    if (type <= 1) {
        ok = vcpu_debug_break(&s->m->cl, addr, set);
        if (ok && (type == 1 || !set))
            hw_note(s, addr, set && type == 1);
    }
    else if (type <= WATCH_ACCESS)
        ok = vcpu_debug_watch(&s->m->cl, (WatchKind)type, addr, kind, set);
    else {
        s->out_len = 0;             /* not supported */
        return;
    }
    if (ok)
        reply(s, "OK");
    else
        reply_err(s, GDB_ENOSPC);
}

/* ------------------------------------------------------------------ run control */

/* Resume: the stopped CPU passes its breakpoint; `step` (or NULL) executes one instruction. */
static void resume(GdbStub *s, Cpu *step)
{
    s->history_begin = false;
    vcpu_debug_resume(s->stopped, step == s->stopped);
    if (step && step != s->stopped)
        vcpu_debug_resume(step, true);
}

static bool cont(GdbStub *s, const char *arg, bool step)
{
    uint64_t addr;
    Cpu *c = step ? cpu_of(s, s->c_cpu) : s->stopped;
    if (*arg && rsp_hex_u64(&arg, &addr))
        c->ops->set_pc(c, addr);
    resume(s, step ? c : NULL);
    return true;
}

/* vCont;a[:tid];a... — the thread a step names (or the stopped one for a step without one). */
static bool vcont(GdbStub *s, const char *arg)
{
    if (!strcmp(arg, "?")) {
        reply(s, "vCont;c;C;s;S");
        return false;
    }
    Cpu *step = NULL;
    const char *p = arg;
    while (*p == ';') {
        char a = *++p;
        uint64_t t = 0, sig;
        if (a != 'c' && a != 'C' && a != 's' && a != 'S') {
            reply_err(s, GDB_EINVAL);
            return false;
        }
        p++;
        if ((a == 'C' || a == 'S') && !rsp_hex_u64(&p, &sig)) {
            reply_err(s, GDB_EINVAL);   /* C and S carry a signal (ignored: a guest has none) */
            return false;
        }
        if (*p == ':' && (++p, !rsp_hex_u64(&p, &t)))
            t = 0;                  /* -1: every thread */
        while (*p && *p != ';')
            p++;
        if ((a == 's' || a == 'S') && !step)
            step = t && t <= (uint64_t)s->m->cl.ncpus ? cpu_of(s, (int)t - 1) : s->stopped;
    }
    if (*p) {
        reply_err(s, GDB_EINVAL);
        return false;
    }
    resume(s, step);
    return true;
}

/* bs, bc: the request waits for the run to pause, stopped CPU first (at its position now) or the
 * round's end (a CPU that sleeps till then), whichever comes first; between rounds, at once.
 * gdbstub_run does the move.  Without time travel (--time-travel-check) not supported. */
static bool reverse_request(GdbStub *s, char kind)
{
    Machine *m = s->m;
    if (!s->tt_on)
        return false;               /* the empty reply */
    s->reverse = kind;
    m->pause_round = m->round.open ? m->round.end : m->clock.now;
    if (!s->between_rounds)
        vcpu_pause_at(s->stopped, s->stopped->insns, s->stopped->exc.serialized);
    return true;
}

static void thread_select(GdbStub *s, const char *arg)
{
    char which = *arg++;
    uint64_t t = 0;
    bool any = !strcmp(arg, "-1") || !strcmp(arg, "0");
    if (!any && (!rsp_hex_u64(&arg, &t) || *arg || t < 1 || t > (uint64_t)s->m->cl.ncpus)) {
        reply_err(s, GDB_EINVAL);
        return;
    }
    int idx = any ? s->stopped->index : (int)t - 1;
    if (which == 'g')
        s->g_cpu = idx;
    else
        s->c_cpu = idx;
    reply(s, "OK");
}

static void thread_alive(GdbStub *s, const char *arg)
{
    uint64_t t;
    if (rsp_hex_u64(&arg, &t) && !*arg && t >= 1 && t <= (uint64_t)s->m->cl.ncpus)
        reply(s, "OK");
    else
        reply_err(s, GDB_EINVAL);
}

/* ------------------------------------------------------------------ monitor */

static char mon[GDB_MONITOR_MAX];
static size_t mon_len;

static void say(const char *fmt, ...) PMUSIM_PRINTF(1, 2);
static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = mon_len < sizeof mon ? vsnprintf(mon + mon_len, sizeof mon - mon_len, fmt, ap) : 0;
    va_end(ap);
    if (n > 0)
        mon_len = mon_len + (size_t)n < sizeof mon ? mon_len + (size_t)n : sizeof mon - 1;
}

static const char *const source_name[PMC_SRC_COUNT] = {
    [PMC_SRC_NONE] = "none", [PMC_SRC_CYCLES] = "cycles", [PMC_SRC_INSNS] = "instructions",
    [PMC_SRC_BRANCHES] = "branches", [PMC_SRC_BRMISS] = "branch-misses", [PMC_SRC_EXT] = "timebase",
    [PMC_SRC_LOADS] = "loads", [PMC_SRC_STORES] = "stores", [PMC_SRC_MEMOPS] = "memory-ops",
};

static void mon_counter(int cpu, const PmcReading *r)
{
    const Pmc *p = r->ctr;
    say("cpu%d %-16s value=0x%" PRIx64, cpu, r->name, r->value);
    if (!p->active || p->src == PMC_SRC_NONE) {
        say(" counts=%s stopped\n", source_name[p->src]);
        return;
    }
    Pmc now = *p;
    now.value = r->value & p->mask;
    say(" counts=%s%s%s%s next-overflow-in=%" PRIu64 " %s\n", source_name[now.src], now.sub ? "-minus-" : "",
        now.sub ? source_name[now.sub] : "", now.sampling ? " interrupt" : "", pmc_left(&now), source_name[now.src]);
}

static void mon_pmu(GdbStub *s)
{
    PmcReading r[PMC_MAX];
    for (int k = 0; k < s->m->cl.ncpus; k++) {
        Cpu *c = s->m->cl.cpus[k];
        say("cpu%d insns=%" PRIu64 " cycles=%" PRIu64 "\n", k, c->insns, c->cycles);
        int n = vcpu_pmu_readings(c, r, PMC_MAX);
        for (int i = 0; i < n; i++)
            mon_counter(k, &r[i]);
    }
}

static void mon_bits(const char *what, const uint32_t *words, unsigned n)
{
    say(" %s=", what);
    bool any = false;
    for (unsigned i = 0; i < n * 32; i++)
        if (words[i / 32] >> (i % 32) & 1) {
            say("%s0x%x", any ? "," : "", i);
            any = true;
        }
    say("%s", any ? "" : "-");
}

static void mon_apic(GdbStub *s)
{
    if (s->m->arch != ARCH_X86_64) {
        say("no local APIC: this is not an x86_64 machine\n");
        return;
    }
    for (int k = 0; k < s->m->cl.ncpus; k++) {
        const Lapic *a = vcpu_x86_lapic(s->m->cl.cpus[k]);
        say("cpu%d id=0x%x tpr=0x%x svr=0x%x x2apic=%d", k, a->id, a->tpr, a->svr, a->x2apic);
        mon_bits("irr", a->irr, ARRAY_SIZE(a->irr));
        mon_bits("isr", a->isr, ARRAY_SIZE(a->isr));
        say("\n  lvt=");
        for (unsigned i = 0; i < LVT_COUNT; i++)
            say("%s0x%x", i ? "," : "", a->lvt[i]);
        say(" timer initial=0x%x divide=0x%x armed=%d\n", a->timer_icr, a->timer_dcr, a->timer_armed);
    }
}

static void mon_gic(GdbStub *s)
{
    const Gic *g = s->m->cl.gic;
    if (!g) {
        say("no GIC on this machine\n");
        return;
    }
    say("%s GICD_CTLR=0x%x\n", g->node, g->ctlr);
    for (int k = 0; k < g->ncpus; k++) {
        const GicCpu *gc = &g->cpu[k];
        say("cpu%d ICC_PMR=0x%x ICC_CTLR=0x%x IGRPEN0=%d IGRPEN1=%d AP0R0=0x%x AP1R0=0x%x\n  sgi/ppi (id:prio:state)",
            k, gc->pmr, gc->ctlr, gc->grpen0, gc->grpen1, gc->apr[0], gc->apr[1]);
        for (unsigned i = 0; i < GIC_PRIV; i++)
            if (gc->priv[i].flags)
                say(" %u:0x%x:0x%x", i, gc->priv[i].prio, gc->priv[i].flags);
        say("\n");
    }
}

static void mon_checkpoint(GdbStub *s, const char *file)
{
    Error err = { { 0 } };
    IoName names[CLI_IO_NAMES + 1];
    int n = cli_io_names(&s->m->cfg, names);
    names[n++] = (IoName){ "monitor checkpoint", file, true };
    if (!*file || !outfile_check_distinct(names, n, &err)) {
        say("%s\n", *file ? err.msg : "usage: monitor checkpoint FILE");
        return;
    }
    if (s->between_rounds) {
        if (checkpoint_save(s->m, file, &err))
            say("checkpoint written to %s at cycle %" PRIu64 "\n", file, s->m->clock.now);
        else
            say("%s\n", err.msg);
        return;
    }
    free(s->checkpoint);
    s->checkpoint = strdup(file);
    say("checkpoint %s will be written at the next quantum boundary (cycle %" PRIu64 "), as --save-at does\n", file,
        s->m->clock.now + s->m->clock.quantum);
}

static void mon_help(void)
{
    say("monitor pmu             each CPU's counters: value, what they count, the next overflow\n"
        "monitor apic            x86: each local APIC (IRR, ISR, LVT, timer)\n"
        "monitor gic             arm64: the GIC's distributor and CPU interfaces\n"
        "monitor trace on|off    write the --trace events, or drop them, from now on\n"
        "monitor checkpoint FILE a checkpoint (--restore FILE), at a quantum boundary\n");
}

static void monitor(GdbStub *s, const char *cmd)
{
    static const char ck[] = "checkpoint";
    size_t ckn = sizeof ck - 1;
    mon_len = 0;
    if (!strcmp(cmd, "help"))
        mon_help();
    else if (!strcmp(cmd, "pmu"))
        mon_pmu(s);
    else if (!strcmp(cmd, "apic"))
        mon_apic(s);
    else if (!strcmp(cmd, "gic"))
        mon_gic(s);
    else if (!strcmp(cmd, "trace on") || !strcmp(cmd, "trace off")) {
        s->m->trace.muted = !strcmp(cmd, "trace off");
        say("trace %s\n", s->m->trace.muted ? "off" : "on");
    } else if (!strncmp(cmd, ck, ckn) && (!cmd[ckn] || cmd[ckn] == ' '))
        mon_checkpoint(s, cmd[ckn] ? cmd + ckn + 1 : "");
    else
        say("unknown monitor command '%s' (monitor help lists them)\n", cmd);
}

static void qrcmd(GdbStub *s, const char *hex)
{
    static char cmd[RSP_PACKET_MAX / 2 + 1];
    size_t n = strlen(hex) / 2;
    if (strlen(hex) % 2 || !rsp_unhex(hex, n, (uint8_t *)cmd)) {
        reply_err(s, GDB_EINVAL);
        return;
    }
    cmd[n] = 0;
    monitor(s, cmd);
    for (size_t at = 0; at < mon_len && s->fd >= 0; at += GDB_O_CHUNK) {
        size_t k = mon_len - at < GDB_O_CHUNK ? mon_len - at : GDB_O_CHUNK;
        s->out[0] = 'O';
        rsp_hex((const uint8_t *)mon + at, k, s->out + 1);
        s->out_len = 1 + 2 * k;
        send_reply(s);
    }
    reply(s, "OK");
}

/* ------------------------------------------------------------------ queries */

static void xfer_features(GdbStub *s, const char *arg)
{
    static char xml[RSP_PACKET_MAX * 2];
    static const char prefix[] = "target.xml:";
    uint64_t off, len;
    const char *p = arg + strlen(prefix);
    if (strncmp(arg, prefix, strlen(prefix)) || !addr_len(&p, &off, &len)) {
        reply_err(s, GDB_EINVAL);
        return;
    }
    size_t n = gdb_target_xml(gdb_target(s->m->arch), xml, sizeof xml);
    if (off >= n) {
        reply(s, "l");
        return;
    }
    size_t k = n - off;
    k = k < len ? k : len;
    k = k < sizeof s->out - 2 ? k : sizeof s->out - 2;
    s->out[0] = off + k < n ? 'm' : 'l';
    memcpy(s->out + 1, xml + off, k);
    s->out_len = 1 + k;
}

static void thread_info(GdbStub *s)
{
    size_t n = 0;
    s->out[n++] = 'm';
    for (int k = 0; k < s->m->cl.ncpus; k++)
        n += (size_t)snprintf(s->out + n, sizeof s->out - n, "%s%x", k ? "," : "", k + 1);
    s->out_len = n;
}

static void thread_extra(GdbStub *s, const char *arg)
{
    static const char *const state[] = { [CPU_OFF] = "off", [CPU_RUNNING] = "running", [CPU_HALTED] = "halted",
                                         [CPU_DEAD] = "dead" };
    uint64_t t;
    if (!rsp_hex_u64(&arg, &t) || t < 1 || t > (uint64_t)s->m->cl.ncpus) {
        reply_err(s, GDB_EINVAL);
        return;
    }
    char text[96];
    const Cpu *c = s->m->cl.cpus[t - 1];
    int n = snprintf(text, sizeof text, "cpu%d %s insns=%" PRIu64, c->index, state[c->state], c->insns);
    rsp_hex((const uint8_t *)text, (size_t)n, s->out);
    s->out_len = 2 * (size_t)n;
}

static bool query(GdbStub *s, const char *pkt)
{
    if (!strncmp(pkt, "qSupported", strlen("qSupported")))
        reply(s, "PacketSize=%x;qXfer:features:read+;vContSupported+;swbreak+;hwbreak+;QStartNoAckMode+%s",
              RSP_PACKET_MAX, s->tt_on ? ";ReverseStep+;ReverseContinue+" : "");
    else if (!strncmp(pkt, "qXfer:features:read:", strlen("qXfer:features:read:")))
        xfer_features(s, pkt + strlen("qXfer:features:read:"));
    else if (!strcmp(pkt, "qfThreadInfo"))
        thread_info(s);
    else if (!strcmp(pkt, "qsThreadInfo"))
        reply(s, "l");
    else if (!strcmp(pkt, "qC"))
        reply(s, "QC%x", s->stopped->index + 1);
    else if (!strncmp(pkt, "qAttached", strlen("qAttached")))
        reply(s, "1");
    else if (!strncmp(pkt, "qThreadExtraInfo,", strlen("qThreadExtraInfo,")))
        thread_extra(s, pkt + strlen("qThreadExtraInfo,"));
    else if (!strncmp(pkt, "qRcmd,", strlen("qRcmd,")))
        qrcmd(s, pkt + strlen("qRcmd,"));
    else if (!strncmp(pkt, "qSymbol", strlen("qSymbol")))
        reply(s, "OK");
    else
        return false;
    return true;
}

/* ------------------------------------------------------------------ dispatch */

static bool kill_run(GdbStub *s)
{
    mach_exit(s->m, NULL, GDB_KILL_STATUS, "gdb-kill");
    disconnect(s, NULL);
    return true;
}

bool gdbstub_packet(GdbStub *s, const char *pkt, size_t len)
{
    Cpu *g = cpu_of(s, s->g_cpu);
    s->out_len = 0;
    switch (pkt[0]) {
    case '?': stop_reply(s); return false;
    case 'g': regs_read(s, g); return false;
    case 'G': regs_write(s, g, pkt + 1, len - 1); return false;
    case 'p': case 'P': reg_one(s, g, pkt + 1); return false;
    case 'm': mem_read(s, g, pkt + 1); return false;
    case 'M': mem_write(s, g, pkt + 1, len - 1, false); return false;
    case 'X': mem_write(s, g, pkt + 1, len - 1, true); return false;
    case 'Z': case 'z': set_point(s, pkt + 1, pkt[0] == 'Z'); return false;
    case 'H': thread_select(s, pkt + 1); return false;
    case 'T': thread_alive(s, pkt + 1); return false;
    case 'c': return cont(s, pkt + 1, false);
    case 's': return cont(s, pkt + 1, true);
    case 'k': return kill_run(s);
    case 'D': reply(s, "OK"); return true;
    case 'b':
        if ((pkt[1] == 's' || pkt[1] == 'c') && len == 2)
            return reverse_request(s, pkt[1]);
        return false;
    }
    if (!strncmp(pkt, "vCont", strlen("vCont")))
        return vcont(s, pkt + strlen("vCont"));
    if (!strcmp(pkt, "QStartNoAckMode"))
        reply(s, "OK");
    else
        query(s, pkt);              /* an unknown packet gets the empty reply (E.1) */
    return false;
}

/* Serve the client with the machine stopped at c until it resumes, leaves or a signal ends
 * the run.  notify: the client waits for this stop's reply (after c, s, vCont). */
static void serve(GdbStub *s, Cpu *c, bool notify)
{
    s->stopped = c;
    s->g_cpu = s->c_cpu = c->index;
    if (notify) {
        stop_reply(s);
        send_reply(s);
    }
    while (s->fd >= 0 && !s->m->cl.interrupted && !s->m->cl.stopping) {
        RspEvent e = s->held ? RSP_PACKET : next_event(s, true);
        s->held = false;
        if (e != RSP_PACKET)
            continue;               /* a Ctrl-C while stopped, a stray acknowledgement */
        if (!s->noack)
            send_raw(s, "+", 1);
        bool detach = s->dec.buf[0] == 'D';
        bool go = gdbstub_packet(s, s->dec.buf, s->dec.len);
        if (!go || detach)
            send_reply(s);
        if (!strcmp(s->dec.buf, "QStartNoAckMode"))
            s->noack = true;
        if (detach)
            disconnect(s, "the client detached");
        if (go)
            return;
    }
}

/* ------------------------------------------------------------------ the machine's callbacks */

/* A stop while time travel executes again (or the run goes on to the pause a reverse request
 * asked for): not the client's.  A breakpoint is a hit for reverse-continue's scan, and is
 * passed once as a resume would. */
static void replay_stop(GdbStub *s, Cpu *c)
{
    if (c->dbg.stop.kind != DBG_BREAK)
        return;
    if (tt_scanning(&s->tt))
        tt_hit_at(&s->tt, tt_pos_now(s->m, c->index));
    vcpu_debug_resume(c, false);
}

static void stub_stopped(void *opaque, Cpu *c)
{
    GdbStub *s = opaque;
    if (s->tt_busy || s->reverse) {
        replay_stop(s, c);
        return;
    }
    s->between_rounds = false;
    if (s->fd >= 0)
        serve(s, c, true);
}

static bool accept_client(GdbStub *s, bool block)
{
    if (block) {
        struct pollfd p = { s->listen_fd, POLLIN, 0 };
        while (poll(&p, 1, -1) < 0 && errno == EINTR && !s->m->cl.interrupted)
            ;
    }
    int fd = accept(s->listen_fd, NULL, NULL);
    if (fd < 0)
        return false;
    s->fd = fd;
    rsp_init(&s->dec);
    in_len = in_pos = 0;
    return true;
}

/* A stop at a quantum boundary (attach, Ctrl-C): reported as CPU 0's (or the last stopped). */
static void boundary_stop(GdbStub *s, DebugStopKind kind, bool notify)
{
    Cpu *c = s->stopped ? s->stopped : s->m->cl.cpus[0];
    s->between_rounds = true;
    c->dbg.stop = (DebugStop){ kind, 0, 0 };
    serve(s, c, notify);
    c->dbg.stop.kind = DBG_NONE;
}

static void pending_checkpoint(GdbStub *s)
{
    Error err = { { 0 } };
    if (!s->checkpoint)
        return;
    if (!checkpoint_save(s->m, s->checkpoint, &err))
        note(s, "monitor checkpoint: %s", err.msg);
    free(s->checkpoint);
    s->checkpoint = NULL;
}

static void stub_poll(void *opaque)
{
    GdbStub *s = opaque;
    if (s->tt_busy || s->reverse)
        return;                     /* the client waits for the reverse move's stop */
    pending_checkpoint(s);
    if (s->fd < 0) {
        if (accept_client(s, false))
            boundary_stop(s, DBG_START, false);
        return;
    }
    RspEvent e;
    while ((e = next_event(s, false)) != RSP_NONE)
        if (e == RSP_INTERRUPT) {
            boundary_stop(s, DBG_INTERRUPT, true);
            return;
        }
}

/* ------------------------------------------------------------------ setup */

static int listen_unix(GdbStub *s, const char *path, Error *err)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    struct stat st;
    if (strlen(path) >= sizeof a.sun_path)
        return err_set(err, "--gdb %s: the socket path is longer than %zu bytes", s->dev, sizeof a.sun_path - 1), -1;
    if (!stat(path, &st) && S_ISSOCK(st.st_mode))
        unlink(path);               /* a stale socket of an earlier run */
    strcpy(a.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        err_set(err, "--gdb %s: cannot bind: %s", s->dev, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    snprintf(s->unix_path, sizeof s->unix_path, "%s", path);
    return fd;
}

static int listen_tcp(GdbStub *s, const char *hostport, Error *err)
{
    const char *colon = strrchr(hostport, ':');
    char host[64] = "127.0.0.1", *end;
    if (!colon || (size_t)(colon - hostport) >= sizeof host)
        return err_set(err, "--gdb %s: expected tcp::PORT or tcp:HOST:PORT", s->dev), -1;
    if (colon > hostport)
        snprintf(host, sizeof host, "%.*s", (int)(colon - hostport), hostport);
    long port = strtol(colon + 1, &end, 10);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    if (!colon[1] || *end || port < 1 || port > GDB_PORT_MAX)
        return err_set(err, "--gdb %s: the port must be a number from 1 to %d", s->dev, GDB_PORT_MAX), -1;
    if (inet_pton(AF_INET, strcmp(host, "localhost") ? host : "127.0.0.1", &a.sin_addr) != 1)
        return err_set(err, "--gdb %s: '%s' is not an IPv4 address", s->dev, host), -1;
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        err_set(err, "--gdb %s: cannot bind: %s", s->dev, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

bool gdbstub_open(GdbStub *s, Machine *m, const char *dev, bool wait, Error *err)
{
    memset(s, 0, sizeof(*s));
    s->m = m;
    s->dev = dev;
    s->wait = wait;
    s->fd = -1;
    int fd = !strncmp(dev, "unix:", 5) ? listen_unix(s, dev + 5, err)
           : !strncmp(dev, "tcp:", 4)  ? listen_tcp(s, dev + 4, err)
                                       : (err_set(err, "--gdb %s: expected tcp::PORT, tcp:HOST:PORT or unix:PATH", dev), -1);
    if (fd < 0)
        return false;
    if (listen(fd, GDB_LISTEN_BACKLOG) < 0 || fcntl(fd, F_SETFL, O_NONBLOCK) < 0) {
        close(fd);
        return err_set(err, "--gdb %s: cannot listen: %s", dev, strerror(errno));
    }
    s->listen_fd = fd;
    ClusterDebug *d = &m->cl.dbg;
    d->opaque = s;
    d->stopped = stub_stopped;
    d->poll = stub_poll;
    return true;
}

void gdbstub_start(GdbStub *s)
{
    if (!s->wait)
        return;
    fprintf(stderr, "pmusim: --gdb %s: waiting for gdb to connect\n", s->dev);
    if (accept_client(s, true))
        boundary_stop(s, DBG_START, false);
}

/* ------------------------------------------------------------------ reverse execution */

/* What the moves leave behind of stops that were not the client's, and of the pause asked. */
static void reverse_tidy(Machine *m)
{
    m->pause_round = UINT64_MAX;
    for (int i = 0; i < m->cl.ncpus; i++) {
        Cpu *c = m->cl.cpus[i];
        vcpu_pause_cancel(c);
        c->dbg.stop.kind = c->dbg.hit.kind = DBG_NONE;
        c->dbg.until = UINT64_MAX;
        c->dbg.resume = false;
    }
}

/* The reverse step or continue asked, then the stop reported and the client served again. */
static void reverse_move(GdbStub *s)
{
    Machine *m = s->m;
    char kind = s->reverse;
    Cpu *c = kind == 's' ? cpu_of(s, s->c_cpu) : s->stopped;
    TtPos at = tt_pos_now(m, c->index);
    s->reverse = 0;
    reverse_tidy(m);
    s->tt_busy = true;
    TtResult r = kind == 's' ? tt_reverse_stepi(&s->tt, c->index, &at) : tt_reverse_continue(&s->tt, &at);
    s->tt_busy = false;
    reverse_tidy(m);
    if (r == TT_ERROR || r == TT_ENDED || r == TT_PASSED)
        note(s, "reverse-%s: the machine could not go back (result %d)", kind == 's' ? "stepi" : "continue", (int)r);
    Cpu *to = r == TT_REACHED ? m->cl.cpus[at.cpu] : c;
    uint64_t pc = to->ops->get_pc(to);
    to->dbg.stop = (DebugStop){ kind == 'c' && r == TT_REACHED ? DBG_BREAK : DBG_STEP, 0, pc };
    s->history_begin = r == TT_NO_HISTORY;
    s->between_rounds = !m->round.open;
    serve(s, to, true);
    to->dbg.stop.kind = DBG_NONE;
}

int gdbstub_run(GdbStub *s)
{
    Machine *m = s->m;
    mach_begin(m);
    tt_init(&s->tt, m);             /* only with --gdb: snapshots cost memory */
    tt_pace(&s->tt);
    s->tt_on = true;
    gdbstub_start(s);
    for (;;) {
        if (s->reverse && s->fd >= 0 && !m->cl.stopping)
            reverse_move(s);
        else if (s->reverse) {
            s->reverse = 0;         /* the client left: the run goes on */
            reverse_tidy(m);
        } else if (mach_advance(m) == MACH_ENDED)
            break;
    }
    s->tt_on = false;
    tt_destroy(&s->tt);
    return mach_finish(m);
}

void gdbstub_close(GdbStub *s, int status)
{
    if (s->fd >= 0) {
        reply(s, "W%02x", status & 0xff);       /* the process exited (E.3) */
        send_reply(s);
        close(s->fd);
    }
    if (s->listen_fd > 0)
        close(s->listen_fd);
    if (s->unix_path[0])
        unlink(s->unix_path);
    free(s->checkpoint);
    s->m->cl.dbg = (ClusterDebug){ 0 };
}
