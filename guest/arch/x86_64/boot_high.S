/* boot_high.S (x86_64) — the entry of the guests linked at Linux's kernel address (the -high
 * guests: link.ld.S with KERNEL_HIGH).  Their code and data are linked at
 * KERNEL_VBASE + physical (0xffffffff80000000 + 1 MiB, Linux's __START_KERNEL_map and
 * LOAD_PHYSICAL_ADDR's default) and loaded at the physical address.  pmusim enters at the
 * physical address of _start_phys with the boot identity map of 0-4 GiB (docs/guest-abi.md),
 * so this code runs at its load address until the jump: it uses only RIP-relative addresses.
 *
 * The kernel map is Linux's (arch/x86/kernel/head_64.S): PML4 entry 511 -> level3_kernel, whose
 * entry 510 -> level2_kernel, 512 2 MiB pages mapping the first 1 GiB of physical memory at
 * KERNEL_VBASE.  The entry goes into the boot PML4 CR3 points to, which every CPU starts with:
 * a secondary released later finds the kernel map already there.  The identity map stays (the
 * device windows, the DTB and the spin tables are reached through it).
 */
#include "config.h"
#include "kernel_map.h"

#define PTE_P       0x001
#define PTE_W       0x002
#define PTE_PS      0x080                       /* a 2 MiB page in a page-directory entry */
#define PML4_KERNEL 511                         /* (KERNEL_VBASE >> 39) & 511 */
#define PDPT_KERNEL 510                         /* (KERNEL_VBASE >> 30) & 511 */

    .section .text.head, "ax"
    .code64
    .global _start_phys
_start_phys:
    leaq    level3_kernel(%rip), %rax           /* physical: we run at the load address */
    orq     $(PTE_P | PTE_W), %rax
    movq    %cr3, %rbx
    movq    %rax, PML4_KERNEL * 8(%rbx)
    movq    %rbx, %cr3                          /* drop stale translations of that entry */
    movabsq $_start64, %rax                     /* the kernel's own address from here on */
    jmp     *%rax

#include "boot_gdt.h"

    .section .data.pagetables, "aw"
    .balign 4096
level3_kernel:
    .fill   PDPT_KERNEL, 8, 0
    .quad   level2_kernel - KERNEL_VBASE + (PTE_P | PTE_W)
    .quad   0
    .balign 4096
level2_kernel:
    .set    i, 0
    .rept   512
    .quad   (i << 21) + (PTE_P | PTE_W | PTE_PS)
    .set    i, i + 1
    .endr

    .section .note.GNU-stack, "", @progbits
