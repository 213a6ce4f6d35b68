/* cpu.c — the architecture-independent CPU: engine setup, exact accounting, limits and cuts,
 * block decoding, the engine hooks, and the per-CPU run loop.  The rest of the CPU core is beside
 * it: registers, memory and the code-write store path in access.c, power, interrupt pins,
 * exception entries and event queues in power.c, the access locator in locator.c, the trap-site
 * table in trapsite.c, the CPU models in model.c, the port its models see in port.c.  The
 * design is described at the top of cpu.h.
 */
#include "cpu/cpu.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/tunables.h"
#include "cpu/debug.h"

/* ------------------------------------------------------------------ trap sites */

static TrapSite *trap_find(Cpu *c, uint64_t pc)
{
    return traps_find(&c->trap, pc);
}

static void hook_trap(uc_engine *uc, uint64_t pc, uint32_t size, void *opaque);
static void trap_kill(Cpu *c, TrapSite *t);

/* Register a trap site; true if it is new (the block must be retranslated). */
static bool trap_add(Cpu *c, uint64_t pc, int kind, const uint8_t *bytes, unsigned len)
{
    TrapSite *t = trap_find(c, pc);
    if (t && t->live && t->kind == kind && t->len == len && !memcmp(t->bytes, bytes, len))
        return false;
    if (t && t->live)
        trap_kill(c, t);
    if (!t)
        t = traps_insert(&c->trap, pc);
    t->pc = pc;
    t->kind = (uint16_t)kind;
    t->len = (uint8_t)len;
    memcpy(t->bytes, bytes, len);
    uc_err e = uc_hook_add(c->uc, &t->hook, UC_HOOK_CODE, (void *)hook_trap, c, pc, pc);
    if (e != UC_ERR_OK) {
        vcpu_internal_error(c, "uc_hook_add(trap at 0x%" PRIx64 "): %s", pc, uc_strerror(e));
        return false;
    }
    t->live = true;
    t->hits = 0;
    c->trap.live++;
    return true;
}

static void trap_kill(Cpu *c, TrapSite *t)
{
    if (t->live) {
        vcpu_engine_hook_del(c, t->hook);
        c->trap.live--;
    }
    t->live = false;
}

/* ------------------------------------------------------------------ accounting */

/* Cost of instructions [from, to) of the current block. */
static uint64_t block_cost(const BlockEntry *e, uint32_t from, uint32_t to)
{
    uint64_t s = 0;
    for (uint32_t i = from; i < to; i++)
        s += e->info[i].cost;
    return s;
}

/* What a decoded instruction accesses, for the PMU's load/store events: its class, and for
 * atomics the direction (load-reserve / load-exclusive vs store-conditional / store-exclusive;
 * anything else, x86 locked RMW or arm64 LSE, both). */
static uint8_t insn_mem_kind(InsnClass cls, const cs_insn *in)
{
    switch (cls) {
    case IC_LOAD: return MEM_LOAD;
    case IC_STORE: return MEM_STORE;
    case IC_RMW: return MEM_LOAD | MEM_STORE;
    case IC_ATOMIC:
        if (!strncmp(in->mnemonic, "lwarx", 5) || !strncmp(in->mnemonic, "ld", 2))
            return MEM_LOAD;
        if (!strncmp(in->mnemonic, "stwcx", 5) || (!strncmp(in->mnemonic, "st", 2) && strstr(in->mnemonic, "xr")))
            return MEM_STORE;
        return MEM_LOAD | MEM_STORE;
    default: return 0;
    }
}

/* Loads, stores and memory instructions among instructions [from, to) of block e. */
static void mem_span(const BlockEntry *e, uint32_t from, uint32_t to, uint64_t *l, uint64_t *s, uint64_t *m)
{
    *l = *s = *m = 0;
    for (uint32_t i = from; e && i < to && i < e->n; i++) {
        uint8_t f = e->info[i].mem;
        *l += f & MEM_LOAD;
        *s += (f & MEM_STORE) >> 1;
        *m += f != 0;
    }
}

/* Set how many instructions of the current block are counted. */
static void block_set_counted(Cpu *c, uint32_t keep)
{
    BlockEntry *e = c->blk;
    if (keep < c->blk_counted) {
        c->insns -= c->blk_counted - keep;
        c->cycles -= block_cost(e, keep, c->blk_counted);
    } else if (keep > c->blk_counted) {
        c->insns += keep - c->blk_counted;
        c->cycles += block_cost(e, c->blk_counted, keep);
    }
    c->blk_counted = keep;
    if (c->prof.from > keep)
        c->prof.from = keep;
    if (c->mem_from > keep) {       /* flushed instructions that did not retire after all */
        uint64_t l, s, m;
        mem_span(e, keep, c->mem_from, &l, &s, &m);
        c->pev.loads -= l;
        c->pev.stores -= s;
        c->pev.memops -= m;
        c->mem_from = keep;
    }
}

void vcpu_retire_upto(Cpu *c, uint64_t pc, bool inclusive)
{
    BlockEntry *e = c->blk;
    if (pc == c->ref.pc)            /* the backend says whether the instruction at hand retires */
        c->ref.abandoned = !inclusive;
    if (!e || pc < e->pc || pc > e->pc + e->size)
        return;                     /* not inside the block being executed: nothing to adjust */
    uint32_t idx = blockcache_insn_index(e, pc);
    if (inclusive && idx < e->n)
        idx++;
    block_set_counted(c, idx);
}

static uint32_t counted_from(Cpu *c, uint64_t pc)
{
    BlockEntry *e = c->blk;
    if (!e || pc < e->pc || pc >= e->pc + e->size)
        return c->blk_counted;
    uint32_t idx = blockcache_insn_index(e, pc);
    return idx < c->blk_counted ? idx : c->blk_counted;
}

uint64_t vcpu_cycles_at(Cpu *c, uint64_t pc)
{
    uint32_t idx = counted_from(c, pc);
    return c->cycles - (c->blk ? block_cost(c->blk, idx, c->blk_counted) : 0);
}

uint64_t vcpu_cycles_after(Cpu *c, uint64_t pc)
{
    const BlockEntry *e = c->blk;
    uint64_t at = vcpu_cycles_at(c, pc);
    if (!e || pc < e->pc || pc >= e->pc + e->size)
        return at;
    uint32_t idx = blockcache_insn_index(e, pc);
    return idx < e->n ? at + block_cost(e, idx, idx + 1) : at;
}

uint64_t vcpu_insns_at(Cpu *c, uint64_t pc)
{
    return c->insns - (c->blk_counted - counted_from(c, pc));
}

/* ------------------------------------------------------------------ block decoding */

/* x86 only (see smc_restart_retire): could this block be the engine re-running a store by
 * itself?  Such a block is one instruction that writes memory and is not a branch.  (A rep
 * string instruction ends its block anyway, so a restart of it cannot be told apart and does
 * not need to be.) */
static bool block_may_restart(const Cpu *c, size_t n, BranchKind br, const InsnInfo *info, InsnClass first)
{
    /* stos and movs store too, through an implicit operand (their class is IC_STRING) */
    return c->ops->arch == ARCH_X86_64 && n == 1 && br == BR_NONE &&
           ((info[0].mem & MEM_STORE) || first == IC_STRING);
}

