/* cycle_model.c — instruction classes from Capstone decodes, and the per-CPU-model cost tables.
 *
 * Two halves, both pure functions of their input (no state but a lazily built, read-only
 * lookup table), so a run is deterministic:
 *
 *   bytes --Capstone--> cs_insn --insn_classify--> InsnClass --CycleTable.cost--> cycles
 *
 * insn_classify runs once per instruction when a translated block is decoded (cpu.c,
 * block_decode); the block's cost is the sum of its instructions' costs and is added whole at
 * block entry.  So the classifier is off the per-execution path, but it still sees every new
 * block, which is why it switches on instruction ids and never compares strings per call.
 *
 * Each architecture has one classifier, written around what Capstone 4.0.2 reports reliably
 * (docs/engine.md, "Capstone", compares 4.0.2 with 5.0.7):
 *
 *   x86-64   the lock prefix, then ids for the instructions with a fixed class, then Capstone's
 *            groups (jump/call/ret/int/iret/privilege), then the direction of the memory operand,
 *            then FP/vector groups.  Capstone 4's per-operand `access` is wrong for many memory
 *            operands (SSE/AVX stores, rotates, x87 stores, test: see x86_memory_access), so
 *            it is corrected from the operand position and a few ids.
 *            Scalar-versus-packed SSE/AVX is decided by a per-id bitmap built once from
 *            Capstone's instruction names (x86_scalar_fp_build): ~200 ids, too many to list.
 *   AArch64  ids (every load/store/branch family has its own id) and the NEON/FP groups.
 *   PPC32    the 32-bit instruction word (primary opcode, extended opcode, LK bit).  Capstone 4
 *            splits one PowerPC encoding into many alias ids (tw -> tweq/twgti/..., bc -> beq/
 *            bdnz/..., mfspr -> mflr/mfxer/...) and names some wrongly (bcl 20,31 prints as
 *            "bdnzl"), while the encoding is small, fixed and exact.
 *
 * The tables give each class one representative cost in core cycles, taken from vendor
 * manuals where they could be reached and otherwise from compiler scheduling models or marked
 * estimates: docs/cycle-model.md lists every number with its source.
 */
#include "cpu/cycle_model.h"

#include <pthread.h>
#include <string.h>

/* ------------------------------------------------------------------ cost tables */

/* The MPC7450 family core (7450, 7455, 7447A share it). */
#define MPC745X_COST {                                                  \
        [IC_NOP] = 1, [IC_ALU] = 1, [IC_MUL] = 4, [IC_DIV] = 23,        \
        [IC_LOAD] = 3, [IC_STORE] = 3, [IC_RMW] = 6,                    \
        [IC_BRANCH] = 1, [IC_BRANCH_IND] = 2, [IC_CALL] = 1, [IC_RET] = 2, \
        [IC_FP] = 5, [IC_FP_DIV] = 35, [IC_SIMD] = 4,                   \
        [IC_ATOMIC] = 3, [IC_BARRIER] = 35, [IC_CACHE] = 3,             \
        [IC_SYSTEM] = 4, [IC_TRAP] = 6, [IC_STRING] = 6,                \
    }

/* Classes an architecture never produces (RMW and STRING outside x86) still get a cost, the
 * sum of a load and a store, so that every entry is >= 1 and a table is never read as 0. */
