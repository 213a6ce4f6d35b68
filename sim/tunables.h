/* tunables.h — every tunable constant of the simulator, with why it has its value. */
#ifndef PMUSIM_TUNABLES_H
#define PMUSIM_TUNABLES_H

/* Decoded-block cache per CPU: 2^13 direct-mapped entries.  Guest kernels here have a few
 * thousand blocks; a miss costs one Capstone decode (a few microseconds). */
#define BLOCKCACHE_LOG2 13

/* Per-instruction records per CPU before the block cache is flushed and refilled (4 bytes
 * each: 4 MiB). */
#define BLOCKCACHE_ARENA (1u << 20)

/* Default scheduling quantum in cycles.  Each quantum costs one engine entry per CPU (about a
 * microsecond); 100k cycles keeps that under 1% while CPUs stay within 100k cycles (50 us at
 * 2 GHz) of each other. */
#define DEFAULT_QUANTUM 100000ull

/* Where the DTB goes when its board address is taken: the next boundary of this size above
 * the image. */
#define DTB_ALIGN 0x10000ull
#define DTB_MAX_SIZE 0x10000ull

/* Exception entries to the same vector with no instruction retired in between before pmusim
 * declares the CPU stuck (a handler that faults on its first instruction). */
#define EXCEPTION_LOOP_LIMIT 64

#endif
