/* test_cycle_model.c — instruction classification and cycle tables (cpu/cycle_model.c).
 *
 * Each classify_* test hands Capstone the bytes of one instruction, decoded with the options
 * cpu.c uses (x86: CS_MODE_64; arm64: CS_MODE_ARM; ppc32: CS_MODE_32 | CS_MODE_BIG_ENDIAN;
 * detail on), and checks insn_classify's answer.  The bytes were produced with GNU as (x86-64,
 * aarch64-linux-gnu, powerpc-linux-gnu) from the assembly in each comment and pasted here, so
 * the tests need no cross tools.  Every class an architecture produces is covered at least
 * once, with extra cases where Capstone is known to mislead (memory-operand direction on
 * x86, alias ids on PowerPC) or where Capstone 5 would (merged compare ids, lost groups, named
 * hints and barriers: docs/engine.md, "Capstone").  The table tests check the contract of cycle_table_find.
 */
#include <ctype.h>
#include <string.h>

#include "cpu/cycle_model.h"
#include "testutil.h"

static csh cs_handles[ARCH_COUNT];

static void cs_setup(void)
{
    static const struct { cs_arch arch; int mode; } cfg[ARCH_COUNT] = {
        [ARCH_X86_64] = { CS_ARCH_X86, CS_MODE_64 },
        [ARCH_ARM64] = { CS_ARCH_ARM64, CS_MODE_ARM },
        [ARCH_PPC32] = { CS_ARCH_PPC, CS_MODE_32 | CS_MODE_BIG_ENDIAN },
    };
    for (int a = 0; a < ARCH_COUNT; a++) {
        ck_assert_int_eq(cs_open(cfg[a].arch, (cs_mode)cfg[a].mode, &cs_handles[a]), CS_ERR_OK);
        ck_assert_int_eq(cs_option(cs_handles[a], CS_OPT_DETAIL, CS_OPT_ON), CS_ERR_OK);
    }
}

static void cs_teardown(void)
{
    for (int a = 0; a < ARCH_COUNT; a++)
        cs_close(&cs_handles[a]);
}

/* Decode exactly one instruction from code and classify it. */
static InsnClass classify_bytes(Arch arch, const uint8_t *code, size_t len)
{
    cs_insn *insn = NULL;
    size_t n = cs_disasm(cs_handles[arch], code, len, 0x10000, 1, &insn);
    ck_assert_msg(n == 1 && insn[0].size == len, "%s: the %zu bytes are not one instruction",
                  isa_name(arch), len);
    InsnClass got = insn_classify(arch, &insn[0]);
    cs_free(insn, n);
    return got;
}

static void check_class(Arch arch, const uint8_t *code, size_t len, InsnClass expect)
{
    InsnClass got = classify_bytes(arch, code, len);
    ck_assert_msg(got == expect, "%s: classified %s, expected %s", isa_name(arch),
                  insn_class_name(got), insn_class_name(expect));
}

