/* ppc32_paging.h — the 32-bit PowerPC OEA MMU of the MPC7450 family (BATs, segment registers,
 * the hashed page table), walked by pmusim (the ppc32 backend's CpuOps.translate; cpu/mmu.c fills
 * the engine's TLB from it). */
#ifndef PMUSIM_PPC32_PAGING_H
#define PMUSIM_PPC32_PAGING_H

#include "cpu/cpu.h"

/* What a refused translation raises (MmuResult.kind). */
enum {
    PPC_MMU_DSI = 0x300,                /* data storage interrupt: DAR, DSISR (MmuResult.syndrome) */
    PPC_MMU_ISI = 0x400,                /* instruction storage interrupt: SRR1 bits (syndrome) */
    PPC_MMU_MCHECK = 0x200,             /* the table search read nothing (no memory behind the PTEG) */
};
/* DSISR bits (PEM §6.4.3 table 6-11, MPC7450 RM §4.6.3), IBM bit numbers in the comments. */
enum {
    PPC_DSISR_NOTRANS = 0x40000000u,    /* 1: no PTE or BAT */
    PPC_DSISR_DIRECT = 0x04000000u,     /* 5: a direct-store segment (SR[T] = 1), unsupported */
    PPC_DSISR_PROT = 0x08000000u,       /* 4: protection */
    PPC_DSISR_STORE = 0x02000000u,      /* 6: the access was a store */
};
/* ISI: SRR1 bits (PEM §6.4.4 table 6-13). */
enum {
    PPC_SRR1_NOTRANS = 0x40000000u,     /* 1: no PTE or BAT */
    PPC_SRR1_NOEXEC = 0x10000000u,      /* 3: direct-store or no-execute segment, or guarded page */
    PPC_SRR1_PROT = 0x08000000u,        /* 4: protection */
};
/* What decided a refusal (MmuResult.level). */
enum { PPC_BY_SEGMENT = 1, PPC_BY_BAT = 2, PPC_BY_PTE = 3 };
/* WIMG (PTE word 1 bits 25-28, BAT lower bits 25-28). */
enum { PPC_WIMG_W = 8, PPC_WIMG_I = 4, PPC_WIMG_M = 2, PPC_WIMG_G = 1 };

#define PPC_BAT_PAIRS 8

/* The registers a translation depends on. */
typedef struct PpcMmuRegs {
    uint32_t msr;
    uint32_t ibat[PPC_BAT_PAIRS][2], dbat[PPC_BAT_PAIRS][2];     /* [n][0] upper, [n][1] lower */
    unsigned nbats;                     /* BAT pairs in use: 4, or 8 with HID0[HIGH_BAT_EN] */
    uint32_t sr[16];
    uint32_t sdr1;
} PpcMmuRegs;

/* What a successful translation found besides MmuResult's page and permissions. */
typedef struct PpcXlate {
    unsigned wimg;
    bool bat;                           /* through a BAT (else real mode or the page table) */
} PpcXlate;

/* Translate ea for an access `acc` at the privilege of regs->msr (MSR[PR]).  true: r->pa (page),
 * r->perms (UC_PROT_*; write only once the PTE's C bit is set, so a first store fills again), and
 * x (may be NULL); false: r->kind (PPC_MMU_*), r->syndrome (the DSISR, store bit included, or the
 * ISI's SRR1 bits; 0 for a machine check), r->level (PPC_BY_*: what decided), r->entry and
 * r->entry_pa (the segment register and its number; the upper BAT and its number; the PTE's word
 * 0 and its address, or 0 and the primary PTEG when no PTE matched, or the PTE that could not be
 * read).
 * Unless probe, a PTE found sets its R bit, and its C bit for a store that is allowed (PEM §7.5.3). */
bool vcpu_ppc_walk(Cpu *c, const PpcMmuRegs *regs, uint32_t ea, MmuAccess acc, bool probe, MmuResult *r,
                   PpcXlate *x);

#endif
