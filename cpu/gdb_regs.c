/* gdb_regs.c — the register tables of gdb_regs.h, one per architecture, and their access.
 *
 * x86-64: org.gnu.gdb.i386.core (16 GPRs, rip, eflags, 6 selectors, st0-7, 8 x87 control
 *   registers), .sse (xmm0-15, mxcsr), .segments (fs_base, gs_base), and pmusim's
 *   org.pmusim.i386.system (cr0, cr2, cr3, cr4).
 * AArch64: org.gnu.gdb.aarch64.core (x0-x30, sp, pc, cpsr), .fpu (v0-v31, fpsr, fpcr), and
 *   pmusim's org.pmusim.aarch64.sysregs (the EL1 exception and translation registers, the
 *   generic timer's, and the PMU's: PMCR_EL0 ... PMEVCNTR5_EL0).
 * PowerPC 7450: org.gnu.gdb.power.core (r0-r31, pc, msr, cr, lr, ctr, xer), .fpu (f0-f31,
 *   fpscr), and pmusim's org.pmusim.power.spr (SRR0/1, SPRG0-3, DAR, DSISR, SDR1, DEC, TBL/TBU,
 *   PVR, PIR, HID0, and the performance monitor: MMCR0-2, PMC1-6, SIAR; MPC7450 RM table 2-1).
 */
#include "cpu/gdb_regs.h"

#include <stdio.h>
#include <string.h>

#include "base/a64sysreg.h"
#include "cpu/cpu.h"

#define ENG(n, b, t, g, id) { n, b, t, g, GR_ENGINE, id }
#define BK(n, b, id) { n, b, "int", "system", GR_BACKEND, id }

