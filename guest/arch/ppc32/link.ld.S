/* link.ld.S (ppc32) — preprocessed by the Makefile.  Three places: the exception vectors at
 * their physical addresses (0x100...), the image at 1 MiB, and the reset stub in the firmware
 * ROM (QEMU -bios only).  Code first, in its own pages (pmusim treats executable segments as
 * code and slows down stores into them); data from the next page on.
 *
 * .user.text is the code a guest runs in problem state (MSR[PR] = 1), between __user_text_start
 * and __user_text_end (Linux tells kernel from user addresses with is_kernel_addr(); the
 * identity-mapped guests run without translation, so the range does); its data (.data.user,
 * .bss.user) go with the kernel's there.  The -high guests link them at the user address
 * USER_BASE (kernel_map.h).  With -DKALLSYMS: _etext ends the code and the symbol
 * table gets a segment of its own after the image, as on x86_64. */
#include "config.h"
#include "kernel_map.h"

/* KERNEL_HIGH (the -high guests): the image linked at KERNEL_VOFFSET + the load address, loaded
 * at the load address (each section's LMA follows .text's), entered at the physical address of
 * _start_phys (boot_high.S), which sets the BATs and rfi's to _start at its linked address.  The
 * vectors stay at their physical addresses (vectors_high.S), and there is no reset stub. */
#ifdef KERNEL_HIGH
#define VOFFSET KERNEL_VOFFSET
#else
#define VOFFSET 0
#endif

OUTPUT_FORMAT("elf32-powerpc")
OUTPUT_ARCH(powerpc:common)
#ifdef KERNEL_HIGH
ENTRY(_start_phys_pa)
#else
ENTRY(_start)
#endif

PHDRS
{
    vectors PT_LOAD FLAGS(5);   /* R X */
#ifdef KERNEL_HIGH
    usertext PT_LOAD FLAGS(5);
    userdata PT_LOAD FLAGS(6);
#endif
    text PT_LOAD FLAGS(5);
    data PT_LOAD FLAGS(6);      /* R W */
#ifndef KERNEL_HIGH
    reset PT_LOAD FLAGS(5);
#endif
#ifdef KALLSYMS
    kallsyms PT_LOAD FLAGS(4);  /* R */
#endif
}

SECTIONS
{
    .vectors 0x100 : { KEEP(*(.vectors)) } :vectors
#ifdef KERNEL_HIGH
    /* the user program at its user address (kernel_map.h), code and data in pages of their own */
    .user.text USER_BASE : AT(USER_PBASE) {
        __user_text_start = .;
        *(.user.text)
        __user_text_end = .;
    } :usertext
    .user.data ALIGN(4096) : { *(.data.user) *(.bss.user) } :userdata
    __user_end = .;
#endif
    . = VOFFSET + 0x100000;
    .text : AT(0x100000) {
        *(.text.head)
        *(.text.boot)
        *(.text .text.*)
#ifndef KERNEL_HIGH
        . = ALIGN(64);
        __user_text_start = .;
        *(.user.text)
        __user_text_end = .;
#endif
#ifdef KALLSYMS
        _etext = .;
#endif
    } :text
#include "link-data.ld.h"
#ifndef KERNEL_HIGH
    .reset 0xfff00100 : { KEEP(*(.reset)) } :reset
#endif
#ifdef KALLSYMS
    .kallsyms ALIGN(4096) : { KEEP(*(.kallsyms)) } :kallsyms
#endif
    /DISCARD/ : { *(.comment) *(.note .note.*) *(.eh_frame*) *(.gnu.attributes) }
}
/* virtual - physical (arch_cpu_release hands the spin table a physical address), and the
 * secondaries' entry: boot_high.S's in the -high guests, which sets their BATs first. */
__kernel_voffset = VOFFSET;
PROVIDE(secondary_boot = secondary_entry);
#ifdef KERNEL_HIGH
_start_phys_pa = _start_phys - VOFFSET;
/* user addresses for oprofile's is_kernel_addr(): Linux's split at PAGE_OFFSET, but for the
 * vectors, which run in real mode at their physical addresses */
__user_addr_start = ADDR(.vectors) + SIZEOF(.vectors);
__user_addr_end = KERNELBASE;
ASSERT(__user_end - USER_BASE <= USER_SIZE, "the user program exceeds its BAT (USER_SIZE)")
#else
__user_addr_start = __user_text_start;
__user_addr_end = __user_text_end;
#endif
ASSERT(__per_cpu_end - __per_cpu_start <= PERCPU_AREA_SIZE, "per-CPU data exceeds PERCPU_AREA_SIZE")
