/* machine.h — a machine built from a device tree: memory, CPUs, devices, one clock, one trace.
 *
 * Data flow.  mach_create() loads the guest image, builds the effective device tree
 * (fdt.h: board + options), creates RAM/ROM, loads the image, writes the DTB and the boot
 * structures into guest RAM, creates the devices the tree names and one Cpu (one Unicorn
 * engine) per cpu node.  mach_run() advances time in rounds of one quantum: each CPU in
 * order runs to the round's end (vcpu_run), held CPUs check their release, machine-wide events
 * fire, pages that became code are write-protected in every engine, and a checkpoint is taken
 * when asked.  Devices never touch CPU state: they call back into the machine (console, exit,
 * CPU power) or raise lines on a CPU.
 */
#ifndef PMUSIM_MACHINE_H
#define PMUSIM_MACHINE_H

#include <signal.h>
#include <stdio.h>

#include "base/clock.h"
#include "base/loader.h"
#include "base/mem.h"
#include "base/outfile.h"
#include "base/trace.h"
#include "cpu/cluster.h"
#include "cpu/codewatch.h"
#include "cpu/cpu.h"
#include "cpu/icache.h"
#include "sim/conin.h"
#include "sim/linuxwatch.h"
#include "sim/fdt.h"
#include "sim/inject.h"
#include "sim/intc.h"
#include "sim/progress.h"
#include "tracer/patchcheck.h"
#include "tracer/profile.h"

#define MAX_DEVICES 32

typedef struct Device Device;
typedef struct Machine Machine;

/* Everything the command line can ask of a run. */
typedef struct MachineConfig {
    const char *kernel;             /* ELF or raw image */
    Arch arch;                      /* --arch, or from the ELF */
    bool raw;                       /* --load-addr given: a raw binary */
    uint64_t load_addr, entry;
    bool entry_set;
    const char *machine_file;       /* --machine FILE.dts|FILE.dtb */
    int ncpus;                      /* --cpus (0 = as in the tree) */
    const char *cpu_model;          /* --cpu-model */
    const char *bootargs;           /* --bootargs */
    uint64_t mem_size;              /* --mem, bytes (0 = as in the tree) */
    int gic_version;                /* --gic-version (0 = as in the tree) */
    uint64_t rtc_base;              /* --rtc-base: the RTC's time at cycle 0, seconds since 1970 */
    bool rtc_base_set;
    const char *initrd_file;        /* --initrd */
    const char *symbols_file;       /* --symbols: a vmlinux or System.map for the image's symbols */
    uint64_t quantum;               /* --quantum, cycles */
    uint64_t max_insns, max_cycles; /* 0 = unlimited */
    const char *trace_file;
    const char *trace_json_file;    /* --trace-json: the trace as Chrome trace-event JSON */
    uint64_t trace_limit;           /* --trace-limit, bytes (0 = unlimited) */
    const char *samples_file;       /* --samples: PMU samples and the exact profile */
    bool check_patching;            /* --check-patching: the patch validator and its summary */
    const char *guest_trace_file;   /* --guest-trace: the guest's trace rings, decoded */
    const char *trace_dat_file;     /* --trace-dat: the trace and the guest's rings as a trace.dat */
    bool strict;                    /* --strict: violations make the exit status 6 */
    bool icache_strict;             /* --icache=strict: stale fetch until cache maintenance */
    const char *console_file;
    const char *console_input_file; /* --console-in / --console-input FILE ("-", "stdin": standard input) */
    const char *console_input_opt;  /* which of the two named it (for messages) */
    bool console_input_live;        /* --console-in: standard input may be live (sim/conin.h) */
    const char *record_file;        /* --record: the console input log */
    const char *replay_file;        /* --replay: the console input from a log */
    bool quiet;                     /* --quiet: no progress line, no note on a limit */
    bool progress;                  /* the progress line on stderr (main: a terminal, no --quiet) */
    bool stats;
    bool semihosting;
    const char *save_file;          /* --save-at CYCLE:FILE */
    uint64_t save_at;
    /* How --save-at writes the machine: checkpoint_save (sim/checkpoint.h, above the machine). */
    bool (*save)(struct Machine *m, const char *path, Error *err);
    const char *restore_file;
    bool icount_check;              /* test aid: count every instruction with a code hook too */
    const char *gdb;                /* --gdb DEV (sim/gdbstub.h), or NULL */
    bool gdb_wait;                  /* --gdb-wait */
    uint64_t tt_check;              /* --time-travel-check STRIDE (0: off; sim/ttcheck.h) */
    InjectSpec inject[MAX_INJECT];  /* --inject (sim/inject.h) */
    int ninject;
    /* pmusim stat (sim/stat.h): count user and kernel apart (cpu.h, CpuPrivSplit), keeping the
     * branch and load/store sources on all the run; stat_profile: the exact per-address
     * profile (--per-symbol) without a --samples file */
    bool stat, stat_branches, stat_mem, stat_profile;
} MachineConfig;

