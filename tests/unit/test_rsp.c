/* test_rsp.c — the GDB Remote Serial Protocol codec (base/rsp.h): framing, checksums, escapes,
 * run-length decoding, the interrupt byte, and the malformed packets it refuses. */
#include <stdio.h>
#include <string.h>

#include "base/rsp.h"
#include "testutil.h"

/* Feed a string; the last event other than RSP_NONE (RSP_NONE if there was none). */
static RspEvent feed(RspDecoder *d, const char *s, size_t n)
{
    RspEvent last = RSP_NONE;
    for (size_t i = 0; i < n; i++) {
        RspEvent e = rsp_feed(d, (uint8_t)s[i]);
        if (e != RSP_NONE)
            last = e;
    }
    return last;
}

#define FEED(d, lit) feed(d, lit, sizeof(lit) - 1)

START_TEST(packet_with_good_checksum)
{
    RspDecoder d;
    rsp_init(&d);
    ck_assert_int_eq(FEED(&d, "$g#67"), RSP_PACKET);
    ck_assert_str_eq(d.buf, "g");
    ck_assert_int_eq(FEED(&d, "$qSupported:swbreak+#a1"), RSP_ERROR);   /* wrong sum */
    ck_assert_ptr_nonnull(strstr(d.err, "checksum a1"));
    ck_assert_ptr_nonnull(strstr(d.err, "offset 5"));
}
END_TEST

START_TEST(frame_then_decode_round_trips_special_bytes)
{
    static const char payload[] = "a$b#c}d*e";
    char framed[64];
    size_t n = rsp_frame(payload, sizeof(payload) - 1, framed, sizeof framed);
    ck_assert_uint_gt(n, sizeof(payload) - 1 + 4);      /* four escapes */
    ck_assert_ptr_null(memchr(framed + 1, '$', n - 1));
    RspDecoder d;
    rsp_init(&d);
    ck_assert_int_eq(feed(&d, framed, n), RSP_PACKET);
    ck_assert_uint_eq(d.len, sizeof(payload) - 1);
    ck_assert_mem_eq(d.buf, payload, d.len);
    ck_assert_uint_eq(rsp_frame(payload, sizeof(payload) - 1, framed, 8), 0);   /* does not fit */
}
END_TEST

START_TEST(run_length_expands)
{
    /* "0* " is '0' and 32 - 29 = 3 more: "0000" (GDB manual E.1's example) */
    char framed[40];
    RspDecoder d;
    rsp_init(&d);
    uint8_t sum = (uint8_t)('0' + '*' + ' ');     /* rsp_frame escapes '*': the run by hand */
    size_t n = (size_t)snprintf(framed, sizeof framed, "$0* #%02x", sum);
    ck_assert_int_eq(feed(&d, framed, n), RSP_PACKET);
    ck_assert_str_eq(d.buf, "0000");
    n = (size_t)snprintf(framed, sizeof framed, "$* #%02x", (uint8_t)('*' + ' '));
    ck_assert_int_eq(feed(&d, framed, n), RSP_ERROR);   /* nothing to repeat */
    ck_assert_ptr_nonnull(strstr(d.err, "run-length"));
}
END_TEST

START_TEST(acks_interrupt_and_stray_bytes)
{
    RspDecoder d;
    rsp_init(&d);
    ck_assert_int_eq(rsp_feed(&d, '+'), RSP_ACK);
    ck_assert_int_eq(rsp_feed(&d, '-'), RSP_NAK);
    ck_assert_int_eq(rsp_feed(&d, RSP_INTERRUPT_BYTE), RSP_INTERRUPT);
    ck_assert_int_eq(rsp_feed(&d, 'x'), RSP_ERROR);
    ck_assert_ptr_nonnull(strstr(d.err, "0x78 outside a packet"));
    ck_assert_uint_eq(d.err_at, 3);
    ck_assert_int_eq(FEED(&d, "$?#3f"), RSP_PACKET);   /* in step again */
}
END_TEST

START_TEST(malformed_packets_are_refused)
{
    RspDecoder d;
    rsp_init(&d);
    ck_assert_int_eq(FEED(&d, "$g#zz"), RSP_ERROR);
    ck_assert_ptr_nonnull(strstr(d.err, "not two hex digits"));
    ck_assert_int_eq(FEED(&d, "$ab$g#67"), RSP_PACKET);    /* restarted: the first is dropped */
    rsp_init(&d);
    ck_assert_int_eq(FEED(&d, "$ab$"), RSP_ERROR);
    ck_assert_ptr_nonnull(strstr(d.err, "before its '#'"));
    rsp_init(&d);
    ck_assert_int_eq(FEED(&d, "$a}#00"), RSP_ERROR);        /* an escape with no byte */
    rsp_init(&d);
    ck_assert(!rsp_in_packet(&d));
    FEED(&d, "$m10,");
    ck_assert(rsp_in_packet(&d));                           /* a client leaving now cuts one */
}
END_TEST

START_TEST(oversized_packet_is_refused)
{
    RspDecoder d;
    rsp_init(&d);
    rsp_feed(&d, '$');
    uint8_t sum = 0;
    for (int i = 0; i < RSP_PACKET_MAX + 10; i++) {
        rsp_feed(&d, 'a');
        sum += 'a';
    }
    char tail[4];
    snprintf(tail, sizeof tail, "#%02x", sum);
    ck_assert_int_eq(feed(&d, tail, 3), RSP_ERROR);
    ck_assert_ptr_nonnull(strstr(d.err, "PacketSize"));
}
END_TEST

START_TEST(hex_helpers)
{
    uint8_t b[4] = { 0xde, 0xad, 0x01, 0xf0 }, back[4];
    char h[9];
    rsp_hex(b, 4, h);
    ck_assert_str_eq(h, "dead01f0");
    ck_assert(rsp_unhex(h, 4, back));
    ck_assert_mem_eq(back, b, 4);
    ck_assert(!rsp_unhex("dex", 2, back));
    const char *p = "1f,8";
    uint64_t v;
    ck_assert(rsp_hex_u64(&p, &v));
    ck_assert_uint_eq(v, 0x1f);
    ck_assert_int_eq(*p, ',');
    p = "12345678123456789";                               /* 17 digits: too many */
    ck_assert(!rsp_hex_u64(&p, &v));
    p = ",";
    ck_assert(!rsp_hex_u64(&p, &v));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rsp");
    TCase *t = tcase_create("codec");
    tcase_add_test(t, packet_with_good_checksum);
    tcase_add_test(t, frame_then_decode_round_trips_special_bytes);
    tcase_add_test(t, run_length_expands);
    tcase_add_test(t, acks_interrupt_and_stray_bytes);
    tcase_add_test(t, malformed_packets_are_refused);
    tcase_add_test(t, oversized_packet_is_refused);
    tcase_add_test(t, hex_helpers);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
