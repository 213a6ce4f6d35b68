/* test_fdt.c — the machine description: built-in boards, option edits, DTS files, and trees
 * pmusim refuses (with the node and the property named). */
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpu/cpu.h"
#include "sim/fdt.h"
#include "sim/machine.h"
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
    o = (FdtOptions){ .cpu_model = "mpc7448" };
    d = parse_ok(ARCH_PPC32, &o);
    ck_assert_uint_eq(d.cpus[0].model->id, 0x80040201);      /* MPC7448 v2.1 (Linux cputable 0x8004xxxx) */
    ck_assert_str_eq(d.cpus[0].model->compatible, "PowerPC,7448");
    o = (FdtOptions){ .cpu_model = "pentium" };
    const char *msg = build_error(ARCH_X86_64, &o);
    ck_assert_msg(strstr(msg, "unknown") && strstr(msg, "generic"), "%s", msg);
}
END_TEST

/* --gic-version rewrites the GIC node to QEMU virt's GICv2 or GICv3 layout (the GICv2's limit
 * of 8 CPUs is the interrupt controller's check, sim/intc.c); only arm64 has a GIC. */
START_TEST(gic_version_option_switches_the_interrupt_controller)
{
    FdtOptions o = { .gic_version = 2 };
    Error err = { { 0 } };
    void *fdt = dt_build(ARCH_ARM64, &o, &err);
    ck_assert_msg(fdt != NULL, "%s", err.msg);
    int node = fdt_node_offset_by_compatible(fdt, -1, "arm,cortex-a15-gic");
    ck_assert_int_ge(node, 0);
    ck_assert_int_lt(fdt_node_offset_by_compatible(fdt, -1, "arm,gic-v3"), 0);
    int len = 0;
    const fdt32_t *reg = fdt_getprop(fdt, node, "reg", &len);
    ck_assert_int_eq(len, 32);
    ck_assert_uint_eq(fdt32_to_cpu(reg[5]), 0x08010000u);     /* the CPU interface */
    MachineDesc d;
    ck_assert_msg(dt_parse(fdt, ARCH_ARM64, &d, &err), "%s", err.msg);
    free(fdt);
    o = (FdtOptions){ .gic_version = 3 };
    fdt = dt_build(ARCH_ARM64, &o, &err);
    ck_assert_int_ge(fdt_node_offset_by_compatible(fdt, -1, "arm,gic-v3"), 0);
    free(fdt);
    o = (FdtOptions){ .gic_version = 2 };
    const char *msg = build_error(ARCH_X86_64, &o);
    ck_assert_msg(strstr(msg, "arm64 only"), "%s", msg);
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
    uint8_t *old = malloc(len);                 /* version 15: libfdt's full check would crash */
    memcpy(old, blob, len);
    store_be(old + 20, 4, 15);
    o.machine_file = testutil_temp_file(old, len, ".dtb");
    msg = build_error(ARCH_ARM64, &o);
    ck_assert_msg(strstr(msg, o.machine_file) && strstr(msg, "offset 0x14") && strstr(msg, "version 15"), "%s", msg);
    remove(o.machine_file);
    free(old);
}
END_TEST

/* A DTS file for x86_64 with the given /cpus #address-cells, cpu reg and extra nodes. */
#define X86_HEAD                                                                                     \
    "/dts-v1/;\n/ { compatible = \"pmusim,x86_64\"; #address-cells = <2>; #size-cells = <2>;\n"    \
    "memory@0 { device_type = \"memory\"; reg = <0 0 0 0x8000000>; };\n"
#define X86_CPUS(acells, reg)                                                                       \
    "cpus { #address-cells = <" acells ">; #size-cells = <0>; cpu@0 { device_type = \"cpu\"; "     \
    "reg = <" reg ">; clock-frequency = <1000000000>; }; };\n"
#define X86_CPU X86_CPUS("1", "0")

