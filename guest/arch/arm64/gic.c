/* gic.c (arm64) — the GICv3 driver (register map and pseudo-NMI scheme in gic.h), after Linux
 * 6.12 drivers/irqchip/irq-gic-v3.c: gic_dist_init, gic_cpu_init, gic_cpu_sys_reg_init,
 * gic_handle_irq and gic_irq_nmi_setup. */
#include "gic.h"
#include "fdt.h"
#include "smp.h"

/* distributor */
#define GICD_CTLR               0x0000
#define GICD_TYPER              0x0004
#define GICD_IGROUPR            0x0080
#define GICD_ICENABLER          0x0180
#define GICD_ICACTIVER          0x0380
#define GICD_IPRIORITYR         0x0400
#define GICD_IROUTER            0x6000
#define GICD_CTLR_RWP           (1u << 31)
#define GICD_CTLR_ARE_NS        (1u << 4)
#define GICD_CTLR_ENABLE_G1A    (1u << 1)
#define GICD_CTLR_ENABLE_G1     (1u << 0)
#define GICD_TYPER_ITLINES(t)   ((((t) & 0x1f) + 1) * 32)
#define GIC_MAX_INTID           1020
/* redistributor, RD frame */
#define GICR_CTLR               0x0000
#define GICR_TYPER              0x0008
#define GICR_WAKER              0x0014
#define GICR_CTLR_RWP           (1u << 3)
#define GICR_TYPER_LAST         (1u << 4)
#define GICR_TYPER_AFF_SHIFT    32
#define GICR_WAKER_PROCESSOR_SLEEP  (1u << 1)
#define GICR_WAKER_CHILDREN_ASLEEP  (1u << 2)
#define GICR_FRAME_SIZE         0x20000         /* RD + SGI frames, 64 KiB each */
#define GICR_SGI_OFFSET         0x10000
/* redistributor, SGI frame (the distributor's offsets, for INTIDs 0..31) */
#define GICR_IGROUPR0           GICD_IGROUPR
#define GICR_ISENABLER0         0x0100
#define GICR_ICENABLER0         GICD_ICENABLER
#define GICR_ICACTIVER0         GICD_ICACTIVER
#define GICR_IPRIORITYR0        GICD_IPRIORITYR
/* CPU interface */
#define ICC_SRE_EL1_SRE         (1u << 0)
#define ICC_CTLR_EL1_PMHE       (1u << 6)
#define ICC_IGRPEN1_EN          1u
#define GICD_INT_DEF_PRI_X4     (GICD_INT_DEF_PRI * 0x01010101u)

#define MPIDR_AFF_MASK          0xff00ffffffUL  /* Aff3 39:32, Aff2..Aff0 23:0 */

static unsigned long dist_base, redist_base;
static unsigned gic_lines;
static gic_handler_t handlers[GIC_NR_PRIVATE];
static bool is_nmi[GIC_NR_PRIVATE];
static DEFINE_PER_CPU(unsigned long, rd_base);
DEFINE_PER_CPU(struct gic_irq_stat, gic_irq_stat);

static inline u32 rd32(unsigned long a) { return *(volatile u32 *)a; }
static inline void wr32(unsigned long a, u32 v) { *(volatile u32 *)a = v; }
static inline u64 rd64(unsigned long a) { return *(volatile u64 *)a; }
static inline void wr64(unsigned long a, u64 v) { *(volatile u64 *)a = v; }

/* ---- the device tree */

static bool compat_has(const char *list, int len, const char *want)
{
    for (int i = 0; i < len; i += strlen(list + i) + 1)
        if (!strcmp(list + i, want))
            return true;
    return false;
}

/* The first child of / whose compatible list names `compat`, or -1. */
static int node_by_compatible(const char *compat)
{
    int root = boot_fdt ? fdt_path(boot_fdt, "/") : -1, node, len;

    if (root < 0)
        return -1;
    for (node = fdt_first_subnode(boot_fdt, root); node >= 0;
         node = fdt_next_subnode(boot_fdt, node)) {
        const char *c = fdt_prop(boot_fdt, node, "compatible", &len);
        if (c && len > 0 && c[len - 1] == '\0' && compat_has(c, len, compat))
            return node;
    }
    return -1;
}

/* Interrupt specifiers with the GIC's 3 cells: <type number flags>, type 1 a PPI. */
#define GIC_IRQ_CELLS           3
#define GIC_IRQ_TYPE_PPI        1

int gic_node_ppi(const char *compatible, unsigned index)
{
    int node = node_by_compatible(compatible), len;
    const u8 *p = node >= 0 ? fdt_prop(boot_fdt, node, "interrupts", &len) : NULL;
    unsigned entry = GIC_IRQ_CELLS * 4;

    if (!p || len < (int)((index + 1) * entry))
        return -1;
    p += index * entry;
    if (fdt_read_cells(p, 1) != GIC_IRQ_TYPE_PPI || fdt_read_cells(p + 4, 1) >= 16)
        return -1;
    return GIC_PPI_BASE + (int)fdt_read_cells(p + 4, 1);
}

