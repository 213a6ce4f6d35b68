/* test_lapic.c — the local APIC at register level: reset state, the software enable, LVT
 * masking and delivery modes (LVTPC masks itself on delivery), timer one-shot / periodic /
 * divider / TSC-deadline on simulated time, priority classes with TPR and ISR, EOI, ESR, ICR
 * IPIs with destinations and shorthands.  The APICs belong to CPUs of a small x86 machine that
 * does not run: the tests set the CPU's clock and fire its events by hand. */
#include "cpu/x86_64.h"
#include "testutil.h"

enum {
    ID = 0x20, VER = 0x30, TPR = 0x80, PPR = 0xa0, EOI = 0xb0, LDR = 0xd0, DFR = 0xe0, SVR = 0xf0, ISR = 0x100,
    IRR = 0x200, ESR = 0x280, ICR = 0x300, ICR2 = 0x310, LVTT = 0x320, LVTPC = 0x340, LVTERR = 0x370,
    TMICT = 0x380, TMCCT = 0x390, TDCR = 0x3e0,
};

static Machine *m;

static void setup(void)
{
    m = tm_create(ARCH_X86_64, blob_x86_64_exc, blob_x86_64_exc_len, 0x100000, 0x100000, 0, 3);
    for (int i = 0; i < m->cl.ncpus; i++)
        m->cl.cpus[i]->state = CPU_RUNNING;
}

static void teardown(void)
{
    tm_destroy(m);
}

static Lapic *apic(int cpu)
{
    return vcpu_x86_lapic(m->cl.cpus[cpu]);
}

static uint32_t rd(int cpu, unsigned off)
{
    return lapic_read(apic(cpu), 0, off, 4);
}

static void wr(int cpu, unsigned off, uint32_t v)
{
    lapic_write(apic(cpu), 0, off, 4, v);
}

/* Advance cpu's clock to `t` and fire its due events, as vcpu_run does between instructions. */
static void run_to(int cpu, uint64_t t)
{
    Cpu *c = m->cl.cpus[cpu];
    c->cycles = t;
    evq_run_due(&c->events, t);
}

static bool irr(int cpu, unsigned v)
{
    return rd(cpu, IRR + 0x10 * (v / 32)) >> (v % 32) & 1;
}

static void enable(int cpu)
{
    wr(cpu, SVR, 0x1ff);
}

START_TEST(reset_state_is_the_sdm_power_up_state)
{
    ck_assert_uint_eq(rd(1, ID), 1u << 24);
    ck_assert_uint_eq(rd(0, VER), 0x00060014);
    ck_assert_uint_eq(rd(0, SVR), 0xff);
    ck_assert_uint_eq(rd(0, DFR), 0xffffffffu);
    for (unsigned off = 0x320; off <= 0x370; off += 0x10)
        ck_assert_uint_eq(rd(1, off), 0x10000);
    ck_assert_uint_eq(rd(0, TMCCT), 0);
}
END_TEST

/* The board has an 8259A pair: the boot CPU's APIC is in the firmware's virtual wire mode (MP
 * spec 1.4 §3.6.2.2), the others in the SDM's power-up state; a reset keeps it so. */
START_TEST(boot_cpu_starts_in_virtual_wire_mode)
{
    for (unsigned off = 0x320; off <= 0x370; off += 0x10)
        ck_assert_uint_eq(rd(0, off), off == 0x350 ? 0x700u : off == 0x360 ? 0x400u : 0x10000u);
    wr(0, 0x350, 0x10700);
    lapic_reset(apic(0));
    ck_assert_uint_eq(rd(0, 0x350), 0x700);
    ck_assert_uint_eq(rd(1, 0x350), 0x10000);
}
END_TEST

START_TEST(lvt_stays_masked_while_the_apic_is_software_disabled)
{
    wr(0, LVTPC, 0x400);
    ck_assert_uint_eq(rd(0, LVTPC), 0x10400);
    enable(0);
    wr(0, LVTPC, 0x400);
    ck_assert_uint_eq(rd(0, LVTPC), 0x400);
    wr(0, SVR, 0xff);                                   /* disabling masks every entry */
    ck_assert_uint_eq(rd(0, LVTPC), 0x10400);
}
END_TEST

