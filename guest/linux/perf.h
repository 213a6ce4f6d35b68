/* perf.h — the perf step: perf_event_open(2) counting and sampling a known user loop.
 *
 * The ABI (include/uapi/linux/perf_event.h; perf_event_open(2)):
 *   struct perf_event_attr, its first 64 bytes (PERF_ATTR_SIZE_VER0):
 *     0 type  4 size  8 config  16 sample_period  24 sample_type  32 read_format
 *     40 flags: bit 0 disabled, 5 exclude_kernel, 6 exclude_hv   48 wakeup_events  52 bp_type
 *     56 config1
 *   ioctls _IO('$', 0) ENABLE, _IO('$', 1) DISABLE; PERF_IOC_FLAG_GROUP applies them to the group
 *   read(2) of a counter without read_format: one u64
 *   the mmap'ed ring: a control page (struct perf_event_mmap_page: data_head at 1024, data_tail
 *     at 1032), then 2^n data pages of records { u32 type; u16 misc; u16 size; ... };
 *     PERF_RECORD_SAMPLE (9) with PERF_SAMPLE_IP carries the u64 ip; PERF_RECORD_LOST (2) {id, lost}
 */
#ifndef INIT_PERF_H
#define INIT_PERF_H

#include <stdint.h>

#define PERF_DEFAULT_ITERS 1000000      /* the loop's turns: 2 M instructions */
#define PERF_SAMPLE_PERIOD 100000       /* instructions between samples: about 20 samples */
#define PERF_MAX_IPS 4                  /* sample IPs printed */

typedef struct PerfCount {
    uint64_t expected, insns, cycles;
    const char *what;                   /* what failed */
    int no_pmu;                         /* the kernel has no PMU for hardware events (ENOENT) */
} PerfCount;

typedef struct PerfSamples {
    unsigned long samples, in_loop, lost;
    unsigned long ips[PERF_MAX_IPS];
    unsigned nips;
    const char *what;
} PerfSamples;

/* 0 or -errno (then c->what says what failed).  perf_event_open(2) of a hardware event fails
 * with ENOENT when no PMU driver claims PERF_TYPE_HARDWARE (kernel/events/core.c, perf_init_event:
 * no PMU takes the type): c->no_pmu says so. */
long perf_count(PerfCount *c, unsigned long iters);
long perf_sample(PerfSamples *s, unsigned long iters, unsigned period);

#endif