/* #size-cells of a node (for its children): 1 when absent, as fdt_address_cells's 2. */
static unsigned size_cells(int node)
{
    int len;
    const void *v = fdt_prop(boot_fdt, node, "#size-cells", &len);

    return v && len == 4 ? fdt_read_cells(v, 1) : 1;
}

/* reg entries 0 and 1 of the arm,gic-v3 node: distributor, first redistributor. */
static bool gic_find(void)
{
    int node = node_by_compatible("arm,gic-v3"), len;
    int root = boot_fdt ? fdt_path(boot_fdt, "/") : -1;
    const u8 *reg = node >= 0 ? fdt_prop(boot_fdt, node, "reg", &len) : NULL;

    if (!reg || root < 0)
        return false;
    unsigned ac = fdt_address_cells(boot_fdt, root), sc = size_cells(root);
    if (len < (int)(2 * (ac + sc) * 4))
        return false;
    dist_base = fdt_read_cells(reg, ac);
    redist_base = fdt_read_cells(reg + (ac + sc) * 4, ac);
    return true;
}

/* ---- distributor (Linux: gic_dist_init) */

static void gic_do_wait_for_rwp(unsigned long ctlr, u32 bit)
{
    while (rd32(ctlr) & bit)
        cpu_relax();
}

static u64 mpidr_affinity(void)
{
    u64 mpidr;

    asm volatile("mrs %0, mpidr_el1" : "=r"(mpidr));
    return mpidr & MPIDR_AFF_MASK;
}

/* GICD_IROUTER's Aff3 is bits 39:32 like MPIDR's: the affinity goes in as it is. */
static void gic_dist_init(void)
{
    wr32(dist_base + GICD_CTLR, 0);
    gic_do_wait_for_rwp(dist_base + GICD_CTLR, GICD_CTLR_RWP);
    for (unsigned i = GIC_NR_PRIVATE; i < gic_lines; i += 32) {
        wr32(dist_base + GICD_IGROUPR + i / 8, ~0u);            /* all Group 1 (NS) */
        wr32(dist_base + GICD_ICACTIVER + i / 8, ~0u);
        wr32(dist_base + GICD_ICENABLER + i / 8, ~0u);
    }
    for (unsigned i = GIC_NR_PRIVATE; i < gic_lines; i += 4)
        wr32(dist_base + GICD_IPRIORITYR + i, GICD_INT_DEF_PRI_X4);
    gic_do_wait_for_rwp(dist_base + GICD_CTLR, GICD_CTLR_RWP);
    wr32(dist_base + GICD_CTLR, GICD_CTLR_ARE_NS | GICD_CTLR_ENABLE_G1A | GICD_CTLR_ENABLE_G1);
    gic_do_wait_for_rwp(dist_base + GICD_CTLR, GICD_CTLR_RWP);
    u64 affinity = mpidr_affinity();
    for (unsigned i = GIC_NR_PRIVATE; i < gic_lines; i++)
        wr64(dist_base + GICD_IROUTER + i * 8, affinity);
}

/* ---- the IRQ entry (Linux: gic_handle_irq, __gic_handle_irq, __gic_handle_nmi) */

static u32 gic_read_iar(void)
{
    unsigned long v;

    asm volatile("mrs %0, icc_iar1_el1" : "=r"(v) : : "memory");
    return v & ICC_IAR1_INTID_MASK;
}

static void gic_write_eoir(u32 irqnr)
{
    asm volatile("msr icc_eoir1_el1, %0; isb" : : "r"((unsigned long)irqnr) : "memory");
}

/* The running priority after the acknowledge is the interrupt's own: an NMI's if it was one
 * (Linux: gic_rpr_is_nmi_prio; GICD_INT_RPR_PRI is the priority as is, with DS = 1). */
static bool gic_rpr_is_nmi_prio(void)
{
    unsigned long rpr;

    asm volatile("mrs %0, icc_rpr_el1" : "=r"(rpr));
    return rpr == GICD_INT_NMI_PRI;
}

/* EOImode is 0 (no EL2 here: Linux then disables supports_deactivate_key), so the EOI both
 * drops the priority and deactivates, after the handler as the fasteoi flow does: a level
 * source's handler has lowered its line by then. */
static void gic_handle_irq(struct trap_frame *regs)
{
    u32 irqnr = gic_read_iar();

    if (irqnr >= GIC_INTID_SPECIAL) {
        this_cpu_inc(gic_irq_stat.spurious);
        return;
    }
    if (gic_rpr_is_nmi_prio())
        this_cpu_inc(gic_irq_stat.nmis);
    else
        this_cpu_inc(gic_irq_stat.irqs);
    if (irqnr < GIC_NR_PRIVATE && handlers[irqnr])
        handlers[irqnr](regs);
    gic_write_eoir(irqnr);
}

/* Linux: gic_enable_nmi_support.  With ICC_CTLR_EL1.PMHE clear a PMR write needs no DSB to
 * take effect ("relaxed"). */