static void hook_tail(uc_engine *uc, uint64_t pc, uint32_t size, void *opaque);

/* Make sure a code hook covers [start, end), the part of a block Capstone cannot decode; true
 * if it is new (the block must be retranslated to call it). */
static bool tail_hook_add(Cpu *c, uint64_t start, uint64_t end)
{
    for (uint32_t i = 0; i < c->ntails; i++)
        if (c->tails[i].start == start && c->tails[i].end == end)
            return false;
    if (c->ntails == c->tails_cap) {
        c->tails_cap = c->tails_cap ? 2 * c->tails_cap : 16;
        c->tails = xrealloc(c->tails, c->tails_cap * sizeof *c->tails);
    }
    TailHook *t = &c->tails[c->ntails];
    if (uc_hook_add(c->uc, &t->hook, UC_HOOK_CODE, (void *)hook_tail, c, start, end - 1) != UC_ERR_OK) {
        vcpu_internal_error(c, "uc_hook_add(tail at 0x%" PRIx64 "): %s", start, uc_strerror(UC_ERR_HOOK));
        return false;
    }
    t->start = start;
    t->end = end;
    c->ntails++;
    return true;
}

/* The trap kind of a decoded instruction at pc (backend sites, then --icache=strict). */
static int insn_trap_kind(Cpu *c, const cs_insn *insn, const uint8_t *bytes)
{
    int kind = c->ops->trap_kind(c, insn, bytes);
    const ExecWatch *w = &c->cl->watch;
    if (!kind && w->trap_kind)
        kind = w->trap_kind(w->opaque, c, insn->address, bytes, insn->size);
    if (!kind && unlikely(c->cl->dbg.nbreaks) && vcpu_debug_break_at(c->cl, insn->address))
        kind = TRAP_KIND_DEBUG;
    return kind;
}

/* Decode the block (pc, size) into the cache: count, costs, trap sites.  Returns NULL when the
 * block contains new trap sites: the engine has then been asked to stop so the block is
 * retranslated with their hooks before it runs.
 *
 * Where Capstone cannot decode an instruction, the two decoders disagree: on fixed-width ISAs
 * each remaining word is one instruction.  On x86 nothing past that point can be trusted (the
 * engine, QEMU's decoder, may take the bytes for an instruction of another length, or for
 * several), so the block ends there for Capstone and the rest is its "tail": a code hook over
 * it counts the instructions the engine actually executes there, with the engine's lengths
 * (hook_tail), and the block learns them as it goes. */
/* Code seen for the first time outside the image's code: watch its physical pages from the
 * next round (a block spans at most two pages). */
static void block_watch(Cpu *c, uint64_t pc, uint32_t size)
{
    CodeWatch *cw = &c->cl->cw;
    for (uint64_t va = pc, left = size, pa; left;) {     /* by length: the top of memory wraps */
        uint64_t n = GUEST_PAGE - (va & (GUEST_PAGE - 1));
        n = n < left ? n : left;
        left -= n;
        if (vcpu_fetch_pa(c, va, &pa)) {
            if (!mem_page_is_code(c->mem, pa)) {
                mem_note_code_page(c->mem, pa);
                vcpu_request_stop(c);           /* to protect it (vcpu_protect_code_pages) */
            }
            if (!codewatch_overlaps(cw, pa, 1) || !codewatch_overlaps(cw, pa + n - 1, 1))
                codewatch_add_range(cw, pa, pa + n);
        }
        va += n;
    }
}

static BlockEntry *block_decode(Cpu *c, uint64_t pc, uint32_t size)
{
    const uint8_t *bytes = vcpu_fetch_bytes(c, pc, size);
    uint8_t tmp[16];
    if (!bytes) {
        /* Code outside RAM/ROM cannot be translated by the engine; be safe anyway. */
        memset(tmp, 0, sizeof tmp);
        bytes = tmp;
        size = size > sizeof tmp ? sizeof tmp : size;
    }
    cs_insn *insn = NULL;
    size_t n = cs_disasm(c->cs, bytes, size, pc, 0, &insn);
    size_t decoded = 0;
    for (size_t i = 0; i < n; i++)
        decoded += insn[i].size;
    unsigned width = c->ops->arch == ARCH_X86_64 ? 0 : 4;
    uint32_t extra = 0;         /* fixed-width words Capstone could not decode */
    uint32_t tail = 0;          /* x86: bytes left to the engine's boundaries */
    if (decoded < size && width)
        extra = (uint32_t)((size - decoded) / width);
    else if (decoded < size)
        tail = size - (uint32_t)decoded;

    bool flushed;
    vcpu_mem_flush(c);               /* the allocation may free the current block's info */
    InsnInfo *info = blockcache_alloc_info(&c->bc, (uint32_t)n + extra + tail, &flushed);
    if (flushed)
        c->blk = NULL;
    bool new_traps = false;
    uint64_t total = 0;
    BranchKind br = n && !extra && !tail ? insn_branch_kind(c->ops->arch, &insn[n - 1]) : BR_NONE;
    InsnClass first = IC_ALU;
    for (size_t i = 0; i < n; i++) {
        InsnClass cls = insn_classify(c->ops->arch, &insn[i]);
        if (i == 0)
            first = cls;
        uint8_t cost = c->ctab->cost[cls];
        uint32_t off = (uint32_t)(insn[i].address - pc);
        info[i] = (InsnInfo){ (uint16_t)off, (uint8_t)insn[i].size, cost, insn_mem_kind(cls, &insn[i]) };
        total += cost;
        int kind = insn_trap_kind(c, &insn[i], bytes + off);
        if (kind && trap_add(c, insn[i].address, kind, bytes + off, insn[i].size))
            new_traps = true;
    }
    for (uint32_t k = 0; k < extra; k++) {
        uint32_t off = (uint32_t)decoded + k * width;
        info[n + k] = (InsnInfo){ (uint16_t)off, (uint8_t)width, c->ctab->cost[IC_ALU], 0 };
        total += c->ctab->cost[IC_ALU];
        /* Fixed-width ISAs: backends also recognise trap sites from the raw word. */
        int kind = c->ops->trap_kind(c, NULL, bytes + off);
        if (kind && trap_add(c, pc + off, kind, bytes + off, width))
            new_traps = true;
    }
    if (insn)
        cs_free(insn, n);
    c->bc.decodes++;
    if (tail && tail_hook_add(c, pc + decoded, pc + size))
        new_traps = true;

    block_watch(c, pc, size);

    BlockEntry *e = blockcache_slot(&c->bc, pc);
    blockcache_note_size(&c->bc, size);
    bool restart = !tail && block_may_restart(c, n + extra, br, info, first);
    *e = (BlockEntry){ .pc = pc, .size = size, .n = (uint32_t)n + extra, .br = (uint8_t)br, .restart = restart,
                       .tail = tail != 0, .tail_off = (uint16_t)decoded, .cycles = total, .info = info };
    if (new_traps) {
        vcpu_engine_forget(c, pc, pc + size);
        return NULL;
    }
    return e;
}

/* ------------------------------------------------------------------ engine hooks */

