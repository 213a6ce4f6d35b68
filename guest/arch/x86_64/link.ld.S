/* link.ld.S (x86_64) — preprocessed by the Makefile.  Loaded at 1 MiB.  Code first, in its own
 * pages (pmusim treats executable segments as code and slows down stores into them); data from
 * the next page on.
 *
 * With -DKALLSYMS (the guests with a symbol table, see the Makefile): _etext ends the code, and
 * the table gets a segment of its own after the whole image.  Its size differs between the two
 * links; there it moves nothing the code refers to, so the code is the same in both.  (QEMU's
 * multiboot loader stops at __data_end and does not load it: lookups then find no symbols.) */
#include "config.h"

OUTPUT_FORMAT("elf64-x86-64")
OUTPUT_ARCH(i386:x86-64)
ENTRY(_start64)

PHDRS
{
    text PT_LOAD FLAGS(5);      /* R X */
    data PT_LOAD FLAGS(6);      /* R W */
#ifdef KALLSYMS
    kallsyms PT_LOAD FLAGS(4);  /* R */
#endif
}

SECTIONS
{
    . = 0x100000;
    __image_start = .;
    .text : {
        KEEP(*(.text.multiboot))
        *(.text.boot)
        *(.text .text.*)
#ifdef KALLSYMS
        _etext = .;
#endif
    } :text
#include "link-data.ld.h"
#ifdef KALLSYMS
    .kallsyms ALIGN(4096) : { KEEP(*(.kallsyms)) } :kallsyms
#endif
    /DISCARD/ : { *(.comment) *(.note .note.*) *(.eh_frame*) }
}
ASSERT(__per_cpu_end - __per_cpu_start <= PERCPU_AREA_SIZE, "per-CPU data exceeds PERCPU_AREA_SIZE")
