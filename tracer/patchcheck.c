/* patchcheck.c — the patch validator (see patchcheck.h, docs/patching.md). */
#include "tracer/patchcheck.h"

#include <capstone/capstone.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/state.h"
#include "cpu/cpu.h"
#include "tracer/linuxpatch.h"

/* The forms a site may hold, a bit each in PatchSite.forms_seen. */
typedef enum PatchForm {
    FORM_NOP,               /* the NOP of the site's size (arm64 ftrace: both words) */
    FORM_MCOUNT,            /* the compiler's call: x86 call __fentry__, ppc32 bl _mcount */
    FORM_ARM64_INIT,        /* arm64 ftrace: mov x9, x30; nop (ftrace_init_nop) */
    FORM_TRAMP,             /* a call to an ftrace trampoline (arm64: mov x9, x30; bl) */
    FORM_JUMP,              /* jump label: the jump to the entry's target */
    FORM_FEATURE,           /* feature section: the code the image has there */
    FORM_LITERAL,           /* arm64 CALL_OPS literal: any 8 bytes (an ftrace_ops pointer) */
    FORM_ORIG,              /* alternative: the code the image has there */
    FORM_ALT,               /* alternative: its replacement (branches and ADRP moved, get_alt_insn) */
    FORM_CALLBACK,          /* callback alternative: what its callback wrote */
    FORM_CONST,             /* runtime constant: the instructions with other immediates */
    FORM_DATA,              /* hyp relocation: any 64-bit value */
    FORM_COUNT
} PatchForm;

static const char *const form_names[FORM_COUNT] = { "nop", "mcount call", "mov x9, x30 + nop", "trampoline call",
                                                    "jump", "feature code", "ops literal", "original code",
                                                    "alternative", "callback code", "constant", "data" };
static const char *const kind_names[PATCH_KINDS] = { "ftrace", "jump_label", "fixup", "ftrace_ops", "alternative",
                                                     "alt_callback", "runtime_const", "hyp_reloc" };

/* A Linux kernel's tens of thousands of patched sites: the summary lists the first few of each kind. */
#define PATCH_LINUX_LISTED 8

enum {
    A64_NOP = 0xd503201fu,
    A64_MOV_X9_X30 = 0xaa1e03e9u,
    PPC_NOP = 0x60000000u,
};

static const uint8_t x86_nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
static const uint8_t x86_nop2[2] = { 0x66, 0x90 };

/* ------------------------------------------------------------------ bytes and forms */

