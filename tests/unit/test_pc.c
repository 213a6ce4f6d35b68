/* test_pc.c — the PC's interrupt and timer hardware on the built-in x86_64 board: the I/O APIC's
 * registers, its edge and level entries (Remote IRR, the local APIC's EOI broadcast, the EOI
 * register), the 8259A pair programmed as Linux programs it (ICWs, OCW2 EOIs, OCW3 ISR reads,
 * the cascade, ELCR, the spurious IR7, the INTR on LINT0 and the ExtINT acknowledge), the 8254's
 * modes on the exact cycle of their ticks (1193182 Hz against the 2 GHz CPU clock), its latch,
 * read-back and port 0x61, the MC146818's clock, and every device's checkpoint round trip.  The
 * machine does not run (the tests set CPU 0's clock and fire its events), except two fixture
 * guests (tests/unit/blobs/x86_64_pit.s) whose handlers take the PIT's interrupt through the I/O
 * APIC and through the 8259A. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu/x86_64.h"
#include "sim/checkpoint.h"
#include "sim/dev/pc.h"
#include "testutil.h"

#define HZ 2000000000ull            /* the board's cpu@0 clock-frequency */
#define PIT_HZ 1193182ull

enum { SVR = 0xf0, EOI = 0xb0, IRR = 0x200, TMR = 0x180, ISR = 0x100 };

static Machine *m;

static void setup(void)
{
    m = tm_create(ARCH_X86_64, blob_x86_64_exc, blob_x86_64_exc_len, 0x100000, 0x100000, 0, 2);
    for (int i = 0; i < m->cl.ncpus; i++)
        m->cl.cpus[i]->state = CPU_RUNNING;
}

static void teardown(void)
{
    tm_destroy(m);
}

static Device *dev(const char *path)
{
    for (int i = 0; i < m->ndevs; i++)
        if (!strcmp(m->devs[i]->name, path))
            return m->devs[i];
    ck_abort_msg("no device %s", path);
    return NULL;
}

static Cpu *cpu0(void)
{
    return m->cl.cpus[0];
}

static void run_to(uint64_t t)
{
    cpu0()->cycles = t;
    evq_run_due(&cpu0()->events, t);
}

/* Port I/O as CPU 0 at its current cycle. */
static void outb(uint16_t port, uint8_t v)
{
    mach_io_write(m, cpu0(), port, 1, v);
}

static uint8_t inb(uint16_t port)
{
    return (uint8_t)mach_io_read(m, cpu0(), port, 1);
}

static Device *ioapic(void) { return dev("/interrupt-controller@fec00000"); }
static Device *pic(void) { return dev("/isa/interrupt-controller@i20"); }

static uint32_t io_rd(uint32_t reg)
{
    Device *d = ioapic();
    d->ops->write(d, cpu0(), 0x00, 4, reg);
    return (uint32_t)d->ops->read(d, cpu0(), 0x10, 4);
}

static void io_wr(uint32_t reg, uint32_t v)
{
    Device *d = ioapic();
    d->ops->write(d, cpu0(), 0x00, 4, reg);
    d->ops->write(d, cpu0(), 0x10, 4, v);
}

static Lapic *apic(int n)
{
    return vcpu_x86_lapic(m->cl.cpus[n]);
}

static bool apic_bit(int n, unsigned bank, unsigned v)
{
    return lapic_read(apic(n), 0, bank + 0x10 * (v / 32), 4) >> (v % 32) & 1;
}

static void apic_on(int n)
{
    lapic_write(apic(n), 0, SVR, 4, 0x1ff);
}

/* The cycle of PIT tick k: ceil(k * HZ / PIT_HZ). */
static uint64_t tick_cycle(uint64_t k)
{
    return (k * HZ + PIT_HZ - 1) / PIT_HZ;
}

/* The tick at or before cycle c. */
static uint64_t tick_of(uint64_t c)
{
    return (uint64_t)((unsigned __int128)c * PIT_HZ / HZ);
}

static void pit_program(unsigned ch, uint8_t cw, uint16_t count)
{
    outb(0x43, cw);
    outb((uint16_t)(0x40 + ch), count & 0xff);
    outb((uint16_t)(0x40 + ch), count >> 8);
}

/* A control word for mode 2 or 3 sets OUT high (8254 data sheet, "Mode 2"): channel 0's first
 * rising edge, from the reset's low OUT, is the write itself.  Take it. */
static void take_first_edge(unsigned vector)
{
    ck_assert(apic_bit(0, IRR, vector));
    ck_assert_int_eq(lapic_take_irq(apic(0)), (int)vector);
    lapic_write(apic(0), 0, EOI, 4, 0);
}

/* ------------------------------------------------------------------ the I/O APIC */

