/* jump_label.c (x86_64) — a static-key site is `jmp` (eb rel8 or e9 rel32) or the NOP of the
 * same size (66 90, 0f 1f 44 00 00); Linux: arch/x86/kernel/jump_label.c. */
#include "jump_label.h"
#include "ftrace.h"
#include "text_poke.h"

static const u8 nop2[2] = { 0x66, 0x90 };
static const u8 nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

notrace int arch_jump_label_transform(struct jump_entry *e, bool enable)
{
    unsigned long code = jump_entry_code(e), target = jump_entry_target(e);
    const u8 *p = (const u8 *)code;
    unsigned len;
    u8 insn[5];

    if (p[0] == 0xeb || !memcmp(p, nop2, 2))
        len = 2;
    else if (p[0] == 0xe9 || !memcmp(p, nop5, 5))
        len = 5;
    else
        return -1;
    if (!enable) {
        memcpy(insn, len == 2 ? nop2 : nop5, len);
    } else if (len == 2) {
        insn[0] = 0xeb;
        insn[1] = (u8)(target - (code + 2));
    } else {
        s32 rel = (s32)(target - (code + 5));
        insn[0] = 0xe9;
        memcpy(insn + 1, &rel, 4);
    }
    if (memcmp(p, insn, len))
        text_poke(code, insn, len);
    return 0;
}