static const CycleTable cycle_tables[] = {
    {
        .name = "x86-64-generic",
        .source = "Skylake-class; LLVM X86SchedSkylakeClient.td, estimates (docs/cycle-model.md)",
        .cost = {
            [IC_NOP] = 1, [IC_ALU] = 1, [IC_MUL] = 3, [IC_DIV] = 26,
            [IC_LOAD] = 5, [IC_STORE] = 1, [IC_RMW] = 6,
            [IC_BRANCH] = 1, [IC_BRANCH_IND] = 2, [IC_CALL] = 3, [IC_RET] = 7,
            [IC_FP] = 4, [IC_FP_DIV] = 14, [IC_SIMD] = 4,
            [IC_ATOMIC] = 18, [IC_BARRIER] = 33, [IC_CACHE] = 2,
            [IC_SYSTEM] = 100, [IC_TRAP] = 100, [IC_STRING] = 2,
        },
    },
    {
        .name = "cortex-a53",
        .source = "GCC cortex-a53.md (Arm), LLVM AArch64SchedA53.td, estimates (docs/cycle-model.md)",
        .cost = {
            [IC_NOP] = 1, [IC_ALU] = 1, [IC_MUL] = 3, [IC_DIV] = 9,
            [IC_LOAD] = 3, [IC_STORE] = 2, [IC_RMW] = 5,
            [IC_BRANCH] = 1, [IC_BRANCH_IND] = 1, [IC_CALL] = 1, [IC_RET] = 1,
            [IC_FP] = 4, [IC_FP_DIV] = 29, [IC_SIMD] = 4,
            [IC_ATOMIC] = 3, [IC_BARRIER] = 9, [IC_CACHE] = 2,
            [IC_SYSTEM] = 9, [IC_TRAP] = 9, [IC_STRING] = 5,
        },
    },
    {
        .name = "cortex-a57",
        .source = "LLVM AArch64SchedA57.td (after the A57 SOG, UAN 0015B), estimates (docs/cycle-model.md)",
        .cost = {
            [IC_NOP] = 1, [IC_ALU] = 1, [IC_MUL] = 5, [IC_DIV] = 19,
            [IC_LOAD] = 4, [IC_STORE] = 1, [IC_RMW] = 5,
            [IC_BRANCH] = 1, [IC_BRANCH_IND] = 1, [IC_CALL] = 1, [IC_RET] = 1,
            [IC_FP] = 5, [IC_FP_DIV] = 32, [IC_SIMD] = 5,
            [IC_ATOMIC] = 4, [IC_BARRIER] = 14, [IC_CACHE] = 1,
            [IC_SYSTEM] = 14, [IC_TRAP] = 14, [IC_STRING] = 5,
        },
    },
    {
        .name = "cortex-a72",
        .source = "estimates from the A57 model and third-party A72 data (docs/cycle-model.md)",
        .cost = {
            [IC_NOP] = 1, [IC_ALU] = 1, [IC_MUL] = 5, [IC_DIV] = 12,
            [IC_LOAD] = 4, [IC_STORE] = 1, [IC_RMW] = 5,
            [IC_BRANCH] = 1, [IC_BRANCH_IND] = 1, [IC_CALL] = 1, [IC_RET] = 1,
            [IC_FP] = 4, [IC_FP_DIV] = 18, [IC_SIMD] = 4,
            [IC_ATOMIC] = 4, [IC_BARRIER] = 14, [IC_CACHE] = 1,
            [IC_SYSTEM] = 14, [IC_TRAP] = 14, [IC_STRING] = 5,
        },
    },
    {
        .name = "mpc7450",
        .source = "MPC7455 HW spec Table 1, AN2203, GCC 7450.md, LLVM PPCScheduleG4Plus.td (docs/cycle-model.md)",
        .cost = MPC745X_COST,
    },
    {
        /* Same core as the MPC7450 family entry: the 7447A differs in caches and power
         * management, which this model does not have. */
        .name = "mpc7447a",
        .source = "as mpc7450; MPC7447A HW spec features (docs/cycle-model.md)",
        .cost = MPC745X_COST,
    },
    {
        /* The MPC7448 is the same core again (a 1 MB L2, power management): as the 7447A. */
        .name = "mpc7448",
        .source = "as mpc7450; MPC7448 HW spec features (docs/cycle-model.md)",
        .cost = MPC745X_COST,
    },
};

const CycleTable *cycle_table_find(const char *model)
{
    if (!model)
        return NULL;
    for (size_t i = 0; i < ARRAY_SIZE(cycle_tables); i++)
        if (!strcmp(cycle_tables[i].name, model))
            return &cycle_tables[i];
    return NULL;
}

static const char *const insn_class_names[IC_COUNT] = {
    [IC_NOP] = "nop",       [IC_ALU] = "alu",         [IC_MUL] = "mul",       [IC_DIV] = "div",
    [IC_LOAD] = "load",     [IC_STORE] = "store",     [IC_RMW] = "rmw",       [IC_BRANCH] = "branch",
    [IC_BRANCH_IND] = "branch_ind", [IC_CALL] = "call", [IC_RET] = "ret",     [IC_FP] = "fp",
    [IC_FP_DIV] = "fp_div", [IC_SIMD] = "simd",       [IC_ATOMIC] = "atomic", [IC_BARRIER] = "barrier",
    [IC_CACHE] = "cache",   [IC_SYSTEM] = "system",   [IC_TRAP] = "trap",     [IC_STRING] = "string",
};

const char *insn_class_name(InsnClass c)
{
    return c >= 0 && c < IC_COUNT ? insn_class_names[c] : "?";
}

static bool insn_in_group(const cs_detail *d, uint8_t group)
{
    for (unsigned i = 0; i < d->groups_count; i++)
        if (d->groups[i] == group)
            return true;
    return false;
}

/* ------------------------------------------------------------------ x86-64 */

/* One bit per x86 instruction id: set for scalar floating-point SSE/AVX instructions
 * (addsd, cvtsi2ss, vfmadd231sd, ucomisd, ...).  Built once from Capstone's names, because the
 * scalar forms are the ones whose names end in "ss"/"sd" or convert from/to a scalar ("ss2",
 * "sd2"); names starting with "p"/"vp" are integer ops (pabsd, vpdpwssd) and "vbroadcastss/sd"
 * fill a whole vector.  Only consulted for instructions already in an SSE/AVX group, which
 * rules out string ops such as lodsd. */
static uint8_t x86_scalar_fp[(X86_INS_ENDING + 7) / 8];
static pthread_once_t x86_scalar_fp_once = PTHREAD_ONCE_INIT;

