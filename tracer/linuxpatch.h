/* linuxpatch.h — the patch sites of an arm64 Linux Image, from the kernel's own tables.
 *
 * An Image has no section headers: each table is found by the kallsyms (or --symbols) bounds the
 * linker script gives it (Linux 6.12 include/asm-generic/vmlinux.lds.h,
 * arch/arm64/kernel/vmlinux.lds.S), and read from the Image's bytes:
 *
 *   __start_mcount_loc .. __stop_mcount_loc      u64 link addresses of each function's
 *       patchable entry (-fpatchable-function-entry; 0: a weak function the build dropped).
 *       With DYNAMIC_FTRACE_WITH_CALL_OPS (=4,2; the symbol ftrace_list_ops says so) the entry
 *       is 8-aligned and starts with the 8-byte ops literal, then [BTI C], then the two NOPs
 *       (arch/arm64/kernel/ftrace.c ftrace_call_adjust): a PATCH_OPS site and a PATCH_FTRACE site.
 *   __start___jump_table .. __stop___jump_table  struct jump_entry { s32 code; s32 target; long key; }
 *   __alt_instructions .. __alt_instructions_end struct alt_instr { s32 orig_offset; s32 alt_offset;
 *       u16 cpucap; u8 orig_len; u8 alt_len; } (asm/alternative-macros.h); cpucap bit 15
 *       (ARM64_CB_BIT): alt_offset is a callback that writes the code itself.
 *   __start_runtime_{shift,ptr}_NAME .. __stop_*  s32 each: a runtime constant's instructions
 *       (asm/runtime-const.h: ptr, MOVZ + 3 MOVK, only their imm16 rewritten; shift, one
 *       instruction, only its immr).
 *   __hyp_reloc_begin .. __hyp_reloc_end         s32 each: a 64-bit word of the KVM hyp text
 *       that kvm_apply_hyp_relocations turns into a hyp VA (arch/arm64/kvm/va_layout.c).
 *   __init_begin .. __init_end                   freed and poisoned by free_initmem.
 *
 * Relative fields are relative to their own address.  Link addresses go to physical ones
 * through the Image's placement (image_load_addr).  Every table entry is checked against the
 * Image; a malformed one is an error naming the file, the table, the entry and its offset.
 */
#ifndef PMUSIM_LINUXPATCH_H
#define PMUSIM_LINUXPATCH_H

#include "base/common.h"
#include "base/loader.h"

typedef struct PatchCheck PatchCheck;

/* asm/runtime-const.h: the sites' lengths and the bits __runtime_fixup_* keep. */
#define LINUX_RTCONST_SHIFT_LEN 4
#define LINUX_RTCONST_SHIFT_KEEP 0xffc0ffffu
#define LINUX_RTCONST_PTR_LEN 16
#define LINUX_RTCONST_PTR_KEEP 0xffe0001fu

/* include/linux/poison.h: what free_initmem fills the init sections with. */
#define LINUX_POISON_FREE_INITMEM 0xccu

/* The sites of every table the image's symbols bound (none: nothing to do, true).  Sets
 * pc->linux_tables when a table was found. */
bool linuxpatch_load(PatchCheck *pc, const Image *im, Error *err);

/* An alternative's replacement instruction as __apply_alternatives writes it at orig (link
 * addresses): a branch out of the replacement and an ADRP keep their target (get_alt_insn). */
uint32_t linuxpatch_alt_insn(uint32_t insn, uint64_t orig, uint64_t alt, uint64_t alt_start, unsigned alt_len);

#endif
