/* test_inject.c — the --inject parser and check (sim/inject.h): the values a spec gives, in any
 * order and number base, with the suffixes; the message and offset of each kind of bad spec;
 * stalls of one CPU that overlap, and CPUs beyond the machine's. */
#include <string.h>

#include "sim/inject.h"
#include "testutil.h"

#define TWO_TO_62 4611686018427387904ull

static InjectSpec parse_ok(const char *spec)
{
    InjectSpec s;
    Error err = { { 0 } };
    ck_assert_msg(inject_parse(spec, &s, &err), "%s refused: %s", spec, err.msg);
    ck_assert_ptr_eq(s.text, spec);
    ck_assert_int_eq(s.kind, INJECT_STALL);
    return s;
}

START_TEST(values_in_any_order_base_and_suffix)
{
    InjectSpec s = parse_ok("stall:cpu=3:cycle=2M:for=0x100");
    ck_assert_int_eq(s.cpu, 3);
    ck_assert_uint_eq(s.cycle, 2000000);
    ck_assert_uint_eq(s.len, 256);
    s = parse_ok("stall:for=1K:cycle=0x10:cpu=1");
    ck_assert_int_eq(s.cpu, 1);
    ck_assert_uint_eq(s.cycle, 16);
    ck_assert_uint_eq(s.len, 1000);
    s = parse_ok("stall:cpu=0:cycle=0");
    ck_assert_uint_eq(s.cycle, 0);
    ck_assert_uint_eq(s.len, INJECT_FOREVER);
    s = parse_ok("stall:cpu=0:cycle=4611686018G");             /* 2^62 rounded down to 10^9 */
    ck_assert_uint_eq(s.cycle, 4611686018000000000ull);
    s = parse_ok("stall:cpu=15:cycle=4611686018427387904:for=3g");
    ck_assert_int_eq(s.cpu, 15);
    ck_assert_uint_eq(s.cycle, TWO_TO_62);
    ck_assert_uint_eq(s.len, 3000000000ull);
}
END_TEST

START_TEST(bad_specs_name_the_offset)
{
    static const struct {
        const char *spec, *msg;
    } cases[] = {
        { "stall:cpu=1:cyc=5", "unknown key \"cyc\" at offset 12" },
        { "Stall:cpu=1:cycle=5", "unknown kind \"Stall\" (kinds: stall) at offset 0" },
        { "", "unknown kind \"\" (kinds: stall) at offset 0" },
        { "stall", "expected :KEY=VALUE after the kind at offset 5" },
        { "stall:", "empty field (expected KEY=VALUE) at offset 6" },
        { "stall:cpu=1:cycle=1:", "empty field (expected KEY=VALUE) at offset 20" },
        { "stall:cpu", "expected KEY=VALUE, found \"cpu\" at offset 6" },
        { "stall:cpu=1", "missing key \"cycle\" at offset 11" },
        { "stall:cycle=1", "missing key \"cpu\" at offset 13" },
        { "stall:cpu=16:cycle=1", "bad value for cpu: expected a CPU index from 0 to 15 at offset 10" },
        { "stall:cpu=1K:cycle=1", "bad value for cpu" },
        { "stall:cpu=-1:cycle=1", "bad value for cpu" },
        { "stall:cpu= 1:cycle=1", "bad value for cpu" },
        { "stall:cpu=1:cycle=4611686018427387905", "bad value for cycle" },
        { "stall:cpu=1:cycle=4611686019G", "bad value for cycle" },
        { "stall:cpu=1:cycle=18446744073709551616", "bad value for cycle" },
        { "stall:cpu=1:cycle=0x1G", "bad value for cycle" },
        { "stall:cpu=1:cycle=K", "bad value for cycle" },
        { "stall:cpu=1:cycle=", "bad value for cycle" },
        { "stall:cpu=1:cycle=1:for=0", "bad value for for: expected a number of cycles from 1 to 2^62 (K, M, G suffixes) at offset 24" },
        { "stall:cpu=1:cpu=1:cycle=1", "key \"cpu\" given twice at offset 12" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        InjectSpec s;
        Error err = { { 0 } };
        ck_assert_msg(!inject_parse(cases[i].spec, &s, &err), "%s accepted", cases[i].spec);
        char want[256];
        snprintf(want, sizeof want, "--inject %s: ", cases[i].spec);
        ck_assert_msg(!strncmp(err.msg, want, strlen(want)), "%s: %s", cases[i].spec, err.msg);
        ck_assert_msg(strstr(err.msg, cases[i].msg), "%s: %s", cases[i].spec, err.msg);
    }
}
END_TEST

START_TEST(check_cpus_and_overlaps)
{
    InjectSpec s[3];
    Error err = { { 0 } };
    s[0] = parse_ok("stall:cpu=1:cycle=100:for=10");
    s[1] = parse_ok("stall:cpu=1:cycle=110");                  /* right after the first: fine */
    s[2] = parse_ok("stall:cpu=0:cycle=105:for=1");             /* another CPU: fine */
    ck_assert(inject_check(s, 3, 2, &err));
    ck_assert(inject_check(s, 3, 0, &err));                     /* --cpus not given */
    ck_assert(!inject_check(s, 3, 1, &err));
    ck_assert_str_eq(err.msg, "--inject stall:cpu=1:cycle=100:for=10: cpu 1, but the machine has 1 CPU (cpu=0 to 0)");
    s[1] = parse_ok("stall:cpu=1:cycle=109");
    ck_assert(!inject_check(s, 2, 2, &err));
    ck_assert_str_eq(err.msg, "--inject stall:cpu=1:cycle=109: overlaps --inject stall:cpu=1:cycle=100:for=10 "
                              "(one CPU stalls once at a time)");
    s[0] = parse_ok("stall:cpu=1:cycle=200");                   /* for ever: everything after overlaps */
    s[1] = parse_ok("stall:cpu=1:cycle=4611686018427387904:for=4611686018427387904");
    ck_assert(!inject_check(s, 2, 2, &err));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("inject");
    TCase *t = tcase_create("parse");
    tcase_add_test(t, values_in_any_order_base_and_suffix);
    tcase_add_test(t, bad_specs_name_the_offset);
    tcase_add_test(t, check_cpus_and_overlaps);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
