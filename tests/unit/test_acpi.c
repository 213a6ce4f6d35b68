/* test_acpi.c — the ACPI tables built from the tree (sim/acpi.c), read back by a reader of the
 * test's own (the layouts of ACPI 6.4 chapter 5, written out here again: signatures, lengths,
 * checksums, the RSDT/XSDT entries, every MADT entry per --cpus, the FADT's fields pointing at
 * the PM block and the reset register, the DSDT's \_S5 AML) and the MP table (MP spec 1.4), the
 * trees the builder refuses (with the node named), and the PM block and reset register at
 * register level on a host of the test's own: the PM timer's rate in CPU cycles, TMR_STS,
 * PM1_CNT's sleep, reset, checkpoints. */
#include <libfdt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/acpi.h"
#include "sim/dev/acpi_pm.h"
#include "sim/dev/device.h"
#include "sim/fdt.h"
#include "testutil.h"

/* ------------------------------------------------------------------ the reader */

static uint8_t area[ACPI_AREA_SIZE];

static uint64_t le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    while (n--)
        v = v << 8 | p[n];
    return v;
}

static unsigned sum(const uint8_t *p, size_t n)
{
    unsigned s = 0;
    while (n--)
        s += p[n];
    return s & 0xff;
}

/* The bytes at guest address `addr`, which must lie in the area. */
static const uint8_t *at(uint64_t addr, size_t len)
{
    ck_assert_msg(addr >= ACPI_AREA_BASE && addr + len <= ACPI_AREA_BASE + ACPI_AREA_SIZE, "0x%llx+%zu outside",
                  (unsigned long long)addr, len);
    return area + (addr - ACPI_AREA_BASE);
}

/* A table with its header: signature, a length that fits, checksum 0; returns it. */
static const uint8_t *table(uint64_t addr, const char *sig)
{
    const uint8_t *t = at(addr, 36);
    ck_assert_msg(!memcmp(t, sig, 4), "%.4s at 0x%llx, not %s", (const char *)t, (unsigned long long)addr, sig);
    size_t len = le(t + 4, 4);
    at(addr, len);
    ck_assert_uint_eq(sum(t, len), 0);
    ck_assert(!memcmp(t + 10, "PMUSIM", 6));
    return t;
}

/* The RSDP as Linux's acpi_find_root_pointer finds it: scanning 16-byte boundaries. */
static const uint8_t *rsdp(void)
{
    for (size_t off = 0; off + 36 <= ACPI_AREA_SIZE; off += 16)
        if (!memcmp(area + off, "RSD PTR ", 8) && sum(area + off, 20) == 0) {
            const uint8_t *r = area + off;
            ck_assert_uint_eq(r[15], 2);                    /* revision 2: XSDT */
            ck_assert_uint_eq(le(r + 20, 4), 36);
            ck_assert_uint_eq(sum(r, 36), 0);
            return r;
        }
    ck_abort_msg("no RSDP");
    return NULL;
}

/* Entry i of the XSDT, checked against the RSDT's. */
static uint64_t root_entry(const uint8_t *r, int i, int *n)
{
    const uint8_t *x = table(le(r + 24, 8), "XSDT"), *s = table(le(r + 16, 4), "RSDT");
    *n = (int)(le(x + 4, 4) - 36) / 8;
    ck_assert_int_eq((int)(le(s + 4, 4) - 36) / 4, *n);
    ck_assert_uint_eq(le(x + 36 + 8 * i, 8), le(s + 36 + 4 * i, 4));
    return le(x + 36 + 8 * i, 8);
}

static const uint8_t *find_table(const char *sig)
{
    const uint8_t *r = rsdp();
    int n = 1;
    for (int i = 0; i < n; i++) {
        uint64_t a = root_entry(r, i, &n);
        if (!memcmp(at(a, 4), sig, 4))
            return table(a, sig);
    }
    ck_abort_msg("no %s in the XSDT", sig);
    return NULL;
}

typedef struct Madt {
    int nlapic, nioapic, niso, nnmi;
    uint8_t uid[256], apic_id[256];
    uint32_t ioapic_addr;
    uint8_t iso_irq[4];
    uint32_t iso_gsi[4];
    uint16_t iso_flags[4];
} Madt;

