/* paging.h — the paging guest's interface to the architecture's MMU (arch/<arch>/paging.c).
 *
 * The guest keeps its own code and data where they are and adds a demand window: PAGING_PAGES
 * pages at paging_window, mapped one 4 KiB page at a time to pages of a pool, as a kernel maps
 * pages on demand.  The faults it provokes come back to the common driver (paging.c) with the
 * address and the syndrome the architecture reports (x86 CR2 and #PF error code, arm64 FAR_EL1
 * and ESR_EL1, ppc32 DAR and DSISR). */
#ifndef GUEST_PAGING_H
#define GUEST_PAGING_H

#include "guest.h"
#include "trap.h"

#define PAGING_PAGES 16
#define PAGING_PAGE 4096ul

/* How a window page is mapped.  PG_RW_NX_RESERVED: with a bit the walk must refuse (x86: a
 * reserved bit; arm64: an output address above TCR_EL1.IPS; ppc32: a direct-store segment).
 * PG_RW_NO_AF (arm64 only): the Access flag clear.  PG_RW_UNCACHED (ppc32 only): caching
 * inhibited.  PG_USER_*: user-accessible (the others are the kernel's only). */
enum paging_prot { PG_NONE, PG_RO, PG_RW, PG_RWX, PG_RW_NX_RESERVED, PG_RW_NO_AF, PG_USER_RO, PG_USER_RW,
                   PG_USER_RX, PG_RW_UNCACHED };

extern unsigned long paging_window;                 /* the window's first virtual address */

/* Take over the MMU: the guest's own mappings, plus an empty window; enable what the cases
 * need (x86: EFER.NXE). */
void paging_arch_init(void);
/* Map window page i to physical page pa (PG_NONE: unmap), and drop its TLB entry. */
void paging_map(unsigned i, unsigned long pa, enum paging_prot prot);
/* The trap numbers of a page fault on a data access and on an instruction fetch (the same on
 * x86; arm64: Data Abort and Instruction Abort); what the fault reported. */
unsigned paging_fault_trapno(void);
unsigned paging_fetch_fault_trapno(void);
/* ... and of a page fault on a data access by user code (x86: #PF again; arm64: a Data Abort
 * from EL0, a class of its own). */
unsigned paging_user_fault_trapno(void);
unsigned long paging_fault_address(const struct trap_frame *f);
unsigned long paging_fault_syndrome(const struct trap_frame *f);
/* The accessed and dirty state in window page i's entry: bit 0 A, bit 1 D (x86: set by the
 * walker; arm64: AF, set by the guest, and no D). */
unsigned paging_used_bits(unsigned i);
/* Write at p a function that returns v (< 128).  The two forms have the same size and
 * different instruction counts where the ISA allows it (x86): under --icount-check a CPU that
 * counted stale code, decoded before a remap or a write, shows. */
void paging_put_return(void *p, unsigned v, bool other_form);

/* Copy the architecture's user program into code_page (mapped user-executable at code_va) and
 * run it in user mode on the stack ending at stack_top until it makes its last system call
 * (arch/<arch>/paging_user.S).  It reads window page 10 (absent), writes page 12 (user
 * read-only), reads page 13 (supervisor only), makes one system call with 41 (answered 42),
 * and stores the answer at window page 10.  Returns the system calls it made. */
unsigned long paging_run_user(void *code_page, unsigned long code_va, unsigned long stack_top);

#endif
