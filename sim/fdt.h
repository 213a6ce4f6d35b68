/* fdt.h — the machine description: built-in boards, --machine files, option edits, parsing.
 *
 * dt_build() produces the effective flattened device tree: the built-in board for the
 * architecture (sim/boards/<arch>.dts, compiled in) or the --machine file (a .dts is compiled
 * with dtc), edited by --cpus/--cpu-model/--bootargs/--mem.  dt_parse() turns it into a
 * MachineDesc, refusing anything pmusim cannot model with a message naming node and property.
 */
#ifndef PMUSIM_FDT_H
#define PMUSIM_FDT_H

#include "base/common.h"
#include "cpu/cluster.h"
#include "sim/dev/device.h"

#define DESC_MAX_CPUS 16
#define DESC_MAX_MEM 8
#define DESC_MAX_DEVS 32

/* Limits on the input (docs/machines.md, "Limits").  A machine file, DTS or DTB, is at most
 * 1 MiB: the tree the guest gets must fit DTB_MAX_SIZE (64 KiB) anyway. */
#define DT_FILE_MAX ((size_t)1 << 20)
#define DT_FILE_MAX_TEXT "1 MiB"
/* #address-cells and #size-cells: addresses and sizes are 64-bit, at most 2 cells (1 to 2 for
 * #address-cells, 0 to 2 for #size-cells). */
#define DT_CELLS_MIN 1
#define DT_CELLS_MAX 2
/* --bootargs: 4095 characters, 4096 bytes with the NUL (arm64 Linux's COMMAND_LINE_SIZE; x86
 * has 2048). */
#define DT_BOOTARGS_MAX 4095
/* Guest memory (RAM and ROM ranges together) is at most 1 TiB: pmusim keeps a flag byte per
 * 4 KiB page and the engine a page table entry for it, so larger trees would take the host's
 * memory (and minutes) before the guest runs. */
#define DT_RAM_MAX ((uint64_t)1 << 40)
#define DT_RAM_MAX_TEXT "1 TiB"

typedef struct MemDesc {
    uint64_t base, size;
    bool rom;
    char path[128];                 /* the node, for messages */
} MemDesc;

typedef struct MachineDesc {
    Arch arch;
    char model[96];
    CpuDesc cpus[DESC_MAX_CPUS];
    int ncpus;
    MemDesc mem[DESC_MAX_MEM];
    int nmem;
    DevDesc devs[DESC_MAX_DEVS];
    int ndevs;
    bool psci;                      /* arm64 psci node with method "hvc" */
    uint64_t timer_hz;              /* arm64 generic counter frequency */
    /* arm64: the INTIDs of the timers' PPIs (non-secure physical, virtual) and the PMU's, from
     * their nodes' `interrupts` (0: none) */
    unsigned timer_intid[2], pmu_intid;
    char timer_path[128], pmu_path[128];
    bool isa_window;                /* ppc32: ISA I/O space mapped into memory */
    uint64_t isa_base, isa_size;
    char isa_path[128];             /* the ISA node, if any */
    char stdout_path[128];          /* the node /chosen stdout-path names, "" if none */
} MachineDesc;

typedef struct FdtOptions {
    const char *machine_file;       /* NULL: the built-in board */
    int ncpus;                      /* 0: keep */
    const char *cpu_model;          /* NULL: keep */
    const char *bootargs;           /* NULL: keep */
    uint64_t mem_size;              /* --mem: the memory node's size (0: keep) */
    int gic_version;                /* --gic-version 2 or 3 (arm64; 0: keep) */
} FdtOptions;

/* The effective tree (malloc'ed, with room to grow) for `arch`. */
void *dt_build(Arch arch, const FdtOptions *opt, Error *err);
/* Architecture a tree is for, from its root compatible; ARCH_NONE if it does not say. */
Arch dt_arch(const void *fdt);
bool dt_parse(const void *fdt, Arch arch, MachineDesc *d, Error *err);
/* /chosen/linux,initrd-start and linux,initrd-end (Linux, Documentation/devicetree/bindings/
 * chosen.txt), in the root's #address-cells: where the machine loaded --initrd. */
bool dt_set_initrd(void *fdt, uint64_t start, uint64_t end, Error *err);
/* Add a /memreserve/ entry (the tree must have room: dt_build leaves some). */
bool dt_reserve(void *fdt, uint64_t addr, uint64_t size, Error *err);
/* Pack the tree; returns its size. */
uint64_t dt_finish(void *fdt);
/* Compile a DTS file to a DTB (its length in *blob_len) and a tree back to DTS text, through dtc
 * (limited to DTC_MEM_MAX of memory and DTC_OUT_MAX of output: /incbin/ can name any file). */
void *dt_compile_dts(const char *path, size_t *blob_len, Error *err);
bool dt_to_dts(const void *fdt, char **text, Error *err);
/* The built-in board blob for an architecture. */
const void *dt_board_blob(Arch arch, size_t *len);

#endif
