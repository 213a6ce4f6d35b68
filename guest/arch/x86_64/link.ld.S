/* link.ld.S (x86_64) — preprocessed by the Makefile.  Loaded at 1 MiB.  Code first, in its own
 * pages (pmusim treats executable segments as code and slows down stores into them); data from
 * the next page on. */
#include "config.h"

OUTPUT_FORMAT("elf64-x86-64")
OUTPUT_ARCH(i386:x86-64)
ENTRY(_start64)

PHDRS
{
    text PT_LOAD FLAGS(5);      /* R X */
    data PT_LOAD FLAGS(6);      /* R W */
}

SECTIONS
{
    . = 0x100000;
    __image_start = .;
    .text : {
        KEEP(*(.text.multiboot))
        *(.text.boot)
        *(.text .text.*)
    } :text
#include "link-data.ld.h"
    /DISCARD/ : { *(.comment) *(.note .note.*) *(.eh_frame*) }
}
ASSERT(__per_cpu_end - __per_cpu_start <= PERCPU_AREA_SIZE, "per-CPU data exceeds PERCPU_AREA_SIZE")
