/* test_tracedat.c — the trace.dat writer (tracer/tracedat.c) read back with Debian's libtracecmd
 * and libtraceevent, the readers trace-cmd and KernelShark use: events crossing page boundaries,
 * records longer than the ring buffer's small form (type_len 0), strings longer than a record
 * takes, time deltas beyond 27 bits (TIME_EXTEND) and beyond what one holds, optional fields left out, machine events in
 * their own block, the guest's ftrace entries merged by time, --trace-limit, and the same bytes
 * twice. */
#include "testutil.h"

#include <event-parse.h>
#include <stdlib.h>
#include <string.h>
#include <trace-cmd.h>

#include "base/trace_events.h"
#include "tracer/tracedat.h"

#define HZ 1000000000u              /* 1 GHz: a cycle is a nanosecond */
#define BIG_GAP (3ull << 27)        /* cycles (= ns) between two events: needs a time extend */
#define NDIAG 200                   /* diag events of ~250 bytes: a dozen pages */

/* (libtraceevent resolves an address inside a function only below the next symbol: _end) */
static Symbol syms[] = { { 0x1000, 0x100, "alpha", true, 0 }, { 0x1100, 0x100, "beta", true, 0 },
                         { 0x1200, 0, "_end", false, 0 } };
static Image image = { .path = "test.elf", .is64 = true, .syms = syms, .nsyms = 3 };

static const char *dat_path(const char *name)
{
    static char buf[4][512];
    static int k;
    char *p = buf[k++ % 4];
    snprintf(p, 512, "%s", testutil_build_path(name));
    return p;
}

static const char *symbolize(void *opaque, uint64_t addr, char *buf, size_t len)
{
    return image_describe(opaque, addr, buf, len);
}

static TraceSink *open_sink(Trace *t, const char *path, int ncpus, uint64_t limit)
{
    TraceDatConfig cfg = { path, limit, ncpus, HZ, &image, "pmusim test" };
    Error err = { { 0 } };
    TraceSink *s = tracedat_open(&cfg, &err);
    ck_assert_msg(s, "%s", err.msg);
    trace_init(t);
    trace_set_symbolizer(t, symbolize, &image);
    trace_add_sink(t, s);
    return s;
}

static void close_trace(Trace *t)
{
    Error err = { { 0 } };
    ck_assert_msg(trace_close(t, &err), "%s", err.msg);
}

static char *long_string(size_t n, char c)
{
    char *s = malloc(n + 1);
    memset(s, c, n);
    s[n] = 0;
    return s;
}

/* The ns of diag event i: small steps, and every 50th a gap beyond 27 bits. */
static uint64_t diag_time(int i)
{
    return (uint64_t)i * 1000 + (uint64_t)(i / 50) * BIG_GAP;
}

static void write_sample(const char *path)
{
    Trace t;
    open_sink(&t, path, 2, 0);
    char *msg = long_string(240, 'm');
    for (int i = 0; i < NDIAG; i++) {
        uint64_t pc = 0x1000 + (uint64_t)i;
        trace_diag(&t, diag_time(i), 0, "test", &pc, msg);
    }
    char *huge = long_string(3000, 'h');
    uint8_t bytes[200];
    for (unsigned i = 0; i < sizeof bytes; i++)
        bytes[i] = (uint8_t)i;
    uint64_t at = diag_time(NDIAG);
    trace_diag(&t, at, 0, "huge", NULL, huge);
    trace_code_write(&t, at + 1, 0, 0x1100, 200, bytes, 200, bytes, 200, 0x1004, NULL);
    trace_rdmsr(&t, TK_RDMSR, 5, 1, 0x1008, 0x10, "TSC", NULL, 42, NULL);
    trace_cpu_start(&t, 7, -1, 0x1000, 0, "machine");
    GuestTraceEntry ge[] = { { GT_FUNCTION, 1, 0, 500, 0x1104, 0x1008, 0, 0 },
                             { GT_FUNCTION, 0, 0, 1500, 0x1008, 0x1104, 0, 1 } };
    GuestTrace gt = { 1, GT_TRACER_FUNCTION, HZ, 2, 2, malloc(sizeof ge), 2 };
    memcpy(gt.e, ge, sizeof ge);
    tracedat_add_guest(t.sinks[0], &gt);
    close_trace(&t);
    free(msg);
    free(huge);
}

typedef struct Read {
    struct tracecmd_input *h;
    struct tep_handle *tep;
} Read;

static Read read_open(const char *path)
{
    Read r = { tracecmd_open(path, 0), NULL };
    ck_assert_msg(r.h, "libtracecmd cannot open %s", path);
    r.tep = tracecmd_get_tep(r.h);
    return r;
}

/* write_sample() into build/NAME, opened with libtracecmd */
static Read read_sample(const char *name)
{
    const char *path = dat_path(name);
    write_sample(path);
    return read_open(path);
}

static const char *event_name(Read *r, struct tep_record *rec)
{
    struct tep_event *ev = tep_find_event_by_record(r->tep, rec);
    ck_assert(ev);
    return ev->name;
}

