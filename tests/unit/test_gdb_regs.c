/* test_gdb_regs.c — the target descriptions of cpu/gdb_regs.c: gdb numbers registers in the
 * order of the description, and its standard features need their registers in gdb's own order
 * (gdb/features: i386/64bit-core.xml, aarch64-core.xml, rs6000/power-core.xml). */
#include <string.h>

#include "cpu/gdb_regs.h"
#include "testutil.h"

static const char *reg_name(Arch a, unsigned n)
{
    const GdbReg *r = gdb_reg(gdb_target(a), n);
    return r ? r->name : "(none)";
}

START_TEST(core_features_in_gdb_order)
{
    /* x86-64: 16 GPRs, rip, eflags, 6 selectors, st0-7, 8 x87 control registers = 40 */
    ck_assert_str_eq(reg_name(ARCH_X86_64, 0), "rax");
    ck_assert_str_eq(reg_name(ARCH_X86_64, 7), "rsp");
    ck_assert_str_eq(reg_name(ARCH_X86_64, 16), "rip");
    ck_assert_str_eq(reg_name(ARCH_X86_64, 24), "st0");
    ck_assert_str_eq(reg_name(ARCH_X86_64, 39), "fop");
    ck_assert_str_eq(reg_name(ARCH_X86_64, 40), "xmm0");
    /* AArch64: x0-x30, sp, pc, cpsr */
    ck_assert_str_eq(reg_name(ARCH_ARM64, 31), "sp");
    ck_assert_str_eq(reg_name(ARCH_ARM64, 32), "pc");
    ck_assert_str_eq(reg_name(ARCH_ARM64, 33), "cpsr");
    ck_assert_uint_eq(gdb_reg(gdb_target(ARCH_ARM64), 33)->bits, 32);
    /* PowerPC: r0-r31, pc, msr, cr, lr, ctr, xer, all 32 bits on the 7450 */
    ck_assert_str_eq(reg_name(ARCH_PPC32, 32), "pc");
    ck_assert_str_eq(reg_name(ARCH_PPC32, 37), "xer");
    ck_assert_uint_eq(gdb_reg(gdb_target(ARCH_PPC32), 33)->bits, 32);
}
END_TEST

START_TEST(pmu_registers_are_described)
{
    static const char *const want[ARCH_COUNT][3] = {
        [ARCH_X86_64] = { "fs_base", "gs_base", "cr3" },
        [ARCH_ARM64] = { "pmccntr_el0", "pmcr_el0", "pmevcntr5_el0" },
        [ARCH_PPC32] = { "mmcr0", "pmc6", "siar" },
    };
    for (int a = 0; a < ARCH_COUNT; a++) {
        const GdbTarget *t = gdb_target((Arch)a);
        for (int k = 0; k < 3; k++) {
            bool found = false;
            for (unsigned i = 0; i < gdb_nregs(t); i++)
                found |= !strcmp(gdb_reg(t, i)->name, want[a][k]);
            ck_assert_msg(found, "%s has no %s", isa_name((Arch)a), want[a][k]);
        }
        ck_assert_ptr_null(gdb_reg(t, gdb_nregs(t)));
    }
}
END_TEST

START_TEST(description_is_whole_and_bounded)
{
    static char xml[32768];
    for (int a = 0; a < ARCH_COUNT; a++) {
        const GdbTarget *t = gdb_target((Arch)a);
        size_t n = gdb_target_xml(t, xml, sizeof xml);
        ck_assert_uint_gt(n, 0);
        ck_assert_uint_eq(strlen(xml), n);
        ck_assert_ptr_nonnull(strstr(xml, t->architecture));
        ck_assert_ptr_nonnull(strstr(xml, "</target>\n"));
        size_t regs = 0;
        for (const char *p = xml; (p = strstr(p, "<reg name=")); p++)
            regs++;
        ck_assert_uint_eq(regs, gdb_nregs(t));
        ck_assert_uint_eq(gdb_target_xml(t, xml, n), 0);    /* one byte short: refused */
    }
    ck_assert_str_eq(gdb_target(ARCH_PPC32)->architecture, "powerpc:7400");   /* BFD has no 7450 */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gdb_regs");
    TCase *t = tcase_create("descriptions");
    tcase_add_test(t, core_features_in_gdb_order);
    tcase_add_test(t, pmu_registers_are_described);
    tcase_add_test(t, description_is_whole_and_bounded);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