static bool name_ends_with(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && !memcmp(s + len - n, suffix, n);
}

static void x86_scalar_fp_build(void)
{
    csh h;
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
        return;                 /* no names: every vector instruction is then IC_SIMD */
    for (unsigned id = 1; id < X86_INS_ENDING; id++) {
        const char *s = cs_insn_name(h, id);
        if (!s || s[0] == 'p' || !strncmp(s, "vp", 2) || !strncmp(s, "vbroadcast", 10))
            continue;
        size_t len = strlen(s);
        if (name_ends_with(s, len, "ss") || name_ends_with(s, len, "sd") || strstr(s, "ss2") ||
            strstr(s, "sd2"))
            x86_scalar_fp[id / 8] |= (uint8_t)(1u << (id % 8));
    }
    cs_close(&h);
}

static bool x86_is_scalar_fp(unsigned id)
{
    pthread_once(&x86_scalar_fp_once, x86_scalar_fp_build);
    return id < X86_INS_ENDING && (x86_scalar_fp[id / 8] >> (id % 8) & 1);
}

static bool x86_is_vector(const cs_detail *d)
{
    for (unsigned i = 0; i < d->groups_count; i++) {
        switch (d->groups[i]) {
        case X86_GRP_MMX: case X86_GRP_3DNOW:
        case X86_GRP_SSE1: case X86_GRP_SSE2: case X86_GRP_SSE3: case X86_GRP_SSSE3:
        case X86_GRP_SSE41: case X86_GRP_SSE42: case X86_GRP_SSE4A:
        case X86_GRP_AVX: case X86_GRP_AVX2: case X86_GRP_AVX512: case X86_GRP_FMA:
        case X86_GRP_FMA4: case X86_GRP_F16C: case X86_GRP_XOP: case X86_GRP_AES:
        case X86_GRP_PCLMUL: case X86_GRP_SHA: case X86_GRP_CDI: case X86_GRP_ERI:
        case X86_GRP_DQI: case X86_GRP_BWI: case X86_GRP_PFI: case X86_GRP_VLX:
        case X86_GRP_NOVLX:
            return true;
        }
    }
    return false;
}

/* How the memory operand at position `index` (Intel order: destination first) is accessed.
 * Capstone 4 reports a bare read for the destination of most SSE/AVX stores (movups [m], xmm),
 * movbe/movnti, rotates (rol [m], 1) and several x87/MXCSR stores, read+write for test [m], and
 * a write for frstor; these are corrected here. */
static uint8_t x86_memory_access(unsigned id, unsigned index, unsigned op_count, uint8_t access)
{
    switch (id) {
    case X86_INS_CMP: case X86_INS_TEST: case X86_INS_BT: case X86_INS_FRSTOR:
        return CS_AC_READ;
    case X86_INS_ROL: case X86_INS_ROR: case X86_INS_RCL: case X86_INS_RCR:
        return CS_AC_READ | CS_AC_WRITE;
    case X86_INS_FST: case X86_INS_FSTP: case X86_INS_FIST: case X86_INS_FISTP:
    case X86_INS_FISTTP: case X86_INS_FBSTP: case X86_INS_FNSTCW: case X86_INS_FNSTSW:
    case X86_INS_FNSTENV: case X86_INS_FNSAVE: case X86_INS_STMXCSR: case X86_INS_VSTMXCSR:
        return CS_AC_WRITE;
    }
    if (index > 0)
        return CS_AC_READ;      /* a source operand */
    if (access == CS_AC_READ && op_count >= 2)
        return CS_AC_WRITE;     /* a destination Capstone mislabels as read: a store */
    return access ? access : CS_AC_READ;
}

/* IC_LOAD / IC_STORE / IC_RMW for an instruction with a memory operand, IC_COUNT without. */
static InsnClass x86_classify_memory(const cs_insn *insn)
{
    const cs_x86 *x = &insn->detail->x86;
    for (unsigned k = 0; k < x->op_count; k++) {
        if (x->operands[k].type != X86_OP_MEM)
            continue;
        uint8_t a = x86_memory_access(insn->id, k, x->op_count, x->operands[k].access);
        if ((a & (CS_AC_READ | CS_AC_WRITE)) == (CS_AC_READ | CS_AC_WRITE))
            return IC_RMW;
        return (a & CS_AC_WRITE) ? IC_STORE : IC_LOAD;
    }
    return IC_COUNT;
}

