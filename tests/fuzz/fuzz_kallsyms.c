/* fuzz_kallsyms.c — the kallsyms reader and the System.map parser (base/kallsyms.c).
 *
 * Input: one flags byte, then the bytes of an image (or a System.map).  Flags: bit 0 a 64-bit
 * kernel, bit 1 big-endian, bit 2 parse the rest as a System.map.  A refusal must name the
 * file; a table read must hold its promises: symbols in address order (a System.map: sorted),
 * every name inside the name buffer, NUL-terminated and non-empty, every type printable.
 * The seeds (fuzz_seeds: tests/unit/ksbuild.c) are synthetic tables of every flavour.
 */
#include <string.h>

#include "base/kallsyms.h"
#include "fuzz.h"

#define FLAG_64 1
#define FLAG_BE 2
#define FLAG_MAP 4
#define FUZZ_PATH "fuzz.img"

static void check(const KSymTable *t)
{
    for (size_t i = 0; i < t->n; i++) {
        const KSym *s = &t->syms[i];
        if (i && s->addr < t->syms[i - 1].addr)
            fz_fail("symbol %zu below the one before it", i);
        if (s->name >= t->names_len || !memchr(t->names + s->name, 0, t->names_len - s->name))
            fz_fail("symbol %zu: name outside the names", i);
        if (!t->names[s->name] || s->type <= ' ' || s->type >= 0x7f)
            fz_fail("symbol %zu: empty name or bad type %d", i, s->type);
    }
    if (t->n && !ksyms_lookup(t, t->names + t->syms[0].name))
        fz_fail("the first symbol is not found by name");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned flags = data[0];
    KSymTable t;
    Error err = { { 0 } };
    bool ok = flags & FLAG_MAP ? ksyms_parse_map(&t, (const char *)data + 1, size - 1, FUZZ_PATH, &err)
                               : ksyms_find(&t, data + 1, size - 1, flags & FLAG_64, flags & FLAG_BE, FUZZ_PATH, &err);
    if (!ok) {
        fz_note("refused: %s", err.msg);
        if (strncmp(err.msg, FUZZ_PATH ": ", strlen(FUZZ_PATH) + 2))
            fz_fail("the message does not name the file: %s", err.msg);
        return 0;
    }
    check(&t);
    ksyms_free(&t);
    return 0;
}