typedef struct Console {
    OutFile out;                    /* --console FILE, or standard output */
    bool line_flush;                /* flush on newline (interactive) */
    uint64_t bytes;                 /* written so far (checkpoints record it) */
    uint64_t mute_below;            /* time travel: bytes below it were written before the machine
                                       went back, and are not written again */
    size_t len;
    char buf[4096];
} Console;

/* The round under way when the run paused inside it (a CPU reached its vcpu_pause_at). */
typedef struct RoundProgress {
    bool open;                      /* a round is under way */
    uint64_t end;                   /* its end */
    int next;                       /* the CPU that runs next: the paused one (already polled) */
} RoundProgress;

/* What the layer above the machine (time travel, sim/timetravel.h) does at the run's stops. */
typedef struct MachineHooks {
    void *opaque;
    /* at the end of every round, after --save-at (automatic snapshots) */
    void (*round_end)(void *opaque, Machine *m);
} MachineHooks;

/* Why mach_advance returned. */
typedef enum MachAdvance { MACH_ENDED, MACH_PAUSED } MachAdvance;

struct Machine {
    MachineConfig cfg;
    Arch arch;
    Image image;
    void *fdt;                      /* the effective tree (as handed to the guest) */
    uint64_t fdt_addr, fdt_size;
    uint64_t image_end;             /* one past the image's highest byte in RAM (BSS included), or 0 */
    uint64_t initrd_addr, initrd_size;  /* --initrd, where it was loaded (size 0: none) */
    MachineDesc desc;
    GuestMem mem;
    Cluster cl;                     /* the CPUs and what they share (cpu/cluster.h) */
    Device *devs[MAX_DEVICES];
    int ndevs;
    PcIrq pcirq;                    /* x86: the I/O APIC and the 8259A pair the ISA lines reach */
    Clock clock;
    Trace trace;
    TraceSink *tracedat;            /* --trace-dat's sink (in trace), until the trace is closed */
    Console console;
    LinuxWatch linuxwatch;          /* a Linux guest's panic on the console (sim/linuxwatch.h) */
    Profile *profile;               /* --samples, else NULL */
    PatchCheck *patchcheck;         /* --check-patching, else NULL */
    TraceSink *trace_json;          /* --trace-json, else NULL (a sink of `trace`) */
    ICache *icache;                 /* --icache=strict, else NULL */

    int exit_status;
    const char *exit_reason;
    int exit_cpu;
    volatile sig_atomic_t running;  /* inside mach_run: mach_interrupt may reach the CPUs */
    bool output_lost;               /* an output could not be written: exit status 7 */
    bool saved;                     /* --save-at done */
    DeviceHost dev_host;            /* what the devices see of the machine (mach_create) */
    Progress progress;              /* the progress line on stderr (sim/progress.h) */
    ConIn conin;                    /* the console input (data NULL without it), its log */
    char conin_owner[128];          /* the UART that takes it (its node), "" before one asked */
    RoundProgress round;
    uint64_t pause_round;           /* pause at the first round boundary at or after (UINT64_MAX: no) */
    uint64_t mute_now;              /* time travel: the ends of rounds up to it were written once
                                       (--trace-json's counter samples are not written again) */
    MachineHooks hooks;
    struct MmioCtx **mmio_ctx;      /* per engine and window (owned) */
    int nmmio_ctx, mmio_ctx_cap;
};