static void madt_entry(const uint8_t *e, Madt *m)
{
    switch (e[0]) {
    case 0:
        ck_assert_uint_eq(e[1], 8);
        ck_assert_uint_eq(le(e + 4, 4), 1);                 /* enabled */
        m->uid[m->nlapic] = e[2];
        m->apic_id[m->nlapic++] = e[3];
        break;
    case 1:
        ck_assert_uint_eq(e[1], 12);
        ck_assert_uint_eq(le(e + 8, 4), 0);                 /* GSI base */
        m->ioapic_addr = (uint32_t)le(e + 4, 4);
        m->nioapic++;
        break;
    case 2:
        ck_assert_uint_eq(e[1], 10);
        ck_assert_uint_eq(e[2], 0);                         /* ISA */
        ck_assert_int_lt(m->niso, 4);
        m->iso_irq[m->niso] = e[3];
        m->iso_gsi[m->niso] = (uint32_t)le(e + 4, 4);
        m->iso_flags[m->niso++] = (uint16_t)le(e + 8, 2);
        break;
    case 4:
        ck_assert_uint_eq(e[1], 6);
        ck_assert_uint_eq(e[2], 0xff);                      /* all processors */
        ck_assert_uint_eq(e[5], 1);                         /* LINT1 */
        m->nnmi++;
        break;
    default:
        ck_abort_msg("MADT entry type %u", e[0]);
    }
}

static Madt read_madt(void)
{
    const uint8_t *t = find_table("APIC");
    Madt m = { 0 };
    ck_assert_uint_eq(le(t + 36, 4), 0xfee00000u);
    ck_assert_uint_eq(le(t + 40, 4), 1);                    /* PCAT_COMPAT */
    size_t len = le(t + 4, 4), off = 44;
    while (off < len) {
        ck_assert_uint_ge(t[off + 1], 2);
        ck_assert_uint_le(off + t[off + 1], len);
        madt_entry(t + off, &m);
        off += t[off + 1];
    }
    return m;
}

/* The MP table (MP spec 1.4 chapter 4) as Linux's smp_scan_config finds it: "_MP_" on a
 * 16-byte boundary of 0xF0000-0xFFFFF. */
typedef struct Mp {
    int ncpu, nbus, nioapic, nioint, nlint;
    uint8_t apic_id[256], cpu_flags[256];
    uint32_t ioapic_addr;
    uint8_t ioint_irq[16], ioint_pin[16];
    uint16_t ioint_flags[16];
    uint8_t lint_kind[2], lint_pin[2];
} Mp;

static const uint8_t *mp_config(void)
{
    for (uint64_t a = 0xf0000; a < 0x100000; a += 16) {
        const uint8_t *f = at(a, 16);
        if (memcmp(f, "_MP_", 4) || sum(f, 16))
            continue;
        ck_assert_uint_eq(f[8], 1);                         /* 16 bytes */
        ck_assert_uint_eq(f[9], 4);                         /* spec 1.4 */
        ck_assert_uint_eq(f[11], 0);                        /* a configuration table */
        const uint8_t *c = at(le(f + 4, 4), 44);
        ck_assert(!memcmp(c, "PCMP", 4));
        at(le(f + 4, 4), le(c + 4, 2));
        ck_assert_uint_eq(sum(c, le(c + 4, 2)), 0);
        ck_assert_uint_eq(le(c + 36, 4), 0xfee00000u);
        return c;
    }
    ck_abort_msg("no MP floating pointer");
    return NULL;
}

static size_t mp_entry(const uint8_t *e, Mp *m)
{
    switch (e[0]) {
    case 0:
        ck_assert_uint_eq(e[2], 0x14);
        m->apic_id[m->ncpu] = e[1];
        m->cpu_flags[m->ncpu++] = e[3];
        return 20;
    case 1:
        ck_assert(!memcmp(e + 2, "ISA   ", 6));
        m->nbus++;
        return 8;
    case 2:
        ck_assert_uint_eq(e[3], 1);                         /* enabled */
        m->ioapic_addr = (uint32_t)le(e + 4, 4);
        m->nioapic++;
        return 8;
    case 3:
        ck_assert_int_lt(m->nioint, 16);
        ck_assert_uint_eq(e[1], 0);                         /* INT */
        m->ioint_flags[m->nioint] = (uint16_t)le(e + 2, 2);
        m->ioint_irq[m->nioint] = e[5];
        m->ioint_pin[m->nioint++] = e[7];
        return 8;
    case 4:
        ck_assert_int_lt(m->nlint, 2);
        ck_assert_uint_eq(e[6], 0xff);                      /* every local APIC */
        m->lint_kind[m->nlint] = e[1];
        m->lint_pin[m->nlint++] = e[7];
        return 8;
    }
    ck_abort_msg("MP entry type %u", e[0]);
    return 0;
}

