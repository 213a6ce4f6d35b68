/* diff.h — the `pmusim diff` command (diff.c; docs/tools.md). */
#ifndef PMUSIM_DIFF_H
#define PMUSIM_DIFF_H

#include "base/common.h"

/* argv[0] is "diff", then its arguments (sim/cli.h); returns the process exit status: 0 the
 * same, 1 they differ, 2 bad input. */
int diff_main(int argc, char **argv);

#endif
