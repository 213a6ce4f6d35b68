/* rsp.h — the GDB Remote Serial Protocol's framing, without any I/O (the stub, sim/gdbstub.c,
 * owns the socket; tests/fuzz/fuzz_rsp.c feeds this decoder anything).
 *
 * @see GDB manual, appendix E "Remote Protocol": E.1 "Overview" (framing, checksums, escapes,
 *      run-length encoding), E.10 "Interrupts" (the 0x03 byte), E.11 "Packet Acknowledgment"
 *      (QStartNoAckMode).
 *
 * Byte map of what a client sends:
 *   $ payload # c1 c2   a packet; c1 c2 = two hex digits, the sum of the payload's bytes mod 256
 *                        as sent (escapes and run-length bytes included)
 *   } x                 inside a payload: the byte x ^ 0x20 (escapes $ # } * and others)
 *   c * n               inside a payload: c repeated n - 29 more times (n printable, 32..126)
 *   +  -                acknowledgement / request to resend (until no-ack mode)
 *   0x03                interrupt (Ctrl-C), outside a packet
 * Anything else outside a packet is refused (RSP_ERROR) and skipped.
 */
#ifndef PMUSIM_RSP_H
#define PMUSIM_RSP_H

#include "base/common.h"

#define RSP_PACKET_MAX 16384        /* the decoded payload limit; advertised as PacketSize */
#define RSP_INTERRUPT_BYTE 0x03
#define RSP_ESCAPE 0x7d             /* '}' */
#define RSP_ESCAPE_XOR 0x20
#define RSP_RLE_BIAS 29             /* run-length count byte = repeats + 29 (E.1) */

typedef enum RspEvent {
    RSP_NONE,                       /* need more bytes */
    RSP_PACKET,                     /* a whole packet with a good checksum: d->buf, d->len */
    RSP_INTERRUPT,                  /* 0x03 */
    RSP_ACK,                        /* + */
    RSP_NAK,                        /* - */
    RSP_ERROR,                      /* malformed: d->err says what, d->err_at where (stream offset) */
} RspEvent;

typedef struct RspDecoder {
    int state;                      /* RSP_S_* (rsp.c) */
    uint8_t sum;                    /* running checksum of the raw payload bytes */
    uint8_t cs_hi;                  /* the first checksum digit's value */
    bool overflow;                  /* the payload went past RSP_PACKET_MAX: refused at '#' */
    bool bad_rle;                   /* a run-length count was malformed: refused at '#' */
    uint64_t offset;                /* bytes fed so far */
    uint64_t start;                 /* offset of the current packet's '$' */
    size_t len;
    char buf[RSP_PACKET_MAX + 1];   /* decoded payload, NUL-terminated */
    char err[160];
    uint64_t err_at;
} RspDecoder;

void rsp_init(RspDecoder *d);
/* Feed one byte; an event other than RSP_NONE completes something. */
RspEvent rsp_feed(RspDecoder *d, uint8_t byte);
/* Is the decoder in the middle of a packet (a client that leaves now cut one short)? */
static inline bool rsp_in_packet(const RspDecoder *d) { return d->state != 0; }

/* Frame payload as $...#cs into out (escaping $ # } *); returns the framed length, or 0 if it
 * does not fit in cap. */
size_t rsp_frame(const char *payload, size_t len, char *out, size_t cap);

/* Hex helpers.  rsp_hex: 2*len lowercase digits and a NUL into out.  rsp_unhex: exactly
 * 2*len digits from s into out; false on a non-digit.  rsp_hex_u64: digits at *s (at least one,
 * at most 16), *s moved past them. */
void rsp_hex(const uint8_t *in, size_t len, char *out);
bool rsp_unhex(const char *s, size_t len, uint8_t *out);
bool rsp_hex_u64(const char **s, uint64_t *v);
int rsp_hex_digit(int ch);          /* -1 if not a hex digit */

#endif
