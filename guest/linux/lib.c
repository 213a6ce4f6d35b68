/* lib.c — the init's freestanding runtime (lib.h). */
#include "lib.h"

#define OUT_MAX 1024                    /* one formatted output line */
#define MMAP_ANY 0                      /* mmap's addr: the kernel chooses */

/* ------------------------------------------------------------------ system calls */

long sys_open(const char *path, int flags)
{
    return sys6(SYS_openat, AT_FDCWD, (long)path, flags, 0, 0, 0);
}

long sys_close(int fd) { return sys6(SYS_close, fd, 0, 0, 0, 0, 0); }
long sys_read(int fd, void *buf, size_t n) { return sys6(SYS_read, fd, (long)buf, (long)n, 0, 0, 0); }
long sys_write(int fd, const void *buf, size_t n) { return sys6(SYS_write, fd, (long)buf, (long)n, 0, 0, 0); }
long sys_lseek(int fd, long off, int whence) { return sys6(SYS_lseek, fd, off, whence, 0, 0, 0); }
long sys_pipe(int fd[2]) { return sys6(SYS_pipe2, (long)fd, 0, 0, 0, 0, 0); }
long sys_ioctl(int fd, unsigned long req, unsigned long arg) { return sys6(SYS_ioctl, fd, (long)req, (long)arg, 0, 0, 0); }
long sys_munmap(void *addr, size_t len) { return sys6(SYS_munmap, (long)addr, (long)len, 0, 0, 0, 0); }

long sys_mount(const char *src, const char *dir, const char *type)
{
    return sys6(SYS_mount, (long)src, (long)dir, (long)type, 0, 0, 0);
}

/* clone(SIGCHLD, no new stack): fork(2) as asm-generic spells it (kernel/fork.c, sys_clone). */
long sys_fork(void)
{
    return sys6(SYS_clone, SIGCHLD, 0, 0, 0, 0, 0);
}

long sys_wait(int *status)
{
    return sys6(SYS_wait4, -1, (long)status, 0, 0, 0, 0);
}

long sys_mmap_shared(int fd, size_t len, void **addr)
{
    long r = sys6(SYS_mmap, MMAP_ANY, (long)len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    /* an address in the top page (-4095..-1) is an error (include/linux/err.h) */
    if ((unsigned long)r >= (unsigned long)-READ_CHUNK)
        return r;
    *addr = (void *)r;
    return 0;
}

long sys_perf_event_open(void *attr, int pid, int cpu, int group_fd, unsigned long flags)
{
    return sys6(SYS_perf_event_open, (long)attr, pid, cpu, group_fd, (long)flags, 0);
}

long sys_pin_cpu(unsigned cpu)
{
    unsigned long mask = 1ul << cpu;                            /* cpu < 64 */
    return sys6(SYS_sched_setaffinity, 0, sizeof mask, (long)&mask, 0, 0, 0);
}

long sys_sleep_ns(long ns)
{
    long ts[2] = { ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };      /* struct timespec */
    return sys6(SYS_nanosleep, (long)ts, 0, 0, 0, 0, 0);
}

void sys_exit(int status)
{
    for (;;)
        sys6(SYS_exit, status, 0, 0, 0, 0, 0);
}

long sys_poweroff(void)
{
    return sys6(SYS_reboot, LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2, LINUX_REBOOT_CMD_POWER_OFF, 0, 0, 0);
}

/* ------------------------------------------------------------------ strings */

int str_starts(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

const char *str_find(const char *s, const char *needle)
{
    size_t n = strlen(needle);
    for (; *s; s++)
        if (!memcmp(s, needle, n))
            return s;
    return n ? NULL : s;
}

unsigned long str_to_ul(const char *s, int *ok)
{
    unsigned long v = 0;
    *ok = *s != 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') {
            *ok = 0;
            return 0;
        }
        v = v * 10 + (unsigned long)(*s - '0');
    }
    return v;
}

/* ------------------------------------------------------------------ formatted output */

typedef struct Sink {
    char *buf;
    size_t cap, len;
} Sink;

static void sink_put(Sink *s, char c)
{
    if (s->len + 1 < s->cap)
        s->buf[s->len] = c;
    s->len++;
}