/* The next record of cpu that is pmusim's (the guest's ftrace entries skipped), or NULL. */
static struct tep_record *next_pmusim(Read *r, int cpu)
{
    struct tep_record *rec;
    while ((rec = tracecmd_read_data(r->h, cpu)) && !strcmp(event_name(r, rec), "function"))
        tracecmd_free_record(rec);
    return rec;
}

static uint64_t num(Read *r, struct tep_record *rec, const char *field)
{
    struct tep_event *ev = tep_find_event_by_record(r->tep, rec);
    struct tep_format_field *f = tep_find_field(ev, field);
    ck_assert_msg(f, "no field %s in %s", field, ev->name);
    unsigned long long v;
    ck_assert_int_eq(tep_read_number_field(f, rec->data, &v), 0);
    return v;
}

static const char *str(Read *r, struct tep_record *rec, const char *field, int *len)
{
    struct tep_event *ev = tep_find_event_by_record(r->tep, rec);
    const char *p = tep_get_field_raw(NULL, ev, field, rec, len, 0);
    ck_assert_msg(p, "no field %s in %s", field, ev->name);
    return p;
}

START_TEST(diag_events_cross_pages_and_big_gaps)
{
    Read r = read_sample("tests/tracedat-a.dat");
    int n = 0;
    struct tep_record *rec;
    while (n < NDIAG && (rec = next_pmusim(&r, 0))) {
        ck_assert_str_eq(event_name(&r, rec), "diag");
        ck_assert_uint_eq(rec->ts, diag_time(n));
        ck_assert_uint_eq(num(&r, rec, "pc"), 0x1000 + (uint64_t)n);
        ck_assert_uint_eq(num(&r, rec, "_present"), 0xf);
        int len;
        const char *msg = str(&r, rec, "msg", &len);
        ck_assert_int_eq(len, 241);
        ck_assert_int_eq((int)strlen(msg), 240);
        ck_assert_int_eq(strncmp(str(&r, rec, "sym", &len), "alpha", 5), 0);
        tracecmd_free_record(rec);
        n++;
    }
    ck_assert_int_eq(n, NDIAG);
    tracecmd_close(r.h);
}
END_TEST

START_TEST(long_records_cut_strings_and_optional_fields)
{
    Read r = read_sample("tests/tracedat-b.dat");
    struct tep_record *rec;
    for (int i = 0; i < NDIAG; i++)
        tracecmd_free_record(next_pmusim(&r, 0));
    rec = next_pmusim(&r, 0);
    ck_assert_str_eq(event_name(&r, rec), "diag");
    int len;
    const char *huge = str(&r, rec, "msg", &len);
    ck_assert_int_eq(len, 1024);                            /* STR_MAX, its NUL included */
    ck_assert_int_eq((int)strlen(huge), 1023);
    ck_assert_uint_eq(num(&r, rec, "_present"), 0x9);        /* what, msg: no pc, no sym */
    tracecmd_free_record(rec);
    rec = next_pmusim(&r, 0);
    ck_assert_str_eq(event_name(&r, rec), "code_write");
    const uint8_t *old = (const uint8_t *)str(&r, rec, "old", &len);
    ck_assert_int_eq(len, 200);
    for (int i = 0; i < 200; i++)
        ck_assert_int_eq(old[i], i);
    ck_assert_str_eq(str(&r, rec, "at", &len), "beta");
    tracecmd_free_record(rec);
    ck_assert_ptr_null(next_pmusim(&r, 0));
    rec = tracecmd_read_data(r.h, 1);
    ck_assert_str_eq(event_name(&r, rec), "rdmsr");
    ck_assert_uint_eq(num(&r, rec, "value"), 42);
    ck_assert_uint_eq(num(&r, rec, "_present") & (1u << 4), 0);   /* old left out */
    tracecmd_free_record(rec);
    rec = tracecmd_read_data(r.h, 2);                       /* the machine's block */
    ck_assert_str_eq(event_name(&r, rec), "cpu_start");
    ck_assert_uint_eq(rec->ts, 7);
    tracecmd_free_record(rec);
    tracecmd_close(r.h);
}
END_TEST

START_TEST(guest_entries_merge_by_time_with_symbols)
{
    Read r = read_sample("tests/tracedat-c.dat");
    uint64_t last = 0;
    int fn = 0;
    struct tep_record *rec;
    while ((rec = tracecmd_read_data(r.h, 0))) {
        ck_assert_uint_ge(rec->ts, last);
        last = rec->ts;
        if (!strcmp(event_name(&r, rec), "function")) {
            ck_assert_uint_eq(rec->ts, fn ? 1500 : 500);
            ck_assert_str_eq(tep_find_function(r.tep, num(&r, rec, "ip")), fn ? "alpha" : "beta");
            ck_assert_str_eq(tep_find_function(r.tep, num(&r, rec, "parent_ip")), fn ? "beta" : "alpha");
            ck_assert_int_eq(((const uint8_t *)rec->data)[2], fn ? 0 : 1);     /* common_flags: irqs off */
            fn++;
        }
        tracecmd_free_record(rec);
    }
    ck_assert_int_eq(fn, 2);
    tracecmd_close(r.h);
}
END_TEST