static Mp read_mp(void)
{
    const uint8_t *c = mp_config();
    Mp m = { 0 };
    size_t off = 44, len = le(c + 4, 2);
    for (unsigned i = 0; i < le(c + 34, 2); i++) {
        ck_assert_uint_lt(off, len);
        off += mp_entry(c + off, &m);
    }
    ck_assert_uint_eq(off, len);
    return m;
}

/* ------------------------------------------------------------------ trees */

/* The built-in x86_64 board with `ncpus` CPUs, in a buffer with room for edits. */
static void *board(int ncpus)
{
    FdtOptions o = { .ncpus = ncpus };
    Error err = { { 0 } };
    void *fdt = dt_build(ARCH_X86_64, &o, &err);
    ck_assert_msg(fdt != NULL, "%s", err.msg);
    int size = (int)fdt_totalsize(fdt) + (1 << 17);
    void *big = calloc(1, (size_t)size);
    ck_assert_int_eq(fdt_open_into(fdt, big, size), 0);
    free(fdt);
    return big;
}

/* The board's I/O APIC (sim/boards/x86_64.dts): moved to (hi, lo), or taken away. */
#define IOAPIC_NODE "/interrupt-controller@fec00000"

static void move_ioapic(void *fdt, uint32_t hi, uint32_t lo)
{
    int n = fdt_path_offset(fdt, IOAPIC_NODE);
    ck_assert_int_ge(n, 0);
    fdt32_t reg[4] = { cpu_to_fdt32(hi), cpu_to_fdt32(lo), 0, cpu_to_fdt32(0x1000) };
    ck_assert_int_eq(fdt_setprop(fdt, n, "reg", reg, sizeof reg), 0);
}

static void del_ioapic(void *fdt)
{
    ck_assert_int_eq(fdt_del_node(fdt, fdt_path_offset(fdt, IOAPIC_NODE)), 0);
}

static AcpiInfo build_ok(const void *fdt)
{
    AcpiInfo info;
    Error err = { { 0 } };
    memset(area, 0xaa, sizeof area);
    ck_assert_msg(acpi_build(fdt, area, sizeof area, &info, &err), "%s", err.msg);
    return info;
}

static const char *build_error(const void *fdt)
{
    static Error err;
    AcpiInfo info;
    memset(&err, 0, sizeof err);
    ck_assert_msg(!acpi_build(fdt, area, sizeof area, &info, &err), "the tree was accepted");
    ck_assert(err.msg[0]);
    return err.msg;
}

/* ------------------------------------------------------------------ the tables */

START_TEST(madt_has_a_local_apic_per_cpu)
{
    static const int counts[] = { 1, 2, 4, 16 };
    for (size_t k = 0; k < ARRAY_SIZE(counts); k++) {
        void *fdt = board(counts[k]);
        del_ioapic(fdt);
        AcpiInfo info = build_ok(fdt);
        ck_assert(info.present);
        ck_assert_int_eq(info.ncpus, counts[k]);
        Madt m = read_madt();
        ck_assert_int_eq(m.nlapic, counts[k]);
        for (int i = 0; i < m.nlapic; i++) {
            ck_assert_uint_eq(m.uid[i], i);
            ck_assert_uint_eq(m.apic_id[i], i);             /* the board's reg = i */
        }
        ck_assert_int_eq(m.nioapic, 0);                     /* no I/O APIC node: no entry, */
        ck_assert_int_eq(m.niso, 0);                        /* no overrides */
        ck_assert_int_eq(m.nnmi, 1);
        free(fdt);
    }
}
END_TEST

START_TEST(mp_table_has_the_same_cpus)
{
    static const int counts[] = { 1, 3, 16 };
    for (size_t k = 0; k < ARRAY_SIZE(counts); k++) {
        void *fdt = board(counts[k]);
        del_ioapic(fdt);
        build_ok(fdt);
        Mp m = read_mp();
        ck_assert_int_eq(m.ncpu, counts[k]);
        for (int i = 0; i < m.ncpu; i++) {
            ck_assert_uint_eq(m.apic_id[i], i);
            ck_assert_uint_eq(m.cpu_flags[i], i == 0 ? 3 : 1);   /* enabled; the first boots */
        }
        ck_assert_int_eq(m.nbus, 1);
        ck_assert_int_eq(m.nioapic + m.nioint, 0);
        ck_assert_int_eq(m.nlint, 2);
        ck_assert_uint_eq(m.lint_kind[0], 3);               /* ExtINT -> LINT0 */
        ck_assert_uint_eq(m.lint_pin[0], 0);
        ck_assert_uint_eq(m.lint_kind[1], 1);               /* NMI -> LINT1 */
        ck_assert_uint_eq(m.lint_pin[1], 1);
        free(fdt);
    }
}
END_TEST

