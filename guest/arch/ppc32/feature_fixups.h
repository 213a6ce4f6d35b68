/* feature_fixups.h (ppc32) — CPU feature sections (Linux: arch/powerpc/include/asm/
 * feature-fixups.h, arch/powerpc/lib/feature-fixups.c).
 *
 * Code between BEGIN_FTR_SECTION and END_FTR_SECTION_IFSET(feature) is for CPUs that have the
 * feature; an entry in `__ftr_fixup` records it.  At boot do_feature_fixups() turns the code of
 * every entry whose condition the CPU does not meet into NOPs (this guest's sections have no
 * alternative code).  The features come from the PVR (cpu_features_from_pvr). */
#ifndef GUEST_FEATURE_FIXUPS_H
#define GUEST_FEATURE_FIXUPS_H

#include "guest.h"

/* Linux's CPU_FTR_L3CR: an L3 cache controller (MPC7450/7455/7457, not MPC7447A). */
#define CPU_FTR_L3CR    0x00040000u

/* Offsets from the entry itself, as Linux's (ppc32 longs). */
struct fixup_entry {
    unsigned long mask, value;
    long start_off, end_off, alt_start_off, alt_end_off;
};

/* In inline asm: the code between the labels 97 and 98 is kept only if
 * (cur_cpu_features & mask) == value. */
#define FTR_SECTION_ENTRY(mask, value)                                           \
    ".pushsection __ftr_fixup, \"a\"\n\t.balign 4\n99:\n\t"                      \
    ".long " #mask ", " #value "\n\t.long 97b - 99b, 98b - 99b, 0, 0\n\t.popsection\n\t"

unsigned long cpu_features_from_pvr(unsigned long pvr);
/* Applies every __ftr_fixup entry for `features`; returns the number of sections NOPed out. */
unsigned do_feature_fixups(unsigned long features);

#endif
