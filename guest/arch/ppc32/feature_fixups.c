/* feature_fixups.c (ppc32) — boot-time CPU feature fixups (feature_fixups.h). */
#include "feature_fixups.h"
#include "ftrace.h"
#include "text_poke.h"

extern const struct fixup_entry __start___ftr_fixup[] __attribute__((weak));
extern const struct fixup_entry __stop___ftr_fixup[] __attribute__((weak));

/* Linux cputable.c: 7450 (0x8000), 7455 (0x8001), 7447/7457 (0x8002) have the L3 interface;
 * 7447A (0x8003) and 7448 (0x8004) do not. */
notrace unsigned long cpu_features_from_pvr(unsigned long pvr)
{
    unsigned long version = pvr >> 16;
    return version == 0x8000 || version == 0x8001 || version == 0x8002 ? CPU_FTR_L3CR : 0;
}

notrace unsigned do_feature_fixups(unsigned long features)
{
    unsigned n = 0;

    for (const struct fixup_entry *f = __start___ftr_fixup; f < __stop___ftr_fixup; f++) {
        if ((features & f->mask) == f->value)
            continue;
        unsigned long start = (unsigned long)f + f->start_off, end = (unsigned long)f + f->end_off;
        u32 nop = ARCH_NOP_INSN;
        for (unsigned long a = start; a < end; a += 4)
            text_poke(a, (const u8 *)&nop, 4);
        n++;
    }
    return n;
}
