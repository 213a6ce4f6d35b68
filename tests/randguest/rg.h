/* rg.h — random guests: shared pieces of the generator (tests/randguest).
 *
 * A random guest is a raw image for one architecture, made from a seed with a private PRNG
 * (splitmix64: no host randomness, no time), so a seed names the same image on every host.
 * The image holds
 *   - a prologue that gives each CPU a stack, installs the exception table and seeds registers,
 *   - optionally an exception table (x86 IDT + GDT/TSS, arm64 VBAR_EL1 vectors, ppc32 vectors
 *     at 0x100..0x2F00) whose handlers are random too but mostly return past the fault,
 *   - a body of mostly valid instructions: ALU, loads and stores to RAM, to the image's own code,
 *     to device windows and to unmapped space, branches of every kind, system instructions and
 *     MSR/SPR accesses, instructions that raise exceptions, and a small share of random words.
 * Each architecture's generator lives in rg_<arch>.c and encodes instructions itself from the
 * manuals' encodings; the manifest (every valid instruction's offset, length and mnemonic) lets
 * test_encoders.c check the encoders against Capstone.
 */
#ifndef RANDGUEST_RG_H
#define RANDGUEST_RG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------ PRNG (splitmix64) */

typedef struct Rng {
    uint64_t s;                 /* state: advanced by the golden-ratio increment per draw */
} Rng;

static inline uint64_t rng_next(Rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n); n > 0. */
static inline uint32_t rng_below(Rng *r, uint32_t n)
{
    return (uint32_t)(((rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* Uniform in [lo, hi]. */
static inline int64_t rng_range(Rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

/* True with probability pct/100. */
static inline bool rng_pct(Rng *r, unsigned pct)
{
    return rng_below(r, 100) < pct;
}

/* Index drawn by weight (weights[i] >= 0, not all 0). */
unsigned rng_weighted(Rng *r, const unsigned *weights, unsigned n);

/* ------------------------------------------------------------------ instruction classes */

/* What the generator emitted, for --mix statistics (the report's instruction mix). */
typedef enum RgClass {
    RG_ALU,             /* integer arithmetic, logic, moves, shifts, compares */
    RG_ADDR,            /* loading an address from the pools into a register */
    RG_LOAD,
    RG_STORE,
    RG_ATOMIC,          /* read-modify-write, exclusives, lock-prefixed, lwarx/stwcx. */
    RG_BRANCH,          /* jumps, conditional branches, calls, returns, indirect branches */
    RG_SYSTEM,          /* privileged and system instructions, barriers, cache maintenance */
    RG_SYSREG,          /* MSR / system register / SPR accesses */
    RG_EXCEPTION,       /* instructions that raise an exception on purpose */
    RG_FP,              /* floating point / SIMD */
    RG_DEVICE,          /* device programming snippets (timer, PMU, IPI, SMP release) */
    RG_PAD,             /* x86 bundle padding NOPs */
    RG_RANDOM,          /* random words/bytes: not instructions on purpose */
    RG_NCLASSES
} RgClass;

extern const char *const rg_class_names[RG_NCLASSES];

/* ------------------------------------------------------------------ the image */

/* One intentionally valid instruction (for the Capstone cross-check). */
typedef struct RgInsn {
    uint32_t off;               /* offset in the image */
    uint8_t len;                /* bytes */
    uint8_t cls;                /* RgClass */
    const char *mn;             /* accepted Capstone mnemonics: "a|b|c", a trailing '*' matches a prefix */
} RgInsn;

typedef struct RgImage {
    uint8_t *buf;
    uint32_t size;              /* bytes of the image (fixed per arch) */
    uint64_t base;              /* load address */
    uint32_t pos;               /* next byte to emit */
    bool big_endian;
    /* manifest (filled when `manifest` is true) */
    bool manifest;
    RgInsn *insns;
    uint32_t ninsns, cap;
    /* instruction counts per class (every emit) */
    uint64_t count[RG_NCLASSES];
} RgImage;

void rg_image_init(RgImage *img, uint64_t base, uint32_t size, bool big_endian, bool manifest);
void rg_image_free(RgImage *img);

/* Bytes left before `limit` (an offset in the image). */
static inline uint32_t rg_room(const RgImage *img, uint32_t limit)
{
    return img->pos < limit ? limit - img->pos : 0;
}

static inline uint64_t rg_here(const RgImage *img)
{
    return img->base + img->pos;
}

/* Emit one instruction's bytes (x86) or word (fixed-width ISAs, in the image's byte order),
 * recording it in the manifest (mn == NULL: not checked, e.g. random bytes). */
void rg_emit_bytes(RgImage *img, const uint8_t *b, unsigned len, RgClass cls, const char *mn);
void rg_emit32(RgImage *img, uint32_t w, RgClass cls, const char *mn);
/* Raw data (tables): no manifest entry, not counted. */
void rg_put(RgImage *img, uint32_t off, const void *b, unsigned len);
void rg_put_le(RgImage *img, uint32_t off, uint64_t v, unsigned len);
void rg_put_be(RgImage *img, uint32_t off, uint64_t v, unsigned len);
/* Overwrite a 32-bit instruction word emitted earlier (branch fix-ups). */
void rg_patch32(RgImage *img, uint32_t off, uint32_t w);

/* ------------------------------------------------------------------ options and entry points */

typedef struct RgOptions {
    bool vectors;               /* write an exception table and handlers */
    unsigned random_pct;        /* percent of body items that are random words (default 3) */
} RgOptions;

typedef struct RgArch {
    const char *name;           /* pmusim's --arch */
    uint64_t load;              /* --load-addr (entry = load address) */
    uint32_t size;              /* image size */
    bool big_endian;
    void (*generate)(Rng *r, RgImage *img, const RgOptions *o);
} RgArch;

extern const RgArch rg_arch_x86_64, rg_arch_arm64, rg_arch_ppc32;
const RgArch *rg_arch_find(const char *name);

/* Generate the image for (arch, seed) into img (initialised here; rg_image_free it after):
 * the same bytes for the same arguments on every host. */
void rg_generate(const RgArch *a, uint64_t seed, const RgOptions *o, bool manifest, RgImage *img);

#endif