START_TEST(mp_table_routes_the_isa_irqs_to_the_ioapic)
{
    void *fdt = board(2);                                   /* with the board's I/O APIC */
    build_ok(fdt);
    Mp m = read_mp();
    ck_assert_int_eq(m.nioapic, 1);
    ck_assert_uint_eq(m.ioapic_addr, 0xfec00000u);
    ck_assert_int_eq(m.nioint, 15);
    for (int i = 0; i < m.nioint; i++) {
        uint8_t irq = m.ioint_irq[i];
        ck_assert_uint_ne(irq, 2);                          /* the cascade */
        ck_assert_uint_eq(m.ioint_pin[i], irq == 0 ? 2 : irq);
        ck_assert_uint_eq(m.ioint_flags[i], irq == 9 ? 0x000d : 0);
    }
    free(fdt);
}
END_TEST

START_TEST(madt_takes_apic_ids_from_reg)
{
    void *fdt = board(3);
    int cpus = fdt_path_offset(fdt, "/cpus"), i = 0, node;
    static const uint32_t ids[] = { 0x10, 0x02, 0xfe };
    fdt_for_each_subnode(node, fdt, cpus) {
        fdt32_t v = cpu_to_fdt32(ids[i++]);
        ck_assert_int_eq(fdt_setprop_inplace(fdt, node, "reg", &v, 4), 0);
    }
    build_ok(fdt);
    Madt m = read_madt();
    ck_assert_int_eq(m.nlapic, 3);
    for (i = 0; i < 3; i++)
        ck_assert_uint_eq(m.apic_id[i], ids[i]);
    free(fdt);
}
END_TEST

START_TEST(madt_describes_the_ioapic_and_the_pc_overrides)
{
    void *fdt = board(2);                                   /* with the board's I/O APIC */
    AcpiInfo info = build_ok(fdt);
    ck_assert(info.ioapic);
    Madt m = read_madt();
    ck_assert_int_eq(m.nioapic, 1);
    ck_assert_uint_eq(m.ioapic_addr, 0xfec00000u);
    ck_assert_int_eq(m.niso, 2);
    ck_assert_uint_eq(m.iso_irq[0], 0);                     /* the PIT: IRQ 0 -> GSI 2 */
    ck_assert_uint_eq(m.iso_gsi[0], 2);
    ck_assert_uint_eq(m.iso_flags[0], 0);
    ck_assert_uint_eq(m.iso_irq[1], 9);                     /* the SCI: level, active high */
    ck_assert_uint_eq(m.iso_gsi[1], 9);
    ck_assert_uint_eq(m.iso_flags[1], 0x000d);
    free(fdt);
}
END_TEST

static void gas_is(const uint8_t *g, unsigned bits, unsigned access, uint64_t addr)
{
    ck_assert_uint_eq(g[0], 1);                             /* System I/O */
    ck_assert_uint_eq(g[1], bits);
    ck_assert_uint_eq(g[2], 0);
    ck_assert_uint_eq(g[3], access);
    ck_assert_uint_eq(le(g + 4, 8), addr);
}

