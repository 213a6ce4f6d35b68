/* access.c — what the CPU core offers its backends and models besides running: engine
 * registers, guest memory (the store path to code pages: the code-write chokepoint),
 * diagnostics, and the questions asked of all the CPUs (the CPU core, cpu/cpu.h, with cpu.c). */
#include "cpu/cpu.h"

#include <stdio.h>
#include <string.h>

uint64_t vcpu_reg_read(Cpu *c, int reg)
{
    uint64_t v = 0;
    uc_err e = uc_reg_read(c->uc, reg, &v);
    if (e != UC_ERR_OK)
        vcpu_internal_error(c, "uc_reg_read(%d): %s", reg, uc_strerror(e));
    return c->ops->arch == ARCH_PPC32 ? (uint32_t)v : v;
}

void vcpu_reg_write(Cpu *c, int reg, uint64_t v)
{
    uc_err e = uc_reg_write(c->uc, reg, &v);
    if (e != UC_ERR_OK)
        vcpu_internal_error(c, "uc_reg_write(%d): %s", reg, uc_strerror(e));
}

bool vcpu_mem_read(Cpu *c, uint64_t addr, void *buf, size_t len)
{
    uint8_t *p = mem_ptr(c->mem, addr, len);
    if (!p)
        return false;
    memcpy(buf, p, len);
    return true;
}

/* A guest store of `size` bytes (already in guest byte order) to a write-protected page: the
 * code-write chokepoint (codewatch.h).  The store is done here (the engine discards stores to
 * read-only pages); one that overlaps code is recorded (as pieces of at most CODEWRITE_MAX
 * bytes) and the stale translations and decoded blocks are dropped from every CPU. */
void vcpu_code_store(Cpu *c, uint64_t addr, const uint8_t *bytes, unsigned size)
{
    Cluster *cl = c->cl;
    for (; size > CODEWRITE_MAX; addr += CODEWRITE_MAX, bytes += CODEWRITE_MAX, size -= CODEWRITE_MAX)
        vcpu_code_store(c, addr, bytes, CODEWRITE_MAX);
    uint8_t *dst = mem_ptr(c->mem, addr, size);
    if (!dst)
        return;
    if (!codewatch_overlaps(&cl->cw, addr, size)) {
        memcpy(dst, bytes, size);       /* data that shares a page with code */
        return;
    }
    CodeWrite w = { c->index, 0, c->cycles, addr, vcpu_code_va(c, addr), size, { 0 }, { 0 } };
    memcpy(w.old_bytes, dst, size);
    memcpy(w.new_bytes, bytes, size);
    memcpy(dst, bytes, size);
    if (!cl->stopping) {
        w.pc = vcpu_access_pc(c, ACC_WRITE, addr, size);
        codewatch_record(&cl->cw, cl->trace, &w);
    }
    for (int i = 0; i < cl->ncpus; i++)
        vcpu_invalidate_code(cl->cpus[i], addr, addr + size);
}

/* Pages that became code (vcpu_protect_code_pages): from now on a store to them fills the
 * engine's TLB with the code-write window (mmu.c), so every CPU forgets the translations it
 * has, writable ones among them; a CPU without the window write-protects the page in its
 * engine. */
static void protect_page(Cpu *c, uint64_t page)
{
    if (!c->mmu.shadow) {
        /* A failed protect leaves the engine's region split half-way (docs/engine.md). */
        uc_err e = vcpu_engine_protect(c, page, GUEST_PAGE, UC_PROT_READ | UC_PROT_EXEC);
        if (e != UC_ERR_OK)
            vcpu_internal_error(c, "cannot write-protect the code page at 0x%" PRIx64 ": %s", page, uc_strerror(e));
    }
    vcpu_invalidate_code(c, page, page + GUEST_PAGE);
}

void vcpu_protect_code_pages(Cluster *cl)
{
    GuestMem *gm = cl->mem;
    for (int i = 0; i < gm->npending; i++) {
        uint64_t page = gm->pending[i];
        RamBlock *b = mem_block(gm, page);
        uint8_t *f = &b->pflags[(page - b->base) / GUEST_PAGE];
        *f = (uint8_t)((*f & ~PAGE_CODE_PENDING) | PAGE_CODE);
        for (int k = 0; k < cl->ncpus; k++)
            protect_page(cl->cpus[k], page);
    }
    for (int k = 0; k < cl->ncpus && gm->npending; k++)
        if (cl->cpus[k]->mmu.shadow)
            vcpu_engine_flush_tlb(cl->cpus[k]);
    gm->npending = 0;
}

bool vcpu_mem_write(Cpu *c, uint64_t addr, const void *buf, size_t len)
{
    if (!mem_ptr(c->mem, addr, len))
        return false;
    if (mem_page_is_code(c->mem, addr) || mem_page_is_code(c->mem, addr + len - 1)) {
        RamBlock *b = mem_block(c->mem, addr);
        if (b && b->rom)
            return false;
        vcpu_code_store(c, addr, buf, (unsigned)len);
        return true;
    }
    memcpy(mem_ptr(c->mem, addr, len), buf, len);
    return true;
}

/* Is [addr, addr + len) (within one page) mapped in the engine: RAM, ROM or a device window? */
bool vcpu_engine_maps(Cpu *c, uint64_t addr, uint64_t len)
{
    uc_mem_region *r = NULL;
    uint32_t n = 0;
    bool in = false;
    if (uc_mem_regions(c->uc, &r, &n) != UC_ERR_OK)
        return true;
    for (uint32_t i = 0; i < n && !in; i++)
        in = r[i].begin <= addr && addr + len - 1 <= r[i].end;
    uc_free(r);
    return in;
}

void vcpu_diag(Cpu *c, uint64_t pc, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    trace_vdiagf(c->cl->trace, c->cycles, c->index, what, &pc, fmt, ap);
    va_end(ap);
}

void vcpu_internal_error(Cpu *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "pmusim: internal error on cpu%d: ", c->index);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    c->state = CPU_DEAD;
    vcpu_exit(c, EXIT_INTERNAL, "internal-error");
    uc_emu_stop(c->uc);
}

uint64_t vcpu_total_insns(const Cluster *cl)
{
    uint64_t t = 0;
    for (int i = 0; i < cl->ncpus; i++)
        t += cl->cpus[i]->insns;
    return t;
}

Cpu *vcpu_by_hwid(const Cluster *cl, uint64_t hwid)
{
    for (int i = 0; i < cl->ncpus; i++)
        if (cl->cpus[i]->hwid == hwid)
            return cl->cpus[i];
    return NULL;
}
