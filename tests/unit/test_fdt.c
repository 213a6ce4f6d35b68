/* test_fdt.c — the machine description: built-in boards, option edits, DTS files, and trees
 * pmusim refuses (with the node and the property named). */
#include <libfdt.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "sim/fdt.h"
#include "testutil.h"

static MachineDesc parse_ok(Arch arch, const FdtOptions *o)
{
    Error err = { { 0 } };
    void *fdt = dt_build(arch, o, &err);
    ck_assert_msg(fdt != NULL, "%s", err.msg);
    MachineDesc d;
    ck_assert_msg(dt_parse(fdt, arch, &d, &err), "%s", err.msg);
    free(fdt);
    return d;
}

static const char *build_error(Arch arch, const FdtOptions *o)
{
    static Error err;
    memset(&err, 0, sizeof err);
    void *fdt = dt_build(arch, o, &err);
    if (fdt) {
        MachineDesc d;
        bool ok = dt_parse(fdt, arch, &d, &err);
        free(fdt);
        ck_assert_msg(!ok, "the tree was accepted");
    }
    return err.msg;
}

START_TEST(builtin_boards_describe_their_devices)
{
    FdtOptions o = { 0 };
    MachineDesc d = parse_ok(ARCH_ARM64, &o);
    ck_assert_int_eq(d.ncpus, 1);
    ck_assert_uint_eq(d.mem[0].base, 0x40000000);
    ck_assert(d.psci);
    ck_assert_uint_eq(d.timer_hz, 62500000);
    ck_assert_str_eq(d.cpus[0].model->name, "cortex-a57");
    bool uart = false;
    for (int i = 0; i < d.ndevs; i++)
        if (!strcmp(d.devs[i].compatible, "arm,pl011"))
            uart = d.devs[i].base == 0x09000000 && !d.devs[i].io;
    ck_assert(uart);

    d = parse_ok(ARCH_X86_64, &o);
    ck_assert_uint_eq(d.mem[0].base, 0);
    bool com1 = false, exitdev = false;
    for (int i = 0; i < d.ndevs; i++) {
        com1 |= !strcmp(d.devs[i].compatible, "ns16550a") && d.devs[i].io && d.devs[i].base == 0x3f8;
        exitdev |= !strcmp(d.devs[i].compatible, "pmusim,isa-debug-exit") && d.devs[i].base == 0xf4;
    }
    ck_assert(com1 && exitdev);

    d = parse_ok(ARCH_PPC32, &o);
    ck_assert(d.isa_window);
    ck_assert_uint_eq(d.isa_base, 0x80000000);
    ck_assert_uint_eq(d.cpus[0].timebase_hz, 100000000);
    ck_assert_str_eq(d.cpus[0].model->name, "mpc7450");
    bool rom = false;
    for (int i = 0; i < d.nmem; i++)
        rom |= d.mem[i].rom && d.mem[i].base == 0xfff00000;
    ck_assert(rom);
}
END_TEST

START_TEST(cpus_option_clones_in_order_with_board_ids)
{
    FdtOptions o = { .ncpus = 4 };
    MachineDesc d = parse_ok(ARCH_X86_64, &o);
    ck_assert_int_eq(d.ncpus, 4);
    for (int i = 0; i < 4; i++)
        ck_assert_uint_eq(d.cpus[i].hwid, (uint64_t)i);
    ck_assert_int_eq(d.cpus[0].enable, ENABLE_BOOT);
    ck_assert_int_eq(d.cpus[3].enable, ENABLE_SPIN_TABLE);
    ck_assert_uint_eq(d.cpus[3].release_addr, 0xf000 + 8 * 3);

    d = parse_ok(ARCH_PPC32, &o);
    ck_assert_uint_eq(d.cpus[2].release_addr, 0xf000 + 32 * 2);

    o.ncpus = 16;
    d = parse_ok(ARCH_ARM64, &o);
    ck_assert_int_eq(d.cpus[15].enable, ENABLE_PSCI);
    ck_assert_uint_eq(d.cpus[15].hwid, 15);
    o.ncpus = 2;
    d = parse_ok(ARCH_ARM64, &o);
    ck_assert_int_eq(d.ncpus, 2);
    ck_assert_uint_eq(d.cpus[1].hwid, 1);
}
END_TEST

START_TEST(cpu_model_and_bootargs_options_edit_the_tree)
{
    FdtOptions o = { .ncpus = 2, .cpu_model = "cortex-a53", .bootargs = "watchdog_thresh=1 nolockup" };
    Error err = { { 0 } };
    void *fdt = dt_build(ARCH_ARM64, &o, &err);
    ck_assert_ptr_nonnull(fdt);
    MachineDesc d;
    ck_assert(dt_parse(fdt, ARCH_ARM64, &d, &err));
    ck_assert_str_eq(d.cpus[1].model->name, "cortex-a53");
    const char *args = fdt_getprop(fdt, fdt_path_offset(fdt, "/chosen"), "bootargs", NULL);
    ck_assert_str_eq(args, "watchdog_thresh=1 nolockup");
    free(fdt);
    o = (FdtOptions){ .cpu_model = "mpc7447a" };
    d = parse_ok(ARCH_PPC32, &o);
    ck_assert_uint_eq(d.cpus[0].model->id, 0x80030102);
    o = (FdtOptions){ .cpu_model = "pentium" };
    const char *msg = build_error(ARCH_X86_64, &o);
    ck_assert_msg(strstr(msg, "unknown") && strstr(msg, "generic"), "%s", msg);
}
END_TEST

