/* perf_event.h — the part of Linux's perf kernel API the guests' PMU drivers share
 * (include/linux/perf_event.h and include/uapi/linux/perf_event.h, whose names these are):
 * the event's attributes, the overflow handler's signature, the event itself and the calls a
 * kernel user makes.  Each architecture's perf.h defines its struct hw_perf_event (the counter
 * as its PMU programs it) and then includes this file. */
#ifndef GUEST_PERF_EVENT_H
#define GUEST_PERF_EVENT_H

#include "guest.h"
#include "trap.h"

enum perf_type_id { PERF_TYPE_HARDWARE = 0, PERF_TYPE_RAW = 4 };

enum perf_hw_id {
    PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CACHE_REFERENCES,
    PERF_COUNT_HW_CACHE_MISSES, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, PERF_COUNT_HW_BRANCH_MISSES,
    PERF_COUNT_HW_BUS_CYCLES, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
    PERF_COUNT_HW_STALLED_CYCLES_BACKEND, PERF_COUNT_HW_REF_CPU_CYCLES, PERF_COUNT_HW_MAX,
};

struct perf_event_attr {
    u32 type;                   /* PERF_TYPE_HARDWARE (config: perf_hw_id) or _RAW (the PMU's own encoding) */
    u64 config;
    u64 sample_period;          /* events per overflow; 0: counting only */
    bool pinned;                /* always on its counter (the only kind here) */
    bool disabled;              /* created off: perf_event_enable() starts it */
    bool exclude_user, exclude_kernel;
};

struct perf_event;
struct perf_sample_data {
    u64 period;                 /* events since the previous sample */
};
typedef void (*perf_overflow_handler_t)(struct perf_event *event, struct perf_sample_data *data,
                                        struct trap_frame *regs);

struct perf_event {
    struct perf_event_attr attr;
    struct hw_perf_event hw;    /* the architecture's (its perf.h) */
    u64 count;                  /* events counted, as of the last update */
    unsigned cpu;
    bool active;
    perf_overflow_handler_t overflow_handler;
    void *overflow_handler_context;
};

/* Boot CPU: probes the PMU and prints what it found; 0, or -1 without a usable PMU. */
int init_hw_perf_events(void);
/* Creates an event on cpu, which must be the calling CPU; NULL if the PMU cannot count it.
 * Unless attr->disabled, it starts at once.  overflow_handler runs in NMI context. */
struct perf_event *perf_event_create_kernel_counter(const struct perf_event_attr *attr,
                                                    unsigned cpu,
                                                    perf_overflow_handler_t overflow_handler,
                                                    void *context);
/* On the event's CPU.  -1 if no counter can take it (Linux leaves such an event in error
 * state instead). */
int perf_event_enable(struct perf_event *event);
/* Frees an event that was never enabled. */
void perf_event_release_kernel(struct perf_event *event);

#endif
