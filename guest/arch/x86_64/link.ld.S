/* link.ld.S (x86_64) — preprocessed by the Makefile.  Loaded at 1 MiB.  Code first, in its own
 * pages (pmusim treats executable segments as code and slows down stores into them); data from
 * the next page on.
 *
 * With -DKALLSYMS (the guests with a symbol table, see the Makefile): _etext ends the code, and
 * the table gets a segment of its own after the whole image.  Its size differs between the two
 * links; there it moves nothing the code refers to, so the code is the same in both.  (QEMU's
 * multiboot loader stops at __data_end and does not load it: lookups then find no symbols.) */
#include "config.h"
#include "kernel_map.h"

/* KERNEL_HIGH (the -high guests): linked at KERNEL_VBASE + the load address, loaded at the load
 * address (each section's LMA follows .text's), entered at the physical address of _start_phys
 * (boot_high.S), which maps the kernel and jumps to _start64 at its linked address. */
#ifdef KERNEL_HIGH
#define VBASE KERNEL_VBASE
#else
#define VBASE 0
#endif

OUTPUT_FORMAT("elf64-x86-64")
OUTPUT_ARCH(i386:x86-64)
#ifdef KERNEL_HIGH
ENTRY(_start_phys_pa)
#else
ENTRY(_start64)
#endif

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
    . = VBASE + 0x100000;
    __image_start = .;
    .text : AT(0x100000) {
        KEEP(*(.text.multiboot))
        *(.text.head)
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
#ifdef KERNEL_HIGH
_start_phys_pa = _start_phys - VBASE;
#endif
ASSERT(__per_cpu_end - __per_cpu_start <= PERCPU_AREA_SIZE, "per-CPU data exceeds PERCPU_AREA_SIZE")
