/* fuzz.h — what the fuzzing harnesses (tests/fuzz/fuzz_*.c) share: private scratch files for the
 * APIs that take a path, the small guest images and machines the harnesses load their inputs
 * into, and the option header some input formats start with.  docs/testing.md describes
 * the harnesses, their input formats and how to run them.
 *
 * Every helper is deterministic (no time, no randomness): the same input gives the same run in
 * the libFuzzer binary and in the plain replay driver (replay.c).  Nothing is written to the file
 * system: scratch files are memfds.
 */
#ifndef PMUSIM_FUZZ_H
#define PMUSIM_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "sim/machine.h"

/* The libFuzzer entry points (replay.c calls them the same way). */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A finding that is not a crash by itself (a refusal without a message, a broken invariant):
 * print it and abort, so libFuzzer and the replay driver report it like one. */
_Noreturn void fz_fail(const char *fmt, ...) PMUSIM_PRINTF(1, 2);

/* With FUZZ_VERBOSE=1 in the environment: print a note (why an input was refused, what a
 * harness did), for looking at a corpus.  Otherwise nothing. */
void fz_note(const char *fmt, ...) PMUSIM_PRINTF(1, 2);

/* ------------------------------------------------------------------ files */

/* A private scratch file of the process holding these bytes (replacing what it held): a memfd,
 * created on the first use of `name`; returns its path, /proc/self/fd/N (the same for a name for
 * the life of the process). */
const char *fz_file(const char *name, const void *data, size_t len);
/* The whole of a file (read as a stream: a FIFO or a device works too), NUL-terminated, in a
 * buffer the caller frees; NULL with errno set when it cannot be opened or read. */
uint8_t *fz_slurp(const char *path, size_t *len);

/* ------------------------------------------------------------------ guest images */

/* Where each architecture's tiny image and the built-in boards put things. */
uint64_t fz_image_base(Arch arch);

/* A small ELF for `arch` (ELF64 LE for x86_64 and arm64, ELF32 BE for ppc32), loaded at
 * fz_image_base(arch): one PT_LOAD with a code loop and the patch-site tables the validator
 * reads (__mcount_loc, __patchable_function_entries, __jump_table, __ftr_fixup), a symbol table
 * (_start, work, compare_keys, do_checksum, update_stats, __fentry__/_mcount, ftrace_caller,
 * trace_buffers).  `sites`: include the patch-site sections.  malloc'ed; *len its size. */
uint8_t *fz_tiny_elf(Arch arch, bool sites, size_t *len);
/* The same, written once per process into the scratch directory; returns its path. */
const char *fz_tiny_elf_path(Arch arch, bool sites);

/* ------------------------------------------------------------------ machines */

/* A copy of the built-in board for `arch` with its RAM cut down to end one page after
 * fz_image_base(arch) (about 1 MiB; on arm64 64 KiB more, for the DTB above the image) and its
 * ROM, if any, to one page: restoring a checkpoint touches every page of RAM, a small machine
 * keeps that cheap.  malloc'ed DTB; *len its size. */
uint8_t *fz_small_board(Arch arch, size_t *len);

/* The machine the checkpoint harness restores into and the seed generator saves from (the same
 * configuration, so the same fingerprint): the tiny image with its patch sites on the small
 * board (fz_small_board), 2 CPUs, a quantum of FZ_CK_QUANTUM cycles, --check-patching, --samples (to /dev/null),
 * --icache=strict on arm64 and ppc32, the console to /dev/null, three bytes of --console-in
 * (so that checkpoints hold the console-input section).  The caller may set run limits
 * and --save-at in *cfg afterwards. */
#define FZ_CK_QUANTUM 10000
void fz_checkpoint_config(Arch arch, MachineConfig *cfg);
/* One machine per architecture (machines[ARCH_COUNT]) as fz_checkpoint_config's with `ncpus`
 * CPUs, mem_size bytes of RAM (0: the board's) and no tools, created (never booted): for
 * harnesses that only need its RAM or facts. */
void fz_plain_machines(Machine *machines, int ncpus, uint64_t mem_size);

/* ------------------------------------------------------------------ guest trace rings */

/* fuzz_guesttrace: the trace_buffers descriptor (header and 16 per-CPU records: guest/include/
 * trace_buffer.h) and the ring area it points into, below the tiny image in the small board's
 * RAM (above the DTB on x86_64 and ppc32; arm64's is above the image). */
#define FZ_GT_DESC (32 + 16 * 40)
#define FZ_GT_RING_MAX 0x10000
uint64_t fz_gt_ring_base(Arch arch);

/* ------------------------------------------------------------------ option header */

/* The first FZ_OPT_BYTES bytes of the dtb, dts and machine inputs choose the run's options (the
 * rest is the tree): byte 0 the architecture (mod 3), byte 1 --cpus (mod 18: 0 keeps the tree's,
 * 17 is out of range), byte 2 --cpu-model (0 keeps; else an index into the known names and an
 * unknown one), byte 3 flags (FZ_OPT_*), byte 4 the quantum (0: the default; else n * 1000). */
#define FZ_OPT_BYTES 5
enum {
    FZ_OPT_BOOTARGS = 1,            /* --bootargs "console=ttyS0 watchdog_thresh=1" */
    FZ_OPT_PATCHING = 2,            /* --check-patching */
    FZ_OPT_ICACHE = 4,              /* --icache=strict */
    FZ_OPT_NO_KERNEL = 8,           /* machine: no image (--dump-dtb --arch) */
    FZ_OPT_RUN = 16,                /* machine: boot and run FZ_RUN_CYCLES cycles */
    FZ_OPT_GUEST_TRACE = 32,        /* machine: --guest-trace (the image's trace_buffers check) */
    FZ_OPT_SAMPLES = 64,            /* machine: --samples */
    FZ_OPT_TRACE_JSON = 128,        /* machine: --trace-json (the JSON sink over the run's events) */
};
#define FZ_RUN_CYCLES 30000

typedef struct FzOptions {
    Arch arch;
    int ncpus;
    const char *cpu_model;
    const char *bootargs;
    unsigned flags;
    uint64_t quantum;
} FzOptions;

/* The tree part of a dtb or machine input as a blob file: its first 4 bytes are made the FDT
 * magic (a file without it would be compiled with dtc as DTS, a process per input: fuzz_dts's
 * job).  Returns the scratch file's path, NULL if the tree part is shorter than 4 bytes. */
const char *fz_dtb_file(const uint8_t *tree, size_t len);

/* dt_build() of the tree file at `path` with the header's options, then dt_parse(), dt_arch(),
 * dt_reserve() and dt_finish() on what it built: each refusal must come with a message. */
void fz_check_tree(const FzOptions *o, const char *path);

/* Decode the header; false if the input is shorter than it. */
bool fz_options(const uint8_t *data, size_t size, FzOptions *o);
/* Encode a header (the seed generator); returns FZ_OPT_BYTES. */
size_t fz_options_encode(uint8_t *out, Arch arch, int ncpus, int model_index, unsigned flags, unsigned quantum_k);

#endif