static const GdbReg x86_core[] = {
    ENG("rax", 64, "int64", NULL, UC_X86_REG_RAX),
    ENG("rbx", 64, "int64", NULL, UC_X86_REG_RBX),
    ENG("rcx", 64, "int64", NULL, UC_X86_REG_RCX),
    ENG("rdx", 64, "int64", NULL, UC_X86_REG_RDX),
    ENG("rsi", 64, "int64", NULL, UC_X86_REG_RSI),
    ENG("rdi", 64, "int64", NULL, UC_X86_REG_RDI),
    ENG("rbp", 64, "data_ptr", NULL, UC_X86_REG_RBP),
    ENG("rsp", 64, "data_ptr", NULL, UC_X86_REG_RSP),
    ENG("r8", 64, "int64", NULL, UC_X86_REG_R8),
    ENG("r9", 64, "int64", NULL, UC_X86_REG_R9),
    ENG("r10", 64, "int64", NULL, UC_X86_REG_R10),
    ENG("r11", 64, "int64", NULL, UC_X86_REG_R11),
    ENG("r12", 64, "int64", NULL, UC_X86_REG_R12),
    ENG("r13", 64, "int64", NULL, UC_X86_REG_R13),
    ENG("r14", 64, "int64", NULL, UC_X86_REG_R14),
    ENG("r15", 64, "int64", NULL, UC_X86_REG_R15),
    ENG("rip", 64, "code_ptr", NULL, UC_X86_REG_RIP),
    ENG("eflags", 32, "int32", NULL, UC_X86_REG_EFLAGS),
    ENG("cs", 32, "int32", NULL, UC_X86_REG_CS),
    ENG("ss", 32, "int32", NULL, UC_X86_REG_SS),
    ENG("ds", 32, "int32", NULL, UC_X86_REG_DS),
    ENG("es", 32, "int32", NULL, UC_X86_REG_ES),
    ENG("fs", 32, "int32", NULL, UC_X86_REG_FS),
    ENG("gs", 32, "int32", NULL, UC_X86_REG_GS),
    ENG("st0", 80, "i387_ext", NULL, UC_X86_REG_FP0),
    ENG("st1", 80, "i387_ext", NULL, UC_X86_REG_FP1),
    ENG("st2", 80, "i387_ext", NULL, UC_X86_REG_FP2),
    ENG("st3", 80, "i387_ext", NULL, UC_X86_REG_FP3),
    ENG("st4", 80, "i387_ext", NULL, UC_X86_REG_FP4),
    ENG("st5", 80, "i387_ext", NULL, UC_X86_REG_FP5),
    ENG("st6", 80, "i387_ext", NULL, UC_X86_REG_FP6),
    ENG("st7", 80, "i387_ext", NULL, UC_X86_REG_FP7),
    ENG("fctrl", 32, "int", "float", UC_X86_REG_FPCW),
    ENG("fstat", 32, "int", "float", UC_X86_REG_FPSW),
    ENG("ftag", 32, "int", "float", UC_X86_REG_FPTAG),
    ENG("fiseg", 32, "int", "float", UC_X86_REG_FCS),
    ENG("fioff", 32, "int", "float", UC_X86_REG_FIP),
    ENG("foseg", 32, "int", "float", UC_X86_REG_FDS),
    ENG("fooff", 32, "int", "float", UC_X86_REG_FDP),
    ENG("fop", 32, "int", "float", UC_X86_REG_FOP),
};
static const GdbReg x86_sse[] = {
    ENG("xmm0", 128, "uint128", "vector", UC_X86_REG_XMM0),
    ENG("xmm1", 128, "uint128", "vector", UC_X86_REG_XMM1),
    ENG("xmm2", 128, "uint128", "vector", UC_X86_REG_XMM2),
    ENG("xmm3", 128, "uint128", "vector", UC_X86_REG_XMM3),
    ENG("xmm4", 128, "uint128", "vector", UC_X86_REG_XMM4),
    ENG("xmm5", 128, "uint128", "vector", UC_X86_REG_XMM5),
    ENG("xmm6", 128, "uint128", "vector", UC_X86_REG_XMM6),
    ENG("xmm7", 128, "uint128", "vector", UC_X86_REG_XMM7),
    ENG("xmm8", 128, "uint128", "vector", UC_X86_REG_XMM8),
    ENG("xmm9", 128, "uint128", "vector", UC_X86_REG_XMM9),
    ENG("xmm10", 128, "uint128", "vector", UC_X86_REG_XMM10),
    ENG("xmm11", 128, "uint128", "vector", UC_X86_REG_XMM11),
    ENG("xmm12", 128, "uint128", "vector", UC_X86_REG_XMM12),
    ENG("xmm13", 128, "uint128", "vector", UC_X86_REG_XMM13),
    ENG("xmm14", 128, "uint128", "vector", UC_X86_REG_XMM14),
    ENG("xmm15", 128, "uint128", "vector", UC_X86_REG_XMM15),
    ENG("mxcsr", 32, "int", "vector", UC_X86_REG_MXCSR),
};
static const GdbReg x86_segments[] = {
    ENG("fs_base", 64, "int", NULL, UC_X86_REG_FS_BASE),
    ENG("gs_base", 64, "int", NULL, UC_X86_REG_GS_BASE),
};
static const GdbReg x86_system[] = {
    ENG("cr0", 64, "int", "system", UC_X86_REG_CR0),
    ENG("cr2", 64, "int", "system", UC_X86_REG_CR2),
    ENG("cr3", 64, "int", "system", UC_X86_REG_CR3),
    ENG("cr4", 64, "int", "system", UC_X86_REG_CR4),
};
static const GdbReg a64_core[] = {
    ENG("x0", 64, "int", NULL, UC_ARM64_REG_X0),
    ENG("x1", 64, "int", NULL, UC_ARM64_REG_X1),
    ENG("x2", 64, "int", NULL, UC_ARM64_REG_X2),
    ENG("x3", 64, "int", NULL, UC_ARM64_REG_X3),
    ENG("x4", 64, "int", NULL, UC_ARM64_REG_X4),
    ENG("x5", 64, "int", NULL, UC_ARM64_REG_X5),
    ENG("x6", 64, "int", NULL, UC_ARM64_REG_X6),
    ENG("x7", 64, "int", NULL, UC_ARM64_REG_X7),
    ENG("x8", 64, "int", NULL, UC_ARM64_REG_X8),
    ENG("x9", 64, "int", NULL, UC_ARM64_REG_X9),
    ENG("x10", 64, "int", NULL, UC_ARM64_REG_X10),
    ENG("x11", 64, "int", NULL, UC_ARM64_REG_X11),
    ENG("x12", 64, "int", NULL, UC_ARM64_REG_X12),
    ENG("x13", 64, "int", NULL, UC_ARM64_REG_X13),
    ENG("x14", 64, "int", NULL, UC_ARM64_REG_X14),
    ENG("x15", 64, "int", NULL, UC_ARM64_REG_X15),
    ENG("x16", 64, "int", NULL, UC_ARM64_REG_X16),
    ENG("x17", 64, "int", NULL, UC_ARM64_REG_X17),
    ENG("x18", 64, "int", NULL, UC_ARM64_REG_X18),
    ENG("x19", 64, "int", NULL, UC_ARM64_REG_X19),
    ENG("x20", 64, "int", NULL, UC_ARM64_REG_X20),
    ENG("x21", 64, "int", NULL, UC_ARM64_REG_X21),
    ENG("x22", 64, "int", NULL, UC_ARM64_REG_X22),
    ENG("x23", 64, "int", NULL, UC_ARM64_REG_X23),
    ENG("x24", 64, "int", NULL, UC_ARM64_REG_X24),
    ENG("x25", 64, "int", NULL, UC_ARM64_REG_X25),
    ENG("x26", 64, "int", NULL, UC_ARM64_REG_X26),
    ENG("x27", 64, "int", NULL, UC_ARM64_REG_X27),
    ENG("x28", 64, "int", NULL, UC_ARM64_REG_X28),
    ENG("x29", 64, "int", NULL, UC_ARM64_REG_X29),
    ENG("x30", 64, "int", NULL, UC_ARM64_REG_X30),
    ENG("sp", 64, "data_ptr", NULL, UC_ARM64_REG_SP),
    ENG("pc", 64, "code_ptr", NULL, UC_ARM64_REG_PC),
    ENG("cpsr", 32, "int", NULL, UC_ARM64_REG_PSTATE),
};
static const GdbReg a64_fpu[] = {
    ENG("v0", 128, "uint128", "vector", UC_ARM64_REG_V0),
    ENG("v1", 128, "uint128", "vector", UC_ARM64_REG_V1),
    ENG("v2", 128, "uint128", "vector", UC_ARM64_REG_V2),
    ENG("v3", 128, "uint128", "vector", UC_ARM64_REG_V3),
    ENG("v4", 128, "uint128", "vector", UC_ARM64_REG_V4),
    ENG("v5", 128, "uint128", "vector", UC_ARM64_REG_V5),
    ENG("v6", 128, "uint128", "vector", UC_ARM64_REG_V6),
    ENG("v7", 128, "uint128", "vector", UC_ARM64_REG_V7),
    ENG("v8", 128, "uint128", "vector", UC_ARM64_REG_V8),
    ENG("v9", 128, "uint128", "vector", UC_ARM64_REG_V9),
    ENG("v10", 128, "uint128", "vector", UC_ARM64_REG_V10),
    ENG("v11", 128, "uint128", "vector", UC_ARM64_REG_V11),
    ENG("v12", 128, "uint128", "vector", UC_ARM64_REG_V12),
    ENG("v13", 128, "uint128", "vector", UC_ARM64_REG_V13),
    ENG("v14", 128, "uint128", "vector", UC_ARM64_REG_V14),
    ENG("v15", 128, "uint128", "vector", UC_ARM64_REG_V15),
    ENG("v16", 128, "uint128", "vector", UC_ARM64_REG_V16),
    ENG("v17", 128, "uint128", "vector", UC_ARM64_REG_V17),
    ENG("v18", 128, "uint128", "vector", UC_ARM64_REG_V18),
    ENG("v19", 128, "uint128", "vector", UC_ARM64_REG_V19),
    ENG("v20", 128, "uint128", "vector", UC_ARM64_REG_V20),
    ENG("v21", 128, "uint128", "vector", UC_ARM64_REG_V21),
    ENG("v22", 128, "uint128", "vector", UC_ARM64_REG_V22),
    ENG("v23", 128, "uint128", "vector", UC_ARM64_REG_V23),
    ENG("v24", 128, "uint128", "vector", UC_ARM64_REG_V24),
    ENG("v25", 128, "uint128", "vector", UC_ARM64_REG_V25),
    ENG("v26", 128, "uint128", "vector", UC_ARM64_REG_V26),
    ENG("v27", 128, "uint128", "vector", UC_ARM64_REG_V27),
    ENG("v28", 128, "uint128", "vector", UC_ARM64_REG_V28),
    ENG("v29", 128, "uint128", "vector", UC_ARM64_REG_V29),
    ENG("v30", 128, "uint128", "vector", UC_ARM64_REG_V30),
    ENG("v31", 128, "uint128", "vector", UC_ARM64_REG_V31),
    ENG("fpsr", 32, "int", "float", UC_ARM64_REG_FPSR),
    ENG("fpcr", 32, "int", "float", UC_ARM64_REG_FPCR),
};
/* Arm ARM DDI 0487 D13.2 (the registers' encodings), D13.4 (the PMU). */
static const GdbReg a64_sys[] = {
    ENG("elr_el1", 64, "int", "system", UC_ARM64_REG_ELR_EL1),
    ENG("esr_el1", 64, "int", "system", UC_ARM64_REG_ESR_EL1),
    ENG("far_el1", 64, "int", "system", UC_ARM64_REG_FAR_EL1),
    ENG("vbar_el1", 64, "int", "system", UC_ARM64_REG_VBAR_EL1),
    ENG("sp_el0", 64, "int", "system", UC_ARM64_REG_SP_EL0),
    ENG("sp_el1", 64, "int", "system", UC_ARM64_REG_SP_EL1),
    ENG("tpidr_el0", 64, "int", "system", UC_ARM64_REG_TPIDR_EL0),
    ENG("tpidr_el1", 64, "int", "system", UC_ARM64_REG_TPIDR_EL1),
    ENG("ttbr0_el1", 64, "int", "system", UC_ARM64_REG_TTBR0_EL1),
    ENG("ttbr1_el1", 64, "int", "system", UC_ARM64_REG_TTBR1_EL1),
    ENG("mair_el1", 64, "int", "system", UC_ARM64_REG_MAIR_EL1),
    BK("spsr_el1", 64, A64_SYSREG(3, 0, 4, 0, 0)),
    BK("sctlr_el1", 64, A64_SYSREG(3, 0, 1, 0, 0)),
    BK("tcr_el1", 64, A64_SYSREG(3, 0, 2, 0, 2)),
    BK("midr_el1", 64, A64_SYSREG(3, 0, 0, 0, 0)),
    BK("mpidr_el1", 64, A64_SYSREG(3, 0, 0, 0, 5)),
    BK("cntfrq_el0", 64, A64_SYSREG(3, 3, 14, 0, 0)),
    BK("cntpct_el0", 64, A64_SYSREG(3, 3, 14, 0, 1)),
    BK("cntp_ctl_el0", 64, A64_SYSREG(3, 3, 14, 2, 1)),
    BK("cntp_cval_el0", 64, A64_SYSREG(3, 3, 14, 2, 2)),
    BK("cntv_ctl_el0", 64, A64_SYSREG(3, 3, 14, 3, 1)),
    BK("cntv_cval_el0", 64, A64_SYSREG(3, 3, 14, 3, 2)),
    BK("pmcr_el0", 64, A64_SYSREG(3, 3, 9, 12, 0)),
    BK("pmcntenset_el0", 64, A64_SYSREG(3, 3, 9, 12, 1)),
    BK("pmovsset_el0", 64, A64_SYSREG(3, 3, 9, 14, 3)),
    BK("pmintenset_el1", 64, A64_SYSREG(3, 0, 9, 14, 1)),
    BK("pmselr_el0", 64, A64_SYSREG(3, 3, 9, 12, 5)),
    BK("pmuserenr_el0", 64, A64_SYSREG(3, 3, 9, 14, 0)),
    BK("pmccntr_el0", 64, A64_SYSREG(3, 3, 9, 13, 0)),
    BK("pmccfiltr_el0", 64, A64_SYSREG(3, 3, 14, 15, 7)),
    BK("pmevcntr0_el0", 64, A64_SYSREG(3, 3, 14, 8, 0)),
    BK("pmevcntr1_el0", 64, A64_SYSREG(3, 3, 14, 8, 1)),
    BK("pmevcntr2_el0", 64, A64_SYSREG(3, 3, 14, 8, 2)),
    BK("pmevcntr3_el0", 64, A64_SYSREG(3, 3, 14, 8, 3)),
    BK("pmevcntr4_el0", 64, A64_SYSREG(3, 3, 14, 8, 4)),
    BK("pmevcntr5_el0", 64, A64_SYSREG(3, 3, 14, 8, 5)),
    BK("pmevtyper0_el0", 64, A64_SYSREG(3, 3, 14, 12, 0)),
    BK("pmevtyper1_el0", 64, A64_SYSREG(3, 3, 14, 12, 1)),
    BK("pmevtyper2_el0", 64, A64_SYSREG(3, 3, 14, 12, 2)),
    BK("pmevtyper3_el0", 64, A64_SYSREG(3, 3, 14, 12, 3)),
    BK("pmevtyper4_el0", 64, A64_SYSREG(3, 3, 14, 12, 4)),
    BK("pmevtyper5_el0", 64, A64_SYSREG(3, 3, 14, 12, 5)),
};
static const GdbReg ppc_core[] = {
    ENG("r0", 32, "uint32", NULL, UC_PPC_REG_0),
    ENG("r1", 32, "uint32", NULL, UC_PPC_REG_1),
    ENG("r2", 32, "uint32", NULL, UC_PPC_REG_2),
    ENG("r3", 32, "uint32", NULL, UC_PPC_REG_3),
    ENG("r4", 32, "uint32", NULL, UC_PPC_REG_4),
    ENG("r5", 32, "uint32", NULL, UC_PPC_REG_5),
    ENG("r6", 32, "uint32", NULL, UC_PPC_REG_6),
    ENG("r7", 32, "uint32", NULL, UC_PPC_REG_7),
    ENG("r8", 32, "uint32", NULL, UC_PPC_REG_8),
    ENG("r9", 32, "uint32", NULL, UC_PPC_REG_9),
    ENG("r10", 32, "uint32", NULL, UC_PPC_REG_10),
    ENG("r11", 32, "uint32", NULL, UC_PPC_REG_11),
    ENG("r12", 32, "uint32", NULL, UC_PPC_REG_12),
    ENG("r13", 32, "uint32", NULL, UC_PPC_REG_13),
    ENG("r14", 32, "uint32", NULL, UC_PPC_REG_14),
    ENG("r15", 32, "uint32", NULL, UC_PPC_REG_15),
    ENG("r16", 32, "uint32", NULL, UC_PPC_REG_16),
    ENG("r17", 32, "uint32", NULL, UC_PPC_REG_17),
    ENG("r18", 32, "uint32", NULL, UC_PPC_REG_18),
    ENG("r19", 32, "uint32", NULL, UC_PPC_REG_19),
    ENG("r20", 32, "uint32", NULL, UC_PPC_REG_20),
    ENG("r21", 32, "uint32", NULL, UC_PPC_REG_21),
    ENG("r22", 32, "uint32", NULL, UC_PPC_REG_22),
    ENG("r23", 32, "uint32", NULL, UC_PPC_REG_23),
    ENG("r24", 32, "uint32", NULL, UC_PPC_REG_24),
    ENG("r25", 32, "uint32", NULL, UC_PPC_REG_25),
    ENG("r26", 32, "uint32", NULL, UC_PPC_REG_26),
    ENG("r27", 32, "uint32", NULL, UC_PPC_REG_27),
    ENG("r28", 32, "uint32", NULL, UC_PPC_REG_28),
    ENG("r29", 32, "uint32", NULL, UC_PPC_REG_29),
    ENG("r30", 32, "uint32", NULL, UC_PPC_REG_30),
    ENG("r31", 32, "uint32", NULL, UC_PPC_REG_31),
    ENG("pc", 32, "code_ptr", NULL, UC_PPC_REG_PC),
    ENG("msr", 32, "uint32", NULL, UC_PPC_REG_MSR),
    ENG("cr", 32, "uint32", NULL, UC_PPC_REG_CR),
    ENG("lr", 32, "code_ptr", NULL, UC_PPC_REG_LR),
    ENG("ctr", 32, "uint32", NULL, UC_PPC_REG_CTR),
    ENG("xer", 32, "uint32", NULL, UC_PPC_REG_XER),
};
static const GdbReg ppc_fpu[] = {
    ENG("f0", 64, "ieee_double", "float", UC_PPC_REG_FPR0),
    ENG("f1", 64, "ieee_double", "float", UC_PPC_REG_FPR1),
    ENG("f2", 64, "ieee_double", "float", UC_PPC_REG_FPR2),
    ENG("f3", 64, "ieee_double", "float", UC_PPC_REG_FPR3),
    ENG("f4", 64, "ieee_double", "float", UC_PPC_REG_FPR4),
    ENG("f5", 64, "ieee_double", "float", UC_PPC_REG_FPR5),
    ENG("f6", 64, "ieee_double", "float", UC_PPC_REG_FPR6),
    ENG("f7", 64, "ieee_double", "float", UC_PPC_REG_FPR7),
    ENG("f8", 64, "ieee_double", "float", UC_PPC_REG_FPR8),
    ENG("f9", 64, "ieee_double", "float", UC_PPC_REG_FPR9),
    ENG("f10", 64, "ieee_double", "float", UC_PPC_REG_FPR10),
    ENG("f11", 64, "ieee_double", "float", UC_PPC_REG_FPR11),
    ENG("f12", 64, "ieee_double", "float", UC_PPC_REG_FPR12),
    ENG("f13", 64, "ieee_double", "float", UC_PPC_REG_FPR13),
    ENG("f14", 64, "ieee_double", "float", UC_PPC_REG_FPR14),
    ENG("f15", 64, "ieee_double", "float", UC_PPC_REG_FPR15),
    ENG("f16", 64, "ieee_double", "float", UC_PPC_REG_FPR16),
    ENG("f17", 64, "ieee_double", "float", UC_PPC_REG_FPR17),
    ENG("f18", 64, "ieee_double", "float", UC_PPC_REG_FPR18),
    ENG("f19", 64, "ieee_double", "float", UC_PPC_REG_FPR19),
    ENG("f20", 64, "ieee_double", "float", UC_PPC_REG_FPR20),
    ENG("f21", 64, "ieee_double", "float", UC_PPC_REG_FPR21),
    ENG("f22", 64, "ieee_double", "float", UC_PPC_REG_FPR22),
    ENG("f23", 64, "ieee_double", "float", UC_PPC_REG_FPR23),
    ENG("f24", 64, "ieee_double", "float", UC_PPC_REG_FPR24),
    ENG("f25", 64, "ieee_double", "float", UC_PPC_REG_FPR25),
    ENG("f26", 64, "ieee_double", "float", UC_PPC_REG_FPR26),
    ENG("f27", 64, "ieee_double", "float", UC_PPC_REG_FPR27),
    ENG("f28", 64, "ieee_double", "float", UC_PPC_REG_FPR28),
    ENG("f29", 64, "ieee_double", "float", UC_PPC_REG_FPR29),
    ENG("f30", 64, "ieee_double", "float", UC_PPC_REG_FPR30),
    ENG("f31", 64, "ieee_double", "float", UC_PPC_REG_FPR31),
    ENG("fpscr", 32, "int", "float", UC_PPC_REG_FPSCR),
};
/* SPR numbers: MPC7450 RM table 2-1 and 11-1 (pmu/pmu_mpc7450.h). */
static const GdbReg ppc_spr[] = {
    BK("srr0", 32, 26),
    BK("srr1", 32, 27),
    BK("sprg0", 32, 272),
    BK("sprg1", 32, 273),
    BK("sprg2", 32, 274),
    BK("sprg3", 32, 275),
    BK("dar", 32, 19),
    BK("dsisr", 32, 18),
    BK("sdr1", 32, 25),
    BK("dec", 32, 22),
    BK("tbl", 32, 268),
    BK("tbu", 32, 269),
    BK("pvr", 32, 287),
    BK("pir", 32, 1023),
    BK("hid0", 32, 1008),
    BK("mmcr0", 32, 952),
    BK("mmcr1", 32, 956),
    BK("mmcr2", 32, 944),
    BK("pmc1", 32, 953),
    BK("pmc2", 32, 954),
    BK("pmc3", 32, 957),
    BK("pmc4", 32, 958),
    BK("pmc5", 32, 945),
    BK("pmc6", 32, 946),
    BK("siar", 32, 955),
};

