/* timetravel.c — snapshots, in-place restore and exact re-execution (see timetravel.h).
 *
 * Map: positions and points (tt_pos_now, tt_where_now, tt_where_cmp); snapshots (capture,
 * keep in run order, thin, the round hook); restore in place; moving forward (tt_run_to,
 * tt_run_to_where) and anywhere (tt_goto); reverse-stepi; reverse-continue.
 */
#include "sim/timetravel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/tunables.h"
#include "sim/checkpoint.h"

/* ------------------------------------------------------------------ positions and points */

TtPos tt_pos_now(const Machine *m, int cpu)
{
    const Cpu *c = m->cl.cpus[cpu];
    return (TtPos){ .cpu = cpu, .insns = c->insns, .entries = c->exc.serialized };
}

TtWhere tt_where_now(const Machine *m)
{
    TtWhere w = { .end = m->cl.stopping, .now = m->clock.now, .open = m->round.open };
    if (w.open)
        w.pos = tt_pos_now(m, m->round.next);
    return w;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

/* Run order: the end last; then machine time; a round's boundary before the round's pauses;
 * inside a round, CPU order, then the paused CPU's counts. */
int tt_where_cmp(const TtWhere *a, const TtWhere *b)
{
    if (a->end || b->end)
        return a->end - b->end;
    int d = cmp_u64(a->now, b->now);
    if (d || (d = a->open - b->open) || !a->open)
        return d;
    if ((d = a->pos.cpu - b->pos.cpu))
        return d;
    return (d = cmp_u64(a->pos.insns, b->pos.insns)) ? d : cmp_u64(a->pos.entries, b->pos.entries);
}

/* Is snapshot s at or before position p?  Its CPU's counts are at most p's (timetravel.h: a CPU
 * whose counts equal a position's at a snapshot has not passed it, or is paused there). */
static bool snap_before(const TtSnap *s, TtPos p)
{
    const uint64_t *k = s->counts[p.cpu];
    return k[0] < p.insns || (k[0] == p.insns && k[1] <= p.entries);
}

/* ------------------------------------------------------------------ snapshots */

/* ---- RAM pages apart from the rest of the bytes, shared between neighbours */

/* The checkpoint's framing (sim/checkpoint.h): the header's length, a section's header around
 * its name (u32 name length; u32 version, u64 payload length), a RAM block's (u64 base, size). */
#define CK_HEADER_LEN 36u
#define CK_SECTION_TAIL 12u
#define CK_BLOCK_HEADER 16u

/* Where the memory section's payload is in a snapshot's bytes (0: not found, a bug). */
static size_t memory_payload(const Blob *b, uint64_t *len)
{
    size_t off = CK_HEADER_LEN;
    while (off + 4 <= b->len) {
        uint32_t n = (uint32_t)load_le(b->data + off, 4);
        size_t body = off + 4 + n + CK_SECTION_TAIL;
        if (body > b->len)
            break;
        *len = load_le(b->data + body - 8, 8);
        if (n == 6 && !memcmp(b->data + off + 4, "memory", 6))
            return body;
        off = body + *len;
    }
    return 0;
}

static void page_put(TimeTravel *tt, TtPage *p)
{
    if (--p->refs)
        return;
    tt->bytes -= sizeof *p;
    free(p);
}

/* The page of snapshot s at index i, or NULL. */
static TtPage *page_find(const TtSnap *s, uint64_t i)
{
    uint64_t lo = 0, hi = s->npages;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (s->pages[mid].index < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->npages && s->pages[lo].index == i ? s->pages[lo].page : NULL;
}

/* Page i's bytes, the neighbour's page if it holds the same, else a new one. */
static TtPage *page_get(TimeTravel *tt, const TtSnap *near, uint64_t i, const uint8_t *bytes)
{
    TtPage *p = near ? page_find(near, i) : NULL;
    if (p && !memcmp(p->bytes, bytes, GUEST_PAGE)) {
        p->refs++;
        return p;
    }
    p = xcalloc(1, sizeof *p);
    p->refs = 1;
    memcpy(p->bytes, bytes, GUEST_PAGE);
    tt->bytes += sizeof *p;
    return p;
}

/* The memory payload's pages (u32 blocks; per block base, size, then per page a flag and the
 * non-zero pages) into s->pages. */
static void split_pages(TimeTravel *tt, TtSnap *s, const TtSnap *near, const uint8_t *p)
{
    uint32_t nb = (uint32_t)load_le(p, 4);
    size_t off = 4;
    uint64_t index = 0, cap = 0;
    for (uint32_t b = 0; b < nb; b++) {
        uint64_t pages = load_le(p + off + 8, 8) / GUEST_PAGE;
        off += CK_BLOCK_HEADER;
        for (uint64_t k = 0; k < pages; k++, index++) {
            if (!p[off++])
                continue;
            if (s->npages == cap) {
                cap = cap ? 2 * cap : 64;
                s->pages = xrealloc(s->pages, cap * sizeof *s->pages);
            }
            s->pages[s->npages++] = (TtPageRef){ index, page_get(tt, near, index, p + off) };
            off += GUEST_PAGE;
        }
    }
}

/* Snapshot s from the bytes in tt->scratch (its neighbour in run order: near). */
static void snap_split(TimeTravel *tt, TtSnap *s, const TtSnap *near)
{
    const Blob *b = &tt->scratch;
    uint64_t len = 0;
    size_t at = memory_payload(b, &len);
    blob_put(&s->head, b->data, at);
    blob_put(&s->tail, b->data + at + len, b->len - at - len);
    split_pages(tt, s, near, b->data + at);
    tt->bytes += s->head.len + s->tail.len + s->npages * sizeof *s->pages;
}

/* Snapshot s's bytes whole again into tt->scratch. */
static void snap_join(TimeTravel *tt, const TtSnap *s)
{
    Blob *b = &tt->scratch;
    const GuestMem *mem = &tt->m->mem;
    b->len = 0;
    blob_put(b, s->head.data, s->head.len);
    blob_u32(b, (uint32_t)mem->n);
    uint64_t index = 0, next = 0;
    for (int i = 0; i < mem->n; i++) {
        blob_u64(b, mem->blk[i].base);
        blob_u64(b, mem->blk[i].size);
        for (uint64_t k = 0; k < mem->blk[i].size / GUEST_PAGE; k++, index++) {
            bool nz = next < s->npages && s->pages[next].index == index;
            blob_u8(b, nz);
            if (nz)
                blob_put(b, s->pages[next++].page->bytes, GUEST_PAGE);
        }
    }
    blob_put(b, s->tail.data, s->tail.len);
}

static void snap_free(TimeTravel *tt, TtSnap *s)
{
    tt->bytes -= s->head.len + s->tail.len + s->npages * sizeof *s->pages;
    for (uint64_t i = 0; i < s->npages; i++)
        page_put(tt, s->pages[i].page);
    free(s->pages);
    blob_free(&s->head);
    blob_free(&s->tail);
    *s = (TtSnap){ 0 };
}

/* ---- taking them */

static void snap_capture(TimeTravel *tt, TtSnap *s, const TtSnap *near)
{
    Machine *m = tt->m;
    s->where = tt_where_now(m);
    for (int i = 0; i < m->cl.ncpus; i++) {
        s->counts[i][0] = m->cl.cpus[i]->insns;
        s->counts[i][1] = m->cl.cpus[i]->exc.serialized;
    }
    s->trace_count = m->trace.count;
    s->round = m->round;
    s->keep_stop = s->where.open && m->cl.cpus[s->where.pos.cpu]->pause.keep_stop;
    s->exit_status = m->exit_status;
    s->exit_cpu = m->exit_cpu;
    s->exit_reason = m->exit_reason;
    checkpoint_save_blob(m, &tt->scratch);
    snap_split(tt, s, near);
    tt->taken++;
}

/* Drop every other snapshot of the older half; the first (the start of history) stays. */
static void thin(TimeTravel *tt)
{
    int half = tt->n / 2, out = 1;
    for (int i = 1; i < tt->n; i++) {
        if (i < half && i % 2) {
            snap_free(tt, &tt->snaps[i]);
            continue;
        }
        tt->snaps[out++] = tt->snaps[i];
    }
    tt->n = out;
}

/* Where the snapshot of point w goes in run order; *held: one is there already. */
static int snap_slot(const TimeTravel *tt, const TtWhere *w, bool *held)
{
    int i = tt->n;
    while (i > 0 && tt_where_cmp(&tt->snaps[i - 1].where, w) > 0)
        i--;
    *held = i > 0 && !tt_where_cmp(&tt->snaps[i - 1].where, w);
    return i;
}

void tt_snapshot(TimeTravel *tt)
{
    TtWhere w = tt_where_now(tt->m);
    bool held;
    int i = snap_slot(tt, &w, &held);
    if (held)
        return;
    if (tt->n == tt->max) {
        thin(tt);
        i = snap_slot(tt, &w, &held);
    }
    memmove(&tt->snaps[i + 1], &tt->snaps[i], (size_t)(tt->n - i) * sizeof *tt->snaps);
    tt->n++;
    tt->snaps[i] = (TtSnap){ 0 };
    snap_capture(tt, &tt->snaps[i], i > 0 ? &tt->snaps[i - 1] : i + 1 < tt->n ? &tt->snaps[i + 1] : NULL);
}

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* The automatic snapshots' interval for this machine's RAM (base/tunables.h). */
static uint64_t snapshot_interval(const Machine *m)
{
    uint64_t ram = 0;
    for (int i = 0; i < m->mem.n; i++)
        if (!m->mem.blk[i].rom)
            ram += m->mem.blk[i].size;
    return max64(TT_SNAPSHOT_INTERVAL, ram / TT_SNAPSHOT_RAM_PER_CYCLE);
}

/* Host time, only to pace a debugger's snapshots (nothing of the run depends on it). */
static uint64_t host_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The machine's round hook: a snapshot where machine time crosses a multiple of the interval
 * (a grid, so a re-execution meets the same points). */
static void round_end(void *opaque, Machine *m)
{
    TimeTravel *tt = opaque;
    uint64_t now = m->clock.now, q = m->clock.quantum;
    if (now / tt->interval == (now - (now < q ? now : q)) / tt->interval)
        return;
    if (!tt->paced) {
        tt_snapshot(tt);
        return;
    }
    uint64_t t0 = host_ns();
    if (t0 - tt->paced_at_ns < TT_SNAPSHOT_PACE * tt->paced_cost_ns)
        return;
    tt_snapshot(tt);
    tt->paced_at_ns = host_ns();
    tt->paced_cost_ns = tt->paced_at_ns - t0;
}

void tt_pace(TimeTravel *tt)
{
    tt->paced = true;
    tt->interval = snapshot_interval(tt->m);
}

/* The reverse-stepi watch: the stops of one CPU at one count (Cluster.boundary). */
static void boundary(void *opaque, Cpu *c)
{
    TimeTravel *tt = opaque;
    if (c->index == tt->watch_cpu && c->insns == tt->watch_insns) {
        tt->watch_entries = c->exc.serialized;
    }
}

void tt_init(TimeTravel *tt, Machine *m)
{
    *tt = (TimeTravel){ .m = m, .interval = TT_SNAPSHOT_INTERVAL, .max = TT_MAX_SNAPSHOTS, .watch_cpu = -1 };
    tt->snaps = xcalloc((size_t)tt->max, sizeof *tt->snaps);
    m->hooks = (MachineHooks){ .opaque = tt, .round_end = round_end };
    m->cl.boundary = boundary;
    m->cl.boundary_opaque = tt;
    for (int i = 0; i < m->cl.ncpus; i++) {
        Cpu *c = m->cl.cpus[i];
        if (c->insns == 0 && uc_context_alloc(c->uc, &tt->fresh[i]) == UC_ERR_OK &&
            uc_context_save(c->uc, tt->fresh[i]) != UC_ERR_OK) {
            uc_context_free(tt->fresh[i]);
            tt->fresh[i] = NULL;
        }
    }
    uint64_t t0 = host_ns();
    tt_snapshot(tt);
    tt->paced_at_ns = host_ns();    /* the start of history's cost paces the first (tt_pace) */
    tt->paced_cost_ns = tt->paced_at_ns - t0;
}

void tt_destroy(TimeTravel *tt)
{
    for (int i = 0; i < tt->n; i++)
        snap_free(tt, &tt->snaps[i]);
    free(tt->snaps);
    blob_free(&tt->scratch);
    for (int i = 0; i < MAX_CPUS; i++)
        if (tt->fresh[i])
            uc_context_free(tt->fresh[i]);
    tt->m->hooks = (MachineHooks){ 0 };
    tt->m->cl.boundary = NULL;
    *tt = (TimeTravel){ 0 };
}

/* ------------------------------------------------------------------ restore in place */


/* What the checkpoint loads assume of a freshly created machine (checkpoint.h): no event
 * queued, no code range, no end of the run, nothing derived from the old state. */
static void make_fresh(TimeTravel *tt, const TtSnap *s)
{
    Machine *m = tt->m;
    for (int i = 0; i < m->cl.ncpus; i++) {
        Cpu *c = m->cl.cpus[i];
        if (s->counts[i][0] == 0 && tt->fresh[i])
            uc_context_restore(c->uc, tt->fresh[i]);
        evq_clear(&c->events);
        evq_clear(&c->insn_events);
        vcpu_forget_all(c);
    }
    evq_clear(&m->clock.global);
    codewatch_clear_ranges(&m->cl.cw);
    m->cl.stopping = false;
    m->exit_status = 0;
    m->exit_reason = NULL;
    m->exit_cpu = -1;
    m->pause_round = UINT64_MAX;
}

bool tt_restore(TimeTravel *tt, const TtSnap *s)
{
    Machine *m = tt->m;
    /* the furthest point reached: what is below it has been written */
    m->console.mute_below = max64(m->console.mute_below, m->console.bytes);
    m->trace.mute_below = max64(m->trace.mute_below, m->trace.count);
    m->mute_now = max64(m->mute_now, m->clock.now);
    make_fresh(tt, s);
    Error err = { { 0 } };
    snap_join(tt, s);
    if (!checkpoint_load_blob(m, &tt->scratch, "snapshot", &err)) {
        fprintf(stderr, "pmusim: time travel: %s\n", err.msg);
        return false;
    }
    for (int i = 0; i < m->cl.ncpus; i++)
        vcpu_sync_decode_mode(m->cl.cpus[i]);
    m->trace.count = s->trace_count;
    m->cl.stopping = s->where.end;
    m->exit_status = s->exit_status;
    m->exit_cpu = s->exit_cpu;
    m->exit_reason = s->exit_reason;
    m->round = s->round;
    if (s->where.open) {
        m->cl.cpus[s->where.pos.cpu]->pause.paused = true;
        m->cl.cpus[s->where.pos.cpu]->pause.keep_stop = s->keep_stop;
    }
    tt->restored++;
    return true;
}

/* ------------------------------------------------------------------ moving forward */

/* Is CPU c paused at p (at its count, with at least its entries)? */
static bool paused_at(const Machine *m, TtPos p)
{
    const Cpu *c = m->cl.cpus[p.cpu];
    return m->round.open && m->round.next == p.cpu && c->pause.paused && c->insns == p.insns &&
           c->exc.serialized >= p.entries;
}

/* Run until CPU c pauses or the run ends (another stop, a round boundary asked for by someone
 * else, goes on). */
static bool advance_until_paused(Machine *m, const Cpu *c)
{
    while (mach_advance(m) == MACH_PAUSED)
        if (c->pause.paused)
            return true;
    return false;
}

TtResult tt_run_to(TimeTravel *tt, TtPos p)
{
    Machine *m = tt->m;
    Cpu *c = m->cl.cpus[p.cpu];
    if (paused_at(m, p))
        return TT_REACHED;
    if (m->cl.stopping)
        return TT_ENDED;
    if (c->insns > p.insns)
        return TT_PASSED;
    vcpu_pause_at(c, p.insns, p.entries);
    if (!advance_until_paused(m, c)) {
        vcpu_pause_cancel(c);
        return TT_ENDED;
    }
    return c->insns == p.insns ? TT_REACHED : TT_PASSED;
}

TtResult tt_run_to_where(TimeTravel *tt, const TtWhere *w)
{
    Machine *m = tt->m;
    if (w->open)
        return tt_run_to(tt, w->pos);
    if (w->end) {
        while (mach_advance(m) == MACH_PAUSED)
            ;
        return TT_REACHED;
    }
    TtWhere now = tt_where_now(m);
    if (!now.open && now.now == w->now)
        return TT_REACHED;
    m->pause_round = w->now;
    while (mach_advance(m) == MACH_PAUSED)
        if (!m->round.open && m->clock.now >= w->now)
            return m->clock.now == w->now ? TT_REACHED : TT_PASSED;
    m->pause_round = UINT64_MAX;
    return TT_ENDED;
}

/* The last snapshot at or before position p (the first one at worst). */
static const TtSnap *snap_for(const TimeTravel *tt, TtPos p)
{
    int i = tt->n - 1;
    while (i > 0 && !snap_before(&tt->snaps[i], p))
        i--;
    return &tt->snaps[i];
}

TtResult tt_goto(TimeTravel *tt, TtPos p)
{
    if (!tt_restore(tt, snap_for(tt, p)))
        return TT_ERROR;
    return tt_run_to(tt, p);
}

/* ------------------------------------------------------------------ reverse-stepi */

/* Where CPU cpu last stopped at count n (its entries then): from a snapshot before it, forward
 * to its first stop at n, then on to its first stop at n + 1 with the boundary watch on (the
 * exact stops in between, the pause's cuts make: an exception entry inside the instruction's
 * run ends the cut at the handler). */
static TtResult last_stop_at(TimeTravel *tt, int cpu, uint64_t n, TtPos *at)
{
    TtResult r = tt_goto(tt, (TtPos){ cpu, n, 0 });
    if (r != TT_REACHED)
        return r;
    Cpu *c = tt->m->cl.cpus[cpu];
    tt->watch_cpu = cpu;
    tt->watch_insns = n;
    tt->watch_entries = c->exc.serialized;
    r = tt_run_to(tt, (TtPos){ cpu, n + 1, 0 });
    tt->watch_cpu = -1;
    *at = (TtPos){ cpu, n, tt->watch_entries };
    return r == TT_PASSED ? TT_PASSED : TT_REACHED;
}

TtResult tt_reverse_stepi(TimeTravel *tt, int cpu, TtPos *to)
{
    TtPos now = tt_pos_now(tt->m, cpu), at;
    if (now.insns == 0) {
        if (!tt_restore(tt, &tt->snaps[0]))
            return TT_ERROR;
        return TT_NO_HISTORY;
    }
    TtResult r = last_stop_at(tt, cpu, now.insns - 1, &at);
    if (r != TT_REACHED)
        return r;
    r = tt_goto(tt, at);
    if (to)
        *to = at;
    return r;
}

/* ------------------------------------------------------------------ reverse-continue */

void tt_hit(TimeTravel *tt, Cpu *c, uint64_t pc)
{
    tt_hit_at(tt, (TtPos){ c->index, vcpu_insns_at(c, pc), c->exc.serialized });
}

void tt_hit_at(TimeTravel *tt, TtPos h)
{
    const TtWhere *w = &tt->scan_end;
    /* the instruction at the scan's end point runs after it (a cut may show it to the hooks
     * before it stops there) */
    if (w->open && w->pos.cpu == h.cpu &&
        (h.insns > w->pos.insns || (h.insns == w->pos.insns && h.entries >= w->pos.entries)))
        return;
    tt->hit = h;
    tt->have_hit = true;
}

/* Re-execute from snapshot s to point w with the caller's breakpoints reporting. */
static TtResult scan(TimeTravel *tt, const TtSnap *s, const TtWhere *w)
{
    if (!tt_restore(tt, s))
        return TT_ERROR;
    tt->have_hit = false;
    tt->scan_end = *w;
    tt->scanning = true;
    TtResult r = tt_run_to_where(tt, w);
    tt->scanning = false;
    return r;
}

TtResult tt_reverse_continue(TimeTravel *tt, TtPos *hit)
{
    TtWhere end = tt_where_now(tt->m);
    int i = tt->n - 1;
    while (i >= 0 && tt_where_cmp(&tt->snaps[i].where, &end) >= 0)
        i--;
    for (; i >= 0; i--) {
        TtResult r = scan(tt, &tt->snaps[i], &end);
        if (r == TT_ERROR)
            return r;
        if (tt->have_hit) {
            TtPos h = tt->hit;
            if (hit)
                *hit = h;
            if (!tt_restore(tt, &tt->snaps[i]))
                return TT_ERROR;
            return tt_run_to(tt, h);
        }
        end = tt->snaps[i].where;
    }
    if (!tt_restore(tt, &tt->snaps[0]))
        return TT_ERROR;
    return TT_NO_HISTORY;
}
