/* console.c — printf-lite on the board console. */
#include "guest.h"
#include "percpu.h"

/* The console lock holds its owner, CPU + 1 (0: free), so that printf_nmi() can tell whether
 * the code it interrupted on its own CPU holds it.  The owner is set by the one atomic
 * instruction that takes the lock: an NMI sees the lock either not taken or taken by this CPU. */
static u32 console_owner;

static void console_lock(void)
{
    u32 me = smp_processor_id() + 1;

    for (;;) {
        u32 free = 0;
        if (__atomic_compare_exchange_n(&console_owner, &free, me, false, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED))
            return;
        while (__atomic_load_n(&console_owner, __ATOMIC_RELAXED))
            cpu_relax();
    }
}

static void console_unlock(void)
{
    __atomic_store_n(&console_owner, 0, __ATOMIC_RELEASE);
}

struct spec {
    unsigned width;
    bool zero, left;
};

static int pad(unsigned n, char c)
{
    for (unsigned i = 0; i < n; i++)
        arch_putc(c);
    return n;
}

static int put_str(const char *s, const struct spec *sp)
{
    unsigned len = strlen(s);
    unsigned fill = sp->width > len ? sp->width - len : 0;
    int n = sp->left ? 0 : pad(fill, ' ');

    for (const char *p = s; *p; p++)
        arch_putc(*p);
    return n + len + (sp->left ? pad(fill, ' ') : 0);
}

/* prefix ("-", "0x" or "") goes before zero padding and after space padding. */
static int put_num(u64 v, unsigned base, bool upper, const char *prefix, const struct spec *sp)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char buf[24];
    unsigned len = 0, plen = strlen(prefix);
    int n = 0;

    do {
        buf[len++] = digits[v % base];
        v /= base;
    } while (v);
    unsigned fill = sp->width > len + plen ? sp->width - len - plen : 0;
    if (!sp->left && !sp->zero)
        n += pad(fill, ' ');
    for (const char *p = prefix; *p; p++, n++)
        arch_putc(*p);
    if (!sp->left && sp->zero)
        n += pad(fill, '0');
    while (len)
        arch_putc(buf[--len]), n++;
    if (sp->left)
        n += pad(fill, ' ');
    return n;
}

static int vprintf_unlocked(const char *fmt, va_list ap)
{
    int n = 0;

    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            arch_putc(*p);
            n++;
            continue;
        }
        struct spec sp = { 0, false, false };
        for (;; p++) {
            if (p[1] == '0')
                sp.zero = true;
            else if (p[1] == '-')
                sp.left = true;
            else
                break;
        }
        while (p[1] >= '0' && p[1] <= '9')
            sp.width = sp.width * 10 + (*++p - '0');
        unsigned lng = 0;           /* 0 int, 1 long, 2 long long, 3 size_t */
        while (p[1] == 'l')
            lng++, p++;
        if (p[1] == 'z')
            lng = 3, p++;
        char conv = *++p;
        u64 v;

        switch (conv) {
        case 'd':
        case 'i': {
            s64 s = lng == 0 ? va_arg(ap, int) : lng == 1 ? va_arg(ap, long)
                  : lng == 2 ? va_arg(ap, long long) : (s64)va_arg(ap, size_t);
            n += put_num(s < 0 ? -(u64)s : (u64)s, 10, false, s < 0 ? "-" : "", &sp);
            break;
        }
        case 'u':
        case 'x':
        case 'X':
            v = lng == 0 ? va_arg(ap, unsigned) : lng == 1 ? va_arg(ap, unsigned long)
              : lng == 2 ? va_arg(ap, unsigned long long) : va_arg(ap, size_t);
            n += put_num(v, conv == 'u' ? 10 : 16, conv == 'X', "", &sp);
            break;
        case 'p':
            n += put_num((uintptr_t)va_arg(ap, void *), 16, false, "0x", &sp);
            break;
        case 's': {
            const char *s = va_arg(ap, const char *);
            n += put_str(s ? s : "(null)", &sp);
            break;
        }
        case 'c': {
            char s[2] = { (char)va_arg(ap, int), 0 };
            n += put_str(s, &sp);
            break;
        }
        case '%':
            arch_putc('%');
            n++;
            break;
        default:                    /* unknown or truncated: print it as written */
            arch_putc('%');
            n++;
            if (!conv)
                return n;
            arch_putc(conv);
            n++;
        }
    }
    return n;
}

int vprintf(const char *fmt, va_list ap)
{
    console_lock();
    int n = vprintf_unlocked(fmt, ap);
    console_unlock();
    return n;
}

int printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vprintf(fmt, ap);
    va_end(ap);
    return n;
}

int printf_unlocked(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vprintf_unlocked(fmt, ap);
    va_end(ap);
    return n;
}

/* Waiting for the lock would deadlock if this CPU's interrupted code holds it; that line then
 * gets this one in its middle.  Another CPU's line is waited for as usual. */
int printf_nmi(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool mine = __atomic_load_n(&console_owner, __ATOMIC_RELAXED) == smp_processor_id() + 1;
    int n = mine ? vprintf_unlocked(fmt, ap) : vprintf(fmt, ap);
    va_end(ap);
    return n;
}

__noreturn void panic(const char *fmt, ...)
{
    va_list ap;
    printf_unlocked("panic: ");
    va_start(ap, fmt);
    vprintf_unlocked(fmt, ap);
    va_end(ap);
    printf_unlocked("\n");
    guest_exit(GUEST_EXIT_FAIL);
}