START_TEST(ioapic_registers_are_the_82093aa_s)
{
    ck_assert_uint_eq(io_rd(0x01), 0x00170020);         /* 24 entries, version 0x20 */
    ck_assert_uint_eq(io_rd(0x00), 0);
    io_wr(0x00, 0xffffffff);
    ck_assert_uint_eq(io_rd(0x00), 0x0f000000);         /* ID [27:24] */
    ck_assert_uint_eq(io_rd(0x02), 0x0f000000);         /* arbitration ID */
    io_wr(0x01, 0);
    ck_assert_uint_eq(io_rd(0x01), 0x00170020);         /* read-only */
    for (unsigned pin = 0; pin < IOAPIC_PINS; pin++) {
        ck_assert_uint_eq(io_rd(0x10 + 2 * pin), 0x10000);  /* masked at reset */
        ck_assert_uint_eq(io_rd(0x11 + 2 * pin), 0);
    }
    io_wr(0x10, 0xffffffff);
    ck_assert_uint_eq(io_rd(0x10), 0x1afff);           /* delivery status, Remote IRR read-only */
    io_wr(0x11, 0xffffffff);
    ck_assert_uint_eq(io_rd(0x11), 0xff000000);         /* destination [63:56] */
}
END_TEST

START_TEST(pit_irq0_reaches_the_apic_through_pin_2_on_its_tick)
{
    apic_on(0);
    io_wr(0x14, 0x31);                                  /* pin 2: vector 0x31, edge, unmasked */
    io_wr(0x15, 0);
    outb(0x21, 0xff);
    run_to(12345);
    pit_program(0, 0x34, 100);                          /* mode 2, 100 ticks */
    take_first_edge(0x31);
    uint64_t load = tick_of(12345) + 1;
    for (int k = 1; k <= 3; k++) {
        uint64_t edge = tick_cycle(load + 100 * (uint64_t)k);
        run_to(edge - 1);
        ck_assert(!apic_bit(0, IRR, 0x31));
        run_to(edge);
        ck_assert_msg(apic_bit(0, IRR, 0x31), "period %d: not at cycle %llu", k, (unsigned long long)edge);
        ck_assert(!apic_bit(1, IRR, 0x31));             /* physical destination 0 only */
        ck_assert_int_eq(lapic_take_irq(apic(0)), 0x31);
        lapic_write(apic(0), 0, EOI, 4, 0);
    }
    ck_assert(!cpu0()->pins.irq);                       /* the masked PIC stays quiet */
}
END_TEST

START_TEST(level_entries_wait_for_the_eoi_broadcast)
{
    apic_on(0);
    io_wr(0x1a, 0x8040);                                /* pin 5: vector 0x40, level, unmasked */
    IrqLine in = ioapic_input(ioapic(), 5);
    irq_raise(&in);
    ck_assert(apic_bit(0, IRR, 0x40) && apic_bit(0, TMR, 0x40));
    ck_assert_uint_eq(io_rd(0x1a) & 0x4000, 0x4000);    /* Remote IRR */
    ck_assert_int_eq(lapic_take_irq(apic(0)), 0x40);
    ck_assert(!apic_bit(0, IRR, 0x40));
    lapic_write(apic(0), 0, EOI, 4, 0);                 /* broadcast: still asserted, so again */
    ck_assert(apic_bit(0, IRR, 0x40));
    ck_assert_uint_eq(io_rd(0x1a) & 0x4000, 0x4000);
    irq_lower(&in);
    ck_assert_int_eq(lapic_take_irq(apic(0)), 0x40);
    lapic_write(apic(0), 0, EOI, 4, 0);
    ck_assert_uint_eq(io_rd(0x1a) & 0x4000, 0);
    ck_assert(!apic_bit(0, IRR, 0x40) && !apic_bit(0, TMR, 0x40));
    irq_raise(&in);                                     /* the EOI register (version 0x20) */
    ck_assert_int_eq(lapic_take_irq(apic(0)), 0x40);
    ioapic()->ops->write(ioapic(), cpu0(), 0x40, 4, 0x40);
    ck_assert_uint_eq(io_rd(0x1a) & 0x4000, 0x4000);    /* asserted: sent again at once */
    ck_assert(apic_bit(0, IRR, 0x40));
}
END_TEST

START_TEST(masked_edges_are_lost_and_active_low_inverts)
{
    apic_on(0);
    io_wr(0x1c, 0x10050);                               /* pin 6 masked */
    IrqLine in = ioapic_input(ioapic(), 6);
    irq_pulse(&in);
    io_wr(0x1c, 0x50);
    ck_assert(!apic_bit(0, IRR, 0x50));
    io_wr(0x1c, 0x2050);                                /* active low: the falling edge asserts */
    irq_raise(&in);
    ck_assert(!apic_bit(0, IRR, 0x50));
    irq_lower(&in);
    ck_assert(apic_bit(0, IRR, 0x50));
}
END_TEST

