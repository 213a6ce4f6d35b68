/* debug.c — breakpoints, watchpoints and single-step for the debugger (debug.h has the design).
 *
 * Tables: ClusterDebug.breaks (virtual PCs, every CPU), .watches (virtual ranges).  Per CPU:
 * CpuDebug.until (the step's instruction limit), .hit (a watched access by the instruction being
 * executed), .stop (what vcpu_run reports between runs), the engine hooks while watchpoints exist.
 */
#include "cpu/debug.h"

#include <string.h>

#include "cpu/cpu.h"

/* ------------------------------------------------------------------ breakpoints */

bool vcpu_debug_break_at(const Cluster *cl, uint64_t pc)
{
    for (unsigned i = 0; i < cl->dbg.nbreaks; i++)
        if (cl->dbg.breaks[i] == pc)
            return true;
    return false;
}

/* The decoded blocks and translations over pc go, in every CPU: decoded again, the instruction
 * gets (or loses) its trap site. */
static void forget_pc(Cluster *cl, uint64_t pc)
{
    for (int i = 0; i < cl->ncpus; i++) {
        vcpu_engine_forget(cl->cpus[i], pc, pc + 1);
        vcpu_forget_code(cl->cpus[i], pc, pc + 1);
    }
}

bool vcpu_debug_break(Cluster *cl, uint64_t pc, bool set)
{
    ClusterDebug *d = &cl->dbg;
    bool there = vcpu_debug_break_at(cl, pc);
    if (set && !there) {
        if (d->nbreaks == DEBUG_MAX_BREAK)
            return false;
        d->breaks[d->nbreaks++] = pc;
    } else if (!set && there) {
        for (unsigned i = 0; i < d->nbreaks; i++)
            if (d->breaks[i] == pc)
                d->breaks[i] = d->breaks[--d->nbreaks];
    } else
        return set;                 /* set twice: fine; removing one that is not there: an error */
    forget_pc(cl, pc);
    return true;
}

/* ------------------------------------------------------------------ watchpoints */

static bool watch_matches(const DebugWatchpoint *w, uint64_t addr, uint64_t len, bool write)
{
    if (addr >= w->addr + w->len || w->addr >= addr + len)
        return false;
    return w->kind == WATCH_ACCESS || (w->kind == WATCH_WRITE) == write;
}

/* An access of [addr, addr + len) by c's current instruction: the first watchpoint it meets. */
static void watch_access(Cpu *c, uint64_t addr, uint64_t len, bool write)
{
    const ClusterDebug *d = &c->cl->dbg;
    if (c->quiet || c->dbg.hit.kind != DBG_NONE)
        return;
    for (unsigned i = 0; i < d->nwatches; i++) {
        const DebugWatchpoint *w = &d->watches[i];
        if (watch_matches(w, addr, len, write)) {
            c->dbg.hit = (DebugStop){ DBG_WATCH, w->kind, addr > w->addr ? addr : w->addr };
            return;
        }
    }
}

static void hook_watch_mem(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value, void *opaque)
{
    watch_access(opaque, addr, (uint64_t)size, type == UC_MEM_WRITE);
}

/* Before each instruction while watchpoints exist: the previous one made a watched access and
 * has retired; stop before this one. */
static void hook_watch_code(uc_engine *uc, uint64_t pc, uint32_t size, void *opaque)
{
    Cpu *c = opaque;
    if (c->dbg.hit.kind == DBG_NONE || c->quiet || c->stop.redirected || c->stop.kind != STOP_NONE ||
        c->cl->stopping)
        return;
    c->dbg.stop = c->dbg.hit;
    c->dbg.hit.kind = DBG_NONE;
    vcpu_stop_before(c, pc);
}

void vcpu_debug_code_write(Cpu *c, uint64_t pa, uint64_t va, unsigned size)
{
    (void)pa;
    watch_access(c, va, size, true);
}

static void code_write_listener(void *opaque, const CodeWrite *w)
{
    Cluster *cl = opaque;
    if (cl->dbg.nwatches && w->cpu >= 0 && w->cpu < cl->ncpus)
        vcpu_debug_code_write(cl->cpus[w->cpu], w->addr, w->va, w->size);
}

/* Drop every translation of code the CPU may hold: ROM, and each run of RAM pages that became
 * code (the only pages the engine has translated).  Not uc_ctl_flush_tb: Unicorn 2.1.1's TB flush
 * touches the whole translation buffer, about 1 GiB of resident memory per engine. */
