/* callchain.c — the guest's call chain at a PMU sample (see callchain.h).
 *
 * Frame layouts, per arch (word = the frame's word size):
 *   x86_64  rbp -> [rbp + 0] the caller's rbp, [rbp + 8] the return address (System V AMD64
 *           psABI 3.2.2 with frame pointers; Linux struct stack_frame, arch/x86/events/core.c)
 *   arm64   x29 -> [x29 + 0] the caller's x29, [x29 + 8] the saved x30 (AAPCS64 6.2.3,
 *           "The Frame Pointer"; Linux struct frame_tail, arch/arm64/kernel/perf_callchain.c)
 *   ppc32   r1 -> [r1 + 0] the back chain (the caller's r1); a function's return address is
 *           saved in its CALLER's frame header, at [back chain + 4] (SysV ABI PowerPC
 *           supplement, "Stack Frame"; Linux arch/powerpc/perf/callchain_32.c reads fp[1] of the
 *           next frame, STACK_FRAME_LR_SAVE)
 *
 * The LR (arm64, ppc32) holds the sampled function's return address until the function stores
 * it, and after it restores it.  Linux takes it on ppc (callchain_32.c: `if (level == 0)
 * next_ip = lr`, zeroing a level-1 duplicate) and not on arm64; pmusim decides with the image's
 * symbols: the LR is the first caller unless the frame chain already holds it (the first saved
 * return address equals it) or it points into the sampled function itself (the function has
 * called out and come back since: it is not a leaf, and its prologue stored its return
 * address); and the word before the LR must be a call (of the sampled function, if direct): an
 * exception entry is no call, and code it interrupted left its own LR.  On ppc32 a leaf built
 * with a frame pointer allocates its frame (stwu) but never saves the LR: the LR save word of
 * its caller's frame then holds a stale address (an earlier callee's) or garbage, which is
 * skipped when the frame at r1 is the leaf's own: when the leaf's code from its start to the
 * sampled instruction has allocated a frame and not freed it (ppc_owns_frame).  On x86_64 a
 * function without a frame of its own, or in its prologue or epilogue, has its return address
 * at the stack pointer, taken when a direct call of it precedes that address
 * (x86_frameless_ret); Linux's rbp walk misses it.  The registers are those after the sampled
 * instruction: the PMUs report a sample before the exception entry that delivers it.
 */
#include "tracer/callchain.h"

#include "base/loader.h"
#include "base/mem.h"
#include "cpu/cpu.h"

/* The saved return address lies one word above the frame pointer (x86_64, arm64), or one word
 * above the back chain (ppc32): the LR save word. */
#define RET_SLOT 1
#define WORD_PPC32 4u
#define WORD_64 8u

static unsigned word_of(Arch a)
{
    return a == ARCH_PPC32 ? WORD_PPC32 : WORD_64;
}

/* A frame pointer the walk may follow: nonzero, word-aligned, with room for its record. */
static bool fp_ok(uint64_t fp, unsigned word)
{
    return fp && !(fp & (word - 1)) && fp <= UINT64_MAX - 2 * (uint64_t)word;
}

/* The function of a code address, 0 if unknown.  A return address is looked up one byte
 * before itself (func_of_ret), in its call instruction: a call that ends a function (to a
 * noreturn one) returns past its end. */
static uint64_t func_of(const ChainEnv *env, uint64_t addr)
{
    uint64_t start;
    return env->func && env->func(env->ctx, addr, &start) ? start : 0;
}

static uint64_t func_of_ret(const ChainEnv *env, uint64_t ret)
{
    return ret ? func_of(env, ret - 1) : 0;
}

/* One frame: the caller's frame pointer and the return address of the frame's function. */
static bool frame_step(const ChainRegs *r, const ChainEnv *env, uint64_t fp, uint64_t *next, uint64_t *ret)
{
    unsigned w = word_of(r->arch);
    if (!fp_ok(fp, w) || !env->read(env->ctx, fp, w, next))
        return false;
    if (r->arch != ARCH_PPC32)
        return env->read(env->ctx, fp + RET_SLOT * w, w, ret);
    return fp_ok(*next, w) && *next > fp && env->read(env->ctx, *next + RET_SLOT * w, w, ret);
}

/* Follow the chain from fp, the return addresses into out[n..max); the new count.  skip: drop
 * the first return address (a ppc32 leaf's stale LR save word). */
