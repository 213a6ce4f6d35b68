/* ftrace.c (x86_64) — call sites and text_poke (Linux: arch/x86/kernel/ftrace.c, alternative.c).
 *
 * A site is the 5-byte `call __fentry__` the compiler emitted, the 5-byte NOP 0f 1f 44 00 00, or
 * `call ftrace_caller`.  Each change checks the old bytes first (ftrace_verify_code).  While only
 * the boot CPU runs, text_poke writes the bytes directly (text_poke_early).  With other CPUs
 * online it is text_poke_bp: INT3 over the first byte, sync every CPU, the tail, sync, the first
 * byte, sync; a CPU that hits the INT3 meanwhile executes the instruction being written, as
 * Linux's poke_int3_handler does: a jump is taken, a NOP skipped, and a call pushes its return
 * address (int3_emulate_call) into the 8-byte gap the CPU leaves between the interrupted stack
 * and the exception frame when it aligns RSP — always there at a function's entry, where RSP is
 * 8 mod 16; elsewhere the call is skipped (Linux's ftrace_int3_handler before 5.6).  A sync is an IPI every other CPU must
 * take (an interrupt serialises it) before the patching CPU goes on (text_poke_sync). */
#include "fdt.h"
#include "ftrace.h"
#include "lapic.h"
#include "smp.h"
#include "text_poke.h"
#include "trap.h"

#define MCOUNT_INSN_SIZE    5
#define SYNC_CORE_VECTOR    0xfb        /* Linux's CALL_FUNCTION_VECTOR */
#define APIC_DEST_ALLBUT    0xc0000u    /* ICR destination shorthand: all excluding self */
#define APIC_ICR_BUSY       0x1000u

static const u8 ideal_nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

extern const char __fentry__[];

/* text_poke_bp's state, for the INT3 handler. */
static volatile unsigned long bp_addr;
static u8 bp_insn[8];
static unsigned bp_len;

static unsigned sync_gen;                       /* text_poke_sync generations */
static unsigned sync_seen[MAX_CPUS];            /* the last each CPU acknowledged */

notrace static void call_insn(u8 *buf, unsigned long ip, unsigned long target)
{
    s32 rel = (s32)(target - (ip + MCOUNT_INSN_SIZE));
    buf[0] = 0xe8;
    memcpy(buf + 1, &rel, 4);
}

notrace static void poke_bytes(unsigned long addr, const u8 *bytes, unsigned len)
{
    volatile u8 *p = (volatile u8 *)addr;
    for (unsigned i = 0; i < len; i++)
        p[i] = bytes[i];
}

notrace static void sync_core_ipi(struct trap_frame *f)
{
    __atomic_store_n(&sync_seen[smp_processor_id()], __atomic_load_n(&sync_gen, __ATOMIC_ACQUIRE),
                     __ATOMIC_RELEASE);
    apic_eoi();
}

/* Every other online CPU takes an interrupt (which serialises it) before this returns. */
notrace static void text_poke_sync(void)
{
    unsigned gen = __atomic_add_fetch(&sync_gen, 1, __ATOMIC_ACQ_REL), me = smp_processor_id();

    apic_write(APIC_ICR2, 0);
    apic_write(APIC_ICR, APIC_DEST_ALLBUT | SYNC_CORE_VECTOR);
    for (unsigned cpu = 0; cpu < nr_cpus; cpu++)
        while (cpu != me && cpu_online(cpu) && __atomic_load_n(&sync_seen[cpu], __ATOMIC_ACQUIRE) != gen)
            cpu_relax();
}

notrace void text_poke(unsigned long addr, const u8 *bytes, unsigned len)
{
    if (num_online_cpus() == 1 || ftrace_bug("no-int3")) {  /* text_poke_early */
        poke_bytes(addr, bytes, len);
        return;
    }
    static const u8 int3 = 0xcc;
    memcpy(bp_insn, bytes, len);
    bp_len = len;
    __atomic_store_n(&bp_addr, addr, __ATOMIC_RELEASE);
    poke_bytes(addr, &int3, 1);
    text_poke_sync();
    if (len > 1) {
        poke_bytes(addr + 1, bytes + 1, len - 1);
        text_poke_sync();
    }
    poke_bytes(addr, bytes, 1);
    text_poke_sync();
    __atomic_store_n(&bp_addr, 0, __ATOMIC_RELEASE);
}

/* #BP at a site being patched: go on as if it held the new instruction. */
notrace static void poke_int3_handler(struct trap_frame *f)
{
    unsigned long addr = __atomic_load_n(&bp_addr, __ATOMIC_ACQUIRE);

    if (!addr || f->rip - 1 != addr)
        panic("int3 at 0x%lx outside text_poke", f->rip - 1);
    if (bp_insn[0] == 0xe9) {
        f->rip = addr + 5 + (unsigned long)(long)*(s32 *)(bp_insn + 1);
    } else if (bp_insn[0] == 0xeb) {
        f->rip = addr + 2 + (unsigned long)(long)(signed char)bp_insn[1];
    } else if (bp_insn[0] == 0xe8 && (f->rsp & 15) == 8) {     /* int3_emulate_call */
        f->rsp -= 8;
        *(unsigned long *)f->rsp = addr + 5;
        f->rip = addr + 5 + (unsigned long)(long)*(s32 *)(bp_insn + 1);
    } else {
        f->rip = addr + bp_len;                 /* a NOP, or a call skipped */
    }
}

notrace void ftrace_arch_init(void)
{
    trap_set_handler(3, poke_int3_handler);
    trap_set_handler(SYNC_CORE_VECTOR, sync_core_ipi);
    if (!lapic_init())
        panic("ftrace: no local APIC for text_poke_sync");
}

notrace void ftrace_arch_cpu_init(unsigned cpu)
{
    setup_local_APIC();
    asm volatile("sti" ::: "memory");
}

/* The TSC runs at the first cpu node's clock-frequency (as the watchdog guest's tsc_init). */
notrace u64 ftrace_arch_clock_hz(void)
{
    int node = boot_fdt ? fdt_first_cpu(boot_fdt) : -1, len;
    const void *p = node >= 0 ? fdt_prop(boot_fdt, node, "clock-frequency", &len) : NULL;
    return p && (len == 4 || len == 8) ? fdt_read_cells(p, len / 4) : 0;
}

notrace static int ftrace_modify_code(unsigned long ip, const u8 *old, const u8 *new)
{
    if (memcmp((const void *)ip, old, MCOUNT_INSN_SIZE))
        return -1;
    text_poke(ip, new, MCOUNT_INSN_SIZE);
    return 0;
}

notrace int ftrace_make_nop(struct dyn_ftrace *rec)
{
    static const u8 two_nops[5] = { 0x66, 0x90, 0x0f, 0x1f, 0x00 };    /* bad-nop-size */
    u8 old[MCOUNT_INSN_SIZE];
    call_insn(old, rec->ip, (unsigned long)__fentry__);
    return ftrace_modify_code(rec->ip, old, ftrace_bug("nop-size") ? two_nops : ideal_nop5);
}

notrace int ftrace_make_call(struct dyn_ftrace *rec, unsigned long addr)
{
    u8 new[MCOUNT_INSN_SIZE];
    call_insn(new, rec->ip, addr);
    return ftrace_modify_code(rec->ip, ideal_nop5, new);
}

notrace int ftrace_make_nop_live(struct dyn_ftrace *rec, unsigned long addr)
{
    u8 old[MCOUNT_INSN_SIZE];
    call_insn(old, rec->ip, addr);
    return ftrace_modify_code(rec->ip, old, ideal_nop5);
}
