/* uart_rx.c — console input arriving at a UART's receiver (see uart_rx.h). */
#include "sim/dev/uart_rx.h"

static uint64_t uartrx_end(const UartRx *rx)
{
    return rx->in ? rx->in->first + rx->in->len : 0;
}

uint64_t uartrx_left(const UartRx *rx)
{
    return uartrx_end(rx) - rx->pos;
}

static bool uartrx_replaying(const UartRx *rx)
{
    return rx->in && rx->in->at;
}

/* The receiver takes the next byte (its stop bit ended at `when` on rx->cpu's clock). */
static void uartrx_deliver(UartRx *rx, uint64_t when)
{
    const DeviceHost *h = rx->host;
    uint64_t pos = rx->pos++;
    uint8_t c = rx->in->data[pos - rx->in->first];
    rx->ops->put(rx->dev, c, when);
    if (h->console_taken)
        h->console_taken(h->opaque, pos, c, rx->cpu, when);
}

/* --replay: the next logged byte is put on its CPU's queue at its cycle; one that cycle has
 * passed on that CPU could not arrive where it was logged. */
static void uartrx_replay_next(UartRx *rx)
{
    const DeviceHost *h = rx->host;
    if (!uartrx_left(rx) || event_pending(&rx->arrive))
        return;
    uint64_t i = rx->pos - rx->in->first, when = rx->in->at[i];
    int cpu = rx->in->cpu[i];
    if (when < h->cpu_cycles(h->opaque, cpu)) {
        h->console_refused(h->opaque, rx->pos, "its CPU's clock is past that cycle");
        return;
    }
    rx->cpu = cpu;                  /* the CPU whose queue holds the arrival (uartrx_save) */
    h->cpu_schedule_last(h->opaque, cpu, &rx->arrive, when);
}

static void uartrx_arrive(Event *ev, void *opaque)
{
    UartRx *rx = opaque;
    if (uartrx_replaying(rx)) {
        if (!rx->ops->ready(rx->dev)) {
            rx->host->console_refused(rx->host->opaque, rx->pos, "the receiver cannot take it (disabled, full or RTS off)");
            return;
        }
        uartrx_deliver(rx, ev->when);
        uartrx_replay_next(rx);
        return;
    }
    if (!uartrx_left(rx) || !rx->ops->ready(rx->dev))
        return;                     /* the way closed meanwhile: the byte waits for the next kick */
    uartrx_deliver(rx, ev->when);
    uartrx_kick(rx, rx->cpu, ev->when);
}

void uartrx_init(UartRx *rx, const DeviceHost *host, const DevDesc *dd, const UartRxOps *ops, void *dev)
{
    *rx = (UartRx){ .host = host, .ops = ops, .dev = dev };
    rx->in = host->console_input ? host->console_input(host->opaque, dd) : NULL;
    if (rx->in)
        rx->in->rx = rx;
    event_init(&rx->arrive, "uart-rx", uartrx_arrive, rx);
}

/* A replay's schedule is the log's, never the receiver's. */
static bool uartrx_can_send(const UartRx *rx)
{
    return uartrx_left(rx) && !uartrx_replaying(rx) && !event_pending(&rx->arrive) && rx->ops->ready(rx->dev);
}

/* The arrival does not draw a sequence number: when it is scheduled depends on the host for a
 * live input, and must change nothing else in the run (a replay schedules it elsewhere). */
void uartrx_kick(UartRx *rx, int cpu, uint64_t now)
{
    if (!uartrx_can_send(rx))
        return;
    rx->cpu = cpu;
    rx->host->cpu_schedule_last(rx->host->opaque, cpu, &rx->arrive, now + rx->ops->char_cycles(rx->dev));
}

void uartrx_more(UartRx *rx)
{
    const DeviceHost *h = rx->host;
    if (uartrx_replaying(rx))
        uartrx_replay_next(rx);
    else
        uartrx_kick(rx, rx->cpu, h->cpu_cycles(h->opaque, rx->cpu));
}

/* Where the instruction is (a search of its block) is asked only when a byte is to leave. */
void uartrx_access(UartRx *rx, Cpu *cpu)
{
    const DeviceHost *h = rx->host;
    if (uartrx_can_send(rx))
        uartrx_kick(rx, h->cpu_index(h->opaque, cpu), h->now(h->opaque, cpu));
}

void uartrx_save(const UartRx *rx, Blob *b)
{
    blob_u64(b, rx->pos);
    blob_u32(b, (uint32_t)rx->cpu);
    blob_event(b, &rx->arrive);
}

/* The input at restore must reach as far as the checkpoint had read it (the same file, to
 * continue the same run; a longer one may go on differently after the checkpoint).  A live
 * input starts where the checkpoint was; a replay's next arrival is the log's (uartrx_more). */
static bool uartrx_check_pos(UartRx *rx, uint64_t pos, BlobReader *r)
{
    ConsoleInput *in = rx->in;
    if (in && in->live && !in->len) {
        in->first = pos;
        return true;
    }
    if (pos > uartrx_end(rx))
        return br_fail(r, "console input position: the checkpoint had read more console input than this run has");
    if (in && pos < in->first)
        return br_fail(r, "console input position: before the first byte of the --replay log");
    return true;
}

bool uartrx_load(UartRx *rx, BlobReader *r)
{
    const DeviceHost *h = rx->host;
    uint64_t pos = br_u64(r);
    uint32_t cpu = br_u32(r);
    if (!r->ok || !uartrx_check_pos(rx, pos, r))
        return false;
    if (cpu >= (uint32_t)h->ncpus)
        return br_fail(r, "console input CPU: no such CPU");
    rx->pos = pos;
    rx->cpu = (int)cpu;
    br_event(r, &rx->arrive, h->cpu_events(h->opaque, rx->cpu));
    if (uartrx_replaying(rx))
        evq_remove(&rx->arrive);
    return r->ok;
}
