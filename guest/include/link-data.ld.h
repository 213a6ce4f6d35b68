/* link-data.ld.h — the data half of every guest's linker script (arch/<arch>/link.ld.S):
 * read-only data from the first page after the code, per-CPU templates, data, bss, then the
 * per-CPU areas and stacks, which are not cleared at boot (each is written before it is read).
 * Sections an architecture does not have (.sdata on ppc32, page tables on x86) are simply empty. */
    . = ALIGN(4096);
    .rodata : { *(.rodata .rodata.*) } :data
    .data : ALIGN(64) {
        __per_cpu_start = .;
        KEEP(*(.data.percpu))
        __per_cpu_end = .;
        *(.data .data.*)
        *(.sdata .sdata.*)
    }
    __data_end = .;
    .bss : ALIGN(64) {
        __bss_start = .;
        *(.sbss .sbss.*)
        *(.bss .bss.* COMMON)
        . = ALIGN(64);
        __bss_end = .;
    }
    .noinit : ALIGN(4096) {
        *(.noinit.pagetables)
        __percpu_areas = .;
        . += MAX_CPUS * PERCPU_AREA_SIZE;
        __stacks = .;
        . += MAX_CPUS * STACK_SIZE;
    }
    __image_end = .;
