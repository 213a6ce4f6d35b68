/* mmu.c — the guest MMU when pmusim owns it (CpuOps.translate), and a CPU's view of code
 * through it (cpu/cpu.h, "the guest MMU").
 *
 * With a backend walker the engine runs in its virtual-TLB mode (Unicorn 2.1's UC_TLB_VIRTUAL):
 * every fill of its TLB comes to hook_tlb_fill, which asks the backend's page walk.  So a fault
 * carries the architecture's full syndrome (the engine's own MMU reports none of it:
 * docs/engine.md), a bad page table entry gets a diag naming it, and pmusim knows the physical
 * page behind every instruction fetch.  The code map keeps those: virtual code page -> physical
 * page, and back.  Blocks are decoded from the physical bytes the CPU fetches; a code write
 * (which arrives with a physical address) drops the translations under every virtual page that
 * maps it; a virtual page that comes back mapped elsewhere loses its decoded blocks.
 *
 * Code pages and stores.  Every store to a page the CPUs have executed must reach the code-write
 * chokepoint (vcpu_code_store) with its exact address and bytes, without the engine's regions
 * changing: write-protecting a page with uc_mem_protect splits the engine's region around it,
 * and the engine rebuilds its memory map and walks its list of regions (linear) on every
 * translation of a new page, so a Linux boot, which executes thousands of pages, spent nearly
 * all its time there (5 MIPS).  Instead each RAM block is mapped a second time as I/O, in the
 * code-write window at `shadow` + its base, above anything a guest can address (the engine's
 * physical space is larger than the CPUs' output addresses: arm64 44 bits of PARange in 48,
 * ppc32 32 in 36, x86 MAXPHYADDR in 52).  The fill of a write to a code page enters the page's
 * window address, without execute permission: the engine then does the store as an I/O write
 * (value and size exact, split as the engine splits any access), which comes to shadow_write.
 * A fill for a read or fetch of a code page enters the RAM page without write permission, so
 * that a later store fills again.  A page that becomes code has every CPU's TLB flushed
 * (vcpu_protect_code_pages).  The engine's own stores to RAM (its TB invalidation) never see
 * these, so the chokepoint drops the translations itself, as it always did.
 *
 * Under the engine's own MMU (no walker) virtual is taken as physical, as before. */
#include "cpu/cpu.h"

#include <stdlib.h>
#include <string.h>

#define NO_PAGE UINT64_MAX
#define CODEMAP_MIN 256u

static uint64_t page_of(uint64_t a)
{
    return a & ~(uint64_t)(GUEST_PAGE - 1);
}