/* Test aid (--icount-check): count every instruction with a code hook as a reference. */
static void hook_icount(uc_engine *uc, uint64_t pc, uint32_t size, void *opaque)
{
    Cpu *c = opaque;
    if (c->cl->stopping || c->quiet)
        return;
    if (c->ref.abandoned)           /* the previous one faulted instead of retiring */
        c->ref.insns--;
    c->ref.abandoned = false;
    c->ref.insns++;
    c->ref.prev_pc = c->ref.pc;
    c->ref.pc = pc;
}

uint64_t vcpu_icount_reference(const Cpu *c)
{
    return c->ref.insns - c->ref.abandoned;
}

/* A code hook is about to stop before the instruction at hand: the reference counter has
 * already counted it, and it runs again from the start.  The one before it is again the last
 * the reference saw start: the engine may have gone on from a failed access before it stops
 * (ppc32), and the fault, delivered after the stop, must still find that instruction
 * (icount_rewind, vcpu_retire_upto). */
static void icount_unsee(Cpu *c)
{
    if (c->cl->icount_check) {
        c->ref.insns--;
        c->ref.pc = c->ref.prev_pc;
    }
}

/* A fault is delivered at `pc`, but the engine went on into the block before it stopped (a
 * store multiple whose helper carries on after the failed store): the starts the reference saw
 * after `pc` never happened, architecturally. */
static void icount_rewind(Cpu *c, uint64_t pc)
{
    const BlockEntry *e = c->blk;
    if (c->ref.pc == pc || !e || pc < e->pc || c->ref.pc <= pc || c->ref.pc >= e->pc + e->size)
        return;
    c->ref.insns -= blockcache_insn_index(e, c->ref.pc) - blockcache_insn_index(e, pc);
    c->ref.pc = pc;
    c->ref.abandoned = false;
}

/* The stop of a debugger's breakpoint or watchpoint (debug.c): the instruction at pc does not
 * run, and the other code hooks of this instruction ignore it (redirected, as after a trap
 * handler's PC write). */
void vcpu_stop_before(Cpu *c, uint64_t pc)
{
    vcpu_retire_upto(c, pc, false);
    icount_unsee(c);
    c->stop.kind = STOP_PRECISE;
    c->stop.redirected = true;
    uc_emu_stop(c->uc);
}

static void stop_at(Cpu *c, uint64_t pc, StopKind kind)
{
    c->stop.kind = kind;
    c->stop.pc = pc;
    uc_emu_stop(c->uc);
}

void vcpu_profile_flush(Cpu *c)
{
    if (c->blk && c->blk_counted > c->prof.from)
        c->cl->host.profile_retired(c->cl->host.opaque, c, c->blk, c->prof.from, c->blk_counted, c->prof.window);
    c->prof.from = c->blk_counted;
}

int vcpu_pmu_readings(Cpu *c, PmcReading *out, int max)
{
    return c->ops->pmu_readings ? c->ops->pmu_readings(c, out, max) : 0;
}

void vcpu_mem_count(Cpu *c, uint64_t *loads, uint64_t *stores, uint64_t *memops)
{
    uint64_t l, s, m;
    mem_span(c->pev.track_mem ? c->blk : NULL, c->mem_from, c->blk_counted, &l, &s, &m);
    *loads = c->pev.loads + l;
    *stores = c->pev.stores + s;
    *memops = c->pev.memops + m;
}

void vcpu_mem_flush(Cpu *c)
{
    if (!c->pev.track_mem || !c->blk)
        return;
    uint64_t l, s, m;
    mem_span(c->blk, c->mem_from, c->blk_counted, &l, &s, &m);
    c->pev.loads += l;
    c->pev.stores += s;
    c->pev.memops += m;
    if (c->blk_counted > c->mem_from)
        c->mem_from = c->blk_counted;
}

void vcpu_set_mem_tracking(Cpu *c, bool on)
{
    on |= c->priv.mem;              /* pmusim stat counts them all the run */
    if (on && !c->pev.track_mem)
        c->mem_from = c->blk_counted;   /* count from here on */
    else if (!on && c->pev.track_mem)
        vcpu_mem_flush(c);
    c->pev.track_mem = on;
    if (on)
        c->lim.fast = 0;
}

/* Entering block e with tracking on: if a limit is reached inside it, fire mem_limit_ev after
 * the instruction that reaches it (c->insns is the count before the block). */
static void mem_limit_check(Cpu *c, const BlockEntry *e)
{
    uint64_t l = c->pev.loads, s = c->pev.stores, m = c->pev.memops;
    if (!c->pev.mem_limit_ev)
        return;
    if (l >= c->pev.lim_loads || s >= c->pev.lim_stores || m >= c->pev.lim_memops) {
        vcpu_schedule_insns(c, c->pev.mem_limit_ev, c->insns);
        return;
    }
    for (uint32_t i = 0; i < e->n; i++) {
        uint8_t f = e->info[i].mem;
        l += f & MEM_LOAD;
        s += (f & MEM_STORE) >> 1;
        m += f != 0;
        if (l >= c->pev.lim_loads || s >= c->pev.lim_stores || m >= c->pev.lim_memops) {
            vcpu_schedule_insns(c, c->pev.mem_limit_ev, c->insns + i + 1);
            return;
        }
    }
}

void vcpu_profile_window(Cpu *c, bool on)
{
    if (!c->prof.on || c->prof.window == on)
        return;
    vcpu_profile_flush(c);
    c->prof.window = on;
}

/* x86 self-modifying code.  A store into the block being executed (on a page pmusim has not
 * write-protected yet: code pages are protected after the slice of the CPU that first ran
 * them, before the next CPU runs) makes the engine abandon the block before the store and run
 * the store again, alone, in a one-instruction block (QEMU's precise SMC, TARGET_HAS_PRECISE_SMC: notdirty_write ->
 * tb_invalidate_phys_page_fast -> cpu_loop_exit_noexc with cflags_next_tb = 1), as the
 * architecture requires (Intel SDM vol. 3A §11.6: a write to an instruction already fetched
 * takes effect).  The block hook had counted the whole block, so without this the store and
 * every instruction after it would count as retired once more.  The sign: a block that starts
 * at an instruction of the current one counted as retired, but ends before it does (an ordinary
 * jump back to one of its instructions runs to the same end; a jump into the middle of one
 * decodes other instructions).  The store is then taken back like a faulting instruction,
 * which also tells the reference counter that its start did not retire. */
static uint32_t smc_restart_retire(Cpu *c, uint64_t pc, uint32_t size)
{
    const BlockEntry *b = c->blk;
    if (!b || b == &c->blk_stale || pc < b->pc || pc + size >= b->pc + b->size)
        return 0;                   /* (a stale block was pmusim's code write, not the engine's) */
    uint32_t i = blockcache_insn_index(b, pc), counted = c->blk_counted;
    if (i >= counted || b->pc + b->info[i].off != pc)     /* a jump into an instruction */
        return 0;
    vcpu_retire_upto(c, pc, false);
    return counted - c->blk_counted;
}

/* Inside a cut, the restart of a store is the same pass of the block, not a new one: the engine
 * has not made the store yet (QEMU leaves before it: notdirty_write -> cpu_loop_exit_noexc), so
 * ending the cut there would stop before the store every time, and the cut would never retire
 * it (a livelock: x86_64 random guest 3967).  The code hook counts the store again when it runs;
 * what smc_restart_retire took back (`taken`) goes back to the cut's budget.  The restart block
 * is that one instruction alone (not checked to be a store: push, pushf and stos store too, and
 * Capstone's classes do not all say so). */
