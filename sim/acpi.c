/* acpi.c — the ACPI tables of an x86 machine, built from its device tree (acpi.h).
 *
 * Layout in the BIOS area (offsets from ACPI_AREA_BASE, 0xE0000; each table 16-byte aligned,
 * the FACS 64-byte aligned as ACPI 6.4 §5.2.10 requires), in this order, then the MP table at
 * 0xF0000 (below):
 *   RSDP   36 bytes at offset 0      §5.2.5.3: revision 2, RSDT and XSDT addresses, both checksums
 *   FACS   64                        §5.2.10: version 2, no waking vector (no sleep states but S5)
 *   DSDT   36 + AML                  §5.2.11.1: \_S5 only (the AML below)
 *   FADT   276                       §5.2.9: revision 6, minor 4 (ACPI 6.4); fields below
 *   MADT   44 + entries              §5.2.12: revision 5
 *   RSDT   36 + 4 per table          §5.2.7: FADT, MADT
 *   XSDT   36 + 8 per table          §5.2.8: FADT, MADT
 * Every table starts with the §5.2.6 header (signature, length, revision, checksum, OEM ID
 * "PMUSIM", OEM table ID "PMUSIMPC", OEM revision 1, creator "PMUS", revision 1), and its bytes
 * sum to 0 modulo 256 (the RSDP: its first 20 bytes, and all 36 for the extended checksum).
 *
 * The MADT (§5.2.12): local APIC address from the `intel,ce4100-lapic` node (0xFEE00000, the
 * IA32_APIC_BASE reset value, without one), flags PCAT_COMPAT (the PC's 8259s); then
 *   type 0 Processor Local APIC (§5.2.12.2) per cpu node, in tree order: ACPI Processor UID =
 *          the CPU's index, APIC ID = its reg, flags Enabled
 *   type 1 I/O APIC (§5.2.12.3) of the `intel,ce4100-ioapic` node: ID 0 (the 82093AA's ID
 *          register resets to 0; QEMU's MADT says 0 too), its reg address, GSI base 0
 *   type 2 Interrupt Source Overrides (§5.2.12.5), with the I/O APIC only, as on a PC: ISA IRQ 0
 *          (the PIT) -> GSI 2, flags "conforms to the bus"; IRQ 9 (the SCI) -> GSI 9, level,
 *          active high (§5.2.12.5 Table "MPS INTI Flags")
 *   type 4 Local APIC NMI (§5.2.12.7): all processors (UID 0xFF), LINT1, as QEMU's
 *
 * The FADT (§5.2.9) for the `pmusim,acpi-pm` node at I/O port P (sim/dev/acpi_pm.h):
 *   PM1a_EVT_BLK P (4 bytes), PM1a_CNT_BLK P+4 (2), PM_TMR_BLK P+8 (4), and the same as X_
 *   Generic Address Structures (§5.2.3.2: System I/O, width 8 * length, access size 0 as the
 *   legacy blocks have it); no PM1b, PM2 or GPE blocks; SCI_INT 9; SMI_CMD 0 (no SMM: the
 *   machine is in ACPI mode from power-on, PM1_CNT.SCI_EN reads 1); P_LVL2_LAT 101 and
 *   P_LVL3_LAT 1001 (no C2, no C3: §5.2.9 "a value > 100 / > 1000 indicates the system does not
 *   support a C2 / C3 state"); CENTURY 0 (no century register is promised to the RTC's user);
 *   IAPC_BOOT_ARCH (§5.2.9.3) LEGACY_DEVICES | VGA_NOT_PRESENT | MSI_NOT_SUPPORTED, without
 *   8042 (pmusim models no keyboard controller, so Linux does not probe one);
 *   flags (§5.2.9 Table "Fixed ACPI Description Table Fixed Feature Flags") WBINVD, PROC_C1,
 *   PWR_BUTTON and SLP_BUTTON (no fixed buttons), FIX_RTC (no RTC wake status in PM1),
 *   TMR_VAL_EXT (the timer has 32 bits), and RESET_REG_SUP with a `pmusim,reset-control` node:
 *   RESET_REG its port (System I/O, 8 bits, byte access), RESET_VALUE 0x06;
 *   FIRMWARE_CTRL and X_FIRMWARE_CTRL the FACS, DSDT and X_DSDT the DSDT (both forms equal,
 *   which ACPICA's checks of the 32/64-bit pairs accept).
 * No HPET table: pmusim models no HPET.
 *
 * Beside them, for guests that read the older table (Linux with acpi=off, arch/x86/kernel/
 * mpparse.c; xv6 and other hobby kernels), an MP table (Intel MultiProcessor Specification 1.4,
 * chapter 4) at offset MP_AREA_OFF (0xF0000, inside the 0xF0000-0xFFFFF Linux's
 * smp_scan_config searches): the floating pointer (16 bytes, spec revision 4, "configuration
 * table present", IMCR absent: virtual wire mode), then the configuration table ("PCMP",
 * OEM "PMUSIM", product "PC") with the same facts as the MADT:
 *   type 0 Processor (§4.3.1) per cpu node: its APIC ID, version 0x14 (the local APIC model's),
 *          enabled, the first one the bootstrap processor; no CPU signature or feature flags
 *          (CPUID gives them)
 *   type 1 Bus (§4.3.2) 0, "ISA   "
 *   type 2 I/O APIC (§4.3.3), with the I/O APIC node: ID 0, version 0x11 (82093AA), enabled
 *   type 3 I/O Interrupt Assignments (§4.3.4), with it: ISA IRQ n -> INTIN n for the 15 IRQs
 *          but 2 (the cascade), IRQ 0 -> INTIN 2 and IRQ 9 level, active high, as the MADT says
 *   type 4 Local Interrupt Assignments (§4.3.5): ExtINT -> LINT0 and NMI -> LINT1 of all
 *          local APICs (the virtual-wire setup of §3.6.2.2)
 */
