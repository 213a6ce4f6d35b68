/* boot32.S (x86_64) — multiboot1 entry for QEMU -kernel, and the boot GDT.
 *
 * pmusim enters at the ELF entry (_start64) in long mode.  QEMU's multiboot loader enters at
 * mb_entry32 in 32-bit protected mode without paging; this trampoline recreates pmusim's entry
 * state (identity map of 0-4 GiB with 2 MiB pages, the same CR0/CR4/EFER and GDT, RDI = 0: no
 * DTB) and jumps to _start64.  QEMU refuses to load ELF64 multiboot images, hence the a.out
 * kludge: it loads the file's bytes by the addresses in the header. */
#include "arch.h"

#define MB_MAGIC    0x1badb002
#define MB_FLAGS    0x00010000          /* bit 16: the address fields below are valid */

    .section .text.multiboot, "ax"      /* first in .text: within the file's first 8 KiB */
    .code32
    .balign 4
mb_header:
    .long MB_MAGIC, MB_FLAGS, -(MB_MAGIC + MB_FLAGS)
    .long mb_header                     /* header_addr */
    .long __image_start                 /* load_addr */
    .long __data_end                    /* load_end_addr: end of the file-backed bytes */
    .long __image_end                   /* bss_end_addr: QEMU zeroes up to here */
    .long mb_entry32                    /* entry_addr */

mb_entry32:
    cli
    movl    $(mb_pdpt + 3), mb_pml4     /* present | writable */
    movl    $(mb_pd + 3), %eax
    xorl    %ecx, %ecx
1:  movl    %eax, mb_pdpt(, %ecx, 8)    /* four page directories: 4 GiB */
    addl    $4096, %eax
    incl    %ecx
    cmpl    $4, %ecx
    jne     1b
    movl    $0x83, %eax                 /* present | writable | 2 MiB page */
    xorl    %ecx, %ecx
2:  movl    %eax, mb_pd(, %ecx, 8)
    addl    $0x200000, %eax
    incl    %ecx
    cmpl    $2048, %ecx
    jne     2b
    movl    $mb_pml4, %eax
    movl    %eax, %cr3
    movl    $0x20, %eax                 /* CR4.PAE */
    movl    %eax, %cr4
    movl    $0xc0000080, %ecx           /* EFER.LME */
    rdmsr
    orl     $0x100, %eax
    wrmsr
    movl    $0x80010033, %eax           /* CR0 = PG WP NE ET MP PE, as pmusim */
    movl    %eax, %cr0
    lgdt    boot_gdt_ptr
    ljmp    $KERNEL_CS, $mb_entry64

    .code64
mb_entry64:
    movl    $KERNEL_DS, %eax
    movl    %eax, %ds
    movl    %eax, %es
    movl    %eax, %ss
    movl    %eax, %fs
    movl    %eax, %gs
    xorl    %edi, %edi                  /* no DTB */
    xorl    %esi, %esi                  /* APIC ID 0 */
    xorl    %esp, %esp
    jmp     _start64

#include "boot_gdt.h"

    /* Used only under QEMU; .noinit is outside the .bss the start code clears (these tables
     * are live then) but inside the range the multiboot loader zeroes. */
    .section .noinit.pagetables, "aw", @nobits
    .balign 4096
mb_pml4:    .skip 4096
mb_pdpt:    .skip 4096
mb_pd:      .skip 4 * 4096

    .section .note.GNU-stack, "", @progbits
