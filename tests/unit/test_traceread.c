/* test_traceread.c — the text-trace reader (tracer/traceread.c) line by line against the format
 * of docs/trace-format.md, and the comparison of `pmusim diff` (tracer/tracediff.c) on small
 * traces: what counts as a difference, what the options leave out, the exit status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "tracer/tracediff.h"

static bool parses(const char *line, TraceRecord *rec, char *why, size_t n)
{
    return trace_parse_line(line, strlen(line), rec, why, n);
}

/* Lines the text sink writes (docs/trace-format.md's examples and every value form). */
static const char *const good[] = {
    "0 cpu0 cpu-start pc=0x1000ae hwid=0x0 reason=boot",
    "45376 cpu0 rdmsr pc=0x102a52 sym=rdmsr_site msr=0x12345678 name=unknown value=0x0 result=#GP",
    "20710 cpu0 wrmsr pc=0x10124f sym=arch_percpu_set_offset+0xf msr=0xc0000101 name=IA32_GS_BASE value=0x8a00",
    "23084 cpu0 psci fn=CPU_ON id=0xc4000003 x1=0x1 x2=0x40080038 x3=0x1 ret=0x0",
    "16100 cpu0 diag what=bus-error pc=0x40083128 sym=dabt_site msg=\"read of \\\"x\\\" \\\\ \\x1b\"",
    "5 machine diag what=unassigned msg=\"\"",
    "4359000 cpu0 code-write addr=0x102e80 at=mix size=1 old=0f new=e8 pc=0x103e38 sym=text_poke+0x48",
    "1 cpu15 code-write addr=0x1 at=0x1 size=0 old=- new=- pc=0x2 sym=0x2 pa=0x3",
    "18446744073709551615 cpu65535 exit status=0 reason=psci-system-off",
    "7 cpu0 exception vector=0x3 name=#BP from=0x1 sym=f\x7f\xc3\xa9=x+0x1 to=0x2 info=0x0",    /* a guest's symbol */
};

/* Lines that are not, and a word of the reason. */
static const struct {
    const char *line, *why;
} bad[] = {
    { "", "cycle" },
    { "01 cpu0 exit status=0 reason=x", "cycle" },
    { "18446744073709551616 cpu0 exit status=0 reason=x", "cycle" },
    { "1 cpu01 exit status=0 reason=x", "cpu" },
    { "1 cpu65536 exit status=0 reason=x", "cpu" },
    { "1 core0 exit status=0 reason=x", "cpu" },
    { "1 cpu0 no-such-kind a=b", "unknown event kind" },
    { "1 cpu0 exit status=0", "missing field reason" },
    { "1 cpu0 exit reason=x status=0", "missing field status" },
    { "1 cpu0 exit status=0 reason=x bogus=1", "unknown key" },
    { "1 cpu0 exit status=0x0 reason=x", "field status" },
    { "1 cpu0 cpu-stop pc=0x01 reason=x", "field pc" },
    { "1 cpu0 cpu-stop pc=0xA reason=x", "field pc" },
    { "1 cpu0 cpu-stop pc=0x10000000000000000 reason=x", "field pc" },
    { "1 cpu0 cpu-stop pc=0x1 reason=a\\b", "field reason" },
    { "1 cpu0 cpu-stop pc=0x1 reason=\"open", "quoted" },
    { "1 cpu0 cpu-stop pc=0x1 reason=\"\\q\"", "quoted" },
    { "1 cpu0 cpu-stop pc=0x1  reason=x", "empty field" },
    { "1 cpu0 cpu-stop pc=0x1 reason=x ", "empty field" },
    { "1 cpu0 cpu-stop pc=0x1 reason", "key=value" },
    { "1 cpu0 code-write addr=0x1 at=x size=1 old=0 new=00 pc=0x2 sym=y", "field old" },
    { "1 cpu0 code-write addr=0x1 at=x size=1 old=0A new=00 pc=0x2 sym=y", "field old" },
    { "1 cpu0 diag what=x sym=y msg=z", "symbol without its address" },
    { "1 cpu0 diag what=x pc=0x1 msg=z", "missing field sym" },
    { "1 cpu0 exit status=0 reason=x\tpc=0x1", "control byte" },
    { "1\x01 cpu0 exit status=0 reason=x", "control byte" },
};