/* X(test name, expected class, bytes...) */
#define X86_CASES(X) \
    X(classify_x86_nop_is_nop, IC_NOP, /* nop dword ptr [rax+rax] */ 0x0f, 0x1f, 0x04, 0x00) \
    X(classify_x86_endbr64_is_nop, IC_NOP, /* endbr64 */ 0xf3, 0x0f, 0x1e, 0xfa) \
    X(classify_x86_prefetch_is_nop, IC_NOP, /* prefetcht0 [rax] */ 0x0f, 0x18, 0x08) \
    X(classify_x86_add_is_alu, IC_ALU, /* add rax, rbx */ 0x48, 0x01, 0xd8) \
    X(classify_x86_lea_is_alu, IC_ALU, /* lea rax, [rbx+8] */ 0x48, 0x8d, 0x43, 0x08) \
    X(classify_x86_xchg_registers_is_alu, IC_ALU, /* xchg rax, rbx */ 0x48, 0x93) \
    X(classify_x86_imul_is_mul, IC_MUL, /* imul rax, rbx */ 0x48, 0x0f, 0xaf, 0xc3) \
    X(classify_x86_div_is_div, IC_DIV, /* div rbx */ 0x48, 0xf7, 0xf3) \
    X(classify_x86_mov_load_is_load, IC_LOAD, /* mov rax, [rbx] */ 0x48, 0x8b, 0x03) \
    X(classify_x86_add_memory_source_is_load, IC_LOAD, /* add rax, [rbx] */ 0x48, 0x03, 0x03) \
    X(classify_x86_cmp_memory_is_load, IC_LOAD, /* cmp qword ptr [rax], rbx */ 0x48, 0x39, 0x18) \
    X(classify_x86_test_memory_is_load, IC_LOAD, /* test byte ptr [rax], 1 */ 0xf6, 0x00, 0x01) \
    X(classify_x86_pop_is_load, IC_LOAD, /* pop rax */ 0x58) \
    X(classify_x86_mov_store_is_store, IC_STORE, /* mov [rax], rbx */ 0x48, 0x89, 0x18) \
    X(classify_x86_push_is_store, IC_STORE, /* push rax */ 0x50) \
    X(classify_x86_movups_store_is_store, IC_STORE, /* movups [rax], xmm0 */ 0x0f, 0x11, 0x00) \
    X(classify_x86_vmovdqu_store_is_store, IC_STORE, /* vmovdqu [rax], ymm0 */ 0xc5, 0xfe, 0x7f, 0x00) \
    X(classify_x86_fstp_memory_is_store, IC_STORE, /* fstp qword ptr [rax] */ 0xdd, 0x18) \
    X(classify_x86_rmw_is_rmw, IC_RMW, /* add [rax], rbx */ 0x48, 0x01, 0x18) \
    X(classify_x86_inc_memory_is_rmw, IC_RMW, /* inc qword ptr [rax] */ 0x48, 0xff, 0x00) \
    X(classify_x86_rol_memory_is_rmw, IC_RMW, /* rol qword ptr [rax], 1 */ 0x48, 0xd1, 0x00) \
    X(classify_x86_lock_add_is_atomic, IC_ATOMIC, /* lock add [rax], rbx */ 0xf0, 0x48, 0x01, 0x18) \
    X(classify_x86_xchg_memory_is_atomic, IC_ATOMIC, /* xchg [rax], rbx */ 0x48, 0x87, 0x18) \
    X(classify_x86_cmpxchg_is_atomic, IC_ATOMIC, /* cmpxchg [rax], rbx */ 0x48, 0x0f, 0xb1, 0x18) \
    X(classify_x86_jne_is_branch, IC_BRANCH, /* jne .+16 */ 0x75, 0x0e) \
    X(classify_x86_jmp_rel_is_branch, IC_BRANCH, /* jmp .+0x100 */ 0xe9, 0xfb, 0x00, 0x00, 0x00) \
    X(classify_x86_loop_is_branch, IC_BRANCH, /* loop . */ 0xe2, 0xfe) \
    X(classify_x86_loopne_is_branch, IC_BRANCH, /* loopne . */ 0xe0, 0xfe) \
    X(classify_x86_jrcxz_is_branch, IC_BRANCH, /* jrcxz . */ 0xe3, 0xfe) \
    X(classify_x86_jecxz_is_branch, IC_BRANCH, /* jecxz . */ 0x67, 0xe3, 0xfe) \
    X(classify_x86_jmp_register_is_branch_ind, IC_BRANCH_IND, /* jmp rax */ 0xff, 0xe0) \
    X(classify_x86_jmp_memory_is_branch_ind, IC_BRANCH_IND, /* jmp qword ptr [rax] */ 0xff, 0x20) \
    X(classify_x86_call_is_call, IC_CALL, /* call .+0x100 */ 0xe8, 0xfb, 0x00, 0x00, 0x00) \
    X(classify_x86_call_register_is_call, IC_CALL, /* call rax */ 0xff, 0xd0) \
    X(classify_x86_call_memory_is_call, IC_CALL, /* call qword ptr [rax] */ 0xff, 0x10) \
    X(classify_x86_ret_is_ret, IC_RET, /* ret */ 0xc3) \
    X(classify_x86_addsd_is_fp, IC_FP, /* addsd xmm0, xmm1 */ 0xf2, 0x0f, 0x58, 0xc1) \
    X(classify_x86_movsd_register_is_fp, IC_FP, /* movsd xmm0, xmm1 */ 0xf2, 0x0f, 0x10, 0xc1) \
    X(classify_x86_vfmadd231sd_is_fp, IC_FP, /* vfmadd231sd xmm0, xmm1, xmm2 */ 0xc4, 0xe2, 0xf1, 0xb9, 0xc2) \
    X(classify_x86_fadd_x87_is_fp, IC_FP, /* fadd st(0), st(1) */ 0xd8, 0xc1) \
    X(classify_x86_divsd_is_fp_div, IC_FP_DIV, /* divsd xmm0, xmm1 */ 0xf2, 0x0f, 0x5e, 0xc1) \
    X(classify_x86_sqrtss_is_fp_div, IC_FP_DIV, /* sqrtss xmm0, xmm1 */ 0xf3, 0x0f, 0x51, 0xc1) \
    X(classify_x86_fdiv_x87_is_fp_div, IC_FP_DIV, /* fdiv st(0), st(1) */ 0xd8, 0xf1) \
    X(classify_x86_paddd_is_simd, IC_SIMD, /* paddd xmm0, xmm1 */ 0x66, 0x0f, 0xfe, 0xc1) \
    X(classify_x86_addps_is_simd, IC_SIMD, /* addps xmm0, xmm1 */ 0x0f, 0x58, 0xc1) \
    X(classify_x86_vpaddd_is_simd, IC_SIMD, /* vpaddd ymm0, ymm1, ymm2 */ 0xc5, 0xf5, 0xfe, 0xc2) \
    X(classify_x86_mfence_is_barrier, IC_BARRIER, /* mfence */ 0x0f, 0xae, 0xf0) \
    X(classify_x86_lfence_is_barrier, IC_BARRIER, /* lfence */ 0x0f, 0xae, 0xe8) \
    X(classify_x86_clflush_is_cache, IC_CACHE, /* clflush [rax] */ 0x0f, 0xae, 0x38) \
    X(classify_x86_wbinvd_is_cache, IC_CACHE, /* wbinvd */ 0x0f, 0x09) \
    X(classify_x86_invlpg_is_cache, IC_CACHE, /* invlpg [rax] */ 0x0f, 0x01, 0x38) \
    X(classify_x86_cpuid_is_system, IC_SYSTEM, /* cpuid */ 0x0f, 0xa2) \
    X(classify_x86_rdtsc_is_system, IC_SYSTEM, /* rdtsc */ 0x0f, 0x31) \
    X(classify_x86_wrmsr_is_system, IC_SYSTEM, /* wrmsr */ 0x0f, 0x30) \
    X(classify_x86_mov_to_cr3_is_system, IC_SYSTEM, /* mov cr3, rax */ 0x0f, 0x22, 0xd8) \
    X(classify_x86_out_is_system, IC_SYSTEM, /* out dx, al */ 0xee) \
    X(classify_x86_iretq_is_system, IC_SYSTEM, /* iretq */ 0x48, 0xcf) \
    X(classify_x86_pushfq_is_system, IC_SYSTEM, /* pushfq */ 0x9c) \
    X(classify_x86_hlt_is_system, IC_SYSTEM, /* hlt */ 0xf4) \
    X(classify_x86_syscall_is_trap, IC_TRAP, /* syscall */ 0x0f, 0x05) \
    X(classify_x86_int3_is_trap, IC_TRAP, /* int3 */ 0xcc) \
    X(classify_x86_ud2_is_trap, IC_TRAP, /* ud2 */ 0x0f, 0x0b) \
    X(classify_x86_sysretq_is_system, IC_SYSTEM, /* sysretq */ 0x48, 0x0f, 0x07) \
    X(classify_x86_cmpltsd_is_fp, IC_FP, /* cmpltsd xmm0, xmm1 */ 0xf2, 0x0f, 0xc2, 0xc1, 0x01) \
    X(classify_x86_cmpltps_is_simd, IC_SIMD, /* cmpltps xmm0, xmm1 */ 0x0f, 0xc2, 0xc1, 0x01) \
    X(classify_x86_vcmpltss_is_fp, IC_FP, /* vcmpltss xmm0, xmm0, xmm1 */ 0xc5, 0xfa, 0xc2, 0xc1, 0x01) \
    X(classify_x86_vcmpltpd_is_simd, IC_SIMD, /* vcmpltpd xmm0, xmm0, xmm1 */ 0xc5, 0xf9, 0xc2, 0xc1, 0x01) \
    X(classify_x86_evex_vcmpltsd_is_fp, IC_FP, /* vcmpltsd k0, xmm0, xmm1 */ 0x62, 0xf1, 0xff, 0x08, 0xc2, 0xc1, 0x01) \
    X(classify_x86_palignr_is_simd, IC_SIMD, /* palignr xmm0, xmm1, 1 */ 0x66, 0x0f, 0x3a, 0x0f, 0xc1, 0x01) \
    X(classify_x86_cvtsi2sd_is_fp, IC_FP, /* cvtsi2sd xmm0, eax */ 0xf2, 0x0f, 0x2a, 0xc0) \
    X(classify_x86_rep_movsb_is_string, IC_STRING, /* rep movsb */ 0xf3, 0xa4) \
    X(classify_x86_stosq_is_string, IC_STRING, /* stosq */ 0x48, 0xab) \
    X(classify_x86_repne_scasb_is_string, IC_STRING, /* repne scasb */ 0xf2, 0xae)

