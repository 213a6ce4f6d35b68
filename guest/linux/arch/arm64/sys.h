/* arch/arm64/sys.h — the init's system calls on AArch64 Linux.
 *
 * The calling convention (Linux, Documentation/arch/arm64/ and arch/arm64/kernel/syscall.c,
 * el0_svc -> invoke_syscall): the number in x8, up to six arguments in x0..x5, `svc #0`; the
 * result, or -errno, in x0.  The numbers are asm-generic's (include/uapi/asm-generic/unistd.h),
 * which arm64 uses unchanged.
 */
#ifndef INIT_ARCH_SYS_H
#define INIT_ARCH_SYS_H

#define SYS_ioctl           29
#define SYS_mkdirat         34
#define SYS_mount           40
#define SYS_openat          56
#define SYS_close           57
#define SYS_pipe2           59
#define SYS_lseek           62
#define SYS_read            63
#define SYS_write           64
#define SYS_exit            93
#define SYS_nanosleep       101
#define SYS_sched_setaffinity 122
#define SYS_reboot          142
#define SYS_getpid          172
#define SYS_munmap          215
#define SYS_clone           220
#define SYS_mmap            222
#define SYS_perf_event_open 241
#define SYS_wait4           260

/* asm-generic has no open(2) nor fork(2): openat(AT_FDCWD, ...) and clone(SIGCHLD, 0, ...). */
#define ARCH_HAS_OPEN 0
#define ARCH_HAS_FORK 0

static inline long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
    register long x8 __asm__("x8") = nr;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    register long x4 __asm__("x4") = e;
    register long x5 __asm__("x5") = f;
    __asm__ volatile("svc #0"
                     : "+r"(x0)
                     : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
                     : "memory", "cc");
    return x0;
}

/* The perf step's measured user code (start.S, measured_loop): every user instruction between
 * the ENABLE and the DISABLE ioctl is known.  Counted at EL0 (exclude_kernel) after the ENABLE
 * call returns: 2 per iteration (subs, b.ne), then the DISABLE call's four movs and its svc (an
 * SVC is architecturally executed at EL0, so INST_RETIRED counts it there: Arm ARM, "The PMU
 * event INST_RETIRED"). */
#define LOOP_INSNS_PER_ITER 2
#define LOOP_FIXED_INSNS (4 + 1)

/* What the dmesg step looks for in the kernel's log (drivers/perf/arm_pmu.c "hw perfevents: ...",
 * the GIC's, arch timer's and PL011's probe lines).  The step passes when the PMU line is there. */
#define ARCH_DMESG_KEYS "hw perfevents", "GIC", "arch_timer", "ttyAMA", "pl011"
#define ARCH_DMESG_PMU "hw perfevents"

#endif
