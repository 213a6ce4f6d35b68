/* testutil.c — shared helpers for the Check unit tests. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>

int testutil_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

static const char *join(const char *env, const char *fallback, const char *rel)
{
    static char buf[4][4096];
    static int k;
    const char *base = getenv(env);
    char *b = buf[k++ & 3];
    snprintf(b, sizeof buf[0], "%s/%s", base ? base : fallback, rel);
    return b;
}

const char *testutil_build_path(const char *rel)
{
    return join("PMUSIM_BUILD", "build", rel);
}

const char *testutil_src_path(const char *rel)
{
    return join("PMUSIM_SRC", ".", rel);
}