static bool cut_smc_restart(Cpu *c, uint64_t pc, uint32_t size, uint32_t taken)
{
    const BlockEntry *b = c->blk;
    if (!taken || !c->cut.entered)
        return false;
    if (size != b->info[blockcache_insn_index(b, pc)].len)
        return false;
    c->cut.left += taken;
    return true;
}

/* Everything off the common path of the block hook: cuts, decoding, limits. */
static __attribute__((noinline)) void hook_block_slow(Cpu *c, uint64_t pc, uint32_t size, BlockEntry *e)
{
    uint32_t taken = c->quiet ? 0 : smc_restart_retire(c, pc, size);
    if (c->cut.active) {
        /* Inside a cut only the code hook counts, and only one pass of the block: leaving its
         * range ends the cut, and so does entering a block again inside it (an exception whose
         * handler is in the block, a loop back into it), since the counted prefix (blk_counted)
         * belongs to the pass that has just ended.  A store's restart continues the pass. */
        if (cut_smc_restart(c, pc, size, taken))
            return;
        if (pc < c->cut.start || pc >= c->cut.end || c->cut.entered)
            stop_at(c, pc, STOP_BOUNDARY);
        c->cut.entered = true;
        return;
    }
    if (c->quiet)
        return;
    if (c->prof.on)               /* the previous block's retired prefix is final */
        vcpu_profile_flush(c);
    vcpu_mem_flush(c);
    if (c->pev.track_branches) {        /* the previous block's final branch has retired */
        vcpu_branch_retire(c, pc);
        if (c->pev.branches >= c->pev.lim_branches || c->pev.br_misses >= c->pev.lim_br_misses)
            vcpu_schedule(c, c->pev.branch_limit_ev, c->cycles);     /* before this block runs */
    }
    if (e->pc != pc || e->size != size) {
        e = block_decode(c, pc, size);
        if (!e) {
            c->blk = NULL;
            stop_at(c, pc, STOP_RETRANSLATE);
            return;
        }
    }
    if (c->blk && c->blk_counted)
        c->prev_last_pc = c->blk->pc + c->blk->info[c->blk_counted - 1].off;
    c->blk = e;
    c->blk_counted = 0;
    c->prof.from = 0;
    c->mem_from = 0;
    c->br_done = false;
    if (c->pev.track_mem)
        mem_limit_check(c, e);
    /* (2) a limit is at or inside this block */
    if (c->stop.next_block || c->cl->stopping || c->cl->interrupted || c->cycles >= c->lim.soft || c->cycles >= c->lim.cycles ||
        c->insns >= c->lim.insns) {
        stop_at(c, pc, STOP_BOUNDARY);
    } else if (c->cycles + e->cycles > c->lim.cycles || c->insns + e->n > c->lim.insns) {
        stop_at(c, pc, STOP_CUT);
    } else {                        /* only the quantum ends inside: finish the block */
        c->cycles += e->cycles;
        c->insns += e->n;
        c->blk_counted = e->n;
    }
}

/* Count block e on the common path if it is the block at pc, not a possible x86 store restart
 * (smc_restart_retire), and no limit is at or inside it: one compare of each, four stores. */
static inline bool block_count_fast(Cpu *c, BlockEntry *e, uint64_t pc, uint32_t size)
{
    if (!(e->pc == pc && e->size == size && !e->restart))
        return false;
    uint64_t cycles = c->cycles + e->cycles, insns = c->insns + e->n;
    if (!(cycles <= c->lim.fast && insns <= c->lim.insns))
        return false;
    c->cycles = cycles;
    c->insns = insns;
    c->blk = e;
    c->blk_counted = e->n;
    return true;
}

/* (1) The only per-block work on the common path.  The block just counted is tried before the
 * cache: a loop runs the same block again, and its count then waits on no hash and no table
 * load (the tight loop of make bench runs 1.4x faster on arm64 and ppc32; docs/benchmarks.md).
 * Not the stale copy of a rewritten block (block_keep_stale): the block at its pc is decoded
 * afresh.  Cuts, pmusim's own runs and stop requests set lim_fast to 0, which sends every
 * block to the slow path; so does a block that may be an x86 store restart. */
static void hook_block(uc_engine *uc, uint64_t pc, uint32_t size, void *opaque)
{
    Cpu *c = opaque;
    c->stop.redirected = false;
    BlockEntry *last = c->blk;
    if (likely(last && last != &c->blk_stale && block_count_fast(c, last, pc, size)))
        return;
    BlockEntry *e = &c->bc.tab[blockcache_index(pc)];
    if (likely(block_count_fast(c, e, pc, size)))
        return;
    hook_block_slow(c, pc, size, e);
}

/* (3) During a cut: count instruction by instruction and stop after the k-th. */
static void hook_cut(uc_engine *uc, uint64_t pc, uint32_t size, void *opaque)
{
    Cpu *c = opaque;
    /* (After the end of the run, in the middle of the block, nothing more retires: the exit's
     * instruction, or the one at hand when the trace became full, was the last; hook_icount
     * agrees.) */
    if (c->stop.redirected || c->cl->stopping)
        return;
    if (c->cut.left == 0) {
        icount_unsee(c);
        c->stop.kind = STOP_PRECISE;
        uc_emu_stop(uc);
        return;
    }
    c->cut.left--;
    vcpu_retire_upto(c, pc, true);
}

/* A tail instruction the engine is about to execute for the first time in block e (its start
 * and length are the engine's): append it to the block, classified by Capstone when Capstone
 * decodes it at that boundary to the same length.  Returns true if it is a new trap site. */
static bool tail_learn(Cpu *c, BlockEntry *e, uint64_t pc, uint32_t size)
{
    const uint8_t *bytes = vcpu_fetch_bytes(c, pc, size);
    cs_insn *insn = NULL;
    size_t got = bytes ? cs_disasm(c->cs, bytes, size, pc, 1, &insn) : 0;
    bool known = got == 1 && insn[0].size == size;
    InsnClass cls = known ? insn_classify(c->ops->arch, insn) : IC_ALU;
    uint8_t cost = c->ctab->cost[cls];
    e->info[e->n++] = (InsnInfo){ (uint16_t)(pc - e->pc), (uint8_t)size, cost, known ? insn_mem_kind(cls, insn) : 0 };
    e->cycles += cost;
    if (known && pc + size == e->pc + e->size)
        e->br = (uint8_t)insn_branch_kind(c->ops->arch, insn);
    int kind = known ? insn_trap_kind(c, insn, bytes) : 0;
    if (insn)
        cs_free(insn, got);
    if (!known)
        vcpu_diag(c, pc, "undecodable",
                  "Capstone cannot decode the %u-byte instruction the engine executes here; counted as one", size);
    return kind && trap_add(c, pc, kind, bytes, size);
}

/* (5) An instruction in the tail of a block (BlockEntry.tail) is about to execute.  The ones
 * learned before were counted with the block; a new one is learned and counted here, and hard
 * limits are kept exactly as a cut keeps them (the block hook could not see it).  Inside a cut
 * hook_cut counts.  Several tail ranges may cover pc (blocks that overlap): the first call
 * learns the instruction, the others find it known. */
