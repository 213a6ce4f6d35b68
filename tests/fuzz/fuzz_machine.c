/* fuzz_machine.c — a whole machine built from a fuzzed --machine DTB, end to end.
 *
 * Input: the option header (fuzz.h) and then a flattened device tree (its magic forced:
 * fz_dtb_file).  mach_create() loads the
 * tiny image for the header's architecture (fz_tiny_elf, with its patch-site tables) or none
 * (FZ_OPT_NO_KERNEL, as --dump-dtb --arch), builds and parses the tree with the option edits,
 * creates RAM/ROM, places the DTB, the boot structures and spin tables, creates the devices and
 * one engine per CPU, with --check-patching / --icache=strict / --guest-trace / --samples / --trace-json as the
 * flags say; it must succeed or refuse with a message.  With FZ_OPT_RUN the machine then boots and
 * runs FZ_RUN_CYCLES cycles (outputs to /dev/null), which exercises the clocks, timers and devices
 * the tree configured.  Each CPU costs an engine (about a millisecond), so this harness runs a few
 * hundred inputs a second.
 */
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    for (int a = 0; a < ARCH_COUNT; a++)
        fz_tiny_elf_path((Arch)a, true);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FzOptions o;
    if (!fz_options(data, size, &o))
        return 0;
    MachineConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.arch = o.arch;
    cfg.kernel = o.flags & FZ_OPT_NO_KERNEL ? NULL : fz_tiny_elf_path(o.arch, true);
    cfg.machine_file = fz_dtb_file(data + FZ_OPT_BYTES, size - FZ_OPT_BYTES);
    if (!cfg.machine_file)
        return 0;
    cfg.ncpus = o.ncpus;
    cfg.cpu_model = o.cpu_model;
    cfg.bootargs = o.bootargs;
    cfg.quantum = o.quantum;
    cfg.check_patching = (o.flags & FZ_OPT_PATCHING) != 0;
    cfg.icache_strict = (o.flags & FZ_OPT_ICACHE) != 0;
    if (cfg.icache_strict)
        cfg.check_patching = true;
    cfg.guest_trace_file = o.flags & FZ_OPT_GUEST_TRACE ? "/dev/null" : NULL;
    cfg.samples_file = o.flags & FZ_OPT_SAMPLES ? "/dev/null" : NULL;
    cfg.trace_json_file = o.flags & FZ_OPT_TRACE_JSON ? "/dev/null" : NULL;
    cfg.console_file = "/dev/null";
    cfg.max_cycles = FZ_RUN_CYCLES;

    static Machine m;               /* large: not on the stack */
    Error err = { { 0 } };
    if (!mach_create(&m, &cfg, &err)) {
        if (!err.msg[0])
            fz_fail("mach_create refused the machine without a message");
        fz_note("mach_create: %s", err.msg);
    } else if (m.cl.ncpus < 1 || m.cl.ncpus > MAX_CPUS || !m.fdt || m.fdt_size == 0) {
        fz_fail("mach_create accepted a machine with %d CPUs and a %" PRIu64 "-byte tree", m.cl.ncpus, m.fdt_size);
    } else if (o.flags & FZ_OPT_RUN) {
        if (!mach_open_outputs(&m, &err))
            fz_fail("cannot open /dev/null as the console: %s", err.msg);
        mach_boot(&m);
        int status = mach_run(&m);
        fz_note("ran %d CPUs: status %d (%s)", m.cl.ncpus, status, m.exit_reason ? m.exit_reason : "-");
    }
    mach_destroy(&m);
    return 0;
}
