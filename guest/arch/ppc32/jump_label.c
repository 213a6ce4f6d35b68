/* jump_label.c (ppc32) — a static-key site is `b target` or `nop`, one word patched with
 * text_poke (Linux: arch/powerpc/kernel/jump_label.c). */
#include "jump_label.h"
#include "ftrace.h"
#include "text_poke.h"

#define PPC_NOP 0x60000000u

notrace int arch_jump_label_transform(struct jump_entry *e, bool enable)
{
    unsigned long code = jump_entry_code(e), target = jump_entry_target(e);
    u32 b = 0x48000000u | ((u32)(target - code) & 0x03fffffcu);
    u32 cur = *(volatile u32 *)code, want = enable ? b : PPC_NOP;

    if (cur != b && cur != PPC_NOP)
        return -1;
    if (cur != want)
        text_poke(code, (const u8 *)&want, 4);
    return 0;
}