#include "sim/acpi.h"

#include <libfdt.h>
#include <stdio.h>
#include <string.h>

#include "sim/dev/acpi_pm.h"

/* ------------------------------------------------------------------ what the tables say */

#define OEM_ID "PMUSIM"             /* 6 bytes */
#define OEM_TABLE_ID "PMUSIMPC"     /* 8 bytes */
#define CREATOR_ID "PMUS"
enum { OEM_REVISION = 1, CREATOR_REVISION = 1 };

enum {
    SDT_HEADER = 36,                /* §5.2.6 */
    RSDP_LEN = 36, RSDP_V1_LEN = 20, RSDP_REVISION = 2,
    RSDT_REVISION = 1, XSDT_REVISION = 1,
    FACS_LEN = 64, FACS_ALIGN = 64, FACS_VERSION = 2, FACS_VERSION_OFF = 32,
    FADT_LEN = 276, FADT_REVISION = 6, FADT_MINOR = 4,
    MADT_REVISION = 5, MADT_FIXED = 44,
    DSDT_REVISION = 2,              /* 64-bit integers in the AML */
    TABLE_ALIGN = 16,
};

/* FADT field offsets (§5.2.9, Table "FADT Format"). */
enum {
    FADT_FIRMWARE_CTRL = 36, FADT_DSDT = 40, FADT_SCI_INT = 46, FADT_SMI_CMD = 48,
    FADT_PM1A_EVT_BLK = 56, FADT_PM1A_CNT_BLK = 64, FADT_PM_TMR_BLK = 76,
    FADT_PM1_EVT_LEN = 88, FADT_PM1_CNT_LEN = 89, FADT_PM_TMR_LEN = 91,
    FADT_P_LVL2_LAT = 96, FADT_P_LVL3_LAT = 98, FADT_CENTURY = 108, FADT_IAPC_BOOT_ARCH = 109,
    FADT_FLAGS = 112, FADT_RESET_REG = 116, FADT_RESET_VALUE = 128, FADT_MINOR_VERSION = 131,
    FADT_X_FIRMWARE_CTRL = 132, FADT_X_DSDT = 140, FADT_X_PM1A_EVT_BLK = 148, FADT_X_PM1A_CNT_BLK = 172,
    FADT_X_PM_TMR_BLK = 208,
};
enum { P_LVL2_NONE = 101, P_LVL3_NONE = 1001 };
/* IAPC_BOOT_ARCH (§5.2.9.3). */
enum { BOOT_LEGACY_DEVICES = 1u << 0, BOOT_8042 = 1u << 1, BOOT_VGA_NOT_PRESENT = 1u << 2,
       BOOT_MSI_NOT_SUPPORTED = 1u << 3 };
/* FADT flags (§5.2.9, "Fixed Feature Flags"). */
enum { FF_WBINVD = 1u << 0, FF_PROC_C1 = 1u << 2, FF_PWR_BUTTON = 1u << 4, FF_SLP_BUTTON = 1u << 5,
       FF_FIX_RTC = 1u << 6, FF_TMR_VAL_EXT = 1u << 8, FF_RESET_REG_SUP = 1u << 10 };

/* Generic Address Structure (§5.2.3.2): 12 bytes. */
enum { GAS_LEN = 12, GAS_SYSTEM_IO = 1, GAS_ACCESS_UNDEFINED = 0, GAS_ACCESS_BYTE = 1 };

/* MADT (§5.2.12). */
#define MADT_LAPIC_DEFAULT 0xfee00000u      /* Intel SDM vol. 3 §11.4.4: IA32_APIC_BASE at reset */
enum {
    MADT_PCAT_COMPAT = 1u << 0,
    MADT_LAPIC = 0, MADT_LAPIC_LEN = 8, MADT_LAPIC_ENABLED = 1u << 0,
    MADT_IOAPIC = 1, MADT_IOAPIC_LEN = 12, MADT_IOAPIC_ID = 0, MADT_IOAPIC_GSI_BASE = 0,
    MADT_ISO = 2, MADT_ISO_LEN = 10, MADT_ISO_BUS_ISA = 0,
    MADT_LAPIC_NMI = 4, MADT_LAPIC_NMI_LEN = 6, MADT_ALL_PROCESSORS = 0xff, MADT_LINT1 = 1,
};
/* MPS INTI flags (§5.2.12.5): polarity bits 1:0, trigger mode bits 3:2. */
enum { INTI_CONFORMS = 0, INTI_ACTIVE_HIGH = 1u << 0, INTI_LEVEL = 3u << 2 };
enum { ISA_IRQ_PIT = 0, GSI_PIT = 2 };
#define MADT_ISO_COUNT 2

