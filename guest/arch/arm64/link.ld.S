/* link.ld.S (arm64) — preprocessed by the Makefile.  Loaded at 0x40080000 (RAM starts at
 * 0x40000000; the DTB goes above the image, as QEMU puts it for a Linux image).  Code first, in its own pages (pmusim treats executable
 * segments as code and slows down stores into them); data from the next page on.  With
 * -DKALLSYMS: _etext ends the code and the symbol table gets a segment of its own after the
 * image, as on x86_64. */
#include "config.h"
#include "kernel_map.h"

/* KERNEL_HIGH (the -high guests): linked at KERNEL_VOFFSET + the load address, loaded at the
 * load address (each section's LMA follows .text's), entered at the physical address of
 * _start_phys (boot_high.S), which turns the MMU on and jumps to _start at its linked address. */
#ifdef KERNEL_HIGH
#define VOFFSET KERNEL_VOFFSET
#else
#define VOFFSET 0
#endif

OUTPUT_FORMAT("elf64-littleaarch64")
OUTPUT_ARCH(aarch64)
#ifdef KERNEL_HIGH
ENTRY(_start_phys_pa)
#else
ENTRY(_start)
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
    . = VOFFSET + 0x40080000;
    .text : AT(0x40080000) {
        *(.text.head)
        *(.text.boot)
        *(.text .text.*)
        /* the code a guest runs at EL0 (oprofile_user.c); its data (.data.user, .bss.user) go
         * with the kernel's.  Linux tells user from kernel samples by the EL (user_mode()). */
        __user_text_start = .;
        *(.user.text)
        __user_text_end = .;
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
/* virtual - physical (arch_cpu_release hands PSCI physical addresses), and the secondaries'
 * entry: boot_high.S's in the -high guests, which turns their MMU on first. */
__kernel_voffset = VOFFSET;
PROVIDE(secondary_boot = secondary_entry);
#ifdef KERNEL_HIGH
_start_phys_pa = _start_phys - VOFFSET;
#endif
ASSERT(__per_cpu_end - __per_cpu_start <= PERCPU_AREA_SIZE, "per-CPU data exceeds PERCPU_AREA_SIZE")
