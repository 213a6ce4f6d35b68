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
    . = ALIGN(4096);
    .rodata : { *(.rodata .rodata.*) } :data
    .data : ALIGN(64) {
        __per_cpu_start = .;
        KEEP(*(.data.percpu))
        __per_cpu_end = .;
        *(.data .data.*)
    }
    __data_end = .;
    .bss : ALIGN(64) {
        __bss_start = .;
        *(.bss .bss.* COMMON)
        . = ALIGN(64);
        __bss_end = .;
    }
    /* Not cleared at boot: everything here is written before it is read. */
    .noinit : ALIGN(4096) {
        *(.noinit.pagetables)
        __percpu_areas = .;
        . += MAX_CPUS * PERCPU_AREA_SIZE;
        __stacks = .;
        . += MAX_CPUS * STACK_SIZE;
    }
    __image_end = .;
    /DISCARD/ : { *(.comment) *(.note .note.*) *(.eh_frame*) }
}
ASSERT(__per_cpu_end - __per_cpu_start <= PERCPU_AREA_SIZE, "per-CPU data exceeds PERCPU_AREA_SIZE")
