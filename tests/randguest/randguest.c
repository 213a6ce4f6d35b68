/* randguest.c — write the random guest image for ARCH and SEED (see rg.h).
 *
 *   randguest [--no-vectors] [--random-pct N] ARCH SEED OUT.bin
 *   randguest --args ARCH            the pmusim options that load the image
 *   randguest --mix ARCH FIRST COUNT instruction mix over COUNT seeds (percent per class)
 *
 * The image depends only on ARCH, SEED and the options.  Exit status 2 on bad usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg.h"

static int usage(void)
{
    fputs("usage: randguest [--no-vectors] [--random-pct N] ARCH SEED OUT.bin\n"
          "       randguest --args ARCH\n"
          "       randguest --mix ARCH FIRST_SEED COUNT\n"
          "ARCH: x86_64, arm64, ppc32\n",
          stderr);
    return 2;
}

static bool parse_u64(const char *s, uint64_t *v)
{
    char *end;
    if (!*s || *s == '-')
        return false;
    errno = 0;
    *v = strtoull(s, &end, 0);
    return !*end && errno == 0;
}

static const RgArch *arch_or_die(const char *name)
{
    const RgArch *a = rg_arch_find(name);
    if (!a)
        fprintf(stderr, "randguest: unknown architecture %s (x86_64, arm64, ppc32)\n", name);
    return a;
}

static int print_mix(const RgArch *a, uint64_t first, uint64_t count, const RgOptions *o)
{
    uint64_t total[RG_NCLASSES] = { 0 }, all = 0;
    for (uint64_t s = first; s < first + count; s++) {
        RgImage img;
        rg_generate(a, s, o, false, &img);
        for (int c = 0; c < RG_NCLASSES; c++) {
            total[c] += img.count[c];
            all += img.count[c];
        }
        rg_image_free(&img);
    }
    printf("%s: %" PRIu64 " instructions in %" PRIu64 " guests\n", a->name, all, count);
    for (int c = 0; c < RG_NCLASSES; c++)
        printf("  %-10s %6.2f%%\n", rg_class_names[c], all ? 100.0 * (double)total[c] / (double)all : 0.0);
    return 0;
}

int main(int argc, char **argv)
{
    RgOptions o = { .vectors = true, .random_pct = 3 };
    int i = 1;
    if (argc == 3 && !strcmp(argv[1], "--args")) {
        const RgArch *a = arch_or_die(argv[2]);
        if (!a)
            return 2;
        printf("--arch %s --load-addr 0x%" PRIx64 "\n", a->name, a->load);
        return 0;
    }
    for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
        uint64_t v;
        if (!strcmp(argv[i], "--no-vectors")) {
            o.vectors = false;
        } else if (!strcmp(argv[i], "--random-pct") && i + 1 < argc && parse_u64(argv[i + 1], &v) && v <= 100) {
            o.random_pct = (unsigned)v;
            i++;
        } else if (!strcmp(argv[i], "--mix") && argc - i == 4) {
            uint64_t first, count;
            const RgArch *a = arch_or_die(argv[i + 1]);
            if (!a || !parse_u64(argv[i + 2], &first) || !parse_u64(argv[i + 3], &count))
                return usage();
            return print_mix(a, first, count, &o);
        } else {
            return usage();
        }
    }
    if (argc - i != 3)
        return usage();
    const RgArch *a = arch_or_die(argv[i]);
    uint64_t seed;
    if (!a)
        return 2;
    if (!parse_u64(argv[i + 1], &seed)) {
        fprintf(stderr, "randguest: SEED %s: expected a non-negative number\n", argv[i + 1]);
        return 2;
    }
    RgImage img;
    rg_generate(a, seed, &o, false, &img);
    FILE *f = fopen(argv[i + 2], "wb");
    if (!f || fwrite(img.buf, 1, img.size, f) != img.size || fclose(f) != 0) {
        fprintf(stderr, "randguest: %s: %s\n", argv[i + 2], strerror(errno));
        rg_image_free(&img);
        return 2;
    }
    rg_image_free(&img);
    return 0;
}
