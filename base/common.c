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
