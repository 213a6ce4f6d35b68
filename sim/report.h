/* report.h — the `pmusim report` command (report.c). */
#ifndef PMUSIM_REPORT_H
#define PMUSIM_REPORT_H

#include "base/common.h"

/* argv[0] is "report", then its arguments (sim/cli.h); returns the process exit status. */
int report_main(int argc, char **argv);

#endif
