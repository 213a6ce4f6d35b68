/* perf.c — the perf step (perf.h). */
#include "lib.h"
#include "perf.h"

#define PERF_TYPE_HARDWARE 0
#define PERF_COUNT_HW_CPU_CYCLES 0
#define PERF_COUNT_HW_INSTRUCTIONS 1
#define PERF_ATTR_SIZE_VER0 64
#define ATTR_DISABLED (1ull << 0)
#define ATTR_EXCLUDE_KERNEL (1ull << 5)
#define ATTR_EXCLUDE_HV (1ull << 6)
#define PERF_SAMPLE_IP 1
#define PERF_EVENT_IOC_ENABLE 0x2400    /* _IO('$', 0) */
#define PERF_EVENT_IOC_DISABLE 0x2401   /* _IO('$', 1) */
#define PERF_IOC_FLAG_GROUP 1
#define PERF_RECORD_LOST 2
#define PERF_RECORD_SAMPLE 9
#define PERF_SELF 0                     /* pid 0: this process */
#define PERF_ANY_CPU (-1)
#define PERF_NO_GROUP (-1)
#define PAGE_SIZE 4096                  /* Debian's arm64 and amd64 kernels: 4 KiB pages */
#define RING_DATA_PAGES 8
#define RING_DATA_HEAD 1024             /* struct perf_event_mmap_page's data_head */

typedef struct PerfAttr {
    uint32_t type, size;
    uint64_t config, sample_period, sample_type, read_format, flags;
    uint32_t wakeup_events, bp_type;
    uint64_t config1;
} PerfAttr;

typedef struct RecordHeader {
    uint32_t type;
    uint16_t misc, size;
} RecordHeader;

/* arch/<arch>/start.S */
void measured_loop(long fd, unsigned long enable, unsigned long disable, unsigned long iters, unsigned long arg);
extern const char measured_loop_body[], measured_loop_end[];

static long open_counter(uint64_t config, uint64_t period, int group)
{
    PerfAttr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_HARDWARE;
    a.size = PERF_ATTR_SIZE_VER0;
    a.config = config;
    a.sample_period = period;
    a.sample_type = period ? PERF_SAMPLE_IP : 0;
    a.flags = ATTR_EXCLUDE_KERNEL | ATTR_EXCLUDE_HV | (group == PERF_NO_GROUP ? ATTR_DISABLED : 0);
    a.wakeup_events = period ? 1 : 0;
    return sys_perf_event_open(&a, PERF_SELF, PERF_ANY_CPU, group, 0);
}

static long read_u64(long fd, uint64_t *v)
{
    long n = sys_read((int)fd, v, sizeof *v);
    return n == sizeof *v ? 0 : n < 0 ? n : -EPIPE;
}

long perf_count(PerfCount *c, unsigned long iters)
{
    memset(c, 0, sizeof *c);
    c->expected = (uint64_t)iters * LOOP_INSNS_PER_ITER + LOOP_FIXED_INSNS;
    long lead = open_counter(PERF_COUNT_HW_INSTRUCTIONS, 0, PERF_NO_GROUP), r;
    if (lead < 0) {
        c->no_pmu = lead == -ENOENT;
        return c->what = "perf_event_open instructions", lead;
    }
    long cyc = open_counter(PERF_COUNT_HW_CPU_CYCLES, 0, (int)lead);
    if (cyc < 0) {
        sys_close((int)lead);
        return c->what = "perf_event_open cycles", cyc;
    }
    measured_loop(lead, PERF_EVENT_IOC_ENABLE, PERF_EVENT_IOC_DISABLE, iters, PERF_IOC_FLAG_GROUP);
    if ((r = read_u64(lead, &c->insns)) < 0 || (r = read_u64(cyc, &c->cycles)) < 0)
        c->what = "read";
    sys_close((int)cyc);
    sys_close((int)lead);
    return r;
}

/* The records between the ring's start and data_head (nothing was consumed: tail 0). */
static void walk_ring(PerfSamples *s, const uint8_t *ring)
{
    uint64_t head = *(volatile const uint64_t *)(ring + RING_DATA_HEAD);
    const uint8_t *data = ring + PAGE_SIZE;
    uint64_t size = RING_DATA_PAGES * PAGE_SIZE;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);    /* the records after data_head (perf_event.h) */
    for (uint64_t at = head > size ? head - size : 0; at < head;) {
        const RecordHeader *h = (const void *)(data + at % size);
        const uint64_t *body = (const void *)(h + 1);
        if (h->size < sizeof *h)
            break;
        if (h->type == PERF_RECORD_SAMPLE) {
            unsigned long ip = (unsigned long)body[0];
            s->samples++;
            s->in_loop += ip >= (unsigned long)measured_loop_body && ip < (unsigned long)measured_loop_end;
            if (s->nips < PERF_MAX_IPS)
                s->ips[s->nips++] = ip;
        } else if (h->type == PERF_RECORD_LOST) {
            s->lost += (unsigned long)body[1];
        }
        at += h->size;
    }
}

long perf_sample(PerfSamples *s, unsigned long iters, unsigned period)
{
    memset(s, 0, sizeof *s);
    long fd = open_counter(PERF_COUNT_HW_INSTRUCTIONS, period, PERF_NO_GROUP);
    if (fd < 0)
        return s->what = "perf_event_open sampling", fd;
    void *ring;
    size_t len = (1 + RING_DATA_PAGES) * PAGE_SIZE;
    long r = sys_mmap_shared((int)fd, len, &ring);
    if (r < 0) {
        sys_close((int)fd);
        return s->what = "mmap of the ring", r;
    }
    measured_loop(fd, PERF_EVENT_IOC_ENABLE, PERF_EVENT_IOC_DISABLE, iters, 0);
    walk_ring(s, ring);
    sys_munmap(ring, len);
    sys_close((int)fd);
    return 0;
}