START_TEST(masked_lvtpc_loses_the_pmi)
{
    enable(0);
    wr(0, LVTPC, 0x10400);
    ck_assert(!lapic_fire_lvt(apic(0), LVT_PC, 0));
    ck_assert(!m->cl.cpus[0]->pins.nmi);
}
END_TEST

START_TEST(lvtpc_nmi_delivery_sets_the_mask_bit)
{
    enable(0);
    wr(0, LVTPC, 0x400);
    ck_assert(lapic_fire_lvt(apic(0), LVT_PC, 0));
    ck_assert(m->cl.cpus[0]->pins.nmi);
    ck_assert_uint_eq(rd(0, LVTPC), 0x10400);
    m->cl.cpus[0]->pins.nmi = false;
    ck_assert(!lapic_fire_lvt(apic(0), LVT_PC, 0));    /* a second PMI before the unmask is lost */
    ck_assert(!m->cl.cpus[0]->pins.nmi);
    wr(0, LVTPC, 0x400);
    ck_assert(lapic_fire_lvt(apic(0), LVT_PC, 0));
    ck_assert(m->cl.cpus[0]->pins.nmi);
}
END_TEST

START_TEST(lvtpc_fixed_mode_raises_its_vector)
{
    enable(0);
    wr(0, LVTPC, 0xfe);
    ck_assert(lapic_fire_lvt(apic(0), LVT_PC, 0));
    ck_assert(!m->cl.cpus[0]->pins.nmi);
    ck_assert(irr(0, 0xfe));
    ck_assert(m->cl.cpus[0]->pins.irq);
    ck_assert_uint_eq(rd(0, LVTPC), 0x100fe);
}
END_TEST

START_TEST(one_shot_timer_counts_bus_ticks_and_fires_once)
{
    enable(0);
    wr(0, TDCR, 0xb);                                   /* divide by 1 */
    wr(0, LVTT, 0xec);                                  /* one-shot */
    run_to(0, 1000);
    wr(0, TMICT, 100);                                  /* 100 ticks at 100 MHz = 2000 cycles at 2 GHz */
    run_to(0, 2000);
    ck_assert_uint_eq(rd(0, TMCCT), 50);
    run_to(0, 2999);
    ck_assert(!irr(0, 0xec));
    run_to(0, 3000);
    ck_assert(irr(0, 0xec));
    ck_assert_uint_eq(rd(0, TMCCT), 0);
    ck_assert(!event_pending(&apic(0)->timer_ev));
}
END_TEST

START_TEST(periodic_timer_reloads_without_drift)
{
    enable(0);
    wr(0, TDCR, 0x3);                                   /* divide by 16: 320 cycles a tick */
    wr(0, LVTT, 0x200ec);
    wr(0, TMICT, 10);                                   /* 3200 cycles a period */
    int fired = 0;
    for (uint64_t t = 3200; t <= 5 * 3200; t += 3200) {
        run_to(0, t - 1);
        ck_assert(!irr(0, 0xec));
        run_to(0, t);
        ck_assert(irr(0, 0xec));
        ck_assert_int_eq(lapic_take_irq(apic(0)), 0xec);
        wr(0, EOI, 0);
        fired++;
    }
    ck_assert_int_eq(fired, 5);
    run_to(0, 5 * 3200 + 320);
    ck_assert_uint_eq(rd(0, TMCCT), 9);
}
END_TEST

START_TEST(masked_timer_keeps_counting_but_raises_nothing)
{
    enable(0);
    wr(0, TDCR, 0xb);
    wr(0, LVTT, 0x300ec);                               /* periodic, masked */
    wr(0, TMICT, 10);
    run_to(0, 1000);
    ck_assert(!irr(0, 0xec));
    ck_assert(event_pending(&apic(0)->timer_ev));
}
END_TEST