START_TEST(messages_find_their_destinations)
{
    apic_on(0);
    apic_on(1);
    io_wr(0x1e, 0x51);                                  /* pin 7 -> APIC ID 1, physical */
    io_wr(0x1f, 1u << 24);
    IrqLine in = ioapic_input(ioapic(), 7);
    irq_pulse(&in);
    ck_assert(apic_bit(1, IRR, 0x51) && !apic_bit(0, IRR, 0x51));
    lapic_write(apic(0), 0, 0xd0, 4, 1u << 24);         /* LDR: logical 1 and 2 (flat) */
    lapic_write(apic(1), 0, 0xd0, 4, 2u << 24);
    io_wr(0x1e, 0x852);                                 /* logical, destination 3: both */
    io_wr(0x1f, 3u << 24);
    irq_pulse(&in);
    ck_assert(apic_bit(0, IRR, 0x52) && apic_bit(1, IRR, 0x52));
    lapic_write(apic(0), 0, 0x80, 4, 0x20);             /* TPR: CPU 1 is the lowest priority */
    io_wr(0x1e, 0x953);                                 /* lowest priority, logical 3 */
    irq_pulse(&in);
    ck_assert(!apic_bit(0, IRR, 0x53) && apic_bit(1, IRR, 0x53));
    io_wr(0x1e, 0x400);                                 /* NMI to APIC ID 1 */
    io_wr(0x1f, 1u << 24);
    cpu0()->pins.nmi = m->cl.cpus[1]->pins.nmi = false;
    irq_pulse(&in);
    ck_assert(m->cl.cpus[1]->pins.nmi && !cpu0()->pins.nmi);
}
END_TEST

/* ------------------------------------------------------------------ the 8259A pair */

/* Linux's init_8259A(0): vectors 0x30 and 0x38, the cascade on IR2, 8086 mode. */
static void linux_init_8259a(uint8_t icw4)
{
    outb(0x21, 0xff);
    outb(0xa1, 0xff);
    outb(0x20, 0x11);
    outb(0x21, 0x30);
    outb(0x21, 0x04);
    outb(0x21, icw4);
    outb(0xa0, 0x11);
    outb(0xa1, 0x38);
    outb(0xa1, 0x02);
    outb(0xa1, 0x01);
}

START_TEST(pic_starts_initialised_and_masked)
{
    ck_assert_uint_eq(inb(0x21), 0xfb);
    ck_assert_uint_eq(inb(0xa1), 0xff);
    IrqLine irq1 = i8259_input(pic(), 1);
    irq_raise(&irq1);
    ck_assert(!cpu0()->pins.irq);
    ck_assert_uint_eq(inb(0x20), 0x02);                 /* IRR shows it */
    outb(0x21, 0xfd);
    ck_assert(cpu0()->pins.irq);                        /* LINT0, ExtINT: the virtual wire */
    ck_assert_int_eq(lapic_take_irq(apic(0)), 0x09);    /* the firmware's base 0x08 */
}
END_TEST

START_TEST(pic_irq0_through_lint0_as_linux_drives_it)
{
    linux_init_8259a(0x01);
    outb(0x21, 0xfe);
    pit_program(0, 0x34, 50);
    ck_assert_int_eq(lapic_take_irq(apic(0)), 0x30);    /* the control word's edge */
    outb(0x20, 0x20);
    uint64_t edge = tick_cycle(tick_of(0) + 1 + 50);
    run_to(edge - 1);
    ck_assert(!cpu0()->pins.irq);
    run_to(edge);
    ck_assert(cpu0()->pins.irq);
    ck_assert_int_eq(lapic_take_irq(apic(0)), 0x30);
    ck_assert(!cpu0()->pins.irq);
    outb(0x20, 0x0b);                                   /* OCW3: ISR */
    ck_assert_uint_eq(inb(0x20), 0x01);
    outb(0x20, 0x60);                                   /* specific EOI, IR0 */
    ck_assert_uint_eq(inb(0x20), 0x00);
    outb(0x20, 0x0a);
    outb(0x21, 0xff);                                   /* masked: the next edges are silent */
    run_to(tick_cycle(tick_of(0) + 1 + 500));
    ck_assert(!cpu0()->pins.irq);
    ck_assert_uint_eq(inb(0x20) & 1, 1);                /* latched in IRR all the same */
}
END_TEST