static const char *dts_file(const char *text)
{
    return testutil_temp_file(text, strlen(text), ".dts");
}

#define DTS_HEAD                                                                                  \
    "/dts-v1/;\n/ { compatible = \"pmusim,arm64\"; #address-cells = <2>; #size-cells = <2>;\n" \
    "memory@40000000 { device_type = \"memory\"; reg = <0 0x40000000 0 0x1000000>; };\n"        \
    "timer { compatible = \"arm,armv8-timer\"; clock-frequency = <1000000>; };\n"
#define DTS_CPU "cpus { #address-cells = <1>; #size-cells = <0>; cpu@0 { device_type = \"cpu\"; " \
                "compatible = \"arm,cortex-a72\"; reg = <0>; clock-frequency = <2000000000>; }; };\n"

START_TEST(dts_machine_file_is_compiled_and_parsed)
{
    FdtOptions o = { .machine_file = dts_file(DTS_HEAD DTS_CPU "};\n") };
    MachineDesc d = parse_ok(ARCH_ARM64, &o);
    ck_assert_int_eq(d.ncpus, 1);
    ck_assert_str_eq(d.cpus[0].model->name, "cortex-a72");
    ck_assert_uint_eq(d.cpus[0].clock_hz, 2000000000);
    ck_assert_uint_eq(d.mem[0].size, 0x1000000);
    remove(o.machine_file);
}
END_TEST

START_TEST(bad_trees_name_node_and_property)
{
    struct { const char *dts, *want1, *want2; } cases[] = {
        { DTS_HEAD DTS_CPU "gpio@9030000 { compatible = \"arm,pl061\"; reg = <0 0x9030000 0 0x1000>; };\n};",
          "/gpio@9030000", "compatible" },
        { DTS_HEAD "cpus { #address-cells = <1>; #size-cells = <0>; cpu@0 { device_type = \"cpu\"; "
                   "compatible = \"arm,cortex-a72\"; reg = <0>; }; };\n};",
          "/cpus/cpu@0", "clock-frequency" },
        { DTS_HEAD DTS_CPU "psci { compatible = \"arm,psci-1.0\"; method = \"smc\"; };\n};", "/psci", "method" },
        { DTS_HEAD "cpus { #address-cells = <1>; #size-cells = <0>; cpu@0 { device_type = \"cpu\"; "
                   "compatible = \"arm,cortex-a72\"; reg = <0>; clock-frequency = <1000>; };\n"
                   "cpu@1 { device_type = \"cpu\"; compatible = \"arm,cortex-a72\"; reg = <1>; "
                   "clock-frequency = <1000>; }; };\n};",
          "/cpus/cpu@1", "enable-method" },
        { DTS_HEAD DTS_CPU "serial@1000 { compatible = \"arm,pl011\"; reg = <0 0x1000>; };\n};", "/serial@1000",
          "reg" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        FdtOptions o = { .machine_file = dts_file(cases[i].dts) };
        const char *msg = build_error(ARCH_ARM64, &o);
        ck_assert_msg(strstr(msg, cases[i].want1) && strstr(msg, cases[i].want2), "case %zu: %s", i, msg);
        remove(o.machine_file);
    }
}
END_TEST

START_TEST(broken_files_are_refused)
{
    FdtOptions o = { .machine_file = dts_file("/dts-v1/;\n/ { this is not dts\n") };
    const char *msg = build_error(ARCH_ARM64, &o);
    ck_assert_msg(strstr(msg, o.machine_file) && strstr(msg, "dtc"), "%s", msg);
    remove(o.machine_file);
    size_t len;
    const uint8_t *blob = dt_board_blob(ARCH_ARM64, &len);
    o.machine_file = testutil_temp_file(blob, len / 2, ".dtb");                /* truncated */
    msg = build_error(ARCH_ARM64, &o);
    ck_assert_msg(strstr(msg, o.machine_file) && strstr(msg, "malformed"), "%s", msg);
    remove(o.machine_file);
    o.machine_file = testutil_temp_file(blob, len, ".dtb");                    /* wrong arch */
    msg = build_error(ARCH_PPC32, &o);
    ck_assert_msg(strstr(msg, "arm64"), "%s", msg);
    remove(o.machine_file);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fdt");
    TCase *t = tcase_create("machine-description");
    tcase_set_timeout(t, 30);
    tcase_add_test(t, builtin_boards_describe_their_devices);
    tcase_add_test(t, cpus_option_clones_in_order_with_board_ids);
    tcase_add_test(t, cpu_model_and_bootargs_options_edit_the_tree);
    tcase_add_test(t, dts_machine_file_is_compiled_and_parsed);
    tcase_add_test(t, bad_trees_name_node_and_property);
    tcase_add_test(t, broken_files_are_refused);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
