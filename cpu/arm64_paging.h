/* arm64_paging.h — the AArch64 EL1&0 stage 1 translation regime, walked by pmusim (the arm64
 * backend's CpuOps.translate; cpu/mmu.c fills the engine's TLB from it). */
#ifndef PMUSIM_ARM64_PAGING_H
#define PMUSIM_ARM64_PAGING_H

#include "cpu/cpu.h"

/* Fault status codes, ESR_ELx.ISS DFSC/IFSC bits 5:0 without the level (DDI 0487 D17.2,
 * ESR_EL1: "DFSC"); the level (0..3) is added in bits 1:0. */
enum {
    A64_FSC_ADDR_SIZE = 0x00,           /* Address size fault, level 0..3 */
    A64_FSC_TRANSLATION = 0x04,         /* Translation fault */
    A64_FSC_ACCESS_FLAG = 0x08,         /* Access flag fault */
    A64_FSC_PERMISSION = 0x0c,          /* Permission fault */
    A64_FSC_EXT_ABORT = 0x10,           /* Synchronous External abort, not on a walk */
    A64_FSC_EXT_ABORT_WALK = 0x14,      /* Synchronous External abort on a translation table walk */
};

/* The registers a translation depends on. */
typedef struct A64PagingRegs {
    uint64_t sctlr, tcr, ttbr0, ttbr1;
    uint64_t mmfr0;                     /* ID_AA64MMFR0_EL1: PARange */
} A64PagingRegs;

/* Translate va for an access `acc` made at EL0 (el0) or EL1.  true: r->pa (page) and r->perms
 * (UC_PROT_*, at that EL); false: r->syndrome = the fault status code with its level, r->level,
 * the deciding descriptor (r->entry, r->entry_pa) and r->kind: the FSC without the level.  No
 * descriptor is ever written (no FEAT_HAFDBS). */
bool vcpu_a64_walk(Cpu *c, const A64PagingRegs *regs, uint64_t va, MmuAccess acc, bool el0, MmuResult *r);

#endif
