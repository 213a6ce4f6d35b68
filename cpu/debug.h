/* debug.h — run control for a debugger (the GDB stub, sim/gdbstub.c): breakpoints, watchpoints,
 * exact single-step, with the machine paused between two instructions of a CPU.
 *
 * Nothing here changes what the guest does: a run with stops is the run without them
 * (docs/debugging.md, tests/e2e/test_gdb.sh).  How each is done, so that "no debugger" and
 * "a debugger with nothing set" cost nothing on the block fast path:
 *   breakpoint  (gdb Z0 and Z1 alike) a trap site of kind TRAP_KIND_DEBUG at the virtual PC
 *               (cpu.c: the block decoder asks vcpu_debug_break_at), so the CPU stops before
 *               the instruction with its counts exact; guest memory is never written.
 *   step        a hard instruction limit at insns + 1 (CpuDebug.until), the core's exact cut.
 *   watchpoint  (Z2 write, Z3 read, Z4 access) engine memory hooks over the watched ranges and,
 *               while any exists, a code hook on every instruction that stops before the
 *               instruction after the access: the access has retired.  Stores to code pages
 *               come through the code-write chokepoint too (they are performed by pmusim).
 * Every stop ends the engine run (STOP_PRECISE) and vcpu_run calls ClusterDebug.stopped
 * between runs, where the debugger may look at and change anything, then resumes.
 */
#ifndef PMUSIM_DEBUG_H
#define PMUSIM_DEBUG_H

#include "base/common.h"
#include "cpu/debugstate.h"

typedef struct Cluster Cluster;

/* Breakpoints and watchpoints, for every CPU (false: the table is full, or not set). */
bool vcpu_debug_break(Cluster *cl, uint64_t pc, bool set);
bool vcpu_debug_watch(Cluster *cl, WatchKind kind, uint64_t addr, uint64_t len, bool set);
void vcpu_debug_clear(Cluster *cl);
/* Is there a breakpoint at pc? (the block decoder, the trap hook) */
bool vcpu_debug_break_at(const Cluster *cl, uint64_t pc);
/* Resume c: one more instruction then stop (step), or run on; a breakpoint at the current PC is
 * passed once. */
void vcpu_debug_resume(Cpu *c, bool step);
/* Report and clear c's pending stop (vcpu_run, between engine runs). */
void vcpu_debug_report(Cpu *c);
/* A code write the chokepoint recorded (codewatch listener): a watched store to code. */
void vcpu_debug_code_write(Cpu *c, uint64_t pa, uint64_t va, unsigned size);

/* --- the core's side (cpu.c) --- */
/* From the trap hook, counts exact up to pc: is there a breakpoint to stop at (c->dbg.stop set)? */
bool vcpu_debug_break_hit(Cpu *c, uint64_t pc);
/* From a code hook: end the engine run before the instruction at pc, which does not retire. */
void vcpu_stop_before(Cpu *c, uint64_t pc);

#endif