START_TEST(tsc_deadline_timer_fires_when_the_tsc_reaches_it)
{
    enable(0);
    wr(0, LVTT, 0x400ec);
    lapic_set_tsc_deadline(apic(0), 5000);
    ck_assert_uint_eq(lapic_tsc_deadline(apic(0)), 5000);
    run_to(0, 4999);
    ck_assert(!irr(0, 0xec));
    run_to(0, 5000);
    ck_assert(irr(0, 0xec));
    ck_assert_uint_eq(lapic_tsc_deadline(apic(0)), 0);
}
END_TEST

START_TEST(priority_classes_tpr_isr_and_eoi)
{
    enable(0);
    lapic_accept(apic(0), 0x31);
    lapic_accept(apic(0), 0x52);
    ck_assert_int_eq(lapic_take_irq(apic(0)), 0x52);   /* highest first */
    ck_assert_uint_eq(rd(0, PPR), 0x50);
    ck_assert(!m->cl.cpus[0]->pins.irq);                /* 0x31 is below the in-service class */
    ck_assert_int_eq(lapic_take_irq(apic(0)), -1);
    lapic_accept(apic(0), 0x61);
    ck_assert_int_eq(lapic_take_irq(apic(0)), 0x61);   /* a higher class nests */
    wr(0, EOI, 0);                                      /* ends 0x61 */
    ck_assert(rd(0, ISR + 0x20) >> (0x52 - 64) & 1);
    wr(0, EOI, 0);                                      /* ends 0x52 */
    ck_assert(m->cl.cpus[0]->pins.irq);
    wr(0, TPR, 0x30);                                   /* class 3 masked by TPR */
    ck_assert(!m->cl.cpus[0]->pins.irq);
    ck_assert_uint_eq(rd(0, PPR), 0x30);
    wr(0, TPR, 0x20);
    ck_assert_int_eq(lapic_take_irq(apic(0)), 0x31);
}
END_TEST

START_TEST(esr_latches_errors_on_write)
{
    enable(0);
    wr(0, ICR, 0x4005);                                 /* fixed IPI with illegal vector 5 */
    ck_assert_uint_eq(rd(0, ESR), 0);                   /* not visible before the ESR write */
    wr(0, ESR, 0);
    ck_assert_uint_eq(rd(0, ESR), 0x20);                /* send illegal vector */
    rd(0, 0x3f0);                                       /* reserved register */
    wr(0, ESR, 0);
    ck_assert_uint_eq(rd(0, ESR), 0x80);
    wr(0, ESR, 0);
    ck_assert_uint_eq(rd(0, ESR), 0);
}
END_TEST

START_TEST(icr_ipis_reach_their_destinations)
{
    for (int i = 0; i < 3; i++)
        enable(i);
    wr(0, ICR2, 2u << 24);
    wr(0, ICR, 0x40);                                   /* fixed, physical, to APIC ID 2 */
    ck_assert(irr(2, 0x40) && !irr(1, 0x40) && !irr(0, 0x40));
    wr(0, ICR2, 1u << 24);
    wr(0, ICR, 0x400);                                  /* NMI to APIC ID 1 */
    ck_assert(m->cl.cpus[1]->pins.nmi && !m->cl.cpus[2]->pins.nmi);
    wr(1, ICR, 0xc0041);                                /* all excluding self */
    ck_assert(irr(0, 0x41) && irr(2, 0x41) && !irr(1, 0x41));
    wr(2, ICR, 0x40042);                                /* self */
    ck_assert(irr(2, 0x42) && !irr(0, 0x42));
    wr(1, LDR, 0x02000000);                             /* flat logical: cpu1 is bit 1 */
    wr(0, ICR2, 0x02000000);
    wr(0, ICR, 0x843);                                  /* logical destination */
    ck_assert(irr(1, 0x43) && !irr(2, 0x43));
    ck_assert_uint_eq(rd(0, ICR) & (1u << 12), 0);      /* delivered at once: not pending */
}
END_TEST

