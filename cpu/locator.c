/* locator.c — the access locator: which instruction of the current block made a memory or
 * I/O access (vcpu_access_pc, cpu.h). */
#include "cpu/cpu.h"

#include <string.h>

#include "base/mem.h"

/* Registers are synchronised to the engine state at every memory and I/O access (TCG syncs
 * globals before operations with side effects), so the instruction that made an access is the
 * first one of the current block, from where the previous access was found, whose operands
 * address it.  Consecutive pieces of one access (a 64-bit MMIO access arrives as two 32-bit
 * callbacks; ldp/stp) match the same instruction because their addresses ascend. */
/* Does instruction i of block e make the access? */
static bool insn_makes_access(Cpu *c, const BlockEntry *e, const uint8_t *bytes, uint32_t i, AccessKind kind,
                              uint64_t addr, unsigned size)
{
    cs_insn *insn = NULL;
    size_t got = cs_disasm(c->cs, bytes + e->info[i].off, e->info[i].len, e->pc + e->info[i].off, 1, &insn);
    bool hit = got == 1 && c->ops->insn_accesses(c, insn, kind, addr, size);
    if (insn)
        cs_free(insn, got);
    return hit;
}

static uint64_t access_found(Cpu *c, const BlockEntry *e, uint32_t i, AccessKind kind, uint64_t addr)
{
    c->acc.idx = i + 1;
    c->acc.last = e->pc + e->info[i].off;
    c->acc.kind = kind;
    c->acc.addr = addr;
    return c->acc.last;
}

static uint64_t locate(Cpu *c, AccessKind kind, uint64_t addr, unsigned size)
{
    BlockEntry *e = c->blk;
    if (c->acc.in_trap)
        return c->acc.trap_pc;
    if (!e)
        return c->ops->get_pc(c);
    if (c->cut.active)                  /* the code hook has just counted the executing instruction */
        return e->pc + e->info[c->blk_counted ? c->blk_counted - 1 : 0].off;
    /* A new execution of a block resets the cursor.  The count before the block identifies the
     * execution: it moves on at every block start and not within one (a tail instruction
     * counted by hook_tail, a retirement adjustment move insns and blk_counted together). */
    uint64_t gen = c->insns - c->blk_counted;
    if (c->acc.blk != e || c->acc.gen != gen) {
        c->acc.blk = e;
        c->acc.gen = gen;
        c->acc.idx = 0;
        c->acc.last = UINT64_MAX;
    }
    if (c->acc.last != UINT64_MAX && c->acc.kind == kind && addr > c->acc.addr &&
        addr < c->acc.addr + 16) {
        c->acc.addr = addr;
        return c->acc.last;
    }
    const uint8_t *bytes = vcpu_fetch_bytes(c, e->pc, e->size);
    if (!bytes)
        return e->pc;
    /* A read-modify-write instruction (add %al,(%rax), xchg, a locked operation) reads its
     * operand, then writes it back: the write belongs to the instruction that made the read
     * if that one writes there too, not to the next that does (a run of such instructions on
     * one device register drifted two instructions per instruction). */
    if (kind == ACC_WRITE && c->acc.last != UINT64_MAX && c->acc.kind == ACC_READ &&
        insn_makes_access(c, e, bytes, c->acc.idx - 1, kind, addr, size))
        return access_found(c, e, c->acc.idx - 1, kind, addr);
    /* On arm64 and ppc32 only the instructions of a memory class (InsnInfo.mem, from the
     * decode) touch memory: their branches, cache and barrier operations do not, and DC ZVA and
     * dcbz are trap sites.  So a Linux boot's code writes disassemble their candidates, not
     * every instruction before them.  x86's calls, pushes and string instructions are not all
     * in a memory class: it tries every instruction, as the others do if no candidate is it. */
    for (bool any = c->ops->arch == ARCH_X86_64;; any = true) {
        for (uint32_t i = c->acc.idx; i < e->n; i++)
            if ((any || e->info[i].mem) && insn_makes_access(c, e, bytes, i, kind, addr, size))
                return access_found(c, e, i, kind, addr);
        if (any)
            break;
    }
    /* Not found (an access the matcher does not understand): the block start is the best we
     * can say, and it is deterministic. */
    return e->pc;
}


uint64_t vcpu_access_pc(Cpu *c, AccessKind kind, uint64_t addr, unsigned size)
{
    bool cur = c->acc.active && kind == c->acc.cur_kind && addr == c->acc.cur_addr;
    if (cur && c->acc.cur_pc != UINT64_MAX)
        return c->acc.cur_pc;       /* asked again about the access at hand */
    uint64_t pc = locate(c, kind, addr, size);
    if (cur)
        c->acc.cur_pc = pc;
    return pc;
}

void vcpu_access_begin(Cpu *c, AccessKind kind, uint64_t addr, unsigned size)
{
    c->acc.active = true;
    c->acc.cur_kind = kind;
    c->acc.cur_addr = addr;
    c->acc.cur_size = size;
    c->acc.cur_pc = UINT64_MAX;
}

void vcpu_insn_begin(Cpu *c, uint64_t pc)
{
    vcpu_access_begin(c, ACC_READ, UINT64_MAX, 0);
    c->acc.cur_pc = pc;
}

void vcpu_access_end(Cpu *c)
{
    c->acc.active = false;
}

uint64_t vcpu_access_current(Cpu *c)
{
    if (!c->acc.active)
        return UINT64_MAX;
    return vcpu_access_pc(c, c->acc.cur_kind, c->acc.cur_addr, c->acc.cur_size);
}
