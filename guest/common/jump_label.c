/* jump_label.c — static keys (jump_label.h); Linux: kernel/jump_label.c. */
#include "jump_label.h"
#include "ftrace.h"

extern struct jump_entry __start___jump_table[] __attribute__((weak));
extern struct jump_entry __stop___jump_table[] __attribute__((weak));

notrace static void jump_label_update(struct static_key *key, bool enable)
{
    for (struct jump_entry *e = __start___jump_table; e < __stop___jump_table; e++)
        if (jump_entry_key(e) == key && arch_jump_label_transform(e, enable))
            panic("jump_label: Fatal kernel bug, unexpected op at 0x%lx", jump_entry_code(e));
}

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