static InsnClass x86_classify(const cs_insn *insn)
{
    const cs_detail *d = insn->detail;

    /* lock is only legal on read-modify-write instructions: all atomic. */
    if (d->x86.prefix[0] == X86_PREFIX_LOCK)
        return IC_ATOMIC;

    /* Fixed classes.  MUL/DIV/FP_DIV win over the memory rule below: the long operation, not
     * its load, is what the class is for. */
    switch (insn->id) {
    case X86_INS_NOP: case X86_INS_FNOP: case X86_INS_PAUSE:
    case X86_INS_ENDBR64: case X86_INS_ENDBR32:
    case X86_INS_PREFETCH: case X86_INS_PREFETCHW: case X86_INS_PREFETCHNTA:
    case X86_INS_PREFETCHT0: case X86_INS_PREFETCHT1: case X86_INS_PREFETCHT2:
        return IC_NOP;
    case X86_INS_MFENCE: case X86_INS_LFENCE: case X86_INS_SFENCE:
        return IC_BARRIER;
    case X86_INS_CLFLUSH: case X86_INS_CLFLUSHOPT: case X86_INS_CLWB:
    case X86_INS_WBINVD: case X86_INS_INVD: case X86_INS_INVLPG: case X86_INS_INVPCID:
        return IC_CACHE;
    case X86_INS_CPUID: case X86_INS_RDMSR: case X86_INS_WRMSR: case X86_INS_RDTSC:
    case X86_INS_RDTSCP: case X86_INS_RDPMC: case X86_INS_XGETBV: case X86_INS_XSETBV:
    case X86_INS_LGDT: case X86_INS_LIDT: case X86_INS_LLDT: case X86_INS_LTR: case X86_INS_LMSW:
    case X86_INS_SGDT: case X86_INS_SIDT: case X86_INS_SLDT: case X86_INS_STR: case X86_INS_SMSW:
    case X86_INS_CLTS: case X86_INS_IN: case X86_INS_OUT:
    case X86_INS_INSB: case X86_INS_INSW: case X86_INS_INSD:
    case X86_INS_OUTSB: case X86_INS_OUTSW: case X86_INS_OUTSD:
    case X86_INS_CLI: case X86_INS_STI: case X86_INS_HLT: case X86_INS_SWAPGS:
    case X86_INS_IRET: case X86_INS_IRETD: case X86_INS_IRETQ: case X86_INS_SYSRET:
    case X86_INS_SYSEXIT: case X86_INS_MONITOR: case X86_INS_MWAIT:
    case X86_INS_PUSHF: case X86_INS_PUSHFD: case X86_INS_PUSHFQ:
    case X86_INS_POPF: case X86_INS_POPFD: case X86_INS_POPFQ:
        return IC_SYSTEM;
    case X86_INS_INT: case X86_INS_INT1: case X86_INS_INT3: case X86_INS_INTO:
    case X86_INS_UD2: case X86_INS_UD2B: case X86_INS_UD0:
    case X86_INS_SYSCALL: case X86_INS_SYSENTER:
        return IC_TRAP;
    case X86_INS_PUSH: case X86_INS_ENTER:
        return IC_STORE;
    case X86_INS_POP: case X86_INS_LEAVE: case X86_INS_XLATB:
        return IC_LOAD;
    case X86_INS_MUL: case X86_INS_IMUL: case X86_INS_MULX:
        return IC_MUL;
    case X86_INS_DIV: case X86_INS_IDIV:
        return IC_DIV;
    case X86_INS_FDIV: case X86_INS_FDIVP: case X86_INS_FDIVR: case X86_INS_FDIVRP:
    case X86_INS_FIDIV: case X86_INS_FIDIVR: case X86_INS_FSQRT:
    case X86_INS_DIVSS: case X86_INS_DIVSD: case X86_INS_DIVPS: case X86_INS_DIVPD:
    case X86_INS_VDIVSS: case X86_INS_VDIVSD: case X86_INS_VDIVPS: case X86_INS_VDIVPD:
    case X86_INS_SQRTSS: case X86_INS_SQRTSD: case X86_INS_SQRTPS: case X86_INS_SQRTPD:
    case X86_INS_VSQRTSS: case X86_INS_VSQRTSD: case X86_INS_VSQRTPS: case X86_INS_VSQRTPD:
        return IC_FP_DIV;
    case X86_INS_MOVSD: case X86_INS_CMPSD:
        /* Capstone 4 gives the SSE2 scalar move/compare the same ids as the string ops. */
        if (insn_in_group(d, X86_GRP_SSE2))
            break;
        return IC_STRING;
    case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSQ:
    case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD: case X86_INS_STOSQ:
    case X86_INS_LODSB: case X86_INS_LODSW: case X86_INS_LODSD: case X86_INS_LODSQ:
    case X86_INS_CMPSB: case X86_INS_CMPSW: case X86_INS_CMPSQ:
    case X86_INS_SCASB: case X86_INS_SCASW: case X86_INS_SCASD: case X86_INS_SCASQ:
        return IC_STRING;
    case X86_INS_CMPXCHG: case X86_INS_CMPXCHG8B: case X86_INS_CMPXCHG16B:
        return IC_ATOMIC;
    case X86_INS_XCHG:          /* with a memory operand it is locked implicitly */
        return x86_classify_memory(insn) != IC_COUNT ? IC_ATOMIC : IC_ALU;
    case X86_INS_LEA:           /* its memory operand is an address, never accessed */
        return IC_ALU;
    }

    /* call before jump: relative calls are also in the branch_relative group. */
    if (insn_in_group(d, X86_GRP_CALL))
        return IC_CALL;
    if (insn_in_group(d, X86_GRP_RET))
        return IC_RET;
    if (insn_in_group(d, X86_GRP_INT))
        return IC_TRAP;
    if (insn_in_group(d, X86_GRP_IRET) || insn_in_group(d, X86_GRP_PRIVILEGE))
        return IC_SYSTEM;       /* mov to/from CRn/DRn/segment registers, vmcall, ... */
    if (insn_in_group(d, X86_GRP_BRANCH_RELATIVE))
        return IC_BRANCH;       /* jmp/jcc rel, loop, jrcxz */
    if (insn_in_group(d, X86_GRP_JUMP))
        return IC_BRANCH_IND;   /* jmp reg, jmp [mem], ljmp */

    InsnClass mem = x86_classify_memory(insn);
    if (mem != IC_COUNT)
        return mem;
    if (insn_in_group(d, X86_GRP_FPU))
        return IC_FP;
    if (insn->id != X86_INS_CRC32 && x86_is_vector(d))
        return x86_is_scalar_fp(insn->id) ? IC_FP : IC_SIMD;
    return IC_ALU;
}