START_TEST(fadt_points_at_the_pm_block_and_the_reset_register)
{
    void *fdt = board(1);
    AcpiInfo info = build_ok(fdt);
    const uint8_t *f = find_table("FACP");
    ck_assert_uint_eq(le(f + 4, 4), 276);
    ck_assert_uint_eq(f[8], 6);                             /* revision 6 */
    ck_assert_uint_eq(f[131], 4);                           /* minor 4: ACPI 6.4 */
    ck_assert_uint_eq(le(f + 46, 2), 9);                    /* SCI_INT */
    ck_assert_uint_eq(le(f + 48, 4), 0);                    /* no SMI_CMD: ACPI mode */
    ck_assert_uint_eq(le(f + 56, 4), 0x600);                /* PM1a_EVT_BLK */
    ck_assert_uint_eq(le(f + 64, 4), 0x604);                /* PM1a_CNT_BLK */
    ck_assert_uint_eq(le(f + 76, 4), 0x608);                /* PM_TMR_BLK */
    ck_assert_uint_eq(f[88], 4);
    ck_assert_uint_eq(f[89], 2);
    ck_assert_uint_eq(f[91], 4);
    ck_assert_uint_eq(le(f + 60, 4) | le(f + 68, 4) | le(f + 72, 4) | le(f + 80, 4), 0);  /* no b, PM2, GPE */
    gas_is(f + 148, 32, 0, 0x600);
    gas_is(f + 172, 16, 0, 0x604);
    gas_is(f + 208, 32, 0, 0x608);
    uint32_t flags = (uint32_t)le(f + 112, 4);
    ck_assert_uint_eq(flags & (1u << 8), 1u << 8);          /* TMR_VAL_EXT: 32 bits */
    ck_assert_uint_eq(flags & (1u << 10), 1u << 10);        /* RESET_REG_SUP */
    ck_assert_uint_eq(flags & (1u << 20), 0);               /* not hardware-reduced */
    gas_is(f + 116, 8, 1, 0xcf9);
    ck_assert_uint_eq(f[128], 6);
    ck_assert_uint_eq(le(f + 109, 2) & 3, 1);               /* LEGACY_DEVICES, no 8042 */
    ck_assert_uint_eq(le(f + 36, 4), le(f + 132, 8));       /* FACS, both forms */
    ck_assert_uint_eq(le(f + 40, 4), le(f + 140, 8));       /* DSDT, both forms */
    ck_assert_uint_eq(le(f + 132, 8), info.facs);
    const uint8_t *facs = at(info.facs, 64);
    ck_assert(!memcmp(facs, "FACS", 4));
    ck_assert_uint_eq(le(facs + 4, 4), 64);
    ck_assert_uint_eq(info.facs % 64, 0);
    free(fdt);
}
END_TEST

START_TEST(fadt_without_a_reset_node_has_no_reset_register)
{
    void *fdt = board(1);
    int n = fdt_node_offset_by_compatible(fdt, -1, RESET_CONTROL_COMPATIBLE);
    ck_assert_int_ge(n, 0);
    ck_assert_int_eq(fdt_setprop_string(fdt, n, "status", "disabled"), 0);
    AcpiInfo info = build_ok(fdt);
    ck_assert(!info.reset);
    const uint8_t *f = find_table("FACP");
    ck_assert_uint_eq(le(f + 112, 4) & (1u << 10), 0);
    ck_assert_uint_eq(le(f + 120, 8), 0);
    free(fdt);
}
END_TEST

/* The DSDT's AML: DefName "_S5_" DefPackage with SLP_TYPa and SLP_TYPb = ACPI_SLP_TYP_S5. */
START_TEST(dsdt_defines_s5)
{
    void *fdt = board(1);
    build_ok(fdt);
    const uint8_t *f = find_table("FACP");
    const uint8_t *d = table(le(f + 140, 8), "DSDT");
    ck_assert_uint_eq(d[8], 2);
    size_t len = le(d + 4, 4);
    static const uint8_t want[] = { 0x08, '_', 'S', '5', '_', 0x12, 8, 4, 0x0a, 7, 0x0a, 7, 0, 0 };
    ck_assert_uint_eq(len, 36 + sizeof want);
    ck_assert(!memcmp(d + 36, want, sizeof want));
    ck_assert_uint_eq(want[9], ACPI_SLP_TYP_S5);
    free(fdt);
}
END_TEST

START_TEST(tables_are_the_same_bytes_every_time)
{
    void *fdt = board(4);
    build_ok(fdt);
    static uint8_t first[ACPI_AREA_SIZE];
    memcpy(first, area, sizeof area);
    AcpiInfo info = build_ok(fdt);
    ck_assert(!memcmp(first, area, sizeof area));
    ck_assert_uint_eq(info.rsdp, ACPI_RSDP_ADDR);
    for (size_t i = info.used; i < sizeof area; i++)    /* the rest of the area is zeroed */
        ck_assert_uint_eq(area[i], 0);
    free(fdt);
}
END_TEST

static void no_tables(const void *fdt)
{
    AcpiInfo info = build_ok(fdt);
    ck_assert(!info.present);
    for (size_t i = 0; i < sizeof area; i++)
        ck_assert_uint_eq(area[i], 0xaa);                   /* nothing written */
}

START_TEST(no_pm_node_no_tables)
{
    void *fdt = board(1);
    int n = fdt_node_offset_by_compatible(fdt, -1, ACPI_PM_COMPATIBLE);
    ck_assert_int_eq(fdt_setprop_string(fdt, n, "status", "disabled"), 0);
    no_tables(fdt);
    ck_assert_int_eq(fdt_del_node(fdt, n), 0);
    no_tables(fdt);
    free(fdt);
}
END_TEST

