/* ftrace.c (ppc32) — call sites and code patching (Linux: arch/powerpc/kernel/trace/ftrace.c,
 * arch/powerpc/lib/code-patching.c).
 *
 * A site is the `bl _mcount` of `-pg` (its address comes from the build: guest/mcount.sh makes
 * `__mcount_loc` from the link's `_mcount` relocations), the NOP 0x60000000, or
 * `bl ftrace_caller`.  A patch is one word store followed by what makes it visible to instruction
 * fetch: dcbst (the data cache block to memory), sync, icbi (invalidate the instruction cache
 * block), isync (MPC7450 RM 2.3.3 and 5.1.5.2, "instruction cache coherency"). */
#include "fdt.h"
#include "ftrace.h"
#include "text_poke.h"

#define PPC_NOP ARCH_NOP_INSN

extern const char _mcount[];

notrace u32 arch_branch_insn(unsigned long at, unsigned long to, bool link)
{
    return 0x48000000u | ((u32)(to - at) & 0x03fffffcu) | (link ? 1u : 0u);
}

notrace void text_poke(unsigned long addr, const u8 *bytes, unsigned len)
{
    u32 insn;
    memcpy(&insn, bytes, 4);
    *(volatile u32 *)addr = insn;
    if (!ftrace_bug("no-icache"))
        asm volatile("dcbst 0, %0\n\tsync\n\ticbi 0, %0\n\tsync\n\tisync" : : "r"(addr) : "memory");
}

notrace void ftrace_arch_init(void) {}
notrace void ftrace_arch_cpu_init(unsigned cpu) {}

notrace u64 ftrace_arch_clock_hz(void)
{
    int node = boot_fdt ? fdt_first_cpu(boot_fdt) : -1, len;
    const void *p = node >= 0 ? fdt_prop(boot_fdt, node, "timebase-frequency", &len) : NULL;
    return p && (len == 4 || len == 8) ? fdt_read_cells(p, len / 4) : 0;
}

notrace int ftrace_make_nop(struct dyn_ftrace *rec)
{
    return ftrace_modify_word(rec->ip, arch_branch_insn(rec->ip, (unsigned long)_mcount, true), PPC_NOP);
}