START_TEST(pic_cascade_priorities_and_eois)
{
    linux_init_8259a(0x01);
    outb(0x21, 0x00);
    outb(0xa1, 0x00);
    IrqLine irq3 = i8259_input(pic(), 3), irq12 = i8259_input(pic(), 12);
    irq_raise(&irq12);
    irq_raise(&irq3);
    ck_assert_int_eq(lapic_take_irq(apic(0)), 0x3c);    /* IR2 (the slave) above IR3 */
    ck_assert(!cpu0()->pins.irq);                       /* IR3 waits behind the in-service IR2 */
    outb(0xa0, 0x20);                                   /* non-specific EOI: slave, then master */
    outb(0x20, 0x20);
    ck_assert(cpu0()->pins.irq);
    ck_assert_int_eq(lapic_take_irq(apic(0)), 0x33);
    outb(0x20, 0x0b);
    ck_assert_uint_eq(inb(0x20), 0x08);
    outb(0x20, 0x20);
    ck_assert_uint_eq(inb(0x20), 0x00);
    IrqLine irq5 = i8259_input(pic(), 5);               /* a request gone before the acknowledge */
    outb(0x4d0, 0x20);                                  /* ELCR: IRQ 5 level-triggered */
    ck_assert_uint_eq(inb(0x4d0), 0x20);
    irq_raise(&irq5);
    ck_assert(cpu0()->pins.irq);
    irq_lower(&irq5);
    ck_assert(!cpu0()->pins.irq);
    irq_raise(&irq5);
    outb(0x21, 0x20);                                   /* masked after INTR rose */
    ck_assert_int_eq(i8259_intack(pic()), 0x37);        /* IR7's vector: spurious, no ISR */
    outb(0x20, 0x0b);
    ck_assert_uint_eq(inb(0x20), 0x00);
    outb(0x4d0, 0xff);
    ck_assert_uint_eq(inb(0x4d0), 0xf8);                /* IRQs 0-2 are edge-only */
}
END_TEST

START_TEST(pic_auto_eoi_and_poll)
{
    linux_init_8259a(0x03);                             /* AEOI: check_timer's init(1) */
    outb(0x21, 0xfe);
    IrqLine irq0 = i8259_input(pic(), 0);
    irq_raise(&irq0);
    ck_assert_int_eq(lapic_take_irq(apic(0)), 0x30);
    outb(0x20, 0x0b);
    ck_assert_uint_eq(inb(0x20), 0x00);                 /* no ISR bit in AEOI mode */
    irq_lower(&irq0);
    irq_raise(&irq0);
    outb(0x20, 0x0c);                                   /* poll */
    ck_assert_uint_eq(inb(0x20), 0x80);
    ck_assert(!cpu0()->pins.irq);
}
END_TEST

/* ------------------------------------------------------------------ the 8254 */

START_TEST(pit_mode0_on_channel_2_is_linux_s_calibration)
{
    /* arch/x86/kernel/tsc.c pit_calibrate_tsc: gate high, speaker off, mode 0, 10 ms */
    run_to(1000);
    outb(0x61, (uint8_t)((inb(0x61) & ~0x02) | 0x01));
    pit_program(2, 0xb0, 11931);
    uint64_t out = tick_cycle(tick_of(1000) + 1 + 11931);
    run_to(out - 1);
    ck_assert_uint_eq(inb(0x61) & 0x20, 0);
    run_to(out);
    ck_assert_uint_eq(inb(0x61) & 0x21, 0x21);
    ck_assert_uint_eq(out, 20000302);                   /* tick 11932 at 11932 * 2e9 / 1193182 = 20000301.7 */
}
END_TEST

START_TEST(pit_counts_latches_and_reads_back)
{
    pit_program(2, 0xb4, 1000);                         /* mode 2 on channel 2, gate low */
    run_to(tick_cycle(100));
    ck_assert_uint_eq(inb(0x42) | inb(0x42) << 8, 1000);   /* held by the gate */
    outb(0x61, 0x01);
    uint64_t t0 = tick_of(cpu0()->cycles) + 1;
    run_to(tick_cycle(t0 + 10));
    ck_assert_uint_eq(inb(0x42) | inb(0x42) << 8, 990);
    outb(0x43, 0x80);                                   /* counter latch */
    run_to(tick_cycle(t0 + 20));
    ck_assert_uint_eq(inb(0x42), 990 & 0xff);
    ck_assert_uint_eq(inb(0x42), 990 >> 8);
    ck_assert_uint_eq(inb(0x42) | inb(0x42) << 8, 980);   /* unlatched again */
    outb(0x43, 0xc8);                                   /* read-back: count and status, ch 2 */
    ck_assert_uint_eq(inb(0x42), 0x80 | 0x34);          /* OUT high, access 3, mode 2 */
    ck_assert_uint_eq(inb(0x42) | inb(0x42) << 8, 980);
    run_to(tick_cycle(t0 + 999));                       /* count 1: OUT low for one tick */
    ck_assert_uint_eq(inb(0x61) & 0x20, 0);
    run_to(tick_cycle(t0 + 1000));
    ck_assert_uint_eq(inb(0x61) & 0x20, 0x20);
    ck_assert_uint_eq(inb(0x42) | inb(0x42) << 8, 1000);  /* reloaded */
    outb(0x43, 0x96);                                   /* LSB only, mode 3, channel 2 */
    outb(0x42, 0x10);
    ck_assert_uint_eq(inb(0x42), 0x10);
    unsigned r0 = inb(0x61) & 0x10;                     /* the refresh toggle: every 18 ticks */
    run_to(tick_cycle((tick_of(cpu0()->cycles) / 18 + 1) * 18));
    ck_assert_uint_ne(inb(0x61) & 0x10, r0);
}
END_TEST