#define ARM64_CASES(X) \
    X(classify_arm64_nop_is_nop, IC_NOP, /* nop */ 0x1f, 0x20, 0x03, 0xd5) \
    X(classify_arm64_paciasp_hint_is_nop, IC_NOP, /* hint #25 */ 0x3f, 0x23, 0x03, 0xd5) \
    X(classify_arm64_autiasp_is_nop, IC_NOP, /* autiasp (hint #29) */ 0xbf, 0x23, 0x03, 0xd5) \
    X(classify_arm64_bti_c_is_nop, IC_NOP, /* bti c (hint #34) */ 0x5f, 0x24, 0x03, 0xd5) \
    X(classify_arm64_csdb_is_nop, IC_NOP, /* csdb (hint #20) */ 0x9f, 0x22, 0x03, 0xd5) \
    X(classify_arm64_wfe_hint_is_system, IC_SYSTEM, /* wfe (hint #2) */ 0x5f, 0x20, 0x03, 0xd5) \
    X(classify_arm64_ssbb_is_barrier, IC_BARRIER, /* ssbb (dsb #0) */ 0x9f, 0x30, 0x03, 0xd5) \
    X(classify_arm64_dfb_is_barrier, IC_BARRIER, /* dfb (dsb #12) */ 0x9f, 0x3c, 0x03, 0xd5) \
    X(classify_arm64_prfm_is_nop, IC_NOP, /* prfm pldl1keep, [x0] */ 0x00, 0x00, 0x80, 0xf9) \
    X(classify_arm64_add_is_alu, IC_ALU, /* add x0, x1, x2 */ 0x20, 0x00, 0x02, 0x8b) \
    X(classify_arm64_crc32_is_alu, IC_ALU, /* crc32x w0, w1, x2 */ 0x20, 0x4c, 0xc2, 0x9a) \
    X(classify_arm64_mul_is_mul, IC_MUL, /* mul x0, x1, x2 */ 0x20, 0x7c, 0x02, 0x9b) \
    X(classify_arm64_madd_is_mul, IC_MUL, /* madd x0, x1, x2, x3 */ 0x20, 0x0c, 0x02, 0x9b) \
    X(classify_arm64_umulh_is_mul, IC_MUL, /* umulh x0, x1, x2 */ 0x20, 0x7c, 0xc2, 0x9b) \
    X(classify_arm64_sdiv_is_div, IC_DIV, /* sdiv x0, x1, x2 */ 0x20, 0x0c, 0xc2, 0x9a) \
    X(classify_arm64_ldr_is_load, IC_LOAD, /* ldr x0, [x1] */ 0x20, 0x00, 0x40, 0xf9) \
    X(classify_arm64_ldr_literal_is_load, IC_LOAD, /* ldr x0, .+16 */ 0x80, 0x00, 0x00, 0x58) \
    X(classify_arm64_ldp_is_load, IC_LOAD, /* ldp x29, x30, [sp], #16 */ 0xfd, 0x7b, 0xc1, 0xa8) \
    X(classify_arm64_ld1_is_load, IC_LOAD, /* ld1 {v0.4s}, [x0] */ 0x00, 0x78, 0x40, 0x4c) \
    X(classify_arm64_str_is_store, IC_STORE, /* str x0, [x1] */ 0x20, 0x00, 0x00, 0xf9) \
    X(classify_arm64_stp_is_store, IC_STORE, /* stp x29, x30, [sp, #-16]! */ 0xfd, 0x7b, 0xbf, 0xa9) \
    X(classify_arm64_stur_is_store, IC_STORE, /* stur w0, [x1, #-4] */ 0x20, 0xc0, 0x1f, 0xb8) \
    X(classify_arm64_ldxr_is_atomic, IC_ATOMIC, /* ldxr x0, [x1] */ 0x20, 0x7c, 0x5f, 0xc8) \
    X(classify_arm64_stlxr_is_atomic, IC_ATOMIC, /* stlxr w2, x0, [x1] */ 0x20, 0xfc, 0x02, 0xc8) \
    X(classify_arm64_ldar_is_atomic, IC_ATOMIC, /* ldar x0, [x1] */ 0x20, 0xfc, 0xdf, 0xc8) \
    X(classify_arm64_b_is_branch, IC_BRANCH, /* b .+16 */ 0x04, 0x00, 0x00, 0x14) \
    X(classify_arm64_b_cond_is_branch, IC_BRANCH, /* b.ne .+16 */ 0x81, 0x00, 0x00, 0x54) \
    X(classify_arm64_cbz_is_branch, IC_BRANCH, /* cbz x0, .+16 */ 0x80, 0x00, 0x00, 0xb4) \
    X(classify_arm64_tbnz_is_branch, IC_BRANCH, /* tbnz x0, #3, .+16 */ 0x80, 0x00, 0x18, 0x37) \
    X(classify_arm64_br_is_branch_ind, IC_BRANCH_IND, /* br x0 */ 0x00, 0x00, 0x1f, 0xd6) \
    X(classify_arm64_bl_is_call, IC_CALL, /* bl .+16 */ 0x04, 0x00, 0x00, 0x94) \
    X(classify_arm64_blr_is_call, IC_CALL, /* blr x0 */ 0x00, 0x00, 0x3f, 0xd6) \
    X(classify_arm64_ret_is_ret, IC_RET, /* ret */ 0xc0, 0x03, 0x5f, 0xd6) \
    X(classify_arm64_fadd_is_fp, IC_FP, /* fadd d0, d1, d2 */ 0x20, 0x28, 0x62, 0x1e) \
    X(classify_arm64_fmov_is_fp, IC_FP, /* fmov d0, x1 */ 0x20, 0x00, 0x67, 0x9e) \
    X(classify_arm64_fdiv_is_fp_div, IC_FP_DIV, /* fdiv d0, d1, d2 */ 0x20, 0x18, 0x62, 0x1e) \
    X(classify_arm64_fsqrt_is_fp_div, IC_FP_DIV, /* fsqrt s0, s1 */ 0x20, 0xc0, 0x21, 0x1e) \
    X(classify_arm64_add_vector_is_simd, IC_SIMD, /* add v0.4s, v1.4s, v2.4s */ 0x20, 0x84, 0xa2, 0x4e) \
    X(classify_arm64_mul_vector_is_simd, IC_SIMD, /* mul v0.4s, v1.4s, v2.4s */ 0x20, 0x9c, 0xa2, 0x4e) \
    X(classify_arm64_fadd_vector_is_simd, IC_SIMD, /* fadd v0.2d, v1.2d, v2.2d */ 0x20, 0xd4, 0x62, 0x4e) \
    X(classify_arm64_dmb_is_barrier, IC_BARRIER, /* dmb ish */ 0xbf, 0x3b, 0x03, 0xd5) \
    X(classify_arm64_isb_is_barrier, IC_BARRIER, /* isb */ 0xdf, 0x3f, 0x03, 0xd5) \
    X(classify_arm64_dc_civac_is_cache, IC_CACHE, /* dc civac, x0 */ 0x20, 0x7e, 0x0b, 0xd5) \
    X(classify_arm64_ic_ivau_is_cache, IC_CACHE, /* ic ivau, x0 */ 0x20, 0x75, 0x0b, 0xd5) \
    X(classify_arm64_mrs_is_system, IC_SYSTEM, /* mrs x0, cntvct_el0 */ 0x40, 0xe0, 0x3b, 0xd5) \
    X(classify_arm64_msr_is_system, IC_SYSTEM, /* msr daifset, #2 */ 0xdf, 0x42, 0x03, 0xd5) \
    X(classify_arm64_tlbi_is_system, IC_SYSTEM, /* tlbi vmalle1 */ 0x1f, 0x87, 0x08, 0xd5) \
    X(classify_arm64_wfi_is_system, IC_SYSTEM, /* wfi */ 0x7f, 0x20, 0x03, 0xd5) \
    X(classify_arm64_eret_is_system, IC_SYSTEM, /* eret */ 0xe0, 0x03, 0x9f, 0xd6) \
    X(classify_arm64_svc_is_trap, IC_TRAP, /* svc #0 */ 0x01, 0x00, 0x00, 0xd4) \
    X(classify_arm64_hvc_is_trap, IC_TRAP, /* hvc #0 */ 0x02, 0x00, 0x00, 0xd4) \
    X(classify_arm64_brk_is_trap, IC_TRAP, /* brk #1 */ 0x20, 0x00, 0x20, 0xd4)