/* Refused by dt_build (with --cpus) or dt_parse; the message must hold want1 and want2. */
static void expect_refused(Arch arch, const char *dts, int ncpus, const char *want1, const char *want2)
{
    FdtOptions o = { .machine_file = dts_file(dts), .ncpus = ncpus };
    const char *msg = build_error(arch, &o);
    ck_assert_msg(strstr(msg, want1) && strstr(msg, want2), "%s: %s", dts, msg);
    remove(o.machine_file);
}

/* With a GIC, the timer and the PMU say which PPIs they raise, and the GIC is a 3-cell
 * interrupt controller; the refusals name the node. */
START_TEST(gic_boards_need_their_interrupt_properties)
{
#define GIC(props) "intc@8000000 { compatible = \"arm,gic-v3\"; " props " reg = <0 0x8000000 0 0x10000>, " \
                   "<0 0x80a0000 0 0x20000>; };\n"
#define GIC_OK GIC("interrupt-controller; #interrupt-cells = <3>;")
    expect_refused(ARCH_ARM64, DTS_HEAD DTS_CPU GIC_OK "};", 0, "/timer", "interrupts is missing");
    expect_refused(ARCH_ARM64, DTS_HEAD DTS_CPU GIC("#interrupt-cells = <3>;") "};", 0, "/intc@8000000",
                   "interrupt-controller is missing");
    expect_refused(ARCH_ARM64, DTS_HEAD DTS_CPU GIC("interrupt-controller; #interrupt-cells = <2>;") "};", 0,
                   "/intc@8000000", "#interrupt-cells");
    expect_refused(ARCH_ARM64, DTS_HEAD DTS_CPU "pmu { compatible = \"arm,armv8-pmuv3\"; interrupts = <0 7 4>; };\n"
                   "};", 0, "/pmu", "not a PPI");
    expect_refused(ARCH_ARM64, DTS_HEAD DTS_CPU "pmu { compatible = \"arm,armv8-pmuv3\"; interrupts = <1 7>; };\n"
                   "};", 0, "/pmu", "property interrupts");
    expect_refused(ARCH_ARM64, "/dts-v1/;\n/ { compatible = \"pmusim,arm64\"; #address-cells = <2>; "
                   "#size-cells = <2>; interrupt-parent = <&gic>;\n"
                   "memory@40000000 { device_type = \"memory\"; reg = <0 0x40000000 0 0x1000000>; };\n"
                   "timer { compatible = \"arm,armv8-timer\"; clock-frequency = <1000000>; "
                   "interrupts = <1 13 4>, <1 14 4>, <1 11 4>, <1 10 4>; };\n" DTS_CPU
                   "gic: " GIC_OK "pl011@9000000 { compatible = \"arm,pl011\"; reg = <0 0x9000000 0 0x1000>; "
                   "interrupts = <1 1 4>; };\n};", 0, "/pl011@9000000", "not one of the GIC's SPIs");
    MachineDesc d;
    FdtOptions o = { 0 };
    d = parse_ok(ARCH_ARM64, &o);                                   /* the built-in board: QEMU virt's PPIs */
    ck_assert_uint_eq(d.timer_intid[0], 30);
    ck_assert_uint_eq(d.timer_intid[1], 27);
    ck_assert_uint_eq(d.pmu_intid, 23);
#undef GIC
#undef GIC_OK
}
END_TEST