/* v in base 10 or 16, at least `width` digits wide, padded with `padc` */
static void put_num(Sink *s, unsigned long long v, unsigned base, int width, char padc, int neg)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    if (neg)
        digits[n++] = '-';
    for (int i = n; i < width; i++)
        sink_put(s, padc);
    while (n)
        sink_put(s, digits[--n]);
}

static void put_str(Sink *s, const char *str, int width)
{
    int n = (int)strlen(str);
    for (int i = n; i < width; i++)
        sink_put(s, ' ');
    while (*str)
        sink_put(s, *str++);
}

/* One conversion after '%': flags, width, length, then the letter; returns past it. */
static const char *convert(Sink *s, const char *f, va_list *ap)
{
    char padc = *f == '0' ? '0' : ' ';
    int width = 0, lng = 0;
    while (*f >= '0' && *f <= '9')
        width = width * 10 + (*f++ - '0');
    while (*f == 'l')
        lng++, f++;
    unsigned long long u = 0;
    long long d = 0;
    switch (*f) {
    case 's': put_str(s, va_arg(*ap, const char *), width); break;
    case 'c': sink_put(s, (char)va_arg(*ap, int)); break;
    case 'd':
        d = lng ? va_arg(*ap, long long) : va_arg(*ap, int);
        put_num(s, d < 0 ? 0ull - (unsigned long long)d : (unsigned long long)d, 10, width, padc, d < 0);
        break;
    case 'u': case 'x':
        u = lng ? va_arg(*ap, unsigned long long) : va_arg(*ap, unsigned);
        put_num(s, u, *f == 'x' ? 16 : 10, width, padc, 0);
        break;
    default: sink_put(s, '%'); sink_put(s, *f); break;
    }
    return f + 1;
}

int vformat(char *buf, size_t cap, const char *fmt, va_list ap)
{
    Sink s = { buf, cap, 0 };
    va_list aq;
    va_copy(aq, ap);
    while (*fmt) {
        if (*fmt != '%' || !fmt[1])
            sink_put(&s, *fmt++);
        else if (fmt[1] == '%')
            sink_put(&s, '%'), fmt += 2;
        else
            fmt = convert(&s, fmt + 1, &aq);
    }
    va_end(aq);
    if (cap)
        buf[s.len < cap ? s.len : cap - 1] = 0;
    return (int)s.len;
}

int format(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vformat(buf, cap, fmt, ap);
    va_end(ap);
    return n;
}

void out(const char *fmt, ...)
{
    char buf[OUT_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vformat(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sys_write(1, buf, n < (int)sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* ------------------------------------------------------------------ files */

static long write_all(int fd, const char *s, size_t n)
{
    while (n) {
        long w = sys_write(fd, s, n);
        if (w == -EINTR)
            continue;
        if (w <= 0)
            return w ? w : -EPIPE;
        s += w, n -= (size_t)w;
    }
    return 0;
}

long write_str(const char *path, const char *s, int flags)
{
    long fd = sys_open(path, O_WRONLY | flags);
    if (fd < 0)
        return fd;
    long r = write_all((int)fd, s, strlen(s));
    sys_close((int)fd);
    return r;
}

long read_small(const char *path, char *buf, size_t cap)
{
    long fd = sys_open(path, O_RDONLY);
    if (fd < 0)
        return fd;
    long n = sys_read((int)fd, buf, cap - 1);
    sys_close((int)fd);
    if (n < 0)
        return n;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        n--;
    buf[n] = 0;
    return n;
}

void lines_init(Lines *l, int fd)
{
    l->fd = fd;
    l->eof_or_err = 0;
    l->pos = l->len = 0;
}

static int lines_fill(Lines *l)
{
    if (l->eof_or_err)
        return 0;
    long n = sys_read(l->fd, l->buf, sizeof l->buf);
    if (n <= 0) {
        l->eof_or_err = n ? n : 1;
        return 0;
    }
    l->pos = 0;
    l->len = (size_t)n;
    return 1;
}

int lines_next(Lines *l)
{
    size_t n = 0;
    for (;;) {
        if (l->pos == l->len && !lines_fill(l))
            break;
        char c = l->buf[l->pos++];
        if (c == '\n') {
            l->line[n] = 0;
            return 1;
        }
        if (n + 1 < sizeof l->line)
            l->line[n++] = c;
    }
    l->line[n] = 0;
    return n > 0;
}