static size_t follow(const ChainRegs *r, const ChainEnv *env, uint64_t fp, bool skip, uint64_t *out, size_t n,
                     size_t max)
{
    uint64_t next, ret;
    while (n < max && frame_step(r, env, fp, &next, &ret)) {
        if (!skip && !ret)
            break;
        if (!skip)
            out[n++] = ret;
        skip = false;
        if (next <= fp)                 /* not toward the stack base: the end, or a loop */
            break;
        fp = next;
    }
    return n;
}

/* Call instructions (the word before a return address):
 *   A64 BL imm26 (DDI 0487 C6.2.34), BLR Xn (C6.2.35);
 *   PowerPC bl/bla (I-form, opcode 18, LK = 1), bcl (B-form, opcode 16, LK = 1), bclrl and
 *   bcctrl (XL-form, opcode 19, extended opcodes 16 and 528, LK = 1) (Power ISA Book I, 2.4). */
#define A64_BL_MASK     0xfc000000u
#define A64_BL          0x94000000u
#define A64_IMM26       0x03ffffffu
#define A64_BLR_MASK    0xfffffc1fu
#define A64_BLR         0xd63f0000u
#define PPC_OPCD(w)     ((w) >> 26)
#define PPC_LK          1u
#define PPC_AA          2u
#define PPC_LI          0x03fffffcu
#define PPC_BD          0x0000fffcu
#define PPC_XO(w)       (((w) >> 1) & 0x3ffu)
enum { PPC_OP_BC = 16, PPC_OP_B = 18, PPC_OP_XL = 19, PPC_XO_BCLR = 16, PPC_XO_BCCTR = 528 };
#define INSN_BYTES      4
/* Widths of the branch displacements, in bits, as byte offsets: imm26 * 4, LI || 0b00, BD || 0b00,
 * and x86's rel32. */
#define A64_BL_BITS     28
#define PPC_LI_BITS     26
#define PPC_BD_BITS     16
#define X86_REL32_BYTES 4
#define X86_REL32_BITS  32

static uint64_t sext(uint64_t v, unsigned bits)
{
    uint64_t m = 1ull << (bits - 1);
    return (v ^ m) - m;
}

/* The call at `at`: *target its destination (0 for an indirect call); false if not a call. */
static bool call_insn(Arch a, uint64_t at, uint32_t w, uint64_t *target)
{
    *target = 0;
    if (a == ARCH_ARM64) {
        if ((w & A64_BL_MASK) == A64_BL)
            *target = at + sext((uint64_t)(w & A64_IMM26) * INSN_BYTES, A64_BL_BITS);
        return (w & A64_BL_MASK) == A64_BL || (w & A64_BLR_MASK) == A64_BLR;
    }
    if (!(w & PPC_LK))
        return false;
    if (PPC_OPCD(w) == PPC_OP_B || PPC_OPCD(w) == PPC_OP_BC) {
        uint64_t d = PPC_OPCD(w) == PPC_OP_B ? sext(w & PPC_LI, PPC_LI_BITS) : sext(w & PPC_BD, PPC_BD_BITS);
        *target = (uint32_t)((w & PPC_AA ? 0 : at) + d);
        return true;
    }
    return PPC_OPCD(w) == PPC_OP_XL && (PPC_XO(w) == PPC_XO_BCLR || PPC_XO(w) == PPC_XO_BCCTR);
}

/* Could the LR be where a call of function f returns?  The word before it must be a call, and
 * a direct one must call f (f 0: unknown, any).  An exception entry is no call: code it
 * interrupted left its own LR (the call of a system call stub, say), which this refuses. */
static bool returns_from(const ChainRegs *r, const ChainEnv *env, uint64_t f)
{
    uint64_t w, target;
    if (r->lr < INSN_BYTES || (r->lr & (INSN_BYTES - 1)) || !env->read(env->ctx, r->lr - INSN_BYTES, INSN_BYTES, &w))
        return false;
    return call_insn(r->arch, r->lr - INSN_BYTES, (uint32_t)w, &target) && (!target || !f || target == f);
}

/* PowerPC frame instructions (Power ISA Book I, 3.3): stwu r1,-N(r1) allocates a frame and
 * stores the back chain (D-form, opcode 37, RS = RA = 1); anything else that writes r1 frees it
 * (addi/addis/lwz/lwzu r1,... opcodes 14, 15, 32, 33 with RT = 1; mr r1,rX: or, opcode 31
 * extended opcode 444, RA = 1); blr (0x4e800020) returns. */