START_TEST(pit_square_wave_and_bcd)
{
    apic_on(0);
    io_wr(0x14, 0x31);
    pit_program(0, 0x36, 7);                            /* mode 3, odd: high 4 ticks, low 3 */
    take_first_edge(0x31);
    uint64_t t0 = tick_of(0) + 1;
    for (int k = 1; k <= 3; k++) {
        run_to(tick_cycle(t0 + 7 * (uint64_t)k) - 1);
        ck_assert(!apic_bit(0, IRR, 0x31));
        run_to(tick_cycle(t0 + 7 * (uint64_t)k));
        ck_assert_int_eq(lapic_take_irq(apic(0)), 0x31);
        lapic_write(apic(0), 0, EOI, 4, 0);
    }
    pit_program(1, 0x71, 0x1234);                       /* channel 1, BCD 1234 */
    uint64_t t1 = tick_of(cpu0()->cycles) + 1;
    run_to(tick_cycle(t1 + 35));
    ck_assert_uint_eq(inb(0x41) | inb(0x41) << 8, 0x1199);
}
END_TEST

/* ------------------------------------------------------------------ the MC146818 */

static uint8_t cmos(uint8_t reg)
{
    outb(0x70, reg);
    return inb(0x71);
}

static void cmos_wr(uint8_t reg, uint8_t v)
{
    outb(0x70, reg);
    outb(0x71, v);
}

START_TEST(rtc_starts_at_its_fixed_date_and_follows_simulated_time)
{
    ck_assert_uint_eq(cmos(0x09), 0x25);                /* 2025-01-01 00:00:00, BCD */
    ck_assert_uint_eq(cmos(0x32), 0x20);
    ck_assert_uint_eq(cmos(0x08), 0x01);
    ck_assert_uint_eq(cmos(0x07), 0x01);
    ck_assert_uint_eq(cmos(0x06), 0x04);                /* a Wednesday */
    ck_assert_uint_eq(cmos(0x00), 0x00);
    ck_assert_uint_eq(cmos(0x0d), 0x80);
    run_to(3661 * HZ + HZ / 2);
    ck_assert_uint_eq(cmos(0x04), 0x01);
    ck_assert_uint_eq(cmos(0x02), 0x01);
    ck_assert_uint_eq(cmos(0x00), 0x01);
    ck_assert_uint_eq(cmos(0x0a) & 0x80, 0);            /* no update in progress mid-second */
    run_to(3662 * HZ - 1);
    ck_assert_uint_eq(cmos(0x0a) & 0x80, 0x80);         /* the last 244 µs */
    ck_assert_uint_eq(cmos(0x0c) & 0x10, 0x10);         /* UF: seconds ended since cycle 0 */
    ck_assert_uint_eq(cmos(0x0c) & 0x10, 0);            /* cleared by the read */
    cmos_wr(0x0b, 0x06);                                /* binary, 24 h */
    ck_assert_uint_eq(cmos(0x00), 1);
    cmos_wr(0x0b, 0x86);                                /* SET: write 1999-12-31 23:59:58 */
    cmos_wr(0x09, 99);
    cmos_wr(0x32, 19);
    cmos_wr(0x08, 12);
    cmos_wr(0x07, 31);
    cmos_wr(0x04, 23);
    cmos_wr(0x02, 59);
    cmos_wr(0x00, 58);
    cmos_wr(0x0b, 0x06);                                /* the divider chain ran on: 23:59:59 */
    run_to(3663 * HZ + HZ / 2);                         /* at the next second, midnight at the next */
    ck_assert_uint_eq(cmos(0x09), 0);
    ck_assert_uint_eq(cmos(0x32), 20);
    ck_assert_uint_eq(cmos(0x08), 1);
    ck_assert_uint_eq(cmos(0x00), 0);
    cmos_wr(0x40, 0xa5);                                /* NVRAM */
    ck_assert_uint_eq(cmos(0x40), 0xa5);
    ck_assert_uint_eq(cmos(0x80 | 0x40), 0xa5);         /* bit 7 is the NMI mask, not the index */
}
END_TEST

/* IRQ 8 (GSI 8) follows IRQF: the update interrupt at each second's end, the periodic one at
 * each period of RS, each on its cycle; reading C lowers it. */
