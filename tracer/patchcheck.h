/* patchcheck.h — the patch validator (`pmusim run --check-patching`).
 *
 * Independent of the guest's own checks, it knows the patch sites from the ELF — the ftrace call
 * sites (`__mcount_loc`: x86 `call __fentry__`, ppc32 `bl _mcount`; `__patchable_function_entries`:
 * arm64's two NOPs), the static-key sites (`__jump_table`), ppc32's CPU feature sections
 * (`__ftr_fixup`: the code, or NOPs over all of it); for an arm64 Linux Image, the kernel's own
 * tables found through its kallsyms (linuxpatch.h) — and listens at the code-write
 * chokepoint (codewatch.h), which sees every write to executable memory.  Each write is decoded
 * with Capstone, old and new, and checked:
 *
 *   - it is at a known site, else "unexpected code write" (writer CPU, PC and symbol);
 *   - the site ends up holding one of the forms allowed there: the architecture's NOP of the
 *     site's size, the compiler's original call, a call to a known ftrace trampoline
 *     (`ftrace_caller`, `ftrace_regs_caller`; arm64 `mov x9, x30` + `bl`), or for a jump label a
 *     jump of the same size to the entry's target.  A site left holding anything else (a torn
 *     multi-store patch, a NOP of the wrong size) is a violation, reported with the write that
 *     left it so when the writer moves on to another site or the run ends;
 *   - on SMP (another CPU online) an x86 patch follows the INT3 protocol of text_poke_bp: INT3
 *     over the first byte, every other online CPU serialised (an interrupt or exception taken),
 *     the tail, serialised again, then the first byte; an arm64 change of a word another CPU may
 *     execute is limited to B, BL, NOP, BRK, SVC, HVC, SMC and ISB, old and new.
 *
 * Every completed transition of a site is a `patch` trace event, every violation a
 * `patch-violation` event; the summary lists the sites, their transitions and the violations.
 */
#ifndef PMUSIM_PATCHCHECK_H
#define PMUSIM_PATCHCHECK_H

#include <stdio.h>

#include "base/common.h"
#include "base/loader.h"
#include "cpu/codewatch.h"

typedef struct Cluster Cluster;
typedef struct Blob Blob;
typedef struct BlobReader BlobReader;

/* PATCH_OPS: arm64 DYNAMIC_FTRACE_WITH_CALL_OPS's 8-byte ftrace_ops literal before a function (data,
 * never executed: any value); PATCH_ALT: an arm64 alternative (struct alt_instr), its original
 * code or its replacement; PATCH_ALT_CB: a callback alternative, whatever its callback writes;
 * PATCH_RTCONST: a runtime constant (asm/runtime-const.h), its instructions with new immediates;
 * PATCH_HYP: a KVM hyp relocation, a 64-bit data word in the hyp text (any value). */
typedef enum PatchKind {
    PATCH_FTRACE, PATCH_JUMP, PATCH_FIXUP, PATCH_OPS, PATCH_ALT, PATCH_ALT_CB, PATCH_RTCONST, PATCH_HYP, PATCH_KINDS
} PatchKind;

#define PATCH_MAX_LEN 32

typedef struct PatchSite {
    uint64_t addr;                  /* load address */
    uint8_t len;                    /* bytes */
    uint8_t kind;                   /* PatchKind */
    uint64_t target;                /* jump label: the jump_entry's target; alternative: its replacement's
                                     * offset in PatchCheck.alt; callback: the callback's link address */
    uint8_t form[PATCH_MAX_LEN];    /* the allowed form it last held */
    uint8_t orig[PATCH_MAX_LEN];    /* what the image put there */
    uint32_t transitions;
    uint8_t hist[8];                /* the forms it held, in order (the first 8) */
    uint8_t nhist;
    bool torn;                      /* holds no allowed form (a patch in progress?) */
    bool int3;                      /* x86: first byte is INT3 (text_poke_bp in progress) */
    bool tail;                      /* x86: the tail is being written (since the last sync) */
    /* the write that left the site torn or started the INT3 protocol */
    int w_cpu;
    uint64_t w_pc, w_cycle;
    uint64_t step_cycle;            /* x86 SMP: when the last text_poke_bp step was written */
} PatchSite;

