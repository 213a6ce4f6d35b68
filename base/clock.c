/* clock.c — event queues (binary heaps keyed by (when, seq)) and the machine clock. */
#include "base/clock.h"

#include <stdlib.h>
#include <string.h>

void event_init(Event *ev, const char *name, EventFn fn, void *opaque)
{
    memset(ev, 0, sizeof *ev);
    ev->name = name;
    ev->fn = fn;
    ev->opaque = opaque;
    ev->pos = -1;
}

void evq_init(EventQueue *q)
{
    memset(q, 0, sizeof *q);
}

void evq_clear(EventQueue *q)
{
    for (int i = 0; i < q->n; i++) {
        q->heap[i]->queue = NULL;
        q->heap[i]->pos = -1;
    }
    q->n = 0;
}

void evq_destroy(EventQueue *q)
{
    evq_clear(q);
    free(q->heap);
    memset(q, 0, sizeof *q);
}

static bool before(const Event *a, const Event *b)
{
    return a->when < b->when || (a->when == b->when && a->seq < b->seq);
}

static void place(EventQueue *q, int i, Event *ev)
{
    q->heap[i] = ev;
    ev->pos = i;
}

static void sift_up(EventQueue *q, int i)
{
    Event *ev = q->heap[i];
    while (i > 0) {
        int parent = (i - 1) / 2;
        if (!before(ev, q->heap[parent]))
            break;
        place(q, i, q->heap[parent]);
        i = parent;
    }
    place(q, i, ev);
}

static void sift_down(EventQueue *q, int i)
{
    Event *ev = q->heap[i];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && before(q->heap[c + 1], q->heap[c]))
            c++;
        if (!before(q->heap[c], ev))
            break;
        place(q, i, q->heap[c]);
        i = c;
    }
    place(q, i, ev);
}

void evq_remove(Event *ev)
{
    EventQueue *q = ev->queue;
    if (!q)
        return;
    int i = ev->pos;
    Event *last = q->heap[--q->n];
    ev->queue = NULL;
    ev->pos = -1;
    if (i == q->n)
        return;
    place(q, i, last);
    sift_down(q, i);
    sift_up(q, last->pos);
}

void evq_insert(EventQueue *q, Event *ev, uint64_t when, uint64_t seq)
{
    evq_remove(ev);
    if (q->n == q->cap) {
        q->cap = q->cap ? q->cap * 2 : 16;
        q->heap = xrealloc(q->heap, (size_t)q->cap * sizeof *q->heap);
    }
    ev->when = when;
    ev->seq = seq;
    ev->queue = q;
    place(q, q->n++, ev);
    sift_up(q, ev->pos);
}

/* The heap's head answers unless it is of the other kind; then a scan (a CPU's queue holds a
 * few timers and devices). */
static uint64_t next_of_kind(const EventQueue *q, bool lazy)
{
    if (!q->n || q->heap[0]->lazy == lazy)
        return q->n ? q->heap[0]->when : UINT64_MAX;
    uint64_t t = UINT64_MAX;
    for (int i = 1; i < q->n; i++)
        if (q->heap[i]->lazy == lazy && q->heap[i]->when < t)
            t = q->heap[i]->when;
    return t;
}

uint64_t evq_next_exact(const EventQueue *q)
{
    return next_of_kind(q, false);
}

uint64_t evq_next_lazy(const EventQueue *q)
{
    return next_of_kind(q, true);
}

bool evq_has_wakers(const EventQueue *q)
{
    for (int i = 0; i < q->n; i++)
        if (!q->heap[i]->deferrable)
            return true;
    return false;
}

int evq_run_due(EventQueue *q, uint64_t limit)
{
    int ran = 0;
    Event *ev;
    while ((ev = evq_peek(q)) && ev->when <= limit) {
        evq_remove(ev);
        ev->fn(ev, ev->opaque);
        ran++;
    }
    return ran;
}

void clk_init(Clock *c, uint64_t quantum, uint64_t freq_hz)
{
    memset(c, 0, sizeof *c);
    c->quantum = quantum;
    c->freq_hz = freq_hz;
    evq_init(&c->global);
}

void clk_destroy(Clock *c)
{
    evq_destroy(&c->global);
}

uint64_t muldiv64(uint64_t a, uint64_t b, uint64_t c)
{
    return (uint64_t)((unsigned __int128)a * b / c);
}
