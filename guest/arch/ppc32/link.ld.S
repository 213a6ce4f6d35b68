/* link.ld.S (ppc32) — preprocessed by the Makefile.  Three places: the exception vectors at
 * their physical addresses (0x100...), the image at 1 MiB, and the reset stub in the firmware
 * ROM (QEMU -bios only).  Code first, in its own pages (pmusim treats executable segments as
 * code and slows down stores into them); data from the next page on.
 *
 * .user.text is the code a guest runs in problem state (MSR[PR] = 1), between __user_text_start
 * and __user_text_end (Linux tells kernel from user addresses with is_kernel_addr(); these
 * guests have no MMU, so the range does).  With -DKALLSYMS: _etext ends the code and the symbol
 * table gets a segment of its own after the image, as on x86_64. */
#include "config.h"

OUTPUT_FORMAT("elf32-powerpc")
OUTPUT_ARCH(powerpc:common)
ENTRY(_start)

PHDRS
{
    vectors PT_LOAD FLAGS(5);   /* R X */
    text PT_LOAD FLAGS(5);
    data PT_LOAD FLAGS(6);      /* R W */
    reset PT_LOAD FLAGS(5);
#ifdef KALLSYMS
    kallsyms PT_LOAD FLAGS(4);  /* R */
#endif
}

SECTIONS
{
    .vectors 0x100 : { KEEP(*(.vectors)) } :vectors
    . = 0x100000;
    .text : {
        *(.text.boot)
        *(.text .text.*)
        . = ALIGN(64);
        __user_text_start = .;
        *(.user.text)
        __user_text_end = .;
#ifdef KALLSYMS
        _etext = .;
#endif
    } :text
#include "link-data.ld.h"
    .reset 0xfff00100 : { KEEP(*(.reset)) } :reset
#ifdef KALLSYMS
    .kallsyms ALIGN(4096) : { KEEP(*(.kallsyms)) } :kallsyms
#endif
    /DISCARD/ : { *(.comment) *(.note .note.*) *(.eh_frame*) *(.gnu.attributes) }
}
ASSERT(__per_cpu_end - __per_cpu_start <= PERCPU_AREA_SIZE, "per-CPU data exceeds PERCPU_AREA_SIZE")
