/* test_exceptions.c — architectural exception entry, per architecture, on tiny machines
 * running the fixtures in tests/unit/blobs (their comments list the instruction sequence). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* ------------------------------------------------------------------ x86-64 */

static Machine *x86_fixture(uint64_t entry, uint64_t max_insns, bool with_idt)
{
    Machine *m = tm_create(ARCH_X86_64, blob_x86_64_exc, blob_x86_64_exc_len, 0x100000, entry, max_insns, 1);
    if (with_idt) {
        tm_x86_gate(m, 0x200000, 2, 0x100280, 0);
        tm_x86_gate(m, 0x200000, 3, 0x100100, 0);
        tm_x86_gate(m, 0x200000, 6, 0x100180, 0);
        tm_x86_gate(m, 0x200000, 13, 0x100140, 0);
    }
    tm_write(m, 0x201000, 2, with_idt ? 16 * 32 - 1 : 0);
    tm_write(m, 0x201002, 8, 0x200000);
    return m;
}

static uint64_t reg(Machine *m, int r)
{
    return vcpu_reg_read(m->cl.cpus[0], r);
}

START_TEST(x86_int3_pushes_frame_and_enters_gate)
{
    Machine *m = x86_fixture(0x100000, 4, true);
    ck_assert_int_eq(tm_run(m), EXIT_LIMIT);
    ck_assert_uint_eq(reg(m, UC_X86_REG_RIP), 0x100100);
    uint64_t rsp = reg(m, UC_X86_REG_RSP);
    ck_assert_uint_eq(rsp, 0x300000 - 40);
    ck_assert_uint_eq(tm_read(m, rsp, 8), 0x100012);         /* int3 is a trap: after it */
    ck_assert_uint_eq(tm_read(m, rsp + 8, 8), 0x08);
    ck_assert_uint_eq(tm_read(m, rsp + 24, 8), 0x300000);
    ck_assert_uint_eq(tm_read(m, rsp + 32, 8), 0x10);
    ck_assert_uint_eq(reg(m, UC_X86_REG_RFLAGS) & (1u << 9), 0);
    tm_destroy(m);
}
END_TEST

START_TEST(x86_unknown_msr_is_gp_with_error_code)
{
    Machine *m = x86_fixture(0x100000, 7, true);               /* handler's first insn done */
    tm_run(m);
    ck_assert_uint_eq(reg(m, UC_X86_REG_RIP), 0x100144);
    uint64_t rsp = reg(m, UC_X86_REG_RSP);
    ck_assert_uint_eq(rsp, 0x300000 - 40);
    ck_assert_uint_eq(tm_read(m, rsp - 8, 8), 0);             /* the error code it popped */
    ck_assert_uint_eq(tm_read(m, rsp, 8), 0x100017);         /* the faulting rdmsr */
    tm_destroy(m);
}
END_TEST

START_TEST(x86_ud2_is_ud_without_error_code)
{
    Machine *m = x86_fixture(0x100000, 10, true);
    tm_run(m);
    ck_assert_uint_eq(reg(m, UC_X86_REG_RIP), 0x100185);      /* after the 5-byte addq */
    ck_assert_uint_eq(reg(m, UC_X86_REG_RSP), 0x300000 - 40);
    ck_assert_uint_eq(tm_read(m, 0x300000 - 40, 8), 0x10001b);   /* ud2 address + 2 */
    tm_destroy(m);
}
END_TEST

START_TEST(x86_handlers_return_and_hlt_sleeps_forever)
{
    Machine *m = x86_fixture(0x100000, 0, true);
    ck_assert_int_eq(tm_run(m), EXIT_HUNG);
    ck_assert_str_eq(m->exit_reason, "all-cpus-asleep");
    ck_assert_uint_eq(m->cl.cpus[0]->insns, 13);
    ck_assert_int_eq(m->cl.cpus[0]->state, CPU_HALTED);
    tm_destroy(m);
}
END_TEST

START_TEST(x86_missing_idt_triple_faults)
{
    Machine *m = x86_fixture(0x100000, 0, false);
    ck_assert_int_eq(tm_run(m), EXIT_HUNG);
    ck_assert_str_eq(m->exit_reason, "triple-fault");
    ck_assert_int_eq(m->cl.cpus[0]->state, CPU_DEAD);
    tm_destroy(m);
}
END_TEST

/* NMIs: a second NMI raised while the handler runs waits for its IRETQ. */
static Event nmi_ev[2];
static Cpu *nmi_cpu;

static void raise_nmi(Event *ev, void *opaque)
{
    nmi_cpu->pins.nmi = true;
    if (ev == &nmi_ev[0])           /* the second one lands inside the first handler */
        vcpu_schedule(nmi_cpu, &nmi_ev[1], nmi_cpu->cycles + 1);
}

