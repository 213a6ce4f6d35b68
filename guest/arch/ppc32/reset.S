/* reset.S (ppc32) — the firmware slot for QEMU -M 40p -bios: the 7450 starts at 0xfff00100
 * (MSR[IP] set); jump to the image in RAM with r3 = 0 (no DTB).  pmusim starts at the ELF
 * entry and never runs this. */
    .section .reset, "ax"
reset:
    lis     r4, _start@ha
    addi    r4, r4, _start@l
    mtctr   r4
    li      r3, 0
    bctr

    .section .note.GNU-stack, "", @progbits