/* ------------------------------------------------------------------ refused trees */

static void set_cpu_reg(void *fdt, int index, uint32_t id)
{
    int cpus = fdt_path_offset(fdt, "/cpus"), i = 0, node;
    fdt_for_each_subnode(node, fdt, cpus)
        if (i++ == index) {
            fdt32_t v = cpu_to_fdt32(id);
            ck_assert_int_eq(fdt_setprop_inplace(fdt, node, "reg", &v, 4), 0);
        }
}

START_TEST(refuses_apic_ids_an_xapic_entry_cannot_hold)
{
    void *fdt = board(2);
    set_cpu_reg(fdt, 1, 0xff);
    const char *msg = build_error(fdt);
    ck_assert_msg(strstr(msg, "node /cpus/cpu@1") && strstr(msg, "APIC ID 0xff") && strstr(msg, "x2APIC"), "%s", msg);
    set_cpu_reg(fdt, 1, 0);
    msg = build_error(fdt);
    ck_assert_msg(strstr(msg, "node /cpus/cpu@1") && strstr(msg, "used twice"), "%s", msg);
    free(fdt);
}
END_TEST

START_TEST(refuses_more_cpus_than_processor_uids)
{
    void *fdt = board(1);
    int cpus = fdt_path_offset(fdt, "/cpus");
    for (int i = 1; i <= ACPI_MAX_CPUS; i++) {
        char name[16];
        snprintf(name, sizeof name, "cpu@%x", i);
        int n = fdt_add_subnode(fdt, cpus, name);
        ck_assert_int_ge(n, 0);
        ck_assert_int_eq(fdt_setprop_string(fdt, n, "device_type", "cpu"), 0);
        ck_assert_int_eq(fdt_setprop_u32(fdt, n, "reg", (uint32_t)(i % 255)), 0);   /* 0..0xfe, each once */
    }
    const char *msg = build_error(fdt);
    ck_assert_msg(strstr(msg, "more than 255 CPUs"), "%s", msg);
    free(fdt);
}
END_TEST

START_TEST(refuses_what_it_cannot_describe)
{
    void *fdt = board(1);
    move_ioapic(fdt, 1, 0);                                 /* above 4 GiB */
    const char *msg = build_error(fdt);
    ck_assert_msg(strstr(msg, "node " IOAPIC_NODE) && strstr(msg, "4 GiB"), "%s", msg);
    free(fdt);

    fdt = board(1);                                         /* two PM blocks */
    int isa = fdt_path_offset(fdt, "/isa"), n = fdt_add_subnode(fdt, isa, "acpi@i700");
    ck_assert_int_eq(fdt_setprop_string(fdt, n, "compatible", ACPI_PM_COMPATIBLE), 0);
    msg = build_error(fdt);
    ck_assert_msg(strstr(msg, "a second \"pmusim,acpi-pm\""), "%s", msg);
    fdt32_t reg[3] = { cpu_to_fdt32(1), cpu_to_fdt32(0xfffc), cpu_to_fdt32(0x10) };
    ck_assert_int_eq(fdt_setprop(fdt, n, "reg", reg, sizeof reg), 0);
    ck_assert_int_eq(fdt_del_node(fdt, fdt_path_offset(fdt, "/isa/acpi@i600")), 0);
    msg = build_error(fdt);                                 /* ports past 0xffff */
    ck_assert_msg(strstr(msg, "node /isa/acpi@i700: property reg"), "%s", msg);
    free(fdt);

    fdt = board(1);
    ck_assert_int_eq(fdt_del_node(fdt, fdt_path_offset(fdt, "/cpus")), 0);
    msg = build_error(fdt);
    ck_assert_msg(strstr(msg, "/cpus"), "%s", msg);
    free(fdt);
}
END_TEST

/* ------------------------------------------------------------------ the devices */

#define CPU_HZ 2000000000ull

static struct {
    DeviceHost h;
    uint64_t now;
    int exits, status;
    const char *reason;
    char diag[32];
} H;

static void h_exit(void *o, Cpu *c, int status, const char *reason)
{
    H.exits++;
    H.status = status;
    H.reason = reason;
}
static uint64_t h_now(void *o, Cpu *c) { return H.now; }
static uint64_t h_cycles(void *o, int n) { return H.now; }
static void h_diag(void *o, Cpu *c, const char *what, const char *fmt, ...)
{
    snprintf(H.diag, sizeof H.diag, "%s", what);
}

