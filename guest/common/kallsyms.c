/* kallsyms.c — symbol lookup in the table kallsyms.sh generates (see kallsyms.h); Linux:
 * kernel/kallsyms.c, without its name compression. */
#include "kallsyms.h"

/* The layout kallsyms.sh emits: a header, the entries sorted by address, then the names.  The
 * code refers to the header only, which the linker script puts at a fixed place: the entries
 * and names may grow between the two links without moving anything else. */
struct kallsym {
    u64 addr;
    u32 size;
    u32 name;                   /* offset of the NUL-terminated name from the header */
};

struct kallsyms_table {
    u64 num_syms;
    struct kallsym syms[];
};

extern const struct kallsyms_table kallsyms;

/* Linux: get_symbol_pos.  The last symbol at or below addr, then the first of its aliases
 * (symbols at the same address). */
static const struct kallsym *get_symbol_pos(unsigned long addr)
{
    u64 lo = 0, hi = kallsyms.num_syms;

    while (hi - lo > 1) {
        u64 mid = lo + (hi - lo) / 2;
        if (kallsyms.syms[mid].addr <= addr)
            lo = mid;
        else
            hi = mid;
    }
    if (!kallsyms.num_syms || kallsyms.syms[lo].addr > addr)
        return NULL;
    while (lo > 0 && kallsyms.syms[lo - 1].addr == kallsyms.syms[lo].addr)
        lo--;
    return &kallsyms.syms[lo];
}

const char *kallsyms_lookup(unsigned long addr, unsigned long *symbolsize, unsigned long *offset)
{
    const struct kallsym *s = get_symbol_pos(addr);

    if (!s || addr - s->addr >= s->size)
        return NULL;
    *symbolsize = s->size;
    *offset = addr - s->addr;
    return (const char *)&kallsyms + s->name;
}
