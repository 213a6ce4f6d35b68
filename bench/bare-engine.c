/* bare-engine.c — the yardstick: run one guest function on the bare Unicorn engine.
 *
 *   bare-engine ARCH ELF SYMBOL N|auto [REPS]
 *
 * (auto: N is the ELF's `bench_iterations`, as guest/bench.c defines it.)  The stack is the guest's
 * own (`bench_stack_top`) when the ELF has one: Unicorn 2.0.1 makes every store within the same
 * 4 MiB as translated code much slower (QEMU keeps page descriptors in 4 MiB leaves and then
 * takes its self-modifying-code path), so a far-away stack would flatter the bare engine.
 * Loads ELF's segments into a RAM buffer laid out like pmusim's board (x86_64 RAM at 0 with the
 * same identity page tables, arm64 at 0x40000000, ppc32 at 0), calls SYMBOL(N) with the return
 * address on a branch-to-self "sentinel" page, and times uc_emu_start in two configurations:
 *   none   no hook at all                                       -> the engine's own speed
 *   block  one UC_HOOK_BLOCK adding a per-block instruction count decoded once with Capstone
 *          into a direct-mapped cache                            -> the floor of exact counting
 * Each configuration gets a fresh engine and freshly loaded RAM, REPS times (default 3).  Then
 * one run whose block hook stops the engine once, after STOP_AFTER blocks (and re-enters it),
 * and `block` REPS times more in fresh engines -> the floor after a stop: on x86-64 a stop from
 * the block hook leaves the process running hooked loops slower, in every later engine too
 * (docs/engine.md, "Running and stopping"), and every exact run stops its engine.  Prints
 *   insns=<n> blocks=<n> none_s=<median> block_s=<median> none_mips=<..> block_mips=<..>
 *   block_after_stop_s=<median> block_after_stop_mips=<..>
 * Host time is measured here on purpose: this is a benchmark tool, not simulator state.
 */
#include <capstone/capstone.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unicorn/unicorn.h>

#include "base/loader.h"

#define RAM_SIZE (128ull << 20)
#define STOP_AFTER 1000             /* blocks before the priming run's one stop */

typedef struct Setup {
    Arch arch;
    uint64_t ram_base;
    uc_arch uca;
    int ucm;
    int model;
    cs_arch csa;
    int csm;
    int pc_reg;
} Setup;

static const Setup setups[] = {
    { ARCH_X86_64, 0, UC_ARCH_X86, UC_MODE_64, UC_CPU_X86_SKYLAKE_CLIENT, CS_ARCH_X86, CS_MODE_64, UC_X86_REG_RIP },
    { ARCH_ARM64, 0x40000000, UC_ARCH_ARM64, UC_MODE_ARM, UC_CPU_ARM64_A57, CS_ARCH_ARM64, CS_MODE_ARM, UC_ARM64_REG_PC },
    { ARCH_PPC32, 0, UC_ARCH_PPC, UC_MODE_PPC32 | UC_MODE_BIG_ENDIAN, UC_CPU_PPC32_7450_V2_1, CS_ARCH_PPC,
      CS_MODE_32 | CS_MODE_BIG_ENDIAN, UC_PPC_REG_PC },
};

static void die(const char *msg, const char *detail)
{
    fprintf(stderr, "bare-engine: %s%s%s\n", msg, detail ? ": " : "", detail ? detail : "");
    exit(2);
}

#define CK(x) do { uc_err e_ = (x); if (e_ != UC_ERR_OK) die(#x, uc_strerror(e_)); } while (0)

/* ------------------------------------------------------------------ counting block hook */

typedef struct CountEntry {
    uint64_t pc;
    uint32_t size, n;
} CountEntry;

typedef struct Counter {
    csh cs;
    uint8_t *ram;
    uint64_t ram_base;
    CountEntry tab[1 << 13];
    uint64_t insns, blocks;
    uint64_t stop_at;               /* the block count at which the hook stops the engine; 0: never */
} Counter;

static void count_block(uc_engine *uc, uint64_t pc, uint32_t size, void *opaque)
{
    Counter *k = opaque;
    CountEntry *e = &k->tab[((pc >> 2) ^ (pc >> 13)) & ((1 << 13) - 1)];
    if (e->pc != pc || e->size != size) {
        cs_insn *insn;
        size_t n = cs_disasm(k->cs, k->ram + (pc - k->ram_base), size, pc, 0, &insn);
        if (n)
            cs_free(insn, n);
        *e = (CountEntry){ pc, size, (uint32_t)n };
    }
    k->insns += e->n;
    k->blocks++;
    if (k->blocks == k->stop_at)
        uc_emu_stop(uc);
}

