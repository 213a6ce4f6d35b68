/* test_encoders.c — the random-guest generator checked against Capstone and against itself.
 *
 * Every instruction the generator means to be valid (its manifest) must decode with Capstone to
 * exactly its length and to one of the mnemonics the encoder names; the same seed must give the
 * same image and different seeds different ones; the PRNG is splitmix64 (reference values);
 * the instruction mix has every class it is meant to have.
 */
#include <capstone/capstone.h>
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg.h"

#define SEEDS 40

/* Does Capstone's mnemonic match one of "a|b|c" (a trailing '*' in an alternative matches any
 * suffix)? */
static bool mnemonic_matches(const char *pattern, const char *mn)
{
    const char *p = pattern;
    while (*p) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n && p[n - 1] == '*') {
            if (!strncmp(mn, p, n - 1))
                return true;
        } else if (strlen(mn) == n && !strncmp(mn, p, n)) {
            return true;
        }
        if (!bar)
            break;
        p = bar + 1;
    }
    return false;
}

static void open_cs(const RgArch *a, csh *h)
{
    cs_err e;
    if (!strcmp(a->name, "x86_64"))
        e = cs_open(CS_ARCH_X86, CS_MODE_64, h);
    else if (!strcmp(a->name, "arm64"))
        e = cs_open(CS_ARCH_ARM64, CS_MODE_ARM, h);
    else
        e = cs_open(CS_ARCH_PPC, (cs_mode)(CS_MODE_32 | CS_MODE_BIG_ENDIAN), h);
    ck_assert_int_eq(e, CS_ERR_OK);
}

/* Decode every manifest entry of SEEDS guests; print up to 30 mismatches and count them. */
static void check_arch_against_capstone(const RgArch *a)
{
    csh h;
    open_cs(a, &h);
    unsigned bad = 0, checked = 0;
    RgOptions o = { .vectors = true, .random_pct = 3 };
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        RgImage img;
        o.vectors = seed % 7 != 3;
        rg_generate(a, seed, &o, true, &img);
        for (uint32_t i = 0; i < img.ninsns; i++) {
            const RgInsn *in = &img.insns[i];
            cs_insn *insn = NULL;
            size_t n = cs_disasm(h, img.buf + in->off, in->len, img.base + in->off, 1, &insn);
            bool ok = n == 1 && insn[0].size == in->len && mnemonic_matches(in->mn, insn[0].mnemonic);
            checked++;
            if (!ok) {
                if (bad < 30) {
                    char hex[64] = "";
                    for (unsigned k = 0; k < in->len && k < 15; k++)
                        sprintf(hex + 3 * k, "%02x ", img.buf[in->off + k]);
                    fprintf(stderr, "%s seed %" PRIu64 " +0x%x [%s] want %s (%s): got %s %s (%u bytes)\n", a->name,
                            seed, in->off, hex, in->mn, rg_class_names[in->cls], n ? insn[0].mnemonic : "(nothing)",
                            n ? insn[0].op_str : "", n ? insn[0].size : 0);
                }
                bad++;
            }
            if (insn)
                cs_free(insn, n);
        }
        rg_image_free(&img);
    }
    cs_close(&h);
    fprintf(stderr, "%s: %u instructions checked against Capstone, %u mismatches\n", a->name, checked, bad);
    ck_assert_uint_gt(checked, 100000);
    ck_assert_uint_eq(bad, 0);
}

START_TEST(test_x86_64_encoders_decode_as_intended)
{
    check_arch_against_capstone(&rg_arch_x86_64);
}
END_TEST

START_TEST(test_arm64_encoders_decode_as_intended)
{
    check_arch_against_capstone(&rg_arch_arm64);
}
END_TEST

START_TEST(test_ppc32_encoders_decode_as_intended)
{
    check_arch_against_capstone(&rg_arch_ppc32);
}
END_TEST

/* splitmix64 from a zero state (Vigna's reference implementation). */
START_TEST(test_rng_splitmix64_reference_values)
{
    Rng r = { 0 };
    ck_assert_uint_eq(rng_next(&r), 0xe220a8397b1dcdafull);
    ck_assert_uint_eq(rng_next(&r), 0x6e789e6aa1b965f4ull);
    ck_assert_uint_eq(rng_next(&r), 0x06c45d188009454full);
}
END_TEST

