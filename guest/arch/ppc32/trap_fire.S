/* trap_fire.S (ppc32) — one function per trap of the trap guest; <name>_site labels the
 * trapping instruction so reports are relative to it, independent of the link layout. */
#define FUNC(name)  .global name; .type name, @function; name:
#define SITE(name)  .global name; name:

    .text
FUNC(fire_sc)
SITE(sc_site)
    sc                                  /* vector 0xc00; SRR0 = next instruction */
    blr

FUNC(fire_trap)
SITE(trap_site)
    trap                                /* tw 31,0,0: program check, SRR1 trap bit */
    blr

FUNC(fire_illegal)
SITE(illegal_site)
    .long   0                           /* primary opcode 0: program check, illegal bit */
    blr

    .section .note.GNU-stack, "", @progbits