static Device *make(Device *(*create)(const DeviceHost *, const DevDesc *, Error *), uint64_t size)
{
    memset(&H, 0, sizeof H);
    H.h = (DeviceHost){ .cpu_hz = CPU_HZ, .ncpus = 1, .exit = h_exit, .now = h_now, .cpu_cycles = h_cycles,
                        .diag = h_diag };
    DevDesc dd = { .path = "/isa/acpi@i600", .size = size, .io = true };
    Error err = { { 0 } };
    Device *d = create(&H.h, &dd, &err);
    ck_assert_msg(d != NULL, "%s", err.msg);
    return d;
}

/* The device ended the run once, with status 0 and `reason`. */
static void run_ended(const char *reason)
{
    ck_assert_int_eq(H.exits, 1);
    ck_assert_int_eq(H.status, 0);
    ck_assert_str_eq(H.reason, reason);
}

static uint64_t rd(Device *d, uint64_t off, unsigned size) { return d->ops->read(d, NULL, off, size); }
static void wr(Device *d, uint64_t off, unsigned size, uint64_t v) { d->ops->write(d, NULL, off, size, v); }

/* The timer at `cycles` by another route than the model's: whole seconds, then the rest. */
static uint32_t ticks_expected(uint64_t cycles)
{
    uint64_t whole = cycles / CPU_HZ, rest = cycles % CPU_HZ;
    return (uint32_t)(whole * ACPI_PM_TIMER_HZ + rest * ACPI_PM_TIMER_HZ / CPU_HZ);
}

START_TEST(pm_timer_counts_3579545_hz_in_cpu_cycles)
{
    Device *d = make(acpi_pm_create, 0x10);
    static const uint64_t when[] = { 0, 558, 559, 2000000000, 2000000001, 123456789012345ull, 1ull << 62 };
    for (size_t i = 0; i < ARRAY_SIZE(when); i++) {
        H.now = when[i];
        ck_assert_uint_eq(rd(d, ACPI_PM_TMR_OFF, 4), ticks_expected(when[i]));
    }
    H.now = 559;                                            /* 559 * 3579545 / 2e9 = 1.0005 */
    ck_assert_uint_eq(rd(d, ACPI_PM_TMR_OFF, 4), 1);
    H.now = 558;
    ck_assert_uint_eq(rd(d, ACPI_PM_TMR_OFF, 4), 0);
    H.now = CPU_HZ * 1000;                                  /* no drift in 1000 s */
    ck_assert_uint_eq(rd(d, ACPI_PM_TMR_OFF, 4), (uint32_t)(ACPI_PM_TIMER_HZ * 1000ull));
    H.now = 123456789012345ull;                             /* bytes of it */
    uint32_t t = ticks_expected(H.now);
    ck_assert_uint_eq(rd(d, ACPI_PM_TMR_OFF + 1, 2), (t >> 8) & 0xffff);
    ck_assert_uint_eq(rd(d, ACPI_PM_TMR_OFF + 3, 1), t >> 24);
    wr(d, ACPI_PM_TMR_OFF, 4, 0);                           /* read-only */
    ck_assert_uint_eq(rd(d, ACPI_PM_TMR_OFF, 4), t);
    free(d);
}
END_TEST

START_TEST(pm_tmr_sts_follows_bit_31)
{
    Device *d = make(acpi_pm_create, 0x10);
    uint64_t carry = (CPU_HZ << 31) / ACPI_PM_TIMER_HZ;    /* about 2^31 ticks */
    while (ticks_expected(carry) < 0x80000000u)
        carry++;
    H.now = carry - 1;
    ck_assert_uint_eq(rd(d, 0, 2), 0);
    H.now = carry;
    ck_assert_uint_eq(rd(d, 0, 2), 1);                      /* TMR_STS */
    wr(d, 0, 2, 1);                                         /* write 1 to clear */
    ck_assert_uint_eq(rd(d, 0, 2), 0);
    wr(d, 2, 2, 0xffff);                                    /* PM1_EN: the four enables */
    ck_assert_uint_eq(rd(d, 2, 2), 0x0521);
    ck_assert_uint_eq(rd(d, 0, 4), 0x05210000u);
    free(d);
}
END_TEST