typedef struct PatchViolation {
    int cpu;
    uint64_t cycle, pc, addr;
    char *what;                     /* the rule and the disassembly */
} PatchViolation;

typedef struct PatchCheck {
    Cluster *cl;                    /* NULL in tests that feed writes by hand */
    Arch arch;
    size_t cs;                      /* Capstone handle (csh) */
    bool cs_ok;
    PatchSite *sites;               /* sorted by address, disjoint */
    int n, cap;
    uint64_t tramp[4];              /* call targets allowed at ftrace sites */
    int ntramp;
    uint64_t mcount;                /* the compiler's call target (__fentry__, _mcount), 0 if none */
    int last_site;                  /* the site the last write touched, -1 */
    PatchViolation *v;
    size_t nv, vcap;
    uint64_t patches;               /* completed transitions */
    uint64_t writes;                /* code writes seen */
    Segment *segs;                  /* the image's segments: physical to link addresses (reports) */
    int nsegs;
    uint8_t *alt;                   /* the alternatives' replacement bytes, as the kernel writes them */
    size_t altlen, altcap;
    bool linux_tables;              /* sites from a Linux Image's own tables (linuxpatch.h) */
    uint64_t init_start, init_end;  /* physical [__init_begin, __init_end), freed by free_initmem */
    bool init_freed;                /* free_initmem's poison seen: the init text is no code anymore */
    uint64_t kind_writes[PATCH_KINDS];  /* code writes by the kind of the first site they touch */
    uint64_t freed_writes;          /* writes to the freed init text */
    uint64_t stray_writes;          /* writes no site explains */
} PatchCheck;

/* Sites and trampolines from the image; listens to m's code writes. */
bool patchcheck_init(PatchCheck *pc, Cluster *cl, const Image *im, Error *err);
void patchcheck_destroy(PatchCheck *pc);
/* A site by hand (tests); the image's tables call it too.  False if it overlaps another. */
bool patchcheck_add_site(PatchCheck *pc, PatchKind kind, uint64_t addr, unsigned len, uint64_t target);
bool patchcheck_add_trampoline(PatchCheck *pc, uint64_t addr);
/* Replacement bytes of an alternative: their offset in pc->alt (PatchSite.target of a PATCH_ALT site). */
uint64_t patchcheck_add_alt_bytes(PatchCheck *pc, const uint8_t *b, unsigned len);
/* The run ended: a site still torn is a violation. */
void patchcheck_finish(PatchCheck *pc);
/* The summary (docs/patching.md). */
void patchcheck_report(const PatchCheck *pc, FILE *f);
/* Checkpoints: what each site holds and has held, the text_poke_bp step in progress, the
 * counters and the violations so far.  The sites come from the image (which the checkpoint's
 * fingerprint covers); their addresses, lengths and kinds are saved to check that. */
void patchcheck_save(const PatchCheck *pc, Blob *b);
bool patchcheck_load(PatchCheck *pc, BlobReader *r);

/* A violation (also used by the strict I-cache model): recorded, traced, in the summary. */
void patchcheck_violation(PatchCheck *pc, int cpu, uint64_t cycle, uint64_t wpc, uint64_t addr, const char *fmt, ...)
    PMUSIM_PRINTF(6, 7);
/* "mnemonic operands; ..." of len bytes at addr (Capstone), "(bad)" where it cannot decode. */
void patchcheck_disasm(const PatchCheck *pc, uint64_t addr, const uint8_t *b, size_t len, char *out, size_t outlen);

/* The listener (exposed for tests that feed writes by hand). */
void patchcheck_on_write(void *opaque, const CodeWrite *w);

#endif
