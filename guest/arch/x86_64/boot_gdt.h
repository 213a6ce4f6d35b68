/* boot_gdt.h (x86_64) — the GDT every CPU loads (arch_cpu_init) and the pointer lgdt takes,
 * in .data: included by boot32.S (the multiboot entry of the identity-mapped guests) and by
 * boot_high.S (the -high guests, which have no boot32.S), one definition for both. */
#ifndef GUEST_X86_BOOT_GDT_H
#define GUEST_X86_BOOT_GDT_H

    .data
    .balign 8
    .global boot_gdt, boot_gdt_ptr
boot_gdt:
    .quad   0
    .quad   0x00af9a000000ffff          /* KERNEL_CS: 64-bit code, DPL 0 */
    .quad   0x00cf92000000ffff          /* KERNEL_DS: data */
boot_gdt_end:
    .balign 8
boot_gdt_ptr:                           /* lgdt reads 6 bytes in 32-bit mode, 10 in 64-bit */
    .word   boot_gdt_end - boot_gdt - 1
    .quad   boot_gdt

#endif
