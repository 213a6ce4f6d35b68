/* jump_label.c (arm64) — a static-key site is `b target` or `nop`, one word patched with
 * text_poke (Linux: arch/arm64/kernel/jump_label.c). */
#include "jump_label.h"
#include "ftrace.h"
#include "text_poke.h"

#define A64_NOP 0xd503201fu

notrace int arch_jump_label_transform(struct jump_entry *e, bool enable)
{
    unsigned long code = jump_entry_code(e), target = jump_entry_target(e);
    u32 b = 0x14000000u | ((u32)((long)(target - code) >> 2) & 0x03ffffffu);
    u32 cur = *(volatile u32 *)code, want = enable ? b : A64_NOP;

    if (cur != b && cur != A64_NOP)
        return -1;
    if (cur != want)
        text_poke(code, (const u8 *)&want, 4);
    return 0;
}
