/* kallsyms.h — the guest's own symbol table, for reports in Linux's %pS style
 * ("lockup_spin+0x7/0x20": symbol+offset/size).
 *
 * Only guests the Makefile lists in KALLSYMS_GUESTS have one: they are linked twice, and the
 * second link adds the table kallsyms.sh makes from `nm -n` of the first (see the Makefile).
 * The table covers the text symbols; a symbol's size reaches to the next higher symbol address
 * (or the end of .text), as in Linux, so every text address has a symbol. */
#ifndef GUEST_KALLSYMS_H
#define GUEST_KALLSYMS_H

#include "guest.h"

/* The symbol containing addr, with its size and addr's offset in it; NULL outside the table. */
const char *kallsyms_lookup(unsigned long addr, unsigned long *symbolsize, unsigned long *offset);

#endif