/* The DSDT's AML (ACPI 6.4 §20.2 "AML Grammar Definition"):
 *     DefinitionBlock ("", "DSDT", 2, "PMUSIM", "PMUSIMPC", 1)
 *     {
 *         Name (_S5, Package () { 7, 7, 0, 0 })    // SLP_TYPa, SLP_TYPb, reserved (§7.4.2)
 *     }
 * DefName := NameOp NameString DataRefObject (§20.2.5.2), NameOp 0x08, the NameSeg "_S5_";
 * DefPackage := PackageOp PkgLength NumElements PackageElementList (§20.2.5.4), PackageOp 0x12,
 * PkgLength one byte (§20.2.4: below 64, the count of itself and what follows); elements
 * BytePrefix 0x0A + byte, and ZeroOp 0x00 (§20.2.3). */
enum { AML_NAME_OP = 0x08, AML_PACKAGE_OP = 0x12, AML_BYTE_PREFIX = 0x0a, AML_ZERO_OP = 0x00 };
#define S5_PACKAGE_ELEMENTS 4
static const uint8_t s5_package[] = {
    S5_PACKAGE_ELEMENTS, AML_BYTE_PREFIX, ACPI_SLP_TYP_S5, AML_BYTE_PREFIX, ACPI_SLP_TYP_S5, AML_ZERO_OP, AML_ZERO_OP,
};
static const uint8_t s5_name[] = { AML_NAME_OP, '_', 'S', '5', '_', AML_PACKAGE_OP };
#define DSDT_AML_LEN (sizeof s5_name + 1 + sizeof s5_package)

/* ------------------------------------------------------------------ the tree */

#define IO_PORTS 0x10000u

typedef struct AcpiTree {
    uint32_t pm_port;
    bool reset;
    uint32_t reset_port;
    int ncpus;
    uint8_t apic_id[ACPI_MAX_CPUS];
    uint32_t lapic_addr;
    bool ioapic;
    uint32_t ioapic_addr;
} AcpiTree;

static const char *path_of(const void *fdt, int node, char *buf, int len)
{
    if (fdt_get_path(fdt, node, buf, len) < 0)
        snprintf(buf, (size_t)len, "(offset %d)", node);
    return buf;
}

/* A string property equal to `want`, NUL-terminated inside the property. */
static bool prop_is(const void *fdt, int node, const char *name, const char *want)
{
    int len;
    const char *s = fdt_getprop(fdt, node, name, &len);
    return s && len > 0 && memchr(s, 0, (size_t)len) && !strcmp(s, want);
}

static bool node_enabled(const void *fdt, int node)
{
    return !fdt_getprop(fdt, node, "status", NULL) || prop_is(fdt, node, "status", "okay") ||
           prop_is(fdt, node, "status", "ok");
}

/* The one enabled node of a compatible: *node -1 if none; a second one is refused. */
static bool find_one(const void *fdt, const char *compat, int *node, Error *err)
{
    *node = -1;
    char a[128], b[128];
    for (int n = fdt_node_offset_by_compatible(fdt, -1, compat); n >= 0;
         n = fdt_node_offset_by_compatible(fdt, n, compat)) {
        if (!node_enabled(fdt, n))
            continue;
        if (*node >= 0)
            return err_set(err, "node %s: a second \"%s\" node (the first is %s); the ACPI tables describe one",
                           path_of(fdt, n, a, sizeof a), compat, path_of(fdt, *node, b, sizeof b));
        *node = n;
    }
    return true;
}

/* An ISA child's <1 port size> (I/O space), at least `min` ports inside the 64 Ki ports. */
static bool isa_ports(const void *fdt, int node, uint32_t min, uint32_t *port, Error *err)
{
    char path[128];
    path_of(fdt, node, path, sizeof path);
    int len;
    const fdt32_t *reg = fdt_getprop(fdt, node, "reg", &len);
    if (!reg || len != 3 * 4 || fdt32_to_cpu(reg[0]) != 1)
        return err_set(err, "node %s: property reg: expected <1 port size> (an ISA I/O port range)", path);
    uint32_t base = fdt32_to_cpu(reg[1]), size = fdt32_to_cpu(reg[2]);
    if (size < min || base >= IO_PORTS || size > IO_PORTS - base)
        return err_set(err, "node %s: property reg: ports 0x%x+0x%x: at least %u ports inside the 0x%x of the "
                       "I/O space", path, base, size, min, IO_PORTS);
    *port = base;
    return true;
}