/* ------------------------------------------------------------------ AArch64 */

static InsnClass arm64_classify(const cs_insn *insn)
{
    const cs_detail *d = insn->detail;
    bool vector = insn_in_group(d, ARM64_GRP_NEON) || insn_in_group(d, ARM64_GRP_CRYPTO);

    switch (insn->id) {
    case ARM64_INS_LDR: case ARM64_INS_LDRB: case ARM64_INS_LDRH: case ARM64_INS_LDRSB:
    case ARM64_INS_LDRSH: case ARM64_INS_LDRSW: case ARM64_INS_LDUR: case ARM64_INS_LDURB:
    case ARM64_INS_LDURH: case ARM64_INS_LDURSB: case ARM64_INS_LDURSH: case ARM64_INS_LDURSW:
    case ARM64_INS_LDTR: case ARM64_INS_LDTRB: case ARM64_INS_LDTRH: case ARM64_INS_LDTRSB:
    case ARM64_INS_LDTRSH: case ARM64_INS_LDTRSW: case ARM64_INS_LDP: case ARM64_INS_LDPSW:
    case ARM64_INS_LDNP: case ARM64_INS_LD1: case ARM64_INS_LD2: case ARM64_INS_LD3:
    case ARM64_INS_LD4: case ARM64_INS_LD1R: case ARM64_INS_LD2R: case ARM64_INS_LD3R:
    case ARM64_INS_LD4R:
        return IC_LOAD;
    case ARM64_INS_STR: case ARM64_INS_STRB: case ARM64_INS_STRH: case ARM64_INS_STUR:
    case ARM64_INS_STURB: case ARM64_INS_STURH: case ARM64_INS_STTR: case ARM64_INS_STTRB:
    case ARM64_INS_STTRH: case ARM64_INS_STP: case ARM64_INS_STNP: case ARM64_INS_ST1:
    case ARM64_INS_ST2: case ARM64_INS_ST3: case ARM64_INS_ST4:
        return IC_STORE;
    /* Exclusive and acquire/release accesses.  Capstone 4 does not decode the ARMv8.1 LSE
     * atomics (cas, swp, ldadd, ...); the modelled cores are ARMv8.0 and lack them anyway. */
    case ARM64_INS_LDXR: case ARM64_INS_LDXRB: case ARM64_INS_LDXRH: case ARM64_INS_LDXP:
    case ARM64_INS_LDAXR: case ARM64_INS_LDAXRB: case ARM64_INS_LDAXRH: case ARM64_INS_LDAXP:
    case ARM64_INS_LDAR: case ARM64_INS_LDARB: case ARM64_INS_LDARH:
    case ARM64_INS_STXR: case ARM64_INS_STXRB: case ARM64_INS_STXRH: case ARM64_INS_STXP:
    case ARM64_INS_STLXR: case ARM64_INS_STLXRB: case ARM64_INS_STLXRH: case ARM64_INS_STLXP:
    case ARM64_INS_STLR: case ARM64_INS_STLRB: case ARM64_INS_STLRH: case ARM64_INS_CLREX:
        return IC_ATOMIC;
    /* hint covers every hint number Capstone has no name for (PAC, BTI, ESB, ...): they
     * execute as NOPs on the ARMv8.0 cores modelled here. */
    case ARM64_INS_NOP: case ARM64_INS_YIELD: case ARM64_INS_HINT:
    case ARM64_INS_PRFM: case ARM64_INS_PRFUM:
        return IC_NOP;
    case ARM64_INS_B: case ARM64_INS_CBZ: case ARM64_INS_CBNZ:
    case ARM64_INS_TBZ: case ARM64_INS_TBNZ:
        return IC_BRANCH;
    case ARM64_INS_BR:
        return IC_BRANCH_IND;
    case ARM64_INS_BL: case ARM64_INS_BLR:
        return IC_CALL;
    case ARM64_INS_RET:
        return IC_RET;
    case ARM64_INS_MUL: case ARM64_INS_MADD: case ARM64_INS_MSUB: case ARM64_INS_MNEG:
    case ARM64_INS_SMULL: case ARM64_INS_UMULL: case ARM64_INS_SMULH: case ARM64_INS_UMULH:
    case ARM64_INS_SMADDL: case ARM64_INS_UMADDL: case ARM64_INS_SMSUBL: case ARM64_INS_UMSUBL:
    case ARM64_INS_SMNEGL: case ARM64_INS_UMNEGL:
        return vector ? IC_SIMD : IC_MUL;       /* mul/smull also name NEON ops */
    case ARM64_INS_SDIV: case ARM64_INS_UDIV:
        return IC_DIV;
    case ARM64_INS_FDIV: case ARM64_INS_FSQRT:
        return IC_FP_DIV;
    case ARM64_INS_DMB: case ARM64_INS_DSB: case ARM64_INS_ISB:
        return IC_BARRIER;
    case ARM64_INS_DC: case ARM64_INS_IC:
        return IC_CACHE;
    /* eret and drps return from an exception level: like x86 iretq and PowerPC rfi they are
     * context-synchronising system operations, not plain returns. */
    case ARM64_INS_MRS: case ARM64_INS_MSR: case ARM64_INS_SYS: case ARM64_INS_SYSL:
    case ARM64_INS_TLBI: case ARM64_INS_AT: case ARM64_INS_WFI: case ARM64_INS_WFE:
    case ARM64_INS_SEV: case ARM64_INS_SEVL: case ARM64_INS_ERET: case ARM64_INS_DRPS:
        return IC_SYSTEM;
    case ARM64_INS_SVC: case ARM64_INS_HVC: case ARM64_INS_SMC: case ARM64_INS_BRK:
    case ARM64_INS_HLT: case ARM64_INS_DCPS1: case ARM64_INS_DCPS2: case ARM64_INS_DCPS3:
        return IC_TRAP;
    }
    if (vector)
        return IC_SIMD;
    if (insn_in_group(d, ARM64_GRP_FPARMV8))
        return IC_FP;
    return IC_ALU;
}