#define FEATURE(name, t) { name, t, ARRAY_SIZE(t) }

static const GdbFeature x86_features[] = {
    FEATURE("org.gnu.gdb.i386.core", x86_core), FEATURE("org.gnu.gdb.i386.sse", x86_sse),
    FEATURE("org.gnu.gdb.i386.segments", x86_segments), FEATURE("org.pmusim.i386.system", x86_system),
};
static const GdbFeature a64_features[] = {
    FEATURE("org.gnu.gdb.aarch64.core", a64_core), FEATURE("org.gnu.gdb.aarch64.fpu", a64_fpu),
    FEATURE("org.pmusim.aarch64.sysregs", a64_sys),
};
static const GdbFeature ppc_features[] = {
    FEATURE("org.gnu.gdb.power.core", ppc_core), FEATURE("org.gnu.gdb.power.fpu", ppc_fpu),
    FEATURE("org.pmusim.power.spr", ppc_spr),
};
static const GdbTarget targets[ARCH_COUNT] = {
    [ARCH_X86_64] = { "i386:x86-64", x86_features, ARRAY_SIZE(x86_features) },
    [ARCH_ARM64] = { "aarch64", a64_features, ARRAY_SIZE(a64_features) },
    [ARCH_PPC32] = { "powerpc:7400", ppc_features, ARRAY_SIZE(ppc_features) },
};