/* ------------------------------------------------------------------ one run */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The same boot structures pmusim's x86 board writes (docs/machines.md). */
static void x86_paging(uc_engine *uc, uint8_t *ram)
{
    store_le(ram + 0x8008, 8, 0x00af9a000000ffffull);
    store_le(ram + 0x8010, 8, 0x00cf92000000ffffull);
    store_le(ram + 0x9000, 8, 0xa000 | 3);
    for (unsigned g = 0; g < 4; g++) {
        store_le(ram + 0xa000 + 8 * g, 8, (0xb000 + 0x1000 * g) | 3);
        for (unsigned j = 0; j < 512; j++)
            store_le(ram + 0xb000 + 0x1000 * g + 8 * j, 8, ((uint64_t)g << 30 | (uint64_t)j << 21) | 0x83);
    }
    uc_x86_mmr gdtr = { 0, 0x8000, 23, 0 };
    CK(uc_reg_write(uc, UC_X86_REG_GDTR, &gdtr));
    uint64_t v = 0x9000;
    CK(uc_reg_write(uc, UC_X86_REG_CR3, &v));
    v = 0x20;
    CK(uc_reg_write(uc, UC_X86_REG_CR4, &v));
    uc_x86_msr efer = { 0xc0000080, 0x500 };
    CK(uc_reg_write(uc, UC_X86_REG_MSR, &efer));
    v = 0x80010033;
    CK(uc_reg_write(uc, UC_X86_REG_CR0, &v));
    uint16_t cs = 8, ds = 0x10;
    CK(uc_reg_write(uc, UC_X86_REG_CS, &cs));
    CK(uc_reg_write(uc, UC_X86_REG_SS, &ds));
    CK(uc_reg_write(uc, UC_X86_REG_DS, &ds));
}

static double run_once(const Setup *s, const Image *im, uint64_t fn, uint64_t n, uint64_t guest_stack,
                       Counter *counter)
{
    uint8_t *ram = calloc(1, RAM_SIZE);
    if (!ram)
        die("out of memory", NULL);
    for (int i = 0; i < im->nsegs; i++) {
        const Segment *sg = &im->segs[i];
        if (sg->paddr < s->ram_base || sg->paddr + sg->memsz > s->ram_base + RAM_SIZE)
            continue;                       /* ROM segments (ppc reset stub): not needed here */
        memcpy(ram + (sg->paddr - s->ram_base), im->data + sg->offset, sg->filesz);
    }
    uint64_t sentinel = s->ram_base + RAM_SIZE - 0x1000, stack = guest_stack ? guest_stack : sentinel - 0x100;
    uc_engine *uc;
    CK(uc_open(s->uca, (uc_mode)s->ucm, &uc));
    CK(uc_ctl_set_cpu_model(uc, s->model));
    CK(uc_mem_map_ptr(uc, s->ram_base, RAM_SIZE, UC_PROT_ALL, ram));
    switch (s->arch) {
    case ARCH_X86_64: {
        ram[sentinel - s->ram_base] = 0xeb;             /* jmp . */
        ram[sentinel - s->ram_base + 1] = 0xfe;
        x86_paging(uc, ram);
        uint64_t rsp = stack - 8;
        store_le(ram + (rsp - s->ram_base), 8, sentinel);
        CK(uc_reg_write(uc, UC_X86_REG_RSP, &rsp));
        CK(uc_reg_write(uc, UC_X86_REG_RDI, &n));
        break;
    }
    case ARCH_ARM64:
        store_le(ram + (sentinel - s->ram_base), 4, 0x14000000);   /* b . */
        CK(uc_reg_write(uc, UC_ARM64_REG_SP, &stack));
        CK(uc_reg_write(uc, UC_ARM64_REG_X30, &sentinel));
        CK(uc_reg_write(uc, UC_ARM64_REG_X0, &n));
        break;
    case ARCH_PPC32: {
        store_be(ram + (sentinel - s->ram_base), 4, 0x48000000);   /* b . */
        uint32_t r1 = (uint32_t)stack - 64, lr = (uint32_t)sentinel, r3 = (uint32_t)n;
        CK(uc_reg_write(uc, UC_PPC_REG_1, &r1));
        CK(uc_reg_write(uc, UC_PPC_REG_LR, &lr));
        CK(uc_reg_write(uc, UC_PPC_REG_3, &r3));
        break;
    }
    default:
        break;
    }
    if (counter) {
        uc_hook h;
        memset(counter->tab, 0, sizeof counter->tab);
        counter->ram = ram;
        counter->ram_base = s->ram_base;
        counter->insns = counter->blocks = 0;
        CK(uc_hook_add(uc, &h, UC_HOOK_BLOCK, (void *)count_block, counter, 1, 0));
    }
    double t0 = now();
    CK(uc_emu_start(uc, fn, sentinel, 0, 0));
    for (uint64_t pc; (uc_reg_read(uc, s->pc_reg, &pc), (uint32_t)pc != (uint32_t)sentinel);)
        CK(uc_emu_start(uc, pc, sentinel, 0, 0));      /* after the hook's stop */
    double t = now() - t0;
    uc_close(uc);
    free(ram);
    return t;
}

