/* common.h — small shared definitions: architectures, errors, byte order helpers.
 *
 * Errors: host-side failures (bad files, bad options) are reported through an Error filled by
 * the function that detected them, naming the file/node/offset, and the caller decides how to
 * exit.  Guest misbehaviour never uses this path: it becomes an architectural fault plus a
 * trace diagnostic.
 */
#ifndef PMUSIM_COMMON_H
#define PMUSIM_COMMON_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define PMUSIM_PRINTF(f, a) __attribute__((format(printf, f, a)))

typedef enum Arch { ARCH_X86_64, ARCH_ARM64, ARCH_PPC32, ARCH_COUNT, ARCH_NONE = -1 } Arch;

const char *isa_name(Arch a);          /* "x86_64", "arm64", "ppc32" */
Arch isa_from_name(const char *name);  /* ARCH_NONE if unknown */
bool isa_big_endian(Arch a);

/* One error message; functions return false (or NULL) after filling it. */
typedef struct Error {
    char msg[512];
} Error;

bool err_set(Error *err, const char *fmt, ...) PMUSIM_PRINTF(2, 3);

/* Process exit statuses of pmusim itself (the guest's own status is passed through). */
enum {
    EXIT_USAGE = 2,     /* bad option, bad input file */
    EXIT_LIMIT = 3,     /* --max-insns / --max-cycles / --trace-limit ended the run */
    EXIT_HUNG = 4,      /* every CPU asleep with nothing pending, or the guest died */
    EXIT_INTERNAL = 5,  /* engine failure */
    EXIT_VIOLATION = 6, /* --check-patching --strict: the patch validator found violations */
    EXIT_OUTPUT = 7,    /* an output file could not be written completely */
    EXIT_PANIC = 8,     /* the guest kernel panicked (Linux: its "---[ end Kernel panic" line) */
};

/* Fibonacci hashing (Knuth, TAOCP vol. 3, section 6.4, "multiplicative hashing"): multiply by
 * 2^64 / phi (odd) and keep the top `bits` bits; nearby addresses land far apart in a table. */
#define HASH_FIB64 0x9E3779B97F4A7C15ull
static inline uint32_t hash_fib(uint64_t key, unsigned bits)
{
    return (uint32_t)((key * HASH_FIB64) >> (64 - bits));
}

/* FNV-1a, 64 bits (Fowler, Noll, Vo): a byte-wise hash for fingerprints; start from
 * FNV1A64_BASIS and chain calls. */
#define FNV1A64_BASIS 0xcbf29ce484222325ull
#define FNV1A64_PRIME 0x100000001b3ull
static inline uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * FNV1A64_PRIME;
    return h;
}

static inline uint64_t load_be(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}
static inline uint64_t load_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}
static inline void store_be(uint8_t *p, unsigned n, uint64_t v)
{
    for (unsigned i = n; i-- > 0; v >>= 8)
        p[i] = (uint8_t)v;
}
static inline void store_le(uint8_t *p, unsigned n, uint64_t v)
{
    for (unsigned i = 0; i < n; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

/* Allocation that cannot fail silently: out of host memory is not recoverable. */
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);

/* Zeroed anonymous pages for a large buffer that holds no pointers (the decoded-instruction
 * arena): committed only as the guest's code fills it, and not scanned by the leak checker of
 * the sanitizer builds, which otherwise reads every word of it at each leak check. */
void *xmap_zero(size_t bytes);
void xunmap(void *p, size_t bytes);

/* The proleptic Gregorian calendar in UTC: a date and time, and seconds since 1970-01-01. */
typedef struct CivilTime {
    unsigned year, mon, mday, hour, min, sec;   /* mon 1..12, mday 1..31 */
    unsigned wday;                              /* 0 = Sunday */
} CivilTime;

uint64_t civil_to_epoch(const CivilTime *t);    /* year >= 1970, fields in range */
CivilTime civil_from_epoch(uint64_t t);
/* "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM:SS" (ISO 8601, UTC), years 1970 to 9999: the seconds
 * since 1970, or false for anything else. */
bool civil_parse_iso(const char *s, uint64_t *epoch);

#endif
