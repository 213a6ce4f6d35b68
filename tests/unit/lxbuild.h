/* lxbuild.h — a synthetic arm64 Linux Image with the patch tables a 6.12 kernel keeps
 * (tracer/linuxpatch.h) and the kallsyms symbols that bound them, for the unit tests
 * (test_patchcheck.c) and the fuzzing seeds (fuzz_linuxpatch.c).
 *
 * Layout (offsets from _text, linked at LXB_LINK):
 *   FN_A   CALL_OPS function: 8-byte literal, then the two NOPs (fn_a at +8)
 *   FN_B   the same with BTI C after the literal (fn_b at +8)
 *   JUMP   a jump label (NOP) whose target is JUMP_TO
 *   ALT    an alternative of two instructions (ldr; b BRANCH_TO), replacement at REPL (ldar; b)
 *   CB     a callback alternative (callback alt_cb_patch_nops at CALLBACK)
 *   PTR    a runtime_ptr constant (movz, movk x3); SHIFT a runtime_shift one (lsr)
 *   HYP    a hyp relocation's 64-bit word
 *   INIT .. INIT_END  __init_begin .. __init_end
 *   then the tables: __mcount_loc (FN_A, FN_B, 0), __jump_table, .altinstructions (2 entries),
 *   the runtime constants', the hyp relocations'. */
#ifndef PMUSIM_LXBUILD_H
#define PMUSIM_LXBUILD_H

#include <stdint.h>

#define LXB_LINK 0xffff800080000000ull
#define LXB_SIZE 0x2000u

enum {
    LXB_FN_A = 0x100, LXB_FN_B = 0x140,
    LXB_JUMP = 0x200, LXB_JUMP_TO = 0x240,
    LXB_ALT = 0x300, LXB_CB = 0x340,
    LXB_PTR = 0x380, LXB_SHIFT = 0x3a0, LXB_HYP = 0x3c0,
    LXB_CALLER = 0x600, LXB_CALLBACK = 0x640,
    LXB_INIT = 0x700, LXB_INIT_END = 0x800,
    LXB_REPL = 0x900, LXB_BRANCH_TO = 0xa00,
    LXB_MCOUNT = 0x1000, LXB_JT = 0x1020, LXB_ALTS = 0x1040, LXB_RT_PTR = 0x1060, LXB_RT_SHIFT = 0x1064,
    LXB_HYPS = 0x1068, LXB_END = 0x106c,
};

#define A64_NOP 0xd503201fu
#define A64_B(from, to) (0x14000000u | ((uint32_t)(((to) - (from)) >> 2) & 0x03ffffffu))

typedef struct LxbSym {
    unsigned off;
    const char *name;
} LxbSym;

/* The symbols, in address order. */
#define LXB_NSYMS 19
extern const LxbSym lxb_syms[LXB_NSYMS];

/* The Image's LXB_SIZE bytes into buf. */
void lxb_build(uint8_t *buf);

#endif
