/* icache.c — strict instruction-cache mode (see icache.h, docs/patching.md). */
#include "cpu/icache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unicorn/unicorn.h>

#include "base/state.h"
#include "cpu/cpu.h"
#include "cpu/cluster.h"
#include "cpu/cpu.h"

/* The maintenance and barrier instructions, by encoding. */
typedef enum MaintOp { OP_NONE, OP_CLEAN, OP_INVAL, OP_INVAL_ALL, OP_BARRIER, OP_CTX_SYNC } MaintOp;

static uint32_t word(const ICache *ic, const uint8_t *b)
{
    if (ic->cl->arch == ARCH_PPC32)
        return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    return (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

static MaintOp maint_op(const ICache *ic, uint32_t w)
{
    if (ic->cl->arch == ARCH_ARM64) {
        uint32_t sys = w & 0xffffffe0u;
        if (sys == 0xd50b7b20u || sys == 0xd50b7a20u || sys == 0xd50b7e20u)   /* DC CVAU, CVAC, CIVAC */
            return OP_CLEAN;
        if (sys == 0xd50b7520u)                                              /* IC IVAU */
            return OP_INVAL;
        if (w == 0xd508711fu || w == 0xd508751fu)                            /* IC IALLUIS, IALLU */
            return OP_INVAL_ALL;
        if ((w & 0xfffff0ffu) == 0xd503309fu)                                /* DSB */
            return OP_BARRIER;
        if ((w & 0xfffff0ffu) == 0xd50330dfu || w == 0xd69f03e0u)           /* ISB, ERET */
            return OP_CTX_SYNC;
        return OP_NONE;
    }
    uint32_t x = w & 0xfc0007feu;
    if (x == 0x7c00006cu || x == 0x7c0000acu)                                /* dcbst, dcbf */
        return OP_CLEAN;
    if (x == 0x7c0007acu)                                                    /* icbi */
        return OP_INVAL;
    if (x == 0x7c0004acu)                                                    /* sync */
        return OP_BARRIER;
    if (w == 0x4c00012cu)                                                    /* isync */
        return OP_CTX_SYNC;
    return OP_NONE;
}

static uint64_t gpr(Cpu *c, unsigned n)
{
    if (c->cl->arch == ARCH_PPC32)
        return vcpu_reg_read(c, UC_PPC_REG_0 + (int)n) & 0xffffffffu;
    if (n == 31)
        return 0;                                   /* xzr */
    return vcpu_reg_read(c, n == 29 ? UC_ARM64_REG_X29 : n == 30 ? UC_ARM64_REG_X30 : UC_ARM64_REG_X0 + (int)n);
}

/* The address a DC/IC (arm64: Xt) or dcbst/dcbf/icbi (ppc32: (rA|0) + rB) operates on: a
 * virtual address, translated as a data access (DC, IC IVAU and icbi name the line by VA;
 * Arm ARM DDI 0487 D7.5 "Cache maintenance instructions", MPC7450 RM §2.3.7.1), because the
 * stale words are physical.  One that would fault maintains nothing here (the engine runs it). */
static bool op_addr(const ICache *ic, Cpu *c, uint32_t w, uint64_t *pa)
{
    uint64_t va;
    if (ic->cl->arch == ARCH_ARM64) {
        va = gpr(c, w & 31);
    } else {
        unsigned ra = (w >> 16) & 31, rb = (w >> 11) & 31;
        va = ((ra ? gpr(c, ra) : 0) + gpr(c, rb)) & 0xffffffffu;
    }
    return vcpu_data_pa(c, va, pa);
}

static uint32_t all_cpus(const ICache *ic)
{
    int n = ic->cl->ncpus < ICACHE_MAX_CPUS ? ic->cl->ncpus : ICACHE_MAX_CPUS;
    return n >= 32 ? 0xffffffffu : (1u << n) - 1;
}

static StaleWord *find(ICache *ic, uint64_t addr)
{
    for (int i = 0; i < ic->n; i++)
        if (ic->w[i].addr == addr)
            return &ic->w[i];
    return NULL;
}

/* Every CPU fetches it again: forget the word. */
static void settle(ICache *ic)
{
    int k = 0;
    for (int i = 0; i < ic->n; i++) {
        if ((ic->w[i].fresh & all_cpus(ic)) == all_cpus(ic)) {
            for (int c = 0; c < ICACHE_MAX_CPUS; c++)
                ic->retired_execs += ic->w[i].execs[c];
            continue;
        }
        ic->w[k++] = ic->w[i];
    }
    ic->n = k;
}

void icache_init(ICache *ic, Cluster *cl)
{
    memset(ic, 0, sizeof *ic);
    ic->cl = cl;
    ic->line = cl->arch == ARCH_PPC32 ? 32 : 64;
    codewatch_listen(&cl->cw, icache_on_write, ic);
}

void icache_destroy(ICache *ic)
{
    free(ic->w);
    memset(ic, 0, sizeof *ic);
}

void icache_on_write(void *opaque, const CodeWrite *w)
{
    ICache *ic = opaque;
    for (uint64_t a = w->addr & ~3ull; a < w->addr + w->size; a += 4) {
        StaleWord *s = find(ic, a);
        if (!s) {
            if (ic->n == ic->cap) {
                ic->cap = ic->cap ? 2 * ic->cap : 16;
                ic->w = xrealloc(ic->w, (size_t)ic->cap * sizeof *ic->w);
            }
            s = &ic->w[ic->n++];
            memset(s, 0, sizeof *s);
            s->addr = a;
            const uint8_t *now = mem_ptr(ic->cl->mem, a, 4);
            if (now)
                memcpy(s->old, now, 4);
            for (unsigned k = 0; k < 4; k++)        /* the bytes before this write */
                if (a + k >= w->addr && a + k < w->addr + w->size)
                    s->old[k] = w->old_bytes[a + k - w->addr];
        }
        /* a new write restarts the sequence; what stale CPUs fetch stays the old word */
        s->stage = STALE_WRITTEN;
        s->fresh = 0;
        s->clean_cpu = s->inval_cpu = s->sync_cpu = -1;
    }
}

int icache_trap_kind(ICache *ic, Cpu *c, uint64_t addr, const uint8_t *bytes, unsigned len)
{
    uint64_t pa;
    if (len != 4)
        return 0;
    if (maint_op(ic, word(ic, bytes)) != OP_NONE || (vcpu_fetch_pa(c, addr, &pa) && find(ic, pa)))
        return TRAP_KIND_ICACHE;
    return 0;
}

/* A maintenance or barrier instruction on c. */
static void maintain(ICache *ic, Cpu *c, MaintOp op, uint64_t ea)
{
    uint64_t line = ea & ~(uint64_t)(ic->line - 1);
    for (int i = 0; i < ic->n; i++) {
        StaleWord *s = &ic->w[i];
        bool in_line = (s->addr & ~(uint64_t)(ic->line - 1)) == line;
        switch (op) {
        case OP_CLEAN:
            if (in_line && s->stage == STALE_WRITTEN)
                s->clean_cpu = (int16_t)c->index;
            break;
        case OP_INVAL:
        case OP_INVAL_ALL:
            if ((in_line || op == OP_INVAL_ALL) && s->stage == STALE_CLEANED)
                s->inval_cpu = (int16_t)c->index;
            break;
        case OP_BARRIER:
            if (s->clean_cpu == c->index && s->stage == STALE_WRITTEN) {
                s->stage = STALE_CLEANED;
                s->clean_cpu = -1;
            }
            if (s->inval_cpu == c->index && s->stage == STALE_CLEANED) {
                s->stage = STALE_INVALIDATED;       /* broadcast: the other CPUs refetch */
                s->inval_cpu = -1;
                s->sync_cpu = (int16_t)c->index;
                s->fresh = all_cpus(ic) & ~(1u << c->index);
            }
            break;
        case OP_CTX_SYNC:
            if (s->stage == STALE_INVALIDATED)
                s->fresh |= 1u << c->index;
            break;
        default:
            break;
        }
    }
    if (op == OP_CTX_SYNC)
        settle(ic);
}

void icache_context_sync(ICache *ic, Cpu *c)
{
    if (ic->n)
        maintain(ic, c, OP_CTX_SYNC, 0);
}

static const char *missing(const ICache *ic, const StaleWord *s)
{
    bool a64 = ic->cl->arch == ARCH_ARM64;
    switch (s->stage) {
    case STALE_WRITTEN:
        return a64 ? "the line was not cleaned to the point of unification (DC CVAU, then DSB)"
                   : "the block was not written back (dcbst, then sync)";
    case STALE_CLEANED:
        return a64 ? "the instruction cache was not invalidated (IC IVAU, then DSB)"
                   : "the instruction cache block was not invalidated (icbi, then sync)";
    default:
        return a64 ? "no ISB on this CPU since it invalidated the instruction cache"
                   : "no isync on this CPU since it invalidated the instruction cache block";
    }
}

/* Execute the old word on c: NOP, B, BL, arm64 mov x9, x30.  False if it is none of those. */
static bool emulate_old(ICache *ic, Cpu *c, uint64_t pc, uint32_t w)
{
    if (ic->cl->arch == ARCH_ARM64) {
        if (w == 0xd503201fu) {
            vcpu_reg_write(c, UC_ARM64_REG_PC, pc + 4);
        } else if ((w & 0x7c000000u) == 0x14000000u) {
            int64_t off = (int64_t)((uint64_t)(w & 0x03ffffffu) << 38) >> 36;
            if (w & 0x80000000u)
                vcpu_reg_write(c, UC_ARM64_REG_X30, pc + 4);
            vcpu_reg_write(c, UC_ARM64_REG_PC, pc + (uint64_t)off);
        } else if (w == 0xaa1e03e9u) {
            vcpu_reg_write(c, UC_ARM64_REG_X9, vcpu_reg_read(c, UC_ARM64_REG_X30));
            vcpu_reg_write(c, UC_ARM64_REG_PC, pc + 4);
        } else {
            return false;
        }
        return true;
    }
    if (w == 0x60000000u) {
        vcpu_reg_write(c, UC_PPC_REG_PC, pc + 4);
    } else if ((w & 0xfc000002u) == 0x48000000u) {              /* b / bl, relative */
        int32_t off = (int32_t)(w << 6) >> 6 & ~3;
        if (w & 1)
            vcpu_reg_write(c, UC_PPC_REG_LR, (pc + 4) & 0xffffffffu);
        vcpu_reg_write(c, UC_PPC_REG_PC, (pc + (uint64_t)(int64_t)off) & 0xffffffffu);
    } else {
        return false;
    }
    return true;
}

/* Not a stale word on c: a maintenance or barrier instruction, maybe. */
static void maintenance(ICache *ic, Cpu *c, uint32_t w)
{
    MaintOp op = maint_op(ic, w);
    uint64_t pa = 0;
    if (op == OP_NONE || ((op == OP_CLEAN || op == OP_INVAL) && !op_addr(ic, c, w, &pa)))
        return;
    maintain(ic, c, op, pa);
}

int icache_trap(ICache *ic, Cpu *c, uint64_t pc)
{
    uint64_t pa;
    const uint8_t *now = vcpu_fetch_pa(c, pc, &pa) ? mem_ptr(ic->cl->mem, pa, 4) : NULL;
    if (!now)
        return TRAP_NATIVE;
    StaleWord *s = find(ic, pa);
    bool stale = s && !(s->fresh >> c->index & 1);
    if (!stale) {
        maintenance(ic, c, word(ic, now));
        return TRAP_NATIVE;
    }
    ic->stale_execs++;
    bool first = s->execs[c->index < ICACHE_MAX_CPUS ? c->index : 0]++ == 0;
    uint32_t old = word(ic, s->old);
    bool emulated = emulate_old(ic, c, pc, old);
    char o[96] = "", n[96] = "", sym[128], what[512];
    const ICacheReporter *rep = &ic->report;
    if (rep->disasm) {
        rep->disasm(rep->opaque, pc, s->old, 4, o, sizeof o);
        rep->disasm(rep->opaque, pc, now, 4, n, sizeof n);
    }
    trace_stale_exec(ic->cl->trace, c->cycles, c->index, pc, o, n, emulated ? "yes" : "no");
    if (first && rep->violation) {
        snprintf(what, sizeof what, "stale instruction executed at %s: \"%s\" instead of \"%s\"%s: %s",
                 trace_describe(ic->cl->trace, pc, sym, sizeof sym), o, n,
                 emulated ? "" : " (not emulated: the new one ran)", missing(ic, s));
        rep->violation(rep->opaque, c->index, c->cycles, pc, what);
    }
    if (!emulated) {
        s->fresh |= 1u << c->index;     /* it ran the new word: report it once */
        return TRAP_NATIVE;
    }
    return TRAP_DONE;
}

void icache_report(const ICache *ic, FILE *f)
{
    fprintf(f, "icache: strict, %d words still stale, %" PRIu64 " stale executions\n", ic->n, ic->stale_execs);
    for (int i = 0; i < ic->n; i++) {
        const StaleWord *s = &ic->w[i];
        char sym[128];
        uint64_t va = ic->cl->ncpus ? vcpu_code_va(ic->cl->cpus[0], s->addr) : s->addr;   /* named as cpu 0 runs it */
        fprintf(f, "  stale 0x%08" PRIx64 " %-28s", va, trace_describe(ic->cl->trace, va, sym, sizeof sym));
        for (int c = 0; c < ic->cl->ncpus && c < ICACHE_MAX_CPUS; c++)
            if (!(s->fresh >> c & 1))
                fprintf(f, " cpu%d(%" PRIu64 " executions)", c, s->execs[c]);
        fprintf(f, ": %s\n", missing(ic, s));
    }
}

/* ------------------------------------------------------------------ checkpoints */

/* Raise when a field is added to either table (base/state.h). */
#define ICACHE_STATE_VERSION 1u

static const StateField word_fields[] = {
    STATE_FIELD(StaleWord, addr),
    STATE_ARRAY(StaleWord, old),
    STATE_UPTO(StaleWord, stage, STALE_INVALIDATED),
    STATE_FIELD(StaleWord, clean_cpu),
    STATE_FIELD(StaleWord, inval_cpu),
    STATE_FIELD(StaleWord, sync_cpu),
    STATE_FIELD(StaleWord, fresh),
    STATE_ARRAY(StaleWord, execs),
};

static const StateField icache_fields[] = {
    STATE_FIELD(ICache, stale_execs),
    STATE_FIELD(ICache, retired_execs),
};

void icache_save(const ICache *ic, Blob *b)
{
    size_t at = blob_begin(b, "icache", ICACHE_STATE_VERSION);
    blob_fields(b, ic, icache_fields, ARRAY_SIZE(icache_fields));
    blob_u32(b, (uint32_t)ic->n);
    for (int i = 0; i < ic->n; i++)
        blob_fields(b, &ic->w[i], word_fields, ARRAY_SIZE(word_fields));
    blob_end(b, at);
}

/* A CPU a stale word waits for: -1 (none) or a CPU of this machine. */
static bool waiting_cpu_ok(const ICache *ic, int16_t cpu)
{
    return cpu >= -1 && cpu < ic->cl->ncpus;
}

static bool load_word(ICache *ic, StaleWord *s, BlobReader *r)
{
    memset(s, 0, sizeof *s);
    if (!br_fields(r, s, word_fields, ARRAY_SIZE(word_fields)))
        return false;
    if ((s->addr & 3) || find(ic, s->addr) != s)
        return br_fail(r, "stale word address");
    if (!waiting_cpu_ok(ic, s->clean_cpu) || !waiting_cpu_ok(ic, s->inval_cpu) || !waiting_cpu_ok(ic, s->sync_cpu))
        return br_fail(r, "stale word cpu");
    return true;
}

bool icache_load(ICache *ic, BlobReader *r)
{
    BrOuter outer;
    if (!br_begin(r, &outer, "icache", ICACHE_STATE_VERSION) || !br_fields(r, ic, icache_fields, ARRAY_SIZE(icache_fields)))
        return false;
    uint32_t n = br_count(r, br_fields_size(r, word_fields, ARRAY_SIZE(word_fields)), INT32_MAX,
                          "stale word count");
    if (!r->ok)
        return false;
    ic->n = 0;
    if ((int)n > ic->cap) {
        ic->cap = (int)n;
        ic->w = xrealloc(ic->w, (size_t)ic->cap * sizeof *ic->w);
    }
    for (uint32_t i = 0; i < n && r->ok; i++) {
        ic->n = (int)i + 1;
        if (!load_word(ic, &ic->w[i], r))
            ic->n = (int)i;
    }
    return br_end(r, &outer);
}

/* ------------------------------------------------------------------ the CPUs' view */

static int watch_trap_kind(void *ic, Cpu *c, uint64_t addr, const uint8_t *bytes, unsigned len)
{
    return icache_trap_kind(ic, c, addr, bytes, len);
}

static int watch_trap(void *ic, Cpu *c, uint64_t pc)
{
    return icache_trap(ic, c, pc);
}

static void watch_context_sync(void *ic, Cpu *c)
{
    icache_context_sync(ic, c);
}

ExecWatch icache_watch(ICache *ic)
{
    return (ExecWatch){ ic, watch_trap_kind, watch_trap, watch_context_sync };
}