/* The first address of a node's reg, in its parent's cells; it must lie below 4 GiB (the MADT's
 * address fields have 32 bits) with `span` bytes after it. */
static bool reg_addr32(const void *fdt, int node, uint32_t span, uint32_t *addr, Error *err)
{
    char path[128];
    path_of(fdt, node, path, sizeof path);
    int parent = fdt_parent_offset(fdt, node);
    int ac = parent >= 0 ? fdt_address_cells(fdt, parent) : -1, sc = parent >= 0 ? fdt_size_cells(fdt, parent) : -1;
    if (ac < 1 || ac > 2 || sc < 0 || sc > 2)
        return err_set(err, "node %s: its parent's #address-cells/#size-cells must be 1-2/0-2", path);
    int len;
    const fdt32_t *reg = fdt_getprop(fdt, node, "reg", &len);
    if (!reg || len < (ac + sc) * 4)
        return err_set(err, "node %s: property reg: expected <address size> in %d + %d cells", path, ac, sc);
    uint64_t a = fdt32_to_cpu(reg[0]);
    if (ac == 2)
        a = a << 32 | fdt32_to_cpu(reg[1]);
    if (a > UINT32_MAX - span + 1)
        return err_set(err, "node %s: property reg: 0x%" PRIx64 " is not below 4 GiB (the MADT's address fields "
                       "have 32 bits)", path, a);
    *addr = (uint32_t)a;
    return true;
}

static bool cpu_cells(const void *fdt, int cpus, int *cells, Error *err)
{
    int len;
    const fdt32_t *p = fdt_getprop(fdt, cpus, "#address-cells", &len);
    *cells = p && len == 4 ? (int)fdt32_to_cpu(*p) : 1;
    if ((p && len != 4) || *cells < 1 || *cells > 2)
        return err_set(err, "node /cpus: property #address-cells: must be 1 or 2");
    return true;
}

/* One cpu node: its APIC ID, which an xAPIC entry must hold, used once. */
static bool add_cpu(const void *fdt, int node, int cells, AcpiTree *t, Error *err)
{
    char path[128];
    path_of(fdt, node, path, sizeof path);
    if (t->ncpus == ACPI_MAX_CPUS)
        return err_set(err, "node %s: more than %d CPUs (a Processor Local APIC entry's UID has one byte)", path,
                       ACPI_MAX_CPUS);
    int len;
    const fdt32_t *reg = fdt_getprop(fdt, node, "reg", &len);
    if (!reg || len != cells * 4)
        return err_set(err, "node %s: property reg: expected %d cell(s) (the APIC ID)", path, cells);
    uint64_t id = fdt32_to_cpu(reg[0]);
    if (cells == 2)
        id = id << 32 | fdt32_to_cpu(reg[1]);
    if (id > ACPI_MAX_XAPIC_ID)
        return err_set(err, "node %s: property reg: APIC ID 0x%" PRIx64 " does not fit a Processor Local APIC "
                       "entry (0-0x%x; pmusim writes no x2APIC entries)", path, id, ACPI_MAX_XAPIC_ID);
    for (int i = 0; i < t->ncpus; i++)
        if (t->apic_id[i] == id)
            return err_set(err, "node %s: property reg: APIC ID 0x%" PRIx64 " is used twice", path, id);
    t->apic_id[t->ncpus++] = (uint8_t)id;
    return true;
}

/* The cpu nodes of /cpus (device_type "cpu"), in tree order: the machine's CPU indexes. */
static bool read_cpus(const void *fdt, AcpiTree *t, Error *err)
{
    int cpus = fdt_path_offset(fdt, "/cpus"), cells, node;
    if (cpus < 0)
        return err_set(err, "node /cpus is missing (the MADT lists its CPUs)");
    if (!cpu_cells(fdt, cpus, &cells, err))
        return false;
    fdt_for_each_subnode(node, fdt, cpus)
        if (prop_is(fdt, node, "device_type", "cpu") && !add_cpu(fdt, node, cells, t, err))
            return false;
    if (!t->ncpus)
        return err_set(err, "node /cpus has no cpu nodes (device_type = \"cpu\") for the MADT");
    return true;
}

#define APIC_WINDOW 0x1000u          /* the local APIC's and the I/O APIC's register pages */

static bool read_tree(const void *fdt, int pm, AcpiTree *t, Error *err)
{
    memset(t, 0, sizeof *t);
    int reset, ioapic, lapic;
    if (!isa_ports(fdt, pm, ACPI_PM_MIN_SIZE, &t->pm_port, err) || !read_cpus(fdt, t, err) ||
        !find_one(fdt, RESET_CONTROL_COMPATIBLE, &reset, err) || !find_one(fdt, "intel,ce4100-ioapic", &ioapic, err) ||
        !find_one(fdt, "intel,ce4100-lapic", &lapic, err))
        return false;
    t->reset = reset >= 0;
    if (t->reset && !isa_ports(fdt, reset, 1, &t->reset_port, err))
        return false;
    t->ioapic = ioapic >= 0;
    if (t->ioapic && !reg_addr32(fdt, ioapic, APIC_WINDOW, &t->ioapic_addr, err))
        return false;
    t->lapic_addr = MADT_LAPIC_DEFAULT;
    return lapic < 0 || reg_addr32(fdt, lapic, APIC_WINDOW, &t->lapic_addr, err);
}