const GdbTarget *gdb_target(Arch arch)
{
    return arch >= 0 && arch < ARCH_COUNT ? &targets[arch] : NULL;
}

unsigned gdb_nregs(const GdbTarget *t)
{
    unsigned n = 0;
    for (unsigned i = 0; i < t->nfeatures; i++)
        n += t->features[i].n;
    return n;
}

const GdbReg *gdb_reg(const GdbTarget *t, unsigned regnum)
{
    for (unsigned i = 0; i < t->nfeatures; i++) {
        if (regnum < t->features[i].n)
            return &t->features[i].regs[regnum];
        regnum -= t->features[i].n;
    }
    return NULL;
}

/* Append to buf at *n; false once it does not fit. */
static bool emit(char *buf, size_t cap, size_t *n, const char *fmt, ...) PMUSIM_PRINTF(4, 5);
static bool emit(char *buf, size_t cap, size_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = *n < cap ? vsnprintf(buf + *n, cap - *n, fmt, ap) : -1;
    va_end(ap);
    if (k < 0 || (size_t)k >= cap - *n)
        return false;
    *n += (size_t)k;
    return true;
}

static bool emit_reg(char *buf, size_t cap, size_t *n, const GdbReg *r)
{
    return emit(buf, cap, n, "<reg name=\"%s\" bitsize=\"%u\" type=\"%s\"%s%s%s/>\n", r->name, r->bits, r->type,
                r->group ? " group=\"" : "", r->group ? r->group : "", r->group ? "\"" : "");
}