/* The value of an initialised global in the ELF (from the file: no engine needed); 0 when the
 * symbol is absent and !required. */
static uint64_t elf_global(const Image *im, const char *name, bool required)
{
    uint64_t addr;
    if (!image_symbol_addr(im, name, &addr)) {
        if (required)
            die("symbol not found", name);
        return 0;
    }
    unsigned w = im->is64 ? 8 : 4;
    for (int i = 0; i < im->nsegs; i++) {
        const Segment *sg = &im->segs[i];
        if (addr >= sg->vaddr && addr + w <= sg->vaddr + sg->filesz) {
            const uint8_t *p = im->data + sg->offset + (addr - sg->vaddr);
            return im->big_endian ? load_be(p, w) : load_le(p, w);
        }
    }
    die("symbol has no initialised data", name);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 5)
        die("usage: bare-engine ARCH ELF SYMBOL N [REPS]", NULL);
    Arch arch = isa_from_name(argv[1]);
    const Setup *s = NULL;
    for (size_t i = 0; i < sizeof setups / sizeof setups[0]; i++)
        if (setups[i].arch == arch)
            s = &setups[i];
    if (!s)
        die("unknown ARCH", argv[1]);
    Image im;
    Error err = { { 0 } };
    if (!image_load_elf(&im, argv[2], &err))
        die(err.msg, NULL);
    uint64_t fn;
    if (!image_symbol_addr(&im, argv[3], &fn))
        die("symbol not found", argv[3]);
    uint64_t n = strcmp(argv[4], "auto") ? strtoull(argv[4], NULL, 0) : elf_global(&im, "bench_iterations", true);
    uint64_t guest_stack = elf_global(&im, "bench_stack_top", false);
    int reps = argc > 5 ? atoi(argv[5]) : 3;
    if (reps < 1 || reps > 99)
        reps = 3;
    Counter *counter = calloc(1, sizeof *counter);
    if (cs_open(s->csa, (cs_mode)s->csm, &counter->cs) != CS_ERR_OK)
        die("cs_open failed", NULL);
    double t_none[99], t_block[99], t_after[99];
    for (int r = 0; r < reps; r++) {   /* interleaved, so host drift hits both alike */
        t_block[r] = run_once(s, &im, fn, n, guest_stack, counter);
        t_none[r] = run_once(s, &im, fn, n, guest_stack, NULL);
    }
    counter->stop_at = STOP_AFTER;
    run_once(s, &im, fn, n, guest_stack, counter);
    counter->stop_at = 0;
    for (int r = 0; r < reps; r++)
        t_after[r] = run_once(s, &im, fn, n, guest_stack, counter);
    qsort(t_none, (size_t)reps, sizeof t_none[0], cmp_double);
    qsort(t_block, (size_t)reps, sizeof t_block[0], cmp_double);
    qsort(t_after, (size_t)reps, sizeof t_after[0], cmp_double);
    double none = t_none[reps / 2], block = t_block[reps / 2], after = t_after[reps / 2];
    double mi = counter->insns / 1e6;
    printf("insns=%" PRIu64 " blocks=%" PRIu64 " none_s=%.4f block_s=%.4f none_mips=%.1f block_mips=%.1f"
           " block_after_stop_s=%.4f block_after_stop_mips=%.1f\n",
           counter->insns, counter->blocks, none, block, mi / none, mi / block, after, mi / after);
    cs_close(&counter->cs);
    free(counter);
    image_free(&im);
    return 0;
}
