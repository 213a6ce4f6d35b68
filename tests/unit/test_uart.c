/* test_uart.c — the PL011 and the 16550 at register level, on a host of the test's own (a
 * DeviceHost with one event queue, a clock the test moves, the console, the interrupt line and
 * the diagnostics recorded): the identification registers, FR as the FIFOs fill and drain,
 * IMSC/RIS/MIS/ICR and the line, the IFLS trigger levels, the receive timeout on its exact
 * cycle, the error bits and RSR, console input paced and held off, checkpoints, the 16550's
 * receiver; a live input that grows, a replay that delivers each byte at its logged cycle or
 * is refused, and what the host hears of every byte taken (--record).
 *
 * Timing: UARTCLK 24 MHz and a CPU clock of 96 MHz make 4 CPU cycles per UARTCLK cycle.  With
 * IBRD = 1 a bit is 16 UARTCLK cycles = 64 CPU cycles: an 8N1 character (10 bits) takes 640
 * cycles and the receive timeout (32 bits) 2048. */
#include <stdlib.h>
#include <string.h>

#include "gic/gic.h"
#include "sim/dev/device.h"
#include "sim/dev/uart_rx.h"
#include "testutil.h"

enum {
    DR = 0x000, RSR = 0x004, FR = 0x018, IBRD = 0x024, FBRD = 0x028, LCRH = 0x02c, CR = 0x030, IFLS = 0x034,
    IMSC = 0x038, RIS = 0x03c, MIS = 0x040, ICR = 0x044, DMACR = 0x048,
};
enum {
    FR_CTS = 1, FR_DSR = 2, FR_DCD = 4, FR_BUSY = 8, FR_RXFE = 0x10, FR_TXFF = 0x20, FR_RXFF = 0x40, FR_TXFE = 0x80,
};
enum { LCRH_FEN = 0x10, LCRH_WLEN8 = 0x60 };
enum { CR_UARTEN = 1, CR_LBE = 0x80, CR_TXE = 0x100, CR_RXE = 0x200, CR_RTS = 0x800 };
enum { INT_RX = 0x10, INT_TX = 0x20, INT_RT = 0x40, INT_OE = 0x400 };
enum { DR_OE = 0x800, RSR_OE = 8 };
/* IFLS: TX in bits 2:0, RX in 5:3; 0 = 1/8 (4 entries), 2 = 1/2 (16). */
enum { IFLS_RX_EIGHTH_TX_EIGHTH = 0x00, IFLS_HALF = 0x12 };

#define CPU_HZ 96000000ull
#define UARTCLK 24000000ull
#define CHAR 640u                   /* 8N1 with IBRD = 1 */
#define TIMEOUT 2048u               /* 32 bit periods */
#define ON (CR_UARTEN | CR_TXE | CR_RXE | CR_RTS)

/* ------------------------------------------------------------------ the host */

typedef struct Host {
    DeviceHost h;
    EventQueue q;
    uint64_t now, seq;
    char out[256];
    size_t nout;
    bool line;                      /* UARTINTR */
    int rises;
    char diag[8][32];
    int ndiag;
    ConsoleInput in;
    bool give_input;
    uint64_t taken[8], taken_at[8];  /* console_taken: position, cycle */
    uint8_t taken_c[8];
    int ntaken;
    uint64_t refused;               /* console_refused: the position, UINT64_MAX for none */
} Host;

static Host H;
static Device *dev;

static void h_putc(void *o, uint8_t c)
{
    if (H.nout < sizeof H.out)
        H.out[H.nout++] = (char)c;
}
static int h_cpu_index(void *o, Cpu *c) { return 0; }
static uint64_t h_cycles(void *o, int n) { return H.now; }
static EventQueue *h_events(void *o, int n) { return &H.q; }
static void h_schedule(void *o, int n, Event *ev, uint64_t cycle) { evq_insert(&H.q, ev, cycle, H.seq++); }
static void h_schedule_last(void *o, int n, Event *ev, uint64_t cycle) { evq_insert(&H.q, ev, cycle, UINT64_MAX); }

static void h_taken(void *o, uint64_t pos, uint8_t c, int cpu, uint64_t when)
{
    if (H.ntaken < 8) {
        H.taken[H.ntaken] = pos;
        H.taken_c[H.ntaken] = c;
        H.taken_at[H.ntaken++] = when;
    }
}

static void h_refused(void *o, uint64_t pos, const char *why)
{
    H.refused = pos;
}
static uint64_t h_now(void *o, Cpu *c) { return H.now; }

static bool h_line(void *o, int n, bool level)
{
    H.rises += level && !H.line;
    H.line = level;
    return true;
}

static IrqLine h_irq(void *o, const DevDesc *dd, unsigned n)
{
    return irq_line(h_line, NULL, 0);
}

static ConsoleInput *h_input(void *o, const DevDesc *dd)
{
    return H.give_input ? &H.in : NULL;
}

static void h_diag(void *o, Cpu *c, const char *what, const char *fmt, ...)
{
    if (H.ndiag < 8)
        snprintf(H.diag[H.ndiag++], sizeof H.diag[0], "%s", what);
}