static void hook_tail(uc_engine *uc, uint64_t pc, uint32_t size, void *opaque)
{
    Cpu *c = opaque;
    BlockEntry *e = c->blk;
    if (c->quiet || c->cl->stopping || c->stop.kind != STOP_NONE || c->stop.redirected || !e || !e->tail ||
        pc < e->pc + e->tail_off || pc >= e->pc + e->size)
        return;                     /* (stopping: as in hook_cut) */
    const InsnInfo *last = e->n ? &e->info[e->n - 1] : NULL;
    if (last && pc < e->pc + last->off + last->len)
        return;                     /* learned: counted with the block */
    bool counting = !c->cut.active && c->blk_counted == e->n;
    if (tail_learn(c, e, pc, size)) {
        /* A trap site the engine's boundaries reveal: stop before it; from here on the engine
         * translates anew, with its hook. */
        vcpu_engine_forget(c, e->pc, e->pc + e->size);
        icount_unsee(c);
        c->stop.kind = STOP_PRECISE;
        uc_emu_stop(uc);
        return;
    }
    if (!counting)
        return;
    if (c->insns >= c->lim.insns || c->cycles >= c->lim.cycles) {
        icount_unsee(c);            /* a hard limit is reached before it: stop exactly here */
        c->stop.kind = STOP_PRECISE;
        uc_emu_stop(uc);
        return;
    }
    block_set_counted(c, e->n);
}

/* (4) A trapped instruction is about to execute. */
static void hook_trap(uc_engine *uc, uint64_t pc, uint32_t size, void *opaque)
{
    Cpu *c = opaque;
    TrapSite *t = trap_find(c, pc);
    if (!t || !t->live || c->stop.kind != STOP_NONE || c->stop.redirected || c->quiet)
        return;
    if (c->cl->stopping) {           /* the run has ended at an earlier instruction */
        c->stop.kind = STOP_PRECISE;
        uc_emu_stop(uc);
        return;
    }
    t->hits++;
    uint8_t now[15];
    if (!vcpu_fetch_read(c, pc, now, t->len) || memcmp(now, t->bytes, t->len)) {
        trap_kill(c, t);            /* the code changed: it is no longer this instruction */
        return;
    }
    if (c->cut.active && c->cut.left == 0) {
        icount_unsee(c);
        c->stop.kind = STOP_PRECISE;
        uc_emu_stop(uc);
        return;
    }
    /* Make the counts exact up to (not including) this instruction, so the handler sees the
     * precise time; restore the rest of the block if the engine is to execute it after all. */
    uint32_t counted = c->blk_counted;
    vcpu_retire_upto(c, pc, false);
    if (unlikely(c->cl->dbg.nbreaks) && vcpu_debug_break_hit(c, pc)) {
        vcpu_stop_before(c, pc);    /* a debugger's breakpoint: before the instruction */
        return;
    }
    const ExecWatch *w = &c->cl->watch;
    c->acc.in_trap = true;
    c->acc.trap_pc = pc;
    TrapResult r = t->kind == TRAP_KIND_DEBUG  ? TRAP_NATIVE
                 : t->kind == TRAP_KIND_ICACHE ? (TrapResult)w->trap(w->opaque, c, pc)
                                               : c->ops->trap(c, pc, t);
    c->acc.in_trap = false;
    if (r == TRAP_NATIVE) {
        c->ref.abandoned = false;   /* the engine executes it after all */
        if (!c->cut.active && c->blk)
            block_set_counted(c, counted);
        return;
    }
    c->stop.redirected = true;
    if (r == TRAP_DONE) {
        vcpu_retire_upto(c, pc, true);
        if (c->cut.active && c->cut.left)
            c->cut.left--;
    }
}

static void hook_intr(uc_engine *uc, uint32_t intno, void *opaque)
{
    Cpu *c = opaque;
    if (c->quiet)
        return;                     /* a pmusim stub faulted: it simply has no effect */
    /* A stop (the CPU dead, a signal, the machine ending: an exit, a limit, the trace full at
     * --trace-limit) normally takes effect at the next block boundary.  When every exception is
     * a fault on the fetch of the next instruction (an arm64 guest that turns its MMU on without
     * page tables, an x86 IDT gate to an unmapped page) no block ever starts: the engine retries
     * the fetch, faults and calls here again.  So a stopped CPU takes no more exceptions, and the
     * engine is stopped here.  (The entry that stopped the CPU wrote the PC: to the engine that
     * means "go on at the new PC" and cancels a stop requested in the same call; the fault at
     * the vector comes back here, and this time, with no PC written, the stop holds:
     * docs/engine.md, tests/e2e/test_runaway.sh.) */
    bool stopped = c->state == CPU_DEAD || c->cl->stopping || c->cl->interrupted;
    if (!stopped)
        c->ops->intr(c, intno);
    if (stopped || c->state == CPU_DEAD)
        uc_emu_stop(uc);
}

/* A guest store of `size` bytes of `value` (the engine's number: in the guest's byte order in
 * memory) to a code page, through the code-write window (mmu.c): the code-write chokepoint does
 * the store. */
void vcpu_store_to_code(Cpu *c, uint64_t addr, unsigned size, uint64_t value)
{
    uint8_t bytes[8];
    unsigned n = size > 8 ? 8 : size;
    if (isa_big_endian(c->ops->arch))
        store_be(bytes, n, value);
    else
        store_le(bytes, n, value);
    vcpu_access_begin(c, ACC_WRITE, addr, n);
    vcpu_code_store(c, addr, bytes, n);
    vcpu_access_end(c);
}

/* Stores to write-protected pages, which only ROM is: the engine discards them. */
static bool hook_write_prot(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value,
                            void *opaque)
{
    Cpu *c = opaque;
    RamBlock *b = mem_block(c->mem, addr);
    if (!b || !b->rom) {
        vcpu_store_to_code(c, addr, (unsigned)size, (uint64_t)value);
        return true;
    }
    unsigned n = size > 8 ? 8 : (unsigned)size;
    vcpu_access_begin(c, ACC_WRITE, addr, n);
    vcpu_diag(c, vcpu_access_pc(c, ACC_WRITE, addr, n), "rom-write", "write of %u bytes to ROM at 0x%" PRIx64 " ignored",
              n, addr);
    vcpu_access_end(c);
    return true;
}

/* An access with nothing behind it, or an instruction fetch from a device window (mapped
 * without execute permission: devices answer data accesses only). */
static bool hook_unmapped(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value,
                          void *opaque)
{
    Cpu *c = opaque;
    c->fault.addr = addr;
    c->fault.write = type == UC_MEM_WRITE_UNMAPPED;
    c->fault.fetch = type == UC_MEM_FETCH_UNMAPPED || type == UC_MEM_FETCH_PROT;
    c->fault.device = type == UC_MEM_FETCH_PROT;
    c->fault.pc = c->fault.fetch ? addr
                                 : vcpu_access_pc(c, c->fault.write ? ACC_WRITE : ACC_READ, addr, (unsigned)size);
    c->fault.pending = true;
    return false;                   /* the engine stops with an error; vcpu_run delivers the fault */
}

/* ------------------------------------------------------------------ create / destroy */

