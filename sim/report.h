/* report.h — the `pmusim report` command (report.c). */
#ifndef PMUSIM_REPORT_H
#define PMUSIM_REPORT_H

#include "sim/common.h"

/* argv: the arguments after "report"; returns the process exit status. */
int report_main(int argc, char **argv);

#endif