START_TEST(x86_nmi_blocked_until_iretq)
{
    Machine *m = x86_fixture(0x100200, 0, true);
    const char *trace = testutil_temp_file("", 0, ".trace");
    Error err = { { 0 } };
    TraceSink *s = trace_text_sink_open(trace, 0, &err);
    ck_assert_ptr_nonnull(s);
    trace_add_sink(&m->trace, s);
    mach_boot(m);
    nmi_cpu = m->cl.cpus[0];
    event_init(&nmi_ev[0], "test-nmi", raise_nmi, NULL);
    event_init(&nmi_ev[1], "test-nmi", raise_nmi, NULL);
    vcpu_schedule(nmi_cpu, &nmi_ev[0], 300);      /* inside the counting loop (lidt alone costs 100) */
    mach_run(m);
    ck_assert_uint_eq(reg(m, UC_X86_REG_R15), 2);             /* both delivered */
    tm_destroy(m);
    FILE *f = fopen(trace, "r");
    char line[512];
    int nmis = 0;
    while (fgets(line, sizeof line, f)) {
        char *from = strstr(line, " nmi ") ? strstr(line, "from=0x") : NULL;
        if (!from)
            continue;
        uint64_t pc = strtoull(from + 5, NULL, 16);
        ck_assert_msg(pc < 0x100280 || pc >= 0x100290, "NMI taken inside the NMI handler at 0x%lx", (long)pc);
        nmis++;
    }
    fclose(f);
    remove(trace);
    ck_assert_int_eq(nmis, 2);
}
END_TEST

/* ------------------------------------------------------------------ arm64 */


static Machine *a64_run(uint64_t max)
{
    Machine *m = tm_create(ARCH_ARM64, blob_arm64_exc, blob_arm64_exc_len, 0x40080000, 0x40080000, max, 1);
    tm_run(m);
    return m;
}

START_TEST(arm64_svc_enters_vbar_plus_0x200_with_syndrome)
{
    Machine *m = a64_run(6);
    ck_assert_uint_eq(reg(m, UC_ARM64_REG_PC), 0x40081200);
    ck_assert_uint_eq(reg(m, UC_ARM64_REG_ELR_EL1), 0x40080018);     /* the instruction after svc */
    ck_assert_uint_eq(reg(m, UC_ARM64_REG_ESR_EL1), 0x56000042);     /* EC 0x15, IL, imm16 */
    ck_assert_uint_eq(reg(m, UC_ARM64_REG_PSTATE) & 0x3cf, 0x3c5);    /* EL1h, DAIF masked */
    tm_destroy(m);
}
END_TEST

START_TEST(arm64_brk_udf_and_abort_syndromes)
{
    Machine *m = a64_run(14);               /* first mrs of the BRK handler */
    ck_assert_uint_eq(reg(m, UC_ARM64_REG_X10), 0xf2000007);          /* EC 0x3c, imm16 7 */
    ck_assert_uint_eq(reg(m, UC_ARM64_REG_ELR_EL1), 0x40080018);
    tm_destroy(m);
    m = a64_run(23);
    ck_assert_uint_eq(reg(m, UC_ARM64_REG_X10), 0x02000000);          /* EC 0: unknown reason */
    ck_assert_uint_eq(reg(m, UC_ARM64_REG_ELR_EL1), 0x4008001c);
    tm_destroy(m);
    m = a64_run(35);                        /* three mrs of the abort handler done */
    ck_assert_uint_eq(reg(m, UC_ARM64_REG_X10), 0x96000010);          /* EC 0x25, DFSC external */
    ck_assert_uint_eq(reg(m, UC_ARM64_REG_X11), 0x40080024);
    ck_assert_uint_eq(reg(m, UC_ARM64_REG_X12), 0x0b000000);          /* FAR */
    tm_destroy(m);
}
END_TEST

/* The arm64 interrupt pins, as a controller drives them (base/irq.h lines), both raised before
 * the CPU runs (tests/unit/blobs/arm64_irq.s): held while PSTATE masks them, then taken right
 * after the msr daifclr that unmasks them, FIQ first, and the IRQ right after the FIQ handler's
 * ERET; each handler shifts its code into x20 (FIQ 2, IRQ 1). */
static Machine *a64_irq_run(uint64_t max)
{
    Machine *m = tm_create(ARCH_ARM64, blob_arm64_irq, blob_arm64_irq_len, 0x40080000, 0x40080000, max, 1);
    mach_boot(m);
    Cpu *c = m->cl.cpus[0];
    IrqLine irq = vcpu_pin(c, CPU_PIN_IRQ), fiq = vcpu_pin(c, CPU_PIN_FIQ);
    irq_raise(&irq);
    irq_raise(&fiq);
    ck_assert(!c->ops->take_interrupt(c));             /* DAIF masked out of reset */
    ck_assert(c->pins.irq && c->pins.fiq);
    ck_assert_int_eq(mach_run(m), EXIT_LIMIT);
    return m;
}

