/* oprofile_user.c — the oprofile scenario's user program, run in problem state (MSR[PR] = 1).
 *
 * It sorts out records by key, as a database's inner loop might: every round compares KEYS
 * pairs of keys over a prefix of pseudo-random length (compare_keys, memcmp-like; pair k differs
 * first at byte 40 + 3k), folds each result into running statistics (update_stats), and asks the
 * kernel for a checksum of a block of pseudo-random length (do_checksum, behind a system call).
 * The sizes give roughly 60% of the instructions to compare_keys, 30% to do_checksum and 10% to
 * update_stats.  The lengths vary so that no two rounds are alike: a workload that repeats
 * exactly would alias with the sampling period.  "After tuning"
 * (bootarg `tuned`) compare_keys compares a word at a time until the words differ.
 *
 * Everything here is in .user.text (see the linker script): the kernel and pmusim tell user
 * samples from kernel ones by it and by MSR[PR].  No calls into the kernel's code but syscall(). */
#include "oprofile.h"

#define __user_text     __attribute__((section(".user.text"), noinline))

#define KEYS            16
#define KEY_LEN         112             /* compared over 48..111 bytes */
#define DATA_LEN        2560            /* checksummed over 1536..2556 bytes */

struct stats {
    unsigned long n, less, equal, greater;
    long min, max;
    unsigned long hist[8];
    unsigned long median_bucket;        /* the bucket holding the median |r| so far */
};

static u8 keys[2][KEYS][KEY_LEN] __user_bss __attribute__((aligned(4)));
static u8 data[DATA_LEN] __user_bss __attribute__((aligned(4)));
static struct stats stats __user_bss;
static unsigned long checksum __user_bss;

/* memcmp's contract: <0, 0, >0 as the first differing byte of a is below, equal to, above b's. */
__user_text int compare_keys(const u8 *a, const u8 *b, unsigned long n, bool tuned)
{
    if (tuned) {
        /* both keys are word-aligned */
        while (n >= 4 && *(const u32 *)a == *(const u32 *)b) {
            a += 4;
            b += 4;
            n -= 4;
        }
    }
    for (; n; n--, a++, b++)
        if (*a != *b)
            return *a - *b;
    return 0;
}

__user_text void update_stats(struct stats *s, long r)
{
    s->n++;
    if (r < 0)
        s->less++;
    else if (r > 0)
        s->greater++;
    else
        s->equal++;
    if (s->n == 1 || r < s->min)
        s->min = r;
    if (s->n == 1 || r > s->max)
        s->max = r;
    /* a histogram of |r| by powers of two */
    unsigned long m = r < 0 ? -r : r;
    unsigned b = 0;
    while (m > 1 && b < 7) {
        m >>= 1;
        b++;
    }
    s->hist[b]++;
    unsigned long below = 0;
    for (b = 0; b < 7 && 2 * (below + s->hist[b]) < s->n; b++)
        below += s->hist[b];
    s->median_bucket = b;
}

static u32 seed __user_data = 12345;

/* A linear congruential generator (Numerical Recipes' constants). */
__user_text static u32 lcg(void)
{
    seed = seed * 1664525u + 1013904223u;
    return seed;
}

__user_text static void fill(void)
{
    for (unsigned k = 0; k < KEYS; k++) {
        for (unsigned i = 0; i < KEY_LEN; i++)
            keys[0][k][i] = keys[1][k][i] = (u8)(lcg() >> 24);
        keys[1][k][40 + 3 * k] ^= (u8)(1 + k);
    }
    for (unsigned i = 0; i < DATA_LEN; i++)
        data[i] = (u8)(lcg() >> 24);
}

__user_text void user_main(const struct user_args *args)
{
    bool tuned = args->tuned;

    fill();
    while (syscall(SYS_profiling, 0, 0)) {
        for (unsigned k = 0; k < KEYS; k++)
            update_stats(&stats, compare_keys(keys[0][k], keys[1][k], 48 + (lcg() >> 26), tuned));
        checksum += syscall(SYS_checksum, (long)data, 1536 + (lcg() >> 22 & ~3u));
    }
    syscall(SYS_exit, (long)(checksum + stats.n), 0);
}
