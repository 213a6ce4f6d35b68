/* test_codewrite.c — the code-write chokepoint: ranges, and a write by one CPU to code another
 * CPU has already translated (it must see the new instruction; the write is recorded once, with
 * the writer's CPU, exact PC and the old and new bytes). */
#include <stdlib.h>
#include <string.h>

#include "cpu/codewatch.h"
#include "testutil.h"

START_TEST(ranges_merge_and_answer_overlaps)
{
    CodeWatch cw;
    codewatch_init(&cw);
    codewatch_add_range(&cw, 100, 200);
    codewatch_add_range(&cw, 300, 400);
    codewatch_add_range(&cw, 150, 250);
    ck_assert_int_eq(cw.n, 2);
    ck_assert(codewatch_overlaps(&cw, 249, 1));
    ck_assert(!codewatch_overlaps(&cw, 250, 50));
    codewatch_add_range(&cw, 250, 300);              /* bridges the gap */
    ck_assert_int_eq(cw.n, 1);
    ck_assert(codewatch_overlaps(&cw, 260, 4));
    ck_assert(!codewatch_overlaps(&cw, 96, 4));
    ck_assert(codewatch_overlaps(&cw, 96, 5));
    codewatch_destroy(&cw);
}
END_TEST

static CodeWrite seen[8];
static int nseen;

static void listen(void *opaque, const CodeWrite *w)
{
    if (nseen < 8)
        seen[nseen] = *w;
    nseen++;
}

START_TEST(write_by_one_cpu_is_seen_by_the_other)
{
    Machine *m = tm_create(ARCH_X86_64, blob_x86_64_smc, blob_x86_64_smc_len, 0x100000, 0x100000, 0, 2);
    nseen = 0;
    codewatch_listen(&m->cl.cw, listen, NULL);
    ck_assert_int_eq(tm_run(m), 1);                   /* debug-exit 0 */
    ck_assert_uint_eq(vcpu_reg_read(m->cl.cpus[1], UC_X86_REG_R13), 1);
    ck_assert_uint_eq(vcpu_reg_read(m->cl.cpus[1], UC_X86_REG_R14), 2);  /* not the stale translation */
    ck_assert_int_eq(nseen, 1);
    ck_assert_int_eq(seen[0].cpu, 0);
    ck_assert_uint_eq(seen[0].addr, 0x100201);
    ck_assert_uint_eq(seen[0].size, 1);
    ck_assert_uint_eq(seen[0].old_bytes[0], 1);
    ck_assert_uint_eq(seen[0].new_bytes[0], 2);
    ck_assert_uint_eq(seen[0].pc, 0x100020);         /* the movb at label `patch` (objdump) */
    tm_destroy(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("codewrite");
    TCase *t = tcase_create("chokepoint");
    tcase_add_test(t, ranges_merge_and_answer_overlaps);
    tcase_add_test(t, write_by_one_cpu_is_seen_by_the_other);
    suite_add_tcase(s, t);
    return testutil_run(s);
}