#define PPC_STWU_R1_R1  0x94210000u
#define PPC_HI16        0xffff0000u
#define PPC_RT(w)       (((w) >> 21) & 31u)
#define PPC_RA(w)       (((w) >> 16) & 31u)
#define PPC_BLR         0x4e800020u
#define PPC_SP          1u
enum { PPC_OP_ADDI = 14, PPC_OP_ADDIS = 15, PPC_OP_LWZ = 32, PPC_OP_LWZU = 33, PPC_OP_X = 31,
       PPC_XO_OR = 444 };
/* How far into a function the frame scan reads (bytes): gcc's prologues and epilogues lie in
 * functions far shorter; beyond it, the function is taken to own its frame. */
#define PPC_SCAN_MAX    0x4000u

static bool ppc_frees_frame(uint32_t w)
{
    unsigned op = PPC_OPCD(w);
    if (op == PPC_OP_ADDI || op == PPC_OP_ADDIS || op == PPC_OP_LWZ || op == PPC_OP_LWZU)
        return PPC_RT(w) == PPC_SP;
    return op == PPC_OP_X && PPC_XO(w) == PPC_XO_OR && PPC_RA(w) == PPC_SP;
}

/* ppc32: is the frame at r1 the sampled function's own?  Its instructions from its start to the
 * sampled one (which has executed), in address order: stwu r1 allocates, a write to r1 frees, a
 * blr ends an epilogue (code after it is reached by a branch from the body, frame allocated).
 * A function without symbols, or too long to scan, is taken to own it (built with a frame
 * pointer, every C function does). */
static bool ppc_owns_frame(const ChainRegs *r, const ChainEnv *env)
{
    uint64_t f = func_of(env, r->pc), w;
    bool owns = false, framed = false;
    if (!f || r->pc - f > PPC_SCAN_MAX)
        return true;
    for (uint64_t a = f; a <= r->pc; a += INSN_BYTES) {
        if (!env->read(env->ctx, a, INSN_BYTES, &w))
            return true;
        if (((uint32_t)w & PPC_HI16) == PPC_STWU_R1_R1)
            owns = framed = true;
        else if (ppc_frees_frame((uint32_t)w))
            owns = false;
        else if (w == PPC_BLR && a < r->pc)     /* the sampled blr itself has returned */
            owns = framed;
    }
    return owns;
}

/* Is the LR the sampled function's return address, not stored yet?  first: the first return
 * address the frame chain holds (0 if none). */
static bool lr_is_caller(const ChainRegs *r, const ChainEnv *env, uint64_t first)
{
    if (!r->lr || r->lr == first)
        return false;
    uint64_t f = func_of(env, r->pc);
    return (!f || f != func_of_ret(env, r->lr)) && returns_from(r, env, f);
}

/* x86_64 instructions (Intel SDM vol. 2): push %rbp (55), pop %rbp (5d), leave (c9), ret (c3),
 * call rel32 (e8 cd: the target is the next instruction + rel32). */
#define X86_PUSH_RBP    0x55u
#define X86_POP_RBP     0x5du
#define X86_LEAVE       0xc9u
#define X86_RET         0xc3u
#define X86_CALL_REL32  0xe8u
#define X86_CALL_LEN    5u
#define X86_WORD        WORD_64

static bool read_byte(const ChainEnv *env, uint64_t va, uint8_t *b)
{
    uint64_t v;
    if (!env->read(env->ctx, va, 1, &v))
        return false;
    *b = (uint8_t)v;
    return true;
}

/* Is ret the return address of a direct call of f (call rel32 just before it)? */
static bool x86_called(const ChainEnv *env, uint64_t ret, uint64_t f)
{
    uint8_t b[X86_CALL_LEN];
    for (unsigned i = 0; i < X86_CALL_LEN; i++)
        if (ret < X86_CALL_LEN || !read_byte(env, ret - X86_CALL_LEN + i, &b[i]))
            return false;
    return b[0] == X86_CALL_REL32 && ret + sext(load_le(b + 1, X86_REL32_BYTES), X86_REL32_BITS) == f;
}