static void gic_enable_nmi_support(void)
{
    unsigned long ctlr;

    asm volatile("mrs %0, icc_ctlr_el1" : "=r"(ctlr));
    printf("GICv3: Pseudo-NMIs enabled using %s ICC_PMR_EL1 synchronisation\n",
           ctlr & ICC_CTLR_EL1_PMHE ? "forced" : "relaxed");
}

bool gic_init(void)
{
    if (!gic_find())
        return false;
    gic_lines = GICD_TYPER_ITLINES(rd32(dist_base + GICD_TYPER));
    if (gic_lines > GIC_MAX_INTID)
        gic_lines = GIC_MAX_INTID;
    printf("GICv3: %u SPIs implemented\n", gic_lines - GIC_NR_PRIVATE);
    gic_enable_nmi_support();
    gic_dist_init();
    trap_set_handler(TRAP_IRQ, gic_handle_irq);
    return true;
}

/* ---- redistributor and CPU interface (Linux: gic_populate_rdist, gic_enable_redist,
 * gic_cpu_config, gic_cpu_sys_reg_init) */

/* This CPU's RD frame: the one whose GICR_TYPER affinity is its MPIDR's, up to the Last one. */
static unsigned long gic_populate_rdist(void)
{
    u64 aff = mpidr_affinity(), want = (aff >> 32) << 24 | (aff & 0xffffff);

    for (unsigned long rd = redist_base;; rd += GICR_FRAME_SIZE) {
        u64 typer = rd64(rd + GICR_TYPER);
        if (typer >> GICR_TYPER_AFF_SHIFT == want)
            return rd;
        if (typer & GICR_TYPER_LAST)
            return 0;
    }
}

static void gic_enable_redist(unsigned long rd)
{
    wr32(rd + GICR_WAKER, rd32(rd + GICR_WAKER) & ~GICR_WAKER_PROCESSOR_SLEEP);
    while (rd32(rd + GICR_WAKER) & GICR_WAKER_CHILDREN_ASLEEP)
        cpu_relax();
}

/* SGIs and PPIs: Group 1, inactive, disabled, default priority (gic_cpu_config). */
static void gic_cpu_config(unsigned long sgi)
{
    wr32(sgi + GICR_IGROUPR0, ~0u);
    wr32(sgi + GICR_ICACTIVER0, ~0u);
    wr32(sgi + GICR_ICENABLER0, ~0u);
    for (unsigned i = 0; i < GIC_NR_PRIVATE; i += 4)
        wr32(sgi + GICR_IPRIORITYR0 + i, GICD_INT_DEF_PRI_X4);
}

/* PMR first, at "interrupts off"; binary point 0 (group priority = all 5 bits, so an NMI
 * preempts); EOImode 0; Group 1 on. */
static void gic_cpu_sys_reg_init(void)
{
    unsigned long sre;

    asm volatile("mrs %0, icc_sre_el1" : "=r"(sre));
    asm volatile("msr icc_sre_el1, %0; isb" : : "r"(sre | ICC_SRE_EL1_SRE));
    local_irq_disable();
    asm volatile("msr icc_bpr1_el1, xzr");
    asm volatile("msr icc_ctlr_el1, xzr");
    asm volatile("msr icc_igrpen1_el1, %0; isb" : : "r"((unsigned long)ICC_IGRPEN1_EN));
}

void gic_cpu_init(void)
{
    unsigned long rd = gic_populate_rdist();

    if (!rd)
        panic("GICv3: CPU%u: mpidr %lx has no redistributor\n", smp_processor_id(),
              arch_cpu_hwid());
    this_cpu_write(rd_base, rd);
    gic_enable_redist(rd);
    gic_cpu_config(rd + GICR_SGI_OFFSET);
    gic_do_wait_for_rwp(rd + GICR_CTLR, GICR_CTLR_RWP);
    gic_cpu_sys_reg_init();
    asm volatile("msr daifclr, #2" ::: "memory");      /* PMR masks from here on */
}

/* ---- private interrupts (Linux: request_percpu_irq/nmi, gic_irq_nmi_setup, gic_poke_irq) */

void gic_request_percpu(unsigned intid, gic_handler_t handler, bool nmi)
{
    handlers[intid] = handler;
    is_nmi[intid] = nmi;
}

/* The priority byte by a word's read-modify-write, then the enable. */
void gic_enable_percpu(unsigned intid)
{
    unsigned long sgi = this_cpu_read(rd_base) + GICR_SGI_OFFSET;
    unsigned long pri = sgi + GICR_IPRIORITYR0 + (intid & ~3u);
    unsigned shift = (intid & 3) * 8;
    u32 prio = is_nmi[intid] ? GICD_INT_NMI_PRI : GICD_INT_DEF_PRI;

    wr32(pri, (rd32(pri) & ~(0xffu << shift)) | prio << shift);
    wr32(sgi + GICR_ISENABLER0, 1u << intid);
    gic_do_wait_for_rwp(this_cpu_read(rd_base) + GICR_CTLR, GICR_CTLR_RWP);
}