/* ------------------------------------------------------------------ PPC32 */

/* Field extraction in IBM bit numbering (bit 0 = most significant). */
#define PPC_OPCD(w) ((w) >> 26)             /* primary opcode, bits 0-5 */
#define PPC_XO10(w) (((w) >> 1) & 0x3ff)    /* X/XL-form extended opcode, bits 21-30 */
#define PPC_XO9(w)  (((w) >> 1) & 0x1ff)    /* XO-form extended opcode, bits 22-30 (OE apart) */
#define PPC_XO5(w)  (((w) >> 1) & 0x1f)     /* A-form extended opcode, bits 26-30 */
#define PPC_LK(w)   ((w) & 1)               /* link bit: branch-and-link is a call */

/* Primary opcode 31: integer loads/stores by index, mul/div, SPR moves, cache ops, ... */
static InsnClass ppc32_classify_op31(uint32_t w)
{
    switch (PPC_XO9(w)) {
    case 11: case 75: case 235:             /* mulhwu, mulhw, mullw[o] */
        return IC_MUL;
    case 459: case 491:                     /* divwu[o], divw[o] */
        return IC_DIV;
    }
    switch (PPC_XO10(w)) {
    case 23: case 55: case 87: case 119:    /* lwzx lwzux lbzx lbzux */
    case 279: case 311: case 343: case 375: /* lhzx lhzux lhax lhaux */
    case 533: case 597: case 534: case 790: /* lswx lswi lwbrx lhbrx */
    case 535: case 567: case 599: case 631: /* lfsx lfsux lfdx lfdux */
    case 7: case 39: case 71: case 103: case 359:   /* lvebx lvehx lvewx lvx lvxl */
    case 310:                               /* eciwx */
        return IC_LOAD;
    case 151: case 183: case 215: case 247: /* stwx stwux stbx stbux */
    case 407: case 439: case 661: case 725: /* sthx sthux stswx stswi */
    case 662: case 918:                     /* stwbrx sthbrx */
    case 663: case 695: case 727: case 759: case 983:   /* stfsx stfsux stfdx stfdux stfiwx */
    case 135: case 167: case 199: case 231: case 487:   /* stvebx stvehx stvewx stvx stvxl */
    case 438:                               /* ecowx */
        return IC_STORE;
    case 20: case 150:                      /* lwarx stwcx. */
        return IC_ATOMIC;
    case 598: case 854:                     /* sync (incl. lwsync), eieio */
        return IC_BARRIER;
    case 54: case 86: case 470: case 1014: case 982: case 758: /* dcbst dcbf dcbi dcbz icbi dcba */
        return IC_CACHE;
    case 278: case 246:                     /* dcbt dcbtst: touch hints */
    case 342: case 374: case 822:           /* dst dstst dss: AltiVec stream hints */
        return IC_NOP;
    case 339: case 467: case 371:           /* mfspr mtspr mftb (every alias: mflr, mtctr, ...) */
    case 83: case 146:                      /* mfmsr mtmsr */
    case 595: case 659: case 210: case 242: /* mfsr mfsrin mtsr mtsrin */
    case 306: case 566: case 370:           /* tlbie tlbsync tlbia */
    case 978: case 1010:                    /* tlbld tlbli (7450 software table walk) */
        return IC_SYSTEM;
    case 4:                                 /* tw (trap, tweq, twgt, ...) */
        return IC_TRAP;
    case 6: case 38:                        /* lvsl lvsr: permute control from an address */
        return IC_SIMD;
    }
    return IC_ALU;      /* add, logical, shifts, compares, mfcr, mtcrf, mcrxr, ... */
}