START_TEST(lines_the_sink_writes_parse)
{
    for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
        TraceRecord rec;
        char why[256] = "";
        ck_assert_msg(parses(good[i], &rec, why, sizeof why), "%s: %s", good[i], why);
    }
    TraceRecord rec;
    char why[256];
    ck_assert(parses(good[1], &rec, why, sizeof why));
    ck_assert_uint_eq(rec.cycle, 45376);
    ck_assert_int_eq(rec.cpu, 0);
    ck_assert_int_eq(rec.kind, TK_RDMSR);
    int pc, sym;
    ck_assert(trace_record_pc(&rec, &pc, &sym));
    ck_assert_int_ge(pc, 0);
    ck_assert_int_ge(sym, 0);
    ck_assert_int_eq(strncmp(rec.line + rec.value[sym].off, "rdmsr_site", rec.value[sym].len), 0);
    ck_assert(!(rec.present >> 4 & 1));         /* old (field 4): absent */
    ck_assert(parses(good[5], &rec, why, sizeof why));
    ck_assert_int_eq(rec.cpu, -1);
    ck_assert(trace_record_pc(&rec, &pc, &sym));
    ck_assert_int_eq(pc, -1);                   /* a diag without pc */
    ck_assert(parses(good[3], &rec, why, sizeof why));
    ck_assert(!trace_record_pc(&rec, &pc, &sym));   /* psci has no pc field */
}
END_TEST

START_TEST(lines_off_the_format_are_refused)
{
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        TraceRecord rec;
        char why[256] = "";
        ck_assert_msg(!parses(bad[i].line, &rec, why, sizeof why), "accepted: %s", bad[i].line);
        ck_assert_msg(strstr(why, bad[i].why) && strstr(why, "column"), "%s: \"%s\" does not say %s", bad[i].line, why,
                      bad[i].why);
    }
}
END_TEST

/* ------------------------------------------------------------------ streams */

typedef struct Mem {
    const char *p;
    size_t n, at;
} Mem;

static ssize_t mem_fill(void *opaque, void *buf, size_t len)
{
    Mem *m = opaque;
    size_t k = m->n - m->at < len ? m->n - m->at : len;
    memcpy(buf, m->p + m->at, k);
    m->at += k;
    return (ssize_t)k;
}

/* trace_diff of two texts; the output in out (static), the refusal in err */
static int diff(const char *a, const char *b, const DiffOptions *opt, const char **out, Error *err)
{
    static char text[8192];
    Mem m[2] = { { a, strlen(a), 0 }, { b, strlen(b), 0 } };
    TraceReader rd[2], *r[2] = { &rd[0], &rd[1] };
    trace_reader_init(&rd[0], "a.trace", mem_fill, &m[0]);
    trace_reader_init(&rd[1], "b.trace", mem_fill, &m[1]);
    DiffOptions o;
    if (opt)
        o = *opt;
    else
        diff_options_init(&o);
    FILE *f = fmemopen(text, sizeof text, "w");
    int side = -1;
    int rc = trace_diff(r, &o, f, &side, err);
    fclose(f);
    trace_reader_free(&rd[0]);
    trace_reader_free(&rd[1]);
    *out = text;
    return rc;
}

#define L1 "0 cpu0 cpu-start pc=0x1000 hwid=0x0 reason=boot\n"
#define L2 "10 cpu0 exception vector=0x3 name=#BP from=0x1001 sym=f+0x1 to=0x2000 info=0x0\n"
#define L2B "10 cpu0 exception vector=0x6 name=#UD from=0x1001 sym=f+0x1 to=0x2000 info=0x0\n"
#define L2C "11 cpu0 exception vector=0x3 name=#BP from=0x1001 sym=f+0x1 to=0x2000 info=0x0\n"
#define D1 "12 cpu0 diag what=x pc=0x1 sym=g msg=m\n"
#define EX "20 cpu0 exit status=0 reason=psci-system-off\n"
#define EX3 "15 cpu0 exit status=3 reason=max-insns\n"

START_TEST(the_first_difference_and_what_differs)
{
    const char *out;
    Error err = { { 0 } };
    ck_assert_int_eq(diff(L1 L2 EX, L1 L2 EX, NULL, &out, &err), DIFF_SAME);
    ck_assert_ptr_nonnull(strstr(out, "identical: 3 events"));
    ck_assert_int_eq(diff(L1 L2 EX, L1 L2B EX, NULL, &out, &err), DIFF_DIFFER);
    ck_assert_ptr_nonnull(strstr(out, "first difference: event 2 (RUN_A line 2, RUN_B line 2)"));
    ck_assert_ptr_nonnull(strstr(out, "differs in: vector, name\n"));
    ck_assert_ptr_nonnull(strstr(out, "RUN_A line 2: cycle 10 cpu0 exception from=0x1001 sym=f+0x1\n"));
    ck_assert_ptr_nonnull(strstr(out, "\n  1:1  " L1));    /* the context */
    /* the marks stand under vector=... and name=... */
    ck_assert_ptr_nonnull(strstr(out, "\n" "                    ^^^^^^^^^^ ^^^^^^^^\n"));
    ck_assert_int_eq(diff(L1 L2 EX, L1 L2C EX, NULL, &out, &err), DIFF_DIFFER);
    ck_assert_ptr_nonnull(strstr(out, "differs in: cycle\n"));
    /* one side ends first */
    ck_assert_int_eq(diff(L1 L2 EX, L1 EX3, NULL, &out, &err), DIFF_DIFFER);
    ck_assert_ptr_nonnull(strstr(out, "RUN_B ends first, at line 2 (15 cpu0 exit status=3 reason=max-insns)"));
    ck_assert_ptr_nonnull(strstr(out, "differs in: cycle, kind\n"));
}
END_TEST