/* ------------------------------------------------------------------ writing the tables */

typedef struct Area {
    uint8_t *p;
    size_t size, used;
} Area;

static uint64_t guest_addr(size_t off)
{
    return ACPI_AREA_BASE + off;
}

/* Room for `len` bytes aligned to `align`: its offset in the area. */
static bool area_take(Area *a, size_t len, size_t align, size_t *off, Error *err)
{
    size_t at = (a->used + align - 1) & ~(align - 1);
    if (at > a->size || len > a->size - at)
        return err_set(err, "the ACPI and MP tables need more than the 0x%zx bytes of the BIOS area at 0x%" PRIx64
                       " (%zu at offset 0x%zx)", a->size, (uint64_t)ACPI_AREA_BASE, len, at);
    *off = at;
    a->used = at + len;
    return true;
}

static uint8_t checksum(const uint8_t *p, size_t len)
{
    uint8_t sum = 0;
    for (size_t i = 0; i < len; i++)
        sum = (uint8_t)(sum + p[i]);
    return (uint8_t)-sum;
}

enum { SDT_LENGTH = 4, SDT_REVISION_OFF = 8, SDT_CHECKSUM = 9, SDT_OEM_ID = 10, SDT_OEM_TABLE_ID = 16,
       SDT_OEM_REVISION = 24, SDT_CREATOR_ID = 28, SDT_CREATOR_REVISION = 32 };

static void sdt_header(uint8_t *p, const char *sig, size_t len, uint8_t rev)
{
    memcpy(p, sig, 4);
    store_le(p + SDT_LENGTH, 4, len);
    p[SDT_REVISION_OFF] = rev;
    memcpy(p + SDT_OEM_ID, OEM_ID, 6);
    memcpy(p + SDT_OEM_TABLE_ID, OEM_TABLE_ID, 8);
    store_le(p + SDT_OEM_REVISION, 4, OEM_REVISION);
    memcpy(p + SDT_CREATOR_ID, CREATOR_ID, 4);
    store_le(p + SDT_CREATOR_REVISION, 4, CREATOR_REVISION);
}

/* A table of `len` bytes with its header: its offset. */
static bool sdt_take(Area *a, const char *sig, size_t len, uint8_t rev, size_t *off, Error *err)
{
    if (!area_take(a, len, TABLE_ALIGN, off, err))
        return false;
    sdt_header(a->p + *off, sig, len, rev);
    return true;
}

static void sdt_sum(Area *a, size_t off)
{
    uint8_t *p = a->p + off;
    p[SDT_CHECKSUM] = checksum(p, load_le(p + SDT_LENGTH, 4));
}

static void gas(uint8_t *p, unsigned bits, unsigned access, uint64_t addr)
{
    p[0] = GAS_SYSTEM_IO;
    p[1] = (uint8_t)bits;
    p[2] = 0;                       /* bit offset */
    p[3] = (uint8_t)access;
    store_le(p + 4, 8, addr);
}

static bool write_facs(Area *a, AcpiInfo *info, Error *err)
{
    size_t off;
    if (!area_take(a, FACS_LEN, FACS_ALIGN, &off, err))
        return false;
    memcpy(a->p + off, "FACS", 4);
    store_le(a->p + off + SDT_LENGTH, 4, FACS_LEN);
    a->p[off + FACS_VERSION_OFF] = FACS_VERSION;    /* no checksum: §5.2.10 */
    info->facs = guest_addr(off);
    return true;
}

static bool write_dsdt(Area *a, AcpiInfo *info, Error *err)
{
    size_t off;
    if (!sdt_take(a, "DSDT", SDT_HEADER + DSDT_AML_LEN, DSDT_REVISION, &off, err))
        return false;
    uint8_t *p = a->p + off + SDT_HEADER;
    memcpy(p, s5_name, sizeof s5_name);
    p[sizeof s5_name] = (uint8_t)(1 + sizeof s5_package);  /* PkgLength: itself and the rest */
    memcpy(p + sizeof s5_name + 1, s5_package, sizeof s5_package);
    sdt_sum(a, off);
    info->dsdt = guest_addr(off);
    return true;
}

