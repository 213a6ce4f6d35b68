/* kallsyms.h — a Linux kernel's symbols without its vmlinux: the kernel's own kallsyms tables
 * found in the bytes of a kernel image, or a System.map.
 *
 * The tables are those scripts/kallsyms.c generates and kernel/kallsyms.c reads at run time
 * (Linux 6.12): kallsyms_num_syms, kallsyms_names (token-compressed names, each a length and
 * that many token codes), kallsyms_markers, kallsyms_token_table, kallsyms_token_index,
 * kallsyms_offsets with kallsyms_relative_base, kallsyms_seqs_of_names.  An image has no
 * section headers to say where they are: ksyms_find recognises them by their structure
 * (kallsyms.c's map says how).  Both byte orders and word sizes are read; every offset is
 * checked against the buffer, and a missing or malformed table is one message naming the table
 * and the offset.
 */
#ifndef PMUSIM_KALLSYMS_H
#define PMUSIM_KALLSYMS_H

#include "base/common.h"

/* kernel/kallsyms.c KSYM_NAME_LEN (include/linux/kallsyms.h): a name and its NUL. */
#define KSYM_NAME_LEN 512

typedef struct KSym {
    uint64_t addr;              /* link (virtual) address */
    uint32_t name;              /* offset of the name in KSymTable.names */
    char type;                  /* nm's letter: T t D d B b R r W w V v ... */
} KSym;

/* Where ksyms_find found the tables: file offsets, for messages and tests. */
typedef struct KSymLayout {
    uint64_t num_syms, names, markers, token_table, token_index, offsets, relative_base;
    uint64_t seqs_of_names;     /* 0: not there (kernels before 6.2) */
    bool absolute_percpu;       /* CONFIG_KALLSYMS_ABSOLUTE_PERCPU's signed offsets */
} KSymLayout;

typedef struct KSymTable {
    KSym *syms;                 /* in address order (the kernel's order for equal addresses) */
    size_t n;
    char *names;                /* the NUL-terminated names, one after another */
    size_t names_len;
    uint64_t relative_base;     /* kallsyms_relative_base (0 for a System.map) */
    KSymLayout at;
} KSymTable;

/* The kallsyms tables in buf (a kernel image, size bytes, `path` for messages) of a kernel of
 * the given word size and byte order.  The tables must sit at the alignment the kernel gave
 * them relative to the start of buf (true of an arm64 Image: its first byte is _text; and of
 * the ELF vmlinux in an x86 bzImage's payload: its segments keep their link alignment in the
 * file, base/bzpayload.h). */
bool ksyms_find(KSymTable *t, const uint8_t *buf, size_t size, bool is64, bool big_endian, const char *path,
                Error *err);

/* A System.map (`nm -n` of vmlinux): "ADDRESS TYPE NAME" lines, address in hex, type one
 * letter; a malformed line is refused naming `path` and the line.  Undefined, absolute and
 * debugging symbols (U, a, A, N, n, u) are left out, as scripts/kallsyms.c leaves them out. */
bool ksyms_parse_map(KSymTable *t, const char *text, size_t len, const char *path, Error *err);

/* The symbol called name, or NULL. */
const KSym *ksyms_lookup(const KSymTable *t, const char *name);

void ksyms_free(KSymTable *t);

#endif
