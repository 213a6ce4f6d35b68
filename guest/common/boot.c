/* boot.c — from the start code to the scenario's main(), and out again. */
#include "guest.h"
#include "fdt.h"
#include "percpu.h"

const void *boot_fdt;

void cpu_init(unsigned cpu)
{
    arch_cpu_init();            /* first: on x86_64 it reloads GS, which clears GS_BASE */
    percpu_activate(cpu);
}

/* Called by the start code of the boot CPU with its stack set up and .bss zeroed; dtb is the
 * entry register (x86_64 RDI, arm64 x0, ppc32 r3). */
__noreturn void boot_cpu_start(uintptr_t dtb);
__noreturn void boot_cpu_start(uintptr_t dtb)
{
    percpu_setup();
    arch_boot_init();
    cpu_init(0);
    /* Address 0 is no DTB: QEMU starts bare ELF images with a zero register. */
    if (dtb && fdt_check((const void *)dtb))
        boot_fdt = (const void *)dtb;
    guest_exit(main());
}

__noreturn void guest_exit(int code)
{
    arch_exit(code);
}