/* Guest page numbers hashed (Fibonacci hashing): deterministic, no host values involved. */
static uint32_t slot_of(uint64_t page, uint32_t cap)
{
    return (uint32_t)(((page / GUEST_PAGE) * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

static CodeMapSlot *fwd_find(const CpuMmu *m, uint64_t vpage)
{
    if (!m->cap)
        return NULL;
    for (uint32_t i = slot_of(vpage, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->fwd[i].vpage == vpage)
            return &m->fwd[i];
        if (m->fwd[i].vpage == NO_PAGE)
            return NULL;
    }
}

static AliasList *rev_slot(CpuMmu *m, uint64_t ppage)
{
    for (uint32_t i = slot_of(ppage, m->cap);; i = (i + 1) & (m->cap - 1))
        if (m->rev[i].ppage == ppage || m->rev[i].ppage == NO_PAGE)
            return &m->rev[i];
}

static void rev_add(CpuMmu *m, uint64_t ppage, uint64_t vpage)
{
    AliasList *l = rev_slot(m, ppage);
    if (l->ppage == NO_PAGE)
        l->ppage = ppage;
    for (uint32_t i = 0; i < l->n; i++)
        if (l->vpages[i] == vpage)
            return;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 2;
        l->vpages = xrealloc(l->vpages, l->cap * sizeof *l->vpages);
    }
    l->vpages[l->n++] = vpage;
}

static void fwd_put(CpuMmu *m, uint64_t vpage, uint64_t ppage)
{
    uint32_t i = slot_of(vpage, m->cap);
    while (m->fwd[i].vpage != NO_PAGE && m->fwd[i].vpage != vpage)
        i = (i + 1) & (m->cap - 1);
    if (m->fwd[i].vpage == NO_PAGE)
        m->n++;
    m->fwd[i] = (CodeMapSlot){ vpage, ppage };
}

/* Both tables at a new capacity, their entries re-inserted in slot order (deterministic). */
static void codemap_grow(CpuMmu *m)
{
    CodeMapSlot *fwd = m->fwd;
    AliasList *rev = m->rev;
    uint32_t cap = m->cap;
    m->cap = cap ? 2 * cap : CODEMAP_MIN;
    m->n = 0;
    m->fwd = xcalloc(m->cap, sizeof *m->fwd);
    m->rev = xcalloc(m->cap, sizeof *m->rev);
    for (uint32_t i = 0; i < m->cap; i++)
        m->fwd[i].vpage = m->rev[i].ppage = NO_PAGE;
    for (uint32_t i = 0; i < cap; i++) {
        if (fwd[i].vpage != NO_PAGE)
            fwd_put(m, fwd[i].vpage, fwd[i].ppage);
        if (rev[i].ppage != NO_PAGE)
            *rev_slot(m, rev[i].ppage) = rev[i];
    }
    free(fwd);
    free(rev);
}

/* An instruction-fetch fill: vpage -> ppage.  A page that comes back mapped elsewhere (a new
 * CR3 / TTBR, a remap, a BAT) loses what pmusim decoded from its old bytes. */
static void codemap_note(Cpu *c, uint64_t vpage, uint64_t ppage)
{
    CpuMmu *m = &c->mmu;
    CodeMapSlot *s = fwd_find(m, vpage);
    if (s && s->ppage == ppage)
        return;
    if (s)
        vcpu_forget_code(c, vpage, vpage + GUEST_PAGE);
    if (2 * (m->n + 1) > m->cap)
        codemap_grow(m);
    fwd_put(m, vpage, ppage);
    rev_add(m, ppage, vpage);
}

/* The engine wants a TLB entry for the page at va.  While pmusim drops a translation
 * (uc_ctl_remove_cache translates its address as a fetch: vcpu_engine_forget) the walk is a
 * probe, and a page that no longer maps where the code map says is entered as the code map has
 * it: the engine must find the translation to drop it.  That entry may be stale, so the TLB is
 * flushed afterwards. */
/* One RAM block's region in the code-write window. */
typedef struct CodeShadow {
    Cpu *cpu;
    uint64_t base;                  /* the block's guest physical base */
} CodeShadow;

/* The base of the code-write window: the upper half of the engine's physical address space
 * (TARGET_PHYS_ADDR_SPACE_BITS of its targets: aarch64 48, x86_64 52).  The ppc32 engine
 * (a 32-bit target: its store path keeps the physical address in a target_ulong) never calls
 * the window's write callback: there code pages stay write-protected regions, which the
 * write-protect hook reports (ppc32 guests execute few pages). */
static uint64_t shadow_base(Arch arch)
{
    return arch == ARCH_PPC32 ? 0 : arch == ARCH_ARM64 ? 1ull << 47 : 1ull << 51;
}

bool vcpu_code_window_used(const Cpu *c)
{
    return c->ops->translate && shadow_base(c->ops->arch);
}

static uint64_t shadow_read(uc_engine *uc, uint64_t off, unsigned size, void *opaque)
{
    const CodeShadow *s = opaque;
    const uint8_t *p = mem_ptr(s->cpu->mem, s->base + off, size);
    if (!p || size > 8)
        return 0;
    return isa_big_endian(s->cpu->ops->arch) ? load_be(p, size) : load_le(p, size);
}

static void shadow_write(uc_engine *uc, uint64_t off, unsigned size, uint64_t value, void *opaque)
{
    const CodeShadow *s = opaque;
    vcpu_store_to_code(s->cpu, s->base + off, size, value);
}

/* Map the code-write window of every RAM block (vcpu_create, after RAM). */
bool vcpu_map_code_window(Cpu *c, Error *err)
{
    GuestMem *gm = c->mem;
    c->mmu.shadow = vcpu_code_window_used(c) ? shadow_base(c->ops->arch) : 0;
    c->mmu.shadows = xcalloc(MEM_MAX_BLOCKS, sizeof *c->mmu.shadows);
    for (int i = 0; i < gm->n && c->mmu.shadow; i++) {
        const RamBlock *b = &gm->blk[i];
        if (b->rom)
            continue;
        if (b->base + b->size > c->mmu.shadow)
            return err_set(err, "RAM at 0x%" PRIx64 "+0x%" PRIx64 " reaches pmusim's code-write window at 0x%" PRIx64,
                           b->base, b->size, c->mmu.shadow);
        c->mmu.shadows[i] = (CodeShadow){ c, b->base };
        uc_err e = uc_mmio_map(c->uc, c->mmu.shadow + b->base, b->size, shadow_read, &c->mmu.shadows[i], shadow_write,
                               &c->mmu.shadows[i]);
        if (e != UC_ERR_OK)
            return err_set(err, "cpu%d: mapping the code-write window of RAM at 0x%" PRIx64 ": %s", c->index, b->base,
                           uc_strerror(e));
    }
    return true;
}

/* A fill's answer on a code page (mmu.c, "Code pages and stores"). */
static void fill_code_page(Cpu *c, MmuAccess acc, uint64_t va, uc_tlb_entry *e)
{
    RamBlock *b = c->mmu.shadow ? mem_block(c->mem, e->paddr) : NULL;
    if (!b || b->rom || !(b->pflags[(e->paddr - b->base) / GUEST_PAGE] & PAGE_CODE))
        return;
    if (acc == MMU_WRITE) {
        e->paddr += c->mmu.shadow;
        e->perms &= ~(uint32_t)UC_PROT_EXEC;
    } else {
        e->perms &= ~(uint32_t)UC_PROT_WRITE;
    }
}

static bool hook_tlb_fill(uc_engine *uc, uint64_t va, uc_mem_type type, uc_tlb_entry *e, void *opaque)
{
    Cpu *c = opaque;
    MmuAccess acc = type == UC_MEM_FETCH ? MMU_FETCH : type == UC_MEM_WRITE ? MMU_WRITE : MMU_READ;
    MmuResult r = { 0 };
    bool ok = c->ops->translate(c, va, acc, c->mmu.invalidating || c->quiet, &r);
    if (c->mmu.invalidating) {
        /* A failed fill here would end the whole run with an error, not a fault. */
        const CodeMapSlot *s = fwd_find(&c->mmu, page_of(va));
        if (!ok || (s && r.pa != s->ppage)) {
            r.pa = s ? s->ppage : page_of(va), r.perms = UC_PROT_READ | UC_PROT_EXEC, ok = true;
            c->mmu.stale_fill = true;
        }
    }
    if (!ok) {
        if (!c->mmu.invalidating && !c->quiet) {
            r.acc = acc, r.va = page_of(va);
            c->mmu.fault = r;
            c->mmu.fault_pending = true;
        }
        return false;
    }
    e->paddr = r.pa | (va & (GUEST_PAGE - 1));    /* the engine's pages may be smaller (arm64: 1 KiB) */
    e->perms = r.perms;
    fill_code_page(c, acc, va, e);
    if (acc == MMU_FETCH && !c->mmu.invalidating)
        codemap_note(c, page_of(va), r.pa);
    return true;
}

bool vcpu_mmu_init(Cpu *c, Error *err)
{
    c->mmu.buf = xcalloc(2, GUEST_PAGE);
    if (!c->ops->translate)
        return true;
    uc_hook h;
    if (uc_ctl_tlb_mode(c->uc, UC_TLB_VIRTUAL) != UC_ERR_OK ||
        uc_hook_add(c->uc, &h, UC_HOOK_TLB_FILL, (void *)hook_tlb_fill, c, 1, 0) != UC_ERR_OK)
        return err_set(err, "cpu%d: cannot give the engine pmusim's MMU", c->index);
    c->mmu.own = true;
    codemap_grow(&c->mmu);
    return true;
}

void vcpu_mmu_destroy(Cpu *c)
{
    CpuMmu *m = &c->mmu;
    for (uint32_t i = 0; i < m->cap; i++)
        free(m->rev[i].vpages);
    free(m->fwd);
    free(m->rev);
    free(m->buf);
    free(m->shadows);
}

bool vcpu_fetch_pa(Cpu *c, uint64_t va, uint64_t *pa)
{
    if (!c->mmu.own) {
        *pa = va;
        return true;
    }
    const CodeMapSlot *s = fwd_find(&c->mmu, page_of(va));
    MmuResult r;
    if (s)
        r.pa = s->ppage;
    else if (!c->ops->translate(c, va, MMU_FETCH, true, &r))
        return false;
    *pa = r.pa | (va & (GUEST_PAGE - 1));
    return true;
}

bool vcpu_fetch_read(Cpu *c, uint64_t va, void *buf, size_t len)
{
    uint8_t *out = buf;
    while (len) {
        size_t n = GUEST_PAGE - (va & (GUEST_PAGE - 1));
        if (n > len)
            n = len;
        uint64_t pa;
        if (!vcpu_fetch_pa(c, va, &pa) || !vcpu_mem_read(c, pa, out, n))
            return false;
        va += n, out += n, len -= n;
    }
    return true;
}

const uint8_t *vcpu_fetch_bytes(Cpu *c, uint64_t va, size_t len)
{
    uint64_t pa;
    if (!len || len > GUEST_PAGE)
        return NULL;
    if (page_of(va) == page_of(va + len - 1))
        return vcpu_fetch_pa(c, va, &pa) ? mem_ptr(c->mem, pa, len) : NULL;
    return vcpu_fetch_read(c, va, c->mmu.buf, len) ? c->mmu.buf : NULL;
}

bool vcpu_access_matches(Cpu *c, uint64_t ea, uint64_t len, uint64_t addr, unsigned size)
{
    MmuResult r;
    if (c->mmu.own) {
        /* The piece of [ea, ea + len) on each page it touches, by its physical address.  By
         * length left, not by end address: an access at the top of the address space wraps
         * (random guest x86_64 10062 walked 2^52 pages here). */
        for (uint64_t a = ea, left = len; left;) {
            uint64_t n = GUEST_PAGE - (a & (GUEST_PAGE - 1));
            n = n < left ? n : left;
            if (c->ops->translate(c, a, MMU_READ, true, &r)) {
                uint64_t pa = r.pa | (a & (GUEST_PAGE - 1));
                if (pa < addr + size && addr < pa + n)
                    return true;
            }
            a += n, left -= n;
        }
        return false;
    }
    return ea < addr + size && addr < ea + len;
}

/* Around an engine call of pmusim's own that may fill the TLB (hook_tlb_fill): fills only probe
 * and never fail; a translation entered that the guest does not have is flushed after. */
static void engine_call_begin(Cpu *c)
{
    vcpu_engine_tlb_catch_up(c);
    c->mmu.invalidating = true;
}

static void engine_call_end(Cpu *c)
{
    c->mmu.invalidating = false;
    if (c->mmu.stale_fill) {
        c->mmu.stale_fill = false;
        uc_ctl_flush_tlb(c->uc);
    }
}

void vcpu_engine_forget(Cpu *c, uint64_t va, uint64_t va_end)
{
    engine_call_begin(c);
    uc_ctl_remove_cache(c->uc, va, va_end);
    engine_call_end(c);
}

/* Deleting a code hook makes the engine drop the translations of the hook's range, which it
 * finds by translating the range's start as a fetch (uc_hook_del; 2.1.1): a trap site
 * recorded at an address the guest no longer maps (the identity map of its boot, with the MMU
 * now on) would otherwise fault there, inside the call, and the fault be taken later at an
 * unrelated instruction. */
void vcpu_engine_hook_del(Cpu *c, uc_hook h)
{
    engine_call_begin(c);
    uc_hook_del(c->uc, h);
    engine_call_end(c);
}

void vcpu_engine_flush_tlb(Cpu *c)
{
    c->mmu.flush_due = false;
    uc_ctl_flush_tlb(c->uc);
}

/* CPUs run one at a time in a fixed order (docs/architecture.md), so a broadcast TLBI's flush of another CPU's engine
 * can wait until that engine is used again: a CPU that sleeps, or runs after this one's whole
 * quantum, then flushes once for every TLBI of it (a Linux boot makes 10^5, most before the
 * second CPU is up). */
void vcpu_engine_flush_tlb_remote(Cpu *c)
{
    c->mmu.flush_due = true;
}

void vcpu_engine_tlb_catch_up(Cpu *c)
{
    if (c->mmu.flush_due)
        vcpu_engine_flush_tlb(c);
}

/* uc_mem_protect (like uc_mem_unmap) drops the translations of the physical range by passing it
 * to the engine's invalidation, which translates it as a virtual address (docs/engine.md): at
 * CPL 3 a kernel page's walk failed there, and the region was left unmapped. */
uc_err vcpu_engine_protect(Cpu *c, uint64_t pa, uint64_t size, uint32_t perms)
{
    engine_call_begin(c);
    uc_err e = uc_mem_protect(c->uc, pa, size, perms);
    engine_call_end(c);
    return e;
}

typedef struct AccessQuery {
    uint64_t addr;
    unsigned size;
} AccessQuery;

static bool access_hits(Cpu *c, void *ctx, uint64_t ea, uint64_t len)
{
    const AccessQuery *q = ctx;
    return vcpu_access_matches(c, ea, len, q->addr, q->size);
}

bool vcpu_insn_accesses(Cpu *c, const cs_insn *insn, AccessKind kind, uint64_t addr, unsigned size)
{
    AccessQuery q = { addr, size };
    return c->ops->each_access(c, insn, kind, access_hits, &q);
}

/* The first byte of an access on the page at q->addr (SDM vol. 3A §4.7: CR2 is the linear
 * address that caused the fault; DDI 0487 D17.2: FAR_EL1 the lowest faulting address). */
static bool fault_byte(Cpu *c, void *ctx, uint64_t ea, uint64_t len)
{
    AccessQuery *q = ctx;
    if (ea >= q->addr + GUEST_PAGE || q->addr >= ea + len)
        return false;
    q->addr = ea > q->addr ? ea : q->addr;
    q->size = 1;                    /* found */
    return true;
}

uint64_t vcpu_fault_address(Cpu *c, uint64_t pc, const MmuResult *r, const char *reg)
{
    if (r->acc == MMU_FETCH)
        return page_of(pc) == r->va ? pc : r->va;
    size_t max = c->ops->arch == ARCH_X86_64 ? 15 : 4;     /* the longest instruction */
    const uint8_t *bytes = vcpu_fetch_bytes(c, pc, max);
    cs_insn *insn = NULL;
    size_t n = bytes ? cs_disasm(c->cs, bytes, max, pc, 1, &insn) : 0;
    AccessQuery q = { r->va, 0 };
    if (n == 1)
        c->ops->each_access(c, insn, r->acc == MMU_WRITE ? ACC_WRITE : ACC_READ, fault_byte, &q);
    if (insn)
        cs_free(insn, n);
    if (!q.size)
        vcpu_diag(c, pc, "fault-address", "the faulting access on page 0x%" PRIx64 " is not among the "
                  "instruction's operands: %s is the page", r->va, reg);
    return q.addr;
}

void vcpu_code_aliases(Cpu *c, uint64_t start, uint64_t end, void (*fn)(Cpu *c, uint64_t va, uint64_t va_end))
{
    if (!c->mmu.own) {
        fn(c, start, end);
        return;
    }
    for (uint64_t p = page_of(start); p < end; p += GUEST_PAGE) {
        AliasList *l = rev_slot(&c->mmu, p);
        uint64_t lo = start > p ? start - p : 0, hi = end - p < GUEST_PAGE ? end - p : GUEST_PAGE;
        for (uint32_t i = 0; l->ppage == p && i < l->n; i++) {
            const CodeMapSlot *s = fwd_find(&c->mmu, l->vpages[i]);
            if (s && s->ppage == p)                 /* still mapped there */
                fn(c, l->vpages[i] + lo, l->vpages[i] + hi);
        }
    }
}

uint64_t vcpu_code_va(Cpu *c, uint64_t pa)
{
    if (!c->mmu.own)
        return pa;
    uint64_t p = page_of(pa);
    AliasList *l = rev_slot(&c->mmu, p);
    for (uint32_t i = l->ppage == p ? l->n : 0; i-- > 0;) {
        const CodeMapSlot *s = fwd_find(&c->mmu, l->vpages[i]);
        if (s && s->ppage == p)
            return l->vpages[i] | (pa & (GUEST_PAGE - 1));
    }
    return pa;
}

bool vcpu_data_pa(Cpu *c, uint64_t va, uint64_t *pa)
{
    MmuResult r;
    if (!c->mmu.own) {
        *pa = va;
        return true;
    }
    if (!c->ops->translate(c, va, MMU_READ, true, &r))
        return false;
    *pa = r.pa | (va & (GUEST_PAGE - 1));
    return true;
}

bool vcpu_mmu_fault_deliver(Cpu *c)
{
    if (!c->mmu.fault_pending)
        return false;
    c->mmu.fault_pending = false;
    c->ops->mmu_fault(c, &c->mmu.fault);
    return true;
}
