/* test_fuzz.c — seeded mutation fuzzing of the input parsers a guest image and a samples file
 * reach: the ELF loader (headers, symbols, sections), machine creation with the patch
 * validator's tables and the trace-ring symbol, and `pmusim report`'s samples parser.  Each
 * mutant must either load or be refused with a message naming the file; nothing may crash.
 * The mutations come from a fixed xorshift seed: every run tries the same inputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/loader.h"
#include "sim/report.h"
#include "testutil.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f, "%s: cannot open (build the guests first)", path);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(*len);
    ck_assert(fread(b, 1, *len, f) == *len);
    fclose(f);
    return b;
}

/* A copy of b with a few random bytes, words or a truncation changed. */
static uint8_t *mutate(const uint8_t *b, size_t len, size_t *out_len)
{
    uint8_t *m = malloc(len);
    memcpy(m, b, len);
    *out_len = len;
    unsigned n = 1 + (unsigned)(next() % 4);
    for (unsigned k = 0; k < n; k++) {
        size_t at = (size_t)(next() % len);
        switch (next() % 4) {
        case 0: m[at] ^= (uint8_t)(1u << (next() % 8)); break;
        case 1: m[at] = (uint8_t)next(); break;
        case 2:                                     /* a 32-bit field: 0, all ones, huge */
            if (at + 4 <= len) {
                static const uint32_t v[] = { 0, 0xffffffffu, 0x7fffffffu, 0x80000000u };
                memcpy(m + at, &v[next() % 4], 4);
            }
            break;
        default: *out_len = at ? at : 1; break;     /* truncated */
        }
    }
    return m;
}

static void loader_fuzz(const char *rel, unsigned iterations)
{
    size_t len;
    uint8_t *orig = slurp(testutil_build_path(rel), &len);
    unsigned refused = 0;
    for (unsigned i = 0; i < iterations; i++) {
        size_t mlen;
        uint8_t *m = mutate(orig, len, &mlen);
        const char *path = testutil_temp_file(m, mlen, ".elf");
        Image im;
        Error err = { { 0 } };
        if (!image_load_elf(&im, path, &err)) {
            refused++;
            ck_assert_msg(strstr(err.msg, path) != NULL, "no file name in: %s", err.msg);
        }
        image_free(&im);
        free(m);
    }
    ck_assert_uint_gt(refused, 0);          /* the mutations do reach the checks */
    free(orig);
}

START_TEST(elf_loader_survives_mutants)
{
    loader_fuzz("guest/x86_64/ftrace.elf", 1500);
    loader_fuzz("guest/ppc32/ftrace.elf", 1500);       /* ELF32, big-endian */
}
END_TEST

/* Loading into a machine reaches the validator's tables (__mcount_loc, __jump_table,
 * __ftr_fixup) and the trace-ring symbol. */
START_TEST(machine_with_validator_survives_mutants)
{
    static const char *const guests[] = { "guest/x86_64/ftrace.elf", "guest/ppc32/ftrace.elf",
                                          "guest/arm64/ftrace.elf" };
    for (unsigned g = 0; g < 3; g++) {
        size_t len;
        uint8_t *orig = slurp(testutil_build_path(guests[g]), &len);
        for (unsigned i = 0; i < 60; i++) {
            size_t mlen;
            uint8_t *m = mutate(orig, len, &mlen);
            const char *path = testutil_temp_file(m, mlen, ".elf");
            MachineConfig cfg;
            memset(&cfg, 0, sizeof cfg);
            cfg.arch = ARCH_NONE;
            cfg.kernel = path;
            cfg.check_patching = true;
            cfg.guest_trace_file = "/dev/null";
            cfg.quantum = 100000;
            Machine mach;
            Error err = { { 0 } };
            if (!mach_create(&mach, &cfg, &err))
                ck_assert_msg(err.msg[0] != 0, "refused without a message");
            mach_destroy(&mach);
            free(m);
        }
        free(orig);
    }
}
END_TEST

static int report(const char *elf, const char *samples)
{
    char *argv[] = { (char *)"report", (char *)elf, (char *)samples, (char *)"--truth", NULL };
    FILE *saved = stdout;
    stdout = fopen("/dev/null", "w");
    int rc = report_main(4, argv);
    fclose(stdout);
    stdout = saved;
    return rc;
}

START_TEST(samples_parser_survives_mutants)
{
    static const char good[] =
        "# pmusim samples 1 arch=x86_64 samples=2\n"
        "sample cpu=0 cycle=10 pc=0x100000 mode=kernel counter=PMC1\n"
        "sample cpu=1 cycle=20 pc=0x100004 mode=user counter=PMC2\n"
        "insns pc=0x100000 count=5 window=5 cycles=7\n"
        "insns pc=0x100004 count=3 window=1 cycles=2\n";
    const char *elf = testutil_build_path("guest/x86_64/hello.elf");
    ck_assert_int_eq(report(elf, testutil_temp_file(good, sizeof good - 1, ".samples")), 0);
    unsigned refused = 0;
    for (unsigned i = 0; i < 2000; i++) {
        size_t mlen;
        uint8_t *m = mutate((const uint8_t *)good, sizeof good - 1, &mlen);
        int rc = report(elf, testutil_temp_file(m, mlen, ".samples"));
        ck_assert_msg(rc == 0 || rc == 2, "report exit status %d", rc);
        refused += rc == 2;
        free(m);
    }
    ck_assert_uint_gt(refused, 0);
}
END_TEST

Suite *fuzz_suite(void)
{
    Suite *s = suite_create("fuzz");
    TCase *t = tcase_create("parsers");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, elf_loader_survives_mutants);
    tcase_add_test(t, machine_with_validator_survives_mutants);
    tcase_add_test(t, samples_parser_survives_mutants);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return testutil_run(fuzz_suite());
}
