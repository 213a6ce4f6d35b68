/* ftrace.c (arm64) — call sites and code patching (Linux: arch/arm64/kernel/ftrace.c,
 * patching.c).
 *
 * A site is the function's two entry NOPs: the compiler's NOP; NOP, ftrace_init's
 * `mov x9, x30`; NOP (done while only the boot CPU runs: MOV may not change under another CPU),
 * and enabled `mov x9, x30`; `bl ftrace_caller`.  Enabling and disabling change only the second
 * instruction, NOP <-> BL, which the architecture allows while other CPUs may execute it (Arm ARM
 * B2.2.5).  Every patch is one 32-bit store followed by the maintenance that makes it visible to
 * instruction fetch on every CPU: DC CVAU, DSB ISH, IC IVAU, DSB ISH, ISB (the IC IVAU is
 * broadcast in the Inner Shareable domain; other CPUs synchronise their pipelines at their next
 * context synchronisation event, which is enough for a NOP/BL change). */
#include "ftrace.h"
#include "text_poke.h"

#define A64_NOP         ARCH_NOP_INSN
#define A64_MOV_X9_X30  0xaa1e03e9u

notrace u32 arch_branch_insn(unsigned long at, unsigned long to, bool link)
{
    return (link ? 0x94000000u : 0x14000000u) | ((u32)((long)(to - at) >> 2) & 0x03ffffffu);
}

notrace void text_poke(unsigned long addr, const u8 *bytes, unsigned len)
{
    u32 insn;
    memcpy(&insn, bytes, 4);
    *(volatile u32 *)addr = insn;
    if (!ftrace_bug("no-icache"))
        asm volatile("dc cvau, %0\n\tdsb ish\n\tic ivau, %0\n\tdsb ish\n\tisb" : : "r"(addr) : "memory");
}

notrace void ftrace_arch_init(void) {}
notrace void ftrace_arch_cpu_init(unsigned cpu) {}

notrace u64 ftrace_arch_clock_hz(void)
{
    u64 v;
    asm volatile("mrs %0, cntfrq_el0" : "=r"(v));
    return v;
}

/* Linux: ftrace_init_nop.  The second instruction must be the compiler's NOP too. */
notrace int ftrace_make_nop(struct dyn_ftrace *rec)
{
    if (*(volatile u32 *)(rec->ip + 4) != A64_NOP)
        return -1;
    return ftrace_modify_word(rec->ip, A64_NOP, A64_MOV_X9_X30);
}