#define PPC_CASES(X) \
    X(classify_ppc_nop_is_nop, IC_NOP, /* nop */ 0x60, 0x00, 0x00, 0x00) \
    X(classify_ppc_dcbt_is_nop, IC_NOP, /* dcbt 0, 3 */ 0x7c, 0x00, 0x1a, 0x2c) \
    X(classify_ppc_add_is_alu, IC_ALU, /* add 3, 4, 5 */ 0x7c, 0x64, 0x2a, 0x14) \
    X(classify_ppc_ori_nonzero_is_alu, IC_ALU, /* ori 3, 3, 1 */ 0x60, 0x63, 0x00, 0x01) \
    X(classify_ppc_mfcr_is_alu, IC_ALU, /* mfcr 3 */ 0x7c, 0x60, 0x00, 0x26) \
    X(classify_ppc_mcrf_is_alu, IC_ALU, /* mcrf 0, 1 */ 0x4c, 0x04, 0x00, 0x00) \
    X(classify_ppc_mullw_is_mul, IC_MUL, /* mullw 3, 4, 5 */ 0x7c, 0x64, 0x29, 0xd6) \
    X(classify_ppc_mulhwu_is_mul, IC_MUL, /* mulhwu 3, 4, 5 */ 0x7c, 0x64, 0x28, 0x16) \
    X(classify_ppc_mulli_is_mul, IC_MUL, /* mulli 3, 4, 7 */ 0x1c, 0x64, 0x00, 0x07) \
    X(classify_ppc_divw_is_div, IC_DIV, /* divw 3, 4, 5 */ 0x7c, 0x64, 0x2b, 0xd6) \
    X(classify_ppc_divwu_record_is_div, IC_DIV, /* divwu. 3, 4, 5 */ 0x7c, 0x64, 0x2b, 0x97) \
    X(classify_ppc_lwz_is_load, IC_LOAD, /* lwz 3, 8(4) */ 0x80, 0x64, 0x00, 0x08) \
    X(classify_ppc_lbzux_is_load, IC_LOAD, /* lbzux 3, 4, 5 */ 0x7c, 0x64, 0x28, 0xee) \
    X(classify_ppc_lwbrx_is_load, IC_LOAD, /* lwbrx 3, 4, 5 */ 0x7c, 0x64, 0x2c, 0x2c) \
    X(classify_ppc_lmw_is_load, IC_LOAD, /* lmw 28, 0(1) */ 0xbb, 0x81, 0x00, 0x00) \
    X(classify_ppc_lfd_is_load, IC_LOAD, /* lfd 1, 0(4) */ 0xc8, 0x24, 0x00, 0x00) \
    X(classify_ppc_stw_is_store, IC_STORE, /* stw 3, 0(4) */ 0x90, 0x64, 0x00, 0x00) \
    X(classify_ppc_stwu_is_store, IC_STORE, /* stwu 1, -16(1) */ 0x94, 0x21, 0xff, 0xf0) \
    X(classify_ppc_stwbrx_is_store, IC_STORE, /* stwbrx 3, 4, 5 */ 0x7c, 0x64, 0x2d, 0x2c) \
    X(classify_ppc_stfd_is_store, IC_STORE, /* stfd 1, 0(4) */ 0xd8, 0x24, 0x00, 0x00) \
    X(classify_ppc_lwarx_is_atomic, IC_ATOMIC, /* lwarx 3, 0, 4 */ 0x7c, 0x60, 0x20, 0x28) \
    X(classify_ppc_stwcx_is_atomic, IC_ATOMIC, /* stwcx. 3, 0, 4 */ 0x7c, 0x60, 0x21, 0x2d) \
    X(classify_ppc_b_is_branch, IC_BRANCH, /* b .+16 */ 0x48, 0x00, 0x00, 0x10) \
    X(classify_ppc_beq_is_branch, IC_BRANCH, /* beq .+16 */ 0x41, 0x82, 0x00, 0x10) \
    X(classify_ppc_bdnz_is_branch, IC_BRANCH, /* bdnz .+16 */ 0x42, 0x00, 0x00, 0x10) \
    X(classify_ppc_bctr_is_branch_ind, IC_BRANCH_IND, /* bctr */ 0x4e, 0x80, 0x04, 0x20) \
    X(classify_ppc_bl_is_call, IC_CALL, /* bl .+16 */ 0x48, 0x00, 0x00, 0x11) \
    X(classify_ppc_bcl_is_call, IC_CALL, /* bcl 20, 31, .+4 */ 0x42, 0x9f, 0x00, 0x05) \
    X(classify_ppc_bctrl_is_call, IC_CALL, /* bctrl */ 0x4e, 0x80, 0x04, 0x21) \
    X(classify_ppc_blrl_is_call, IC_CALL, /* blrl */ 0x4e, 0x80, 0x00, 0x21) \
    X(classify_ppc_blr_is_ret, IC_RET, /* blr */ 0x4e, 0x80, 0x00, 0x20) \
    X(classify_ppc_beqlr_is_ret, IC_RET, /* beqlr */ 0x4d, 0x82, 0x00, 0x20) \
    X(classify_ppc_fadd_is_fp, IC_FP, /* fadd 1, 2, 3 */ 0xfc, 0x22, 0x18, 0x2a) \
    X(classify_ppc_fmadds_is_fp, IC_FP, /* fmadds 1, 2, 3, 4 */ 0xec, 0x22, 0x20, 0xfa) \
    X(classify_ppc_fmr_is_fp, IC_FP, /* fmr 1, 2 */ 0xfc, 0x20, 0x10, 0x90) \
    X(classify_ppc_fdiv_is_fp_div, IC_FP_DIV, /* fdiv 1, 2, 3 */ 0xfc, 0x22, 0x18, 0x24) \
    X(classify_ppc_fdivs_is_fp_div, IC_FP_DIV, /* fdivs 1, 2, 3 */ 0xec, 0x22, 0x18, 0x24) \
    X(classify_ppc_fsqrt_is_fp_div, IC_FP_DIV, /* fsqrt 1, 2 */ 0xfc, 0x20, 0x10, 0x2c) \
    X(classify_ppc_vaddubm_is_simd, IC_SIMD, /* vaddubm 0, 1, 2 */ 0x10, 0x01, 0x10, 0x00) \
    X(classify_ppc_vperm_is_simd, IC_SIMD, /* vperm 0, 1, 2, 3 */ 0x10, 0x01, 0x10, 0xeb) \
    X(classify_ppc_lvx_is_load, IC_LOAD, /* lvx 0, 3, 4 */ 0x7c, 0x03, 0x20, 0xce) \
    X(classify_ppc_sync_is_barrier, IC_BARRIER, /* sync */ 0x7c, 0x00, 0x04, 0xac) \
    X(classify_ppc_lwsync_is_barrier, IC_BARRIER, /* lwsync */ 0x7c, 0x20, 0x04, 0xac) \
    X(classify_ppc_isync_is_barrier, IC_BARRIER, /* isync */ 0x4c, 0x00, 0x01, 0x2c) \
    X(classify_ppc_eieio_is_barrier, IC_BARRIER, /* eieio */ 0x7c, 0x00, 0x06, 0xac) \
    X(classify_ppc_dcbf_is_cache, IC_CACHE, /* dcbf 0, 3 */ 0x7c, 0x00, 0x18, 0xac) \
    X(classify_ppc_dcbz_is_cache, IC_CACHE, /* dcbz 0, 3 */ 0x7c, 0x00, 0x1f, 0xec) \
    X(classify_ppc_icbi_is_cache, IC_CACHE, /* icbi 0, 3 */ 0x7c, 0x00, 0x1f, 0xac) \
    X(classify_ppc_mftb_is_system, IC_SYSTEM, /* mftb 3 */ 0x7c, 0x6c, 0x42, 0xe6) \
    X(classify_ppc_mflr_is_system, IC_SYSTEM, /* mflr 0 */ 0x7c, 0x08, 0x02, 0xa6) \
    X(classify_ppc_mtspr_is_system, IC_SYSTEM, /* mtspr 272, 3 */ 0x7c, 0x70, 0x43, 0xa6) \
    X(classify_ppc_mtmsr_is_system, IC_SYSTEM, /* mtmsr 3 */ 0x7c, 0x60, 0x01, 0x24) \
    X(classify_ppc_tlbie_is_system, IC_SYSTEM, /* tlbie 3 */ 0x7c, 0x00, 0x1a, 0x64) \
    X(classify_ppc_rfi_is_system, IC_SYSTEM, /* rfi */ 0x4c, 0x00, 0x00, 0x64) \
    X(classify_ppc_sc_is_trap, IC_TRAP, /* sc */ 0x44, 0x00, 0x00, 0x02) \
    X(classify_ppc_trap_is_trap, IC_TRAP, /* trap */ 0x7f, 0xe0, 0x00, 0x08) \
    X(classify_ppc_twi_is_trap, IC_TRAP, /* twgti 3, 5 */ 0x0d, 0x03, 0x00, 0x05)