static const RgArch *const arches[3] = { &rg_arch_x86_64, &rg_arch_arm64, &rg_arch_ppc32 };

START_TEST(test_generate_same_seed_same_image)
{
    RgOptions o = { .vectors = true, .random_pct = 3 };
    for (int k = 0; k < 3; k++)
        for (uint64_t seed = 0; seed < 20; seed++) {
            RgImage a, b, c;
            rg_generate(arches[k], seed, &o, false, &a);
            rg_generate(arches[k], seed, &o, false, &b);
            rg_generate(arches[k], seed + 1, &o, false, &c);
            ck_assert_uint_eq(a.size, arches[k]->size);
            ck_assert_msg(!memcmp(a.buf, b.buf, a.size), "%s seed %" PRIu64 ": two images", arches[k]->name, seed);
            ck_assert_msg(memcmp(a.buf, c.buf, a.size), "%s seeds %" PRIu64 " and +1 agree", arches[k]->name, seed);
            rg_image_free(&a);
            rg_image_free(&b);
            rg_image_free(&c);
        }
}
END_TEST

/* Every class the generator is meant to produce appears, and intended instructions dominate. */
START_TEST(test_generate_mix_has_every_class)
{
    RgOptions o = { .vectors = true, .random_pct = 3 };
    for (int k = 0; k < 3; k++) {
        uint64_t count[RG_NCLASSES] = { 0 }, all = 0;
        for (uint64_t seed = 0; seed < 50; seed++) {
            RgImage img;
            rg_generate(arches[k], seed, &o, false, &img);
            for (int c = 0; c < RG_NCLASSES; c++) {
                count[c] += img.count[c];
                all += img.count[c];
            }
            rg_image_free(&img);
        }
        for (int c = 0; c < RG_NCLASSES; c++) {
            if (c == RG_PAD && k != 0)
                continue;                   /* only x86 pads its bundles */
            ck_assert_msg(count[c] * 1000 >= all, "%s: class %s is %" PRIu64 " of %" PRIu64 " (< 0.1%%)",
                          arches[k]->name, rg_class_names[c], count[c], all);
        }
        ck_assert_msg(count[RG_RANDOM] * 100 <= 5 * all, "%s: too many random words", arches[k]->name);
        ck_assert_msg(count[RG_ALU] * 100 >= 15 * all, "%s: too little ALU", arches[k]->name);
    }
}
END_TEST

/* The runner's pmusim options agree with the image's load address. */
START_TEST(test_arch_table_load_addresses)
{
    ck_assert_ptr_eq(rg_arch_find("x86_64"), &rg_arch_x86_64);
    ck_assert_ptr_eq(rg_arch_find("arm64"), &rg_arch_arm64);
    ck_assert_ptr_eq(rg_arch_find("ppc32"), &rg_arch_ppc32);
    ck_assert_ptr_null(rg_arch_find("mips"));
    ck_assert_uint_eq(rg_arch_x86_64.load, 0x100000);
    ck_assert_uint_eq(rg_arch_arm64.load, 0x40080000);
    ck_assert_uint_eq(rg_arch_ppc32.load, 0);
    ck_assert(rg_arch_ppc32.size <= 0xf000);   /* below the ppc32 spin table */
}
END_TEST

START_TEST(test_mnemonic_patterns)
{
    ck_assert(mnemonic_matches("add", "add"));
    ck_assert(!mnemonic_matches("add", "adds"));
    ck_assert(mnemonic_matches("sub|add", "add"));
    ck_assert(mnemonic_matches("b.*", "b.eq"));
    ck_assert(!mnemonic_matches("b.*", "bl"));
    ck_assert(!mnemonic_matches("", "nop"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("randguest");
    TCase *tc = tcase_create("encoders");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_mnemonic_patterns);
    tcase_add_test(tc, test_rng_splitmix64_reference_values);
    tcase_add_test(tc, test_arch_table_load_addresses);
    tcase_add_test(tc, test_generate_same_seed_same_image);
    tcase_add_test(tc, test_generate_mix_has_every_class);
    tcase_add_test(tc, test_x86_64_encoders_decode_as_intended);
    tcase_add_test(tc, test_arm64_encoders_decode_as_intended);
    tcase_add_test(tc, test_ppc32_encoders_decode_as_intended);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
