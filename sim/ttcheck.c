/* ttcheck.c — --time-travel-check (see ttcheck.h).
 *
 * Map: the breakpoint (an engine code hook per CPU, as a debugger stub's would be, reporting to
 * time travel while it re-executes); comparing two states (the first differing byte and its
 * top-level checkpoint section); one check point; the run.
 */
#include "sim/ttcheck.h"

#include <stdio.h>
#include <string.h>

#include "base/common.h"
#include "sim/checkpoint.h"
#include "sim/timetravel.h"

/* The checkpoint's framing (sim/checkpoint.h): the header's length, and a section's header
 * before its name (u32 name length) and after it (u32 version, u64 payload length). */
#define CK_HEADER_LEN 36u
#define CK_NAME_LEN 4u
#define CK_SECTION_TAIL 12u

typedef struct Check {
    Machine *m;
    TimeTravel tt;
    Blob a, b, x;                   /* the states at P, at Q, after a move */
    uc_hook bp[MAX_CPUS];
    bool bp_on;
    uint64_t bp_pc;
    unsigned points, stepped, skipped, continued, failures;
} Check;

/* ------------------------------------------------------------------ the breakpoint */

/* (Not skipped when a trap hook has emulated the instruction already, stop.redirected: it is
 * a hit all the same, the hooks' order being the engine's.) */
static void bp_hook(uc_engine *uc, uint64_t pc, uint32_t size, void *opaque)
{
    Cpu *c = opaque;
    TimeTravel *tt = c->cl->boundary_opaque;
    if (!c->quiet && tt_scanning(tt))
        tt_hit(tt, c, pc);
}

/* A breakpoint at pc on every CPU (the engine retranslates the instruction with the hook). */
static void bp_set(Check *k, uint64_t pc)
{
    for (int i = 0; i < k->m->cl.ncpus; i++) {
        Cpu *c = k->m->cl.cpus[i];
        if (uc_hook_add(c->uc, &k->bp[i], UC_HOOK_CODE, (void *)bp_hook, c, pc, pc) != UC_ERR_OK)
            vcpu_internal_error(c, "cannot add the breakpoint hook");
        vcpu_engine_forget(c, pc, pc + 1);
    }
    k->bp_on = true;
    k->bp_pc = pc;
}

static void bp_clear(Check *k)
{
    for (int i = 0; k->bp_on && i < k->m->cl.ncpus; i++) {
        Cpu *c = k->m->cl.cpus[i];
        vcpu_engine_hook_del(c, k->bp[i]);
        vcpu_engine_forget(c, k->bp_pc, k->bp_pc + 1);
    }
    k->bp_on = false;
}

/* ------------------------------------------------------------------ comparing states */

/* The top-level section of a checkpoint that holds offset `at`. */
static const char *section_at(const Blob *s, size_t at, char *buf, size_t len)
{
    size_t off = CK_HEADER_LEN;
    while (off + CK_NAME_LEN <= s->len) {
        uint32_t n = (uint32_t)load_le(s->data + off, 4);
        size_t body = off + CK_NAME_LEN + n + CK_SECTION_TAIL;
        if (body > s->len)
            break;
        uint64_t plen = load_le(s->data + body - 8, 8);
        if (at < body + plen) {
            snprintf(buf, len, "%.*s", (int)n, (const char *)s->data + off + CK_NAME_LEN);
            return buf;
        }
        off = body + plen;
    }
    return "header or trailer";
}

static void pos_text(TtPos p, char *buf, size_t len)
{
    snprintf(buf, len, "cpu%d insns=%" PRIu64 " entries=%" PRIu64, p.cpu, p.insns, p.entries);
}

/* The state now against `want`; false (with a message) if they differ. */
static bool same_state(Check *k, const Blob *want, const char *what, TtPos p)
{
    checkpoint_save_blob(k->m, &k->x);
    size_t n = want->len < k->x.len ? want->len : k->x.len, at = 0;
    while (at < n && want->data[at] == k->x.data[at])
        at++;
    if (at == n && want->len == k->x.len)
        return true;
    char sec[64], pos[96];
    pos_text(p, pos, sizeof pos);
    fprintf(stderr, "pmusim: time-travel check: %s at %s: the state differs from the forward run's at offset %zu"
            " (section %s; %zu and %zu bytes)\n", what, pos, at, section_at(want, at, sec, sizeof sec), want->len,
            k->x.len);
    k->failures++;
    return false;
}

