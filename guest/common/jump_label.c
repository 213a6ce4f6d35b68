/* jump_label.c — static keys (jump_label.h); Linux: kernel/jump_label.c. */
#include "jump_label.h"
#include "ftrace.h"
#include "text_poke.h"

extern struct jump_entry __start___jump_table[] __attribute__((weak));
extern struct jump_entry __stop___jump_table[] __attribute__((weak));

notrace static void jump_label_update(struct static_key *key, bool enable)
{
    for (struct jump_entry *e = __start___jump_table; e < __stop___jump_table; e++)
        if (jump_entry_key(e) == key && arch_jump_label_transform(e, enable))
            panic("jump_label: Fatal kernel bug, unexpected op at 0x%lx", jump_entry_code(e));
}

#ifndef __x86_64__
/* arm64 and ppc32: one instruction word, `b target` or the NOP (Linux:
 * arch/arm64/kernel/jump_label.c, arch/powerpc/kernel/jump_label.c). */
notrace int arch_jump_label_transform(struct jump_entry *e, bool enable)
{
    unsigned long code = jump_entry_code(e);
    u32 b = arch_branch_insn(code, jump_entry_target(e), false);
    u32 cur = *(volatile u32 *)code, want = enable ? b : ARCH_NOP_INSN;

    if (cur != b && cur != ARCH_NOP_INSN)
        return -1;
    if (cur != want)
        text_poke(code, (const u8 *)&want, 4);
    return 0;
}
#endif

notrace void jump_label_init(void)
{
    for (struct jump_entry *e = __start___jump_table; e < __stop___jump_table; e++)
        if (arch_jump_label_transform(e, jump_entry_key(e)->enabled))
            panic("jump_label: Fatal kernel bug, unexpected op at 0x%lx", jump_entry_code(e));
}

notrace void static_key_enable(struct static_key *key)
{
    if (key->enabled)
        return;
    key->enabled = 1;
    jump_label_update(key, true);
}

notrace void static_key_disable(struct static_key *key)
{
    if (!key->enabled)
        return;
    key->enabled = 0;
    jump_label_update(key, false);
}