START_TEST(arm64_fiq_and_irq_pins_are_taken_at_the_unmasking_instruction_fiq_first)
{
    Machine *m = a64_irq_run(9);            /* 7 to the msr daifclr, then lsl, orr of the FIQ handler */
    ck_assert_uint_eq(reg(m, UC_ARM64_REG_X20), 0x2);
    ck_assert_uint_eq(reg(m, UC_ARM64_REG_ELR_EL1), 0x4008001c);     /* the instruction after the msr */
    ck_assert(m->cl.cpus[0]->pins.irq && !m->cl.cpus[0]->pins.fiq);
    tm_destroy(m);
    m = a64_irq_run(12);                    /* the FIQ handler's eret, then lsl, orr of the IRQ one */
    ck_assert_uint_eq(reg(m, UC_ARM64_REG_X20), 0x21);
    ck_assert_uint_eq(reg(m, UC_ARM64_REG_ELR_EL1), 0x4008001c);
    ck_assert(!m->cl.cpus[0]->pins.irq && !m->cl.cpus[0]->pins.fiq);
    tm_destroy(m);
}
END_TEST

/* EL0 (tests/unit/blobs/arm64_el0.s): the fixture ERETs to EL0, whose exceptions each record
 * (kind, ESR, ELR, SPSR, FAR, SP, SP_EL0) at A64_EL0_TABLE + 64 * n. */
enum { A64_EL0_COUNT = 0x40100000, A64_EL0_TABLE = 0x40100040, A64_EL0_USER = 0x4008002c,
       A64_SP_EL1 = 0x40200000, A64_SP_EL0 = 0x40180000, A64_NOTHING = 0x0b000000 };
/* The vector table entries: a lower EL using AArch64, synchronous, IRQ and FIQ (VBAR_EL1 +
 * 0x400, 0x480, 0x500) */
enum { KIND_LOWER_SYNC = 8, KIND_LOWER_IRQ = 9, KIND_LOWER_FIQ = 10 };

typedef struct A64Record {
    uint64_t kind, esr, elr, spsr, far, sp, sp_el0;
} A64Record;

static A64Record el0_record(Machine *m, unsigned i)
{
    uint64_t a = A64_EL0_TABLE + 64ull * i;
    A64Record r = { tm_read(m, a, 8), tm_read(m, a + 8, 8), tm_read(m, a + 16, 8), tm_read(m, a + 24, 8),
                    tm_read(m, a + 32, 8), tm_read(m, a + 40, 8), tm_read(m, a + 48, 8) };
    return r;
}

/* Record i: a synchronous exception from EL0 with this syndrome and return address, taken on
 * SP_EL1 with the user's SP in SP_EL0 and SPSR_EL1 = EL0t with DAIF clear. */
static void el0_expect(Machine *m, unsigned i, uint64_t kind, uint64_t esr, uint64_t elr, uint64_t sp_el0)
{
    A64Record r = el0_record(m, i);
    ck_assert_msg(r.kind == kind && r.esr == esr && r.elr == elr && r.spsr == 0 && r.sp == A64_SP_EL1 &&
                  r.sp_el0 == sp_el0, "record %u: kind %" PRIu64 " esr 0x%" PRIx64 " elr 0x%" PRIx64 " spsr 0x%"
                  PRIx64 " sp 0x%" PRIx64 " sp_el0 0x%" PRIx64, i, r.kind, r.esr, r.elr, r.spsr, r.sp, r.sp_el0);
}

/* SVC (EC 0x15), data aborts (EC 0x24, DFSC 0x10 external, WnR for the store), an instruction
 * abort (EC 0x20) and an undefined MRS (EC 0x00) from EL0: each at VBAR_EL1 + 0x400 on SP_EL1,
 * the user's stack in SP_EL0 and back in SP after the ERETs. */
START_TEST(arm64_exceptions_from_el0_enter_the_lower_el_vector_on_sp_el1)
{
    Machine *m = tm_create(ARCH_ARM64, blob_arm64_el0, blob_arm64_el0_len, 0x40080000, 0x40080000, 1000, 1);
    ck_assert_int_eq(tm_run(m), 0);
    ck_assert_str_eq(m->exit_reason, "psci-system-off");
    ck_assert_uint_eq(tm_read(m, A64_EL0_COUNT, 8), 6);
    el0_expect(m, 0, KIND_LOWER_SYNC, 0x56000017, A64_EL0_USER + 0x10, A64_SP_EL0 - 16);
    el0_expect(m, 1, KIND_LOWER_SYNC, 0x92000010, A64_EL0_USER + 0x14, A64_SP_EL0 - 16);
    el0_expect(m, 2, KIND_LOWER_SYNC, 0x92000050, A64_EL0_USER + 0x18, A64_SP_EL0 - 16);
    el0_expect(m, 3, KIND_LOWER_SYNC, 0x82000010, A64_NOTHING, A64_SP_EL0 - 16);
    el0_expect(m, 4, KIND_LOWER_SYNC, 0x02000000, A64_EL0_USER + 0x20, A64_SP_EL0 - 16);
    el0_expect(m, 5, KIND_LOWER_SYNC, 0x56000001, A64_EL0_USER + 0x30, A64_SP_EL0);
    ck_assert_uint_eq(el0_record(m, 1).far, A64_NOTHING);
    ck_assert_uint_eq(el0_record(m, 3).far, A64_NOTHING);
    ck_assert_uint_eq(reg(m, UC_ARM64_REG_X2), A64_SP_EL0);          /* SP at EL0 is SP_EL0 */
    ck_assert_uint_eq(reg(m, UC_ARM64_REG_X4), 0x55);                /* popped from the user stack */
    ck_assert_uint_eq(reg(m, UC_ARM64_REG_X7), A64_SP_EL0);
    tm_destroy(m);
}
END_TEST