/* A CPU that ran its quantum first must not see an IPI before the cycle it was sent at. */
START_TEST(an_ipi_arrives_no_earlier_than_it_was_sent)
{
    enable(0);
    enable(1);
    m->cl.cpus[0]->cycles = 5000;                          /* the sender is ahead */
    m->cl.cpus[1]->cycles = 1000;
    wr(0, ICR2, 1u << 24);
    wr(0, ICR, 0x40);
    wr(0, ICR, 0x400);                                  /* and an NMI */
    ck_assert(!irr(1, 0x40) && !m->cl.cpus[1]->pins.nmi);
    run_to(1, 4999);
    ck_assert(!irr(1, 0x40) && !m->cl.cpus[1]->pins.nmi);
    run_to(1, 5000);
    ck_assert(irr(1, 0x40) && m->cl.cpus[1]->pins.nmi);
    m->cl.cpus[1]->cycles = 9000;                          /* the target is ahead: at once */
    wr(0, ICR, 0x41);
    ck_assert(irr(1, 0x41));
}
END_TEST

START_TEST(ipi_to_a_cpu_that_is_off_is_dropped)
{
    enable(0);
    enable(2);
    m->cl.cpus[2]->state = CPU_OFF;
    wr(0, ICR2, 2u << 24);
    wr(0, ICR, 0x40);
    ck_assert(!irr(2, 0x40));
}
END_TEST

static bool irr_x2(int cpu, unsigned v)
{
    uint64_t bits = 0;
    ck_assert(lapic_x2apic_read(apic(cpu), 0x820 + v / 32, &bits, 0));
    return bits >> (v % 32) & 1;
}

START_TEST(x2apic_mode_moves_the_registers_to_msrs)
{
    uint64_t v = 0;
    ck_assert(!lapic_x2apic_read(apic(1), 0x802, &v, 0));  /* not in x2APIC mode: #GP */
    for (int i = 0; i < 3; i++)
        ck_assert(lapic_set_x2apic(apic(i), true));
    ck_assert(!lapic_set_x2apic(apic(1), false));           /* x2APIC -> xAPIC is invalid */
    ck_assert(lapic_x2apic_read(apic(1), 0x802, &v, 0));
    ck_assert_uint_eq(v, 1);                                /* the 32-bit x2APIC ID */
    ck_assert(lapic_x2apic_read(apic(1), 0x80d, &v, 0));
    ck_assert_uint_eq(v, 1u << 1);                          /* cluster 0, member bit 1 */
    ck_assert(!lapic_x2apic_write(apic(1), 0x802, 5, 0));   /* ID is read-only */
    ck_assert(!lapic_x2apic_read(apic(1), 0x80e, &v, 0));   /* no DFR */
    ck_assert(!lapic_x2apic_read(apic(1), 0x80b, &v, 0));   /* EOI is write-only */
    ck_assert(!lapic_x2apic_write(apic(1), 0x80b, 1, 0));   /* non-zero EOI */
    for (int i = 0; i < 3; i++)
        ck_assert(lapic_x2apic_write(apic(i), 0x80f, 0x1ff, 0));
    ck_assert(lapic_x2apic_write(apic(0), 0x830, 2ull << 32 | 0x45, 0));    /* fixed to x2APIC ID 2 */
    ck_assert(irr_x2(2, 0x45) && !irr_x2(1, 0x45));
    ck_assert(lapic_x2apic_write(apic(0), 0x83f, 0x46, 0));                 /* self IPI */
    ck_assert(irr_x2(0, 0x46));
    ck_assert_uint_eq(rd(0, ID), 0);                        /* MMIO is not decoded in x2APIC mode */
}
END_TEST

/* ------------------------------------------------------------------ a guest taking interrupts */

static Machine *guest(void)
{
    Machine *g = tm_create(ARCH_X86_64, blob_x86_64_apic, blob_x86_64_apic_len, 0x100000, 0x100000, 0, 1);
    tm_x86_gate(g, 0x200000, 0xec, 0x100200, 0);
    tm_write(g, 0x201000, 2, 16 * 256 - 1);
    tm_write(g, 0x201002, 8, 0x200000);
    return g;
}