static void host_init(uint64_t cpu_hz, const char *input)
{
    memset(&H, 0, sizeof H);
    evq_init(&H.q);
    H.h = (DeviceHost){
        .opaque = &H, .arch = ARCH_ARM64, .cpu_hz = cpu_hz, .ncpus = 1, .console_out = h_putc,
        .cpu_index = h_cpu_index, .cpu_cycles = h_cycles, .cpu_events = h_events, .cpu_schedule = h_schedule,
        .now = h_now, .irq = h_irq, .console_input = h_input, .diag = h_diag, .console_taken = h_taken,
        .console_refused = h_refused, .cpu_schedule_last = h_schedule_last,
    };
    H.refused = UINT64_MAX;
    if (input) {
        H.in = (ConsoleInput){ .data = (const uint8_t *)input, .len = strlen(input), .path = "test" };
        H.give_input = true;
    }
}

static Device *make(const char *compatible, uint64_t size, uint64_t clock_hz)
{
    DevDesc dd = { .path = "/uart", .size = size, .clock_hz = clock_hz };
    snprintf(dd.compatible, sizeof dd.compatible, "%s", compatible);
    Error err = { { 0 } };
    Device *d = !strcmp(compatible, "arm,pl011") ? pl011_create(&H.h, &dd, &err) : uart16550_create(&H.h, &dd, &err);
    ck_assert_msg(d != NULL, "%s", err.msg);
    return d;
}

static void setup(void)
{
    host_init(CPU_HZ, NULL);
    dev = make("arm,pl011", 0x1000, UARTCLK);
}