/* FIQ and IRQ pending while EL1 masks them are taken from EL0 right after the ERET that
 * clears DAIF: FIQ at VBAR_EL1 + 0x500, then IRQ at + 0x480, both returning to the user's
 * first instruction. */
START_TEST(arm64_fiq_and_irq_from_el0_enter_the_lower_el_vectors)
{
    Machine *m = tm_create(ARCH_ARM64, blob_arm64_el0, blob_arm64_el0_len, 0x40080000, 0x40080000, 1000, 1);
    mach_boot(m);
    IrqLine irq = vcpu_pin(m->cl.cpus[0], CPU_PIN_IRQ), fiq = vcpu_pin(m->cl.cpus[0], CPU_PIN_FIQ);
    irq_raise(&irq);
    irq_raise(&fiq);
    ck_assert_int_eq(mach_run(m), 0);
    ck_assert_uint_eq(tm_read(m, A64_EL0_COUNT, 8), 8);
    el0_expect(m, 0, KIND_LOWER_FIQ, 0, A64_EL0_USER, A64_SP_EL0);
    el0_expect(m, 1, KIND_LOWER_IRQ, 0, A64_EL0_USER, A64_SP_EL0);
    el0_expect(m, 2, KIND_LOWER_SYNC, 0x56000017, A64_EL0_USER + 0x10, A64_SP_EL0 - 16);
    tm_destroy(m);
}
END_TEST

/* ESR_EL1 of an MRS (read) or MSR of (op0, op1, CRn, CRm, op2) with Rt trapped to EL1: EC 0x18,
 * IL, ISS Op0 [21:20], Op2 [19:17], Op1 [16:14], CRn [13:10], Rt [9:5], CRm [4:1], read [0]. */
#define SYS_TRAP(op0, op1, crn, crm, op2, rt, read) \
    (0x18u << 26 | 1u << 25 | (op0) << 20 | (op2) << 17 | (op1) << 14 | (crn) << 10 | (rt) << 5 | (crm) << 1 | (read))

/* The registers pmusim emulates follow the EL0 rules (tests/unit/blobs/arm64_el0_sysreg.s):
 * CNTVCT_EL0 and PMCCNTR_EL0 as CNTKCTL_EL1 and PMUSERENR_EL0 enable them, CNTPCT_EL0,
 * CNTV_CTL_EL0 and PMCR_EL0 trapped to EL1 (EC 0x18), MPIDR_EL1 and a write of PMUSERENR_EL0
 * UNDEFINED. */
START_TEST(arm64_emulated_sysregs_at_el0_go_ahead_trap_or_are_undefined)
{
    Machine *m = tm_create(ARCH_ARM64, blob_arm64_el0_sysreg, blob_arm64_el0_sysreg_len, 0x40080000, 0x40080000, 1000, 1);
    ck_assert_int_eq(tm_run(m), 0);
    uint64_t user = 0x4008003c;             /* the first instruction at EL0 */
    ck_assert_uint_eq(tm_read(m, A64_EL0_COUNT, 8), 6);
    el0_expect(m, 0, KIND_LOWER_SYNC, SYS_TRAP(3, 3, 14, 0, 1, 3, 1), user + 4, A64_SP_EL0);     /* cntpct */
    el0_expect(m, 1, KIND_LOWER_SYNC, SYS_TRAP(3, 3, 14, 3, 1, 4, 0), user + 8, A64_SP_EL0);     /* cntv_ctl */
    el0_expect(m, 2, KIND_LOWER_SYNC, 0x02000000, user + 12, A64_SP_EL0);                        /* mpidr */
    el0_expect(m, 3, KIND_LOWER_SYNC, SYS_TRAP(3, 3, 9, 12, 0, 7, 1), user + 20, A64_SP_EL0);    /* pmcr */
    el0_expect(m, 4, KIND_LOWER_SYNC, 0x02000000, user + 28, A64_SP_EL0);                        /* pmuserenr write */
    el0_expect(m, 5, KIND_LOWER_SYNC, 0x56000001, user + 36, A64_SP_EL0);
    ck_assert_uint_eq(reg(m, UC_ARM64_REG_X8), 4);                  /* PMUSERENR_EL0 as EL1 wrote it */
    tm_destroy(m);
}
END_TEST