static void fadt_pm_blocks(uint8_t *p, const AcpiTree *t)
{
    uint32_t evt = t->pm_port + ACPI_PM_EVT_OFF, cnt = t->pm_port + ACPI_PM_CNT_OFF, tmr = t->pm_port + ACPI_PM_TMR_OFF;
    store_le(p + FADT_SCI_INT, 2, ACPI_SCI_IRQ);
    store_le(p + FADT_PM1A_EVT_BLK, 4, evt);
    store_le(p + FADT_PM1A_CNT_BLK, 4, cnt);
    store_le(p + FADT_PM_TMR_BLK, 4, tmr);
    p[FADT_PM1_EVT_LEN] = ACPI_PM_EVT_LEN;
    p[FADT_PM1_CNT_LEN] = ACPI_PM_CNT_LEN;
    p[FADT_PM_TMR_LEN] = ACPI_PM_TMR_LEN;
    gas(p + FADT_X_PM1A_EVT_BLK, 8 * ACPI_PM_EVT_LEN, GAS_ACCESS_UNDEFINED, evt);
    gas(p + FADT_X_PM1A_CNT_BLK, 8 * ACPI_PM_CNT_LEN, GAS_ACCESS_UNDEFINED, cnt);
    gas(p + FADT_X_PM_TMR_BLK, 8 * ACPI_PM_TMR_LEN, GAS_ACCESS_UNDEFINED, tmr);
}

static bool write_fadt(Area *a, const AcpiTree *t, AcpiInfo *info, Error *err)
{
    size_t off;
    if (!sdt_take(a, "FACP", FADT_LEN, FADT_REVISION, &off, err))
        return false;
    uint8_t *p = a->p + off;
    store_le(p + FADT_FIRMWARE_CTRL, 4, info->facs);
    store_le(p + FADT_DSDT, 4, info->dsdt);
    store_le(p + FADT_X_FIRMWARE_CTRL, 8, info->facs);
    store_le(p + FADT_X_DSDT, 8, info->dsdt);
    fadt_pm_blocks(p, t);
    store_le(p + FADT_P_LVL2_LAT, 2, P_LVL2_NONE);
    store_le(p + FADT_P_LVL3_LAT, 2, P_LVL3_NONE);
    p[FADT_CENTURY] = 0;
    store_le(p + FADT_IAPC_BOOT_ARCH, 2, BOOT_LEGACY_DEVICES | BOOT_VGA_NOT_PRESENT | BOOT_MSI_NOT_SUPPORTED);
    uint32_t flags = FF_WBINVD | FF_PROC_C1 | FF_PWR_BUTTON | FF_SLP_BUTTON | FF_FIX_RTC | FF_TMR_VAL_EXT;
    if (t->reset) {
        flags |= FF_RESET_REG_SUP;
        gas(p + FADT_RESET_REG, 8, GAS_ACCESS_BYTE, t->reset_port);
        p[FADT_RESET_VALUE] = RESET_CF9_VALUE;
    }
    store_le(p + FADT_FLAGS, 4, flags);
    p[FADT_MINOR_VERSION] = FADT_MINOR;
    sdt_sum(a, off);
    info->fadt = guest_addr(off);
    return true;
}

static uint8_t *madt_iso(uint8_t *e, uint8_t irq, uint32_t gsi, uint16_t flags)
{
    e[0] = MADT_ISO;
    e[1] = MADT_ISO_LEN;
    e[2] = MADT_ISO_BUS_ISA;
    e[3] = irq;
    store_le(e + 4, 4, gsi);
    store_le(e + 8, 2, flags);
    return e + MADT_ISO_LEN;
}

static uint8_t *madt_ioapic(uint8_t *e, const AcpiTree *t)
{
    e[0] = MADT_IOAPIC;
    e[1] = MADT_IOAPIC_LEN;
    e[2] = MADT_IOAPIC_ID;
    store_le(e + 4, 4, t->ioapic_addr);
    store_le(e + 8, 4, MADT_IOAPIC_GSI_BASE);
    e += MADT_IOAPIC_LEN;
    e = madt_iso(e, ISA_IRQ_PIT, GSI_PIT, INTI_CONFORMS);
    return madt_iso(e, ACPI_SCI_IRQ, ACPI_SCI_IRQ, INTI_ACTIVE_HIGH | INTI_LEVEL);
}

static bool write_madt(Area *a, const AcpiTree *t, AcpiInfo *info, Error *err)
{
    size_t len = MADT_FIXED + (size_t)t->ncpus * MADT_LAPIC_LEN + MADT_LAPIC_NMI_LEN +
                 (t->ioapic ? MADT_IOAPIC_LEN + MADT_ISO_COUNT * MADT_ISO_LEN : 0), off;
    if (!sdt_take(a, "APIC", len, MADT_REVISION, &off, err))
        return false;
    uint8_t *p = a->p + off, *e = p + MADT_FIXED;
    store_le(p + SDT_HEADER, 4, t->lapic_addr);
    store_le(p + SDT_HEADER + 4, 4, MADT_PCAT_COMPAT);
    for (int i = 0; i < t->ncpus; i++, e += MADT_LAPIC_LEN) {
        e[0] = MADT_LAPIC;
        e[1] = MADT_LAPIC_LEN;
        e[2] = (uint8_t)i;                  /* ACPI Processor UID */
        e[3] = t->apic_id[i];
        store_le(e + 4, 4, MADT_LAPIC_ENABLED);
    }
    if (t->ioapic)
        e = madt_ioapic(e, t);
    e[0] = MADT_LAPIC_NMI;
    e[1] = MADT_LAPIC_NMI_LEN;
    e[2] = MADT_ALL_PROCESSORS;
    store_le(e + 3, 2, INTI_CONFORMS);
    e[5] = MADT_LINT1;
    sdt_sum(a, off);
    info->madt = guest_addr(off);
    return true;
}