START_TEST(rtc_interrupts_on_their_cycles)
{
    apic_on(0);
    io_wr(0x20, 0x38);                                  /* pin 8 -> vector 0x38 */
    run_to(HZ / 2);
    cmos(0x0c);
    cmos_wr(0x0b, 0x12);                                /* UIE, 24 h, BCD */
    run_to(HZ - 1);
    ck_assert(!apic_bit(0, IRR, 0x38));
    run_to(HZ);
    ck_assert_int_eq(lapic_take_irq(apic(0)), 0x38);
    lapic_write(apic(0), 0, EOI, 4, 0);
    run_to(2 * HZ);                                     /* C not read: IRQF stays, no new edge */
    ck_assert(!apic_bit(0, IRR, 0x38));
    ck_assert_uint_eq(cmos(0x0c), 0xd0);                /* IRQF, PF (1024 Hz: set, not enabled), UF */
    run_to(3 * HZ);
    ck_assert(apic_bit(0, IRR, 0x38));
    ck_assert_int_eq(lapic_take_irq(apic(0)), 0x38);
    lapic_write(apic(0), 0, EOI, 4, 0);
    cmos(0x0c);
    cmos_wr(0x0a, 0x2f);                                /* RS 15: 2 Hz */
    cmos_wr(0x0b, 0x42);                                /* PIE only */
    run_to(3 * HZ + HZ / 2 - 1);
    ck_assert(!apic_bit(0, IRR, 0x38));
    run_to(3 * HZ + HZ / 2);
    ck_assert(apic_bit(0, IRR, 0x38));
    ck_assert_uint_eq(cmos(0x0c), 0xc0);                /* IRQF | PF */
}
END_TEST

/* --rtc-base reaches the clock through the machine (DeviceHost.rtc_epoch). */
START_TEST(rtc_base_sets_the_time_at_cycle_0)
{
    MachineConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.kernel = testutil_temp_file(blob_x86_64_exc, blob_x86_64_exc_len, ".bin");
    cfg.arch = ARCH_X86_64;
    cfg.raw = true;
    cfg.load_addr = cfg.entry = 0x100000;
    cfg.entry_set = true;
    cfg.console_file = "/dev/null";
    ck_assert(civil_parse_iso("1999-12-31T23:59:30", &cfg.rtc_base));
    cfg.rtc_base_set = true;
    Machine *other = m;
    m = calloc(1, sizeof *m);
    Error err = { { 0 } };
    ck_assert_msg(mach_create(m, &cfg, &err), "%s", err.msg);
    unlink(cfg.kernel);
    ck_assert_uint_eq(cmos(0x09), 0x99);
    ck_assert_uint_eq(cmos(0x32), 0x19);
    ck_assert_uint_eq(cmos(0x00), 0x30);
    ck_assert_uint_eq(cmos(0x06), 0x06);                /* a Friday */
    run_to(30 * HZ);
    ck_assert_uint_eq(cmos(0x09), 0x00);
    ck_assert_uint_eq(cmos(0x32), 0x20);
    ck_assert_uint_eq(cmos(0x07), 0x01);
    tm_destroy(m);
    m = other;
}
END_TEST

START_TEST(iso_dates_parse_and_round_trip)
{
    static const char *const good[] = { "1970-01-01", "2000-02-29", "2024-02-29T12:34:56", "9999-12-31T23:59:59" };
    static const char *const bad[] = { "1969-12-31", "2100-02-29", "2025-04-31", "2025-00-10", "2025-01-01T", "2025-01-01x00:00:00",
                                       "2025-01-01T23:60:00", "+025-01-01", "20250101", "" };
    uint64_t t;
    ck_assert(civil_parse_iso("1970-01-01", &t) && t == 0);
    ck_assert(civil_parse_iso("2025-01-01T00:00:00", &t) && t == DEV_RTC_DEFAULT_EPOCH);
    for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
        ck_assert_msg(civil_parse_iso(good[i], &t), "%s", good[i]);
        CivilTime c = civil_from_epoch(t);
        char back[32];
        snprintf(back, sizeof back, "%04u-%02u-%02uT%02u:%02u:%02u", c.year, c.mon, c.mday, c.hour, c.min, c.sec);
        ck_assert_msg(!strncmp(back, good[i], strlen(good[i])), "%s came back as %s", good[i], back);
    }
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
        ck_assert_msg(!civil_parse_iso(bad[i], &t), "%s", bad[i]);
}
END_TEST

/* ------------------------------------------------------------------ the 16550 */

START_TEST(serial_interrupt_is_isa_irq_4)
{
    apic_on(0);
    io_wr(0x18, 0x34);                                  /* pin 4 -> vector 0x34 */
    outb(0x3fc, 0x08);                                  /* MCR.OUT2 */
    outb(0x3f9, 0x02);                                  /* IER.ETBEI: THR empty at once */
    ck_assert(apic_bit(0, IRR, 0x34));
    ck_assert_uint_eq(inb(0x20) & 0x10, 0x10);          /* the PIC's IR4 too (masked) */
    ck_assert_uint_eq(inb(0x3fa), 0x02);
    ck_assert_uint_eq(inb(0x3fa), 0x01);
}
END_TEST

/* ------------------------------------------------------------------ checkpoints */

static void roundtrip(Device *d)
{
    Blob b;
    blob_init(&b);
    d->ops->save(d, &b);
    Blob again;
    blob_init(&again);
    BlobReader r;
    br_init(&r, b.data, b.len, 0);
    ck_assert_msg(d->ops->load(d, &r), "%s does not load its own state", d->name);
    d->ops->save(d, &again);
    ck_assert_uint_eq(b.len, again.len);
    ck_assert(!memcmp(b.data, again.data, b.len));
    blob_free(&b);
    blob_free(&again);
}

