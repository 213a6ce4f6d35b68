/* fuzz_acpi.c — the ACPI table builder (sim/acpi.c) on the trees a --machine DTB gives.
 *
 * Input: the option header (fuzz.h: architecture, --cpus, --cpu-model, --bootargs; the quantum
 * byte is this harness's area size instead: 0 the BIOS area's 128 KiB, else n * 512 bytes, so
 * that tables which do not fit are refused too) and then a flattened device tree (its magic
 * forced: fz_dtb_file).  dt_build() makes the effective tree as the machine does (a refusal
 * there is fuzz_dtb's business); acpi_build() on it, whatever dt_parse would say, must build
 * the tables or refuse the tree with a message.  What it builds is read back: the RSDP at the
 * area's start with both checksums, every table of the XSDT inside the used bytes with its
 * checksum 0, the RSDT naming the same tables, the MP table's floating pointer and
 * configuration table with their checksums, the rest of the area zero.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sim/acpi.h"
#include "sim/fdt.h"

#define AREA_UNIT 512u

static uint8_t area[ACPI_AREA_SIZE];

static unsigned sum8(const uint8_t *p, size_t n)
{
    unsigned s = 0;
    while (n--)
        s += p[n];
    return s & 0xff;
}

/* The table at guest address `a`: inside the used bytes, checksum 0. */
static void check_table(uint64_t a, const AcpiInfo *info)
{
    if (a < ACPI_AREA_BASE || a - ACPI_AREA_BASE + 36 > info->used)
        fz_fail("acpi: a table at 0x%llx outside the %zu bytes used", (unsigned long long)a, info->used);
    const uint8_t *t = area + (a - ACPI_AREA_BASE);
    uint64_t len = load_le(t + 4, 4);
    if (len < 36 || a - ACPI_AREA_BASE + len > info->used || sum8(t, len))
        fz_fail("acpi: table %.4s at 0x%llx: length %llu or checksum wrong", (const char *)t, (unsigned long long)a,
                (unsigned long long)len);
}

/* The MP floating pointer and its configuration table: inside the used bytes, checksums 0. */
static void check_mp(const AcpiInfo *info)
{
    uint64_t f = info->mpfp - ACPI_AREA_BASE;
    if (info->mpfp < ACPI_AREA_BASE || f + 16 > info->used || memcmp(area + f, "_MP_", 4) || sum8(area + f, 16))
        fz_fail("acpi: no valid MP floating pointer at 0x%llx", (unsigned long long)info->mpfp);
    uint64_t c = load_le(area + f + 4, 4) - ACPI_AREA_BASE;
    if (c + 44 > info->used || c + load_le(area + c + 4, 2) > info->used || sum8(area + c, load_le(area + c + 4, 2)))
        fz_fail("acpi: the MP configuration table is outside the area or its checksum is wrong");
}

static void check_tables(const AcpiInfo *info, size_t size)
{
    const uint8_t *r = area;
    if (info->rsdp != ACPI_AREA_BASE || memcmp(r, "RSD PTR ", 8) || sum8(r, 20) || sum8(r, 36))
        fz_fail("acpi: no valid RSDP at the area's start");
    uint64_t xsdt = load_le(r + 24, 8), rsdt = load_le(r + 16, 4);
    check_table(xsdt, info);
    check_table(rsdt, info);
    const uint8_t *x = area + (xsdt - ACPI_AREA_BASE), *s = area + (rsdt - ACPI_AREA_BASE);
    uint64_t n = (load_le(x + 4, 4) - 36) / 8;
    if ((load_le(s + 4, 4) - 36) / 4 != n)
        fz_fail("acpi: the RSDT and the XSDT differ in length");
    for (uint64_t i = 0; i < n; i++) {
        check_table(load_le(x + 36 + 8 * i, 8), info);
        if (load_le(x + 36 + 8 * i, 8) != load_le(s + 36 + 4 * i, 4))
            fz_fail("acpi: the RSDT and the XSDT name different tables");
    }
    check_table(info->dsdt, info);
    check_mp(info);
    for (size_t i = info->used; i < size; i++)
        if (area[i])
            fz_fail("acpi: byte %zu after the tables is not zero", i);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FzOptions o;
    if (!fz_options(data, size, &o))
        return 0;
    size_t area_size = data[4] ? data[4] * AREA_UNIT : ACPI_AREA_SIZE;
    const char *path = fz_dtb_file(data + FZ_OPT_BYTES, size - FZ_OPT_BYTES);
    if (!path)
        return 0;
    FdtOptions fo = { path, o.ncpus, o.cpu_model, o.bootargs, 0, 0 };
    Error err = { { 0 } };
    void *fdt = dt_build(o.arch, &fo, &err);
    if (!fdt)
        return 0;
    AcpiInfo info;
    if (!acpi_build(fdt, area, area_size, &info, &err)) {
        if (!err.msg[0])
            fz_fail("acpi_build refused the tree without a message");
        fz_note("acpi_build: %s", err.msg);
    } else if (info.present) {
        fz_note("acpi_build: %d CPUs, %zu bytes", info.ncpus, info.used);
        check_tables(&info, area_size);
    }
    free(fdt);
    return 0;
}