/* The RSDT (4-byte entries) or the XSDT (8-byte entries) of the FADT and the MADT. */
static bool write_root(Area *a, const char *sig, unsigned entry, const AcpiInfo *info, uint64_t *at, Error *err)
{
    const uint64_t tables[] = { info->fadt, info->madt };
    size_t off;
    if (!sdt_take(a, sig, SDT_HEADER + entry * ARRAY_SIZE(tables), entry == 4 ? RSDT_REVISION : XSDT_REVISION, &off,
                  err))
        return false;
    for (size_t i = 0; i < ARRAY_SIZE(tables); i++)
        store_le(a->p + off + SDT_HEADER + entry * i, entry, tables[i]);
    sdt_sum(a, off);
    *at = guest_addr(off);
    return true;
}

enum { RSDP_CHECKSUM = 8, RSDP_OEM_ID = 9, RSDP_REV = 15, RSDP_RSDT = 16, RSDP_LENGTH = 20, RSDP_XSDT = 24,
       RSDP_EXT_CHECKSUM = 32 };

static void write_rsdp(Area *a, const AcpiInfo *info)
{
    uint8_t *p = a->p + (info->rsdp - ACPI_AREA_BASE);
    memcpy(p, "RSD PTR ", 8);
    memcpy(p + RSDP_OEM_ID, OEM_ID, 6);
    p[RSDP_REV] = RSDP_REVISION;
    store_le(p + RSDP_RSDT, 4, info->rsdt);
    store_le(p + RSDP_LENGTH, 4, RSDP_LEN);
    store_le(p + RSDP_XSDT, 8, info->xsdt);
    p[RSDP_CHECKSUM] = checksum(p, RSDP_V1_LEN);
    p[RSDP_EXT_CHECKSUM] = checksum(p, RSDP_LEN);
}

/* ------------------------------------------------------------------ the MP table */

#define MP_AREA_OFF 0x10000u        /* 0xF0000 */
enum {
    MPF_LEN = 16, MPF_UNITS = 1, MP_SPEC_REV = 4, MPF_IMCR_ABSENT = 0,
    MPC_HEADER = 44,
    MP_PROCESSOR = 0, MP_PROCESSOR_LEN = 20, MP_CPU_EN = 1u << 0, MP_CPU_BP = 1u << 1,
    MP_BUS = 1, MP_BUS_LEN = 8,
    MP_IOAPIC = 2, MP_IOAPIC_LEN = 8, MP_IOAPIC_VERSION = 0x11, MP_IOAPIC_EN = 1,
    MP_IOINT = 3, MP_LINT = 4, MP_INT_LEN = 8,
    MP_INT = 0, MP_NMI = 1, MP_EXTINT = 3,
    MP_ALL_LAPICS = 0xff, MP_LINT0 = 0,
    ISA_IRQS = 16, ISA_IRQ_CASCADE = 2,
};
/* The floating pointer's fields (MP spec §4.1) and the configuration table header's (§4.2). */
enum { MPF_PHYSPTR = 4, MPF_LENGTH = 8, MPF_SPEC_REV = 9, MPF_CHECKSUM = 10, MPF_FEATURE1 = 11, MPF_FEATURE2 = 12 };
enum { MPC_LENGTH = 4, MPC_SPEC_REV = 6, MPC_CHECKSUM = 7, MPC_OEM_ID = 8, MPC_PRODUCT_ID = 16, MPC_ENTRY_COUNT = 34,
       MPC_LAPIC = 36 };
#define LAPIC_VERSION 0x14          /* apic/lapic.c's version register: an integrated xAPIC */
#define MP_BUS_ISA "ISA   "
#define MP_PRODUCT_ID "PC          "  /* 12 bytes */
#define MP_OEM_ID "PMUSIM  "        /* 8 bytes */

/* Entry count and length of the configuration table's entries. */
static unsigned mp_entries(const AcpiTree *t, size_t *len)
{
    unsigned ioints = t->ioapic ? ISA_IRQS - 1 : 0, n = (unsigned)t->ncpus + 1 + t->ioapic + ioints + 2;
    *len = (size_t)t->ncpus * MP_PROCESSOR_LEN + MP_BUS_LEN + (t->ioapic ? MP_IOAPIC_LEN : 0) +
           (ioints + 2) * MP_INT_LEN;
    return n;
}

static uint8_t *mp_int(uint8_t *e, uint8_t type, uint8_t kind, uint16_t flags, uint8_t irq, uint8_t dst,
                       uint8_t pin)
{
    e[0] = type;
    e[1] = kind;
    store_le(e + 2, 2, flags);
    e[4] = 0;                       /* source bus: ISA */
    e[5] = irq;
    e[6] = dst;
    e[7] = pin;
    return e + MP_INT_LEN;
}