static bool same_pos(TtPos a, TtPos b)
{
    return a.cpu == b.cpu && a.insns == b.insns && a.entries == b.entries;
}

static void bad_move(Check *k, const char *what, TtResult r, TtPos p)
{
    char pos[96];
    pos_text(p, pos, sizeof pos);
    fprintf(stderr, "pmusim: time-travel check: %s from %s: result %d\n", what, pos, (int)r);
    k->failures++;
}

/* ------------------------------------------------------------------ one check point */

/* Reverse-continue from Q with a breakpoint at T's PC: back at T, in T's state. */
static void check_continue(Check *k, TtPos t, uint64_t t_pc, const Blob *at_t, TtPos q)
{
    TtPos h = { -1, 0, 0 };
    bp_set(k, t_pc);
    TtResult r = tt_reverse_continue(&k->tt, &h);
    bp_clear(k);
    if (r != TT_REACHED || !same_pos(h, t)) {
        char want[96], got[96];
        pos_text(t, want, sizeof want);
        pos_text(h, got, sizeof got);
        fprintf(stderr, "pmusim: time-travel check: reverse-continue (result %d) stopped at %s, not at %s\n", (int)r,
                got, want);
        k->failures++;
        return;
    }
    k->continued++;
    same_state(k, at_t, "reverse-continue", t);
}

/* At P (state in k->a): forward one position to Q, then the moves of ttcheck.h.  False: the
 * run ended. */
static bool check_point(Check *k, TtPos p)
{
    TimeTravel *tt = &k->tt;
    TtPos q = { p.cpu, p.insns + 1, 0 }, t;
    if (tt_run_to(tt, q) != TT_REACHED)
        return false;
    q = tt_pos_now(k->m, p.cpu);
    checkpoint_save_blob(k->m, &k->b);
    TtResult r = tt_reverse_stepi(tt, p.cpu, &t);
    if (r != TT_REACHED || t.insns != p.insns) {
        bad_move(k, "reverse-stepi", r, q);
        return tt_goto(tt, q) == TT_REACHED;
    }
    k->stepped++;
    bool exact = same_pos(t, p);
    if (!exact)
        k->skipped++;               /* an exception entry between P and the instruction */
    else
        same_state(k, &k->a, "reverse-stepi", t);
    checkpoint_save_blob(k->m, &k->a);      /* T's state */
    Cpu *c = k->m->cl.cpus[p.cpu];
    uint64_t t_pc = c->ops->get_pc(c);
    if (tt_run_to(tt, q) != TT_REACHED)
        bad_move(k, "forward", r, t);
    else
        same_state(k, &k->b, "forward again", q);
    check_continue(k, t, t_pc, &k->a, q);
    return tt_goto(tt, q) == TT_REACHED;
}

/* The CPU after `cpu` that runs now (a sleeping one may never reach its next point), or the
 * next one. */
static int next_cpu(const Machine *m, int cpu)
{
    for (int i = 1; i <= m->cl.ncpus; i++) {
        int k = (cpu + i) % m->cl.ncpus;
        if (m->cl.cpus[k]->state == CPU_RUNNING)
            return k;
    }
    return (cpu + 1) % m->cl.ncpus;
}

int ttcheck_run(Machine *m, uint64_t stride)
{
    Check k = { .m = m };
    mach_begin(m);
    tt_init(&k.tt, m);
    for (int cpu = 0; !m->cl.stopping; cpu = next_cpu(m, cpu)) {
        TtPos p = { cpu, m->cl.cpus[cpu]->insns + stride, 0 };
        if (tt_run_to(&k.tt, p) != TT_REACHED)
            break;
        p = tt_pos_now(m, cpu);
        checkpoint_save_blob(m, &k.a);
        k.points++;
        if (!check_point(&k, p))
            break;
    }
    tt_run_to_where(&k.tt, &(TtWhere){ .end = true });
    fprintf(stderr, "time-travel check: %u points, %u reverse-stepi (%u past an exception entry), %u reverse-continue,"
            " %u differences; %" PRIu64 " snapshots taken, %" PRIu64 " restores, %d kept (%" PRIu64 " bytes)\n",
            k.points, k.stepped, k.skipped, k.continued, k.failures, k.tt.taken, k.tt.restored, k.tt.n, k.tt.bytes);
    tt_destroy(&k.tt);
    blob_free(&k.a);
    blob_free(&k.b);
    blob_free(&k.x);
    int status = mach_finish(m);
    return k.failures ? EXIT_INTERNAL : status;
}
