/* testutil.h — shared helpers for the Check unit tests: running suites, paths, and tiny
 * machines that run an assembled fixture (tests/unit/blobs) on a built-in board. */
#ifndef PMUSIM_TESTUTIL_H
#define PMUSIM_TESTUTIL_H

#include <check.h>
#include <stddef.h>

#include "sim/machine.h"

/* Run one suite; returns the process exit status (0 if every test passed). */
int testutil_run(Suite *s);
/* Path of a file under the build or the source tree ($PMUSIM_BUILD / $PMUSIM_SRC). */
const char *testutil_build_path(const char *rel);
const char *testutil_src_path(const char *rel);
/* Write bytes to a new temporary file; returns its path (static storage, 4 in rotation). */
const char *testutil_temp_file(const void *data, size_t len, const char *suffix);

/* A machine running `blob` raw at `load` (entry `entry`), stopping after max_insns (0: no
 * limit).  Aborts the test on failure. */
Machine *tm_create(Arch arch, const unsigned char *blob, unsigned len, uint64_t load, uint64_t entry,
                   uint64_t max_insns, int ncpus);
/* Boot the first CPU and run to the end; returns the exit status. */
/* The same with --cpu-model `cpu_model` (NULL: the board's). */
Machine *tm_create_model(Arch arch, const unsigned char *blob, unsigned len, uint64_t load, uint64_t entry,
                         uint64_t max_insns, int ncpus, const char *cpu_model);
int tm_run(Machine *m);
void tm_destroy(Machine *m);
/* Guest memory in guest byte order. */
uint64_t tm_read(Machine *m, uint64_t addr, unsigned size);
void tm_write(Machine *m, uint64_t addr, unsigned size, uint64_t value);

/* A CPU with nothing but guest memory: `size` bytes of RAM at `base`, for the page-table walks'
 * tests (the walk reads tables through c->mem only).  tm_bare_cpu_free releases both. */
Cpu *tm_bare_cpu(GuestMem *gm, uint64_t base, uint64_t size);
void tm_bare_cpu_free(Cpu *c, GuestMem *gm);

/* An x86-64 interrupt gate (selector 0x08) for vector `vec` in the IDT at `idt`, with the
 * given DPL. */
void tm_x86_gate(Machine *m, uint64_t idt, unsigned vec, uint64_t handler, unsigned dpl);

/* Fixtures (generated from tests/unit/blobs/<name>.s), one line each. */
#define TM_BLOB(name) extern const unsigned char blob_##name[]; extern const unsigned int blob_##name##_len
TM_BLOB(x86_64_exc);
TM_BLOB(arm64_exc);
TM_BLOB(ppc32_exc);
TM_BLOB(x86_64_smc);
TM_BLOB(x86_64_pmu);
TM_BLOB(x86_64_apic);
TM_BLOB(x86_64_cpu);
TM_BLOB(x86_64_pit);
TM_BLOB(x86_64_pitcal);
TM_BLOB(x86_64_sipi);
TM_BLOB(ppc32_pmu);
TM_BLOB(arm64_irq);
TM_BLOB(arm64_el0);
TM_BLOB(arm64_el0_sysreg);
TM_BLOB(arm64_el1_sysreg);
TM_BLOB(arm64_unpriv);
TM_BLOB(arm64_smccc);
TM_BLOB(arm64_gic_timer);
TM_BLOB(arm64_psci);
TM_BLOB(arm64_pmu);
TM_BLOB(arm64_gic_nmi);
TM_BLOB(arm64_debug_bkpt);
TM_BLOB(arm64_debug_watch);
TM_BLOB(arm64_debug_step);
TM_BLOB(arm64_debug_mmu);

#endif
