/* common.c — architectures, errors, allocation. */
#include "base/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static const char *const isa_names[ARCH_COUNT] = {
    [ARCH_X86_64] = "x86_64",
    [ARCH_ARM64] = "arm64",
    [ARCH_PPC32] = "ppc32",
};

const char *isa_name(Arch a)
{
    return a >= 0 && a < ARCH_COUNT ? isa_names[a] : "none";
}

Arch isa_from_name(const char *name)
{
    for (int a = 0; a < ARCH_COUNT; a++)
        if (!strcmp(name, isa_names[a]))
            return (Arch)a;
    if (!strcmp(name, "aarch64"))
        return ARCH_ARM64;
    if (!strcmp(name, "x86-64") || !strcmp(name, "amd64"))
        return ARCH_X86_64;
    if (!strcmp(name, "ppc") || !strcmp(name, "powerpc"))
        return ARCH_PPC32;
    return ARCH_NONE;
}

bool isa_big_endian(Arch a)
{
    return a == ARCH_PPC32;
}

bool err_set(Error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return false;
}

static void out_of_memory(void)
{
    fputs("pmusim: out of host memory\n", stderr);
    exit(EXIT_INTERNAL);
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
}

void *xmap_zero(size_t bytes)
{
    void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        out_of_memory();
    return p;
}

void xunmap(void *p, size_t bytes)
{
    if (p)
        munmap(p, bytes ? bytes : 1);
}

void *xrealloc(void *p, size_t size)
{
    p = realloc(p, size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
}

char *xstrdup(const char *s)
{
    char *d = strdup(s);
    if (!d)
        out_of_memory();
    return d;
}

/* ------------------------------------------------------------------ the calendar */

/* Days from 1970-01-01, in 400-year eras of 146097 days (the Gregorian cycle), years counted
 * from March so that the leap day ends the year. */
enum { DAYS_PER_ERA = 146097, EPOCH_DAYS_FROM_0000_03_01 = 719468, SECS_PER_DAY = 86400 };

static uint64_t days_from_civil(unsigned y, unsigned m, unsigned d)
{
    y -= m <= 2;
    uint64_t era = y / 400, yoe = y - era * 400;
    uint64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    return era * DAYS_PER_ERA + yoe * 365 + yoe / 4 - yoe / 100 + doy - EPOCH_DAYS_FROM_0000_03_01;
}

uint64_t civil_to_epoch(const CivilTime *t)
{
    return days_from_civil(t->year, t->mon, t->mday) * SECS_PER_DAY + t->hour * 3600ull + t->min * 60ull + t->sec;
}

CivilTime civil_from_epoch(uint64_t t)
{
    CivilTime c;
    uint64_t days = t / SECS_PER_DAY, s = t % SECS_PER_DAY, z = days + EPOCH_DAYS_FROM_0000_03_01;
    uint64_t era = z / DAYS_PER_ERA, doe = z - era * DAYS_PER_ERA;
    uint64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    uint64_t mp = (5 * doy + 2) / 153;
    c.mday = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    c.mon = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    c.year = (unsigned)(yoe + era * 400 + (c.mon <= 2));
    c.hour = (unsigned)(s / 3600);
    c.min = (unsigned)(s / 60 % 60);
    c.sec = (unsigned)(s % 60);
    c.wday = (unsigned)((days + 4) % 7);        /* 1970-01-01 was a Thursday */
    return c;
}

static bool digits(const char *s, int n, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        *v = *v * 10 + (unsigned)(s[i] - '0');
    }
    return true;
}

bool civil_parse_iso(const char *s, uint64_t *epoch)
{
    static const unsigned mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    CivilTime t = { 0 };
    size_t len = strlen(s);
    if ((len != 10 && len != 19) || s[4] != '-' || s[7] != '-' || !digits(s, 4, &t.year) ||
        !digits(s + 5, 2, &t.mon) || !digits(s + 8, 2, &t.mday))
        return false;
    if (len == 19 && (s[10] != 'T' || s[13] != ':' || s[16] != ':' || !digits(s + 11, 2, &t.hour) ||
                      !digits(s + 14, 2, &t.min) || !digits(s + 17, 2, &t.sec)))
        return false;
    bool leap = t.year % 4 == 0 && (t.year % 100 != 0 || t.year % 400 == 0);
    if (t.year < 1970 || t.mon < 1 || t.mon > 12 || t.mday < 1 || t.mday > mdays[t.mon - 1] ||
        (t.mon == 2 && t.mday == 29 && !leap) || t.hour > 23 || t.min > 59 || t.sec > 59)
        return false;
    *epoch = civil_to_epoch(&t);
    return true;
}
