/* fuzz_checkpoint.c — the checkpoint reader (--restore FILE) into a created machine.
 *
 * Input: a checkpoint file (sim/checkpoint.h).  Its architecture field (offset 12) picks one of
 * three machines (fz_checkpoint_config: the tiny image on a 1 MiB board, 2 CPUs, the validator,
 * the strict I-cache model where it exists and the profile on, so their sections are read too),
 * created once per process.  Before the restore the harness writes the file's true length into
 * the header and recomputes the CRC-32 trailer, so that mutations reach the sections instead of
 * stopping at the CRC; an input whose length field has its top bit set (byte 31 >= 0x80) is
 * passed as it is, so the length and CRC checks are fuzzed too.  When the length is rewritten,
 * byte 30 (never above 0 in a real file) says whether to run a loaded checkpoint (>= 0x80).
 *
 * checkpoint_restore() must load the file or refuse it with a message naming the file.  A loaded
 * checkpoint with the run mark then runs FZ_RUN_CYCLES cycles, as `pmusim run --restore` would.
 * Then the harness restores the pristine checkpoint (the machine after a short run) and saves
 * it again: if that does not give the pristine bytes back (a partial restore or a run left state
 * the file format does not cover, such as extra code ranges) the machine is built again, so
 * every input starts from the same state.  Building a machine is what makes libFuzzer check for
 * leaks (each engine keeps 32 bytes, tests/fuzz/lsan.supp), and a leak check of six engines costs
 * fifty inputs' time, so the harness builds only when it must.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sim/checkpoint.h"

#define CK_LENGTH_AT 24
#define CK_CRC 4

static Machine machines[ARCH_COUNT];
static uint8_t *pristine[ARCH_COUNT];
static size_t pristine_len[ARCH_COUNT];
static char pristine_path[ARCH_COUNT][320];

/* A machine in the pristine state: created, then the pristine checkpoint restored (a machine that
 * has never run, so that a restored checkpoint can run on it). */
static void build(Arch a)
{
    MachineConfig cfg;
    fz_checkpoint_config(a, &cfg);
    Error err = { { 0 } };
    if (!mach_create(&machines[a], &cfg, &err) || !mach_open_outputs(&machines[a], &err))
        fz_fail("cannot create the %s checkpoint machine: %s", isa_name(a), err.msg);
    if (pristine_path[a][0] && !checkpoint_restore(&machines[a], pristine_path[a], &err))
        fz_fail("the pristine %s checkpoint does not restore: %s", isa_name(a), err.msg);
}

static void rebuild(Arch a)
{
    mach_destroy(&machines[a]);
    build(a);
}

/* The machine's state as a checkpoint, malloc'ed. */
static uint8_t *state(Arch a, size_t *len)
{
    const char *path = fz_file("state.ck", "", 0);
    Error err = { { 0 } };
    if (!checkpoint_save(&machines[a], path, &err))
        fz_fail("cannot save: %s", err.msg);
    uint8_t *b = fz_slurp(path, len);
    if (!b)
        fz_fail("%s: %s", path, strerror(errno));
    return b;
}

/* The pristine checkpoint: the machine after FZ_CK_PRISTINE cycles, its image's pages already
 * marked as code (so that restoring the seeds, taken from the same machine, adds no code range
 * the pristine state lacks and reset() seldom has to build the machine again). */
#define FZ_CK_PRISTINE (2 * FZ_CK_QUANTUM)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    for (int a = 0; a < ARCH_COUNT; a++) {
        MachineConfig cfg;
        fz_checkpoint_config((Arch)a, &cfg);
        char name[32];
        snprintf(name, sizeof name, "pristine-%s.ck", isa_name((Arch)a));
        const char *path = fz_file(name, "", 0);
        cfg.save_file = path;
        cfg.save_at = FZ_CK_PRISTINE;
        cfg.save = checkpoint_save;
        cfg.max_cycles = FZ_CK_PRISTINE + FZ_CK_QUANTUM;
        Machine *m = &machines[a];
        Error err = { { 0 } };
        if (!mach_create(m, &cfg, &err) || !mach_open_outputs(m, &err))
            fz_fail("cannot create the %s checkpoint machine: %s", isa_name((Arch)a), err.msg);
        mach_boot(m);
        mach_run(m);
        if (!m->saved)
            fz_fail("the %s machine did not save its pristine checkpoint", isa_name((Arch)a));
        mach_destroy(m);
        snprintf(pristine_path[a], sizeof pristine_path[a], "%s", path);
        build((Arch)a);
        pristine[a] = state((Arch)a, &pristine_len[a]);
    }
    return 0;
}

/* Back to the pristine state, or a new machine if restoring cannot get there. */
static void reset(Arch a)
{
    Machine *m = &machines[a];
    Error err = { { 0 } };
    if (!checkpoint_restore(m, pristine_path[a], &err))
        fz_fail("the pristine checkpoint does not restore after another one: %s", err.msg);
    size_t len;
    uint8_t *b = state(a, &len);
    if (len != pristine_len[a] || memcmp(b, pristine[a], len)) {
        fz_note("the pristine checkpoint does not give the same machine back: building it again");
        rebuild(a);
    }
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Arch a = size > 12 ? (Arch)(data[12] % 3) : ARCH_X86_64;
    bool run = false;
    uint8_t *ck = xcalloc(1, size + 1);
    memcpy(ck, data, size);
    if (size >= CK_LENGTH_AT + 8 + CK_CRC && ck[CK_LENGTH_AT + 7] < 0x80) {
        run = ck[CK_LENGTH_AT + 6] >= 0x80;
        store_le(ck + CK_LENGTH_AT, 8, size);
        store_le(ck + size - CK_CRC, 4, blob_crc32(0, ck, size - CK_CRC));
    }
    const char *path = fz_file("input.ck", ck, size);
    free(ck);

    Machine *m = &machines[a];
    Error err = { { 0 } };
    if (checkpoint_restore(m, path, &err)) {
        if (run && m->clock.now < UINT64_MAX - FZ_RUN_CYCLES) {
            fz_note("restored: running %d cycles from cycle %" PRIu64, FZ_RUN_CYCLES, m->clock.now);
            m->cfg.max_cycles = m->clock.now + FZ_RUN_CYCLES;
            mach_run(m);
        } else {
            fz_note("restored at cycle %" PRIu64, m->clock.now);
        }
    } else {
        if (!err.msg[0])
            fz_fail("checkpoint_restore refused the file without a message");
        if (!strstr(err.msg, path))
            fz_fail("checkpoint_restore: the message does not name the file: %s", err.msg);
        fz_note("checkpoint_restore: %s", err.msg);
    }
    reset(a);
    return 0;
}
