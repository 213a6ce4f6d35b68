/* rsp.c — GDB Remote Serial Protocol framing (rsp.h has the byte map and the manual's sections).
 *
 * States: IDLE (between packets) -> DATA after '$' -> CS1 after '#' -> CS2 -> IDLE; inside
 * DATA, '}' goes to ESC for one byte and '*' to RLE for the count byte.  A malformed packet is
 * decoded to its end (its '#' and two digits) and then refused, so the stream stays in step.
 */
#include "base/rsp.h"

#include <stdio.h>
#include <string.h>

enum { RSP_S_IDLE, RSP_S_DATA, RSP_S_ESC, RSP_S_RLE, RSP_S_CS1, RSP_S_CS2 };

#define RLE_MIN_COUNT ' '           /* a count byte is printable (E.1) ... */
#define RLE_MAX_COUNT ('~')         /* ... and not '$' or '#', which frame packets */

void rsp_init(RspDecoder *d)
{
    memset(d, 0, sizeof(*d));
}

static RspEvent refuse(RspDecoder *d, uint64_t at, const char *fmt, ...) PMUSIM_PRINTF(3, 4);
static RspEvent refuse(RspDecoder *d, uint64_t at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err, sizeof(d->err), fmt, ap);
    va_end(ap);
    d->err_at = at;
    return RSP_ERROR;
}

int rsp_hex_digit(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

static void put(RspDecoder *d, uint8_t b)
{
    if (d->len >= RSP_PACKET_MAX) {
        d->overflow = true;
        return;
    }
    d->buf[d->len++] = (char)b;
}

static void packet_start(RspDecoder *d)
{
    d->state = RSP_S_DATA;
    d->sum = 0;
    d->len = 0;
    d->overflow = false;
    d->bad_rle = false;
    d->start = d->offset - 1;      /* the '$' just fed */
}

/* The count byte of a run: the previous byte again n - 29 times. */
static void run_length(RspDecoder *d, uint8_t n)
{
    if (!d->len || n < RLE_MIN_COUNT || n > RLE_MAX_COUNT) {
        d->bad_rle = true;
        return;
    }
    uint8_t prev = (uint8_t)d->buf[d->len - 1];
    for (int i = 0; i < n - RSP_RLE_BIAS; i++)
        put(d, prev);
}

static RspEvent outside(RspDecoder *d, uint8_t b, uint64_t at)
{
    switch (b) {
    case '$': packet_start(d); return RSP_NONE;
    case '+': return RSP_ACK;
    case '-': return RSP_NAK;
    case RSP_INTERRUPT_BYTE: return RSP_INTERRUPT;
    default: return refuse(d, at, "byte 0x%02x outside a packet (expected '$', '+', '-' or 0x03)", b);
    }
}

static RspEvent packet_end(RspDecoder *d, uint8_t digit, uint64_t at)
{
    d->state = RSP_S_IDLE;
    int lo = rsp_hex_digit(digit);
    d->buf[d->len] = 0;
    if (d->cs_hi > 0xf || lo < 0)
        return refuse(d, at, "packet at offset %" PRIu64 ": checksum is not two hex digits", d->start);
    if (d->overflow)
        return refuse(d, d->start, "packet at offset %" PRIu64 ": longer than %d bytes (PacketSize)", d->start,
                      RSP_PACKET_MAX);
    if (d->bad_rle)
        return refuse(d, d->start, "packet at offset %" PRIu64 ": malformed run-length count", d->start);
    uint8_t sent = (uint8_t)(d->cs_hi << 4 | lo);
    if (sent != d->sum)
        return refuse(d, at, "packet at offset %" PRIu64 ": checksum %02x, payload sums to %02x", d->start, sent,
                      d->sum);
    return RSP_PACKET;
}

RspEvent rsp_feed(RspDecoder *d, uint8_t b)
{
    uint64_t at = d->offset++;
    switch (d->state) {
    case RSP_S_IDLE:
        return outside(d, b, at);
    case RSP_S_DATA:
        if (b == '#') {
            d->state = RSP_S_CS1;
            return RSP_NONE;
        }
        if (b == '$') {             /* a new packet before this one ended */
            uint64_t old = d->start;
            packet_start(d);
            return refuse(d, at, "packet at offset %" PRIu64 ": '$' before its '#'; dropped", old);
        }
        d->sum += b;
        if (b == RSP_ESCAPE)
            d->state = RSP_S_ESC;
        else if (b == '*')
            d->state = RSP_S_RLE;
        else
            put(d, b);
        return RSP_NONE;
    case RSP_S_ESC:
    case RSP_S_RLE:
        if (b == '#') {             /* the escape or the run has no byte */
            d->bad_rle = true;
            d->state = RSP_S_CS1;
            return RSP_NONE;
        }
        d->sum += b;
        if (d->state == RSP_S_ESC)
            put(d, b ^ RSP_ESCAPE_XOR);
        else
            run_length(d, b);
        d->state = RSP_S_DATA;
        return RSP_NONE;
    case RSP_S_CS1: {
        int hi = rsp_hex_digit(b);
        d->cs_hi = hi < 0 ? 0xff : (uint8_t)hi;
        d->state = RSP_S_CS2;
        return RSP_NONE;
    }
    default:
        return packet_end(d, b, at);
    }
}

static bool needs_escape(char ch)
{
    return ch == '$' || ch == '#' || ch == (char)RSP_ESCAPE || ch == '*';
}

size_t rsp_frame(const char *payload, size_t len, char *out, size_t cap)
{
    static const char digits[] = "0123456789abcdef";
    size_t n = 0;
    uint8_t sum = 0;
    if (cap < 4)
        return 0;
    out[n++] = '$';
    for (size_t i = 0; i < len; i++) {
        bool esc = needs_escape(payload[i]);
        if (n + (esc ? 2 : 1) + 3 > cap)
            return 0;
        char ch = esc ? (char)(payload[i] ^ RSP_ESCAPE_XOR) : payload[i];
        if (esc) {
            out[n++] = (char)RSP_ESCAPE;
            sum += RSP_ESCAPE;
        }
        out[n++] = ch;
        sum += (uint8_t)ch;
    }
    out[n++] = '#';
    out[n++] = digits[sum >> 4];
    out[n++] = digits[sum & 0xf];
    return n;
}

void rsp_hex(const uint8_t *in, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 0xf];
    }
    out[2 * len] = 0;
}

bool rsp_unhex(const char *s, size_t len, uint8_t *out)
{
    for (size_t i = 0; i < len; i++) {
        int hi = rsp_hex_digit((unsigned char)s[2 * i]), lo = hi < 0 ? -1 : rsp_hex_digit((unsigned char)s[2 * i + 1]);
        if (lo < 0)
            return false;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

bool rsp_hex_u64(const char **s, uint64_t *v)
{
    const char *p = *s;
    uint64_t x = 0;
    int n = 0;
    for (int d; (d = rsp_hex_digit((unsigned char)*p)) >= 0; p++, n++) {
        if (n == 16)
            return false;
        x = x << 4 | (uint64_t)d;
    }
    if (!n)
        return false;
    *s = p;
    *v = x;
    return true;
}
