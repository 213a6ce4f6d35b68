/* uart_rx.c — console input arriving at a UART's receiver (see uart_rx.h). */
#include "sim/dev/uart_rx.h"

static void uartrx_arrive(Event *ev, void *opaque)
{
    UartRx *rx = opaque;
    if (!uartrx_left(rx) || !rx->ops->ready(rx->dev))
        return;                     /* the way closed meanwhile: the byte waits for the next kick */
    uint8_t c = rx->in->data[rx->pos++];
    rx->ops->put(rx->dev, c, ev->when);
    uartrx_kick(rx, rx->cpu, ev->when);
}

void uartrx_init(UartRx *rx, const DeviceHost *host, const DevDesc *dd, const UartRxOps *ops, void *dev)
{
    *rx = (UartRx){ .host = host, .ops = ops, .dev = dev };
    rx->in = host->console_input ? host->console_input(host->opaque, dd) : NULL;
    event_init(&rx->arrive, "uart-rx", uartrx_arrive, rx);
}

uint64_t uartrx_left(const UartRx *rx)
{
    return rx->in ? rx->in->len - rx->pos : 0;
}

static bool uartrx_can_send(const UartRx *rx)
{
    return uartrx_left(rx) && !event_pending(&rx->arrive) && rx->ops->ready(rx->dev);
}

void uartrx_kick(UartRx *rx, int cpu, uint64_t now)
{
    if (!uartrx_can_send(rx))
        return;
    rx->cpu = cpu;
    rx->host->cpu_schedule(rx->host->opaque, cpu, &rx->arrive, now + rx->ops->char_cycles(rx->dev));
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
 * continue the same run; a longer one may go on differently after the checkpoint). */
bool uartrx_load(UartRx *rx, BlobReader *r)
{
    const DeviceHost *h = rx->host;
    uint64_t pos = br_u64(r);
    uint32_t cpu = br_u32(r);
    if (!r->ok)
        return false;
    if (pos > (rx->in ? rx->in->len : 0))
        return br_fail(r, "console input position: the checkpoint had read more --console-input than this run has");
    if (cpu >= (uint32_t)h->ncpus)
        return br_fail(r, "console input CPU: no such CPU");
    rx->pos = pos;
    rx->cpu = (int)cpu;
    br_event(r, &rx->arrive, h->cpu_events(h->opaque, rx->cpu));
    return r->ok;
}
