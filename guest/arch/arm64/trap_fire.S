/* trap_fire.S (arm64) — one function per trap of the trap guest; <name>_site labels the
 * trapping instruction so reports are relative to it, independent of the link layout. */
#define FUNC(name)  .global name; .type name, %function; name:
#define SITE(name)  .global name; name:

    .text
FUNC(fire_svc)
SITE(svc_site)
    svc     #0x42                       /* EC 0x15, ISS = imm16; ELR = next instruction */
    ret

FUNC(fire_brk)
SITE(brk_site)
    brk     #0x7                        /* EC 0x3c, ISS = imm16; ELR = the brk */
    ret

FUNC(fire_udf)
SITE(udf_site)
    udf     #0                          /* 0x00000000: EC 0 */
    ret

FUNC(fire_dabt)
    mov     x0, #0x0b000000             /* below RAM, no device there (QEMU virt: none either) */
SITE(dabt_site)
    ldr     x0, [x0]                    /* EC 0x25, FAR = 0x0b000000 */
    ret

    .section .note.GNU-stack, "", %progbits