/* x86_64: the sampled function's return address when rbp is not its frame yet (or any more):
 * [rsp + 8] after its push %rbp, [rsp] after its leave or pop %rbp and in a function without
 * push %rbp, [rsp - 8] after its ret (which popped it; the registers are those after the
 * sampled instruction); 0 if none is the return of a direct call of it (an indirect call is not
 * recognised) or the rbp chain holds it already (first). */
static uint64_t x86_frameless_ret(const ChainRegs *r, const ChainEnv *env, uint64_t first)
{
    uint64_t f = func_of(env, r->pc), slot = r->sp, ret;
    uint8_t head, at;
    if (!f || !read_byte(env, f, &head) || !read_byte(env, r->pc, &at))
        return 0;
    if (at == X86_RET)
        slot -= X86_WORD;
    else if (head == X86_PUSH_RBP && r->pc == f)
        slot += X86_WORD;
    else if (head == X86_PUSH_RBP && at != X86_LEAVE && at != X86_POP_RBP)
        return 0;
    if (!fp_ok(slot, X86_WORD) || !env->read(env->ctx, slot, X86_WORD, &ret) || ret == first ||
        !x86_called(env, ret, f))
        return 0;
    return ret;
}

size_t callchain_walk(const ChainRegs *r, const ChainEnv *env, uint64_t *out, size_t max)
{
    if (r->arch == ARCH_X86_64) {
        uint64_t next, first = 0, ret;
        if (!frame_step(r, env, r->fp, &next, &first))
            first = 0;
        ret = max ? x86_frameless_ret(r, env, first) : 0;
        if (ret)
            out[0] = ret;
        return follow(r, env, r->fp, false, out, ret ? 1 : 0, max);
    }
    uint64_t next, first = 0;
    if (!frame_step(r, env, r->fp, &next, &first))
        first = 0;
    if (!max || !lr_is_caller(r, env, first))
        return follow(r, env, r->fp, false, out, 0, max);
    out[0] = r->lr;
    /* ppc32: in a frame of its own, the LR save word above its back chain is not the leaf's
     * (which never stored it there) but stale (see the top of the file) */
    bool stale = r->arch == ARCH_PPC32 && ppc_owns_frame(r, env);
    return follow(r, env, r->fp, stale, out, 1, max);
}

/* ------------------------------------------------------------------ a CPU's context */

typedef struct CpuCtx {
    Cpu *c;
    const Image *im;
    bool be;
} CpuCtx;

/* Through the CPU's MMU as a probe (no accessed or dirty bits, no diagnostics), then RAM. */
static bool cpu_read(void *ctx, uint64_t va, unsigned size, uint64_t *v)
{
    CpuCtx *x = ctx;
    uint64_t pa;
    if (!vcpu_data_pa(x->c, va, &pa))
        return false;
    const uint8_t *p = mem_ptr(x->c->cl->mem, pa, size);
    if (!p)
        return false;
    *v = x->be ? load_be(p, size) : load_le(p, size);
    return true;
}

/* The symbol that contains addr (within its size, when it has one): a function, or an
 * assembly label without a type (exception vectors, entry code). */
static bool cpu_func(void *ctx, uint64_t addr, uint64_t *start)
{
    const CpuCtx *x = ctx;
    uint64_t off;
    const Symbol *s = x->im ? image_symbol_at(x->im, addr, &off) : NULL;
    if (!s || (s->size && off >= s->size))
        return false;
    *start = s->addr;
    return true;
}

size_t callchain_of_cpu(Cpu *c, uint64_t pc, const Image *im, uint64_t *out, size_t max)
{
    Arch a = c->ops->arch;
    ChainRegs r = { .arch = a, .pc = pc };
    switch (a) {
    case ARCH_X86_64:
        r.fp = vcpu_reg_read(c, UC_X86_REG_RBP);
        r.sp = vcpu_reg_read(c, UC_X86_REG_RSP);
        break;
    case ARCH_ARM64:
        r.fp = vcpu_reg_read(c, UC_ARM64_REG_X29);
        r.lr = vcpu_reg_read(c, UC_ARM64_REG_X30);
        break;
    case ARCH_PPC32:
        r.fp = (uint32_t)vcpu_reg_read(c, UC_PPC_REG_1);
        r.lr = (uint32_t)vcpu_reg_read(c, UC_PPC_REG_LR);
        break;
    default:
        return 0;
    }
    CpuCtx x = { c, im, isa_big_endian(a) };
    ChainEnv env = { cpu_read, cpu_func, &x };
    return callchain_walk(&r, &env, out, max);
}