size_t gdb_target_xml(const GdbTarget *t, char *buf, size_t cap)
{
    size_t n = 0;
    bool ok = emit(buf, cap, &n, "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
                   "<target version=\"1.0\">\n<architecture>%s</architecture>\n", t->architecture);
    for (unsigned f = 0; ok && f < t->nfeatures; f++) {
        ok = emit(buf, cap, &n, "<feature name=\"%s\">\n", t->features[f].name);
        for (unsigned i = 0; ok && i < t->features[f].n; i++)
            ok = emit_reg(buf, cap, &n, &t->features[f].regs[i]);
        ok = ok && emit(buf, cap, &n, "</feature>\n");
    }
    ok = ok && emit(buf, cap, &n, "</target>\n");
    return ok ? n : 0;
}

/* A value of bits/8 bytes in the target's order from (to) the host's little-endian uint64. */
static void value_out(const Cpu *c, uint64_t v, unsigned bytes, uint8_t *out)
{
    bool be = isa_big_endian(c->ops->arch);
    for (unsigned i = 0; i < bytes; i++)
        out[be ? bytes - 1 - i : i] = (uint8_t)(v >> (GDB_BYTE_BITS * i));
}

static uint64_t value_in(const Cpu *c, const uint8_t *in, unsigned bytes)
{
    bool be = isa_big_endian(c->ops->arch);
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++)
        v |= (uint64_t)in[be ? bytes - 1 - i : i] << (GDB_BYTE_BITS * i);
    return v;
}

