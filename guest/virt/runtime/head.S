/* head.S — the start of a QEMU-virt test image (guest/virt/README.md): the arm64 Linux Image
 * header, so that a boot loader knows where the image goes and how much memory it takes, then
 * the boot registers saved and the guest runtime's _start (arch/arm64/start.S).
 *
 * The header (Linux, Documentation/arch/arm64/booting.rst, "Call the kernel image"):
 *
 *   offset  field        value here
 *   0       code0        b virt_entry
 *   4       code1        nop
 *   8       text_offset  0x80000: loaded 512 KiB above a 2 MiB boundary (QEMU: 0x40080000)
 *   16      image_size   __image_end - the image's start: BSS, per-CPU areas and stacks included
 *   24      flags        0b0010: little-endian, 4 KiB pages, placement near the start of RAM
 *   32..55  res2..res4   0
 *   56      magic        "ARM\x64"
 *   60      res5         0 (no PE/COFF header)
 *
 * A boot loader enters at offset 0 with x0 = the DTB, x1 = x2 = x3 = 0, MMU off, EL1 or EL2. */

#define IMAGE_TEXT_OFFSET   0x80000
#define IMAGE_FLAGS         0x2                 /* bits 2:1 = 1: 4 KiB pages */
#define IMAGE_MAGIC         0x644d5241          /* "ARM\x64", little-endian */

    .section .text.head, "ax"
    .global virt_head
virt_head:
    b       virt_entry                          /* code0 */
    nop                                         /* code1 */
    .quad   IMAGE_TEXT_OFFSET
    .quad   __image_end - . + 16                /* at offset 16: __image_end - virt_head */
    .quad   IMAGE_FLAGS
    .quad   0, 0, 0
    .long   IMAGE_MAGIC
    .long   0

/* x0..x3 as the boot loader left them, in .data (the runtime clears only .bss). */
virt_entry:
    adrp    x4, virt_boot_regs
    add     x4, x4, :lo12:virt_boot_regs
    stp     x0, x1, [x4]
    stp     x2, x3, [x4, #16]
    b       _start                              /* x0 still the DTB */

/* A secondary started by PSCI CPU_ON at this entry gets x0 = its context id, which the
 * images make the top of a stack of its own; it runs virt_secondary_main(context id). */
    .text
    .global virt_secondary_entry
virt_secondary_entry:
    mov     sp, x0
    bl      virt_secondary_main
1:  wfi
    b       1b

    .data
    .balign 8
    .global virt_boot_regs
virt_boot_regs:
    .quad   0, 0, 0, 0

    .section .note.GNU-stack, "", %progbits