Cpu *vcpu_create(Cluster *cl, int index, const CpuDesc *desc, const CpuOps *ops, Error *err)
{
    const CpuModel *model = desc->model;
    Cpu *c = xcalloc(1, ops->size);
    c->ops = ops;
    c->cl = cl;
    c->mem = cl->mem;
    c->desc = desc;
    c->index = index;
    c->hwid = desc->hwid;
    c->model = model;
    c->state = CPU_OFF;
    c->stop_reason = "off";
    c->ctab = cycle_table_find(ops->arch == ARCH_X86_64 ? "x86-64-generic" : model->name);
    if (!c->ctab) {
        err_set(err, "no cycle table for CPU model %s", model->name);
        goto fail;
    }
    blockcache_init(&c->bc, BLOCKCACHE_ARENA, ops->arch == ARCH_X86_64 ? 1 : 4);
    bp_init(&c->bp);
    c->pev.lim_branches = c->pev.lim_br_misses = UINT64_MAX;
    c->pev.lim_loads = c->pev.lim_stores = c->pev.lim_memops = UINT64_MAX;
    c->exc.insns_at = UINT64_MAX;      /* no exception entry yet */
    c->ref.pc = c->ref.prev_pc = UINT64_MAX;
    traps_init(&c->trap);
    evq_init(&c->events);
    evq_init(&c->insn_events);
    c->dbg.until = UINT64_MAX;

    /* The library loaded at run time, not only the headers built against (CMakeLists.txt). */
    unsigned major, minor, version = uc_version(&major, &minor), patch = version >> 8 & 0xff;
    if ((version >> 8) < (2u << 16 | 1u << 8 | 1u)) {     /* major.minor.patch, one byte each */
        err_set(err, "cpu%d: the Unicorn library loaded is %u.%u.%u; pmusim needs 2.1.1 or newer "
                "(docs/engine.md)", index, major, minor, patch);
        goto fail;
    }
    uc_err e = uc_open(ops->uc_arch, (uc_mode)ops->uc_mode, &c->uc);
    if (e != UC_ERR_OK) {
        err_set(err, "cpu%d: cannot open the engine: %s", index, uc_strerror(e));
        goto fail;
    }
    e = uc_ctl_set_cpu_model(c->uc, model->uc_model);   /* must precede everything else */
    if (e != UC_ERR_OK) {
        err_set(err, "cpu%d: engine refuses CPU model %s: %s", index, model->name, uc_strerror(e));
        goto fail;
    }
    /* The translation buffer keeps the engine's default size (1 GiB, reserved, touched as
     * used): with 64 MiB, random guests that retranslate a block at every cut filled it within
     * 20,000 instructions, and the engine then crashed in tb_invalidate_phys_range under
     * uc_ctl_remove_cache (docs/engine.md; tests/randguest/regressions.txt x86_64 8, 65, 179,
     * 2610, 8182).  pmusim makes no count-limited run on a CPU's engine, so nothing of pmusim's
     * flushes it. */
    /* No `until` address: the engine runs until a hook stops it.  (With an `until`, Unicorn 2.0.1
     * invalidates its translation after every run by translating it through the guest MMU, and
     * an unmapped one faults outside the CPU loop.) */
    e = uc_ctl_exits_enable(c->uc);
    if (e != UC_ERR_OK) {
        err_set(err, "cpu%d: cannot disable the engine's exit address: %s", index, uc_strerror(e));
        goto fail;
    }
    if (!vcpu_mmu_init(c, err))
        goto fail;
    if (cs_open(ops->cs_arch, (cs_mode)ops->cs_mode, &c->cs) != CS_ERR_OK) {
        err_set(err, "cpu%d: cannot open Capstone", index);
        goto fail;
    }
    cs_option(c->cs, CS_OPT_DETAIL, CS_OPT_ON);
    c->cs_mode_now = ops->cs_mode;
    if (!mem_map_engine(c->mem, c->uc, !vcpu_code_window_used(c), err) || !vcpu_map_code_window(c, err) ||
        !cl->host.map_devices(cl->host.opaque, c, err))
        goto fail;
    uc_hook h;
    if (uc_hook_add(c->uc, &h, UC_HOOK_BLOCK, (void *)hook_block, c, 1, 0) != UC_ERR_OK ||
        uc_hook_add(c->uc, &h, UC_HOOK_INTR, (void *)hook_intr, c, 1, 0) != UC_ERR_OK ||
        uc_hook_add(c->uc, &h, UC_HOOK_MEM_WRITE_PROT, (void *)hook_write_prot, c, 1, 0) != UC_ERR_OK ||
        uc_hook_add(c->uc, &h, UC_HOOK_MEM_UNMAPPED | UC_HOOK_MEM_FETCH_PROT, (void *)hook_unmapped, c, 1, 0) !=
            UC_ERR_OK) {
        err_set(err, "cpu%d: cannot install engine hooks", index);
        goto fail;
    }
    if (cl->icount_check &&
        uc_hook_add(c->uc, &h, UC_HOOK_CODE, (void *)hook_icount, c, 1, 0) != UC_ERR_OK) {
        err_set(err, "cpu%d: cannot install the reference counter", index);
        goto fail;
    }
    if (!ops->init(c, err))
        goto fail;
    return c;
fail:
    vcpu_destroy(c);
    return NULL;
}

void vcpu_destroy(Cpu *c)
{
    if (!c)
        return;
    if (c->ops->destroy)
        c->ops->destroy(c);
    if (c->uc)
        uc_close(c->uc);
    if (c->cs)
        cs_close(&c->cs);
    blockcache_destroy(&c->bc);
    evq_destroy(&c->events);
    evq_destroy(&c->insn_events);
    traps_free(&c->trap);
    vcpu_mmu_destroy(c);
    free(c->tails);
    free(c);
}

/* ------------------------------------------------------------------ decoded code */

/* A code write (pmusim's, through the write-protected code pages) into the block being executed:
 * the engine runs the rest of its translation as it was (uc_ctl_remove_cache takes effect at
 * the next block lookup), so the block's old decode still says which of its instructions retire
 * when one of them faults later.  Without it the fault took nothing back: random guests arm64
 * 7846, 9498, ppc32 2905.  (Arm ARM B2.2.5 and the PowerPC PEM's instruction-cache rules let
 * instructions already fetched run until an ISB / isync.)  Keep the block outside the cache
 * until the next block starts. */
static void block_keep_stale(Cpu *c)
{
    if (c->blk == &c->blk_stale)
        return;
    c->blk_stale = *c->blk;
    if (c->acc.blk == c->blk)       /* the access locator's cursor goes on in the same pass */
        c->acc.blk = &c->blk_stale;
    c->blk = &c->blk_stale;
}

void vcpu_sync_decode_mode(Cpu *c)
{
    int mode = c->ops->decode_mode ? c->ops->decode_mode(c) : c->ops->cs_mode;
    if (mode == c->cs_mode_now)
        return;
    if (c->prof.on)
        vcpu_profile_flush(c);
    vcpu_mem_flush(c);
    /* The engine keys its translations by the mode too; pmusim's cache is keyed by (pc, size)
     * alone, so blocks decoded in the old mode go. */
    blockcache_flush(&c->bc);
    c->blk = NULL;
    cs_option(c->cs, CS_OPT_MODE, (size_t)mode);
    c->cs_mode_now = mode;
}

/* Kill the sites over [start, end).  A code write's few bytes are looked up by address (a site
 * starts at most its longest length before them, at a block alignment): Linux's tracer switches
 * write 10^5 call sites; a larger range scans the table. */