/* Identifies the machine a checkpoint or a console input log belongs to: the effective tree,
 * the image, the quantum. */
uint64_t mach_fingerprint(const Machine *m);
/* Build the machine from its inputs (image, tree); no output file is opened yet. */
bool mach_create(Machine *m, const MachineConfig *cfg, Error *err);
/* Open --trace, --console and --record, once the inputs (a checkpoint too) have been read and checked. */
bool mach_open_outputs(Machine *m, Error *err);
/* Async-signal-safe: end the run at the next block boundary of whichever CPU is running; the
 * exit status is 128 + sig, as a shell reports a process killed by it. */
void mach_interrupt(Machine *m, int sig);
/* From a fatal-signal handler: write what is buffered and put the outputs in place. */
void mach_rescue_outputs(Machine *m);
/* Start the boot CPU at the image entry (not done when restoring a checkpoint). */
void mach_boot(Machine *m);
/* Map the device windows (and, on x86, unassigned space) into a CPU's engine. */
bool mach_map_devices(Machine *m, Cpu *c, Error *err);
void mach_destroy(Machine *m);
/* Run to the end and finish every output; returns pmusim's exit status (7 if an output was
 * lost, after a message naming it).  mach_run is mach_advance until the end, then mach_finish. */
int mach_run(Machine *m);
/* Run rounds until the machine ends (MACH_ENDED) or pauses (MACH_PAUSED): a CPU reached its
 * pause (vcpu_pause_at: the round stays open in m->round, that CPU next) or a round boundary
 * reached m->pause_round.  Calling it again goes on exactly as if it had never returned. */
MachAdvance mach_advance(Machine *m);
/* Before the first mach_advance: what a run starts with (console input replayed from its log,
 * the progress line). */
void mach_begin(Machine *m);
/* After the end: every output finished, the exit status as mach_run's. */
int mach_finish(Machine *m);
/* Print the effective tree as DTS on stdout (through dtc). */
bool mach_dump_dtb(Machine *m, Error *err);
void mach_print_stats(Machine *m);

/* End the run: the guest powered off, asked to exit, or a limit was reached.  `cpu` is the
 * CPU whose instruction caused it, or NULL. */
void mach_exit(Machine *m, Cpu *cpu, int status, const char *reason);
/* The same, naming the instruction that caused it (when the PC has already moved on). */
void mach_exit_at(Machine *m, Cpu *cpu, uint64_t pc, int status, const char *reason);

/* Device dd's interrupt output n, connected as its node's `interrupts` entry n says. */
IrqLine mach_device_irq(Machine *m, const DevDesc *dd, unsigned n);

/* Console output (a UART transmitted a byte). */
void console_putc(Machine *m, uint8_t c);
void console_flush(Machine *m);

/* I/O port space (x86 IN/OUT, the ppc32 ISA window). */
uint64_t mach_io_read(Machine *m, Cpu *c, uint64_t port, unsigned size);
void mach_io_write(Machine *m, Cpu *c, uint64_t port, unsigned size, uint64_t val);

/* A diagnostic about something the guest did wrong (or pmusim does not model), in the trace. */
void mach_diag(Machine *m, Cpu *c, uint64_t pc, const char *what, const char *fmt, ...) PMUSIM_PRINTF(5, 6);

/* A PMU sample (with --samples): the instruction that caused it and its privilege level. */
void mach_profile_sample(Machine *m, Cpu *c, uint64_t pc, bool user, const char *counter);

/* Symbolic form of a guest address for reports ("func+0x10"). */
const char *mach_describe(Machine *m, uint64_t addr, char *buf, size_t len);
/* Every CPU's PC, symbol and state (after a limit ended the run). */
void mach_print_pcs(Machine *m, FILE *f);

#endif
