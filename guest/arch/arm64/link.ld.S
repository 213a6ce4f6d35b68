/* link.ld.S (arm64) — preprocessed by the Makefile.  Loaded at 0x40080000 (RAM starts at
 * 0x40000000, where the DTB goes).  Code first, in its own pages (pmusim treats executable
 * segments as code and slows down stores into them); data from the next page on. */
#include "config.h"

OUTPUT_FORMAT("elf64-littleaarch64")
OUTPUT_ARCH(aarch64)
ENTRY(_start)

PHDRS
{
    text PT_LOAD FLAGS(5);      /* R X */
    data PT_LOAD FLAGS(6);      /* R W */
}

SECTIONS
{
    . = 0x40080000;
    .text : {
        *(.text.boot)
        *(.text .text.*)
    } :text
#include "link-data.ld.h"
    /DISCARD/ : { *(.comment) *(.note .note.*) *(.eh_frame*) }
}
ASSERT(__per_cpu_end - __per_cpu_start <= PERCPU_AREA_SIZE, "per-CPU data exceeds PERCPU_AREA_SIZE")
