/* kallsyms-init.c — a freestanding Linux /init (no libc: raw system calls) for arm64 and x86-64,
 * for test_kallsyms.sh and test_linux_x86_syms.sh: mounts proc, copies /proc/kallsyms to the
 * console between the lines KSTART and KEND, and powers the machine off.  Built with -nostdlib
 * -static, packed into a newc cpio by the tests.
 * arm64: system call numbers from include/uapi/asm-generic/unistd.h (arm64 uses the generic
 * table); number in x8, arguments in x0-x5, `svc #0` (arch/arm64/kernel/entry-common.c).
 * x86-64: arch/x86/entry/syscalls/syscall_64.tbl; number in rax, arguments in rdi, rsi, rdx,
 * r10, `syscall`, which clobbers rcx and r11 (arch/x86/entry/entry_64.S). */
#if defined(__x86_64__)
#define SYS_MKDIRAT 258
#define SYS_MOUNT 165
#define SYS_OPENAT 257
#define SYS_READ 0
#define SYS_WRITE 1
#define SYS_REBOOT 169
#else
#define SYS_MKDIRAT 34
#define SYS_MOUNT 40
#define SYS_OPENAT 56
#define SYS_READ 63
#define SYS_WRITE 64
#define SYS_REBOOT 142
#endif
#define AT_FDCWD (-100)
#define O_RDONLY 0
#define O_WRONLY 1
#define LINUX_REBOOT_MAGIC1 0xfee1deadL     /* include/uapi/linux/reboot.h */
#define LINUX_REBOOT_MAGIC2 672274793L
#define LINUX_REBOOT_CMD_POWER_OFF 0x4321fedcL

#if defined(__x86_64__)
static long sys(long n, long a, long b, long c, long d)
{
    register long r10 __asm__("r10") = d;
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
    return ret;
}
#else
static long sys(long n, long a, long b, long c, long d)
{
    register long x8 __asm__("x8") = n;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
    return x0;
}
#endif

static void say(long fd, const char *s)
{
    long n = 0;
    while (s[n])
        n++;
    sys(SYS_WRITE, fd, (long)s, n, 0);
}

static char buf[65536];

void _start(void)
{
    sys(SYS_MKDIRAT, AT_FDCWD, (long)"/proc", 0555, 0);
    sys(SYS_MOUNT, (long)"proc", (long)"/proc", (long)"proc", 0);
    long in = sys(SYS_OPENAT, AT_FDCWD, (long)"/proc/kallsyms", O_RDONLY, 0);
    long out = sys(SYS_OPENAT, AT_FDCWD, (long)"/dev/console", O_WRONLY, 0);
    if (out < 0)
        out = 1;                    /* the console the kernel opened for init (init/main.c) */
    say(out, "\nKSTART\n");    /* on a line of its own, whatever the console printed last */
    for (long n; (n = sys(SYS_READ, in, (long)buf, sizeof buf, 0)) > 0;)
        sys(SYS_WRITE, out, (long)buf, n, 0);
    say(out, "KEND\n");
    sys(SYS_REBOOT, LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2, LINUX_REBOOT_CMD_POWER_OFF, 0);
    for (;;)
        ;
}
