/* jump_label.h — static keys (Linux: include/linux/jump_label.h, arch/<arch>/include/asm/
 * jump_label.h).
 *
 * static_branch_unlikely(&key) is an `asm goto` whose site is a jump to the "true" code, with a
 * `struct jump_entry` in `__jump_table`.  jump_label_init() makes every site match its key's
 * initial value (the NOP of the jump's size when false), static_key_enable/disable patch every
 * site of the key through text_poke: x86 `jmp` (2 or 5 bytes: eb / e9) <-> the NOP of the same
 * size (66 90 / 0f 1f 44 00 00); arm64 and ppc32 `b` <-> `nop`. */
#ifndef GUEST_JUMP_LABEL_H
#define GUEST_JUMP_LABEL_H

#include "guest.h"

struct static_key {
    int enabled;
};

#define STATIC_KEY_INIT_FALSE   { 0 }

/* Relative to each field's own address (Linux's CONFIG_HAVE_ARCH_JUMP_LABEL_RELATIVE). */
struct jump_entry {
    s32 code;
    s32 target;
    long key;
};

#if defined(__x86_64__)
#define JUMP_TABLE_ENTRY(label)                                                 \
    ".pushsection __jump_table, \"aw\"\n\t.balign 8\n\t"                        \
    ".long 1b - ., %l[" label "] - .\n\t.quad %c0 - .\n\t.popsection\n\t"
#elif defined(__aarch64__)
#define JUMP_TABLE_ENTRY(label)                                                 \
    ".pushsection __jump_table, \"aw\"\n\t.balign 8\n\t"                        \
    ".long 1b - ., %l[" label "] - .\n\t.quad %c0 - .\n\t.popsection\n\t"
#else
#define JUMP_TABLE_ENTRY(label)                                                 \
    ".pushsection __jump_table, \"aw\"\n\t.balign 4\n\t"                        \
    ".long 1b - ., %l[" label "] - .\n\t.long %c0 - .\n\t.popsection\n\t"
#endif

#if defined(__x86_64__)
#define ARCH_JUMP   "jmp"
#else
#define ARCH_JUMP   "b"
#endif

/* The site starts as a jump; jump_label_init turns it into a NOP while the key is false. */
static __always_inline bool arch_static_branch(struct static_key *key)
{
    asm goto("1: " ARCH_JUMP " %l[l_yes]\n\t" JUMP_TABLE_ENTRY("l_yes") : : "i"(key) : : l_yes);
    return false;
l_yes:
    return true;
}

#define static_branch_unlikely(key)     __builtin_expect(arch_static_branch(key), 0)

#if defined(__x86_64__)
/* Linux before objtool NOPed the jumps (STATIC_KEY_INIT_NOP): the site starts as the 5-byte
 * NOP, and enabling makes it `jmp rel32` whatever the distance. */
static __always_inline bool arch_static_branch_nop5(struct static_key *key)
{
    asm goto("1: .byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t" JUMP_TABLE_ENTRY("l_yes") : : "i"(key) : : l_yes);
    return false;
l_yes:
    return true;
}
#define static_branch_unlikely_nop5(key) __builtin_expect(arch_static_branch_nop5(key), 0)
#else
#define static_branch_unlikely_nop5(key) static_branch_unlikely(key)
#endif

void jump_label_init(void);
void static_key_enable(struct static_key *key);
void static_key_disable(struct static_key *key);
static inline bool static_key_enabled(const struct static_key *key) { return key->enabled; }

/* ---- implemented by arch/x86_64/jump_label.c; common/jump_label.c for arm64 and ppc32 ---- */
/* Make the site of e a jump (enable) or the NOP of its size; returns 0, or -1 if the site holds
 * neither (Linux: "jump_label: Fatal kernel bug, unexpected op"). */
int arch_jump_label_transform(struct jump_entry *e, bool enable);

static inline unsigned long jump_entry_code(const struct jump_entry *e)
{
    return (unsigned long)&e->code + e->code;
}

static inline unsigned long jump_entry_target(const struct jump_entry *e)
{
    return (unsigned long)&e->target + e->target;
}

static inline struct static_key *jump_entry_key(const struct jump_entry *e)
{
    return (struct static_key *)((unsigned long)&e->key + e->key);
}

#endif