START_TEST(cell_counts_beyond_two_are_refused_with_the_node)
{
    /* 3 cells overflowed the 8-byte reg of a --cpus clone; 0x40000001 cells wrapped len != cells * 4
     * and read gigabytes past the property */
    expect_refused(ARCH_X86_64, X86_HEAD X86_CPUS("3", "0 0 0") "};", 2, "/cpus", "#address-cells: 3");
    expect_refused(ARCH_X86_64, X86_HEAD X86_CPUS("3", "0 0 0") "};", 0, "/cpus", "#address-cells: 3");
    expect_refused(ARCH_X86_64, X86_HEAD X86_CPUS("0x40000001", "0") "};", 0, "/cpus", "#address-cells");
    expect_refused(ARCH_X86_64, X86_HEAD X86_CPUS("0x40000001", "0") "};", 2, "/cpus", "#address-cells");
    expect_refused(ARCH_X86_64, X86_HEAD X86_CPUS("0", "") "};", 0, "/cpus", "#address-cells: 0");
    /* the root's cells size memory and ISA ranges (ppc32: <1 0 cpu-address size>) */
    expect_refused(ARCH_X86_64,
                   "/dts-v1/;\n/ { compatible = \"pmusim,x86_64\"; #address-cells = <0x40000001>; #size-cells = <1>;\n"
                   "memory@0 { device_type = \"memory\"; reg = <0 0>; };\n" X86_CPU "};",
                   0, "node /:", "#address-cells");
    expect_refused(ARCH_PPC32,
                   "/dts-v1/;\n/ { compatible = \"pmusim,ppc32\"; #address-cells = <0x40000001>; #size-cells = <1>;\n"
                   "isa { compatible = \"isa\"; #address-cells = <2>; #size-cells = <1>; ranges = <1 0 0 0>; };\n"
                   "cpus { #address-cells = <1>; #size-cells = <0>; cpu@0 { device_type = \"cpu\"; reg = <0>; "
                   "clock-frequency = <1000000000>; timebase-frequency = <1000000>; }; };\n};",
                   0, "node /:", "#address-cells");
    expect_refused(ARCH_X86_64,
                   "/dts-v1/;\n/ { compatible = \"pmusim,x86_64\"; #address-cells = <2>; #size-cells = <3>;\n"
                   "memory@0 { device_type = \"memory\"; reg = <0 0 0 0 0x8000000>; };\n" X86_CPU "};",
                   0, "node /:", "#size-cells: 3");
    /* two cells are fine: a 64-bit hardware id */
    FdtOptions o = { .machine_file = dts_file(X86_HEAD X86_CPUS("2", "0 0") "};"), .ncpus = 3 };
    MachineDesc d = parse_ok(ARCH_X86_64, &o);
    ck_assert_int_eq(d.ncpus, 3);
    ck_assert_uint_eq(d.cpus[2].hwid, 2);
    remove(o.machine_file);
}
END_TEST

START_TEST(isa_children_must_be_device_models)
{
    /* each of these used to become an I/O device without a constructor, then a call through NULL */
    static const char *const compat[] = { "isa", "arm,psci-1.0", "pmusim,rom", "arm,armv8-timer",
                                          "arm,armv8-pmuv3", "arm,gic-v3" };
    for (size_t i = 0; i < ARRAY_SIZE(compat); i++) {
        char dts[1024];
        snprintf(dts, sizeof dts, X86_HEAD X86_CPU "isa { compatible = \"isa\"; #address-cells = <2>; "
                 "#size-cells = <1>; thing@i600 { compatible = \"%s\"; reg = <1 0x600 4>; }; };\n};", compat[i]);
        expect_refused(ARCH_X86_64, dts, 0, "/isa/thing@i600", "not an ISA device");
    }
    expect_refused(ARCH_X86_64,
                   X86_HEAD X86_CPU "isa { compatible = \"isa\"; #address-cells = <2>; #size-cells = <1>; };\n"
                   "isa2 { compatible = \"isa\"; #address-cells = <2>; #size-cells = <1>; };\n};",
                   0, "/isa2", "second ISA bus");
}
END_TEST

