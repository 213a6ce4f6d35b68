/* arch/x86_64/sys.h — the init's system calls on x86-64 Linux.
 *
 * The calling convention (Linux arch/x86/entry/entry_64.S, "64-bit SYSCALL instruction entry";
 * the x86-64 psABI, A.2.1): the number in rax, up to six arguments in rdi, rsi, rdx, r10, r8, r9
 * (r10, not rcx: SYSCALL overwrites rcx with the return address and r11 with RFLAGS), `syscall`;
 * the result, or -errno, in rax.  The numbers are x86-64's own table
 * (arch/x86/entry/syscalls/syscall_64.tbl, the "common" and "64" ABIs).
 */
#ifndef INIT_ARCH_SYS_H
#define INIT_ARCH_SYS_H

#define SYS_read            0
#define SYS_write           1
#define SYS_close           3
#define SYS_lseek           8
#define SYS_mmap            9
#define SYS_munmap          11
#define SYS_ioctl           16
#define SYS_nanosleep       35
#define SYS_getpid          39
#define SYS_clone           56
#define SYS_exit            60
#define SYS_wait4           61
#define SYS_mount           165
#define SYS_reboot          169
#define SYS_sched_setaffinity 203
#define SYS_openat          257
#define SYS_mkdirat         258
#define SYS_pipe2           293
#define SYS_perf_event_open 298

static inline long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
    register long rax __asm__("rax") = nr;
    register long rdi __asm__("rdi") = a;
    register long rsi __asm__("rsi") = b;
    register long rdx __asm__("rdx") = c;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    __asm__ volatile("syscall"
                     : "+r"(rax)
                     : "r"(rdi), "r"(rsi), "r"(rdx), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory", "cc");
    return rax;
}

/* The perf step's measured user code (start.S, measured_loop): every user instruction between
 * the ENABLE and the DISABLE ioctl is known.  Counted at CPL 3 (exclude_kernel: the USR bit of
 * the counter's IA32_PERFEVTSELx or IA32_FIXED_CTR_CTRL field, Intel SDM vol. 3B §20.2.1.1) after
 * the ENABLE call returns: the kernel's SYSRET executes at CPL 0 (not counted), then 2 per
 * iteration (dec, jnz: two instructions retired even where the core fuses them into one
 * micro-op), then the DISABLE call's three movs and its SYSCALL,
 * which retires at CPL 3 (the switch to CPL 0 is its effect, as an SVC is at EL0 on arm64).  The
 * disassembly that shows these (objdump -d build/guest/x86_64/init, measured_loop):
 *     mov %rdx,%r10; mov %r8,%rdx; mov %rcx,%r8; mov %rdi,%r9; mov $16,%eax; syscall   (ENABLE)
 *   measured_loop_body: dec %r8; jne measured_loop_body
 *   measured_loop_end:  mov %r9,%rdi; mov %r10,%rsi; mov $16,%eax; syscall            (DISABLE)
 *     ret */
#define LOOP_INSNS_PER_ITER 2
#define LOOP_FIXED_INSNS (3 + 1)

/* What the dmesg step looks for in the kernel's log (arch/x86/events/core.c, init_hw_perf_events:
 * "Performance Events: ..." names the PMU driver, or says there is none; kernel/watchdog_perf.c:
 * "NMI watchdog: ..."; arch/x86/kernel/apic/io_apic.c "IOAPIC[0]: ..."; arch/x86/kernel/tsc.c
 * "tsc: ..."; the 16550's "ttyS0 at I/O 0x3f8").  The step passes when the PMU line is there. */
#define ARCH_DMESG_KEYS "Performance Events", "NMI watchdog", "IOAPIC", "tsc: ", "ttyS"
#define ARCH_DMESG_PMU "Performance Events"

#endif
