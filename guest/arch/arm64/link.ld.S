/* link.ld.S (arm64) — preprocessed by the Makefile.  Loaded at 0x40080000 (RAM starts at
 * 0x40000000, where the DTB goes).  Code first, in its own pages (pmusim treats executable
 * segments as code and slows down stores into them); data from the next page on.  With
 * -DKALLSYMS: _etext ends the code and the symbol table gets a segment of its own after the
 * image, as on x86_64. */
#include "config.h"

OUTPUT_FORMAT("elf64-littleaarch64")
OUTPUT_ARCH(aarch64)
ENTRY(_start)

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
    . = 0x40080000;
    .text : {
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