START_TEST(machine_files_must_be_bounded_regular_files)
{
    char dir[] = "/tmp/pmusim-test-XXXXXX", fifo[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    /* /dev/zero was read until the host ran out of memory; a FIFO blocked for a writer */
    struct { const char *path, *want; } cases[] = {
        { "/dev/zero", "a character device, not a regular file" },
        { dir, "a directory, not a regular file" },
        { fifo, "a FIFO, not a regular file" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        FdtOptions o = { .machine_file = cases[i].path };
        const char *msg = build_error(ARCH_X86_64, &o);
        ck_assert_msg(strstr(msg, cases[i].path) && strstr(msg, cases[i].want), "%s", msg);
    }
    unlink(fifo);
    rmdir(dir);
    size_t len = DT_FILE_MAX + 1;
    char *big = malloc(len);
    memset(big, ' ', len);
    FdtOptions o = { .machine_file = testutil_temp_file(big, len, ".dts") };
    free(big);
    const char *msg = build_error(ARCH_X86_64, &o);
    ck_assert_msg(strstr(msg, o.machine_file) && strstr(msg, "larger than 1 MiB"), "%s", msg);
    remove(o.machine_file);
}
END_TEST

START_TEST(machine_file_named_like_an_option_is_a_file)
{
    char dir[] = "/tmp/pmusim-test-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(chdir(dir), 0);                /* CK_FORK: only this test's process moves */
    const char *text = DTS_HEAD DTS_CPU "};\n";
    FILE *f = fopen("-q.dts", "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    FdtOptions o = { .machine_file = "-q.dts" };    /* dtc took it for its -q option */
    MachineDesc d = parse_ok(ARCH_ARM64, &o);
    ck_assert_str_eq(d.cpus[0].model->name, "cortex-a72");
    unlink("-q.dts");
    ck_assert_int_eq(chdir("/"), 0);
    rmdir(dir);
}
END_TEST

START_TEST(bootargs_up_to_the_limit_fit_and_longer_are_refused)
{
    char *args = malloc(40001);
    memset(args, 'x', 40000);
    args[DT_BOOTARGS_MAX] = 0;
    FdtOptions o = { .bootargs = args, .ncpus = 16 };
    Error err = { { 0 } };
    for (Arch a = 0; a < ARCH_COUNT; a++) {
        void *fdt = dt_build(a, &o, &err);
        ck_assert_msg(fdt != NULL, "%s", err.msg);
        int len;
        ck_assert_ptr_nonnull(fdt_getprop(fdt, fdt_path_offset(fdt, "/chosen"), "bootargs", &len));
        ck_assert_int_eq(len, DT_BOOTARGS_MAX + 1);
        free(fdt);
    }
    args[DT_BOOTARGS_MAX] = 'x';
    args[40000] = 0;                                /* used to be only FDT_ERR_NOSPACE */
    const char *msg = build_error(ARCH_ARM64, &o);
    ck_assert_msg(strstr(msg, "--bootargs") && strstr(msg, "40000") && strstr(msg, "4095"), "%s", msg);
    args[DT_BOOTARGS_MAX + 1] = 0;
    msg = build_error(ARCH_ARM64, &o);
    ck_assert_msg(strstr(msg, "--bootargs") && strstr(msg, "4096 characters"), "%s", msg);
    free(args);
}
END_TEST

START_TEST(cpus_clone_a_large_cpu_node)
{
    /* 16 clones of a 6 KiB cpu node outgrew the fixed 32 KiB of room (FDT_ERR_NOSPACE) */
    char dts[16384], *p = dts;
    p += sprintf(p, DTS_HEAD "cpus { #address-cells = <1>; #size-cells = <0>; cpu@0 { device_type = \"cpu\"; "
                 "compatible = \"arm,cortex-a72\"; reg = <0>; clock-frequency = <2000000000>; "
                 "enable-method = \"psci\";");
    for (int i = 0; i < 24; i++) {
        p += sprintf(p, " pad%d = [", i);
        for (int k = 0; k < 250; k++)
            p += sprintf(p, "%02x", k);
        p += sprintf(p, "];");
    }
    sprintf(p, " }; };\npsci { compatible = \"arm,psci-1.0\"; method = \"hvc\"; };\n};\n");
    FdtOptions o = { .machine_file = dts_file(dts), .ncpus = 16, .bootargs = "x" };
    MachineDesc d = parse_ok(ARCH_ARM64, &o);
    ck_assert_int_eq(d.ncpus, 16);
    remove(o.machine_file);
}
END_TEST

START_TEST(unterminated_strings_are_refused)
{
    size_t len;
    const void *board = dt_board_blob(ARCH_X86_64, &len);
    char fdt[65536];
    ck_assert_int_eq(fdt_open_into(board, fdt, sizeof fdt), 0);
    int node = fdt_path_offset(fdt, "/isa/serial@i3f8");
    ck_assert_int_eq(fdt_setprop(fdt, node, "status", "okay", 4), 0);     /* no NUL */
    fdt_pack(fdt);
    FdtOptions o = { .machine_file = testutil_temp_file(fdt, fdt_totalsize(fdt), ".dtb") };
    const char *msg = build_error(ARCH_X86_64, &o);
    ck_assert_msg(strstr(msg, "/isa/serial@i3f8") && strstr(msg, "status") && strstr(msg, "NUL"), "%s", msg);
    remove(o.machine_file);
}
END_TEST

START_TEST(windows_that_cannot_be_mapped_name_node_and_window)
{
    /* these reached the engine and came back as UC_ERR_MAP or UC_ERR_ARG, or mapped unreachable space */
#define PL011(reg) DTS_HEAD DTS_CPU "pl011@9000000 { compatible = \"arm,pl011\"; reg = <" reg ">; };\n"
    expect_refused(ARCH_ARM64, PL011("0 0x40001000 0 0x1000") "};", 0, "/pl011@9000000",
                   "0x40001000+0x1000 shares a 4 KiB page with the memory range 0x40000000+0x1000000 of node /memory");
    expect_refused(ARCH_ARM64, PL011("0 0x9000000 0 0x1000") "uart2 { compatible = \"arm,pl011\"; "
                   "reg = <0 0x9000800 0 0x800>; };\n};", 0, "/uart2", "shares a 4 KiB page");
    expect_refused(ARCH_ARM64, PL011("0x1000000 0 0 0x1000") "};", 0, "/pl011@9000000",
                   "0x100000000000000+0x1000 goes beyond the 52-bit physical address space of arm64");
    expect_refused(ARCH_ARM64, PL011("0xffffffff 0xfffff000 0 0x2000") "};", 0, "/pl011@9000000", "goes beyond");
    expect_refused(ARCH_ARM64, PL011("0 0x9000000 0 0") "};", 0, "/pl011@9000000", "is empty");
    /* I/O ports: inside the 64 Ki ports, not shared */
    expect_refused(ARCH_X86_64, X86_HEAD X86_CPU "isa { compatible = \"isa\"; #address-cells = <2>; #size-cells = <1>;"
                   " a@i3f8 { compatible = \"ns16550a\"; reg = <1 0x3f8 8>; };"
                   " b@i3fc { compatible = \"pmusim,isa-debug-exit\"; reg = <1 0x3fc 4>; }; };\n};",
                   0, "/isa/b@i3fc", "overlap those of node /isa/a@i3f8");
    expect_refused(ARCH_X86_64, X86_HEAD X86_CPU "isa { compatible = \"isa\"; #address-cells = <2>; #size-cells = <1>;"
                   " a@iffff { compatible = \"pmusim,isa-debug-exit\"; reg = <1 0xffff 4>; }; };\n};",
                   0, "/isa/a@iffff", "outside the 0x10000 ports");
#undef PL011
}
END_TEST

START_TEST(misaligned_memory_names_file_node_and_alignment)
{
    MachineConfig cfg = { .arch = ARCH_ARM64,
                          .machine_file = dts_file("/dts-v1/;\n/ { compatible = \"pmusim,arm64\"; #address-cells = <2>;"
                                                   " #size-cells = <2>;\nmemory@40000010 { device_type = \"memory\";"
                                                   " reg = <0 0x40000010 0 0x1000000>; };\ntimer { compatible = "
                                                   "\"arm,armv8-timer\"; clock-frequency = <1000000>; };\n" DTS_CPU
                                                   "};\n") };
    Machine *m = calloc(1, sizeof *m);
    Error err = { { 0 } };
    ck_assert(!mach_create(m, &cfg, &err));
    ck_assert_msg(strstr(err.msg, cfg.machine_file) && strstr(err.msg, "/memory@40000010") &&
                  strstr(err.msg, "4 KiB"), "%s", err.msg);
    mach_destroy(m);
    free(m);
    remove(cfg.machine_file);
}
END_TEST

/* A PL011 with its interrupts and clocks, as QEMU virt describes them: the parent's three cells,
 * the fixed clock clock-names calls uartclk; stdout-path through an alias, options dropped. */
#define DTS_GIC "gic: intc@8000000 { compatible = \"arm,gic-v3\"; #interrupt-cells = <3>; interrupt-controller; " \
                "reg = <0 0x8000000 0 0x10000>; };\n"
#define DTS_CLOCKS                                                                                          \
    "pclk: apb-pclk { compatible = \"fixed-clock\"; #clock-cells = <0>; clock-frequency = <24000000>; };\n" \
    "uclk: uart-clk { compatible = \"fixed-clock\"; #clock-cells = <0>; clock-frequency = <7372800>; };\n"
#define DTS_UART "pl011@9000000 { compatible = \"arm,pl011\"; reg = <0 0x9000000 0 0x1000>; "
/* DTS_HEAD with the root's interrupt-parent (properties come before the nodes). */
#define DTS_HEAD_GIC                                                                                \
    "/dts-v1/;\n/ { compatible = \"pmusim,arm64\"; #address-cells = <2>; #size-cells = <2>;\n"     \
    "interrupt-parent = <&gic>;\n"                                                                \
    "memory@40000000 { device_type = \"memory\"; reg = <0 0x40000000 0 0x1000000>; };\n"          \
    "timer { compatible = \"arm,armv8-timer\"; clock-frequency = <1000000>; "                     \
    "interrupts = <1 13 4>, <1 14 4>, <1 11 4>, <1 10 4>; };\n"

static const DevDesc *find_dev(const MachineDesc *d, const char *path)
{
    for (int i = 0; i < d->ndevs; i++)
        if (!strcmp(d->devs[i].path, path))
            return &d->devs[i];
    ck_abort_msg("no device %s", path);
    return NULL;
}

START_TEST(device_interrupts_clocks_and_stdout_path_are_read)
{
    FdtOptions o = { .machine_file = dts_file(
        DTS_HEAD_GIC DTS_CPU DTS_GIC DTS_CLOCKS
        "aliases { serial0 = \"/pl011@9000000\"; };\n"
        "chosen { stdout-path = \"serial0:115200n8\"; };\n"
        DTS_UART "interrupts = <0 1 4>, <0 7 1>;\n"
        "  clocks = <&pclk>, <&uclk>; clock-names = \"apb_pclk\", \"uartclk\"; };\n"
        "pl011@9040000 { compatible = \"arm,pl011\"; reg = <0 0x9040000 0 0x1000>; clocks = <&pclk>; };\n};\n") };
    MachineDesc d = parse_ok(ARCH_ARM64, &o);
    const DevDesc *u = find_dev(&d, "/pl011@9000000");
    ck_assert_int_eq(u->nirqs, 2);
    ck_assert_uint_eq(u->irq_cells, 3);
    ck_assert_uint_eq(u->irqs[0].cell[1], 1);
    ck_assert_uint_eq(u->irqs[1].cell[1], 7);
    ck_assert_uint_eq(u->irqs[1].cell[2], 1);
    ck_assert_str_eq(u->irq_parent, "/intc@8000000");
    ck_assert_uint_eq(u->clock_hz, 7372800);    /* the one named uartclk, not the first */
    const DevDesc *v = find_dev(&d, "/pl011@9040000");
    ck_assert_int_eq(v->nirqs, 0);
    ck_assert_uint_eq(v->clock_hz, 24000000);   /* no clock-names: the first */
    ck_assert_str_eq(d.stdout_path, "/pl011@9000000");
    remove(o.machine_file);

    d = parse_ok(ARCH_ARM64, &(FdtOptions){ 0 });  /* the board: SPI 1, 24 MHz, stdout-path */
    u = find_dev(&d, "/pl011@9000000");
    ck_assert_int_eq(u->nirqs, 1);
    ck_assert_uint_eq(u->irqs[0].cell[0], 0);
    ck_assert_uint_eq(u->irqs[0].cell[1], 1);
    ck_assert_uint_eq(u->clock_hz, 24000000);
    ck_assert_str_eq(d.stdout_path, "/pl011@9000000");
    d = parse_ok(ARCH_X86_64, &(FdtOptions){ 0 });
    ck_assert_str_eq(d.stdout_path, "/isa/serial@i3f8");
}
END_TEST

START_TEST(bad_interrupts_and_clocks_name_the_node)
{
    struct { const char *dts, *want; } cases[] = {
        { DTS_HEAD DTS_CPU DTS_UART "interrupts = <0 1 4>; };\n};", "no interrupt-parent" },
        { DTS_HEAD_GIC DTS_CPU DTS_GIC DTS_UART "interrupts = <0 1>; };\n};",
          "#interrupt-cells of /intc@8000000" },
        { DTS_HEAD DTS_CPU DTS_GIC DTS_UART
          "interrupt-parent = <&gic>; interrupts = <0 1 4>, <0 2 4>, <0 3 4>, <0 4 4>, <0 5 4>; };\n};",
          "1 to 4 entries" },
        { DTS_HEAD DTS_CPU "nc: intc { interrupt-controller; };\n" DTS_UART
          "interrupt-parent = <&nc>; interrupts = <1>; };\n};", "#interrupt-cells of 1 to 4" },
        { DTS_HEAD DTS_CPU "c: clk { #clock-cells = <0>; };\n" DTS_UART "clocks = <&c>; };\n};",
          "/clk has no clock-frequency" },
        { DTS_HEAD DTS_CPU DTS_UART "clocks = <0x77>; };\n};", "names no clock provider" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        FdtOptions o = { .machine_file = dts_file(cases[i].dts) };
        const char *msg = build_error(ARCH_ARM64, &o);
        ck_assert_msg(strstr(msg, "/pl011@9000000") && strstr(msg, cases[i].want), "case %zu: %s", i, msg);
        remove(o.machine_file);
    }
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
    tcase_add_test(t, gic_version_option_switches_the_interrupt_controller);
    tcase_add_test(t, dts_machine_file_is_compiled_and_parsed);
    tcase_add_test(t, bad_trees_name_node_and_property);
    tcase_add_test(t, broken_files_are_refused);
    tcase_add_test(t, cell_counts_beyond_two_are_refused_with_the_node);
    tcase_add_test(t, gic_boards_need_their_interrupt_properties);
    tcase_add_test(t, isa_children_must_be_device_models);
    tcase_add_test(t, machine_files_must_be_bounded_regular_files);
    tcase_add_test(t, machine_file_named_like_an_option_is_a_file);
    tcase_add_test(t, bootargs_up_to_the_limit_fit_and_longer_are_refused);
    tcase_add_test(t, cpus_clone_a_large_cpu_node);
    tcase_add_test(t, unterminated_strings_are_refused);
    tcase_add_test(t, windows_that_cannot_be_mapped_name_node_and_window);
    tcase_add_test(t, misaligned_memory_names_file_node_and_alignment);
    tcase_add_test(t, device_interrupts_clocks_and_stdout_path_are_read);
    tcase_add_test(t, bad_interrupts_and_clocks_name_the_node);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
