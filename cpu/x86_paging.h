/* x86_paging.h — x86-64 4-level paging, walked by pmusim (the x86 backend's CpuOps.translate;
 * cpu/mmu.c fills the engine's TLB from it). */
#ifndef PMUSIM_X86_PAGING_H
#define PMUSIM_X86_PAGING_H

#include "cpu/cpu.h"

/* #PF error code bits (Intel SDM vol. 3A §4.7, figure 4-12). */
enum {
    PF_ERR_P = 1u << 0,         /* a protection violation (0: a not-present page) */
    PF_ERR_W = 1u << 1,         /* the access was a write */
    PF_ERR_U = 1u << 2,         /* the access was a user-mode access (CPL 3) */
    PF_ERR_RSVD = 1u << 3,      /* a reserved bit set in a paging-structure entry */
    PF_ERR_I = 1u << 4,         /* an instruction fetch (with NX or SMEP enabled) */
};

/* MmuResult.kind for x86: the exception the access raises. */
enum { X86_MMU_PF = 14, X86_MMU_GP = 13 };

/* The registers a translation depends on. */
typedef struct X86PagingRegs {
    uint64_t cr0, cr3, cr4, efer, rflags;
    unsigned cpl;
} X86PagingRegs;

/* Translate linear address va for an access `acc` made with privilege `user` (CPL 3) or
 * supervisor (implicit accesses: exception delivery, descriptor tables).  true: r->pa (page)
 * and r->perms; false: r->kind, r->syndrome (the #PF error code) and the deciding entry.
 * Not probe: accessed and dirty flags are set as the processor sets them. */
bool vcpu_x86_walk(Cpu *c, const X86PagingRegs *regs, uint64_t va, MmuAccess acc, bool user, bool probe,
              MmuResult *r);

#endif
