/* testutil.c — shared helpers for the Check unit tests. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int testutil_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

static const char *join(const char *env, const char *fallback, const char *rel)
{
    static char buf[4][4096];
    static int k;
    const char *base = getenv(env);
    char *b = buf[k++ & 3];
    snprintf(b, sizeof buf[0], "%s/%s", base ? base : fallback, rel);
    return b;
}

const char *testutil_build_path(const char *rel)
{
    return join("PMUSIM_BUILD", "build", rel);
}

const char *testutil_src_path(const char *rel)
{
    return join("PMUSIM_SRC", ".", rel);
}

const char *testutil_temp_file(const void *data, size_t len, const char *suffix)
{
    static char paths[4][64];
    static int k;
    char *p = paths[k++ & 3];
    snprintf(p, sizeof paths[0], "/tmp/pmusim-test-XXXXXX%s", suffix);
    int fd = mkstemps(p, (int)strlen(suffix));
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
    close(fd);
    return p;
}

Machine *tm_create(Arch arch, const unsigned char *blob, unsigned len, uint64_t load, uint64_t entry,
                   uint64_t max_insns, int ncpus)
{
    return tm_create_model(arch, blob, len, load, entry, max_insns, ncpus, NULL);
}

Machine *tm_create_model(Arch arch, const unsigned char *blob, unsigned len, uint64_t load, uint64_t entry,
                         uint64_t max_insns, int ncpus, const char *cpu_model)
{
    MachineConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.kernel = testutil_temp_file(blob, len, ".bin");
    cfg.arch = arch;
    cfg.raw = true;
    cfg.load_addr = load;
    cfg.entry = entry;
    cfg.entry_set = true;
    cfg.max_insns = max_insns;
    cfg.ncpus = ncpus;
    cfg.cpu_model = cpu_model;
    cfg.console_file = "/dev/null";
    Machine *m = calloc(1, sizeof *m);
    Error err = { { 0 } };
    if (!mach_create(m, &cfg, &err))
        ck_abort_msg("mach_create: %s", err.msg);
    unlink(cfg.kernel);
    return m;
}

int tm_run(Machine *m)
{
    mach_boot(m);
    return mach_run(m);
}

void tm_destroy(Machine *m)
{
    mach_destroy(m);
    free(m);
}

uint64_t tm_read(Machine *m, uint64_t addr, unsigned size)
{
    uint8_t *p = mem_ptr(&m->mem, addr, size);
    ck_assert_ptr_nonnull(p);
    return isa_big_endian(m->arch) ? load_be(p, size) : load_le(p, size);
}

void tm_write(Machine *m, uint64_t addr, unsigned size, uint64_t value)
{
    uint8_t *p = mem_ptr(&m->mem, addr, size);
    ck_assert_ptr_nonnull(p);
    if (isa_big_endian(m->arch))
        store_be(p, size, value);
    else
        store_le(p, size, value);
}

void tm_x86_gate(Machine *m, uint64_t idt, unsigned vec, uint64_t handler, unsigned dpl)
{
    uint64_t g = idt + 16 * (uint64_t)vec;
    tm_write(m, g, 2, handler & 0xffff);
    tm_write(m, g + 2, 2, 0x08);
    tm_write(m, g + 4, 1, 0);
    tm_write(m, g + 5, 1, 0x8e | dpl << 5);    /* present, 64-bit interrupt gate */
    tm_write(m, g + 6, 2, (handler >> 16) & 0xffff);
    tm_write(m, g + 8, 4, handler >> 32);
}

Cpu *tm_bare_cpu(GuestMem *gm, uint64_t base, uint64_t size)
{
    Error err;
    memset(gm, 0, sizeof *gm);
    ck_assert_msg(mem_add(gm, base, size, false, &err), "%s", err.msg);
    Cpu *c = calloc(1, sizeof *c);
    ck_assert_ptr_nonnull(c);
    c->mem = gm;
    return c;
}

void tm_bare_cpu_free(Cpu *c, GuestMem *gm)
{
    mem_destroy(gm);
    free(c);
}