/* tests/unit/blobs/arm64_el1_sysreg.s: at EL1, MSR of a read-only register pmusim emulates
 * (MIDR_EL1, PMCEID0_EL0) is UNDEFINED (EC 0x00) and taken before the next instruction of its
 * block runs (x20 at the vector is the value set before the MSR).  Then the PMU's EL filters
 * (DDI 0487 D13.4, PMEVTYPER<n>_EL0.P and .U): counter 0 (P) counts EL0's 11 instructions (10
 * NOPs and the SVC) and nothing of EL1's, counter 1 (U) EL1's only: MSR PMCR_EL0 (the sync before
 * the write counts it), MSR SPSR_EL1, ERET and the vector's first MRS. */
START_TEST(arm64_el1_undefined_sysreg_is_precise_and_pmu_filters_by_el)
{
    Machine *m = tm_create(ARCH_ARM64, blob_arm64_el1_sysreg, blob_arm64_el1_sysreg_len, 0x40080000, 0x40080000,
                           1000, 1);
    ck_assert_int_eq(tm_run(m), 0);
    ck_assert_str_eq(m->exit_reason, "psci-system-off");
    ck_assert_uint_eq(tm_read(m, 0x40100000, 8), 0);            /* x20 at the MIDR_EL1 write */
    ck_assert_uint_eq(tm_read(m, 0x40100008, 8), 0x02000000);   /* EC 0, IL */
    ck_assert_uint_eq(tm_read(m, 0x40100010, 8), 1);            /* x20 at the PMCEID0_EL0 write */
    ck_assert_uint_eq(tm_read(m, 0x40100018, 8), 0x02000000);
    ck_assert_uint_eq(tm_read(m, 0x40100020, 8), 11);           /* EL0 only */
    ck_assert_uint_eq(tm_read(m, 0x40100028, 8), 4);            /* EL1 only */
    uint64_t ccnt = tm_read(m, 0x40100030, 8);
    ck_assert_msg(ccnt > 0 && ccnt < m->cl.cpus[0]->cycles, "PMCCNTR %" PRIu64, ccnt);
    tm_destroy(m);
}
END_TEST

/* tests/unit/blobs/arm64_unpriv.s: with the MMU on and RAM mapped for EL1 only (AP 0b00), LDR
 * goes ahead at EL1 while LDTR and STTR, which access as EL0 (DDI 0487 C6.2, "LDTR"), take a
 * Data Abort from the current EL (EC 0x25): a permission fault at level 1 (DFSC 0x0d), WnR for
 * STTR, FAR the address; each before the next instruction (x20 unchanged). */
START_TEST(arm64_ldtr_sttr_at_el1_use_el0_permissions)
{
    Machine *m = tm_create(ARCH_ARM64, blob_arm64_unpriv, blob_arm64_unpriv_len, 0x40080000, 0x40080000, 1000, 1);
    ck_assert_int_eq(tm_run(m), 0);
    ck_assert_str_eq(m->exit_reason, "psci-system-off");
    ck_assert_uint_eq(tm_read(m, 0x40100000, 8), 0x9600000dull);           /* LDTR: EC 0x25, IL, DFSC */
    ck_assert_uint_eq(tm_read(m, 0x40100008, 8), 0x40120008);
    ck_assert_uint_eq(tm_read(m, 0x40100010, 8), 0x9600004dull);           /* STTR: WnR */
    ck_assert_uint_eq(tm_read(m, 0x40100018, 8), 0x40120000);
    ck_assert_uint_eq(tm_read(m, 0x40100050, 8), 3);   /* x19 + 48 after two records: the LDR did not fault */
    tm_destroy(m);
}
END_TEST

/* tests/unit/blobs/arm64_smccc.s: with PSCI over HVC, a function the firmware does not implement
 * answers NOT_SUPPORTED (-1; SMC32 in W0) instead of an UNDEFINED HVC, and PSCI still answers. */
START_TEST(arm64_unknown_firmware_call_is_not_supported)
{
    Machine *m = tm_create(ARCH_ARM64, blob_arm64_smccc, blob_arm64_smccc_len, 0x40080000, 0x40080000, 1000, 1);
    ck_assert_int_eq(tm_run(m), 0);
    ck_assert_str_eq(m->exit_reason, "psci-system-off");
    ck_assert_uint_eq(tm_read(m, 0x40100000, 8), 0xffffffffull);            /* SMCCC_ARCH_SOC_ID, SMC32 */
    ck_assert_uint_eq(tm_read(m, 0x40100008, 8), UINT64_MAX);               /* an SMC64 vendor call */
    ck_assert_uint_eq(tm_read(m, 0x40100010, 8), 0x10000);                  /* PSCI 1.0 */
    ck_assert_uint_eq(tm_read(m, 0x40100018, 8), 0);                        /* no exception */
    tm_destroy(m);
}
END_TEST