START_TEST(pm1_cnt_sleep_s5_powers_off)
{
    Device *d = make(acpi_pm_create, 0x10);
    ck_assert_uint_eq(rd(d, ACPI_PM_CNT_OFF, 2), 1);        /* SCI_EN: ACPI mode */
    wr(d, ACPI_PM_CNT_OFF, 2, ACPI_SLP_TYP_S5 << 10);      /* SLP_TYP without SLP_EN */
    ck_assert_int_eq(H.exits, 0);
    ck_assert_uint_eq(rd(d, ACPI_PM_CNT_OFF, 2), (ACPI_SLP_TYP_S5 << 10) | 1);
    wr(d, ACPI_PM_CNT_OFF, 2, (1u << 10) | (1u << 13));    /* S1: not offered */
    ck_assert_int_eq(H.exits, 0);
    ck_assert_str_eq(H.diag, "acpi-sleep");
    ck_assert_uint_eq(rd(d, ACPI_PM_CNT_OFF, 2), (1u << 10) | 1);   /* SLP_EN reads 0 */
    wr(d, ACPI_PM_CNT_OFF + 1, 1, ((ACPI_SLP_TYP_S5 << 10) | (1u << 13)) >> 8);  /* the high byte */
    run_ended("acpi-poweroff");
    free(d);
}
END_TEST

START_TEST(pm_state_survives_a_checkpoint)
{
    Device *d = make(acpi_pm_create, 0x10);
    H.now = (CPU_HZ << 32) / ACPI_PM_TIMER_HZ;              /* past the carry */
    wr(d, 0, 2, 1);
    wr(d, 2, 2, 0x0101);
    wr(d, ACPI_PM_CNT_OFF, 2, 3u << 10);
    Blob b;
    blob_init(&b);
    d->ops->save(d, &b);
    uint64_t before = rd(d, 0, 8);
    uint64_t now = H.now;
    free(d);
    d = make(acpi_pm_create, 0x10);
    H.now = now;
    BlobReader r;
    br_init(&r, b.data, b.len, 0);
    ck_assert(d->ops->load(d, &r));
    ck_assert_uint_eq(rd(d, 0, 8), before);
    ck_assert_uint_eq(rd(d, 0, 2), 0);                      /* TMR_STS stays cleared */
    blob_free(&b);
    free(d);
}
END_TEST

START_TEST(reset_control_resets_on_rst_cpu)
{
    Device *d = make(reset_control_create, 1);
    wr(d, 0, 1, RESET_CF9_SYS_RST);                         /* Linux's BOOT_CF9: SYS_RST first */
    ck_assert_int_eq(H.exits, 0);
    ck_assert_uint_eq(rd(d, 0, 1), RESET_CF9_SYS_RST);
    wr(d, 0, 1, RESET_CF9_VALUE);
    run_ended("system-reset");
    free(d);
}
END_TEST

START_TEST(pm_block_needs_its_ports)
{
    memset(&H, 0, sizeof H);
    DevDesc dd = { .path = "/isa/acpi@i600", .size = 8, .io = true };
    Error err = { { 0 } };
    ck_assert(acpi_pm_create(&H.h, &dd, &err) == NULL);
    ck_assert_msg(strstr(err.msg, "/isa/acpi@i600") && strstr(err.msg, "12 ports"), "%s", err.msg);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("acpi");
    TCase *t = tcase_create("tables");
    tcase_add_test(t, madt_has_a_local_apic_per_cpu);
    tcase_add_test(t, madt_takes_apic_ids_from_reg);
    tcase_add_test(t, mp_table_has_the_same_cpus);
    tcase_add_test(t, mp_table_routes_the_isa_irqs_to_the_ioapic);
    tcase_add_test(t, madt_describes_the_ioapic_and_the_pc_overrides);
    tcase_add_test(t, fadt_points_at_the_pm_block_and_the_reset_register);
    tcase_add_test(t, fadt_without_a_reset_node_has_no_reset_register);
    tcase_add_test(t, dsdt_defines_s5);
    tcase_add_test(t, tables_are_the_same_bytes_every_time);
    tcase_add_test(t, no_pm_node_no_tables);
    tcase_add_test(t, refuses_apic_ids_an_xapic_entry_cannot_hold);
    tcase_add_test(t, refuses_more_cpus_than_processor_uids);
    tcase_add_test(t, refuses_what_it_cannot_describe);
    suite_add_tcase(s, t);
    t = tcase_create("devices");
    tcase_add_test(t, pm_timer_counts_3579545_hz_in_cpu_cycles);
    tcase_add_test(t, pm_tmr_sts_follows_bit_31);
    tcase_add_test(t, pm1_cnt_sleep_s5_powers_off);
    tcase_add_test(t, pm_state_survives_a_checkpoint);
    tcase_add_test(t, reset_control_resets_on_rst_cpu);
    tcase_add_test(t, pm_block_needs_its_ports);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return testutil_run(suite());
}
