/* tunables.h — every tunable constant of the simulator, with why it has its value. */
#ifndef PMUSIM_TUNABLES_H
#define PMUSIM_TUNABLES_H

/* Decoded-block cache per CPU: 2^18 direct-mapped entries (10 MiB of address space, touched as
 * used).  pmusim's own kernels have a few thousand blocks; a boot of Debian's arm64 kernel runs
 * 58,000 distinct ones, and a miss costs a Capstone decode (a few microseconds): with 2^16
 * entries the table's conflicts made it decode 215,000 times, with 2^18 106,000. */
#define BLOCKCACHE_LOG2 18

/* Per-instruction records per CPU before the block cache is flushed and refilled (4 bytes
 * each: 4 MiB). */
#define BLOCKCACHE_ARENA (1u << 20)

/* Trap sites not executed in this many of their CPU's instructions lose their engine hook
 * (cpu.c, traps_sweep): every trapped instruction walks the engine's whole list of code hooks,
 * and every instruction translated checks it (docs/engine.md, "Trap sites").  A site hooked
 * again costs a translation or two.  Debian's arm64 kernel, boot to the root-mount panic on 2
 * CPUs, in CPU seconds: 2^19 10.1-10.8, 2^21 9.1-9.6, 2^24 13.6-14.7 (the whole scenario:
 * 2^21 26.8, 2^24 31.2). */
#define TRAP_SWEEP_INSNS (1ull << 21)

/* Default scheduling quantum in cycles.  Each quantum costs one engine entry per CPU (about a
 * microsecond); 100k cycles keeps that under 1% while CPUs stay within 100k cycles (50 us at
 * 2 GHz) of each other. */
#define DEFAULT_QUANTUM 100000ull

/* Where the DTB goes on x86_64 and ppc32 when its board address is taken: the next boundary
 * of this size above the image. */
#define DTB_ALIGN 0x10000ull
#define DTB_MAX_SIZE 0x10000ull

/* arm64: the DTB goes at the next 2 MiB boundary above the image and the initrd, as QEMU puts
 * it (hw/arm/boot.c: "Some AArch64 kernels on early bootup map the fdt region as [ALIGN_DOWN(fdt,
 * 2MB) ... + 2MB]"); Linux's own rule is 8 bytes, and a 2 MiB block of RAM without special
 * attributes (Documentation/arch/arm64/booting.rst). */
#define DTB_ALIGN_ARM64 0x200000ull

/* The initrd (and on arm64 the DTB above it) starts no lower than RAM base + min(RAM size / 2,
 * this): QEMU's rule for a Linux image (hw/arm/boot.c), which keeps room for a kernel that
 * grows above its image and keeps the initrd in the low memory of large machines.  The same
 * rule on every board, so that an image sees the addresses it sees under QEMU. */
#define INITRD_OFFSET_MAX (128ull << 20)

/* The largest --quantum: 2^32 cycles (about 2 s of simulated time at 2 GHz).  Secondary CPUs
 * start and machine-wide events fire at quantum boundaries, so a larger one only delays them;
 * bounded, `now + quantum` cannot overflow. */
#define MAX_QUANTUM (1ull << 32)

/* The largest --max-insns, --max-cycles and --save-at cycle: 2^62, far beyond any run, with
 * room for the limit arithmetic (a count plus a quantum or a block) never to overflow. */
#define MAX_RUN_LIMIT (1ull << 62)

/* The default --trace-limit: 1 GiB.  A guest in a loop that traces every iteration (an exception
 * whose handler returns to the faulting instruction) writes 50 to 100 MB of trace a second, and
 * nothing else need end it: without a limit, a run left alone fills the disk (58 GB in ten
 * minutes was measured).  The largest trace of the tests and demos is a few MB; a trace of a
 * gigabyte is already more than anyone reads or greps comfortably, so a run past it is almost
 * surely a runaway, and --trace-limit 0 lifts the limit for the rare one that is not. */
#define DEFAULT_TRACE_LIMIT (1ull << 30)

/* Exception entries in a row with no instruction retired between any two of them before pmusim
 * declares the CPU stuck (a handler that faults on its first instruction, or two handlers that
 * fault into each other). */
#define EXCEPTION_LOOP_LIMIT 64

/* --console-input is read whole before the run: at most 16 MiB, far more than any scripted
 * session types (at 115200 baud it takes 24 minutes of simulated time to arrive), and a bound
 * for an endless input (/dev/zero). */
#define CONSOLE_INPUT_MAX ((size_t)16 << 20)
#define CONSOLE_INPUT_MAX_TEXT "16 MiB"

/* Time travel (sim/timetravel.h): an automatic snapshot where machine time crosses a multiple
 * of TT_SNAPSHOT_INTERVAL cycles (10 default quanta; --time-travel-check's grid).  A debugger's
 * run (tt_pace) uses a coarser grid, one cycle per TT_SNAPSHOT_RAM_PER_CYCLE bytes of RAM at
 * least, since a snapshot's cost grows with the RAM it looks over (about 9 ms for arm64's 1 GiB,
 * 1 ms for 128 MiB): a 1 GiB board every 32 M cycles (docs/debugging.md, "Time travel"). */
#define TT_SNAPSHOT_INTERVAL 1000000ull
#define TT_SNAPSHOT_RAM_PER_CYCLE 32u
/* With a debugger (TimeTravel.paced), an automatic snapshot also waits until the run has taken
 * this many times the last snapshot's host time since it: snapshots cost at most about 1/20 of
 * a debugged run, and a step back re-executes about 20 snapshot times (0.2 s on a 1 GiB arm64
 * board). */
#define TT_SNAPSHOT_PACE 20u

/* Snapshots kept; when full, every other one of the older half goes, so that the history
 * reaches back to the start ever more sparsely while memory stays bounded. */
#define TT_MAX_SNAPSHOTS 64

/* The deepest call chain a sample records (--samples, tracer/callchain.c), and the most a
 * samples file may give one: the guests here nest a handful of calls, and a chain this deep is
 * already a corrupt or runaway stack (perf's default, kernel.perf_event_max_stack, is 127). */
#define CALLCHAIN_DEPTH 64

#endif
