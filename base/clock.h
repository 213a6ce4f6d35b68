/* clock.h — simulated time: cycles, and event queues keyed by (when, sequence).
 *
 * Time model.  There is one time base, the CPU clock (`clock-frequency` of the cpu nodes);
 * simulated time is a count of its cycles.  The machine advances in rounds of a fixed quantum
 * Q (--quantum): in each round every CPU, in CPU order, runs until its own local cycle count
 * reaches the round's end, stopping at the first translated-block boundary at or after it
 * (temporal decoupling with a fixed quantum, as Spike and SystemC TLM do).  A CPU's local time
 * can therefore run ahead of the round end by less than one block; it is never behind.
 *
 * Events.  Every timed thing (a timer expiring, a counter overflowing, a watchdog) is an Event
 * in a queue ordered by (when, seq): `when` is a cycle (or, in a CPU's instruction queue, a
 * retired-instruction count) and `seq` a machine-wide sequence number taken at scheduling
 * time, so simultaneous events fire in the order they were scheduled.  A CPU's queues fire
 * exactly at the instruction boundary where its local count reaches `when`, even in the middle
 * of a translated block (cpu.c: "cuts").  The machine-wide queue fires at round boundaries.
 *
 * Events are owned by the component that schedules them (static storage inside the device or
 * CPU); checkpoints save (when, seq, queued) per event through the owner, and the Clock saves
 * its sequence counter.
 */
#ifndef PMUSIM_CLOCK_H
#define PMUSIM_CLOCK_H

#include "base/common.h"

typedef struct Event Event;
typedef struct EventQueue EventQueue;
typedef void (*EventFn)(Event *ev, void *opaque);

struct Event {
    uint64_t when;          /* cycle (or instruction count) at which it fires */
    uint64_t seq;           /* tie-breaker: order of scheduling */
    EventQueue *queue;      /* the queue it is in, NULL when idle */
    int pos;                /* index in the queue's heap */
    EventFn fn;
    void *opaque;
    const char *name;       /* for the trace and for error messages */
    bool deferrable;        /* cannot wake a sleeping CPU (a counter of running time): does not
                               keep a machine whose CPUs all sleep alive */
    bool lazy;              /* set by the owner: until the owner is next accessed nothing can see
                               it (it changes no interrupt line), so the CPU need not stop on its
                               instruction: it fires at the first block boundary at or after
                               `when`, or earlier when the owner catches up on an access (cpu.c,
                               "cuts"; sim/dev/pl011.c).  Its handler still sees `when`. */
};

struct EventQueue {
    Event **heap;           /* binary min-heap on (when, seq) */
    int n, cap;
};

void event_init(Event *ev, const char *name, EventFn fn, void *opaque);
static inline bool event_pending(const Event *ev) { return ev->queue != NULL; }

void evq_init(EventQueue *q);
void evq_destroy(EventQueue *q);
/* Empty q: each of its events becomes idle (an in-place restore, before the owners put back
 * the events they saved). */
void evq_clear(EventQueue *q);
/* Insert (or move) ev with the given key. */
void evq_insert(EventQueue *q, Event *ev, uint64_t when, uint64_t seq);
/* Remove ev from whichever queue holds it; no-op when idle. */
void evq_remove(Event *ev);
static inline Event *evq_peek(const EventQueue *q) { return q->n ? q->heap[0] : NULL; }
static inline uint64_t evq_next(const EventQueue *q) { return q->n ? q->heap[0]->when : UINT64_MAX; }
/* The earliest `when` of the queued events that are not lazy, and of those that are. */
uint64_t evq_next_exact(const EventQueue *q);
uint64_t evq_next_lazy(const EventQueue *q);
/* Is any queued event not deferrable? */
bool evq_has_wakers(const EventQueue *q);
/* Pop and run every event with when <= limit, in (when, seq) order; returns how many ran.
 * An event may reschedule itself or others from its callback. */
int evq_run_due(EventQueue *q, uint64_t limit);

typedef struct Clock {
    uint64_t now;           /* start of the current round (machine time) */
    uint64_t quantum;       /* round length in cycles */
    uint64_t seq;           /* next sequence number */
    uint64_t freq_hz;       /* CPU clock: cycles per simulated second */
    EventQueue global;      /* machine-wide events, fired at round boundaries */
} Clock;

void clk_init(Clock *c, uint64_t quantum, uint64_t freq_hz);
void clk_destroy(Clock *c);
static inline uint64_t clk_next_seq(Clock *c) { return c->seq++; }

/* (a * b) / c without overflow, rounding down: converting between clock domains. */
uint64_t muldiv64(uint64_t a, uint64_t b, uint64_t c);

#endif
