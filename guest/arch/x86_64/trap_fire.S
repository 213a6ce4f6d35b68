/* trap_fire.S (x86_64) — one function per trap of the trap guest; <name>_site labels the
 * trapping instruction so reports are relative to it, independent of the link layout. */
#define FUNC(name)  .global name; .type name, @function; name:
#define SITE(name)  .global name; name:

    .text
FUNC(fire_int3)
SITE(int3_site)
    int3                                /* #BP, a trap: RIP is past it */
    ret

FUNC(fire_ud2)
SITE(ud2_site)
    ud2                                 /* #UD, a fault: RIP is at it */
    ret

FUNC(fire_rdmsr)
    movl    $0x12345678, %ecx           /* no such MSR: #GP(0) */
SITE(rdmsr_site)
    rdmsr
    ret

FUNC(fire_int80)
SITE(int80_site)
    int     $0x80
    ret

    .section .note.GNU-stack, "", @progbits