#define CLASSIFY_TEST(arch, name, expect, ...)                     \
    START_TEST(name)                                                \
    {                                                               \
        static const uint8_t code[] = { __VA_ARGS__ };              \
        check_class(arch, code, sizeof code, expect);               \
    }                                                               \
    END_TEST
#define X86_TEST(name, expect, ...) CLASSIFY_TEST(ARCH_X86_64, name, expect, __VA_ARGS__)
#define ARM64_TEST(name, expect, ...) CLASSIFY_TEST(ARCH_ARM64, name, expect, __VA_ARGS__)
#define PPC_TEST(name, expect, ...) CLASSIFY_TEST(ARCH_PPC32, name, expect, __VA_ARGS__)
X86_CASES(X86_TEST)
ARM64_CASES(ARM64_TEST)
PPC_CASES(PPC_TEST)

/* The scalar-FP lookup behind x86 SSE/AVX classification is built on first use: the answer
 * must not depend on what was classified before. */
START_TEST(classify_x86_repeated_is_stable)
{
    static const uint8_t addsd[] = { 0xf2, 0x0f, 0x58, 0xc1 };     /* addsd xmm0, xmm1 */
    static const uint8_t addps[] = { 0x0f, 0x58, 0xc1 };           /* addps xmm0, xmm1 */
    for (int round = 0; round < 2; round++) {
        ck_assert_int_eq(classify_bytes(ARCH_X86_64, addsd, sizeof addsd), IC_FP);
        ck_assert_int_eq(classify_bytes(ARCH_X86_64, addps, sizeof addps), IC_SIMD);
    }
}
END_TEST