/* tests/unit/blobs/arm64_psci.s, 3 CPUs: PSCI 1.0 and SMCCC 1.1 as real firmware answers them
 * (DEN 0022D, DEN 0028): the versions, PSCI_FEATURES and SMCCC_ARCH_FEATURES per function,
 * SYSTEM_RESET2 refused as FEATURES says, AFFINITY_INFO's three states, CPU_ON's errors,
 * CPU_SUSPEND (standby) and CPU_OFF. */
static const uint64_t psci_expected[] = {
    0x10000,                    /*  0 PSCI 1.0 */
    0x10001,                    /*  1 SMCCC 1.1 */
    0, 0, 0,                    /*  2-4 PSCI_FEATURES: SMCCC_VERSION, CPU_SUSPEND (original format), CPU_ON64 */
    0xffffffff, 0xffffffff,     /*  5-6 ... SYSTEM_RESET2, SYSTEM_SUSPEND: NOT_SUPPORTED in W0 */
    0xffffffff,                 /*  7 ... SMCCC_ARCH_FEATURES: not a PSCI function */
    1, 0xfffffffe, 1,           /*  8-10 SMCCC_ARCH_FEATURES: workarounds not required (2: do not call) */
    0xffffffff, 0,              /* 11-12 ... SOC_ID (SMCCC 1.2), ARCH_FEATURES itself */
    0xffffffff,                 /* 13 SYSTEM_RESET2 */
    2,                          /* 14 MIGRATE_INFO_TYPE: no Trusted OS */
    0, 1, 0,                    /* 15-17 AFFINITY_INFO: cpu 0 ON, cpu 1 OFF, their cluster (level 1) ON */
    (uint64_t)-2, (uint64_t)-9, /* 18-19 CPU_ON: no such MPIDR, an entry not word-aligned */
    0, (uint64_t)-5,            /* 20-21 CPU_ON: SUCCESS, then ON_PENDING */
    2,                          /* 22 AFFINITY_INFO: ON_PENDING */
    0xfffffffe,                 /* 23 CPU_SUSPEND with a RES0 bit */
    0,                          /* 24 CPU_ON(cpu 2) */
    1,                          /* 25 cpu 2 is OFF after its CPU_OFF */
    0,                          /* 26 cpu 1 suspended is ON */
    0xfffffffe, (uint64_t)-2,   /* 27-28 AFFINITY_INFO: level 4, a cluster without CPUs: INVALID_PARAMETERS */
};

START_TEST(arm64_psci_and_smccc_answer_as_firmware)
{
    Machine *m = tm_create(ARCH_ARM64, blob_arm64_psci, blob_arm64_psci_len, 0x40080000, 0x40080000, 10000000, 3);
    ck_assert_int_eq(tm_run(m), 0);
    ck_assert_str_eq(m->exit_reason, "psci-system-off");
    ck_assert_uint_eq(tm_read(m, 0x40100300, 8), 0);                        /* no exception */
    for (unsigned i = 0; i < ARRAY_SIZE(psci_expected); i++)
        ck_assert_msg(tm_read(m, 0x40100000 + 8 * i, 8) == psci_expected[i], "call %u: x0 0x%" PRIx64 ", expected 0x%"
                      PRIx64, i, tm_read(m, 0x40100000 + 8 * i, 8), psci_expected[i]);
    ck_assert_uint_eq(tm_read(m, 0x40100200, 8), 0x77);                     /* CPU_ON's context id in x0 */
    ck_assert_int_eq(m->cl.cpus[1]->state, CPU_HALTED);
    ck_assert_str_eq(m->cl.cpus[1]->stop_reason, "psci-cpu-suspend");
    ck_assert_int_eq(m->cl.cpus[2]->state, CPU_OFF);
    ck_assert_str_eq(m->cl.cpus[2]->stop_reason, "psci-cpu-off");
    tm_destroy(m);
}
END_TEST

START_TEST(arm64_fixture_runs_to_psci_off)
{
    Machine *m = a64_run(0);
    ck_assert_int_eq(m->exit_status, 0);
    ck_assert_str_eq(m->exit_reason, "psci-system-off");
    ck_assert_uint_eq(m->cl.cpus[0]->insns, 43);
    tm_destroy(m);
}
END_TEST

/* ------------------------------------------------------------------ ppc32 */

static Machine *ppc_run(uint64_t max)
{
    Machine *m = tm_create(ARCH_PPC32, blob_ppc32_exc, blob_ppc32_exc_len, 0, 0x3000, max, 1);
    tm_run(m);
    return m;
}

START_TEST(ppc32_sc_vectors_to_0xc00_with_next_pc)
{
    Machine *m = ppc_run(3);
    ck_assert_uint_eq(reg(m, UC_PPC_REG_PC), 0xc00);
    ck_assert_uint_eq(reg(m, UC_PPC_REG_MSR), 0x1000);                /* only ME survives */
    tm_destroy(m);
    m = ppc_run(5);
    ck_assert_uint_eq(reg(m, UC_PPC_REG_22), 0x300c);                 /* SRR0: after sc */
    ck_assert_uint_eq(reg(m, UC_PPC_REG_23), 0x1000);                 /* SRR1: the old MSR */
    tm_destroy(m);
}
END_TEST