static InsnClass ppc32_classify(const cs_insn *insn)
{
    if (insn->size != 4)
        return IC_ALU;
    uint32_t w = (uint32_t)load_be(insn->bytes, 4);

    switch (PPC_OPCD(w)) {
    case 3: case 17:                        /* twi, sc */
        return IC_TRAP;
    case 4:                                 /* AltiVec computational */
        return IC_SIMD;
    case 7:                                 /* mulli */
        return IC_MUL;
    case 16: case 18:                       /* bc, b: relative (or absolute) targets */
        return PPC_LK(w) ? IC_CALL : IC_BRANCH;
    case 19:
        switch (PPC_XO10(w)) {
        case 16:                            /* bclr: blr, beqlr; with LK blrl */
            return PPC_LK(w) ? IC_CALL : IC_RET;
        case 528:                           /* bcctr: bctr; with LK bctrl */
            return PPC_LK(w) ? IC_CALL : IC_BRANCH_IND;
        case 150:                           /* isync */
            return IC_BARRIER;
        case 50:                            /* rfi */
            return IC_SYSTEM;
        }
        return IC_ALU;                      /* mcrf, CR logical ops */
    case 24:                                /* ori; ori 0,0,0 is the preferred nop */
        return w == 0x60000000 ? IC_NOP : IC_ALU;
    case 31:
        return ppc32_classify_op31(w);
    case 32: case 33: case 34: case 35:     /* lwz lwzu lbz lbzu */
    case 40: case 41: case 42: case 43:     /* lhz lhzu lha lhau */
    case 46: case 48: case 49: case 50: case 51:    /* lmw lfs lfsu lfd lfdu */
        return IC_LOAD;
    case 36: case 37: case 38: case 39:     /* stw stwu stb stbu */
    case 44: case 45: case 47:              /* sth sthu stmw */
    case 52: case 53: case 54: case 55:     /* stfs stfsu stfd stfdu */
        return IC_STORE;
    case 59: case 63:                       /* single / double precision FP */
        /* A-form 18 and 22 are the divides and square roots; no X-form opcode in these
         * primary opcodes has those values in its low five bits. */
        return PPC_XO5(w) == 18 || PPC_XO5(w) == 22 ? IC_FP_DIV : IC_FP;
    }
    return IC_ALU;
}

/* ------------------------------------------------------------------ dispatch */

InsnClass insn_classify(Arch arch, const cs_insn *insn)
{
    if (!insn)
        return IC_ALU;
    switch (arch) {
    case ARCH_X86_64:
        return insn->detail ? x86_classify(insn) : IC_ALU;
    case ARCH_ARM64:
        return insn->detail ? arm64_classify(insn) : IC_ALU;
    case ARCH_PPC32:
        return ppc32_classify(insn);
    default:
        return IC_ALU;
    }
}

/* ------------------------------------------------------------------ branches */

static BranchKind x86_branch_kind(const cs_insn *insn)
{
    const cs_x86 *x = &insn->detail->x86;
    bool imm = x->op_count == 1 && x->operands[0].type == X86_OP_IMM;
    switch (insn->id) {
    case X86_INS_JMP: return imm ? BR_JUMP : BR_IND;
    case X86_INS_CALL: return imm ? BR_CALL : BR_IND_CALL;
    case X86_INS_RET: return BR_RET;
    /* Conditional on RCX (and ZF): Intel SDM vol. 2A, LOOP/LOOPcc, "Jcc" (JRCXZ).  Capstone 4.0.2
     * and 5.0.7 leave the loop family out of the jump group (only branch_relative), so without
     * its ids they counted as no branch at all. */
    case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE:
    case X86_INS_JRCXZ: case X86_INS_JECXZ: case X86_INS_JCXZ:
        return BR_COND;
    /* retfq is the REX.W far return, an id of its own (Capstone 4.0.2 and 5.0.7 alike). */
    case X86_INS_LJMP: case X86_INS_LCALL: case X86_INS_RETF: case X86_INS_RETFQ: case X86_INS_IRET:
    case X86_INS_IRETD: case X86_INS_IRETQ: case X86_INS_INT: case X86_INS_INT3: case X86_INS_INTO:
    case X86_INS_SYSCALL: case X86_INS_SYSRET: case X86_INS_SYSENTER: case X86_INS_SYSEXIT:
        return BR_FAR;
    default:
        break;
    }
    for (int i = 0; i < insn->detail->groups_count; i++)
        if (insn->detail->groups[i] == CS_GRP_JUMP)
            return BR_COND;             /* jcc */
    return BR_NONE;
}