/* The control transfers behind the branch events (insn_branch_kind): the loop family is a
 * conditional branch on RCX although Capstone leaves it out of its jump group; retfq, an id of
 * its own, is a far transfer like retf and the 64-bit sysret/sysexit. */
START_TEST(branch_kind_x86_loop_family_and_far_returns)
{
    static const struct { uint8_t code[4]; size_t len; BranchKind want; } cases[] = {
        { { 0xe2, 0xfe }, 2, BR_COND },                 /* loop . */
        { { 0xe1, 0xfe }, 2, BR_COND },                 /* loope . */
        { { 0xe0, 0xfe }, 2, BR_COND },                 /* loopne . */
        { { 0xe3, 0xfe }, 2, BR_COND },                 /* jrcxz . */
        { { 0x67, 0xe3, 0xfe }, 3, BR_COND },           /* jecxz . */
        { { 0x74, 0xfe }, 2, BR_COND },                 /* je . */
        { { 0xeb, 0xfe }, 2, BR_JUMP },                 /* jmp . */
        { { 0x48, 0x0f, 0x07 }, 3, BR_FAR },            /* sysretq */
        { { 0x0f, 0x07 }, 2, BR_FAR },                  /* sysret (to compatibility mode) */
        { { 0x48, 0x0f, 0x35 }, 3, BR_FAR },            /* sysexitq */
        { { 0x48, 0xcb }, 2, BR_FAR },                  /* retfq */
        { { 0xcb }, 1, BR_FAR },                        /* retf */
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        cs_insn *insn = NULL;
        size_t n = cs_disasm(cs_handles[ARCH_X86_64], cases[i].code, cases[i].len, 0x10000, 1, &insn);
        ck_assert_msg(n == 1 && insn[0].size == cases[i].len, "case %zu: not one instruction", i);
        BranchKind got = insn_branch_kind(ARCH_X86_64, &insn[0]);
        ck_assert_msg(got == cases[i].want, "case %zu (%s): branch kind %d, expected %d", i, insn[0].mnemonic,
                      (int)got, (int)cases[i].want);
        cs_free(insn, n);
    }
}
END_TEST