static uint32_t word_at(const PatchCheck *pc, const uint8_t *b)
{
    if (pc->arch == ARCH_PPC32)
        return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    return (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

static int32_t rel32_at(const uint8_t *b)
{
    return (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
}

/* An A64 B/BL or a PowerPC b/bl (AA = 0) at `at` to `to`: its encoding, or 0 if out of range. */
static uint32_t branch_insn(const PatchCheck *pc, uint64_t at, uint64_t to, bool link)
{
    int64_t d = (int64_t)(to - at);
    if (d & 3)
        return 0;
    if (pc->arch == ARCH_ARM64) {
        if (d < -(1ll << 27) || d >= (1ll << 27))
            return 0;
        return (link ? 0x94000000u : 0x14000000u) | ((uint32_t)(d >> 2) & 0x03ffffffu);
    }
    if (d < -(1ll << 25) || d >= (1ll << 25))
        return 0;
    return 0x48000000u | ((uint32_t)d & 0x03fffffcu) | (link ? 1u : 0u);
}

static bool is_tramp(const PatchCheck *pc, uint64_t to)
{
    for (int i = 0; i < pc->ntramp; i++)
        if (pc->tramp[i] == to)
            return true;
    return false;
}

/* Which allowed form the bytes b of site s are, or -1. */
static int form_of(const PatchCheck *pc, const PatchSite *s, const uint8_t *b)
{
    if (s->kind == PATCH_OPS)
        return FORM_LITERAL;
    if (s->kind == PATCH_HYP)
        return FORM_DATA;
    if (s->kind == PATCH_RTCONST) {
        /* the fields __runtime_fixup_ptr / __runtime_fixup_shift rewrite: MOVZ/MOVK's imm16, the
         * shift's immr */
        uint32_t keep = s->len == LINUX_RTCONST_SHIFT_LEN ? LINUX_RTCONST_SHIFT_KEEP : LINUX_RTCONST_PTR_KEEP;
        for (unsigned k = 0; k + 4 <= s->len; k += 4)
            if ((word_at(pc, b + k) ^ word_at(pc, s->orig + k)) & keep)
                return -1;
        return !memcmp(b, s->orig, s->len) ? FORM_ORIG : FORM_CONST;
    }
    if (s->kind == PATCH_ALT || s->kind == PATCH_ALT_CB) {
        if (!memcmp(b, s->orig, s->len))
            return FORM_ORIG;
        if (s->kind == PATCH_ALT_CB)
            return FORM_CALLBACK;
        return s->target + s->len <= pc->altlen && !memcmp(b, pc->alt + s->target, s->len) ? FORM_ALT : -1;
    }
    if (s->kind == PATCH_FIXUP) {
        if (!memcmp(b, s->orig, s->len))
            return FORM_FEATURE;
        for (unsigned k = 0; k + 4 <= s->len; k += 4)
            if (word_at(pc, b + k) != PPC_NOP)
                return -1;
        return FORM_NOP;
    }
    switch (pc->arch) {
    case ARCH_X86_64:
        if (s->len == 5 && !memcmp(b, x86_nop5, 5))
            return FORM_NOP;
        if (s->len == 2 && !memcmp(b, x86_nop2, 2))
            return FORM_NOP;
        if (s->kind == PATCH_FTRACE && s->len == 5 && b[0] == 0xe8) {
            uint64_t to = s->addr + 5 + (uint64_t)(int64_t)rel32_at(b + 1);
            if (pc->mcount && to == pc->mcount)
                return FORM_MCOUNT;
            if (is_tramp(pc, to))
                return FORM_TRAMP;
        }
        if (s->kind == PATCH_JUMP && s->len == 5 && b[0] == 0xe9 &&
            s->addr + 5 + (uint64_t)(int64_t)rel32_at(b + 1) == s->target)
            return FORM_JUMP;
        if (s->kind == PATCH_JUMP && s->len == 2 && b[0] == 0xeb && s->addr + 2 + (uint64_t)(int64_t)(int8_t)b[1] == s->target)
            return FORM_JUMP;
        return -1;
    case ARCH_ARM64:
        if (s->kind == PATCH_FTRACE) {
            uint32_t w0 = word_at(pc, b), w1 = word_at(pc, b + 4);
            if (w0 == A64_NOP && w1 == A64_NOP)
                return FORM_NOP;
            if (w0 == A64_MOV_X9_X30 && w1 == A64_NOP)
                return FORM_ARM64_INIT;
            if (w0 == A64_MOV_X9_X30)
                for (int i = 0; i < pc->ntramp; i++)
                    if (w1 == branch_insn(pc, s->addr + 4, pc->tramp[i], true))
                        return FORM_TRAMP;
            return -1;
        }
        if (word_at(pc, b) == A64_NOP)
            return FORM_NOP;
        return word_at(pc, b) == branch_insn(pc, s->addr, s->target, false) ? FORM_JUMP : -1;
    case ARCH_PPC32: {
        uint32_t w = word_at(pc, b);
        if (w == PPC_NOP)
            return FORM_NOP;
        if (s->kind == PATCH_JUMP)
            return w == branch_insn(pc, s->addr, s->target, false) ? FORM_JUMP : -1;
        if (pc->mcount && w == branch_insn(pc, s->addr, pc->mcount, true))
            return FORM_MCOUNT;
        for (int i = 0; i < pc->ntramp; i++)
            if (w == branch_insn(pc, s->addr, pc->tramp[i], true))
                return FORM_TRAMP;
        return -1;
    }
    default:
        return -1;
    }
}

/* "mnemonic operands; ..." of len bytes at addr (Capstone), "(bad)" where it cannot decode. */
void patchcheck_disasm(const PatchCheck *pc, uint64_t addr, const uint8_t *b, size_t len, char *out, size_t outlen)
{
    out[0] = 0;
    size_t used = 0, off = 0;
    while (off < len && used + 1 < outlen) {
        cs_insn *insn = NULL;
        size_t n = pc->cs_ok ? cs_disasm((csh)pc->cs, b + off, len - off, addr + off, 1, &insn) : 0;
        int k;
        if (n == 1) {
            /* a branch to an address: name it (call 0x1040ff <__fentry__>) */
            char target[96] = "";
            const char *op = insn->op_str[0] == '#' ? insn->op_str + 1 : insn->op_str;
            char *end;
            unsigned long long to = strtoull(op, &end, 16);
            if (op[0] == '0' && op[1] == 'x' && !*end && pc->cl) {
                char sym[80];
                snprintf(target, sizeof target, " <%s>", trace_describe(pc->cl->trace, to, sym, sizeof sym));
            }
            k = snprintf(out + used, outlen - used, "%s%s%s%s%s", used ? "; " : "", insn->mnemonic,
                         insn->op_str[0] ? " " : "", insn->op_str, target);
            off += insn->size;
            cs_free(insn, n);
        } else {
            k = snprintf(out + used, outlen - used, "%s(bad)", used ? "; " : "");
            off = len;
        }
        used += k > 0 ? (size_t)k : 0;
        if (used >= outlen)
            used = outlen - 1;
    }
}

/* ------------------------------------------------------------------ violations and events */

void patchcheck_violation(PatchCheck *pc, int cpu, uint64_t cycle, uint64_t wpc, uint64_t addr, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (pc->nv == pc->vcap) {
        pc->vcap = pc->vcap ? 2 * pc->vcap : 16;
        pc->v = xrealloc(pc->v, pc->vcap * sizeof *pc->v);
    }
    pc->v[pc->nv++] = (PatchViolation){ cpu, cycle, wpc, addr, xstrdup(what) };
    trace_patch_violation(pc->cl->trace, cycle, cpu, wpc, addr, what);
}

static bool others_online(const PatchCheck *pc, int writer)
{
    for (int i = 0; i < pc->cl->ncpus; i++)
        if (i != writer && (pc->cl->cpus[i]->state == CPU_RUNNING || pc->cl->cpus[i]->state == CPU_HALTED))
            return true;
    return false;
}

/* x86 text_poke_bp: remember when this step was written. */
static void sync_snapshot(PatchCheck *pc, PatchSite *s, const CodeWrite *w)
{
    s->step_cycle = w->cycle;
}

/* The first running CPU other than the writer that has not serialised (taken an exception or
 * interrupt) since the last step, in simulated time; -1.  IPIs arrive no earlier than they are
 * sent (apic/lapic.c), so a text_poke_sync IPI counts only after the step.  A halted CPU
 * serialises when it wakes: it cannot be executing the site meanwhile. */
static int unsynced_cpu(const PatchCheck *pc, const PatchSite *s, int writer)
{
    for (int i = 0; i < pc->cl->ncpus; i++) {
        const Cpu *c = pc->cl->cpus[i];
        if (i != writer && c->state == CPU_RUNNING && c->exc.serialized_at < s->step_cycle)
            return i;
    }
    return -1;
}

/* The address the kernel knows a physical code address by: its link address in the image.
 * Sites, writes and the code-write watch are physical (a write through any alias is caught);
 * reports, traces and disassembly name the kernel's own addresses and symbols. */
static uint64_t link_of(const PatchCheck *pc, uint64_t pa)
{
    for (int i = 0; i < pc->nsegs; i++) {
        const Segment *g = &pc->segs[i];
        if (pa >= g->paddr && pa - g->paddr < g->memsz)
            return pa - g->paddr + g->vaddr;
    }
    return pa;
}

static const char *site_name(const PatchCheck *pc, const PatchSite *s, char *buf, size_t len)
{
    return trace_describe(pc->cl->trace, link_of(pc, s->addr), buf, len);
}

/* ------------------------------------------------------------------ sites */

static int find_site(const PatchCheck *pc, uint64_t addr)
{
    int lo = 0, hi = pc->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (pc->sites[mid].addr + pc->sites[mid].len <= addr)
            lo = mid + 1;
        else if (pc->sites[mid].addr > addr)
            hi = mid - 1;
        else
            return mid;
    }
    return -1;
}

bool patchcheck_add_site(PatchCheck *pc, PatchKind kind, uint64_t addr, unsigned len, uint64_t target)
{
    if (!len || len > PATCH_MAX_LEN || !mem_ptr(pc->cl->mem, addr, len))
        return false;
    int i = pc->n;                  /* the first site at or above addr (the tables come sorted: append) */
    if (i > 0 && pc->sites[i - 1].addr >= addr) {
        int lo = 0, hi = pc->n;
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (pc->sites[mid].addr < addr)
                lo = mid + 1;
            else
                hi = mid;
        }
        i = lo;
    }
    if ((i < pc->n && pc->sites[i].addr < addr + len) || (i > 0 && pc->sites[i - 1].addr + pc->sites[i - 1].len > addr))
        return false;
    if (pc->n == pc->cap) {
        pc->cap = pc->cap ? 2 * pc->cap : 64;
        pc->sites = xrealloc(pc->sites, (size_t)pc->cap * sizeof *pc->sites);
    }
    memmove(&pc->sites[i + 1], &pc->sites[i], (size_t)(pc->n - i) * sizeof *pc->sites);
    pc->n++;
    PatchSite *s = &pc->sites[i];
    *s = (PatchSite){ .addr = addr, .len = (uint8_t)len, .kind = (uint8_t)kind, .target = target, .w_cpu = -1 };
    const uint8_t *b = mem_ptr(pc->cl->mem, addr, len);
    memcpy(s->form, b, len);
    memcpy(s->orig, b, len);
    int f = form_of(pc, s, b);
    s->torn = f < 0;
    if (f >= 0)
        s->hist[s->nhist++] = (uint8_t)f;
    return true;
}

uint64_t patchcheck_add_alt_bytes(PatchCheck *pc, const uint8_t *b, unsigned len)
{
    if (pc->altlen + len > pc->altcap) {
        pc->altcap = pc->altcap ? 2 * pc->altcap : 4096;
        while (pc->altcap < pc->altlen + len)
            pc->altcap *= 2;
        pc->alt = xrealloc(pc->alt, pc->altcap);
    }
    memcpy(pc->alt + pc->altlen, b, len);
    pc->altlen += len;
    return pc->altlen - len;
}

bool patchcheck_add_trampoline(PatchCheck *pc, uint64_t addr)
{
    if (pc->ntramp == (int)ARRAY_SIZE(pc->tramp))
        return false;
    pc->tramp[pc->ntramp++] = addr;
    return true;
}

/* A site left torn by its last writer: reported once, with that write. */
static void check_left_torn(PatchCheck *pc, int idx)
{
    PatchSite *s = &pc->sites[idx];
    if (!s->torn || s->int3 || s->w_cpu < 0)
        return;
    char dis[160], old[160], sym[128];
    const uint8_t *b = mem_ptr(pc->cl->mem, s->addr, s->len);
    patchcheck_disasm(pc, link_of(pc, s->addr), b, s->len, dis, sizeof dis);
    patchcheck_disasm(pc, link_of(pc, s->addr), s->form, s->len, old, sizeof old);
    patchcheck_violation(pc, s->w_cpu, s->w_cycle, s->w_pc, link_of(pc, s->addr),
              "%s site %s (%u bytes) left holding \"%s\": not an allowed form (it held \"%s\")", kind_names[s->kind],
              site_name(pc, s, sym, sizeof sym), s->len, dis, old);
    s->w_cpu = -1;                  /* reported */
}

/* x86 on SMP: a write that changes a live site must follow text_poke_bp. */
static void check_int3_protocol(PatchCheck *pc, PatchSite *s, const CodeWrite *w, const uint8_t *before,
                                const uint8_t *after)
{
    char sym[128];
    bool first = w->addr <= s->addr && s->addr < w->addr + w->size;
    bool tail = w->addr + w->size > s->addr + 1;
    if (before[0] != 0xcc && after[0] == 0xcc) {          /* step 1: INT3 */
        if (tail && memcmp(before + 1, after + 1, s->len - 1u))
            patchcheck_violation(pc, w->cpu, w->cycle, w->pc, link_of(pc, s->addr),
                      "INT3 protocol: %s written together with the INT3 at %s, before the other CPUs synced",
                      "the tail", site_name(pc, s, sym, sizeof sym));
        s->int3 = true;
        s->tail = false;
        sync_snapshot(pc, s, w);
        return;
    }
    if (before[0] == 0xcc) {                               /* step 2 (tail) or 3 (first byte) */
        bool tail_step = after[0] == 0xcc;
        /* a sync between the INT3 and the tail, and between the tail and the first byte; the
         * tail itself may take several stores */
        int cpu = tail_step && s->tail ? -1 : unsynced_cpu(pc, s, w->cpu);
        if (cpu >= 0) {
            char o[160], n[160];
            patchcheck_disasm(pc, link_of(pc, s->addr), s->form, s->len, o, sizeof o);
            patchcheck_disasm(pc, link_of(pc, s->addr), after, s->len, n, sizeof n);
            patchcheck_violation(pc, w->cpu, w->cycle, w->pc, link_of(pc, s->addr),
                      "INT3 protocol: %s of %s written before cpu %d serialised (text_poke_sync): \"%s\" -> \"%s\"",
                      tail_step ? "the tail" : "the first byte", site_name(pc, s, sym, sizeof sym), cpu, o, n);
        }
        if (!tail_step && tail && first && memcmp(before + 1, after + 1, s->len - 1u))
            patchcheck_violation(pc, w->cpu, w->cycle, w->pc, link_of(pc, s->addr),
                      "INT3 protocol: the first byte and the tail of %s written at once",
                      site_name(pc, s, sym, sizeof sym));
        s->int3 = tail_step;
        s->tail = tail_step;
        sync_snapshot(pc, s, w);
        return;
    }
    if (s->torn && s->w_cpu == w->cpu)
        return;                                 /* the rest of a patch already reported */
    char o[160], n[160];
    patchcheck_disasm(pc, link_of(pc, s->addr), s->form, s->len, o, sizeof o);
    patchcheck_disasm(pc, link_of(pc, s->addr), after, s->len, n, sizeof n);
    patchcheck_violation(pc, w->cpu, w->cycle, w->pc, link_of(pc, s->addr),
              "SMP patch of %s without the INT3 protocol while other CPUs run: \"%s\" -> \"%s\" in place",
              site_name(pc, s, sym, sizeof sym), o, n);
}

/* arm64 on SMP: B, BL, NOP, BRK, SVC, HVC, SMC, ISB may change under a running CPU, nothing else
 * (Arm ARM B2.2.5, concurrent modification and execution of instructions). */
static bool a64_concurrent_ok(uint32_t w)
{
    return (w & 0x7c000000u) == 0x14000000u ||          /* B, BL */
           w == A64_NOP ||
           (w & 0xffe0001fu) == 0xd4200000u ||          /* BRK */
           (w & 0xffe0001fu) == 0xd4000001u ||          /* SVC */
           (w & 0xffe0001fu) == 0xd4000002u ||          /* HVC */
           (w & 0xffe0001fu) == 0xd4000003u ||          /* SMC */
           (w & 0xfffff0ffu) == 0xd50330dfu;            /* ISB */
}

/* Sites the concurrent-modification rule does not apply to: data words never executed (the
 * CALL_OPS literal, hyp relocations), and alternatives, which apply_alternatives_all writes
 * under stop_machine, every other CPU parked in __apply_alternatives_multi_stop until it is done
 * and then ISB (arch/arm64/kernel/alternative.c; the validator does not check where they are). */
static bool concurrent_rule(PatchKind k)
{
    return k != PATCH_OPS && k != PATCH_HYP && k != PATCH_ALT && k != PATCH_ALT_CB;
}

static void check_a64_concurrent(PatchCheck *pc, const CodeWrite *w)
{
    uint64_t first = w->addr & ~3ull, end = (w->addr + w->size + 3) & ~3ull;
    const uint8_t *now = mem_ptr(pc->cl->mem, first, end - first);
    if (!now)
        return;
    for (uint64_t a = first; a < end; a += 4) {
        int si = find_site(pc, a);
        if (si >= 0 && !concurrent_rule(pc->sites[si].kind))
            continue;
        uint8_t old[4];
        memcpy(old, now + (a - first), 4);
        for (unsigned k = 0; k < 4; k++)                    /* the bytes this write replaced */
            if (a + k >= w->addr && a + k < w->addr + w->size)
                old[k] = w->old_bytes[a + k - w->addr];
        uint32_t ow = word_at(pc, old), nw = word_at(pc, now + (a - first));
        if (ow == nw || (a64_concurrent_ok(ow) && a64_concurrent_ok(nw)))
            continue;
        char o[96], n[96], sym[128];
        patchcheck_disasm(pc, link_of(pc, a), old, 4, o, sizeof o);
        patchcheck_disasm(pc, link_of(pc, a), now + (a - first), 4, n, sizeof n);
        patchcheck_violation(pc, w->cpu, w->cycle, w->pc, link_of(pc, a),
                  "concurrent modification of %s while other CPUs run: \"%s\" -> \"%s\" (only B, BL, NOP, BRK, SVC, "
                  "HVC, SMC, ISB may change)",
                  trace_describe(pc->cl->trace, link_of(pc, a), sym, sizeof sym), o, n);
    }
}

static void site_written(PatchCheck *pc, int idx, const CodeWrite *w, bool smp)
{
    PatchSite *s = &pc->sites[idx];
    const uint8_t *after = mem_ptr(pc->cl->mem, s->addr, s->len);
    if (!after)
        return;
    uint8_t before[PATCH_MAX_LEN];
    memcpy(before, after, s->len);
    for (unsigned k = 0; k < s->len; k++)
        if (s->addr + k >= w->addr && s->addr + k < w->addr + w->size)
            before[k] = w->old_bytes[s->addr + k - w->addr];
    if (!memcmp(before, after, s->len))
        return;
    if (pc->arch == ARCH_X86_64 && (smp || s->int3))
        check_int3_protocol(pc, s, w, before, after);
    else
        s->int3 = false;
    int f = form_of(pc, s, after);
    if (f < 0) {
        s->torn = true;
        s->w_cpu = w->cpu;
        s->w_pc = w->pc;
        s->w_cycle = w->cycle;
        return;
    }
    s->torn = false;
    s->w_cpu = -1;
    if (!memcmp(s->form, after, s->len))
        return;                                 /* back to what it held (an aborted patch) */
    if (trace_on(pc->cl->trace)) {             /* disassembled only for the trace: 100k patches at a Linux boot */
        char from[160], to[160], sym[128];
        patchcheck_disasm(pc, link_of(pc, s->addr), s->form, s->len, from, sizeof from);
        patchcheck_disasm(pc, link_of(pc, s->addr), after, s->len, to, sizeof to);
        trace_patch(pc->cl->trace, w->cycle, w->cpu, link_of(pc, s->addr), site_name(pc, s, sym, sizeof sym), kind_names[s->kind],
                    from, to, w->pc);
    }
    memcpy(s->form, after, s->len);
    s->transitions++;
    if (s->nhist < ARRAY_SIZE(s->hist))
        s->hist[s->nhist++] = (uint8_t)f;
    pc->patches++;
}

/* free_initmem poisons the init sections (POISON_FREE_INITMEM, include/linux/poison.h) and gives
 * their pages to the page allocator: from the poison on, a write there is no patch. */
static bool freed_init_write(PatchCheck *pc, const CodeWrite *w)
{
    if (w->addr < pc->init_start || w->addr >= pc->init_end)
        return false;
    if (!pc->init_freed) {
        for (unsigned k = 0; k < w->size; k++)
            if (w->new_bytes[k] != LINUX_POISON_FREE_INITMEM)
                return false;
        pc->init_freed = true;
    }
    pc->freed_writes++;
    return true;
}

void patchcheck_on_write(void *opaque, const CodeWrite *w)
{
    PatchCheck *pc = opaque;
    pc->writes++;
    if (freed_init_write(pc, w))
        return;
    bool smp = others_online(pc, w->cpu);
    if (smp && pc->arch == ARCH_ARM64)
        check_a64_concurrent(pc, w);
    /* the bytes no site covers */
    bool stray = false;
    int first_site = -1;
    for (uint64_t a = w->addr; a < w->addr + w->size;) {
        int i = find_site(pc, a);
        if (i < 0) {
            stray = true;
            a++;
            continue;
        }
        if (first_site < 0)
            first_site = i;
        a = pc->sites[i].addr + pc->sites[i].len;
    }
    if (stray) {
        char o[160], n[160], sym[128], by[160] = "";
        patchcheck_disasm(pc, link_of(pc, w->addr), w->old_bytes, w->size, o, sizeof o);
        patchcheck_disasm(pc, link_of(pc, w->addr), w->new_bytes, w->size, n, sizeof n);
        if (pc->linux_tables) {                        /* the writer, named by the kernel's own symbols */
            char wsym[128];
            snprintf(by, sizeof by, " (writer sym=%s)", trace_describe(pc->cl->trace, w->pc, wsym, sizeof wsym));
        }
        patchcheck_violation(pc, w->cpu, w->cycle, w->pc, link_of(pc, w->addr),
                  "unexpected code write: %u bytes at %s, not a patch site: \"%s\" -> \"%s\"%s", w->size,
                  trace_describe(pc->cl->trace, link_of(pc, w->addr), sym, sizeof sym), o, n, by);
        pc->stray_writes++;
    } else if (first_site >= 0) {
        pc->kind_writes[pc->sites[first_site].kind]++;
    }
    if (first_site < 0)
        return;
    if (pc->last_site >= 0 && pc->last_site != first_site)
        check_left_torn(pc, pc->last_site);
    for (int i = first_site; i < pc->n && pc->sites[i].addr < w->addr + w->size; i++)
        site_written(pc, i, w, smp);
    pc->last_site = first_site;
}

/* ------------------------------------------------------------------ the image's tables */

static uint64_t read_word(const Image *im, const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[im->big_endian ? n - 1 - i : i] << (8 * i);
    return v;
}

static bool sym_addr(const Image *im, const char *name, uint64_t *a)
{
    if (!image_symbol_addr(im, name, a))
        return false;
    *a = image_load_addr(im, *a);
    return true;
}

/* A table section with its bytes in the image (the loader refuses any other; checked again
 * here because these tables are read without further bounds checks).  NULL if absent or
 * without bytes (SHT_NOBITS), false with err set if its bytes are outside the file. */
static bool table_section(const Image *im, const char *name, const Section **out, Error *err)
{
    const Section *s = image_section(im, name);
    *out = NULL;
    if (!s || s->nobits)
        return true;
    if (s->offset > im->size || s->size > im->size - s->offset)
        return err_set(err, "%s: section %s at offset 0x%" PRIx64 " extends past the end of the file", im->path, name,
                       s->offset);
    *out = s;
    return true;
}

/* ftrace sites: __mcount_loc (x86 5-byte calls, ppc32 4-byte bl), __patchable_function_entries
 * (arm64: two NOPs). */
static bool load_ftrace_sites(PatchCheck *pc, const Image *im, Error *err)
{
    const char *names[] = { "__mcount_loc", "__patchable_function_entries" };
    unsigned psz = im->is64 ? 8 : 4;
    for (unsigned t = 0; t < ARRAY_SIZE(names); t++) {
        const Section *s;
        if (!table_section(im, names[t], &s, err))
            return false;
        if (!s)
            continue;
        unsigned len = pc->arch == ARCH_X86_64 ? 5 : pc->arch == ARCH_ARM64 && t == 1 ? 8 : 4;
        for (uint64_t off = 0; off + psz <= s->size; off += psz) {
            uint64_t at = image_load_addr(im, read_word(im, im->data + s->offset + off, psz));
            if (!patchcheck_add_site(pc, PATCH_FTRACE, at, len, 0))
                return err_set(err, "%s: offset 0x%" PRIx64 ": %s entry %" PRIu64 ": site 0x%" PRIx64
                                 " overlaps another or is not in RAM", im->path, s->offset + off, names[t], off / psz, at);
        }
    }
    return true;
}

/* struct jump_entry { s32 code; s32 target; long key; }, each relative to its own field. */
static bool load_jump_sites(PatchCheck *pc, const Image *im, Error *err)
{
    const Section *s;
    if (!table_section(im, "__jump_table", &s, err))
        return false;
    if (!s)
        return true;
    unsigned esz = im->is64 ? 16 : 12;
    for (uint64_t off = 0; off + esz <= s->size; off += esz) {
        const uint8_t *e = im->data + s->offset + off;
        uint64_t base = s->addr + off;
        uint64_t code = image_load_addr(im, base + (uint64_t)(int64_t)(int32_t)read_word(im, e, 4));
        uint64_t target = image_load_addr(im, base + 4 + (uint64_t)(int64_t)(int32_t)read_word(im, e + 4, 4));
        unsigned len = 4;
        if (pc->arch == ARCH_X86_64) {
            const uint8_t *b = mem_ptr(pc->cl->mem, code, 1);
            len = b && (b[0] == 0xeb || b[0] == 0x66) ? 2 : 5;
        }
        if (!patchcheck_add_site(pc, PATCH_JUMP, code, len, target))
            return err_set(err, "%s: offset 0x%" PRIx64 ": __jump_table entry %" PRIu64 ": site 0x%" PRIx64
                             " overlaps another or is not in RAM", im->path, s->offset + off, off / esz, code);
    }
    return true;
}

/* ppc32 CPU feature sections: struct fixup_entry { mask, value, start_off, end_off, alt_start_off,
 * alt_end_off }, 32-bit longs, offsets from the entry. */
static bool load_fixup_sites(PatchCheck *pc, const Image *im, Error *err)
{
    const Section *s;
    if (pc->arch != ARCH_PPC32)
        return true;
    if (!table_section(im, "__ftr_fixup", &s, err))
        return false;
    if (!s)
        return true;
    for (uint64_t off = 0; off + 24 <= s->size; off += 24) {
        const uint8_t *e = im->data + s->offset + off;
        uint64_t base = s->addr + off;
        uint64_t start = image_load_addr(im, base + (uint64_t)(int64_t)(int32_t)read_word(im, e + 8, 4));
        uint64_t end = image_load_addr(im, base + (uint64_t)(int64_t)(int32_t)read_word(im, e + 12, 4));
        if (end <= start || end - start > PATCH_MAX_LEN || (end - start) % 4 ||
            !patchcheck_add_site(pc, PATCH_FIXUP, start, (unsigned)(end - start), 0))
            return err_set(err, "%s: offset 0x%" PRIx64 ": __ftr_fixup entry %" PRIu64 ": section 0x%" PRIx64
                             "-0x%" PRIx64 " is empty, longer than %d bytes, overlaps another site or is not in RAM",
                             im->path, s->offset + off, off / 24, start, end, PATCH_MAX_LEN);
    }
    return true;
}

bool patchcheck_init(PatchCheck *pc, Cluster *cl, const Image *im, Error *err)
{
    memset(pc, 0, sizeof *pc);
    pc->cl = cl;
    pc->arch = im->arch;
    pc->last_site = -1;
    pc->segs = xcalloc((size_t)im->nsegs, sizeof *pc->segs);
    if (im->nsegs)                  /* an image without segments: memcpy from NULL is undefined */
        memcpy(pc->segs, im->segs, (size_t)im->nsegs * sizeof *pc->segs);
    pc->nsegs = im->nsegs;
    static const struct { Arch arch; cs_arch a; int mode; } cs[] = {
        { ARCH_X86_64, CS_ARCH_X86, CS_MODE_64 },
        { ARCH_ARM64, CS_ARCH_ARM64, CS_MODE_ARM },
        { ARCH_PPC32, CS_ARCH_PPC, CS_MODE_32 | CS_MODE_BIG_ENDIAN },
    };
    for (unsigned i = 0; i < ARRAY_SIZE(cs); i++)
        if (cs[i].arch == pc->arch) {
            csh h;
            pc->cs_ok = cs_open(cs[i].a, (cs_mode)cs[i].mode, &h) == CS_ERR_OK;
            pc->cs = (size_t)h;
        }
    uint64_t a;
    if (sym_addr(im, pc->arch == ARCH_X86_64 ? "__fentry__" : "_mcount", &a))
        pc->mcount = a;
    const char *tramps[] = { "ftrace_caller", "ftrace_regs_caller" };
    for (unsigned i = 0; i < ARRAY_SIZE(tramps); i++)
        if (sym_addr(im, tramps[i], &a))
            patchcheck_add_trampoline(pc, a);
    if (!load_ftrace_sites(pc, im, err) || !load_jump_sites(pc, im, err) || !load_fixup_sites(pc, im, err) ||
        !linuxpatch_load(pc, im, err))
        return false;
    codewatch_listen(&cl->cw, patchcheck_on_write, pc);
    return true;
}

void patchcheck_destroy(PatchCheck *pc)
{
    free(pc->sites);
    free(pc->segs);
    free(pc->alt);
    for (size_t i = 0; i < pc->nv; i++)
        free(pc->v[i].what);
    free(pc->v);
    if (pc->cs_ok) {
        csh h = (csh)pc->cs;
        cs_close(&h);
    }
    memset(pc, 0, sizeof *pc);
}

/* ------------------------------------------------------------------ checkpoints */

/* Raise when a field is added to either table or the violations (base/state.h). */
#define PATCHCHECK_STATE_VERSION 2u

/* A site's state beside what the image fixes (addr, len, kind, target, orig). */
static const StateField site_fields[] = {
    STATE_ARRAY(PatchSite, form),
    STATE_FIELD(PatchSite, transitions),
    STATE_ARRAY_UPTO(PatchSite, hist, FORM_COUNT - 1),
    STATE_UPTO(PatchSite, nhist, ARRAY_SIZE(((PatchSite *)0)->hist)),
    STATE_BOOL(PatchSite, torn),
    STATE_BOOL(PatchSite, int3),
    STATE_BOOL(PatchSite, tail),
    STATE_FIELD(PatchSite, w_cpu),
    STATE_FIELD(PatchSite, w_pc),
    STATE_FIELD(PatchSite, w_cycle),
    STATE_FIELD(PatchSite, step_cycle),
};

static const StateField check_fields[] = {
    STATE_FIELD(PatchCheck, last_site),
    STATE_FIELD(PatchCheck, patches),
    STATE_FIELD(PatchCheck, writes),
    STATE_BOOL_V(PatchCheck, init_freed, 2),
    STATE_ARRAY_V(PatchCheck, kind_writes, 2),
    STATE_FIELD_V(PatchCheck, freed_writes, 2),
    STATE_FIELD_V(PatchCheck, stray_writes, 2),
};

/* A CPU number as saved: -1 (none) or a CPU of this machine. */
static bool cpu_ok(const PatchCheck *pc, int cpu)
{
    return cpu >= -1 && cpu < (pc->cl ? pc->cl->ncpus : 0);
}

void patchcheck_save(const PatchCheck *pc, Blob *b)
{
    size_t at = blob_begin(b, "patchcheck", PATCHCHECK_STATE_VERSION);
    blob_u32(b, (uint32_t)pc->n);
    for (int i = 0; i < pc->n; i++) {
        const PatchSite *s = &pc->sites[i];
        blob_u64(b, s->addr);
        blob_u8(b, s->len);
        blob_u8(b, s->kind);
        blob_fields(b, s, site_fields, ARRAY_SIZE(site_fields));
    }
    blob_fields(b, pc, check_fields, ARRAY_SIZE(check_fields));
    blob_u32(b, (uint32_t)pc->nv);
    for (size_t i = 0; i < pc->nv; i++) {
        const PatchViolation *v = &pc->v[i];
        blob_u32(b, (uint32_t)v->cpu);
        blob_u64(b, v->cycle);
        blob_u64(b, v->pc);
        blob_u64(b, v->addr);
        blob_str(b, v->what);
    }
    blob_end(b, at);
}

static bool load_site(PatchCheck *pc, PatchSite *s, BlobReader *r)
{
    uint64_t addr = br_u64(r);
    uint8_t len = br_u8(r), kind = br_u8(r);
    if (r->ok && (addr != s->addr || len != s->len || kind != s->kind))
        return br_fail(r, "a patch site the image does not have");
    PatchSite t = *s;               /* loaded aside: a bad value leaves the site as it was */
    if (!br_fields(r, &t, site_fields, ARRAY_SIZE(site_fields)))
        return false;
    if (!cpu_ok(pc, t.w_cpu) || t.nhist > t.transitions + 1u)
        return br_fail(r, "patch site writer");
    *s = t;
    return true;
}

/* The violations, appended in their order (the summary lists them so). */
static bool load_violations(PatchCheck *pc, BlobReader *r)
{
    uint32_t nv = br_count(r, 32, UINT32_MAX, "violation count")    /* cpu .. addr, the text's length */;
    for (uint32_t i = 0; i < nv && r->ok; i++) {
        int cpu = (int)br_u32(r);
        uint64_t cycle = br_u64(r), wpc = br_u64(r), addr = br_u64(r);
        char *what = br_str(r, 1024, "violation text");
        if (r->ok && !cpu_ok(pc, cpu))
            br_fail(r, "violation cpu");
        if (!r->ok) {
            free(what);
            break;
        }
        if (pc->nv == pc->vcap) {
            pc->vcap = pc->vcap ? 2 * pc->vcap : 16;
            pc->v = xrealloc(pc->v, pc->vcap * sizeof *pc->v);
        }
        pc->v[pc->nv++] = (PatchViolation){ cpu, cycle, wpc, addr, what };
    }
    return r->ok;
}

bool patchcheck_load(PatchCheck *pc, BlobReader *r)
{
    BrOuter outer;
    if (!br_begin(r, &outer, "patchcheck", PATCHCHECK_STATE_VERSION))
        return false;
    if (br_u32(r) != (uint32_t)pc->n)
        return br_fail(r, "another set of patch sites");
    for (int i = 0; i < pc->n && r->ok; i++)
        load_site(pc, &pc->sites[i], r);
    if (!r->ok || !br_fields(r, pc, check_fields, ARRAY_SIZE(check_fields)))
        return false;
    if (pc->last_site < -1 || pc->last_site >= pc->n)
        return br_fail(r, "last_site");
    for (size_t i = 0; i < pc->nv; i++)         /* the restored list replaces this run's */
        free(pc->v[i].what);
    pc->nv = 0;
    return load_violations(pc, r) && br_end(r, &outer);
}

void patchcheck_finish(PatchCheck *pc)
{
    for (int i = 0; i < pc->n; i++) {
        PatchSite *s = &pc->sites[i];
        if (s->int3) {
            char sym[128];
            patchcheck_violation(pc, s->w_cpu, s->w_cycle, s->w_pc, link_of(pc, s->addr), "INT3 protocol: %s still holds the INT3 at the end",
                      site_name(pc, s, sym, sizeof sym));
            s->int3 = false;
        }
        check_left_torn(pc, i);
    }
}

void patchcheck_report(const PatchCheck *pc, FILE *f)
{
    int count[PATCH_KINDS] = { 0 }, patched = 0;
    for (int i = 0; i < pc->n; i++) {
        count[pc->sites[i].kind]++;
        patched += pc->sites[i].transitions > 0;
    }
    fprintf(f, "patching: %d sites (%d ftrace, %d jump_label", pc->n, count[PATCH_FTRACE], count[PATCH_JUMP]);
    for (int k = PATCH_FIXUP; k < PATCH_KINDS; k++)
        if (count[k])
            fprintf(f, ", %d %s", count[k], kind_names[k]);
    fprintf(f, "), %" PRIu64 " code writes, %" PRIu64 " patches, %zu violations\n", pc->writes, pc->patches, pc->nv);
    if (pc->linux_tables)
        fprintf(f, "linux: %" PRIu64 " ftrace, %" PRIu64 " jump_label, %" PRIu64 " alternatives, %" PRIu64
                   " runtime_const, %" PRIu64 " hyp_reloc, %" PRIu64 " freed-init, %" PRIu64 " unexplained\n",
                pc->kind_writes[PATCH_FTRACE] + pc->kind_writes[PATCH_OPS], pc->kind_writes[PATCH_JUMP],
                pc->kind_writes[PATCH_ALT] + pc->kind_writes[PATCH_ALT_CB], pc->kind_writes[PATCH_RTCONST],
                pc->kind_writes[PATCH_HYP], pc->freed_writes, pc->stray_writes);
    int listed[PATCH_KINDS] = { 0 };
    for (int i = 0; i < pc->n; i++) {
        const PatchSite *s = &pc->sites[i];
        if (!s->transitions || (pc->linux_tables && listed[s->kind]++ >= PATCH_LINUX_LISTED))
            continue;
        char sym[128], forms[256] = "";
        size_t used = 0;
        for (unsigned k = 0; k < s->nhist && used < sizeof forms; k++)
            used += (size_t)snprintf(forms + used, sizeof forms - used, "%s%s", k ? " -> " : "", form_names[s->hist[k]]);
        if (s->transitions + 1u > s->nhist && used < sizeof forms)
            snprintf(forms + used, sizeof forms - used, " -> ... (%u more)", s->transitions + 1u - s->nhist);
        fprintf(f, "  site 0x%08" PRIx64 " %-28s %-10s %2uB %u: %s\n", link_of(pc, s->addr),
                trace_describe(pc->cl->trace, link_of(pc, s->addr), sym, sizeof sym), kind_names[s->kind], s->len, s->transitions, forms);
    }
    for (int k = 0; k < PATCH_KINDS; k++)
        if (listed[k] > PATCH_LINUX_LISTED)
            fprintf(f, "  %d more %s sites patched\n", listed[k] - PATCH_LINUX_LISTED, kind_names[k]);
    if (patched < pc->n)
        fprintf(f, "  %d sites never patched\n", pc->n - patched);
    for (size_t i = 0; i < pc->nv; i++) {
        const PatchViolation *v = &pc->v[i];
        char sym[128];
        fprintf(f, "violation: cpu %d cycle %" PRIu64 " pc 0x%" PRIx64 " <%s>: %s\n", v->cpu, v->cycle, v->pc,
                trace_describe(pc->cl->trace, v->pc, sym, sizeof sym), v->what);
    }
}