#define TRAP_PROBE_MAX 64u
static void traps_kill_range(Cpu *c, uint64_t start, uint64_t end)
{
    uint64_t align = c->bc.align, back = sizeof c->trap.sites[0].bytes - 1;
    uint64_t from = start > back ? start - back : 0;
    from -= from % align;
    bool probe = end > from && (end - from) / align <= TRAP_PROBE_MAX;
    for (uint64_t i = 0, n = probe ? (end - from + align - 1) / align : c->trap.cap; i < n; i++) {
        TrapSite *t = probe ? traps_find(&c->trap, from + i * align) : &c->trap.sites[i];
        if (t && t->len && t->live && t->pc < end && start < t->pc + t->len)
            trap_kill(c, t);
    }
}

void vcpu_forget_code(Cpu *c, uint64_t start, uint64_t end)
{
    if (c->prof.on)
        vcpu_profile_flush(c);
    vcpu_mem_flush(c);
    if (c->blk && c->blk->size && c->blk->pc < end && start < c->blk->pc + c->blk->size)
        block_keep_stale(c);
    blockcache_invalidate(&c->bc, start, end);
    traps_kill_range(c, start, end);
}

static void invalidate_alias(Cpu *c, uint64_t va, uint64_t va_end)
{
    vcpu_engine_forget(c, va, va_end);
    vcpu_forget_code(c, va, va_end);
}

/* A trap site that has not run since the last sweep loses its engine hook, so that the engine's
 * list of code hooks holds the sites in use: the engine walks the whole list at each trapped
 * instruction and at each instruction it translates (docs/engine.md, "Trap sites"), and a boot
 * of Linux leaves hundreds of sites behind in code it ran once.  The block cache forgets the
 * blocks that hold it, so a site that runs again is decoded and hooked again (block_decode).
 * Paced by the CPU's instruction count: the same sweeps on every run. */
static void traps_sweep(Cpu *c)
{
    c->trap.sweep_at = c->insns + TRAP_SWEEP_INSNS;
    for (uint32_t i = 0; i < c->trap.cap; i++) {
        TrapSite *t = &c->trap.sites[i];
        if (t->live && !t->hits)
            invalidate_alias(c, t->pc, t->pc + t->len);
        t->hits = 0;
    }
}

void vcpu_invalidate_code(Cpu *c, uint64_t start, uint64_t end)
{
    vcpu_code_aliases(c, start, end, invalidate_alias);
}

/* ------------------------------------------------------------------ running */

static void vcpu_engine_error(Cpu *c, uc_err err);

/* Run the first k instructions of the block at stop_pc exactly. */
static void run_cut(Cpu *c)
{
    if (c->mem->npending)
        vcpu_protect_code_pages(c->cl);    /* (a dropped blk is kept as blk_stale) */
    BlockEntry *e = c->blk;
    uint64_t pc = c->stop.pc;
    if (!e || e->pc != pc)
        return;
    uint64_t k = e->n;
    if (c->insns + k > c->lim.insns)
        k = c->lim.insns - c->insns;
    uint64_t t = c->cycles;
    for (uint32_t i = 0; i < k; i++) {     /* the first instruction that reaches the cycle limit */
        t += e->info[i].cost;
        if (t >= c->lim.cycles) {
            k = i + 1;
            break;
        }
    }
    if (k == 0)
        return;
    uc_hook h;
    if (uc_hook_add(c->uc, &h, UC_HOOK_CODE, (void *)hook_cut, c, pc, pc + e->size - 1) != UC_ERR_OK) {
        vcpu_internal_error(c, "cannot add the cut hook");
        return;
    }
    vcpu_engine_forget(c, pc, pc + e->size);
    uint64_t fast = c->lim.fast;
    c->cut.active = true;
    c->cut.entered = false;
    c->lim.fast = 0;                /* every block hook goes to the slow path, which sees the cut */
    c->cut.start = pc;
    c->cut.end = pc + e->size;
    c->cut.left = (uint32_t)k;
    c->blk_counted = 0;
    c->prof.from = 0;
    c->mem_from = 0;
    c->stop.kind = STOP_NONE;
    c->stop.redirected = false;
    c->mmu.fault_pending = false;
    uc_err err = uc_emu_start(c->uc, c->ops->engine_pc ? c->ops->engine_pc(c, pc) : pc, 0, 0, 0);
    c->cut.active = false;
    c->lim.fast = fast;
    vcpu_engine_hook_del(c, h);
    vcpu_engine_forget(c, pc, pc + e->size);        /* back to the hook-free translation */
    if (c->stop.kind == STOP_BOUNDARY)
        c->ops->set_pc(c, c->stop.pc);
    if (err != UC_ERR_OK)
        vcpu_engine_error(c, err);
}

static void vcpu_engine_error(Cpu *c, uc_err err)
{
    if (err == UC_ERR_EXCEPTION && c->mmu.fault_pending) {
        /* pmusim's page walk refused a TLB fill: the engine stopped at the faulting
         * instruction, which did not retire (mmu.c). */
        uint64_t pc = c->ops->get_pc(c);
        icount_rewind(c, pc);
        vcpu_retire_upto(c, pc, false);
        vcpu_mmu_fault_deliver(c);
        return;
    }
    if (c->fault.pending) {
        /* The faulting instruction did not retire; the backend delivers the architecture's
         * answer to an access with nothing behind it. */
        c->fault.pending = false;
        icount_rewind(c, c->fault.pc);
        vcpu_retire_upto(c, c->fault.pc, false);
        if (c->fault.device)
            vcpu_diag(c, c->fault.pc, "bus-error", "instruction fetch from a device window at 0x%" PRIx64,
                      c->fault.addr);
        else
            vcpu_diag(c, c->fault.pc, "bus-error", "%s of unbacked physical address 0x%" PRIx64,
                      c->fault.fetch ? "fetch" : c->fault.write ? "write" : "read", c->fault.addr);
        c->ops->mem_fault(c, c->fault.addr, c->fault.write, c->fault.fetch);
        return;
    }
    if (c->cl->stopping)
        return;
    vcpu_internal_error(c, "engine stopped at pc 0x%" PRIx64 ": %s", c->ops->get_pc(c), uc_strerror(err));
}

/* One engine run within the current limits. */
static void engine_run(Cpu *c)
{
    if (c->mem->npending)
        vcpu_protect_code_pages(c->cl);
    vcpu_engine_tlb_catch_up(c);
    if (c->insns >= c->trap.sweep_at)
        traps_sweep(c);
    c->stop.kind = STOP_NONE;
    c->stop.redirected = false;
    c->stop.next_block = c->pause.keep_stop;    /* one requested before a pause inside the block */
    c->pause.keep_stop = false;
    c->fault.pending = false;
    c->mmu.fault_pending = false;
    uint64_t pc = c->ops->get_pc(c);
    uc_err err = uc_emu_start(c->uc, c->ops->engine_pc ? c->ops->engine_pc(c, pc) : pc, 0, 0, 0);
    StopKind stop = c->stop.kind;
    if (stop == STOP_BOUNDARY || stop == STOP_RETRANSLATE || stop == STOP_CUT)
        c->ops->set_pc(c, c->stop.pc);     /* the engine's PC is stale after a block-hook stop */
    if (err != UC_ERR_OK) {
        vcpu_engine_error(c, err);
        return;
    }
    if (stop == STOP_CUT)
        run_cut(c);
}

