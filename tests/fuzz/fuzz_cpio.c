/* fuzz_cpio.c — the initramfs reader (base/cpio.c): cpio_check, as --initrd runs it, and the
 * entries of a file that passes, written again with the writer.
 *
 * Input: an initrd, whole.  Findings besides crashes: a refusal whose message does not start
 * with "fuzz.cpio: offset 0x" (the file and the offset of what is wrong); an archive that passes
 * whose entries, written again by cpio_add in the same order, do not pass, or come back with
 * other names, modes or data (the writer and the reader disagree).
 */
#include <stdlib.h>
#include <string.h>

#include "base/cpio.h"
#include "fuzz.h"

#define FZ_CPIO_PATH "fuzz.cpio"
#define FZ_CPIO_MAGIC "0707"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    return 0;
}

/* The first archive's entries (the file starts with one, and it passed: each entry is whole),
 * written again. */
static void rewrite(const uint8_t *data, size_t size, CpioWriter *w)
{
    Error err = { { 0 } };
    CpioEntry e;
    for (uint64_t off = 0;; off = e.next) {
        if (!cpio_entry(data, size, off, FZ_CPIO_PATH, &e, &err))
            fz_fail("an entry of an archive that passed: %s", err.msg);
        if (!strcmp(e.name, CPIO_TRAILER))
            break;
        cpio_add(w, e.name, e.mode, e.rmaj, e.rmin, e.data, e.size);
    }
    cpio_finish(w);
}

/* The writer's archive must pass and hold what the input held, entry for entry. */
static void compare(const uint8_t *data, size_t size, const CpioWriter *w)
{
    Error err = { { 0 } };
    CpioEntry a, b;
    uint64_t oa = 0, ob = 0;
    if (!cpio_check(w->buf, w->len, FZ_CPIO_PATH, &err))
        fz_fail("the writer's archive does not pass: %s", err.msg);
    do {
        if (!cpio_entry(data, size, oa, FZ_CPIO_PATH, &a, &err) || !cpio_entry(w->buf, w->len, ob, FZ_CPIO_PATH, &b, &err))
            fz_fail("re-reading: %s", err.msg);
        bool trailer = !strcmp(a.name, CPIO_TRAILER);  /* only its name counts: the writer's is empty */
        if (strcmp(a.name, b.name) || (!trailer && (a.mode != b.mode || a.size != b.size ||
                                                    memcmp(a.data, b.data, a.size))))
            fz_fail("entry %s at 0x%" PRIx64 " came back as %s", a.name, oa, b.name);
        oa = a.next, ob = b.next;
    } while (strcmp(a.name, CPIO_TRAILER));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Error err = { { 0 } };
    if (!cpio_check(data, size, FZ_CPIO_PATH, &err)) {
        if (strncmp(err.msg, FZ_CPIO_PATH ": offset 0x", strlen(FZ_CPIO_PATH ": offset 0x")))
            fz_fail("a refusal without the file and offset: %s", err.msg);
        fz_note("refused: %s", err.msg);
        return 0;
    }
    if (size < CPIO_HEADER_SIZE || memcmp(data, FZ_CPIO_MAGIC, strlen(FZ_CPIO_MAGIC)))
        return 0;                       /* not an archive at offset 0: nothing to re-write */
    CpioWriter w;
    cpio_writer_init(&w);
    rewrite(data, size, &w);
    compare(data, size, &w);
    cpio_writer_free(&w);
    return 0;
}