START_TEST(options_leave_out_kinds_fields_and_cycles)
{
    const char *out;
    Error err = { { 0 } };
    DiffOptions o;
    diff_options_init(&o);
    ck_assert(diff_ignore_fields(&o, "cycle", &err));
    ck_assert_int_eq(diff(L1 L2 EX, L1 L2C EX, &o, &out, &err), DIFF_SAME);
    diff_options_init(&o);
    ck_assert(diff_ignore_fields(&o, "vector,name", &err));
    ck_assert_int_eq(diff(L1 L2 EX, L1 L2B EX, &o, &out, &err), DIFF_SAME);
    diff_options_init(&o);
    ck_assert(diff_ignore_kinds(&o, "diag", &err));
    ck_assert_int_eq(diff(L1 D1 L2 EX, L1 L2 EX, &o, &out, &err), DIFF_SAME);
    ck_assert_int_eq(diff(L1 D1 L2 EX, L1 L2B EX, &o, &out, &err), DIFF_DIFFER);
    ck_assert_ptr_nonnull(strstr(out, "(RUN_A line 3, RUN_B line 2)"));
    diff_options_init(&o);
    ck_assert(diff_ignore_kinds(&o, "exit", &err));
    ck_assert_int_eq(diff(L1 L2 EX, L1 EX3, &o, &out, &err), DIFF_DIFFER);
    ck_assert_ptr_nonnull(strstr(out, "RUN_B ends after line 2, RUN_A goes on"));
    ck_assert(!diff_ignore_kinds(&o, "nonsense", &err));
    ck_assert_ptr_nonnull(strstr(err.msg, "--ignore nonsense"));
    ck_assert(!diff_ignore_fields(&o, "pc,nonsense", &err));
    ck_assert_ptr_nonnull(strstr(err.msg, "--ignore-field nonsense"));
}
END_TEST

START_TEST(bad_streams_name_the_file_and_line)
{
    const char *out;
    Error err = { { 0 } };
    ck_assert_int_eq(diff(L1 L2 EX, L1 L2, NULL, &out, &err), DIFF_BAD);
    ck_assert_str_eq(err.msg, "b.trace:2: the trace ends without its exit line: it is truncated");
    ck_assert_int_eq(diff(L1 L2 EX, L1 "10 cpu0 exc", NULL, &out, &err), DIFF_BAD);
    ck_assert_str_eq(err.msg, "b.trace:2: the last line has no newline: the trace is truncated");
    ck_assert_int_eq(diff(L1 EX L1, L1 EX, NULL, &out, &err), DIFF_BAD);
    ck_assert_str_eq(err.msg, "a.trace:3: a line after the exit line");
    ck_assert_int_eq(diff("", L1 EX, NULL, &out, &err), DIFF_BAD);
    ck_assert_str_eq(err.msg, "a.trace:1: empty: not a trace");
    char *longl = malloc(2 * TRACE_LINE_MAX);
    memset(longl, 'x', 2 * TRACE_LINE_MAX - 1);
    longl[2 * TRACE_LINE_MAX - 1] = 0;
    ck_assert_int_eq(diff(L1 EX, longl, NULL, &out, &err), DIFF_BAD);
    ck_assert_ptr_nonnull(strstr(err.msg, "b.trace:1: a line longer than 4096 bytes"));
    free(longl);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("traceread");
    TCase *t = tcase_create("reader");
    tcase_add_test(t, lines_the_sink_writes_parse);
    tcase_add_test(t, lines_off_the_format_are_refused);
    tcase_add_test(t, the_first_difference_and_what_differs);
    tcase_add_test(t, options_leave_out_kinds_fields_and_cycles);
    tcase_add_test(t, bad_streams_name_the_file_and_line);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