START_TEST(same_bytes_twice)
{
    const char *a = dat_path("tests/tracedat-d1.dat"), *b = dat_path("tests/tracedat-d2.dat");
    write_sample(a);
    write_sample(b);
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    ck_assert(fa && fb);
    int ca, cb;
    long n = 0;
    do {
        ca = fgetc(fa);
        cb = fgetc(fb);
        ck_assert_int_eq(ca, cb);
        n++;
    } while (ca != EOF);
    ck_assert_int_gt(n, 10 * 4096);
    fclose(fa);
    fclose(fb);
}
END_TEST

START_TEST(limit_refuses_the_event_that_needs_a_page_too_many)
{
    const char *path = dat_path("tests/tracedat-e.dat");
    Trace t;
    TraceSink *s = open_sink(&t, path, 1, 2 * 4096);
    char *msg = long_string(240, 'x');
    TraceEvent ev = trace_begin(0, 0, "diag");
    trace_str(&ev, "what", "x");
    trace_str(&ev, "msg", msg);
    int accepted = 0;
    while (s->emit(s, &ev, false)) {
        accepted++;
        ev.cycle++;
    }
    ck_assert_int_gt(accepted, 16);                         /* two pages of ~260-byte records */
    ck_assert_int_lt(accepted, 2 * 4096 / 256 + 1);
    ck_assert(s->emit(s, &ev, true));                       /* the exit event always goes */
    close_trace(&t);
    Read r = read_open(path);
    int n = 0;
    struct tep_record *rec;
    while ((rec = tracecmd_read_data(r.h, 0))) {
        n++;
        tracecmd_free_record(rec);
    }
    ck_assert_int_eq(n, accepted + 1);
    tracecmd_close(r.h);
    free(msg);
}
END_TEST

START_TEST(a_delta_beyond_a_time_extend_starts_a_page)
{
    const char *path = dat_path("tests/tracedat-f.dat");
    Trace t;
    open_sink(&t, path, 1, 0);
    uint64_t times[] = { 5, 6 + (1ull << 60), 7 + (1ull << 60) + (1ull << 40) };
    for (unsigned i = 0; i < ARRAY_SIZE(times); i++)
        trace_cpu_stop(&t, times[i], 0, 0x1000, "halted");
    close_trace(&t);
    Read r = read_open(path);
    for (unsigned i = 0; i < ARRAY_SIZE(times); i++) {
        struct tep_record *rec = tracecmd_read_data(r.h, 0);
        ck_assert_ptr_nonnull(rec);
        ck_assert_uint_eq(rec->ts, times[i]);
        tracecmd_free_record(rec);
    }
    tracecmd_close(r.h);
}
END_TEST

/* A record of long strings: each cut at 1023 bytes, the ones that no longer fit cut shorter, and
 * still every string there (an empty one at least) and ended, the record inside its page. */
START_TEST(strings_fill_a_record_each_one_ended)
{
    const char *path = dat_path("tests/tracedat-g.dat");
    Trace t;
    open_sink(&t, path, 1, 0);
    char *a = long_string(3000, 'a'), *k = long_string(3000, 'k'), *f = long_string(3000, 'f'), *o = long_string(3000, 'o');
    trace_patch(&t, 1, 0, 0x1000, a, k, f, o, 0x1100);
    trace_patch(&t, 2, 0, 0x1000, "x", "y", "z", "w", 0x1100);
    close_trace(&t);
    Read r = read_open(path);
    struct tep_record *rec = tracecmd_read_data(r.h, 0);
    int len;
    ck_assert_int_eq((int)strlen(str(&r, rec, "at", &len)), 1023);
    ck_assert_int_eq((int)strlen(str(&r, rec, "from", &len)), 1023);
    const char *to = str(&r, rec, "to", &len);
    ck_assert_int_gt(len, 100);
    ck_assert_int_lt(len, 1024);
    ck_assert_int_eq((int)strlen(to), len - 1);
    ck_assert_str_eq(str(&r, rec, "sym", &len), "");
    ck_assert_int_eq(len, 1);
    tracecmd_free_record(rec);
    rec = tracecmd_read_data(r.h, 0);                       /* the next one, whole */
    ck_assert_str_eq(str(&r, rec, "to", &len), "w");
    ck_assert_str_eq(str(&r, rec, "sym", &len), "beta");
    tracecmd_free_record(rec);
    tracecmd_close(r.h);
    free(a);
    free(k);
    free(f);
    free(o);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tracedat");
    TCase *t = tcase_create("tracedat");
    tcase_add_test(t, diag_events_cross_pages_and_big_gaps);
    tcase_add_test(t, long_records_cut_strings_and_optional_fields);
    tcase_add_test(t, guest_entries_merge_by_time_with_symbols);
    tcase_add_test(t, same_bytes_twice);
    tcase_add_test(t, limit_refuses_the_event_that_needs_a_page_too_many);
    tcase_add_test(t, a_delta_beyond_a_time_extend_starts_a_page);
    tcase_add_test(t, strings_fill_a_record_each_one_ended);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