static uint8_t *mp_ioapic(uint8_t *e, const AcpiTree *t)
{
    e[0] = MP_IOAPIC;
    e[1] = MADT_IOAPIC_ID;
    e[2] = MP_IOAPIC_VERSION;
    e[3] = MP_IOAPIC_EN;
    store_le(e + 4, 4, t->ioapic_addr);
    e += MP_IOAPIC_LEN;
    for (uint8_t irq = 0; irq < ISA_IRQS; irq++) {
        if (irq == ISA_IRQ_CASCADE)
            continue;
        uint16_t flags = irq == ACPI_SCI_IRQ ? INTI_ACTIVE_HIGH | INTI_LEVEL : INTI_CONFORMS;
        e = mp_int(e, MP_IOINT, MP_INT, flags, irq, MADT_IOAPIC_ID, irq == ISA_IRQ_PIT ? GSI_PIT : irq);
    }
    return e;
}

static void mp_entries_write(uint8_t *e, const AcpiTree *t)
{
    for (int i = 0; i < t->ncpus; i++, e += MP_PROCESSOR_LEN) {
        e[0] = MP_PROCESSOR;
        e[1] = t->apic_id[i];
        e[2] = LAPIC_VERSION;
        e[3] = (uint8_t)(MP_CPU_EN | (i == 0 ? MP_CPU_BP : 0));
    }
    e[0] = MP_BUS;
    e[1] = 0;
    memcpy(e + 2, MP_BUS_ISA, 6);
    e += MP_BUS_LEN;
    if (t->ioapic)
        e = mp_ioapic(e, t);
    e = mp_int(e, MP_LINT, MP_EXTINT, INTI_CONFORMS, 0, MP_ALL_LAPICS, MP_LINT0);
    mp_int(e, MP_LINT, MP_NMI, INTI_CONFORMS, 0, MP_ALL_LAPICS, MADT_LINT1);
}

static bool write_mp(Area *a, const AcpiTree *t, AcpiInfo *info, Error *err)
{
    size_t elen, off = 0;
    unsigned n = mp_entries(t, &elen);
    a->used = a->used > MP_AREA_OFF ? a->used : MP_AREA_OFF;
    if (!area_take(a, MPF_LEN + MPC_HEADER + elen, TABLE_ALIGN, &off, err))
        return false;
    uint8_t *f = a->p + off, *c = f + MPF_LEN;
    memcpy(c, "PCMP", 4);
    store_le(c + MPC_LENGTH, 2, MPC_HEADER + elen);
    c[MPC_SPEC_REV] = MP_SPEC_REV;
    memcpy(c + MPC_OEM_ID, MP_OEM_ID, 8);
    memcpy(c + MPC_PRODUCT_ID, MP_PRODUCT_ID, 12);
    store_le(c + MPC_ENTRY_COUNT, 2, n);
    store_le(c + MPC_LAPIC, 4, t->lapic_addr);
    mp_entries_write(c + MPC_HEADER, t);
    c[MPC_CHECKSUM] = checksum(c, MPC_HEADER + elen);
    memcpy(f, "_MP_", 4);
    store_le(f + MPF_PHYSPTR, 4, guest_addr(off + MPF_LEN));
    f[MPF_LENGTH] = MPF_UNITS;
    f[MPF_SPEC_REV] = MP_SPEC_REV;
    f[MPF_FEATURE1] = 0;            /* the configuration table is present */
    f[MPF_FEATURE2] = MPF_IMCR_ABSENT;
    f[MPF_CHECKSUM] = checksum(f, MPF_LEN);
    info->mpfp = guest_addr(off);
    return true;
}

static bool write_tables(Area *a, const AcpiTree *t, AcpiInfo *info, Error *err)
{
    size_t rsdp;
    if (!area_take(a, RSDP_LEN, TABLE_ALIGN, &rsdp, err) || !write_facs(a, info, err) || !write_dsdt(a, info, err) ||
        !write_fadt(a, t, info, err) || !write_madt(a, t, info, err) ||
        !write_root(a, "RSDT", 4, info, &info->rsdt, err) || !write_root(a, "XSDT", 8, info, &info->xsdt, err) ||
        !write_mp(a, t, info, err))
        return false;
    info->rsdp = guest_addr(rsdp);
    write_rsdp(a, info);
    return true;
}

bool acpi_build(const void *fdt, uint8_t *area, size_t size, AcpiInfo *info, Error *err)
{
    memset(info, 0, sizeof *info);
    int pm;
    if (!find_one(fdt, ACPI_PM_COMPATIBLE, &pm, err))
        return false;
    if (pm < 0)
        return true;
    AcpiTree t;
    if (!read_tree(fdt, pm, &t, err))
        return false;
    memset(area, 0, size);
    Area a = { area, size, 0 };
    if (!write_tables(&a, &t, info, err))
        return false;
    info->present = true;
    info->used = a.used;
    info->ncpus = t.ncpus;
    info->ioapic = t.ioapic;
    info->reset = t.reset;
    return true;
}