START_TEST(ppc32_trap_and_illegal_set_srr1_reason)
{
    Machine *m = ppc_run(8);
    ck_assert_uint_eq(reg(m, UC_PPC_REG_20), 0x300c);                 /* SRR0: the tw itself */
    ck_assert_uint_eq(reg(m, UC_PPC_REG_21), 0x21000);                /* trap bit */
    tm_destroy(m);
    m = ppc_run(13);
    ck_assert_uint_eq(reg(m, UC_PPC_REG_20), 0x3010);
    ck_assert_uint_eq(reg(m, UC_PPC_REG_21), 0x81000);                /* illegal bit */
    tm_destroy(m);
}
END_TEST

START_TEST(ppc32_fixture_exits_through_debug_port)
{
    Machine *m = ppc_run(0);
    ck_assert_int_eq(m->exit_status, 15);                             /* (7 << 1) | 1 */
    ck_assert_uint_eq(m->cl.cpus[0]->insns, 20);
    tm_destroy(m);
}
END_TEST

/* Fixtures of their own (tests/unit/blobs/ppc32_excprio.s, ppc32_hung.s). */
extern const unsigned char blob_ppc32_excprio[], blob_ppc32_hung[];
extern const unsigned int blob_ppc32_excprio_len, blob_ppc32_hung_len;

static Machine *ppc_prio(uint64_t entry, uint64_t max)
{
    return tm_create(ARCH_PPC32, blob_ppc32_excprio, blob_ppc32_excprio_len, 0, entry, max, 1);
}

/* The log the 0x900/0xF00 handlers keep: entry i = (vector, SRR0). */
static uint32_t ppc_log(Machine *m, unsigned i, unsigned word)
{
    return (uint32_t)tm_read(m, 0x2800 + 8 * i + 4 * word, 4);
}

/* The first cycle at which the CPU's timebase reaches tb (TB = cycles at timebase-frequency). */
static uint64_t ppc_cycle_of_tb(Machine *m, uint64_t tb)
{
    uint64_t th = m->desc.cpus[0].timebase_hz, hz = m->clock.freq_hz;
    return (uint64_t)(((unsigned __int128)tb * hz + th - 1) / th);
}

/* A performance-monitor exception and a decrementer exception both pending when MSR[EE] becomes
 * 1: the performance monitor is taken first (MPC7450 RM table 4-3), the decrementer right after
 * its handler's rfi. */
START_TEST(ppc32_perfmon_is_taken_before_a_pending_decrementer)
{
    Machine *m = ppc_prio(0x3000, 100000);
    ck_assert_int_eq(tm_run(m), 1);                                   /* debug-exit, code 0 */
    uint32_t spin = (uint32_t)tm_read(m, 0x2ff0, 4);
    ck_assert_uint_eq(ppc_log(m, 0, 0), 0xf00);
    ck_assert_uint_eq(ppc_log(m, 0, 1), spin);                        /* right after mtmsr EE */
    ck_assert_uint_eq(ppc_log(m, 1, 0), 0x900);
    ck_assert_uint_eq(ppc_log(m, 1, 1), spin);                        /* right after the rfi */
    tm_destroy(m);
}
END_TEST

/* The external interrupt (the CPU's IRQ pin, raised as a controller would before the run) comes
 * before both (MPC7450 RM table 4-3: 4 external, 5 performance monitor, 6 decrementer), right
 * after the mtmsr that sets EE; taking it lowers the pin, so it is taken once. */
START_TEST(ppc32_external_interrupt_pin_is_taken_before_the_performance_monitor)
{
    Machine *m = ppc_prio(0x3000, 100000);
    mach_boot(m);
    IrqLine ext = vcpu_pin(m->cl.cpus[0], CPU_PIN_IRQ);
    irq_raise(&ext);
    ck_assert_int_eq(mach_run(m), 1);                                 /* two entries, then exit */
    uint32_t spin = (uint32_t)tm_read(m, 0x2ff0, 4);
    ck_assert_uint_eq(ppc_log(m, 0, 0), 0x500);
    ck_assert_uint_eq(ppc_log(m, 0, 1), spin);                        /* right after mtmsr EE */
    ck_assert_uint_eq(ppc_log(m, 1, 0), 0xf00);
    ck_assert_uint_eq(ppc_log(m, 1, 1), spin);                        /* right after the rfi */
    ck_assert(!m->cl.cpus[0]->pins.irq);
    tm_destroy(m);
}
END_TEST