static uint64_t min64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* What vcpu_run does next after the CPU's events and interrupts (run_prepare). */
typedef enum RunNext { RUN_ENGINE, RUN_AGAIN, RUN_RETURN } RunNext;

/* The time-travel pause (CpuPause): the CPU is at or past its target. */
static bool pause_reached(const Cpu *c)
{
    const CpuPause *p = &c->pause;
    return p->armed && (c->insns > p->insns || (c->insns == p->insns && c->exc.serialized >= p->entries));
}

/* The time-travel boundary hook, then the pause if reached; true if paused. */
static bool pause_here(Cpu *c)
{
    Cluster *cl = c->cl;
    if (cl->boundary)
        cl->boundary(cl->boundary_opaque, c);
    if (!pause_reached(c))
        return false;
    c->pause.armed = false;
    c->pause.paused = true;
    return true;
}

/* The pause's cut stopped the CPU inside a block, where a run without the pause goes on (no
 * event is due here): pause at once, before the due events and the interrupts a stop looks at,
 * keeping a stop requested in the block for its end (CpuPause). */
static bool pause_inside_block(Cpu *c)
{
    if (!c->pause.armed || c->stop.kind != STOP_PRECISE || c->cl->stopping || c->cl->interrupted ||
        evq_next(&c->insn_events) <= c->insns || evq_next(&c->events) <= c->cycles)
        return false;
    bool request = c->stop.next_block;
    if (!pause_here(c))
        return false;
    c->pause.keep_stop = request;
    return true;
}

/* A stalled CPU (CpuStall) between two instructions it does not execute: the time-travel
 * boundary and pause, as before an engine run, then busy time until its next event, the
 * stall's end or the quantum's. */
static RunNext stall_spin(Cpu *c, uint64_t until, uint64_t max_c)
{
    if (pause_here(c))
        return RUN_RETURN;
    uint64_t t = min64(min64(until, evq_next(&c->events)), min64(max_c, c->stall.end));
    if (t > c->cycles)
        c->cycles = t;
    return RUN_AGAIN;
}

/* Everything before an engine run: due events, an interrupt, the end of the quantum, sleep, the
 * time-travel boundary and pause. */
static RunNext run_prepare(Cpu *c, uint64_t until)
{
    Cluster *cl = c->cl;
    evq_run_due(&c->events, c->cycles);
    evq_run_due(&c->insn_events, c->insns);
    if (cl->stopping)
        return RUN_RETURN;
    if (unlikely(c->dbg.stop.kind != DBG_NONE || c->dbg.hit.kind != DBG_NONE || c->insns >= c->dbg.until)) {
        vcpu_debug_report(c);       /* a debugger's stop, between two instructions */
        if (cl->stopping || cl->interrupted)
            return RUN_RETURN;
    }
    bool stalled = vcpu_stall_update(c);
    if (!c->stall.active && (c->state == CPU_RUNNING || c->state == CPU_HALTED))
        c->ops->take_interrupt(c);
    if (cl->stopping)               /* the entry ended the run (the trace full, a triple fault) */
        return RUN_RETURN;
    uint64_t max_c = cl->max_cycles ? cl->max_cycles : UINT64_MAX;
    if (c->cycles >= max_c) {
        if (c->state == CPU_RUNNING && !c->stall.active)
            c->stop_reason = "max-cycles";
        return RUN_RETURN;
    }
    if (c->cycles >= until)
        return RUN_RETURN;
    if (stalled)
        return stall_spin(c, until, max_c);
    if (c->state != CPU_RUNNING) {
        /* asleep or off: time passes until the next event or the end of the quantum */
        uint64_t t = min64(min64(until, evq_next(&c->events)), max_c);
        if (t > c->cycles) {
            c->idle_cycles += t - c->cycles;
            c->cycles = t;
        }
        return RUN_AGAIN;
    }
    return pause_here(c) ? RUN_RETURN : RUN_ENGINE;
}

/* The instruction limit of an engine run: the next instruction event, --max-insns, and a
 * time-travel pause (its count; one more while the entries it wants are still to come). */
static bool run_insn_limit(Cpu *c)
{
    Cluster *cl = c->cl;
    c->lim.insns = min64(evq_next(&c->insn_events), c->dbg.until);
    if (c->pause.armed)
        c->lim.insns = min64(c->lim.insns, c->insns < c->pause.insns ? c->pause.insns : c->insns + 1);
    if (!cl->max_insns)
        return true;
    uint64_t total = vcpu_total_insns(cl);
    if (total >= cl->max_insns) {
        c->stop_reason = "max-insns";
        vcpu_exit(c, EXIT_LIMIT, "max-insns");
        return false;
    }
    c->lim.insns = min64(c->lim.insns, c->insns + (cl->max_insns - total));
    return true;
}

void vcpu_run(Cpu *c, uint64_t until)
{
    Cluster *cl = c->cl;
    /* paused right before the engine run: go on there (a stalled CPU pauses at its spin) */
    bool resume = c->pause.paused && !(c->stall.active && !c->stall.in_nmi);
    c->pause.paused = false;
    while (!cl->stopping && !cl->interrupted) {
        RunNext next = resume ? RUN_ENGINE : run_prepare(c, until);
        resume = false;
        if (next == RUN_RETURN)
            return;
        if (next == RUN_AGAIN)
            continue;
        uint64_t max_c = cl->max_cycles ? cl->max_cycles : UINT64_MAX;
        c->lim.soft = min64(until, evq_next_lazy(&c->events));
        c->lim.cycles = min64(min64(evq_next_exact(&c->events), max_c), vcpu_stall_next(c));
        if (!run_insn_limit(c))
            return;
        c->lim.fast = c->pev.track_branches || c->pev.track_mem || c->prof.on ? 0 : min64(c->lim.soft, c->lim.cycles);
        /* A signal since the loop's test: mach_interrupt zeroed lim.fast before the line above
         * set it, and the fast path would not look at the flag until the quantum's end (up to
         * 2^32 cycles).  The fence keeps the store before the load of the flag. */
        atomic_signal_fence(memory_order_seq_cst);
        if (cl->interrupted || c->pause.keep_stop)
            c->lim.fast = 0;
        engine_run(c);
        if (pause_inside_block(c))
            return;
    }
}

void vcpu_pause_at(Cpu *c, uint64_t insns, uint64_t entries)
{
    c->pause.armed = true;
    c->pause.insns = insns;
    c->pause.entries = entries;
}

void vcpu_pause_cancel(Cpu *c)
{
    c->pause.armed = false;
}

void vcpu_forget_all(Cpu *c)
{
    vcpu_engine_flush_tlb(c);
    c->blk = NULL;
    c->blk_counted = c->prof.from = c->mem_from = 0;
    c->cut = (CpuCut){ 0 };
    c->stop = (CpuStopRequest){ 0 };
    c->fault = (CpuFault){ 0 };
    c->mmu.fault_pending = c->mmu.stale_fill = false;
    c->acc = (CpuLocator){ .cur_pc = UINT64_MAX };
    c->pins.pmi = c->pins.fiq = false;
    c->pause = (CpuPause){ 0 };
}