START_TEST(checkpoints_keep_every_device_and_the_pit_s_next_edge)
{
    apic_on(0);
    io_wr(0x14, 0x31);
    linux_init_8259a(0x01);
    outb(0x21, 0xa5);
    cmos_wr(0x40, 0x5a);
    pit_program(0, 0x34, 300);
    take_first_edge(0x31);
    uint64_t edge = tick_cycle(tick_of(0) + 1 + 300);
    Device *pit = dev("/isa/timer@i40");
    Blob b;
    blob_init(&b);
    pit->ops->save(pit, &b);
    pit_program(0, 0x30, 0);                            /* change it all, then restore */
    BlobReader r;
    br_init(&r, b.data, b.len, 0);
    ck_assert(pit->ops->load(pit, &r));
    blob_free(&b);
    run_to(edge - 1);
    ck_assert(!apic_bit(0, IRR, 0x31));
    run_to(edge);
    ck_assert(apic_bit(0, IRR, 0x31));
    roundtrip(ioapic());
    roundtrip(pic());
    roundtrip(pit);
    roundtrip(dev("/isa/rtc@i70"));
    ck_assert_uint_eq(io_rd(0x14), 0x31);
    ck_assert_uint_eq(cmos(0x40), 0x5a);
    ck_assert_uint_eq(inb(0x21), 0xa5);
}
END_TEST

START_TEST(truncated_state_is_refused)
{
    Device *pit = dev("/isa/timer@i40");
    Blob b;
    blob_init(&b);
    pit->ops->save(pit, &b);
    BlobReader r;
    br_init(&r, b.data, b.len - 3, 0);
    ck_assert(!pit->ops->load(pit, &r));
    blob_free(&b);
}
END_TEST

/* ------------------------------------------------------------------ guests */

static Machine *guest_until(uint64_t entry, uint64_t handler, uint64_t max_insns)
{
    Machine *g = tm_create(ARCH_X86_64, blob_x86_64_pit, blob_x86_64_pit_len, 0x100000, entry, max_insns, 1);
    tm_x86_gate(g, 0x200000, 0x30, handler, 0);
    tm_write(g, 0x201000, 2, 16 * 256 - 1);
    tm_write(g, 0x201002, 8, 0x200000);
    return g;
}

static Machine *guest(uint64_t entry, uint64_t handler)
{
    return guest_until(entry, handler, 0);
}

/* The cycles between two interrupts n PIT periods of 1193 ticks apart: the ticks' exact cycles
 * differ by floor or ceil of n * 1193 * HZ / PIT_HZ, never drifting. */
static void check_periods(Machine *g, int from, int to)
{
    for (int i = from + 1; i <= to; i++) {
        uint64_t n = (uint64_t)(i - from) * 1193 * HZ, d = tm_read(g, 0x210000 + 8 * i, 8) - tm_read(g, 0x210000 + 8 * from, 8);
        ck_assert_msg(d == n / PIT_HZ || d == (n + PIT_HZ - 1) / PIT_HZ, "interrupt %d: %llu cycles after %d", i,
                      (unsigned long long)d, from);
    }
}

START_TEST(guest_takes_the_pit_through_the_ioapic)
{
    Machine *g = guest(0x100000, 0x100200);
    ck_assert_int_eq(tm_run(g), EXIT_HUNG);
    ck_assert_str_eq(g->exit_reason, "all-cpus-asleep");
    ck_assert_uint_eq(vcpu_reg_read(g->cl.cpus[0], UC_X86_REG_R12), 5);
    check_periods(g, 1, 4);                             /* the first: the control word's edge */
    tm_destroy(g);
}
END_TEST

START_TEST(guest_takes_the_pit_through_the_8259a)
{
    Machine *g = guest(0x100400, 0x100600);
    ck_assert_int_eq(tm_run(g), EXIT_HUNG);
    ck_assert_uint_eq(vcpu_reg_read(g->cl.cpus[0], UC_X86_REG_R12), 3);
    check_periods(g, 1, 2);
    for (int i = 0; i < 3; i++) {
        ck_assert_uint_eq(tm_read(g, 0x211000 + 16 * i, 8), 0x01);     /* IR0 in service */
        ck_assert_uint_eq(tm_read(g, 0x211008 + 16 * i, 8), 0x00);     /* gone after the EOI */
    }
    tm_destroy(g);
}
END_TEST

/* A checkpoint taken between two of the PIT's interrupts (its next edge an event on CPU 0's
 * queue, the I/O APIC and the local APIC programmed) continues to the same interrupts on the
 * same cycles as the run that was never stopped. */
