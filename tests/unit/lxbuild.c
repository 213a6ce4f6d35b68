/* lxbuild.c — a synthetic arm64 Linux Image with patch tables (see lxbuild.h). */
#include "lxbuild.h"

#include <string.h>

const LxbSym lxb_syms[LXB_NSYMS] = {
    { LXB_FN_A + 8, "fn_a" }, { LXB_FN_B + 8, "fn_b" }, { LXB_CALLER, "ftrace_caller" },
    { LXB_CALLBACK, "alt_cb_patch_nops" }, { LXB_INIT, "__init_begin" }, { LXB_INIT_END, "__init_end" },
    { LXB_MCOUNT, "__start_mcount_loc" }, { LXB_MCOUNT + 24, "__stop_mcount_loc" }, { LXB_JT, "__start___jump_table" },
    { LXB_JT + 16, "__stop___jump_table" }, { LXB_ALTS, "__alt_instructions" }, { LXB_ALTS + 24, "__alt_instructions_end" },
    { LXB_RT_PTR, "__start_runtime_ptr_dentry_hashtable" }, { LXB_RT_SHIFT, "__stop_runtime_ptr_dentry_hashtable" },
    { LXB_RT_SHIFT, "__start_runtime_shift_d_hash_shift" }, { LXB_HYPS, "__stop_runtime_shift_d_hash_shift" },
    { LXB_HYPS, "__hyp_reloc_begin" }, { LXB_END, "__hyp_reloc_end" }, { LXB_END, "ftrace_list_ops" },
};

static void put32(uint8_t *b, unsigned off, uint32_t v)
{
    for (unsigned i = 0; i < 4; i++)
        b[off + i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *b, unsigned off, uint64_t v)
{
    put32(b, off, (uint32_t)v);
    put32(b, off + 4, (uint32_t)(v >> 32));
}

/* An s32 at field, relative to itself, pointing to `to`. */
static void rel(uint8_t *b, unsigned field, unsigned to)
{
    put32(b, field, (uint32_t)((int32_t)to - (int32_t)field));
}

static void code(uint8_t *b)
{
    for (unsigned o = 0; o < LXB_MCOUNT; o += 4)
        put32(b, o, A64_NOP);
    put32(b, LXB_FN_B + 8, 0xd503245fu);                       /* BTI C */
    put32(b, LXB_ALT, 0xf9400020u);                            /* ldr x0, [x1] */
    put32(b, LXB_ALT + 4, A64_B(LXB_ALT + 4, LXB_BRANCH_TO));
    put32(b, LXB_REPL, 0xc8dffc20u);                           /* ldar x0, [x1] */
    put32(b, LXB_REPL + 4, A64_B(LXB_REPL + 4, LXB_BRANCH_TO)); /* moved by get_alt_insn */
    put32(b, LXB_PTR, 0xd2800001u);                            /* movz x1, #0; movk x1, #0, lsl 16.. */
    put32(b, LXB_PTR + 4, 0xf2a00001u);
    put32(b, LXB_PTR + 8, 0xf2c00001u);
    put32(b, LXB_PTR + 12, 0xf2e00001u);
    put32(b, LXB_SHIFT, 0x53037f20u);                          /* lsr w0, w25, #3 */
}

void lxb_build(uint8_t *b)
{
    memset(b, 0, LXB_SIZE);
    code(b);
    put64(b, LXB_MCOUNT, LXB_LINK + LXB_FN_A);
    put64(b, LXB_MCOUNT + 8, LXB_LINK + LXB_FN_B);
    put64(b, LXB_MCOUNT + 16, 0);                              /* a dropped weak function */
    rel(b, LXB_JT, LXB_JUMP);
    rel(b, LXB_JT + 4, LXB_JUMP_TO);
    rel(b, LXB_ALTS, LXB_ALT);                                 /* struct alt_instr */
    rel(b, LXB_ALTS + 4, LXB_REPL);
    b[LXB_ALTS + 10] = b[LXB_ALTS + 11] = 8;
    rel(b, LXB_ALTS + 12, LXB_CB);                             /* a callback: cpucap bit 15 */
    rel(b, LXB_ALTS + 16, LXB_CALLBACK);
    b[LXB_ALTS + 21] = 0x80;
    b[LXB_ALTS + 22] = 4;
    rel(b, LXB_RT_PTR, LXB_PTR);
    rel(b, LXB_RT_SHIFT, LXB_SHIFT);
    rel(b, LXB_HYPS, LXB_HYP);
}
