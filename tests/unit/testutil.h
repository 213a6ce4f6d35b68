/* testutil.h — shared helpers for the Check unit tests. */
#ifndef PMUSIM_TESTUTIL_H
#define PMUSIM_TESTUTIL_H

#include <check.h>
#include <stddef.h>

/* Run one suite; returns the process exit status (0 if every test passed). */
int testutil_run(Suite *s);
/* Path of a file under the build or the source tree ($PMUSIM_BUILD / $PMUSIM_SRC). */
const char *testutil_build_path(const char *rel);
const char *testutil_src_path(const char *rel);

#endif