static void forget_translations(Cpu *c)
{
    const GuestMem *gm = c->mem;
    for (int i = 0; i < gm->n; i++) {
        const RamBlock *b = &gm->blk[i];
        uint64_t pages = b->rom ? 0 : b->flagged_end, run = 0;
        if (b->rom)
            vcpu_invalidate_code(c, b->base, b->base + b->size);
        for (uint64_t p = 0; p <= pages; p++) {
            bool code = p < pages && (b->pflags[p] & (PAGE_CODE | PAGE_CODE_PENDING));
            if (code && !run++)
                continue;
            if (!code && run) {
                vcpu_invalidate_code(c, b->base + (p - run) * GUEST_PAGE, b->base + p * GUEST_PAGE);
                run = 0;
            }
        }
    }
}

/* The engine hooks exist exactly while watchpoints do; the translations made without (or with)
 * them go. */
static bool watch_hooks(Cpu *c, bool on)
{
    CpuDebug *d = &c->dbg;
    if (d->hooked == on)
        return true;
    if (on) {
        if (uc_hook_add(c->uc, &d->hooks[0], UC_HOOK_MEM_READ, (void *)hook_watch_mem, c, 1, 0) != UC_ERR_OK ||
            uc_hook_add(c->uc, &d->hooks[1], UC_HOOK_MEM_WRITE, (void *)hook_watch_mem, c, 1, 0) != UC_ERR_OK ||
            uc_hook_add(c->uc, &d->hooks[2], UC_HOOK_CODE, (void *)hook_watch_code, c, 1, 0) != UC_ERR_OK)
            return false;
    } else {
        for (unsigned i = 0; i < ARRAY_SIZE(d->hooks); i++)
            vcpu_engine_hook_del(c, d->hooks[i]);
    }
    d->hooked = on;
    forget_translations(c);
    vcpu_engine_flush_tlb(c);
    return true;
}

static int watch_find(const ClusterDebug *d, WatchKind kind, uint64_t addr, uint64_t len)
{
    for (unsigned i = 0; i < d->nwatches; i++)
        if (d->watches[i].kind == kind && d->watches[i].addr == addr && d->watches[i].len == len)
            return (int)i;
    return -1;
}

bool vcpu_debug_watch(Cluster *cl, WatchKind kind, uint64_t addr, uint64_t len, bool set)
{
    ClusterDebug *d = &cl->dbg;
    int i = watch_find(d, kind, addr, len);
    if (set && i < 0) {
        if (d->nwatches == DEBUG_MAX_WATCH || !len)
            return false;
        d->watches[d->nwatches++] = (DebugWatchpoint){ addr, len, kind };
        if (!d->listening)
            codewatch_listen(&cl->cw, code_write_listener, cl);
        d->listening = true;
    } else if (!set && i >= 0)
        d->watches[i] = d->watches[--d->nwatches];
    else
        return set;
    bool ok = true;
    for (int k = 0; k < cl->ncpus; k++)
        ok &= watch_hooks(cl->cpus[k], d->nwatches > 0);
    return ok;
}

void vcpu_debug_clear(Cluster *cl)
{
    while (cl->dbg.nbreaks)
        vcpu_debug_break(cl, cl->dbg.breaks[0], false);
    while (cl->dbg.nwatches) {
        DebugWatchpoint w = cl->dbg.watches[0];
        vcpu_debug_watch(cl, w.kind, w.addr, w.len, false);
    }
    for (int k = 0; k < cl->ncpus; k++)
        cl->cpus[k]->dbg.until = UINT64_MAX;
}

/* ------------------------------------------------------------------ stops */

bool vcpu_debug_break_hit(Cpu *c, uint64_t pc)
{
    if (!vcpu_debug_break_at(c->cl, pc))
        return false;
    if (c->dbg.resume && c->dbg.resume_pc == pc && c->dbg.resume_insns == c->insns)
        return false;               /* resuming from it: it runs */
    c->dbg.stop = (DebugStop){ DBG_BREAK, 0, pc };
    return true;
}

void vcpu_debug_resume(Cpu *c, bool step)
{
    c->dbg.until = step ? c->insns + 1 : UINT64_MAX;
    c->dbg.resume = true;
    c->dbg.resume_pc = c->ops->get_pc(c);
    c->dbg.resume_insns = c->insns;
}

void vcpu_debug_report(Cpu *c)
{
    CpuDebug *d = &c->dbg;
    if (d->stop.kind == DBG_NONE)
        d->stop = d->hit.kind != DBG_NONE ? d->hit : (DebugStop){ DBG_STEP, 0, 0 };
    d->hit.kind = DBG_NONE;
    d->until = UINT64_MAX;
    d->resume = false;
    const ClusterDebug *cd = &c->cl->dbg;
    if (cd->stopped)
        cd->stopped(cd->opaque, c);
    d->stop.kind = DBG_NONE;
}
