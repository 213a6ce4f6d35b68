/* text_poke.h — writing code while it may run (Linux: text_poke / patch_instruction), the
 * architecture's way (arch/<arch>/ftrace.c): x86 the INT3 protocol with IPI syncs once other
 * CPUs are online; arm64 and ppc32 a word store and the cache maintenance the architecture
 * requires.  Also the per-architecture setup the patching needs. */
#ifndef GUEST_TEXT_POKE_H
#define GUEST_TEXT_POKE_H

#include "guest.h"

void text_poke(unsigned long addr, const u8 *bytes, unsigned len);

#if defined(__aarch64__)
#define ARCH_NOP_INSN   0xd503201fu
#elif defined(__powerpc__)
#define ARCH_NOP_INSN   0x60000000u
#endif
/* arm64 / ppc32: `b to` (or `bl to`) placed at `at`. */
u32 arch_branch_insn(unsigned long at, unsigned long to, bool link);
/* arm64 / ppc32: the word at `at` must be `old`; it becomes `new` (text_poke).  0 or -1. */
int ftrace_modify_word(unsigned long at, u32 old, u32 new);

/* Where an enabled site's call is, from the site: arm64 the second of its two instructions. */
#if defined(__aarch64__)
#define FTRACE_CALL_OFFSET  4
#else
#define FTRACE_CALL_OFFSET  0
#endif
/* Boot CPU, before the secondaries start (x86: the INT3 and IPI handlers, the APIC). */
void ftrace_arch_init(void);
/* Every CPU, the boot CPU included (x86: its APIC, interrupts on for the sync IPIs). */
void ftrace_arch_cpu_init(unsigned cpu);
/* The rate of arch_trace_clock() from the device tree (or the CPU), 0 if unknown. */
u64 ftrace_arch_clock_hz(void);

#endif