START_TEST(checkpoint_between_interrupts_continues_them)
{
    Machine *a = guest(0x100000, 0x100200);
    tm_run(a);
    uint64_t total = a->cl.cpus[0]->insns;
    Machine *b = guest_until(0x100000, 0x100200, total / 2);
    ck_assert_int_eq(tm_run(b), EXIT_LIMIT);
    uint64_t taken = vcpu_reg_read(b->cl.cpus[0], UC_X86_REG_R12);
    ck_assert(taken > 0 && taken < 5);
    const char *path = testutil_temp_file("", 0, ".ck");
    Error err = { { 0 } };
    ck_assert_msg(checkpoint_save(b, path, &err), "%s", err.msg);
    Machine *c = guest(0x100000, 0x100200);
    ck_assert_msg(checkpoint_restore(c, path, &err), "%s", err.msg);
    unlink(path);
    ck_assert_int_eq(mach_run(c), EXIT_HUNG);
    ck_assert_uint_eq(vcpu_reg_read(c->cl.cpus[0], UC_X86_REG_R12), 5);
    for (int i = 0; i < 5; i++)
        ck_assert_uint_eq(tm_read(c, 0x210000 + 8 * i, 8), tm_read(a, 0x210000 + 8 * i, 8));
    ck_assert_uint_eq(c->cl.cpus[0]->insns, total);
    tm_destroy(a);
    tm_destroy(b);
    tm_destroy(c);
}
END_TEST

/* Linux's quick_pit_calibrate as a guest (tests/unit/blobs/x86_64_pitcal.s): the TSC over i * 256
 * PIT ticks, in kHz as Linux computes it, is the CPU clock within the polling loop's period,
 * far inside Linux's 500 ppm, and the same on every run. */
START_TEST(linux_quick_pit_calibration_finds_the_cpu_clock)
{
    uint64_t khz[2];
    for (int run = 0; run < 2; run++) {
        Machine *g = tm_create(ARCH_X86_64, blob_x86_64_pitcal, blob_x86_64_pitcal_len, 0x100000, 0x100000, 0, 1);
        tm_run(g);
        ck_assert_uint_eq(tm_read(g, 0x210018, 8), 1);
        uint64_t delta = tm_read(g, 0x210000, 8), i = tm_read(g, 0x210008, 8), err = tm_read(g, 0x210010, 8);
        khz[run] = delta * PIT_HZ / (i * 256 * 1000);
        ck_assert_uint_lt(err, delta >> 11);
        uint64_t exact = HZ / 1000, off = khz[run] > exact ? khz[run] - exact : exact - khz[run];
        ck_assert_msg(off * 1000000 <= exact * (err * 1000000 / delta + 1), "%llu kHz: %llu off, the error terms %llu of "
                      "%llu cycles", (unsigned long long)khz[run], (unsigned long long)off, (unsigned long long)err,
                      (unsigned long long)delta);
        tm_destroy(g);
    }
    ck_assert_uint_eq(khz[0], khz[1]);
}
END_TEST

Suite *pc_suite(void)
{
    Suite *s = suite_create("pc");
    TCase *t = tcase_create("devices");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, ioapic_registers_are_the_82093aa_s);
    tcase_add_test(t, pit_irq0_reaches_the_apic_through_pin_2_on_its_tick);
    tcase_add_test(t, level_entries_wait_for_the_eoi_broadcast);
    tcase_add_test(t, masked_edges_are_lost_and_active_low_inverts);
    tcase_add_test(t, messages_find_their_destinations);
    tcase_add_test(t, pic_starts_initialised_and_masked);
    tcase_add_test(t, pic_irq0_through_lint0_as_linux_drives_it);
    tcase_add_test(t, pic_cascade_priorities_and_eois);
    tcase_add_test(t, pic_auto_eoi_and_poll);
    tcase_add_test(t, pit_mode0_on_channel_2_is_linux_s_calibration);
    tcase_add_test(t, pit_counts_latches_and_reads_back);
    tcase_add_test(t, pit_square_wave_and_bcd);
    tcase_add_test(t, rtc_starts_at_its_fixed_date_and_follows_simulated_time);
    tcase_add_test(t, serial_interrupt_is_isa_irq_4);
    tcase_add_test(t, rtc_base_sets_the_time_at_cycle_0);
    tcase_add_test(t, rtc_interrupts_on_their_cycles);
    tcase_add_test(t, iso_dates_parse_and_round_trip);
    tcase_add_test(t, checkpoints_keep_every_device_and_the_pit_s_next_edge);
    tcase_add_test(t, truncated_state_is_refused);
    suite_add_tcase(s, t);
    TCase *gt = tcase_create("guests");
    tcase_add_test(gt, guest_takes_the_pit_through_the_ioapic);
    tcase_add_test(gt, guest_takes_the_pit_through_the_8259a);
    tcase_add_test(gt, linux_quick_pit_calibration_finds_the_cpu_clock);
    tcase_add_test(gt, checkpoint_between_interrupts_continues_them);
    suite_add_tcase(s, gt);
    return s;
}

int main(void)
{
    return testutil_run(pc_suite());
}