static BranchKind arm64_branch_kind(const cs_insn *insn)
{
    switch (insn->id) {
    case ARM64_INS_B:
        return insn->detail->arm64.cc != ARM64_CC_INVALID && insn->detail->arm64.cc != ARM64_CC_AL ? BR_COND
                                                                                                    : BR_JUMP;
    case ARM64_INS_CBZ: case ARM64_INS_CBNZ: case ARM64_INS_TBZ: case ARM64_INS_TBNZ: return BR_COND;
    case ARM64_INS_BL: return BR_CALL;
    case ARM64_INS_BLR: return BR_IND_CALL;
    case ARM64_INS_BR: return BR_IND;
    case ARM64_INS_RET: return BR_RET;
    case ARM64_INS_ERET: case ARM64_INS_SVC: case ARM64_INS_HVC: case ARM64_INS_SMC: return BR_FAR;
    default: return BR_NONE;
    }
}

/* From the instruction word: BO with bit 0x14 set on both conditions is "branch always". */
static BranchKind ppc32_branch_kind(const cs_insn *insn)
{
    if (insn->size != 4)
        return BR_NONE;
    uint32_t w = (uint32_t)load_be(insn->bytes, 4);
    unsigned bo = (w >> 21) & 0x1f;
    bool always = (bo & 0x14) == 0x14, lk = w & 1;
    switch (PPC_OPCD(w)) {
    case 18: return lk ? BR_CALL : BR_JUMP;
    case 16: return lk ? BR_CALL : always ? BR_JUMP : BR_COND;
    case 17: return BR_FAR;                                         /* sc */
    case 19:
        switch (PPC_XO10(w)) {
        case 16: return lk ? BR_IND_CALL : BR_RET;                  /* bclr */
        case 528: return lk ? BR_IND_CALL : BR_IND;                 /* bcctr */
        case 50: return BR_FAR;                                     /* rfi */
        }
        return BR_NONE;
    default:
        return BR_NONE;
    }
}

BranchKind insn_branch_kind(Arch arch, const cs_insn *insn)
{
    if (!insn)
        return BR_NONE;
    switch (arch) {
    case ARCH_X86_64: return insn->detail ? x86_branch_kind(insn) : BR_NONE;
    case ARCH_ARM64: return insn->detail ? arm64_branch_kind(insn) : BR_NONE;
    case ARCH_PPC32: return ppc32_branch_kind(insn);
    default: return BR_NONE;
    }
}

void bp_init(BranchPredictor *bp)
{
    memset(bp, 0, sizeof *bp);
    memset(bp->pht, 1, sizeof bp->pht);         /* weakly not-taken */
}

static unsigned bp_hash(uint64_t pc, unsigned size)
{
    return (unsigned)((pc ^ (pc >> 10) ^ (pc >> 20)) & (size - 1));
}

static void ras_push(BranchPredictor *bp, uint64_t ret)
{
    bp->ras_top = (bp->ras_top + 1) % BP_RAS;
    bp->ras[bp->ras_top] = ret;
    if (bp->ras_n < BP_RAS)
        bp->ras_n++;
}

bool bp_resolve(BranchPredictor *bp, BranchKind k, uint64_t pc, uint64_t next, uint64_t target)
{
    switch (k) {
    case BR_COND: {
        uint8_t *ctr = &bp->pht[bp_hash(pc, BP_PHT)];
        bool taken = target != next, predicted = *ctr >= 2;
        if (taken && *ctr < 3)
            (*ctr)++;
        else if (!taken && *ctr > 0)
            (*ctr)--;
        return taken != predicted;
    }
    case BR_CALL:
        ras_push(bp, next);
        return false;
    case BR_IND:
    case BR_IND_CALL: {
        uint64_t *slot = &bp->btb[bp_hash(pc, BP_BTB)];
        bool miss = *slot != target;
        *slot = target;
        if (k == BR_IND_CALL)
            ras_push(bp, next);
        return miss;
    }
    case BR_RET: {
        if (!bp->ras_n)
            return true;
        uint64_t predicted = bp->ras[bp->ras_top];
        bp->ras_top = (bp->ras_top + BP_RAS - 1) % BP_RAS;
        bp->ras_n--;
        return predicted != target;
    }
    default:
        return false;
    }
}
