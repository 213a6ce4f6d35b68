/* dtb — the boot hand-over of QEMU's virt board, as a raw image sees it: x0 = the DTB above
 * the image (its BSS included) on an 8-byte boundary, x1..x3 = 0, a valid tree whose /memory,
 * /chosen and /psci describe the board, PSCI answering over HVC; then SYSTEM_OFF.
 *
 * virt-bootargs: virt-test console=ttyAMA0 answer=42
 */
#include "runtime/virt.h"

#define FDT_TOTALSIZE_AT    4

static u32 fdt_totalsize(const void *fdt)
{
    const u8 *b = (const u8 *)fdt + FDT_TOTALSIZE_AT;
    return (u32)b[0] << 24 | (u32)b[1] << 16 | (u32)b[2] << 8 | b[3];
}

/* Whether a string-list property holds `want`. */
static bool has_string(const void *fdt, int node, const char *prop, const char *want)
{
    int len;
    const char *p = fdt_prop(fdt, node, prop, &len);

    for (int at = 0; p && at < len; at += (int)strnlen(p + at, (size_t)(len - at)) + 1)
        if (!strcmp(p + at, want))
            return true;
    return false;
}

static void check_entry(u64 dtb, u64 end)
{
    printf("virt-dtb: a raw image at 0x%lx, entered at its first byte\n", (u64)virt_head);
    printf("x0 = 0x%lx\n", dtb);
    virt_check(!virt_boot_regs[1] && !virt_boot_regs[2] && !virt_boot_regs[3], "x1, x2, x3 = 0");
    virt_check(dtb % 8 == 0, "the dtb on an 8-byte boundary");
    virt_check(dtb >= end, "the dtb above the image's end, BSS included (image_size 0x%lx)", end - (u64)virt_head);
    virt_check(boot_fdt != NULL, "the dtb: magic 0xd00dfeed, version 17");
}

static void check_memory(const void *fdt, u64 dtb)
{
    unsigned sc, ac = virt_root_cells(fdt, &sc);
    int len;
    const void *reg = fdt_prop(fdt, fdt_path(fdt, "/memory"), "reg", &len);
    bool ok = reg && len == (int)(4 * (ac + sc));

    virt_check(ok, "/memory: one range of %u + %u cells", ac, sc);
    if (!ok)
        return;
    u64 base = fdt_read_cells(reg, ac), size = fdt_read_cells((const u32 *)reg + ac, sc);
    printf("/memory: 0x%lx bytes at 0x%lx\n", size, base);
    virt_check(base <= (u64)virt_head && dtb + fdt_totalsize(fdt) <= base + size, "the image and the dtb in it");
}

static void check_tree(const void *fdt)
{
    int chosen = fdt_path(fdt, "/chosen"), psci = fdt_path(fdt, "/psci");
    const char *bootargs = fdt_prop_str(fdt, chosen, "bootargs");
    const char *stdout_path = fdt_prop_str(fdt, chosen, "stdout-path");
    const char *method = fdt_prop_str(fdt, psci, "method");

    printf("/chosen/bootargs: %s\n", bootargs ? bootargs : "(none)");
    printf("/chosen/stdout-path: %s\n", stdout_path ? stdout_path : "(none)");
    virt_check(has_string(fdt, fdt_path(fdt, "/"), "compatible", "linux,dummy-virt"), "/: compatible linux,dummy-virt");
    virt_check(has_string(fdt, psci, "compatible", "arm,psci-1.0"), "/psci: compatible arm,psci-1.0");
    virt_check(method && !strcmp(method, "hvc"), "/psci: method hvc");
    virt_check(fdt_count_cpus(fdt) == 1, "/cpus: one cpu");
}

static void check_psci(void)
{
    s32 v = virt_psci(PSCI_VERSION, 0, 0, 0);

    virt_check(v >= 0x10000, "PSCI_VERSION: 1.0 or later");
    printf("MIGRATE_INFO_TYPE: %d\n", virt_psci(PSCI_MIGRATE_INFO_TYPE, 0, 0, 0));
    printf("PSCI_FEATURES(CPU_ON): %d\n", virt_psci(PSCI_FEATURES, PSCI_CPU_ON, 0, 0));
    printf("an unknown HVC function: %d\n", virt_psci(PSCI_VERSION | 0xff, 0, 0, 0));
}

int main(void)
{
    u64 dtb = virt_boot_regs[0];

    check_entry(dtb, (u64)__image_end);
    if (boot_fdt) {
        check_memory(boot_fdt, dtb);
        check_tree(boot_fdt);
    }
    check_psci();
    return virt_done("virt-dtb");
}
