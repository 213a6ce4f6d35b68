/* inject.c — the --inject option's value (format in inject.h; docs/debugging.md, "Fault
 * injection").
 *
 *   SPEC   := KIND ':' FIELD (':' FIELD)*
 *   FIELD  := KEY '=' NUMBER
 *   NUMBER := digits | 0x hexdigits, then (keys that allow it) one of K M G
 *
 * Every error names the option, the value and the 0-based offset in it of what is wrong: the
 * field, the key or the value.
 */
#include "sim/inject.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/tunables.h"
#include "cpu/cluster.h"

/* The longest number text looked at (2^62 in decimal has 19 digits, a suffix one more). */
#define INJECT_NUM_MAX 24

/* The keys of a stall, in InjectSpec's order of the values. */
enum { KEY_CPU, KEY_CYCLE, KEY_FOR, KEY_COUNT };

typedef struct InjectKey {
    const char *name;
    uint64_t lo, hi;
    bool suffix;                        /* K, M, G allowed */
    bool required;
    const char *expect;                 /* in the message for a bad value */
} InjectKey;

static const InjectKey stall_keys[KEY_COUNT] = {
    [KEY_CPU] = { "cpu", 0, MAX_CPUS - 1, false, true, "a CPU index from 0 to 15" },
    [KEY_CYCLE] = { "cycle", 0, MAX_RUN_LIMIT, true, true, "a cycle from 0 to 2^62 (K, M, G: x 10^3, 10^6, 10^9)" },
    [KEY_FOR] = { "for", 1, MAX_RUN_LIMIT, true, false, "a number of cycles from 1 to 2^62 (K, M, G suffixes)" },
};

static const struct {
    char sfx;
    uint64_t mul;
} suffixes[] = { { 'K', 1000ull }, { 'M', 1000000ull }, { 'G', 1000000000ull } };

static bool fail(Error *err, const char *spec, size_t off, const char *fmt, ...) PMUSIM_PRINTF(4, 5);

static bool fail(Error *err, const char *spec, size_t off, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return err_set(err, "--inject %s: %s at offset %zu", spec, what, off);
}

/* The multiplier of a suffix letter, 0 if it is none. */
static uint64_t suffix_of(char ch)
{
    for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++)
        if (toupper((unsigned char)ch) == suffixes[i].sfx)
            return suffixes[i].mul;
    return 0;
}

/* The number in [s, s + len) for key k; false if it is not one or out of k's range. */
static bool number(const InjectKey *k, const char *s, size_t len, uint64_t *v)
{
    char num[INJECT_NUM_MAX];
    uint64_t mul = len > 1 && k->suffix ? suffix_of(s[len - 1]) : 0;
    if (mul && !(len > 2 && (s[1] == 'x' || s[1] == 'X')))
        len--;                          /* a suffix, not a hex digit (0x1B is hex) */
    else
        mul = 1;
    if (!len || len >= sizeof num || s[0] < '0' || s[0] > '9')
        return false;
    memcpy(num, s, len);
    num[len] = 0;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(num, &end, 0);
    if (errno || *end || n > k->hi / mul)
        return false;
    *v = n * mul;
    return *v >= k->lo;
}

static int key_index(const char *s, size_t len)
{
    for (int i = 0; i < KEY_COUNT; i++)
        if (strlen(stall_keys[i].name) == len && !memcmp(stall_keys[i].name, s, len))
            return i;
    return -1;
}

/* One FIELD at offset `at`, `len` bytes, into vals[] (seen[] marks the keys given). */
static bool parse_field(const char *spec, size_t at, size_t len, uint64_t *vals, bool *seen, Error *err)
{
    const char *f = spec + at;
    const char *eq = memchr(f, '=', len);
    if (!len)
        return fail(err, spec, at, "empty field (expected KEY=VALUE)");
    if (!eq)
        return fail(err, spec, at, "expected KEY=VALUE, found \"%.*s\"", (int)len, f);
    size_t klen = (size_t)(eq - f);
    char key[INJECT_NUM_MAX];
    snprintf(key, sizeof key, "%.*s", (int)(klen < sizeof key ? klen : sizeof key - 1), f);
    int k = key_index(f, klen);
    if (k < 0)
        return fail(err, spec, at, "unknown key \"%s\"", key);
    if (seen[k])
        return fail(err, spec, at, "key \"%s\" given twice", key);
    seen[k] = true;
    if (!number(&stall_keys[k], eq + 1, len - klen - 1, &vals[k]))
        return fail(err, spec, at + klen + 1, "bad value for %s: expected %s", key, stall_keys[k].expect);
    return true;
}

bool inject_parse(const char *spec, InjectSpec *out, Error *err)
{
    static const char kind[] = "stall";
    size_t n = strlen(spec), klen = strcspn(spec, ":");
    if (klen != strlen(kind) || memcmp(spec, kind, klen))
        return fail(err, spec, 0, "unknown kind \"%.*s\" (kinds: stall)", (int)klen, spec);
    if (klen == n)
        return fail(err, spec, n, "expected :KEY=VALUE after the kind");
    uint64_t vals[KEY_COUNT] = { 0 };
    bool seen[KEY_COUNT] = { false };
    for (size_t at = klen + 1;;) {
        size_t len = strcspn(spec + at, ":");
        if (!parse_field(spec, at, len, vals, seen, err))
            return false;
        at += len;
        if (!spec[at])
            break;
        at++;
    }
    for (int k = 0; k < KEY_COUNT; k++)
        if (stall_keys[k].required && !seen[k])
            return fail(err, spec, n, "missing key \"%s\"", stall_keys[k].name);
    *out = (InjectSpec){ .text = spec, .kind = INJECT_STALL, .cpu = (int)vals[KEY_CPU], .cycle = vals[KEY_CYCLE],
                         .len = seen[KEY_FOR] ? vals[KEY_FOR] : INJECT_FOREVER };
    return true;
}

/* The stall's last cycle + 1 (saturating). */
static uint64_t stall_end(const InjectSpec *s)
{
    return s->len > UINT64_MAX - s->cycle ? UINT64_MAX : s->cycle + s->len;
}

bool inject_check(const InjectSpec *specs, int n, int ncpus, Error *err)
{
    for (int i = 0; i < n; i++) {
        const InjectSpec *a = &specs[i];
        if (ncpus > 0 && a->cpu >= ncpus)
            return err_set(err, "--inject %s: cpu %d, but the machine has %d CPU%s (cpu=0 to %d)", a->text, a->cpu,
                           ncpus, ncpus == 1 ? "" : "s", ncpus - 1);
        for (int j = 0; j < i; j++) {
            const InjectSpec *b = &specs[j];
            if (a->cpu == b->cpu && a->cycle < stall_end(b) && b->cycle < stall_end(a))
                return err_set(err, "--inject %s: overlaps --inject %s (one CPU stalls once at a time)", a->text,
                               b->text);
        }
    }
    return true;
}