START_TEST(interrupts_respect_the_sti_shadow_and_popf)
{
    Machine *g = guest();
    ck_assert_int_eq(tm_run(g), EXIT_HUNG);             /* cli; hlt with the timer stopped */
    ck_assert_str_eq(g->exit_reason, "all-cpus-asleep");
    ck_assert_uint_eq(vcpu_reg_read(g->cl.cpus[0], UC_X86_REG_R14), tm_read(g, 0x1003f0, 8));
    ck_assert_uint_eq(vcpu_reg_read(g->cl.cpus[0], UC_X86_REG_R13), tm_read(g, 0x1003f8, 8));
    tm_destroy(g);
}
END_TEST

START_TEST(periodic_timer_wakes_hlt_every_period_exactly)
{
    Machine *g = guest();
    tm_run(g);
    ck_assert_uint_eq(vcpu_reg_read(g->cl.cpus[0], UC_X86_REG_R12), 7);
    for (int i = 3; i < 7; i++)                         /* 1000 ticks x 20 cycles, no drift */
        ck_assert_uint_eq(tm_read(g, 0x210000 + 8 * i, 8) - tm_read(g, 0x210000 + 8 * (i - 1), 8), 20000);
    tm_destroy(g);
}
END_TEST

START_TEST(ipis_wake_a_sleeping_cpu)
{
    Machine *g = tm_create(ARCH_X86_64, blob_x86_64_apic, blob_x86_64_apic_len, 0x100000, 0x100400, 0, 2);
    tm_x86_gate(g, 0x200000, 0x50, 0x100500, 0);
    tm_x86_gate(g, 0x200000, 2, 0x100540, 0);
    tm_write(g, 0x201000, 2, 16 * 256 - 1);
    tm_write(g, 0x201002, 8, 0x200000);
    ck_assert_int_eq(tm_run(g), EXIT_HUNG);
    ck_assert_str_eq(g->exit_reason, "all-cpus-asleep");
    ck_assert_uint_eq(tm_read(g, 0x211000, 8), 1);     /* the fixed IPI, once */
    ck_assert_uint_eq(tm_read(g, 0x211008, 8), 1);     /* the NMI, once: not to the sender */
    ck_assert_int_eq(g->cl.cpus[1]->state, CPU_HALTED);
    tm_destroy(g);
}
END_TEST

Suite *lapic_suite(void)
{
    Suite *s = suite_create("lapic");
    TCase *t = tcase_create("registers");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, reset_state_is_the_sdm_power_up_state);
    tcase_add_test(t, boot_cpu_starts_in_virtual_wire_mode);
    tcase_add_test(t, lvt_stays_masked_while_the_apic_is_software_disabled);
    tcase_add_test(t, masked_lvtpc_loses_the_pmi);
    tcase_add_test(t, lvtpc_nmi_delivery_sets_the_mask_bit);
    tcase_add_test(t, lvtpc_fixed_mode_raises_its_vector);
    tcase_add_test(t, one_shot_timer_counts_bus_ticks_and_fires_once);
    tcase_add_test(t, periodic_timer_reloads_without_drift);
    tcase_add_test(t, masked_timer_keeps_counting_but_raises_nothing);
    tcase_add_test(t, tsc_deadline_timer_fires_when_the_tsc_reaches_it);
    tcase_add_test(t, priority_classes_tpr_isr_and_eoi);
    tcase_add_test(t, esr_latches_errors_on_write);
    tcase_add_test(t, icr_ipis_reach_their_destinations);
    tcase_add_test(t, ipi_to_a_cpu_that_is_off_is_dropped);
    tcase_add_test(t, an_ipi_arrives_no_earlier_than_it_was_sent);
    tcase_add_test(t, x2apic_mode_moves_the_registers_to_msrs);
    suite_add_tcase(s, t);
    TCase *g = tcase_create("guest");
    tcase_add_test(g, interrupts_respect_the_sti_shadow_and_popf);
    tcase_add_test(g, periodic_timer_wakes_hlt_every_period_exactly);
    tcase_add_test(g, ipis_wake_a_sleeping_cpu);
    suite_add_tcase(s, g);
    return s;
}

int main(void)
{
    return testutil_run(lapic_suite());
}