/* An id no switch knows, with no groups and no operands, is plain integer work. */
START_TEST(classify_unknown_id_is_alu)
{
    cs_detail detail;
    memset(&detail, 0, sizeof detail);
    cs_insn insn;
    memset(&insn, 0, sizeof insn);
    insn.detail = &detail;
    insn.size = 4;                      /* ppc32: the all-zero word is no instruction */
    for (int a = 0; a < ARCH_COUNT; a++)
        ck_assert_str_eq(insn_class_name(insn_classify((Arch)a, &insn)), "alu");
}
END_TEST

START_TEST(classify_without_detail_is_alu)
{
    cs_insn insn;
    memset(&insn, 0, sizeof insn);
    insn.id = X86_INS_DIV;
    ck_assert_int_eq(insn_classify(ARCH_X86_64, &insn), IC_ALU);
    insn.id = ARM64_INS_SDIV;
    ck_assert_int_eq(insn_classify(ARCH_ARM64, &insn), IC_ALU);
    ck_assert_int_eq(insn_classify(ARCH_NONE, &insn), IC_ALU);
    ck_assert_int_eq(insn_classify(ARCH_X86_64, NULL), IC_ALU);
}
END_TEST

/* ------------------------------------------------------------------ tables */

static const char *const model_names[] = {
    "x86-64-generic", "cortex-a53", "cortex-a57", "cortex-a72", "mpc7450", "mpc7447a", "mpc7448",
};

START_TEST(cycle_table_every_model_exists)
{
    for (size_t i = 0; i < ARRAY_SIZE(model_names); i++) {
        const CycleTable *t = cycle_table_find(model_names[i]);
        ck_assert_msg(t != NULL, "no table for %s", model_names[i]);
        ck_assert_str_eq(t->name, model_names[i]);
        ck_assert_msg(t->source && t->source[0], "%s has no source", model_names[i]);
    }
}
END_TEST

