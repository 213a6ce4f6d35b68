/* ksbuild.h — synthetic kallsyms tables, laid out as scripts/kallsyms.c emits them (see
 * base/kallsyms.c's map), for the unit tests and the fuzzing seeds: any byte order and word
 * size, the order of Linux 6.4 and later or the one before 6.2, relative or absolute-percpu
 * offsets. */
#ifndef PMUSIM_KSBUILD_H
#define PMUSIM_KSBUILD_H

#include "base/kallsyms.h"

typedef struct KsbSym {
    uint64_t addr;
    char type;
    const char *name;
} KsbSym;

typedef struct KsbOptions {
    bool is64, big_endian;
    bool old_order;             /* offsets and relative_base before num_syms, no seqs_of_names */
    bool absolute_percpu;       /* symbols below relative_base are absolute (s32 >= 0) */
    size_t prefix;              /* bytes of filler before the tables */
} KsbOptions;

/* The tables of syms (in address order) in a new buffer of *len bytes (free it); *at: where
 * each table is. */
uint8_t *ksb_build(const KsbSym *syms, size_t n, uint64_t relative_base, const KsbOptions *o, size_t *len,
                   KSymLayout *at);

#endif