bool gdb_reg_read(Cpu *c, unsigned regnum, uint8_t *out)
{
    const GdbReg *r = gdb_reg(gdb_target(c->ops->arch), regnum);
    if (!r)
        return false;
    unsigned bytes = gdb_reg_bytes(r);
    uint64_t v = 0;
    if (r->src == GR_BACKEND)
        return c->ops->debug_reg && c->ops->debug_reg(c, r->id, &v) && (value_out(c, v, bytes, out), true);
    uint8_t buf[GDB_REG_MAX_BYTES * 2] = { 0 };     /* the engine may write more than it needs */
    if (uc_reg_read(c->uc, (int)r->id, buf) != UC_ERR_OK)
        return false;
    if (bytes > sizeof(v)) {                        /* x87 and vector registers: little-endian targets */
        memcpy(out, buf, bytes);
        return true;
    }
    memcpy(&v, buf, sizeof(v));
    value_out(c, v, bytes, out);
    return true;
}

bool gdb_reg_write(Cpu *c, unsigned regnum, const uint8_t *in)
{
    const GdbReg *r = gdb_reg(gdb_target(c->ops->arch), regnum);
    if (!r || r->src != GR_ENGINE)
        return false;
    unsigned bytes = gdb_reg_bytes(r);
    uint8_t buf[GDB_REG_MAX_BYTES * 2] = { 0 };
    if (bytes > sizeof(uint64_t))
        memcpy(buf, in, bytes);
    else {
        uint64_t v = value_in(c, in, bytes);
        memcpy(buf, &v, sizeof(v));
    }
    return uc_reg_write(c->uc, (int)r->id, buf) == UC_ERR_OK;
}