START_TEST(cycle_table_every_cost_at_least_one)
{
    for (size_t i = 0; i < ARRAY_SIZE(model_names); i++) {
        const CycleTable *t = cycle_table_find(model_names[i]);
        ck_assert_ptr_nonnull(t);
        for (int c = 0; c < IC_COUNT; c++)
            ck_assert_msg(t->cost[c] >= 1, "%s: %s costs 0", t->name,
                          insn_class_name((InsnClass)c));
    }
}
END_TEST

START_TEST(cycle_table_unknown_model_is_null)
{
    ck_assert_ptr_null(cycle_table_find("cortex-a76"));
    ck_assert_ptr_null(cycle_table_find("MPC7450"));
    ck_assert_ptr_null(cycle_table_find(""));
    ck_assert_ptr_null(cycle_table_find(NULL));
}
END_TEST

START_TEST(cycle_table_mpc7450_div_exceeds_mul_exceeds_alu)
{
    static const char *const ppc[] = { "mpc7450", "mpc7447a", "mpc7448" };
    for (size_t i = 0; i < ARRAY_SIZE(ppc); i++) {
        const CycleTable *t = cycle_table_find(ppc[i]);
        ck_assert_ptr_nonnull(t);
        ck_assert_int_gt(t->cost[IC_DIV], t->cost[IC_MUL]);
        ck_assert_int_gt(t->cost[IC_MUL], t->cost[IC_ALU]);
        ck_assert_int_gt(t->cost[IC_FP_DIV], t->cost[IC_FP]);
    }
}
END_TEST

START_TEST(cycle_table_every_model_orders_long_ops)
{
    for (size_t i = 0; i < ARRAY_SIZE(model_names); i++) {
        const CycleTable *t = cycle_table_find(model_names[i]);
        ck_assert_ptr_nonnull(t);
        ck_assert_msg(t->cost[IC_DIV] > t->cost[IC_MUL] && t->cost[IC_MUL] > t->cost[IC_ALU],
                      "%s: div/mul/alu out of order", t->name);
        ck_assert_msg(t->cost[IC_FP_DIV] > t->cost[IC_FP], "%s: fp_div <= fp", t->name);
    }
}
END_TEST

START_TEST(insn_class_name_every_class_has_short_lowercase_name)
{
    for (int c = 0; c < IC_COUNT; c++) {
        const char *name = insn_class_name((InsnClass)c);
        ck_assert_ptr_nonnull(name);
        ck_assert_msg(name[0] && strlen(name) <= 12, "class %d name '%s'", c, name);
        for (const char *p = name; *p; p++)
            ck_assert_msg(islower((unsigned char)*p) || *p == '_', "class %d name '%s'", c, name);
        for (int d = 0; d < c; d++)
            ck_assert_str_ne(name, insn_class_name((InsnClass)d));
    }
    ck_assert_str_eq(insn_class_name(IC_ALU), "alu");
    ck_assert_str_eq(insn_class_name(IC_LOAD), "load");
    ck_assert_str_eq(insn_class_name(IC_BRANCH_IND), "branch_ind");
    ck_assert_str_eq(insn_class_name(IC_FP_DIV), "fp_div");
    ck_assert_str_eq(insn_class_name(IC_COUNT), "?");
}
END_TEST

static Suite *cycle_model_suite(void)
{
    Suite *s = suite_create("cycle_model");
    TCase *tc;

#define ADD_TEST(name, ...) tcase_add_test(tc, name);
    tc = tcase_create("classify_x86");
    tcase_add_checked_fixture(tc, cs_setup, cs_teardown);
    X86_CASES(ADD_TEST)
    tcase_add_test(tc, classify_x86_repeated_is_stable);
    tcase_add_test(tc, branch_kind_x86_loop_family_and_far_returns);
    suite_add_tcase(s, tc);

    tc = tcase_create("classify_arm64");
    tcase_add_checked_fixture(tc, cs_setup, cs_teardown);
    ARM64_CASES(ADD_TEST)
    suite_add_tcase(s, tc);

    tc = tcase_create("classify_ppc");
    tcase_add_checked_fixture(tc, cs_setup, cs_teardown);
    PPC_CASES(ADD_TEST)
    suite_add_tcase(s, tc);
#undef ADD_TEST

    tc = tcase_create("classify_edge");
    tcase_add_test(tc, classify_unknown_id_is_alu);
    tcase_add_test(tc, classify_without_detail_is_alu);
    suite_add_tcase(s, tc);

    tc = tcase_create("tables");
    tcase_add_test(tc, cycle_table_every_model_exists);
    tcase_add_test(tc, cycle_table_every_cost_at_least_one);
    tcase_add_test(tc, cycle_table_unknown_model_is_null);
    tcase_add_test(tc, cycle_table_mpc7450_div_exceeds_mul_exceeds_alu);
    tcase_add_test(tc, cycle_table_every_model_orders_long_ops);
    tcase_add_test(tc, insn_class_name_every_class_has_short_lowercase_name);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return testutil_run(cycle_model_suite());
}