/* At power-on DEC holds all ones and counts down with the timebase, unprogrammed. */
START_TEST(ppc32_dec_is_all_ones_at_power_on)
{
    Machine *m = ppc_prio(0x3400, 1);
    ck_assert_int_eq(tm_run(m), EXIT_LIMIT);
    ck_assert_uint_eq(reg(m, UC_PPC_REG_3), 0xffffffffu);             /* mfdec at TB 0 */
    tm_destroy(m);
}
END_TEST

/* The first decrementer exception of a guest that never writes DEC: when DEC passes through
 * zero, 2^32 ticks after power-on.  The clock is moved on by hand to 1000 cycles before. */
START_TEST(ppc32_unprogrammed_dec_fires_2_32_ticks_after_power_on)
{
    Machine *m = ppc_prio(0x3400, 1000000);
    uint64_t due = ppc_cycle_of_tb(m, 1ull << 32), t0 = due - 1000;
    uint64_t tb0 = t0 * m->desc.cpus[0].timebase_hz / m->clock.freq_hz;
    mach_boot(m);
    m->cl.cpus[0]->cycles = t0;
    m->clock.now = t0;
    ck_assert_int_eq(mach_run(m), 1);
    ck_assert_uint_eq(reg(m, UC_PPC_REG_3), (uint32_t)(0xffffffffu - tb0));  /* DEC counted down */
    ck_assert_uint_eq(ppc_log(m, 0, 0), 0x900);
    ck_assert_uint_eq(reg(m, UC_PPC_REG_5), 1);                       /* TBU: past 2^32 ... */
    ck_assert_uint_lt(reg(m, UC_PPC_REG_6), 10);                      /* ... by a few ticks */
    ck_assert_uint_ge(m->cl.cpus[0]->cycles, due);
    tm_destroy(m);
}
END_TEST

/* ppc32 CPUs do not sleep, so the decrementer every CPU runs from power-on wakes none: a machine
 * whose CPUs are all dead or held is hung (it is not kept running to the decrementer). */
START_TEST(ppc32_dead_and_held_cpus_are_hung_despite_the_decrementer)
{
    Machine *m = tm_create(ARCH_PPC32, blob_ppc32_hung, blob_ppc32_hung_len, 0, 0x700, 0, 2);
    m->cfg.max_cycles = 10000000;
    ck_assert_int_eq(tm_run(m), EXIT_HUNG);
    ck_assert_str_eq(m->exit_reason, "all-cpus-asleep");
    tm_destroy(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exceptions");
    TCase *x = tcase_create("x86_64");
    tcase_add_test(x, x86_int3_pushes_frame_and_enters_gate);
    tcase_add_test(x, x86_unknown_msr_is_gp_with_error_code);
    tcase_add_test(x, x86_ud2_is_ud_without_error_code);
    tcase_add_test(x, x86_handlers_return_and_hlt_sleeps_forever);
    tcase_add_test(x, x86_missing_idt_triple_faults);
    tcase_add_test(x, x86_nmi_blocked_until_iretq);
    suite_add_tcase(s, x);
    TCase *a = tcase_create("arm64");
    tcase_add_test(a, arm64_svc_enters_vbar_plus_0x200_with_syndrome);
    tcase_add_test(a, arm64_brk_udf_and_abort_syndromes);
    tcase_add_test(a, arm64_fixture_runs_to_psci_off);
    tcase_add_test(a, arm64_psci_and_smccc_answer_as_firmware);
    tcase_add_test(a, arm64_unknown_firmware_call_is_not_supported);
    tcase_add_test(a, arm64_fiq_and_irq_pins_are_taken_at_the_unmasking_instruction_fiq_first);
    tcase_add_test(a, arm64_exceptions_from_el0_enter_the_lower_el_vector_on_sp_el1);
    tcase_add_test(a, arm64_fiq_and_irq_from_el0_enter_the_lower_el_vectors);
    tcase_add_test(a, arm64_emulated_sysregs_at_el0_go_ahead_trap_or_are_undefined);
    tcase_add_test(a, arm64_el1_undefined_sysreg_is_precise_and_pmu_filters_by_el);
    tcase_add_test(a, arm64_ldtr_sttr_at_el1_use_el0_permissions);
    suite_add_tcase(s, a);
    TCase *p = tcase_create("ppc32");
    tcase_add_test(p, ppc32_sc_vectors_to_0xc00_with_next_pc);
    tcase_add_test(p, ppc32_trap_and_illegal_set_srr1_reason);
    tcase_add_test(p, ppc32_fixture_exits_through_debug_port);
    tcase_add_test(p, ppc32_perfmon_is_taken_before_a_pending_decrementer);
    tcase_add_test(p, ppc32_external_interrupt_pin_is_taken_before_the_performance_monitor);
    tcase_add_test(p, ppc32_dec_is_all_ones_at_power_on);
    tcase_add_test(p, ppc32_unprogrammed_dec_fires_2_32_ticks_after_power_on);
    tcase_add_test(p, ppc32_dead_and_held_cpus_are_hung_despite_the_decrementer);
    suite_add_tcase(s, p);
    return testutil_run(s);
}