static void setup_input(void)
{
    host_init(CPU_HZ, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ");
    dev = make("arm,pl011", 0x1000, UARTCLK);
}

static void teardown(void)
{
    dev->ops->destroy(dev);
    evq_destroy(&H.q);
}

/* Move the clock to t, firing each due event at its own cycle, as a CPU does. */
static void run_to(uint64_t t)
{
    while (evq_next(&H.q) <= t) {
        H.now = evq_next(&H.q);
        evq_run_due(&H.q, H.now);
    }
    H.now = t;
}

static uint32_t rd(uint64_t off) { return (uint32_t)dev->ops->read(dev, NULL, off, 4); }
static void wr(uint64_t off, uint32_t v) { dev->ops->write(dev, NULL, off, 4, v); }

static bool diagnosed(const char *what)
{
    for (int i = 0; i < H.ndiag; i++)
        if (!strcmp(H.diag[i], what))
            return true;
    return false;
}

/* 1.5 Mbaud (IBRD = 1), 8N1, FIFOs on or off, then the control register. */
static void program(bool fifo, uint32_t cr)
{
    wr(CR, 0);
    wr(IBRD, 1);
    wr(FBRD, 0);
    wr(LCRH, LCRH_WLEN8 | (fifo ? LCRH_FEN : 0));
    wr(CR, cr);
}

/* ------------------------------------------------------------------ identification, boot */

START_TEST(pl011_id_registers_are_r1p5_and_read_only)
{
    static const uint32_t id[8] = { 0x11, 0x10, 0x34, 0x00, 0x0d, 0xf0, 0x05, 0xb1 };
    for (int i = 0; i < 8; i++)
        ck_assert_uint_eq(rd(0xfe0 + 4 * i), id[i]);
    ck_assert_uint_eq(rd(0xfe8) >> 4, 3);   /* revision 3: Linux's get_fifosize_arm gives 32 */
    wr(0xfe0, 0);
    ck_assert_uint_eq(rd(0xfe0), 0x11);
    ck_assert(diagnosed("uart-read-only"));
}
END_TEST

START_TEST(pl011_boots_enabled_as_firmware_leaves_a_console)
{
    ck_assert_uint_eq(rd(CR), CR_UARTEN | CR_TXE | CR_RXE);
    ck_assert_uint_eq(rd(IFLS), IFLS_HALF);
    ck_assert_uint_eq(rd(FR), FR_TXFE | FR_RXFE | FR_CTS | FR_DSR | FR_DCD);
    ck_assert_uint_eq(rd(LCRH), 0);
    ck_assert_uint_eq(rd(IBRD), 0);
    ck_assert_uint_eq(rd(IMSC) | rd(RIS) | rd(MIS), 0);
    ck_assert(!H.line);
    ck_assert_int_eq(H.ndiag, 0);
}
END_TEST

START_TEST(pl011_unprogrammed_transmits_at_once)
{
    for (int i = 0; i < 40; i++)
        wr(DR, 'a' + i % 26);
    ck_assert_uint_eq(rd(FR) & (FR_BUSY | FR_TXFF | FR_TXFE), FR_TXFE);
    ck_assert_uint_eq(H.nout, 40);
    ck_assert_int_eq(H.ndiag, 0);
}
END_TEST

/* ------------------------------------------------------------------ transmit: FR, FIFO, TXIS */

START_TEST(pl011_fr_follows_the_transmit_fifo_fill_and_drain)
{
    program(true, ON);
    for (int i = 0; i < 33; i++)    /* one into the shift register, 32 into the FIFO */
        wr(DR, 'A' + i % 26);
    ck_assert_uint_eq(rd(FR) & (FR_BUSY | FR_TXFF | FR_TXFE), FR_BUSY | FR_TXFF);
    run_to(CHAR - 1);
    ck_assert(rd(FR) & FR_TXFF);
    run_to(CHAR);                   /* the first character is out, the next one shifts */
    ck_assert(!(rd(FR) & FR_TXFF));
    run_to(32 * CHAR - 1);
    ck_assert(!(rd(FR) & FR_TXFE));
    run_to(32 * CHAR);              /* the last one leaves the FIFO for the shift register */
    ck_assert_uint_eq(rd(FR) & (FR_BUSY | FR_TXFE), FR_BUSY | FR_TXFE);
    run_to(33 * CHAR - 1);
    ck_assert(rd(FR) & FR_BUSY);
    run_to(33 * CHAR);
    ck_assert(!(rd(FR) & FR_BUSY));
    ck_assert_uint_eq(H.nout, 33);
}
END_TEST

/* With TXIM masked the end of a character is lazy (base/clock.h): a CPU need not stop on it, and
 * the next access sees it as if it had, at its own cycle.  Unmasking TXIM makes a pending one
 * exact again: it may now change the line. */
START_TEST(pl011_lazy_end_of_character_is_caught_up_by_the_next_access)
{
    program(true, ON);
    for (int i = 0; i < 33; i++)    /* one shifting, 32 in the FIFO: TXFF */
        wr(DR, 'a' + i);
    ck_assert(evq_peek(&H.q) && evq_peek(&H.q)->lazy);
    H.now = 3 * CHAR;               /* the clock moves on; the queue is not run */
    ck_assert(!(rd(FR) & FR_TXFF)); /* the read caught up with three characters */
    ck_assert_uint_eq(evq_next(&H.q), 4 * CHAR);
    H.now = 4 * CHAR - 1;
    wr(IMSC, INT_TX);
    ck_assert(!evq_peek(&H.q)->lazy);
    ck_assert_uint_eq(evq_next(&H.q), 4 * CHAR);
    run_to(33 * CHAR);
    ck_assert(!(rd(FR) & FR_BUSY));
    ck_assert_uint_eq(H.nout, 33);
}
END_TEST

START_TEST(pl011_write_to_a_full_fifo_is_dropped_by_the_uart_but_not_the_console)
{
    program(true, ON);
    for (int i = 0; i < 34; i++)
        wr(DR, 'a' + i);
    ck_assert(diagnosed("uart-tx-full"));
    ck_assert_uint_eq(H.nout, 34);
    ck_assert_int_eq(memcmp(H.out, "abcdefghijklmnopqrstuvwxyz{|}~\x7f\x80\x81\x82", 34), 0);
    run_to(100 * CHAR);
    ck_assert(!(rd(FR) & FR_BUSY));
}
END_TEST

START_TEST(pl011_txis_rises_when_the_fifo_drains_to_its_trigger)
{
    program(true, ON);
    wr(IFLS, IFLS_RX_EIGHTH_TX_EIGHTH);     /* TX: at most 4 entries */
    wr(IMSC, INT_TX);
    ck_assert_uint_eq(rd(RIS) & INT_TX, 0); /* empty since boot: no transition, no TXIS */
    for (int i = 0; i < 10; i++)            /* 1 shifting, 9 waiting */
        wr(DR, 'x');
    run_to(5 * CHAR - 1);                   /* 5 waiting */
    ck_assert_uint_eq(rd(RIS) & INT_TX, 0);
    ck_assert(!H.line);
    run_to(5 * CHAR);                       /* 4 waiting: down to the trigger */
    ck_assert_uint_eq(rd(RIS) & INT_TX, INT_TX);
    ck_assert_uint_eq(rd(MIS), INT_TX);
    ck_assert(H.line);
    wr(DR, 'y');                            /* 5 again: above the trigger, TXIS falls */
    ck_assert_uint_eq(rd(RIS) & INT_TX, 0);
    ck_assert(!H.line);
    run_to(6 * CHAR);
    ck_assert_uint_eq(rd(RIS) & INT_TX, INT_TX);
    wr(ICR, INT_TX);                        /* cleared until the next transition */
    ck_assert_uint_eq(rd(RIS) & INT_TX, 0);
    run_to(20 * CHAR);
    ck_assert_uint_eq(rd(RIS) & INT_TX, 0);
    ck_assert_int_eq(H.rises, 2);
}
END_TEST

START_TEST(pl011_txis_without_fifos_rises_when_the_holding_register_empties)
{
    program(false, ON);
    wr(DR, '1');                            /* straight into the shift register */
    ck_assert_uint_eq(rd(RIS) & INT_TX, INT_TX);
    wr(DR, '2');                            /* holds */
    ck_assert_uint_eq(rd(RIS) & INT_TX, 0);
    ck_assert(rd(FR) & FR_TXFF);
    run_to(CHAR);
    ck_assert_uint_eq(rd(RIS) & INT_TX, INT_TX);
    ck_assert_uint_eq(rd(FR) & (FR_TXFF | FR_TXFE | FR_BUSY), FR_TXFE | FR_BUSY);
}
END_TEST

START_TEST(pl011_disabled_transmitter_holds_its_fifo_with_one_diag)
{
    program(true, 0);
    wr(DR, 'a');
    wr(DR, 'b');
    ck_assert_int_eq(H.ndiag, 1);
    ck_assert(diagnosed("uart-disabled"));
    ck_assert_uint_eq(H.nout, 2);           /* the console has them already */
    run_to(10 * CHAR);
    ck_assert_uint_eq(rd(FR) & (FR_BUSY | FR_TXFE), FR_BUSY);
    wr(CR, ON);
    ck_assert_uint_eq(H.now, 10 * CHAR);
    run_to(12 * CHAR);
    ck_assert_uint_eq(rd(FR) & (FR_BUSY | FR_TXFE), FR_TXFE);
}
END_TEST

START_TEST(pl011_baud_rate_is_latched_by_lcr_h)
{
    program(true, ON);
    wr(IBRD, 13);                           /* 115200 at 24 MHz: 13 + 1/64 */
    wr(FBRD, 1);
    wr(DR, 'a');                            /* still at IBRD 1 */
    run_to(CHAR);
    ck_assert(!(rd(FR) & FR_BUSY));
    wr(LCRH, LCRH_WLEN8 | LCRH_FEN);
    wr(DR, 'b');
    run_to(CHAR + 8330 - 1);                /* 10 bits of 16 * 833 / 64 UARTCLK, 4 cycles each */
    ck_assert(rd(FR) & FR_BUSY);
    run_to(CHAR + 8330);
    ck_assert(!(rd(FR) & FR_BUSY));
}
END_TEST

/* ------------------------------------------------------------------ interrupt registers */

START_TEST(pl011_imsc_ris_mis_icr_drive_the_line)
{
    program(false, ON);
    wr(DR, 'z');                            /* TXRIS: the holding register is empty again */
    ck_assert_uint_eq(rd(RIS), INT_TX);
    ck_assert_uint_eq(rd(MIS), 0);
    ck_assert(!H.line);
    wr(IMSC, INT_TX | INT_RX);
    ck_assert_uint_eq(rd(IMSC), INT_TX | INT_RX);
    ck_assert_uint_eq(rd(MIS), INT_TX);
    ck_assert(H.line);
    wr(IMSC, INT_RX);
    ck_assert(!H.line);
    wr(IMSC, 0xffffffff);
    ck_assert_uint_eq(rd(IMSC), 0x7ff);
    ck_assert(H.line);
    wr(ICR, 0xffff);                        /* Linux's pl011_disable_interrupts */
    ck_assert_uint_eq(rd(RIS), 0);
    ck_assert(!H.line);
    ck_assert_uint_eq(rd(ICR), 0);          /* write-only */
    ck_assert(diagnosed("uart-register"));
    wr(RIS, 0xffff);                        /* read-only */
    ck_assert_uint_eq(rd(RIS), 0);
    ck_assert(diagnosed("uart-read-only"));
}
END_TEST

/* ------------------------------------------------------------------ receive */

START_TEST(pl011_console_input_waits_for_the_receiver_and_rts)
{
    run_to(1000000);                        /* enabled since boot, but RTS is not asserted */
    ck_assert(rd(FR) & FR_RXFE);
    program(true, CR_UARTEN | CR_RXE);      /* still no RTS */
    run_to(2000000);
    ck_assert(rd(FR) & FR_RXFE);
    wr(CR, ON);
    run_to(2000000 + CHAR - 1);
    ck_assert(rd(FR) & FR_RXFE);
    run_to(2000000 + CHAR);
    ck_assert(!(rd(FR) & FR_RXFE));
    ck_assert_uint_eq(rd(DR), '0');
    ck_assert_uint_eq(rd(RSR), 0);
}
END_TEST

START_TEST(pl011_rx_fifo_fills_to_rxff_then_input_waits)
{
    program(true, ON);
    wr(IFLS, IFLS_RX_EIGHTH_TX_EIGHTH);     /* RX: at least 4 entries */
    wr(IMSC, INT_RX);
    run_to(4 * CHAR - 1);
    ck_assert_uint_eq(rd(RIS) & INT_RX, 0);
    run_to(4 * CHAR);
    ck_assert_uint_eq(rd(RIS) & INT_RX, INT_RX);
    ck_assert(H.line);
    run_to(32 * CHAR);
    ck_assert_uint_eq(rd(FR) & (FR_RXFF | FR_RXFE), FR_RXFF);
    run_to(100 * CHAR);                     /* held off: nothing lost, no overrun */
    ck_assert_uint_eq(rd(RSR) & RSR_OE, 0);
    ck_assert_uint_eq(rd(RIS) & INT_OE, 0);
    uint64_t t = 100 * CHAR + 7;
    run_to(t);
    ck_assert_uint_eq(rd(DR), '0');         /* room: the next one leaves now */
    run_to(t + CHAR - 1);
    ck_assert(!(rd(FR) & FR_RXFF));
    run_to(t + CHAR);
    ck_assert(rd(FR) & FR_RXFF);
    char got[33] = { 0 };
    for (int i = 0; i < 32; i++)
        got[i] = (char)rd(DR);
    ck_assert_str_eq(got, "123456789abcdefghijklmnopqrstuvw");
    ck_assert_uint_eq(rd(RIS) & INT_RX, 0); /* below the trigger */
}
END_TEST

START_TEST(pl011_rx_timeout_rises_32_bit_periods_after_the_last_arrival)
{
    program(true, ON);                      /* RX trigger 1/2: 16 entries, never reached here */
    wr(IMSC, INT_RT);
    run_to(2 * CHAR);                       /* two characters in */
    wr(CR, CR_UARTEN | CR_RXE | CR_TXE);    /* RTS off: nothing more comes */
    run_to(2 * CHAR + TIMEOUT - 1);
    ck_assert_uint_eq(rd(RIS) & INT_RT, 0);
    ck_assert(!H.line);
    run_to(2 * CHAR + TIMEOUT);
    ck_assert_uint_eq(rd(RIS) & INT_RT, INT_RT);
    ck_assert(H.line);
    ck_assert_uint_eq(rd(DR), '0');
    ck_assert_uint_eq(rd(RIS) & INT_RT, INT_RT);
    ck_assert_uint_eq(rd(DR), '1');         /* empty: RTIS falls */
    ck_assert_uint_eq(rd(RIS) & INT_RT, 0);
    ck_assert(!H.line);
}
END_TEST

START_TEST(pl011_rx_timeout_restarts_with_each_character)
{
    program(true, ON);
    run_to(CHAR + TIMEOUT);                 /* more characters came meanwhile, each restarting it */
    ck_assert_uint_eq(rd(RIS) & INT_RT, 0);
}
END_TEST

START_TEST(pl011_loopback_overrun_sets_oe_on_the_next_character)
{
    program(false, CR_UARTEN | CR_TXE | CR_RXE | CR_LBE);
    wr(DR, 'a');
    run_to(CHAR);                           /* 'a' looped back into the holding register */
    wr(DR, 'b');
    run_to(2 * CHAR);                       /* 'b' finds it full: overrun */
    ck_assert_uint_eq(rd(RIS) & INT_OE, INT_OE);
    ck_assert_uint_eq(rd(DR), 'a');
    ck_assert_uint_eq(rd(RSR), RSR_OE);     /* sticky until ECR */
    wr(DR, 'c');
    run_to(3 * CHAR);
    ck_assert_uint_eq(rd(DR), 'c' | DR_OE);
    wr(RSR, 0);                             /* ECR */
    ck_assert_uint_eq(rd(RSR), 0);
    wr(DR, 'd');
    run_to(4 * CHAR);
    ck_assert_uint_eq(rd(DR), 'd');         /* only the first one after the overrun */
    ck_assert_uint_eq(rd(RSR), 0);
    rd(DR);
    ck_assert(diagnosed("uart-rx-empty"));
    ck_assert_str_eq(H.out, "abcd");        /* the console saw them all */
}
END_TEST

/* ------------------------------------------------------------------ accesses, checkpoints */

START_TEST(pl011_narrow_accesses_reach_the_register)
{
    program(true, ON);
    dev->ops->write(dev, NULL, DR, 1, 'q');
    ck_assert_uint_eq(dev->ops->read(dev, NULL, FR, 2), FR_BUSY | FR_TXFE | FR_CTS | FR_DSR | FR_DCD | FR_RXFE);
    ck_assert_uint_eq(dev->ops->read(dev, NULL, 0xfe8, 1), 0x34);
    ck_assert_uint_eq(dev->ops->read(dev, NULL, CR + 1, 1), (ON >> 8) & 0xff);
    ck_assert_int_eq(H.ndiag, 0);
    dev->ops->write(dev, NULL, CR + 1, 1, 0);
    ck_assert_uint_eq(rd(CR), ON);
    ck_assert(diagnosed("uart-access"));
}
END_TEST

START_TEST(pl011_checkpoint_continues_the_transfer)
{
    program(true, ON);
    wr(IMSC, INT_RT | INT_RX);
    wr(DR, 'a');
    wr(DR, 'b');
    run_to(CHAR + 100);
    Blob b;
    blob_init(&b);
    dev->ops->save(dev, &b);
    uint32_t fr = rd(FR), ris = rd(RIS);
    dev->ops->destroy(dev);                 /* its events leave the queue */
    dev = make("arm,pl011", 0x1000, UARTCLK);
    BlobReader r;
    br_init(&r, b.data, b.len, 0);
    ck_assert(dev->ops->load(dev, &r));
    blob_free(&b);
    ck_assert_uint_eq(rd(FR), fr);
    ck_assert_uint_eq(rd(RIS), ris);
    run_to(2 * CHAR);                       /* 'b' out; the second input character in */
    ck_assert(!(rd(FR) & FR_BUSY));
    ck_assert_uint_eq(rd(DR), '0');
    ck_assert_uint_eq(rd(DR), '1');
    ck_assert_uint_eq(rd(FR) & FR_RXFE, FR_RXFE);
}
END_TEST

/* A checkpoint of the model before the FIFOs (version 1: the eight registers, which did nothing:
 * every byte was transmitted) goes on transmitting whatever its CR said. */
START_TEST(pl011_loads_a_version_1_section)
{
    static const uint32_t v1[8] = { 0x12, 13, 1, LCRH_WLEN8, 0, 0x24, INT_RX, 0 }; /* ILPR..DMACR */
    Blob b;
    blob_init(&b);
    size_t at = blob_begin(&b, "/uart", 1);
    for (int i = 0; i < 8; i++)
        blob_u32(&b, v1[i]);
    blob_end(&b, at);
    BlobReader r;
    br_init(&r, b.data, b.len, 0);
    ck_assert(dev->ops->load(dev, &r));
    blob_free(&b);
    ck_assert_uint_eq(rd(IBRD), 13);
    ck_assert_uint_eq(rd(IFLS), 0x24);
    ck_assert_uint_eq(rd(IMSC), INT_RX);
    ck_assert_uint_eq(rd(CR), CR_UARTEN | CR_TXE | CR_RXE);
    wr(DR, '!');
    ck_assert_int_eq(H.ndiag, 0);
    ck_assert_uint_eq(rd(FR) & FR_BUSY, 0);     /* no divisor latched: at once, as before */
    ck_assert_str_eq(H.out, "!");
}
END_TEST

/* ------------------------------------------------------------------ the 16550's receiver */

enum { RBR = 0, IER = 1, IIR = 2, FCR = 2, LCR = 3, MCR = 4, LSR = 5, MSR = 6 };
enum { LSR_DR = 1, LSR_THRE = 0x20, LSR_TEMT = 0x40, MCR_RTS = 2, MCR_OUT2 = 8, MCR_LOOP = 0x10, LCR_DLAB = 0x80,
       LCR_8N1 = 3 };
#define UART_CHAR 1600u             /* 8N1 at divisor 1 of 1.8432 MHz, CPU at 18.432 MHz */

static void setup_16550(void)
{
    host_init(18432000, "hello");
    dev = make("ns16550a", 8, 0);
}

static uint8_t in8(uint64_t off) { return (uint8_t)dev->ops->read(dev, NULL, off, 1); }
static void out8(uint64_t off, uint8_t v) { dev->ops->write(dev, NULL, off, 1, v); }

START_TEST(uart16550_receives_console_input_with_rts)
{
    out8(LCR, LCR_DLAB | LCR_8N1);
    out8(RBR, 1);                           /* DLL: 115200 baud */
    out8(LCR, LCR_8N1);
    ck_assert_uint_eq(in8(LSR), LSR_THRE | LSR_TEMT);
    ck_assert_uint_eq(in8(MSR), 0xb0);
    run_to(100000);
    ck_assert_uint_eq(in8(LSR) & LSR_DR, 0); /* MCR.RTS not set: held off */
    out8(MCR, MCR_RTS);
    run_to(100000 + UART_CHAR - 1);
    ck_assert_uint_eq(in8(LSR) & LSR_DR, 0);
    run_to(100000 + UART_CHAR);
    ck_assert_uint_eq(in8(LSR) & LSR_DR, LSR_DR);
    run_to(100000 + 10 * UART_CHAR);        /* no FIFO: one byte held, the rest waits */
    ck_assert_uint_eq(in8(RBR), 'h');
    ck_assert_uint_eq(in8(LSR) & LSR_DR, 0);
    out8(FCR, 1);                           /* 16-byte FIFO */
    uint64_t t = H.now;
    run_to(t + 4 * UART_CHAR);
    char got[5] = { 0 };
    for (int i = 0; i < 4; i++)
        got[i] = (char)in8(RBR);
    ck_assert_str_eq(got, "ello");
    ck_assert_uint_eq(in8(LSR) & LSR_DR, 0);
}
END_TEST

START_TEST(uart16550_loopback_and_fifo_reset)
{
    out8(MCR, MCR_RTS | MCR_LOOP);
    run_to(10000000);
    ck_assert_uint_eq(in8(LSR) & LSR_DR, 0); /* loopback: the line is disconnected */
    out8(MCR, MCR_RTS);
    out8(FCR, 1);
    run_to(H.now + 3 * 1600);               /* unprogrammed divisor: 115200 baud */
    ck_assert_uint_eq(in8(LSR) & LSR_DR, LSR_DR);
    out8(FCR, 1 | 2);                       /* clear the receive FIFO */
    ck_assert_uint_eq(in8(LSR) & LSR_DR, 0);
    ck_assert_uint_eq(in8(RBR), 0);
}
END_TEST

/* IER/IIR (PC16550D table IV): THR empty, received data at the FIFO's trigger, the character
 * timeout four character times after the last arrival or read, the output gated by OUT2. */
START_TEST(uart16550_interrupts_follow_ier_iir_and_out2)
{
    out8(LCR, LCR_DLAB | LCR_8N1);
    out8(RBR, 1);
    out8(LCR, LCR_8N1);
    ck_assert_uint_eq(in8(IIR), 0x01);
    out8(IER, 0x02);                        /* ETBEI with THR empty: pending at once */
    ck_assert(!H.line);                     /* OUT2 clear: the PC's gate holds the line */
    out8(MCR, MCR_OUT2);
    ck_assert(H.line);
    ck_assert_uint_eq(in8(IIR), 0x02);      /* reported: cleared */
    ck_assert(!H.line);
    ck_assert_uint_eq(in8(IIR), 0x01);
    out8(RBR, 'x');                         /* THR written, sent at once: empty again */
    ck_assert(H.line);
    out8(IER, 0);
    ck_assert(!H.line);
    out8(FCR, 0x41);                        /* FIFOs, receive trigger 4 */
    out8(IER, 0x01);
    uint64_t t = H.now;
    out8(MCR, MCR_OUT2 | MCR_RTS);          /* "hello" arrives a character time apart */
    run_to(t + 3 * UART_CHAR);
    ck_assert(!H.line);
    run_to(t + 4 * UART_CHAR);
    ck_assert(H.line);
    ck_assert_uint_eq(in8(IIR), 0xc4);      /* received data available */
    ck_assert_uint_eq(in8(RBR), 'h');
    ck_assert(!H.line);                     /* below the trigger */
    run_to(t + 5 * UART_CHAR);              /* 'o': four bytes again */
    ck_assert(H.line);
    ck_assert_uint_eq(in8(RBR), 'e');
    ck_assert(!H.line);
    run_to(t + 9 * UART_CHAR - 1);          /* the timeout: 4 characters after the read at 5 */
    ck_assert(!H.line);
    run_to(t + 9 * UART_CHAR);
    ck_assert(H.line);
    ck_assert_uint_eq(in8(IIR), 0xcc);
    ck_assert_uint_eq(in8(RBR), 'l');       /* a read ends it */
    ck_assert(!H.line);
    out8(MCR, MCR_RTS);
    run_to(t + 20 * UART_CHAR);
    ck_assert_uint_eq(in8(IIR), 0xcc);      /* pending, but OUT2 holds the line */
    ck_assert(!H.line);
}
END_TEST

/* ------------------------------------------------------------------ on the board */

/* The board's PL011 (interrupts = <0 1 4>) drives the GIC's SPI 1, INTID 33, as a level. */
START_TEST(pl011_uartintr_is_the_gic_spi_1_on_the_board)
{
    Machine *m = tm_create(ARCH_ARM64, blob_arm64_exc, blob_arm64_exc_len, 0x40080000, 0x40080000, 0, 1);
    Device *u = NULL;
    for (int i = 0; i < m->ndevs; i++)
        if (!strcmp(m->devs[i]->name, "/pl011@9000000"))
            u = m->devs[i];
    ck_assert(u != NULL && m->cl.gic != NULL);
    Cpu *c = m->cl.cpus[0];
    const GicIrq *spi = gic_irq(m->cl.gic, 0, 33);
    u->ops->write(u, c, IMSC, 4, INT_TX);
    ck_assert(!gic_pending(spi));
    u->ops->write(u, c, DR, 4, 'x');        /* no FIFOs, no divisor: sent at once, TXIS */
    ck_assert_uint_eq(u->ops->read(u, c, MIS, 4), INT_TX);
    ck_assert(gic_pending(spi));
    u->ops->write(u, c, ICR, 4, INT_TX);
    ck_assert(!gic_pending(spi));
    ck_assert(!gic_pending(gic_irq(m->cl.gic, 0, 32)));
    ck_assert(!gic_pending(gic_irq(m->cl.gic, 0, 34)));
    tm_destroy(m);
}
END_TEST

/* ------------------------------------------------------------------ live input, replay, record */

START_TEST(pl011_console_input_taken_is_heard_with_its_cycle)
{
    program(true, ON);
    run_to(3 * CHAR);
    ck_assert_int_eq(H.ntaken, 3);
    for (int i = 0; i < 3; i++) {
        ck_assert_uint_eq(H.taken[i], i);
        ck_assert_uint_eq(H.taken_c[i], '0' + i);
        ck_assert_uint_eq(H.taken_at[i], (i + 1) * CHAR);
    }
}
END_TEST

/* A live input grows between quanta: nothing leaves until the machine says more came. */
START_TEST(pl011_live_input_leaves_when_more_came)
{
    static uint8_t buf[4];
    host_init(CPU_HZ, NULL);
    H.in = (ConsoleInput){ .data = buf, .path = "live", .live = true };
    H.give_input = true;
    dev = make("arm,pl011", 0x1000, UARTCLK);
    program(true, ON);
    run_to(100000);
    ck_assert(rd(FR) & FR_RXFE);
    memcpy(buf, "ok", 2);
    H.in.len = 2;
    uartrx_more(H.in.rx);
    run_to(100000 + CHAR - 1);
    ck_assert(rd(FR) & FR_RXFE);
    run_to(100000 + 2 * CHAR);
    ck_assert_uint_eq(rd(DR), 'o');
    ck_assert_uint_eq(rd(DR), 'k');
}
END_TEST

/* --replay: each byte at its logged cycle, whatever the receiver's reads would have made of it. */
static const uint8_t replay_bytes[] = { 'x', 'y', 'z' };
static const uint64_t replay_at[] = { 5000, 5700, 90000 };
static const uint16_t replay_cpu[] = { 0, 0, 0 };

static void setup_replay(void)
{
    host_init(CPU_HZ, NULL);
    H.in = (ConsoleInput){ .data = replay_bytes, .len = 3, .path = "log", .at = replay_at, .cpu = replay_cpu };
    H.give_input = true;
    dev = make("arm,pl011", 0x1000, UARTCLK);
}

START_TEST(pl011_replay_delivers_each_byte_at_its_logged_cycle)
{
    program(true, ON);
    uartrx_more(H.in.rx);
    run_to(4999);
    ck_assert(rd(FR) & FR_RXFE);
    run_to(5000);
    ck_assert_uint_eq(rd(DR), 'x');         /* a read makes room: a paced input would send now */
    run_to(5699);
    ck_assert(rd(FR) & FR_RXFE);
    run_to(89999);
    ck_assert_uint_eq(rd(DR), 'y');
    ck_assert(rd(FR) & FR_RXFE);
    run_to(90000);
    ck_assert_uint_eq(rd(DR), 'z');
    ck_assert_uint_eq(H.taken_at[1], 5700);
    ck_assert_uint_eq(H.refused, UINT64_MAX);
}
END_TEST

START_TEST(pl011_replay_refused_where_the_receiver_cannot_take_it)
{
    program(true, CR_UARTEN | CR_RXE);      /* no RTS at the first byte's cycle */
    uartrx_more(H.in.rx);
    run_to(6000);
    ck_assert_uint_eq(H.refused, 0);
    ck_assert(rd(FR) & FR_RXFE);
    ck_assert_int_eq(H.ntaken, 0);
}
END_TEST

START_TEST(pl011_replay_refused_when_its_cycle_has_passed)
{
    program(true, ON);
    run_to(6000);
    uartrx_more(H.in.rx);                   /* started after the first byte's cycle */
    ck_assert_uint_eq(H.refused, 0);
}
END_TEST

static Suite *uart_suite(void)
{
    Suite *s = suite_create("uart");
    TCase *t = tcase_create("pl011");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, pl011_id_registers_are_r1p5_and_read_only);
    tcase_add_test(t, pl011_boots_enabled_as_firmware_leaves_a_console);
    tcase_add_test(t, pl011_unprogrammed_transmits_at_once);
    tcase_add_test(t, pl011_fr_follows_the_transmit_fifo_fill_and_drain);
    tcase_add_test(t, pl011_lazy_end_of_character_is_caught_up_by_the_next_access);
    tcase_add_test(t, pl011_write_to_a_full_fifo_is_dropped_by_the_uart_but_not_the_console);
    tcase_add_test(t, pl011_txis_rises_when_the_fifo_drains_to_its_trigger);
    tcase_add_test(t, pl011_txis_without_fifos_rises_when_the_holding_register_empties);
    tcase_add_test(t, pl011_disabled_transmitter_holds_its_fifo_with_one_diag);
    tcase_add_test(t, pl011_baud_rate_is_latched_by_lcr_h);
    tcase_add_test(t, pl011_imsc_ris_mis_icr_drive_the_line);
    tcase_add_test(t, pl011_loopback_overrun_sets_oe_on_the_next_character);
    tcase_add_test(t, pl011_narrow_accesses_reach_the_register);
    tcase_add_test(t, pl011_loads_a_version_1_section);
    suite_add_tcase(s, t);
    TCase *rx = tcase_create("pl011-rx");
    tcase_add_checked_fixture(rx, setup_input, teardown);
    tcase_add_test(rx, pl011_console_input_waits_for_the_receiver_and_rts);
    tcase_add_test(rx, pl011_rx_fifo_fills_to_rxff_then_input_waits);
    tcase_add_test(rx, pl011_rx_timeout_rises_32_bit_periods_after_the_last_arrival);
    tcase_add_test(rx, pl011_rx_timeout_restarts_with_each_character);
    tcase_add_test(rx, pl011_checkpoint_continues_the_transfer);
    tcase_add_test(rx, pl011_console_input_taken_is_heard_with_its_cycle);
    suite_add_tcase(s, rx);
    TCase *live = tcase_create("pl011-live");
    tcase_add_checked_fixture(live, NULL, teardown);
    tcase_add_test(live, pl011_live_input_leaves_when_more_came);
    suite_add_tcase(s, live);
    TCase *rp = tcase_create("pl011-replay");
    tcase_add_checked_fixture(rp, setup_replay, teardown);
    tcase_add_test(rp, pl011_replay_delivers_each_byte_at_its_logged_cycle);
    tcase_add_test(rp, pl011_replay_refused_where_the_receiver_cannot_take_it);
    tcase_add_test(rp, pl011_replay_refused_when_its_cycle_has_passed);
    suite_add_tcase(s, rp);
    TCase *u = tcase_create("16550");
    tcase_add_checked_fixture(u, setup_16550, teardown);
    tcase_add_test(u, uart16550_receives_console_input_with_rts);
    tcase_add_test(u, uart16550_loopback_and_fifo_reset);
    tcase_add_test(u, uart16550_interrupts_follow_ier_iir_and_out2);
    suite_add_tcase(s, u);
    TCase *b = tcase_create("board");
    tcase_add_test(b, pl011_uartintr_is_the_gic_spi_1_on_the_board);
    suite_add_tcase(s, b);
    return s;
}

int main(void)
{
    return testutil_run(uart_suite());
}
