/* x86_64.c — the x86-64 backend.
 *
 * Entry state, exception and interrupt delivery through the guest's IDT (Intel SDM vol. 3A
 * §6.12–6.14: 64-bit gates, IST, RSP0 on a privilege change, error codes, #DF and triple-fault
 * escalation, NMI blocking until IRET), and the instructions pmusim emulates because the engine
 * gets them wrong or makes them nondeterministic: rdtsc/rdtscp (simulated time), rdmsr/wrmsr
 * (the MSR table of docs/guest-abi.md; unknown MSRs #GP), rdpmc, rdrand/rdseed (#UD), hlt and
 * mwait (sleep), cpuid (a documented model).  Port I/O goes to the machine's I/O space.
 *
 * Linear addresses (IDT, GDT, TSS, the stack) are translated through the guest's page tables
 * (4-level, 4 KiB/2 MiB/1 GiB pages), so exception entry works under any mapping the guest sets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/x86_64.h"
#include "cpu/x86_paging.h"
#include "base/state.h"

/* @see Intel SDM vol. 3A table 6-1 */
enum {
    X86_DE = 0, X86_DB = 1, X86_NMI = 2, X86_BP = 3, X86_OF = 4, X86_BR = 5, X86_UD = 6, X86_NM = 7,
    X86_DF = 8, X86_TS = 10, X86_NP = 11, X86_SS = 12, X86_GP = 13, X86_PF = 14, X86_MF = 16,
    X86_AC = 17, X86_MC = 18, X86_XM = 19,
};

enum { RFLAGS_TF = 1 << 8, RFLAGS_IF = 1 << 9, RFLAGS_NT = 1 << 14, RFLAGS_RF = 1 << 16, RFLAGS_VM = 1 << 17,
       RFLAGS_AC = 1 << 18 };

/* Instruction prefixes (SDM vol. 2A, 2.1.1 and 2.2.1): operand size, REX and its W bit. */
enum { PREFIX_OPSIZE = 0x66, REX_MASK = 0xf0, REX_BASE = 0x40, REX_W = 0x08 };

/* Trap-site kinds. */
enum { T_RDTSC = 1, T_RDTSCP, T_RDMSR, T_WRMSR, T_RDPMC, T_HLT, T_MWAIT, T_IRETQ, T_RDRAND, T_STI, T_POPF, T_SYSRET,
       T_FAR, T_MOVCR0, T_SYSCALL, T_WRBASE };

/* MSRs. @see Intel SDM vol. 4 */
enum {
    MSR_TSC = 0x10, MSR_PLATFORM_ID = 0x17, MSR_APIC_BASE = 0x1b, MSR_SMI_COUNT = 0x34,
    MSR_FEATURE_CONTROL = 0x3a, MSR_TSC_ADJUST = 0x3b, MSR_BIOS_SIGN_ID = 0x8b, MSR_PLATFORM_INFO = 0xce,
    MSR_MTRRCAP = 0xfe, MSR_SYSENTER_CS = 0x174, MSR_SYSENTER_ESP = 0x175, MSR_SYSENTER_EIP = 0x176,
    MSR_MCG_CAP = 0x179, MSR_MISC_ENABLE = 0x1a0, MSR_LBR_SELECT = 0x1c8, MSR_LBR_TOS = 0x1c9,
    MSR_DEBUGCTL = 0x1d9, MSR_OFFCORE_RSP_0 = 0x1a6, MSR_OFFCORE_RSP_1 = 0x1a7, MSR_PAT = 0x277,
    MSR_EFER = 0xc0000080,
    MSR_STAR = 0xc0000081, MSR_LSTAR = 0xc0000082, MSR_CSTAR = 0xc0000083, MSR_FMASK = 0xc0000084,
    MSR_FS_BASE = 0xc0000100, MSR_GS_BASE = 0xc0000101, MSR_KERNEL_GS_BASE = 0xc0000102,
    MSR_TSC_AUX = 0xc0000103, MSR_TSC_DEADLINE = 0x6e0,
};

enum { CR4_PCE = 1u << 8, CR4_TSD = 1u << 2, CR4_FSGSBASE = 1u << 16 };

typedef struct X86Cpu {
    Cpu c;
    uint64_t tsc_offset;        /* IA32_TSC = cycles + offset */
    uint64_t tsc_aux;
    uint64_t tsc_adjust;        /* IA32_TSC_ADJUST: what writes to IA32_TSC and to it added */
    uint64_t apic_base;
    uint64_t misc_enable;       /* IA32_MISC_ENABLE */
    uint64_t debugctl;          /* IA32_DEBUGCTL */
    uint64_t offcore_rsp[2];    /* MSR_OFFCORE_RSP_0/1 (their event counts nothing) */
    const struct X86Profile *prof;  /* what CPUID and the model-specific MSRs describe */
    bool nmi_blocked;           /* from NMI delivery until the next IRET */
    Lapic apic;
    X86Pmu pmu;
    Event irq_window;           /* ends the run where an interrupt enabled by sti/popf is taken */
    uint16_t ck_sel[6];         /* a restore's selectors (x86_saved_segs), loaded once RAM is (load_finish) */
    size_t ck_sel_at[6];        /* ... and their file offsets, for the refusal */
    uc_context *engine_ctx;     /* scratch for clearing the engine's exception in flight */
    size_t inflight_off;        /* where that record lies in engine_ctx (0: not found) */
    size_t hflags_off;          /* where the engine's hidden mode flags lie in it (0: not found) */
    uint64_t cs_base;           /* the engine's CS base as of the last x86_decode_mode (real mode: CS << 4) */
    bool mode_dirty;            /* CS may have changed since the decode mode was last synced */
    bool lin_faulted;           /* the last implicit access faulted through paging: */
    uint64_t lin_fault_va;      /* ... at this linear address, */
    uint64_t lin_fault_err;     /* ... with this #PF error code */
} X86Cpu;

static X86Cpu *X86(Cpu *c)
{
    return (X86Cpu *)c;
}

Lapic *vcpu_x86_lapic(Cpu *c)
{
    return &X86(c)->apic;
}

/* The APIC bus joins the local APICs of the cluster's CPUs. */
static int apic_bus_count(void *cl)
{
    return ((Cluster *)cl)->ncpus;
}

static Lapic *apic_bus_peer(void *cl, int i)
{
    return vcpu_x86_lapic(((Cluster *)cl)->cpus[i]);
}

/* INIT and STARTUP (load_sipi_state): CR0 CD|NW|ET; a STARTUP vector names a 4 KiB page below
 * 1 MiB; a real-mode segment's base is its selector << 4, its limit 64 KiB - 1. */
enum { INIT_CR0 = 0x60000010, CR0_PE_BIT = 1, SIPI_PAGE_SHIFT = 12, REAL_MODE_SEG_SHIFT = 4, REAL_MODE_LIMIT = 0xffff };

/* An INIT (SDM vol. 3A §9.1, table 9-1 "INIT"): the CPU enters the wait-for-SIPI state (CPU_OFF
 * of an ENABLE_SIPI CPU), whatever it was doing, a shutdown included; a STARTUP it was about to
 * take is forgotten.  Its APIC is reset when a STARTUP starts it (x86_reset).  Only CPUs that
 * start through INIT/SIPI take it (docs/machines.md); the model has no reset vector. */
static bool apic_bus_init(void *cl, Lapic *t, uint64_t at)
{
    Cpu *c = t->cpu->opaque;
    if (c->desc->enable != ENABLE_SIPI)
        return false;
    c->start.pending = false;
    if (c->state != CPU_OFF)
        vcpu_stop(c, CPU_OFF, "init");
    return true;
}

/* A STARTUP IPI to a CPU in the wait-for-SIPI state starts it at its next quantum, no earlier
 * than the sender's time, in real mode at vector << 12 (x86_reset); to any other CPU it does
 * nothing (SDM vol. 3A §9.4.4: the second STARTUP of the INIT-SIPI-SIPI sequence is ignored by
 * a CPU the first one started). */
static bool apic_bus_startup(void *cl, Lapic *t, unsigned vector, uint64_t at)
{
    Cpu *c = t->cpu->opaque;
    if (c->desc->enable != ENABLE_SIPI)
        return false;
    if (c->state == CPU_OFF && !c->start.pending)
        c->start = (CpuStartRequest){ .pending = true, .entry = (uint64_t)vector << SIPI_PAGE_SHIFT, .at = at };
    return true;
}

X86Pmu *x86pmu_of(Cpu *c)
{
    return &X86(c)->pmu;
}

static unsigned x86_cpl(Cpu *c)
{
    return vcpu_reg_read(c, UC_X86_REG_CS) & 3;
}

/* ------------------------------------------------------------------ linear addresses */

static uint64_t msr_engine_read(Cpu *c, uint32_t index);

/* The paging registers, read from the engine for one translation. */
static void paging_regs(Cpu *c, X86PagingRegs *g)
{
    g->cr0 = vcpu_reg_read(c, UC_X86_REG_CR0);
    g->cr3 = vcpu_reg_read(c, UC_X86_REG_CR3);
    g->cr4 = vcpu_reg_read(c, UC_X86_REG_CR4);
    g->efer = msr_engine_read(c, MSR_EFER);
    g->rflags = vcpu_reg_read(c, UC_X86_REG_RFLAGS);
    g->cpl = x86_cpl(c);
}

/* CpuOps.translate: an access by the running code, at its CPL. */
static bool x86_translate_op(Cpu *c, uint64_t va, MmuAccess acc, bool probe, MmuResult *r)
{
    X86PagingRegs g;
    paging_regs(c, &g);
    return vcpu_x86_walk(c, &g, va, acc, g.cpl == 3, probe, r);
}

/* A supervisor-mode implicit access (exception delivery, descriptor tables: SDM vol. 3A §4.6,
 * "implicit supervisor-mode accesses"), which sets accessed and dirty flags like any other. */
static bool x86_translate(Cpu *c, uint64_t va, MmuAccess acc, uint64_t *pa, MmuResult *r)
{
    X86PagingRegs g;
    paging_regs(c, &g);
    g.rflags &= ~(uint64_t)RFLAGS_AC;                 /* SMAP applies to implicit accesses */
    if (!vcpu_x86_walk(c, &g, va, acc, false, false, r))
        return false;
    *pa = r->pa | (va & (GUEST_PAGE - 1));
    return true;
}

/* A linear-address access, a page at a time.  Stores go at most 8 bytes at a time: an exception
 * frame is pushed one 8-byte slot at a time (Intel SDM vol. 3A §6.14.2, figure 6-9), and a store
 * to code goes through the code-write chokepoint, which records at most 16 bytes of one store (a
 * 40-byte frame on a stack inside code overran its buffer). */
static bool lin_access(Cpu *c, uint64_t va, uint8_t *b, const uint8_t *src, size_t len)
{
    while (len) {
        size_t n = 0x1000 - (va & 0xfff);
        if (n > len)
            n = len;
        if (src && n > 8)
            n = 8;
        uint64_t pa;
        MmuResult r;
        if (!x86_translate(c, va, src ? MMU_WRITE : MMU_READ, &pa, &r)) {
            X86(c)->lin_faulted = r.kind == X86_MMU_PF;
            X86(c)->lin_fault_va = va, X86(c)->lin_fault_err = r.syndrome;
            return false;
        }
        if (!(src ? vcpu_mem_write(c, pa, src, n) : vcpu_mem_read(c, pa, b, n)))
            return false;
        va += n;
        len -= n;
        if (src)
            src += n;
        else
            b += n;
    }
    return true;
}

static bool lin_read(Cpu *c, uint64_t va, void *buf, size_t len)
{
    X86(c)->lin_faulted = false;
    return lin_access(c, va, buf, NULL, len);
}

static bool lin_write(Cpu *c, uint64_t va, const void *buf, size_t len)
{
    X86(c)->lin_faulted = false;
    return lin_access(c, va, NULL, buf, len);
}

/* CR2 as a page fault sets it.  The engine's CR2 write also loads CR3 (docs/engine.md): CR3
 * again after it. */
static void set_cr2(Cpu *c, uint64_t va)
{
    uint64_t cr3 = vcpu_reg_read(c, UC_X86_REG_CR3);
    vcpu_reg_write(c, UC_X86_REG_CR2, va);
    vcpu_reg_write(c, UC_X86_REG_CR3, cr3);
}

/* A delivery access failed: the fault it raises is the #PF paging gave it, else `vec`. */
static void delivery_fault(Cpu *c, unsigned vec, uint64_t err, unsigned *fvec, uint64_t *ferr)
{
    X86Cpu *x = X86(c);
    *fvec = x->lin_faulted ? X86_PF : vec;
    *ferr = x->lin_faulted ? x->lin_fault_err : err;
}

/* ------------------------------------------------------------------ exception delivery */

static const char *const x86_exc_names[32] = {
    "#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "", "#TS", "#NP", "#SS", "#GP",
    "#PF", "", "#MF", "#AC", "#MC", "#XM", "#VE", "#CP",
};

static bool has_error_code(unsigned vec)
{
    return vec == X86_DF || vec == X86_TS || vec == X86_NP || vec == X86_SS || vec == X86_GP ||
           vec == X86_PF || vec == X86_AC || vec == 21;
}

static bool engine_set_cpl(Cpu *c, unsigned cpl);

/* Try to deliver vector `vec` through the IDT; RIP must already hold the return address.
 * On failure nothing has changed and fvec/ferr say which fault the attempt raised. */
static bool x86_try_deliver(Cpu *c, unsigned vec, bool soft, bool has_err, uint64_t err, TraceKind kind,
                            unsigned *fvec, uint64_t *ferr)
{
    X86Cpu *x = X86(c);
    uint64_t rip = vcpu_reg_read(c, UC_X86_REG_RIP);
    uint64_t rflags = vcpu_reg_read(c, UC_X86_REG_RFLAGS);
    uint64_t cs = vcpu_reg_read(c, UC_X86_REG_CS) & 0xffff;
    uint64_t ss = vcpu_reg_read(c, UC_X86_REG_SS) & 0xffff;
    uint64_t rsp = vcpu_reg_read(c, UC_X86_REG_RSP);
    unsigned cpl = cs & 3;
    uc_x86_mmr idtr = { 0 }, gdtr = { 0 }, tr = { 0 };
    uc_reg_read(c->uc, UC_X86_REG_IDTR, &idtr);
    uc_reg_read(c->uc, UC_X86_REG_GDTR, &gdtr);
    uc_reg_read(c->uc, UC_X86_REG_TR, &tr);

    uint8_t g[16];
    if ((uint64_t)vec * 16 + 15 > idtr.limit) {
        *fvec = X86_GP, *ferr = vec * 8 + 2;
        return false;
    }
    if (!lin_read(c, idtr.base + vec * 16, g, 16)) {
        delivery_fault(c, X86_GP, vec * 8 + 2, fvec, ferr);
        return false;
    }
    uint64_t target = load_le(g, 2) | load_le(g + 6, 2) << 16 | load_le(g + 8, 4) << 32;
    unsigned sel = (unsigned)load_le(g + 2, 2), ist = g[4] & 7, type = g[5] & 0xf, dpl = (g[5] >> 5) & 3;
    bool present = g[5] & 0x80;
    if (!present || (type != 0xe && type != 0xf) || (soft && dpl < cpl)) {
        *fvec = !present ? X86_NP : X86_GP, *ferr = vec * 8 + 2;
        return false;
    }
    /* Privilege of the target code segment. */
    uint8_t desc[8];
    if ((sel & ~7u) == 0 || (sel | 7u) > gdtr.limit) {
        *fvec = X86_GP, *ferr = sel & ~3u;
        return false;
    }
    if (!lin_read(c, gdtr.base + (sel & ~7u), desc, 8)) {
        delivery_fault(c, X86_GP, sel & ~3u, fvec, ferr);
        return false;
    }
    /* The processor sets the accessed bit as it loads the descriptor (SDM vol. 3A §3.4.5.1), an
     * implicit supervisor write that can fault.  pmusim does it through its walk: the engine,
     * loading CS below, would otherwise write it itself, and a fault of the engine outside its
     * run loop (this is also called between runs) jumps through a stale jump buffer. */
    if (!(desc[5] & 1)) {
        uint8_t accessed = desc[5] | 1;
        if (!lin_write(c, gdtr.base + (sel & ~7u) + 5, &accessed, 1)) {
            delivery_fault(c, X86_GP, sel & ~3u, fvec, ferr);
            return false;
        }
    }
    unsigned new_cpl = (desc[5] >> 5) & 3;
    uint64_t new_rsp = rsp, new_ss = ss;
    if (new_cpl < cpl || ist) {
        uint8_t t[8];
        uint64_t off = ist ? 0x24 + 8 * (ist - 1) : 4 + 8 * new_cpl;   /* TSS: RSPn at 4, ISTn at 0x24 */
        if (off + 8 > (uint64_t)tr.limit + 1) {
            *fvec = X86_TS, *ferr = tr.selector & ~3u;
            return false;
        }
        if (!lin_read(c, tr.base + off, t, 8)) {
            delivery_fault(c, X86_TS, tr.selector & ~3u, fvec, ferr);
            return false;
        }
        new_rsp = load_le(t, 8);
        if (new_cpl < cpl)
            new_ss = new_cpl;       /* a null selector with RPL = new CPL (SDM §6.14.4) */
    }
    new_rsp &= ~0xfull;
    uint64_t frame[6];
    int n = 0;
    if (has_err)
        frame[n++] = err;
    frame[n++] = rip;
    frame[n++] = cs;
    frame[n++] = rflags;
    frame[n++] = rsp;
    frame[n++] = ss;
    uint8_t bytes[48];
    for (int i = 0; i < n; i++)
        store_le(bytes + 8 * i, 8, frame[i]);
    new_rsp -= 8 * (uint64_t)n;
    if (!lin_write(c, new_rsp, bytes, 8 * (size_t)n)) {
        delivery_fault(c, X86_SS, 0, fvec, ferr);
        return false;
    }
    x86pmu_set_cpl(&x->pmu, new_cpl);     /* what ran so far counted at the old level */
    vcpu_set_user(c, new_cpl != 0);         /* (USR counts at CPL 1 to 3: SDM vol. 3B §20.2.1.1) */
    rflags &= ~(uint64_t)(RFLAGS_TF | RFLAGS_NT | RFLAGS_RF | RFLAGS_VM);
    if (type == 0xe)
        rflags &= ~(uint64_t)RFLAGS_IF;
    vcpu_reg_write(c, UC_X86_REG_RFLAGS, rflags);
    if (new_cpl < cpl && !engine_set_cpl(c, new_cpl))
        vcpu_internal_error(c, "cannot enter CPL %u: the engine's mode flags were not found", new_cpl);
    if (new_ss != ss)
        vcpu_reg_write(c, UC_X86_REG_SS, new_ss);
    vcpu_reg_write(c, UC_X86_REG_RSP, new_rsp);
    vcpu_reg_write(c, UC_X86_REG_RIP, target);
    if (sel != cs) {
        vcpu_reg_write(c, UC_X86_REG_CS, sel);
        vcpu_sync_decode_mode(c);           /* the handler's code segment */
    }
    if (vec == X86_NMI && !soft) {
        x->nmi_blocked = true;
        x86pmu_nmi_entry(&x->pmu);
    }
    bool named = vec < 32 && (!soft || vec == X86_BP || vec == X86_OF);     /* int3, into: #BP, #OF */
    vcpu_exception_taken(c, kind, vec, named ? x86_exc_names[vec] : "int", rip, target, has_err ? err : 0);
    return true;
}

/* Deliver, escalating as the SDM prescribes (§6.15, "Interrupt 8"): a fault while delivering
 * raises that fault; a fault while delivering it raises #DF; a fault while delivering #DF is a
 * triple fault (the CPU shuts down; the run ends). */
/* A vector's name for messages: "#PF", or "vector 0x80". */
static const char *vector_name(unsigned vec, char *buf, size_t len)
{
    if (vec < 32 && x86_exc_names[vec] && x86_exc_names[vec][0])
        return x86_exc_names[vec];
    snprintf(buf, len, "vector %u", vec);
    return buf;
}

/* The diagnostic of a triple fault: the faults in the order they came, and the state a kernel
 * developer looks at first (where it ran, its stack, its mode and its tables). */
static void triple_fault_diag(Cpu *c, unsigned first, unsigned second)
{
    uc_x86_mmr idtr = { 0 };
    uc_reg_read(c->uc, UC_X86_REG_IDTR, &idtr);
    char b1[16], b2[16];
    vcpu_diag(c, c->ops->get_pc(c), "triple-fault",
              "fault while delivering a double fault (%s, then %s, then #DF): rip=0x%" PRIx64 " rsp=0x%" PRIx64
              " rflags=0x%" PRIx64 " cs=0x%" PRIx64 " ss=0x%" PRIx64 " cr0=0x%" PRIx64 " cr2=0x%" PRIx64
              " cr3=0x%" PRIx64 " cr4=0x%" PRIx64 " efer=0x%" PRIx64 " idtr=0x%" PRIx64 "+0x%x",
              vector_name(first, b1, sizeof b1), vector_name(second, b2, sizeof b2),
              vcpu_reg_read(c, UC_X86_REG_RIP), vcpu_reg_read(c, UC_X86_REG_RSP),
              vcpu_reg_read(c, UC_X86_REG_RFLAGS), vcpu_reg_read(c, UC_X86_REG_CS), vcpu_reg_read(c, UC_X86_REG_SS),
              vcpu_reg_read(c, UC_X86_REG_CR0), vcpu_reg_read(c, UC_X86_REG_CR2), vcpu_reg_read(c, UC_X86_REG_CR3),
              vcpu_reg_read(c, UC_X86_REG_CR4), msr_engine_read(c, MSR_EFER), idtr.base, idtr.limit);
}

static void x86_deliver(Cpu *c, unsigned vec, bool soft, bool has_err, uint64_t err, TraceKind kind)
{
    unsigned fvec, chain[2] = { vec, vec };
    uint64_t ferr;
    for (int depth = 0;; depth++) {
        if (x86_try_deliver(c, vec, soft, has_err, err, kind, &fvec, &ferr))
            return;
        if (vec == X86_DF) {
            /* Shutdown: the processor executes nothing more (SDM vol. 3A §6.15 "Interrupt 8",
             * "Exception Class: Abort").  x86_intr also stops the engine (a faulting fetch
             * reaches no block boundary, where the requested stop takes effect). */
            triple_fault_diag(c, chain[0], chain[1]);
            vcpu_stop(c, CPU_DEAD, "triple-fault");
            vcpu_exit(c, EXIT_HUNG, "triple-fault");
            return;
        }
        soft = false;
        kind = TK_EXCEPTION;
        has_err = true;
        if (depth == 0) {
            vec = chain[1] = fvec;
            err = ferr;
            if (vec == X86_PF)
                set_cr2(c, X86(c)->lin_fault_va);
        } else {
            vec = X86_DF;
            err = 0;
        }
    }
}

static void x86_fault(Cpu *c, unsigned vec, uint64_t err)
{
    x86_deliver(c, vec, false, has_error_code(vec), err, TK_EXCEPTION);
}

/* ------------------------------------------------------------------ CPU profiles
 *
 * What CPUID and the model-specific MSRs describe, per engine CPU model (the --cpu-model's
 * `uc_model`): `generic` is a Skylake-client core (family 6, model 0x5E, stepping 3: the
 * engine's own Skylake-Client model, UC_CPU_X86_SKYLAKE_CLIENT), `core2duo` a Core 2 Duo
 * (06_0FH stepping 6, UC_CPU_X86_CORE2DUO), each with the features both the engine (its TCG
 * feature words for that model) and pmusim execute correctly -- the Pentium and Celeron parts
 * of the Skylake core lack AVX too.  Every choice and the reason for it is in docs/machines.md,
 * "CPU models"; the bits are SDM vol. 2A CPUID, tables 3-8 and 3-17. */
enum {
    CPUID_MAX_BASIC_LIMITED = 2, CPUID_MAX_EXT = 0x80000008,
    /* leaf 1 ECX */
    F1C_SSE3 = 1u << 0, F1C_PCLMULQDQ = 1u << 1, F1C_SSSE3 = 1u << 9, F1C_CX16 = 1u << 13,
    F1C_SSE41 = 1u << 19, F1C_SSE42 = 1u << 20, F1C_X2APIC = 1u << 21, F1C_MOVBE = 1u << 22,
    F1C_POPCNT = 1u << 23, F1C_TSC_DEADLINE = 1u << 24,
    /* leaf 1 EDX */
    F1D_FPU = 1u << 0, F1D_DE = 1u << 2, F1D_PSE = 1u << 3, F1D_TSC = 1u << 4, F1D_MSR = 1u << 5,
    F1D_PAE = 1u << 6, F1D_CX8 = 1u << 8, F1D_APIC = 1u << 9, F1D_SEP = 1u << 11, F1D_PGE = 1u << 13,
    F1D_CMOV = 1u << 15, F1D_PAT = 1u << 16, F1D_PSE36 = 1u << 17, F1D_CLFSH = 1u << 19,
    F1D_MMX = 1u << 23, F1D_FXSR = 1u << 24, F1D_SSE = 1u << 25, F1D_SSE2 = 1u << 26, F1D_SS = 1u << 27,
    F1D_HTT = 1u << 28,
    CLFLUSH_LINE_QWORDS = 8,                /* EBX[15:8]: 64-byte lines */
    /* leaf 6 EAX: the APIC timer runs at a constant rate in every state */
    F6A_ARAT = 1u << 2,
    /* leaf 7 EBX */
    F7B_FSGSBASE = 1u << 0, F7B_TSC_ADJUST = 1u << 1, F7B_SMEP = 1u << 7, F7B_SMAP = 1u << 20,
    /* leaf 0x80000001 */
    FX1C_LAHF = 1u << 0,
    FX1D_SYSCALL = 1u << 11, FX1D_NX = 1u << 20, FX1D_RDTSCP = 1u << 27, FX1D_LM = 1u << 29,
    /* leaf 0x80000007 EDX: invariant TSC */
    FX7D_INVARIANT_TSC = 1u << 8,
    /* leaf 0x80000008 EAX: 40 physical and 48 linear address bits */
    ADDR_SIZES = 48u << 8 | 40u,
    /* leaf 2: one iteration; descriptor 0xFF: "use leaf 4" */
    LEAF2_EAX = 0xff01,
    /* leaf 0xB ECX[15:8] level types */
    TOPO_SMT = 1, TOPO_CORE = 2,
};

#define LEAF1_EDX (F1D_FPU | F1D_DE | F1D_PSE | F1D_TSC | F1D_MSR | F1D_PAE | F1D_CX8 | F1D_SEP | F1D_PGE | \
                   F1D_CMOV | F1D_PAT | F1D_PSE36 | F1D_CLFSH | F1D_MMX | F1D_FXSR | F1D_SSE | F1D_SSE2 | \
                   F1D_SS | F1D_HTT)

/* A cache of leaf 4 (descriptive: pmusim's cycle model has no caches, docs/cycle-model.md):
 * type (1 data, 2 instruction, 3 unified), level, ways, sets of 64-byte lines, shared by every
 * core or per core. */
typedef struct CacheDesc {
    uint8_t type, level, ways;
    uint32_t sets;
    bool shared;
} CacheDesc;

typedef struct X86Profile {
    int uc_model;                   /* the engine's CPU model this describes */
    const char *name;               /* in the brand string */
    uint32_t max_leaf;              /* CPUID.0:EAX */
    uint32_t leaf1_ecx, leaf7_ebx, ext1_edx, ext7_edx;
    bool apic_extras;               /* x2APIC and the TSC-deadline timer (pmusim's APIC has both) */
    const CacheDesc *caches;
    unsigned ncaches;
    uint32_t lbr_from, lbr_to, lbr_info;    /* the LBR stack's MSRs (lbr_info 0: none) */
    uint32_t lbr_depth;
    bool nehalem_msrs;              /* MSR_PLATFORM_INFO, MSR_SMI_COUNT, MSR_LBR_SELECT */
} X86Profile;

static const CacheDesc skylake_caches[] = {
    { 1, 1, 8, 64, false },             /* L1d: 32 KiB */
    { 2, 1, 8, 64, false },             /* L1i: 32 KiB */
    { 3, 2, 4, 1024, false },           /* L2: 256 KiB */
    { 3, 3, 16, 8192, true },           /* L3: 8 MiB */
};
static const CacheDesc core2_caches[] = {
    { 1, 1, 8, 64, false },             /* L1d: 32 KiB */
    { 2, 1, 8, 64, false },             /* L1i: 32 KiB */
    { 3, 2, 16, 4096, true },           /* L2: 4 MiB, shared */
};

static const X86Profile profiles[] = {
    {
        .uc_model = UC_CPU_X86_SKYLAKE_CLIENT, .name = "Skylake-client", .max_leaf = 0x16,
        .leaf1_ecx = F1C_SSE3 | F1C_PCLMULQDQ | F1C_SSSE3 | F1C_CX16 | F1C_SSE41 | F1C_SSE42 | F1C_MOVBE |
                     F1C_POPCNT,
        .leaf7_ebx = F7B_FSGSBASE | F7B_TSC_ADJUST | F7B_SMEP | F7B_SMAP,
        .ext1_edx = FX1D_SYSCALL | FX1D_NX | FX1D_RDTSCP | FX1D_LM, .ext7_edx = FX7D_INVARIANT_TSC,
        .apic_extras = true, .caches = skylake_caches, .ncaches = ARRAY_SIZE(skylake_caches),
        /* SDM vol. 4 table 2-x (06_4EH/06_5EH): 32 entries, FROM_IP 0x680, TO_IP 0x6C0, LBR_INFO 0xDC0 */
        .lbr_from = 0x680, .lbr_to = 0x6c0, .lbr_info = 0xdc0, .lbr_depth = 32, .nehalem_msrs = true,
    },
    {
        .uc_model = UC_CPU_X86_CORE2DUO, .name = "Core 2", .max_leaf = 0xa,
        .leaf1_ecx = F1C_SSE3 | F1C_SSSE3 | F1C_CX16,
        .ext1_edx = FX1D_SYSCALL | FX1D_NX | FX1D_LM,
        .caches = core2_caches, .ncaches = ARRAY_SIZE(core2_caches),
        /* SDM vol. 4 table 2-3: 4 entries, MSR_LASTBRANCH_0_FROM_IP 0x40, _TO_IP 0x60 */
        .lbr_from = 0x40, .lbr_to = 0x60, .lbr_depth = 4,
    },
};

static const X86Profile *profile_find(int uc_model)
{
    for (size_t i = 0; i < ARRAY_SIZE(profiles); i++)
        if (profiles[i].uc_model == uc_model)
            return &profiles[i];
    return &profiles[0];
}

/* ------------------------------------------------------------------ MSRs
 *
 * The MSRs of the modelled Skylake-client core (Intel SDM vol. 4, table 2-2 and the tables of
 * 06_4EH/06_5EH) that Linux touches at boot; docs/guest-abi.md "Model-specific registers"
 * lists each with what it answers and which Linux code reads or writes it.  Unknown MSRs #GP,
 * as on the real part for an unimplemented index. */

/* MSR_CONST: reads `value`, writes ignored (IA32_BIOS_SIGN_ID: the microcode loader writes 0
 * before reading the revision, SDM vol. 3A 10.11.7.1); MSR_RO: reads `value`, writes #GP;
 * MSR_LBR: the last-branch-record stack, which pmusim does not record (reads 0, writes
 * ignored); MSR_SIM: pmusim's state. */
typedef enum MsrKind { MSR_ENGINE, MSR_CONST, MSR_RO, MSR_LBR, MSR_SIM } MsrKind;

typedef struct MsrDef {
    uint32_t index;
    const char *name;
    MsrKind kind;
    uint64_t value;             /* MSR_CONST, MSR_RO */
    uint64_t reserved;          /* bits that must be written as 0 (#GP otherwise) */
} MsrDef;

/* The microcode revision (IA32_BIOS_SIGN_ID[63:32]): the last one Intel released for 06_5EH
 * stepping 3.  Linux keeps the TSC-deadline timer on this model only from revision 0xb2 on
 * (arch/x86/kernel/apic/apic.c deadline_match). */
#define X86_UCODE_REV 0xf0ull
/* IA32_FEATURE_CONTROL as firmware leaves it: locked, VMX and SGX off (Linux's
 * init_ia32_feat_ctl then leaves it alone; a write to it #GPs, SDM vol. 4 table 2-2). */
#define FEATURE_CONTROL_LOCKED 1ull
/* IA32_APIC_BASE: BSP (8), EXTD (10), EN (11), the base up to MAXPHYADDR (40 bits, CPUID
 * 0x80000008) writable. */
#define APIC_BASE_RESERVED 0xffffff00000002ffull
#define APIC_BASE_BSP (1ull << 8)
#define APIC_BASE_EXTD (1ull << 10)
#define APIC_BASE_EN (1ull << 11)
#define APIC_BASE_ADDR 0xfffffff000ull
/* IA32_MISC_ENABLE (SDM vol. 4 table 2-2, 06_5EH): fast strings (0, R/W), automatic thermal
 * control (3, R/W), performance monitoring available (7, RO 1), BTS unavailable (11, RO 1) and
 * PEBS unavailable (12, RO 1) -- pmusim has no debug store --, limit CPUID maxval (22, R/W),
 * xTPR message disable (23, R/W), XD bit disable (34, R/W).  Enhanced SpeedStep (16), MONITOR
 * FSM (18) and turbo disable (38) are reserved here: CPUID reports none of those features. */
#define MISC_FAST_STRINGS (1ull << 0)
#define MISC_PERFMON (1ull << 7)
#define MISC_BTS_UNAVAIL (1ull << 11)
#define MISC_PEBS_UNAVAIL (1ull << 12)
#define MISC_LIMIT_CPUID (1ull << 22)
#define MISC_XD_DISABLE (1ull << 34)
#define MISC_RW (MISC_FAST_STRINGS | 1ull << 3 | MISC_LIMIT_CPUID | 1ull << 23 | MISC_XD_DISABLE)
#define MISC_RO (MISC_PERFMON | MISC_BTS_UNAVAIL | MISC_PEBS_UNAVAIL)
#define MISC_POWER_UP (MISC_FAST_STRINGS | MISC_RO)
/* IA32_DEBUGCTL (SDM vol. 3B 18.4.1 and table 18-x, 06_5EH): LBR 0, BTF 1, TR 6, BTS 7, BTINT 8,
 * BTS_OFF_OS 9, BTS_OFF_USR 10, FREEZE_LBRS_ON_PMI 11, FREEZE_PERFMON_ON_PMI 12,
 * ENABLE_UNCORE_PMI 13, FREEZE_WHILE_SMM 14, RTM_DEBUG 15.  pmusim keeps the value; the bits
 * that would record branches or change single-stepping (LBR, BTF, TR, BTS) are not modelled. */
#define DEBUGCTL_RESERVED (~0xffc3ull)
#define DEBUGCTL_UNMODELLED 0xc3ull
/* MSR_OFFCORE_RSP_0/1 (06_5EH): the request and response types of the OFFCORE_RESPONSE events
 * (0xB7/0xBB), whose mask Linux uses (arch/x86/events/intel/core.c intel_skl_extra_regs); the
 * events themselves are not modelled (they count nothing, with a `pmu-event` diagnostic). */
#define OFFCORE_RSP_RESERVED (~0x3fffff8fffull)
/* EFER.NXE, which IA32_MISC_ENABLE.XD_DISABLE takes away. */
#define EFER_NXE_BIT (1ull << 11)
/* MSR_PLATFORM_INFO's bus clock (the ratios count 100 MHz), and its maximum non-turbo ratio
 * (15:8) and maximum efficiency ratio (47:40) fields. */
#define PLATFORM_BCLK_HZ 100000000ull

static const MsrDef msr_table[] = {
    { MSR_TSC, "IA32_TSC", MSR_SIM, 0, 0 },
    { MSR_PLATFORM_ID, "IA32_PLATFORM_ID", MSR_RO, 0, 0 },
    { MSR_APIC_BASE, "IA32_APIC_BASE", MSR_SIM, 0, APIC_BASE_RESERVED },
    { MSR_SMI_COUNT, "MSR_SMI_COUNT", MSR_RO, 0, 0 },
    { MSR_FEATURE_CONTROL, "IA32_FEATURE_CONTROL", MSR_RO, FEATURE_CONTROL_LOCKED, 0 },
    { MSR_TSC_ADJUST, "IA32_TSC_ADJUST", MSR_SIM, 0, 0 },
    { MSR_BIOS_SIGN_ID, "IA32_BIOS_SIGN_ID", MSR_CONST, X86_UCODE_REV << 32, 0 },
    { MSR_PLATFORM_INFO, "MSR_PLATFORM_INFO", MSR_SIM, 0, 0 },
    { MSR_MTRRCAP, "IA32_MTRRCAP", MSR_RO, 0, 0 },
    { MSR_SYSENTER_CS, "IA32_SYSENTER_CS", MSR_ENGINE, 0, 0 },
    { MSR_SYSENTER_ESP, "IA32_SYSENTER_ESP", MSR_ENGINE, 0, 0 },
    { MSR_SYSENTER_EIP, "IA32_SYSENTER_EIP", MSR_ENGINE, 0, 0 },
    { MSR_MCG_CAP, "IA32_MCG_CAP", MSR_RO, 0, 0 },
    { MSR_MISC_ENABLE, "IA32_MISC_ENABLE", MSR_SIM, 0, ~(MISC_RW | MISC_RO) },
    { MSR_OFFCORE_RSP_0, "MSR_OFFCORE_RSP_0", MSR_SIM, 0, OFFCORE_RSP_RESERVED },
    { MSR_OFFCORE_RSP_1, "MSR_OFFCORE_RSP_1", MSR_SIM, 0, OFFCORE_RSP_RESERVED },
    { MSR_LBR_SELECT, "MSR_LBR_SELECT", MSR_LBR, 0, ~0x3ffull },
    { MSR_LBR_TOS, "MSR_LASTBRANCH_TOS", MSR_LBR, 0, 0 },      /* (the stack's depth - 1: msr_reserved) */
    { MSR_DEBUGCTL, "IA32_DEBUGCTL", MSR_SIM, 0, DEBUGCTL_RESERVED },
    { MSR_PAT, "IA32_PAT", MSR_ENGINE, 0, 0 },
    { MSR_EFER, "IA32_EFER", MSR_ENGINE, 0, ~0xd01ull },    /* SCE, LME, LMA, NXE */
    { MSR_STAR, "IA32_STAR", MSR_ENGINE, 0, 0 },
    { MSR_LSTAR, "IA32_LSTAR", MSR_ENGINE, 0, 0 },
    { MSR_CSTAR, "IA32_CSTAR", MSR_ENGINE, 0, 0 },
    { MSR_FMASK, "IA32_FMASK", MSR_ENGINE, 0, 0 },
    { MSR_FS_BASE, "IA32_FS_BASE", MSR_ENGINE, 0, 0 },
    { MSR_GS_BASE, "IA32_GS_BASE", MSR_ENGINE, 0, 0 },
    { MSR_KERNEL_GS_BASE, "IA32_KERNEL_GS_BASE", MSR_ENGINE, 0, 0 },
    { MSR_TSC_AUX, "IA32_TSC_AUX", MSR_SIM, 0, 0xffffffff00000000ull },
    { MSR_TSC_DEADLINE, "IA32_TSC_DEADLINE", MSR_SIM, 0, 0 },
};

/* The LBR stack's banks (at the profile's addresses, lbr_depth MSRs each). */
static const MsrDef lbr_from = { 0, "MSR_LASTBRANCH_FROM_IP", MSR_LBR, 0, 0 };
static const MsrDef lbr_to = { 0, "MSR_LASTBRANCH_TO_IP", MSR_LBR, 0, 0 };
static const MsrDef lbr_info = { 0, "MSR_LBR_INFO", MSR_LBR, 0, 0 };

/* Does the CPU's profile have this MSR of the table? */
static bool msr_in_profile(const X86Profile *pr, uint32_t index)
{
    switch (index) {
    case MSR_PLATFORM_INFO: case MSR_SMI_COUNT: case MSR_LBR_SELECT: case MSR_OFFCORE_RSP_0:
    case MSR_OFFCORE_RSP_1:
        return pr->nehalem_msrs;
    case MSR_TSC_ADJUST: return pr->leaf7_ebx & F7B_TSC_ADJUST;
    case MSR_TSC_DEADLINE: return pr->apic_extras;
    case MSR_TSC_AUX: return pr->ext1_edx & FX1D_RDTSCP;
    default: return true;
    }
}

static const MsrDef *msr_find(Cpu *c, uint32_t index)
{
    const X86Profile *pr = X86(c)->prof;
    for (size_t i = 0; i < ARRAY_SIZE(msr_table); i++)
        if (msr_table[i].index == index)
            return msr_in_profile(pr, index) ? &msr_table[i] : NULL;
    if (index - pr->lbr_from < pr->lbr_depth)
        return &lbr_from;
    if (index - pr->lbr_to < pr->lbr_depth)
        return &lbr_to;
    if (pr->lbr_info && index - pr->lbr_info < pr->lbr_depth)
        return &lbr_info;
    return NULL;
}

/* The bits a write must leave 0: the table's, and those that depend on the profile. */
static uint64_t msr_reserved(Cpu *c, const MsrDef *d)
{
    const X86Profile *pr = X86(c)->prof;
    if (d->index == MSR_LBR_TOS && d->kind == MSR_LBR)
        return ~(uint64_t)(pr->lbr_depth - 1);
    if (d->index == MSR_APIC_BASE && !pr->apic_extras)
        return d->reserved | APIC_BASE_EXTD;             /* no x2APIC */
    return d->reserved;
}

static uint64_t msr_engine_read(Cpu *c, uint32_t index)
{
    uc_x86_msr msr = { index, 0 };
    uc_reg_read(c->uc, UC_X86_REG_MSR, &msr);
    return msr.value;
}

static void msr_engine_write(Cpu *c, uint32_t index, uint64_t v)
{
    uc_x86_msr msr = { index, v };
    uc_reg_write(c->uc, UC_X86_REG_MSR, &msr);
}

/* A canonical linear address of the 4-level (48-bit) paging modelled: bits 63:47 all equal
 * (SDM vol. 3A 3.3.7.1). */
static bool is_canonical(uint64_t va)
{
    return (int64_t)va >> 47 == 0 || (int64_t)va >> 47 == -1;
}

/* MSR_PLATFORM_INFO (SDM vol. 4, 06_5EH): the maximum non-turbo ratio (15:8) and the maximum
 * efficiency ratio (47:40) of the core clock to the 100 MHz bus clock, both the one clock
 * pmusim runs at; no programmable ratio or TDP limits, no CPUID faulting. */
static uint64_t platform_info(Cpu *c)
{
    uint64_t ratio = c->cl->clock->freq_hz / PLATFORM_BCLK_HZ & 0xff;
    return ratio << 8 | ratio << 40;
}

static bool msr_sim_read(Cpu *c, uint32_t index, uint64_t *v)
{
    X86Cpu *x = X86(c);
    switch (index) {
    case MSR_TSC: *v = c->cycles + x->tsc_offset; return true;
    case MSR_APIC_BASE: *v = x->apic_base; return true;
    case MSR_TSC_ADJUST: *v = x->tsc_adjust; return true;
    case MSR_PLATFORM_INFO: *v = platform_info(c); return true;
    case MSR_MISC_ENABLE: *v = x->misc_enable; return true;
    case MSR_DEBUGCTL: *v = x->debugctl; return true;
    case MSR_OFFCORE_RSP_0: case MSR_OFFCORE_RSP_1: *v = x->offcore_rsp[index - MSR_OFFCORE_RSP_0]; return true;
    case MSR_TSC_AUX: *v = x->tsc_aux; return true;
    case MSR_TSC_DEADLINE: *v = lapic_tsc_deadline(&x->apic); return true;
    default: return false;
    }
}

/* false: #GP */
static bool msr_read(Cpu *c, uint32_t index, uint64_t *v)
{
    const MsrDef *d = msr_find(c, index);
    if (!d)
        return false;
    switch (d->kind) {
    case MSR_CONST:
    case MSR_RO:
        *v = d->value;
        return true;
    case MSR_LBR:
        *v = 0;
        return true;
    case MSR_ENGINE:
        *v = msr_engine_read(c, index);
        return true;
    case MSR_SIM:
        return msr_sim_read(c, index, v);
    }
    return false;
}

/* The x2APIC state machine of IA32_APIC_BASE's EN and EXTD (SDM vol. 3A 11.12.5, figure 11-27):
 * disabled (EN=0 EXTD=0), xAPIC (EN=1), x2APIC (EN=1 EXTD=1); EXTD without EN is invalid,
 * x2APIC -> xAPIC and disabled -> x2APIC are not transitions: all three #GP.  Disabling
 * (EN=0) puts the APIC in its power-up state (SDM 11.4.3: "the APIC may return to the state
 * ... after power-up"), xAPIC mode included. */
static bool apic_base_write(Cpu *c, uint64_t v)
{
    X86Cpu *x = X86(c);
    bool en = v & APIC_BASE_EN, extd = v & APIC_BASE_EXTD;
    bool was_en = x->apic_base & APIC_BASE_EN, was_extd = x->apic_base & APIC_BASE_EXTD;
    if (extd && !en)
        return false;
    if ((was_extd && en && !extd) || (!was_en && extd))
        return false;
    if ((v & APIC_BASE_ADDR) != (x->apic_base & APIC_BASE_ADDR))
        vcpu_diag(c, c->ops->get_pc(c), "unsupported",
                  "IA32_APIC_BASE = 0x%" PRIx64 ": relocating the APIC is not modelled", v);
    if (x->apic.present && was_en && !en)
        lapic_reset(&x->apic);
    if (x->apic.present && extd && !was_extd)
        lapic_set_x2apic(&x->apic, true);
    x->apic_base = (x->apic_base & APIC_BASE_BSP) | (v & ~APIC_BASE_BSP);
    return true;
}

/* IA32_MISC_ENABLE: the R/W bits take the value written, the read-only ones keep theirs. */
static void misc_enable_write(Cpu *c, uint64_t v)
{
    X86Cpu *x = X86(c);
    x->misc_enable = (x->misc_enable & MISC_RO) | (v & MISC_RW);
}

static bool msr_sim_write(Cpu *c, uint32_t index, uint64_t v)
{
    X86Cpu *x = X86(c);
    uint64_t tsc = c->cycles + x->tsc_offset;
    switch (index) {
    case MSR_TSC:
        /* A write to the TSC adds the same difference to IA32_TSC_ADJUST (SDM vol. 3B 18.17.3). */
        x->tsc_adjust += v - tsc;
        x->tsc_offset = v - c->cycles;
        return true;
    case MSR_TSC_ADJUST:
        x->tsc_offset += v - x->tsc_adjust;
        x->tsc_adjust = v;
        return true;
    case MSR_APIC_BASE: return apic_base_write(c, v);
    case MSR_PLATFORM_INFO: return false;                  /* read-only */
    case MSR_MISC_ENABLE: misc_enable_write(c, v); return true;
    case MSR_DEBUGCTL:
        if (v & DEBUGCTL_UNMODELLED)
            vcpu_diag(c, c->ops->get_pc(c), "unsupported",
                      "IA32_DEBUGCTL = 0x%" PRIx64 ": branch recording (LBR, BTS, TR) and BTF are not modelled", v);
        x->debugctl = v;
        return true;
    case MSR_OFFCORE_RSP_0: case MSR_OFFCORE_RSP_1: x->offcore_rsp[index - MSR_OFFCORE_RSP_0] = v; return true;
    case MSR_TSC_AUX: x->tsc_aux = v; return true;
    case MSR_TSC_DEADLINE: lapic_set_tsc_deadline(&x->apic, v); return true;
    default: return false;
    }
}

/* A write the engine keeps, with the checks the engine does not make: the segment bases must
 * be canonical (SDM vol. 2B WRMSR: "#GP(0) if the source register contains a non-canonical
 * address and ECX specifies one of the following MSRs: IA32_DS_AREA, IA32_FS_BASE,
 * IA32_GS_BASE, IA32_KERNEL_GS_BASE, IA32_LSTAR, IA32_SYSENTER_EIP, IA32_SYSENTER_ESP"), and
 * EFER.NXE needs the XD bit enabled (IA32_MISC_ENABLE[34] = 0). */
static bool msr_engine_checked_write(Cpu *c, uint32_t index, uint64_t v)
{
    switch (index) {
    case MSR_FS_BASE: case MSR_GS_BASE: case MSR_KERNEL_GS_BASE: case MSR_LSTAR:
    case MSR_SYSENTER_EIP: case MSR_SYSENTER_ESP:
        if (!is_canonical(v))
            return false;
        break;
    case MSR_EFER:
        if ((v & EFER_NXE_BIT) && (X86(c)->misc_enable & MISC_XD_DISABLE))
            return false;
        break;
    }
    msr_engine_write(c, index, v);
    return true;
}

static bool msr_write(Cpu *c, uint32_t index, uint64_t v)
{
    const MsrDef *d = msr_find(c, index);
    if (!d || (v & msr_reserved(c, d)))
        return false;
    switch (d->kind) {
    case MSR_CONST:
    case MSR_LBR:
        return true;                /* writes to these are ignored */
    case MSR_RO:
        return false;
    case MSR_ENGINE:
        return msr_engine_checked_write(c, index, v);
    case MSR_SIM:
        return msr_sim_write(c, index, v);
    }
    return false;
}

static bool is_x2apic_msr(uint32_t index)
{
    return index >= 0x800 && index <= 0x8ff;
}

static const char *msr_name(Cpu *c, uint32_t index)
{
    const MsrDef *d = msr_find(c, index);
    const char *pmu = x86pmu_msr_name(&X86(c)->pmu, index);
    const char *x2 = is_x2apic_msr(index) ? lapic_x2apic_msr_name(index) : NULL;
    return d ? d->name : pmu ? pmu : x2 ? x2 : "unknown";
}

/* An rdmsr/wrmsr, with the value before a write (`old`, when the MSR could be read). */
static void trace_msr(Cpu *c, uint64_t pc, TraceKind op, uint32_t index, uint64_t v, bool ok, bool has_old,
                      uint64_t old)
{
    if (trace_on(c->cl->trace))
        trace_rdmsr(c->cl->trace, op, c->cycles, c->index, pc, index, msr_name(c, index), has_old ? &old : NULL, v,
                    ok ? NULL : "#GP");
}

/* rdmsr/wrmsr of any MSR: the PMU's, then the table.  false: #GP. */
static bool any_msr_read(Cpu *c, uint32_t index, uint64_t *v)
{
    if (is_x2apic_msr(index))
        return lapic_x2apic_read(&X86(c)->apic, index, v, c->ops->get_pc(c));
    MsrResult r = x86pmu_rdmsr(&X86(c)->pmu, index, v);
    return r == MSR_NOT_MINE ? msr_read(c, index, v) : r == MSR_OK;
}

static bool any_msr_write(Cpu *c, uint32_t index, uint64_t v, uint64_t pc)
{
    if (is_x2apic_msr(index))
        return lapic_x2apic_write(&X86(c)->apic, index, v, pc);
    MsrResult r = x86pmu_wrmsr(&X86(c)->pmu, index, v, pc);
    return r == MSR_NOT_MINE ? msr_write(c, index, v) : r == MSR_OK;
}

/* ------------------------------------------------------------------ the engine's exception in flight
 *
 * A #DF is raised only when a second exception is detected while the processor is delivering a
 * prior one; once the handler of the first has been entered the two are handled serially
 * (Intel SDM vol. 3A §6.15, "Interrupt 8—Double Fault Exception", table 6-5).  The engine keeps
 * the exception being delivered (QEMU's env->old_exception) to turn a contributory fault or #PF
 * during delivery into #DF, and a fault during #DF into a shutdown; QEMU clears it when its own
 * delivery succeeds (x86_cpu_do_interrupt, "successfully delivered").  pmusim delivers every
 * exception itself (x86_deliver), so the engine never clears it: the next #GP/#PF anywhere later
 * came out as #DF, and the one after that stopped the engine's CPU in a loop that never returns
 * from uc_emu_start (a hang).  After delivering an exception the engine raised, pmusim clears the
 * record.  Unicorn 2.0.1 has no API for it, but the saved CPU context (uc_context_save, a copy of
 * the engine's CPU state) holds it.  Its offset is found once per process in a throwaway engine
 * (the layout is the library's, whatever the CPU model) by provoking two faults: it is the only
 * 32-bit field that goes -1 -> 0 (#DE) -> 8 (the engine's #DF for a second #DE).  Not in the
 * CPU's own engine: after a count-limited run, Unicorn 2.0.1 flushes all its translations at
 * the next uc_emu_start with no count (docs/engine.md). */

#define INFLIGHT_STUB 0x100000ull

static void inflight_probe_intr(uc_engine *uc, uint32_t intno, void *opaque)
{
}

/* A field of the engine's saved x86-64 context, found once per process in a throwaway engine by
 * a finder (given the open engine and a context of n bytes; 0: not found).  0 also for a
 * context of another size. */
typedef size_t (*ContextFinder)(uc_engine *uc, uc_context *ctx, size_t n);
typedef struct ContextProbe {
    bool done;
    size_t offset, ctx_size;
} ContextProbe;

static size_t context_probe(ContextProbe *p, size_t size, ContextFinder find)
{
    if (!p->done) {
        p->done = true;
        uc_engine *uc;
        uc_context *ctx;
        if (uc_open(UC_ARCH_X86, UC_MODE_64, &uc) == UC_ERR_OK) {
            if (uc_context_alloc(uc, &ctx) == UC_ERR_OK) {
                p->ctx_size = uc_context_size(uc);
                p->offset = find(uc, ctx, p->ctx_size);
                uc_context_free(ctx);
            }
            uc_close(uc);
        }
    }
    return size == p->ctx_size ? p->offset : 0;
}

/* The exception in flight: the only 32-bit field that goes -1 -> 0 (#DE) -> 8 (#DF). */
static size_t find_inflight(uc_engine *uc, uc_context *ctx, size_t n)
{
    static const uint8_t div_ecx[2] = { 0xf7, 0xf1 };           /* div ecx, with ecx = 0: #DE */
    uc_hook h;
    if (uc_mem_map(uc, INFLIGHT_STUB, GUEST_PAGE, UC_PROT_ALL) != UC_ERR_OK ||
        uc_mem_write(uc, INFLIGHT_STUB, div_ecx, sizeof div_ecx) != UC_ERR_OK ||
        uc_hook_add(uc, &h, UC_HOOK_INTR, (void *)inflight_probe_intr, NULL, 1, 0) != UC_ERR_OK)
        return 0;
    uint8_t *snap[3] = { xcalloc(1, n), xcalloc(1, n), xcalloc(1, n) };
    uc_context_save(uc, ctx);
    memcpy(snap[0], ctx, n);
    for (int i = 1; i <= 2; i++) {
        uint64_t zero = 0;
        uc_reg_write(uc, UC_X86_REG_RCX, &zero);
        uc_emu_start(uc, INFLIGHT_STUB, 0, 0, 1);
        uc_context_save(uc, ctx);
        memcpy(snap[i], ctx, n);
    }
    size_t found = 0;
    int hits = 0;
    for (size_t off = 0; off + 4 <= n; off += 4) {
        int32_t v[3];
        for (int i = 0; i < 3; i++)
            memcpy(&v[i], snap[i] + off, 4);
        if (v[0] == -1 && v[1] == 0 && v[2] == 8) {
            found = off;
            hits++;
        }
    }
    for (int i = 0; i < 3; i++)
        free(snap[i]);
    return hits == 1 ? found : 0;
}

/* Offset of the engine's exception in flight in a saved context of `size` bytes; 0 if the
 * probe does not find exactly one. */
static size_t engine_inflight_offset(size_t size)
{
    static ContextProbe probe;
    return context_probe(&probe, size, find_inflight);
}

/* The engine's code mode is in its hidden CS descriptor, mirrored in its hflags (QEMU
 * target/i386/cpu.h: HF_CS32_MASK, HF_CS64_MASK), which no Unicorn 2.0.1 API reads and which
 * may differ from the GDT the guest has since changed.  In the saved context the hflags word
 * follows RIP (CPUX86State: eip, eflags, cc_dst, cc_src, cc_src2, cc_op, df, hflags) and the
 * segment caches follow it (segs[R_CS].selector).  The layout is checked once per process in
 * a throwaway engine: a distinctive RIP, 64-bit mode's flags and the CS selector must all be
 * where it says. */
enum { HF_CS32 = 1u << 4, HF_LMA = 1u << 14, HF_CS64 = 1u << 15 };
enum { CTX_HFLAGS_AFTER_RIP = 48, CTX_CS_SEL_AFTER_HFLAGS = 32, PROBE_RIP = 0x5a5a12345678ull };

/* hflags: after a distinctive RIP, with 64-bit mode's flags, and the CS selector after it. */
static size_t find_hflags(uc_engine *uc, uc_context *ctx, size_t n)
{
    uint64_t rip = PROBE_RIP, cs = 0;
    if (uc_reg_write(uc, UC_X86_REG_RIP, &rip) != UC_ERR_OK || uc_reg_read(uc, UC_X86_REG_CS, &cs) != UC_ERR_OK ||
        uc_context_save(uc, ctx) != UC_ERR_OK)
        return 0;
    const uint8_t *p = (const uint8_t *)ctx;
    /* 4-byte steps: Unicorn 2.1's context header puts the CPU state at an offset that is not a
     * multiple of 8 (RIP at byte 148 of a 5552-byte context), and 8-byte steps missed it. */
    for (size_t off = 0; off + CTX_HFLAGS_AFTER_RIP + CTX_CS_SEL_AFTER_HFLAGS + 4 <= n; off += 4) {
        uint64_t v;
        uint32_t hf, sel;
        memcpy(&v, p + off, 8);
        memcpy(&hf, p + off + CTX_HFLAGS_AFTER_RIP, 4);
        memcpy(&sel, p + off + CTX_HFLAGS_AFTER_RIP + CTX_CS_SEL_AFTER_HFLAGS, 4);
        if (v == PROBE_RIP && (hf & (HF_LMA | HF_CS64)) == (HF_LMA | HF_CS64) && sel == (uint32_t)(cs & 0xffff))
            return off + CTX_HFLAGS_AFTER_RIP;
    }
    return 0;
}

static size_t engine_hflags_offset(size_t size)
{
    static ContextProbe probe;
    return context_probe(&probe, size, find_hflags);
}

static void engine_inflight_init(Cpu *c)
{
    X86Cpu *x = X86(c);
    size_t n = uc_context_size(c->uc);
    x->inflight_off = engine_inflight_offset(n);
    x->hflags_off = engine_hflags_offset(n);
    if ((x->inflight_off || x->hflags_off) && uc_context_alloc(c->uc, &x->engine_ctx) != UC_ERR_OK) {
        x->engine_ctx = NULL;
        x->inflight_off = x->hflags_off = 0;
    }
}

/* Set the engine's exception in flight (-1: none). */
/* The engine keeps the CPL in its hflags (QEMU target/i386/cpu.h HF_CPL_MASK, bits 1:0, set
 * from SS's DPL when SS is loaded) and checks every selector pmusim writes against it
 * (uc_check_cpu_x86_load_seg, as helper_load_seg): at CPL 3 it refuses the kernel's DPL-0 SS
 * and CS.  A privilege raise that pmusim performs (an exception or interrupt from CPL 3,
 * SYSCALL) lowers it first, in the saved context; false if the layout is unknown. */
enum { HF_CPL_BITS = 3u };

static bool engine_set_cpl(Cpu *c, unsigned cpl)
{
    X86Cpu *x = X86(c);
    uint32_t hf;
    if (!x->hflags_off || uc_context_save(c->uc, x->engine_ctx) != UC_ERR_OK)
        return false;
    uint8_t *p = (uint8_t *)x->engine_ctx + x->hflags_off;
    memcpy(&hf, p, 4);
    hf = (hf & ~HF_CPL_BITS) | cpl;
    memcpy(p, &hf, 4);
    return uc_context_restore(c->uc, x->engine_ctx) == UC_ERR_OK;
}

/* Real mode's segments.  In a UC_MODE_64 engine a selector write through the API sets only the
 * selector of CS, DS, ES and SS, never their hidden base, limit and attributes (Unicorn 2.1.1
 * qemu/target/i386/unicorn.c, the UC_MODE_64 case of reg_write; docs/engine.md "Real mode"), so
 * the CPU would run real-mode code at base 0 with the cached 32-bit attributes.  What a real-
 * mode load gives (QEMU's cpu_x86_load_seg: base selector << 4, limit 0xFFFF, present
 * writable accessed data; Intel SDM vol. 3A §20.1.1) is written into the saved context, and
 * the hflags as the engine computes them in real mode: 16-bit code and stack, CPL 0, segment
 * bases added.  The segment caches follow hflags and hflags2 (CTX_CS_SEL_AFTER_HFLAGS: ES then
 * CS), 24 bytes each: selector, base, limit, flags.  False if the layout is unknown. */
enum {
    HF_SS32 = 1u << 5, HF_ADDSEG = 1u << 6, CTX_SEGS_AFTER_HFLAGS = 8, CTX_SEG_SIZE = 24, CTX_SEG_BASE = 8,
    CTX_SEG_LIMIT = 16, CTX_SEG_FLAGS = 20, CTX_NSEGS = 6, CTX_SEG_CS = 1, CTX_SEG_SS = 2, REAL_SEG_FLAGS = 0x9300,
};

static bool engine_real_mode_segs(Cpu *c)
{
    X86Cpu *x = X86(c);
    uint32_t hf;
    if (!x->hflags_off || uc_context_save(c->uc, x->engine_ctx) != UC_ERR_OK)
        return false;
    uint8_t *p = (uint8_t *)x->engine_ctx + x->hflags_off;
    for (unsigned i = 0; i < CTX_NSEGS; i++) {
        uint8_t *seg = p + CTX_SEGS_AFTER_HFLAGS + CTX_SEG_SIZE * i;
        uint32_t sel = load_le(seg, 4) & 0xffff, limit = REAL_MODE_LIMIT, flags = REAL_SEG_FLAGS;
        uint64_t base = (uint64_t)sel << REAL_MODE_SEG_SHIFT;
        memcpy(seg + CTX_SEG_BASE, &base, 8);
        memcpy(seg + CTX_SEG_LIMIT, &limit, 4);
        memcpy(seg + CTX_SEG_FLAGS, &flags, 4);
    }
    memcpy(&hf, p, 4);
    hf = (hf & ~(HF_CS32 | HF_SS32 | HF_CS64 | HF_CPL_BITS)) | HF_ADDSEG;
    memcpy(p, &hf, 4);
    return uc_context_restore(c->uc, x->engine_ctx) == UC_ERR_OK;
}

static void engine_inflight_set(Cpu *c, int32_t v)
{
    X86Cpu *x = X86(c);
    if (!x->inflight_off || uc_context_save(c->uc, x->engine_ctx) != UC_ERR_OK)
        return;
    uint8_t *p = (uint8_t *)x->engine_ctx + x->inflight_off;
    int32_t old;
    memcpy(&old, p, 4);
    if (old == v)
        return;
    memcpy(p, &v, 4);
    uc_context_restore(c->uc, x->engine_ctx);
}

static void x86_destroy(Cpu *c)
{
    if (X86(c)->engine_ctx)
        uc_context_free(X86(c)->engine_ctx);
}

/* ------------------------------------------------------------------ CPUID
 *
 * The leaves of the CPU's profile (above); a leaf beyond the last one gives the highest basic
 * leaf's data, as Intel's processors do (SDM vol. 2A CPUID: "If a value entered for CPUID.EAX
 * is higher than the maximum input value for basic or extended function for that processor
 * then the data for the highest basic information leaf is returned"). */

/* log2 of the APIC IDs a package spans: one core per CPU, one thread per core. */
static unsigned core_shift(Cpu *c)
{
    unsigned shift = 0;
    while ((1u << shift) < (unsigned)c->cl->ncpus)
        shift++;
    return shift;
}

enum { CACHE_LINE = 64, CACHE_SELF_INIT = 1u << 8, CACHE_INCLUSIVE = 1u << 1 };

/* Leaf 4: the profile's caches; a shared one is shared by every core of the package. */
static void cpuid_cache(Cpu *c, uint32_t sub, uint32_t r[4])
{
    const X86Profile *pr = X86(c)->prof;
    if (sub >= pr->ncaches)
        return;                         /* type 0: no more caches */
    const CacheDesc *d = &pr->caches[sub];
    uint32_t cores = (1u << core_shift(c)) - 1;
    r[0] = d->type | d->level << 5 | CACHE_SELF_INIT | (d->shared ? cores : 0) << 14 | cores << 26;
    r[1] = (uint32_t)(d->ways - 1) << 22 | (CACHE_LINE - 1);
    r[2] = d->sets - 1;
    r[3] = d->shared ? CACHE_INCLUSIVE : 0;
}

/* Leaf 0xB: level 0 the threads of a core (one), level 1 the cores of the package (the CPUs). */
static void cpuid_topology(Cpu *c, uint32_t sub, uint32_t r[4])
{
    if (sub == 0) {
        r[1] = 1;
        r[2] = TOPO_SMT << 8;
    } else if (sub == 1) {
        r[0] = core_shift(c);
        r[1] = (uint32_t)c->cl->ncpus;
        r[2] = TOPO_CORE << 8 | 1;
    } else {
        r[2] = sub & 0xff;              /* level type 0: invalid */
    }
    r[3] = (uint32_t)c->hwid;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Leaf 0x15: TSC = crystal * EBX / EAX, the crystal being the APIC timer's clock (which Linux
 * assumes: native_calibrate_tsc sets lapic_timer_period from it) and the TSC the core clock
 * (IA32_TSC counts cycles).  Leaf 0x16: base and maximum frequency, bus frequency, in MHz.
 * Linux then knows both exactly (X86_FEATURE_TSC_KNOWN_FREQ) and calibrates nothing. */
static void cpuid_clocks(Cpu *c, uint32_t leaf, uint32_t r[4])
{
    uint64_t core = c->cl->clock->freq_hz, crystal = c->cl->lapic_hz;
    if (leaf == 0x16) {
        r[0] = r[1] = (uint32_t)(core / 1000000);
        r[2] = (uint32_t)(crystal / 1000000);
        return;
    }
    if (!core || !crystal || crystal > UINT32_MAX)
        return;                         /* not enumerated */
    uint64_t g = gcd(core, crystal);
    if (core / g > UINT32_MAX || crystal / g > UINT32_MAX)
        return;
    r[0] = (uint32_t)(crystal / g);
    r[1] = (uint32_t)(core / g);
    r[2] = (uint32_t)crystal;
}

/* The brand string, with the core clock. */
static void cpuid_brand(Cpu *c, uint32_t leaf, uint32_t r[4])
{
    char brand[48] = { 0 };
    uint64_t mhz = c->cl->clock->freq_hz / 1000000;
    snprintf(brand, sizeof brand, "pmusim %s CPU @ %" PRIu64 ".%02" PRIu64 "GHz", X86(c)->prof->name,
             mhz / 1000, mhz % 1000 / 10);
    memcpy(r, brand + 16 * (leaf - 0x80000002), 16);
}

static void cpuid_leaf1(Cpu *c, uint32_t r[4])
{
    X86Cpu *x = X86(c);
    r[0] = (uint32_t)c->model->id;
    r[1] = (uint32_t)(c->hwid & 0xff) << 24 | (1u << core_shift(c) & 0xff) << 16 | CLFLUSH_LINE_QWORDS << 8;
    r[2] = x->prof->leaf1_ecx;
    r[3] = LEAF1_EDX;
    if (x->apic.present && x->prof->apic_extras)
        r[2] |= F1C_X2APIC | F1C_TSC_DEADLINE;
    if (x->apic.present) {
        if (x->apic_base & APIC_BASE_EN)
            r[3] |= F1D_APIC;           /* cleared while the APIC is disabled (SDM 11.4.3) */
    }
}

static void cpuid_extended(Cpu *c, uint32_t leaf, uint32_t r[4])
{
    switch (leaf) {
    case 0x80000000: r[0] = CPUID_MAX_EXT; break;
    case 0x80000001:
        r[2] = FX1C_LAHF;
        r[3] = X86(c)->prof->ext1_edx & ~(X86(c)->misc_enable & MISC_XD_DISABLE ? FX1D_NX : 0u);
        break;
    case 0x80000002: case 0x80000003: case 0x80000004: cpuid_brand(c, leaf, r); break;
    case 0x80000006: r[2] = 256u << 16 | 4u << 12 | CACHE_LINE; break;   /* L2: 256 KiB, 4-way */
    case 0x80000007: r[3] = X86(c)->prof->ext7_edx; break;
    case 0x80000008: r[0] = ADDR_SIZES; break;
    }
}

void vcpu_x86_cpuid_values(Cpu *c, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
    memset(r, 0, 4 * sizeof r[0]);
    const X86Profile *pr = X86(c)->prof;
    uint32_t max = X86(c)->misc_enable & MISC_LIMIT_CPUID ? CPUID_MAX_BASIC_LIMITED : pr->max_leaf;
    if (leaf >= 0x80000000u) {
        if (leaf <= CPUID_MAX_EXT) {
            cpuid_extended(c, leaf, r);
            return;
        }
        leaf = max;                 /* beyond the last leaf: the highest basic leaf's data */
    } else if (leaf > max) {
        leaf = max;
    }
    switch (leaf) {
    case 0:
        r[0] = max;
        memcpy(&r[1], "Genu", 4);
        memcpy(&r[3], "ineI", 4);
        memcpy(&r[2], "ntel", 4);
        break;
    case 1: cpuid_leaf1(c, r); break;
    case 2: r[0] = LEAF2_EAX; break;
    case 4: cpuid_cache(c, sub, r); break;
    case 6: r[0] = F6A_ARAT; break;
    case 7:
        if (sub == 0)
            r[1] = pr->leaf7_ebx;
        break;
    case 0xa: x86pmu_cpuid(&X86(c)->pmu, r); break;
    case 0xb: cpuid_topology(c, sub, r); break;
    case 0x15: case 0x16: cpuid_clocks(c, leaf, r); break;
    }
}

static int hook_cpuid(uc_engine *uc, void *opaque)
{
    Cpu *c = opaque;
    uint32_t leaf = (uint32_t)vcpu_reg_read(c, UC_X86_REG_RAX), sub = (uint32_t)vcpu_reg_read(c, UC_X86_REG_RCX);
    uint32_t r[4];
    vcpu_x86_cpuid_values(c, leaf, sub, r);
    vcpu_reg_write(c, UC_X86_REG_RAX, r[0]);
    vcpu_reg_write(c, UC_X86_REG_RBX, r[1]);
    vcpu_reg_write(c, UC_X86_REG_RCX, r[2]);
    vcpu_reg_write(c, UC_X86_REG_RDX, r[3]);
    return 1;                       /* skip the engine's own CPUID */
}

/* ------------------------------------------------------------------ port I/O */

static uint32_t hook_in(uc_engine *uc, uint32_t port, int size, void *opaque)
{
    Cpu *c = opaque;
    return (uint32_t)c->cl->host.io_read(c->cl->host.opaque, c, port, (unsigned)size);
}

static void hook_out(uc_engine *uc, uint32_t port, int size, uint32_t value, void *opaque)
{
    Cpu *c = opaque;
    c->cl->host.io_write(c->cl->host.opaque, c, port, (unsigned)size, value);
}

/* #UD.  The engine asks this hook first about an invalid opcode; without a hook that answers
 * true it ends uc_emu_start with UC_ERR_INSN_INVALID.  Answering true, it goes on to raise #UD
 * as any other exception (x86_intr delivers it), RIP at the faulting instruction (docs/engine.md,
 * "Invalid opcodes"). */
static bool hook_invalid(uc_engine *uc, void *opaque)
{
    return true;
}

/* ------------------------------------------------------------------ CpuOps */

/* Nothing to do: the event only ends the run on its instruction, where take_interrupt runs. */
static void irq_window_fn(Event *ev, void *opaque)
{
}

static bool x86_init(Cpu *c, Error *err)
{
    vcpu_port_init(c);                 /* before the models that are handed it */
    uc_hook h;
    if (uc_hook_add(c->uc, &h, UC_HOOK_INSN, (void *)hook_cpuid, c, 1, 0, UC_X86_INS_CPUID) != UC_ERR_OK ||
        uc_hook_add(c->uc, &h, UC_HOOK_INSN, (void *)hook_in, c, 1, 0, UC_X86_INS_IN) != UC_ERR_OK ||
        uc_hook_add(c->uc, &h, UC_HOOK_INSN, (void *)hook_out, c, 1, 0, UC_X86_INS_OUT) != UC_ERR_OK ||
        uc_hook_add(c->uc, &h, UC_HOOK_INSN_INVALID, (void *)hook_invalid, c, 1, 0) != UC_ERR_OK)
        return err_set(err, "cpu%d: cannot install the x86 instruction hooks", c->index);
    X86Cpu *x = X86(c);
    x->apic_base = APIC_DEFAULT_BASE | APIC_BASE_EN | (c->index == 0 ? APIC_BASE_BSP : 0);
    x->misc_enable = MISC_POWER_UP;
    x->prof = profile_find(c->model->uc_model);
    LapicBus bus = { c->cl, apic_bus_count, apic_bus_peer, apic_bus_init, apic_bus_startup };
    lapic_init(&x->apic, &c->port, bus, vcpu_pin(c, CPU_PIN_IRQ), vcpu_pin(c, CPU_PIN_NMI), c->cl->lapic_hz,
               &x->tsc_offset);
    const CpuModel *md = c->model;
    X86PmuConfig pc = { md->pmu_version, md->pmu_gp, md->pmu_gp_width, md->pmu_fixed, md->pmu_fixed_width };
    x86pmu_init(&x->pmu, &c->port, lapic_lvt_line(&x->apic, LVT_PC), &pc);
    event_init(&x->irq_window, "irq-window", irq_window_fn, c);
    engine_inflight_init(c);
    return true;
}

/* The boot GDTs (docs/guest-abi.md "Entry state").  pmusim's own: 0x08 64-bit code, 0x10 data.
 * Linux's 64-bit boot protocol (Documentation/arch/x86/boot.rst, "64-bit Boot Protocol"):
 * __BOOT_CS 0x10 and __BOOT_DS 0x18, "4G flat", execute/read and read/write; in 64-bit mode
 * the code segment is a long-mode one (L = 1).  Multiboot (0.6.96 §3.2, "Machine state"): a
 * 32-bit read/execute code segment and read/write data segments, offset 0, limit 4 GiB, at
 * the selectors QEMU's multiboot loader gives (0x08 and 0x10: measured, tests/e2e/test_multiboot.sh). */
#define DESC_CODE64 0x00af9a000000ffffull    /* P, DPL 0, code execute/read, L, G */
#define DESC_CODE32 0x00cf9a000000ffffull    /* P, DPL 0, code execute/read, D, G */
#define DESC_DATA 0x00cf92000000ffffull      /* P, DPL 0, data read/write, B, G */
typedef struct BootSegs {
    uint16_t cs, ds;
    unsigned n;                             /* descriptors, the null one included */
    uint64_t desc[X86_BOOT_GDT_MAX / 8];
} BootSegs;

static const BootSegs boot_segs[] = {
    [X86_ENTRY_LONG] = { 0x08, 0x10, 3, { 0, DESC_CODE64, DESC_DATA } },
    [X86_ENTRY_LINUX64] = { 0x10, 0x18, 4, { 0, 0, DESC_CODE64, DESC_DATA } },
    [X86_ENTRY_MULTIBOOT] = { 0x08, 0x10, 3, { 0, DESC_CODE32, DESC_DATA } },
};

unsigned vcpu_x86_boot_gdt(X86Entry entry, uint8_t *gdt)
{
    const BootSegs *b = &boot_segs[entry];
    for (unsigned i = 0; i < b->n; i++)
        store_le(gdt + 8 * i, 8, b->desc[i]);
    return 8 * b->n;
}

/* Entry states: long mode with the identity map of the boot structures (CR3 0x9000), or
 * 32-bit protected mode with paging off (multiboot: CR0 = PE|ET, EFER 0). */
enum {
    BOOT_CR3 = 0x9000, BOOT_CR4_LONG = 0x20, BOOT_EFER_LONG = 0x500, BOOT_CR0_LONG = 0x80010033,
    BOOT_CR0_PROT32 = 0x11,
};

/* Out of IA-32e mode the only way the engine knows: clearing CR0.PG (which clears EFER.LMA:
 * WRMSR cannot, LMA is read-only, and the engine's reset state has LMA set with paging off, so it
 * must be turned on first).  Then LME, PAE and CR3 go; `cr0` is the mode left in. */
static void leave_long_mode(Cpu *c, uint64_t cr0)
{
    vcpu_reg_write(c, UC_X86_REG_CR0, BOOT_CR0_PROT32);
    msr_engine_write(c, MSR_EFER, 0);
    vcpu_reg_write(c, UC_X86_REG_CR4, 0);
    vcpu_reg_write(c, UC_X86_REG_CR3, 0);
    vcpu_reg_write(c, UC_X86_REG_CR0, cr0);
}

static void enter_long_mode(Cpu *c)
{
    vcpu_reg_write(c, UC_X86_REG_CR3, BOOT_CR3);
    vcpu_reg_write(c, UC_X86_REG_CR4, BOOT_CR4_LONG);
    msr_engine_write(c, MSR_EFER, BOOT_EFER_LONG);
    vcpu_reg_write(c, UC_X86_REG_CR0, BOOT_CR0_LONG);
}

static void load_data_segs(Cpu *c, uint16_t sel)
{
    static const int data_segs[] = { UC_X86_REG_DS, UC_X86_REG_ES, UC_X86_REG_SS, UC_X86_REG_FS, UC_X86_REG_GS };
    for (size_t i = 0; i < ARRAY_SIZE(data_segs); i++)
        vcpu_reg_write(c, data_segs[i], sel);
}

static void load_boot_segs(Cpu *c, const BootSegs *b)
{
    uc_x86_mmr gdtr = { 0, X86_BOOT_GDT_BASE, (uint16_t)(8 * b->n - 1), 0 }, idtr = { 0, 0, 0, 0 };
    uc_reg_write(c->uc, UC_X86_REG_GDTR, &gdtr);
    uc_reg_write(c->uc, UC_X86_REG_IDTR, &idtr);
    enter_long_mode(c);
    if (c->cl->x86_entry == X86_ENTRY_MULTIBOOT)
        leave_long_mode(c, BOOT_CR0_PROT32);
    vcpu_reg_write(c, UC_X86_REG_CS, b->cs);
    load_data_segs(c, b->ds);
}

/* The state a STARTUP IPI leaves: that of INIT (SDM vol. 3A §9.1.1, table 9-1 "IA-32 and Intel 64
 * Processor States Following Power-up, Reset, or INIT": CR0 = 0x60000010, EFER, CR4 and CR3 0,
 * GDTR and IDTR base 0 limit 0xFFFF, the data segments selector 0 limit 0xFFFF, RFLAGS 2), then
 * the STARTUP's (§9.4.4 / §11.6.1 "Start-Up"): CS selector vector << 8, so base vector << 12,
 * IP 0, real mode.  In real mode a selector write loads base = selector << 4, limit 0xFFFF, a
 * 16-bit segment (the engine's cpu_x86_load_seg; docs/engine.md "Real mode"). */
static void load_sipi_state(Cpu *c, uint64_t entry)
{
    uc_x86_mmr tab = { 0, 0, REAL_MODE_LIMIT, 0 };
    uc_reg_write(c->uc, UC_X86_REG_GDTR, &tab);
    uc_reg_write(c->uc, UC_X86_REG_IDTR, &tab);
    enter_long_mode(c);
    leave_long_mode(c, INIT_CR0);
    vcpu_reg_write(c, UC_X86_REG_CS, entry >> REAL_MODE_SEG_SHIFT);
    load_data_segs(c, 0);
    if (!engine_real_mode_segs(c))
        vcpu_diag(c, entry, "unsupported", "the engine's segment state is not where pmusim looks for it: "
                  "the CPU cannot start in real mode");
}

/* docs/guest-abi.md "Entry state"; a CPU that starts by SIPI starts in real mode at `entry`.  arg0 and arg1: RDI and RSI (pmusim's own, Linux's: RSI =
 * the zero page), EAX and EBX for multiboot (the magic and the information structure). */
static void x86_reset(Cpu *c, uint64_t entry, uint64_t arg0, uint64_t arg1)
{
    static const int gprs[] = { UC_X86_REG_RAX, UC_X86_REG_RBX, UC_X86_REG_RCX, UC_X86_REG_RDX, UC_X86_REG_RSI,
                                UC_X86_REG_RDI, UC_X86_REG_RBP, UC_X86_REG_RSP, UC_X86_REG_R8, UC_X86_REG_R9,
                                UC_X86_REG_R10, UC_X86_REG_R11, UC_X86_REG_R12, UC_X86_REG_R13, UC_X86_REG_R14,
                                UC_X86_REG_R15 };
    for (size_t i = 0; i < ARRAY_SIZE(gprs); i++)
        vcpu_reg_write(c, gprs[i], 0);
    bool sipi = c->desc->enable == ENABLE_SIPI;
    if (sipi)
        load_sipi_state(c, entry);
    else
        load_boot_segs(c, &boot_segs[c->cl->x86_entry]);
    vcpu_reg_write(c, UC_X86_REG_RFLAGS, 0x2);
    bool mb = c->cl->x86_entry == X86_ENTRY_MULTIBOOT;
    vcpu_reg_write(c, mb ? UC_X86_REG_RAX : UC_X86_REG_RDI, arg0);
    vcpu_reg_write(c, mb ? UC_X86_REG_RBX : UC_X86_REG_RSI, arg1);
    vcpu_reg_write(c, UC_X86_REG_RIP, sipi ? 0 : entry);
    X86(c)->nmi_blocked = false;
    lapic_reset(&X86(c)->apic);
    vcpu_sync_decode_mode(c);           /* 32-bit code for multiboot, 16-bit after a SIPI */
}

static int x86_trap_kind(Cpu *c, const cs_insn *insn, const uint8_t *bytes)
{
    if (!insn)
        return 0;
    switch (insn->id) {
    case X86_INS_RDTSC: return T_RDTSC;
    case X86_INS_RDTSCP: return T_RDTSCP;
    case X86_INS_RDMSR: return T_RDMSR;
    case X86_INS_WRMSR: return T_WRMSR;
    case X86_INS_RDPMC: return T_RDPMC;
    case X86_INS_HLT: return T_HLT;
    case X86_INS_MWAIT: return T_MWAIT;
    case X86_INS_IRETQ: case X86_INS_IRETD: case X86_INS_IRET: return T_IRETQ;
    case X86_INS_RDRAND:
    case X86_INS_RDSEED: return T_RDRAND;
    case X86_INS_STI: return T_STI;
    case X86_INS_POPF: case X86_INS_POPFQ: return T_POPF;
    case X86_INS_SYSRET: return T_SYSRET;
    case X86_INS_SYSCALL: return T_SYSCALL;
    case X86_INS_WRFSBASE: case X86_INS_WRGSBASE: return T_WRBASE;
    case X86_INS_LJMP: case X86_INS_LCALL: case X86_INS_RETF: case X86_INS_RETFQ:
    case X86_INS_SYSENTER: case X86_INS_SYSEXIT: return T_FAR;
    case X86_INS_MOV:
        return insn->detail->x86.op_count == 2 && insn->detail->x86.operands[0].type == X86_OP_REG &&
                       insn->detail->x86.operands[0].reg == X86_REG_CR0 ? T_MOVCR0 : 0;
    default: return 0;
    }
}

static void set_edx_eax(Cpu *c, uint64_t v)
{
    vcpu_reg_write(c, UC_X86_REG_RAX, (uint32_t)v);
    vcpu_reg_write(c, UC_X86_REG_RDX, v >> 32);
}

/* The value a MOV to CR0 (REX? 0F 22 /r; the r/m field names the source) writes. */
static int x86_decode_mode(Cpu *c);
static uint64_t x86_get_pc(Cpu *c);
static void x86_set_pc(Cpu *c, uint64_t pc);
static uint64_t stack_top(Cpu *c);

/* The general-purpose registers by their encoding number (SDM vol. 2A table 2-2, REX.B/R as
 * bit 3). */
static const int gpr_by_number[16] = { UC_X86_REG_RAX, UC_X86_REG_RCX, UC_X86_REG_RDX, UC_X86_REG_RBX,
                                       UC_X86_REG_RSP, UC_X86_REG_RBP, UC_X86_REG_RSI, UC_X86_REG_RDI,
                                       UC_X86_REG_R8, UC_X86_REG_R9, UC_X86_REG_R10, UC_X86_REG_R11,
                                       UC_X86_REG_R12, UC_X86_REG_R13, UC_X86_REG_R14, UC_X86_REG_R15 };

static uint64_t movcr0_source(Cpu *c, const TrapSite *t)
{
    unsigned rex = 0, i = 0;
    while (i + 2 < t->len && !(t->bytes[i] == 0x0f && t->bytes[i + 1] == 0x22)) {
        rex = (t->bytes[i] & 0xf0) == 0x40 ? t->bytes[i] : 0;
        i++;
    }
    unsigned rm = (t->bytes[i + 2] & 7) | (rex & 1 ? 8 : 0);
    return vcpu_reg_read(c, gpr_by_number[rm]);
}

/* The base a WRFSBASE/WRGSBASE (F3 REX? 0F AE /2 or /3, the r/m field names the source) writes:
 * 64 bits with REX.W, else the 32-bit register zero-extended (SDM vol. 2A WRFSBASE). */
static uint64_t wrbase_source(Cpu *c, const TrapSite *t)
{
    unsigned rex = 0, i = 0;
    while (i + 2 < t->len && !(t->bytes[i] == 0x0f && t->bytes[i + 1] == 0xae)) {
        rex = (t->bytes[i] & REX_MASK) == REX_BASE ? t->bytes[i] : 0;
        i++;
    }
    uint64_t v = vcpu_reg_read(c, gpr_by_number[(t->bytes[i + 2] & 7) | (rex & 1 ? 8 : 0)]);
    return rex & REX_W ? v : (uint32_t)v;
}

/* Would this CR0 value fault?  (Intel SDM vol. 2B "MOV--Move to/from Control Registers",
 * 64-bit mode exceptions: #GP(0) for bits 63:32 set, PG set with PE clear, NW set with CD
 * clear, and any attempt to clear PG.)  The engine instead leaves IA-32e mode when PG is
 * cleared and goes on executing 64-bit code as 32-bit code. */
static bool cr0_write_faults(uint64_t v)
{
    enum { CR0_PE = 1u << 0, CR0_NW = 1u << 29, CR0_CD = 1u << 30, CR0_PG = 1u << 31 };
    return (v >> 32) || !(v & CR0_PG) || !(v & CR0_PE) || ((v & CR0_NW) && !(v & CR0_CD));
}

/* SYSCALL (Intel SDM vol. 2B "SYSCALL"), which the engine does not perform (its helper only
 * calls UC_HOOK_INSN hooks and moves RIP on): RCX and R11 take RIP and RFLAGS, CS and SS come
 * from IA32_STAR[47:32] (CS) and that + 8 (SS), RFLAGS loses the IA32_FMASK bits and RF, RIP
 * comes from IA32_LSTAR, CPL 0.  #UD without EFER.SCE or outside 64-bit mode.  The engine loads
 * CS and SS from the GDT, where SYSCALL loads fixed flat descriptors: the two agree for a GDT
 * laid out for SYSCALL (as Linux's is).  Where the engine cannot read a descriptor (a GDT the
 * guest unmapped, a limit too small) the register keeps its old selector and a diag says so:
 * the hardware would not have looked. */
enum { EFER_SCE_BIT = 1u << 0 };

static const char *x86_seg_load(Cpu *c, int reg, uint16_t sel, char *buf, size_t len);

static void syscall_seg(Cpu *c, uint64_t pc, int reg, const char *name, uint16_t sel)
{
    char buf[160];
    const char *why = x86_seg_load(c, reg, sel, buf, sizeof buf);
    if (why)
        vcpu_diag(c, pc, "syscall-segment", "SYSCALL: %s selector 0x%x not loaded (%s): the old one stays", name, sel,
                  why);
}

static TrapResult x86_syscall(Cpu *c, uint64_t pc, uint64_t next)
{
    if (!(msr_engine_read(c, MSR_EFER) & EFER_SCE_BIT) || x86_decode_mode(c) != CS_MODE_64) {
        x86_set_pc(c, pc);
        x86_fault(c, X86_UD, 0);
        return TRAP_FAULTED;
    }
    uint64_t rflags = vcpu_reg_read(c, UC_X86_REG_RFLAGS), star = msr_engine_read(c, MSR_STAR);
    uint16_t sel = (uint16_t)(star >> 32) & 0xfffc;
    vcpu_reg_write(c, UC_X86_REG_RCX, next);
    vcpu_reg_write(c, UC_X86_REG_R11, rflags & ~(uint64_t)RFLAGS_RF);
    if (!engine_set_cpl(c, 0))
        vcpu_internal_error(c, "cannot enter CPL 0: the engine's mode flags were not found");
    syscall_seg(c, pc, UC_X86_REG_SS, "SS", (uint16_t)(sel + 8u));
    syscall_seg(c, pc, UC_X86_REG_CS, "CS", sel);
    vcpu_reg_write(c, UC_X86_REG_RFLAGS, rflags & ~msr_engine_read(c, MSR_FMASK) & ~(uint64_t)RFLAGS_RF);
    vcpu_reg_write(c, UC_X86_REG_RIP, msr_engine_read(c, MSR_LSTAR));
    X86(c)->mode_dirty = true;          /* CPL 0: the PMU's OS/USR filters (x86_take_interrupt) */
    vcpu_request_stop(c);
    return TRAP_DONE;
}

/* The operand size of IRET or SYSRET (SDM vol. 2A IRET/IRETD/IRETQ, vol. 2B SYSRET): 66h makes
 * it 2 bytes, REX.W 8, else 4 (CF alone is IRETD in 64-bit mode too; 0F 07 alone returns to
 * compatibility mode). */
static unsigned insn_operand_size(const TrapSite *t)
{
    for (unsigned i = 0; i + 1 < t->len; i++) {
        if (t->bytes[i] == PREFIX_OPSIZE)
            return 2;
        if ((t->bytes[i] & REX_MASK) == REX_BASE && (t->bytes[i] & REX_W))
            return 8;
    }
    return 4;
}

/* The `exception-return` event of an IRET about to execute: its target is the first slot of
 * the frame at RSP (left out where that stack cannot be read now). */
static void trace_iret(Cpu *c, uint64_t pc, const TrapSite *t)
{
    if (!trace_on(c->cl->trace))
        return;
    uint64_t pa, to = 0;
    unsigned size = insn_operand_size(t);
    uint8_t b[sizeof to];
    bool ok = vcpu_data_pa(c, vcpu_reg_read(c, UC_X86_REG_RSP), &pa) && vcpu_mem_read(c, pa, b, size);
    for (unsigned i = 0; ok && i < size; i++)
        to |= (uint64_t)b[i] << (8 * i);        /* little-endian */
    trace_exception_return(c->cl->trace, c->cycles, c->index, pc, ok ? &to : NULL);
}

static TrapResult x86_trap(Cpu *c, uint64_t pc, const TrapSite *t)
{
    X86Cpu *x = X86(c);
    unsigned cpl = vcpu_reg_read(c, UC_X86_REG_CS) & 3;
    uint64_t next = pc + t->len;
    switch (t->kind) {
    case T_RDTSC:
    case T_RDTSCP: {
        if (t->kind == T_RDTSCP && !(x->prof->ext1_edx & FX1D_RDTSCP)) {
            x86_set_pc(c, pc);      /* not advertised: #UD (SDM vol. 2B RDTSCP) */
            x86_fault(c, X86_UD, 0);
            return TRAP_FAULTED;
        }
        uint64_t cr4 = vcpu_reg_read(c, UC_X86_REG_CR4);
        if (cpl && (cr4 & CR4_TSD))
            goto gp;
        set_edx_eax(c, c->cycles + x->tsc_offset);
        if (t->kind == T_RDTSCP)
            vcpu_reg_write(c, UC_X86_REG_RCX, (uint32_t)x->tsc_aux);
        break;
    }
    case T_RDMSR: {
        uint32_t index = (uint32_t)vcpu_reg_read(c, UC_X86_REG_RCX);
        uint64_t v = 0;
        bool ok = cpl == 0 && any_msr_read(c, index, &v);
        trace_msr(c, pc, TK_RDMSR, index, v, ok, false, 0);
        if (!ok)
            goto gp;
        set_edx_eax(c, v);
        break;
    }
    case T_WRMSR: {
        uint32_t index = (uint32_t)vcpu_reg_read(c, UC_X86_REG_RCX);
        uint64_t v = (uint32_t)vcpu_reg_read(c, UC_X86_REG_RAX) | vcpu_reg_read(c, UC_X86_REG_RDX) << 32;
        uint64_t old = 0;
        bool has_old = cpl == 0 && !is_x2apic_msr(index) && any_msr_read(c, index, &old);
        /* A WRMSR takes effect when it retires: the one that enables a counter is not counted,
         * the one that disables it is. */
        vcpu_retire_upto(c, pc, true);
        bool ok = cpl == 0 && any_msr_write(c, index, v, pc);
        if (!ok)
            vcpu_retire_upto(c, pc, false);      /* it faults instead */
        trace_msr(c, pc, TK_WRMSR, index, v, ok, has_old, old);
        if (!ok)
            goto gp;
        break;
    }
    case T_RDPMC: {
        uint32_t sel = (uint32_t)vcpu_reg_read(c, UC_X86_REG_RCX);
        uint64_t v = 0;
        bool ok = (cpl == 0 || (vcpu_reg_read(c, UC_X86_REG_CR4) & CR4_PCE)) && x86pmu_rdpmc(&x->pmu, sel, &v);
        trace_rdpmc(c->cl->trace, c->cycles, c->index, pc, sel, v, ok ? NULL : "#GP");
        if (!ok)
            goto gp;
        set_edx_eax(c, v);
        break;
    }
    case T_HLT:
    case T_MWAIT:
        if (cpl)
            goto gp;
        x86_set_pc(c, next);
        vcpu_stop(c, CPU_HALTED, "halted");
        return TRAP_DONE;
    case T_IRETQ:
        /* Executed by the engine; it ends NMI blocking, may change the privilege level (the
         * PMU's USR/OS filters) and may enable a pending interrupt: the run stops right after
         * it (IRETQ ends its translated block), where take_interrupt sees the new state. */
        trace_iret(c, pc, t);
        if (x->nmi_blocked) {
            x->nmi_blocked = false;
            x86pmu_nmi_return(&x->pmu, pc);
        }
        x->mode_dirty = true;       /* it may return to another code segment */
        vcpu_request_stop(c);
        return TRAP_NATIVE;
    case T_SYSRET:
        /* A return to 64-bit mode with a non-canonical RCX is #GP(0) at CPL 0 (SDM vol. 2B
         * SYSRET), which the engine does not check; its other checks (#UD without EFER.SCE,
         * #GP outside CPL 0) are the engine's. */
        if (cpl == 0 && (msr_engine_read(c, MSR_EFER) & EFER_SCE_BIT) && insn_operand_size(t) == 8 &&
            !is_canonical(vcpu_reg_read(c, UC_X86_REG_RCX)))
            goto gp;
        x->mode_dirty = true;
        vcpu_request_stop(c);        /* back to CPL 3: see T_IRETQ */
        return TRAP_NATIVE;
    case T_MOVCR0:
        if (cpl || (x86_decode_mode(c) == CS_MODE_64 && cr0_write_faults(movcr0_source(c, t))))
            goto gp;
        return TRAP_NATIVE;
    case T_SYSCALL:
        return x86_syscall(c, pc, next);
    case T_WRBASE:
        /* The engine checks CR4.FSGSBASE and the mode (#UD) but not the base: a non-canonical
         * one is #GP(0) (SDM vol. 2A WRFSBASE/WRGSBASE). */
        if ((vcpu_reg_read(c, UC_X86_REG_CR4) & CR4_FSGSBASE) && x86_decode_mode(c) == CS_MODE_64 &&
            !is_canonical(wrbase_source(c, t)))
            goto gp;
        return TRAP_NATIVE;
    case T_FAR:
        x->mode_dirty = true;        /* a new CS may change the code mode: see x86_decode_mode */
        vcpu_request_stop(c);
        return TRAP_NATIVE;
    case T_STI:
    case T_POPF: {
        /* An interrupt pending behind IF=0 is taken after the instruction that sets IF, or for
         * sti after the one following it (the STI interrupt shadow, SDM vol. 2B "STI").  Both
         * end their translated block, so an instruction-count event lands there exactly. */
        bool if_now = vcpu_reg_read(c, UC_X86_REG_RFLAGS) & RFLAGS_IF;
        uint8_t top[8];
        bool if_next = t->kind == T_STI ? cpl <= ((vcpu_reg_read(c, UC_X86_REG_RFLAGS) >> 12) & 3) :
                       lin_read(c, stack_top(c), top, 8) && (load_le(top, 8) & RFLAGS_IF);
        if (!if_now && if_next && c->pins.irq)
            vcpu_schedule_insns(c, &x->irq_window, c->insns + (t->kind == T_STI ? 2 : 1));
        return TRAP_NATIVE;
    }
    case T_RDRAND:
        x86_set_pc(c, pc);
        x86_fault(c, X86_UD, 0);
        return TRAP_FAULTED;
    }
    x86_set_pc(c, next);
    return TRAP_DONE;
gp:
    x86_set_pc(c, pc);
    x86_fault(c, X86_GP, 0);
    return TRAP_FAULTED;
}

/* An exception raised by the engine.  RIP is the return address the architecture defines
 * (the faulting instruction for faults, the next one for traps and INT n), so the instructions
 * before it retired. */
static void x86_intr(Cpu *c, uint32_t intno)
{
    uint64_t rip = x86_get_pc(c);
    vcpu_retire_upto(c, rip, false);
    /* INT n with n < 32 reaches us with the same number as the exception: tell them apart by
     * the instruction before RIP, so software interrupts get no error code. */
    uint8_t b[2];
    bool soft = intno == X86_BP || intno == X86_OF ||
                (rip >= 2 && vcpu_mem_read(c, rip - 2, b, 2) && b[0] == 0xcd && b[1] == intno) || intno >= 32;
    if (soft) {
        x86_deliver(c, intno, true, false, 0, TK_EXCEPTION);
        return;
    }
    uint64_t err = 0;
    /* (No #PF comes this way: pmusim walks the page tables, x86_mmu_fault delivers it.) */
    x86_fault(c, intno, err);
    engine_inflight_set(c, -1);                 /* delivered: no longer in flight */
    /* The entry stopped the CPU (a triple fault, or pmusim's exception-loop limit in
     * vcpu_exception_taken).  When the fault is the fetch of the next instruction no block
     * boundary comes, where the requested stop would take effect, and the engine ignores
     * uc_emu_stop while it retries the fetch; its one way out is its own shutdown: with a #DF in
     * flight, the next fault stops its CPU and ends uc_emu_start. */
    if (c->state == CPU_DEAD) {
        engine_inflight_set(c, X86_DF);
        uc_emu_stop(c->uc);
    }
}

static void x86_mem_fault(Cpu *c, uint64_t addr, bool write, bool fetch)
{
    /* Physical addresses below 4 GiB are all RAM, devices or unassigned (all ones); only a
     * guest mapping beyond them gets here: a machine check, as a bus error would be. */
    uint64_t pc = c->fault.pc;
    x86_set_pc(c, pc);
    x86_fault(c, X86_MC, 0);
}

/* The Capstone mode of the code the CPU executes: 64-bit mode, or compatibility mode with 32-
 * or 16-bit default sizes (Intel SDM vol. 3A §5.2.1 and §3.4.5: CS.L, then CS.D) -- as the
 * engine holds it (engine_hflags_offset); 64-bit when that cannot be read. */
static int x86_decode_mode(Cpu *c)
{
    X86Cpu *x = X86(c);
    uint32_t hf;
    if (!x->hflags_off || uc_context_save(c->uc, x->engine_ctx) != UC_ERR_OK)
        return CS_MODE_64;
    const uint8_t *p = (const uint8_t *)x->engine_ctx + x->hflags_off;
    memcpy(&hf, p, 4);
    memcpy(&x->cs_base, p + CTX_SEGS_AFTER_HFLAGS + CTX_SEG_SIZE * CTX_SEG_CS + CTX_SEG_BASE, 8);
    return hf & HF_CS64 ? CS_MODE_64 : hf & HF_CS32 ? CS_MODE_32 : CS_MODE_16;
}

/* The NMI, when pending and not blocked by one in progress (SDM vol. 3A §6.7.1): IF does not
 * mask it (§6.8.1).  Also what a stalled CPU takes (CpuOps.nmi_take: `cli; jmp .` takes NMIs). */
static bool x86_take_nmi(Cpu *c)
{
    X86Cpu *x = X86(c);
    if (x->mode_dirty) {                     /* after a far transfer (T_FAR, T_IRETQ, T_SYSRET) */
        x->mode_dirty = false;
        vcpu_sync_decode_mode(c);
    }
    x86pmu_set_cpl(&x->pmu, x86_cpl(c));     /* after an IRETQ/SYSRET to another level */
    vcpu_set_user(c, x86_cpl(c) != 0);
    if (!c->pins.nmi || x->nmi_blocked)
        return false;
    c->pins.nmi = false;
    if (c->state == CPU_HALTED)
        c->state = CPU_RUNNING, c->stop_reason = "running";
    x86_deliver(c, X86_NMI, false, false, 0, TK_NMI);
    return true;
}

/* In an NMI handler: from the NMI's delivery to its IRET. */
static bool x86_in_nmi(Cpu *c)
{
    return X86(c)->nmi_blocked;
}

static bool x86_take_interrupt(Cpu *c)
{
    X86Cpu *x = X86(c);
    if (x86_take_nmi(c))
        return true;
    if (c->pins.irq && (vcpu_reg_read(c, UC_X86_REG_RFLAGS) & RFLAGS_IF)) {
        int vec = lapic_take_irq(&x->apic);
        if (vec < 0)
            return false;
        if (c->state == CPU_HALTED)
            c->state = CPU_RUNNING, c->stop_reason = "running";
        x86_deliver(c, (unsigned)vec, false, false, 0, TK_INTERRUPT);
        return true;
    }
    return false;
}

/* ------------------------------------------------------------------ access locator */

static uint64_t x86_reg_value(Cpu *c, x86_reg r)
{
    static const struct { x86_reg cs; int uc; } map[] = {
        { X86_REG_RAX, UC_X86_REG_RAX }, { X86_REG_RBX, UC_X86_REG_RBX }, { X86_REG_RCX, UC_X86_REG_RCX },
        { X86_REG_RDX, UC_X86_REG_RDX }, { X86_REG_RSI, UC_X86_REG_RSI }, { X86_REG_RDI, UC_X86_REG_RDI },
        { X86_REG_RBP, UC_X86_REG_RBP }, { X86_REG_RSP, UC_X86_REG_RSP }, { X86_REG_R8, UC_X86_REG_R8 },
        { X86_REG_R9, UC_X86_REG_R9 }, { X86_REG_R10, UC_X86_REG_R10 }, { X86_REG_R11, UC_X86_REG_R11 },
        { X86_REG_R12, UC_X86_REG_R12 }, { X86_REG_R13, UC_X86_REG_R13 }, { X86_REG_R14, UC_X86_REG_R14 },
        { X86_REG_R15, UC_X86_REG_R15 }, { X86_REG_EAX, UC_X86_REG_EAX }, { X86_REG_EBX, UC_X86_REG_EBX },
        { X86_REG_ECX, UC_X86_REG_ECX }, { X86_REG_EDX, UC_X86_REG_EDX }, { X86_REG_ESI, UC_X86_REG_ESI },
        { X86_REG_EDI, UC_X86_REG_EDI }, { X86_REG_EBP, UC_X86_REG_EBP }, { X86_REG_ESP, UC_X86_REG_ESP },
        { X86_REG_DX, UC_X86_REG_DX },
    };
    for (size_t i = 0; i < ARRAY_SIZE(map); i++)
        if (map[i].cs == r) {
            uint64_t v = vcpu_reg_read(c, map[i].uc);
            return r >= X86_REG_EAX && r <= X86_REG_ESP ? (uint32_t)v : v;
        }
    if (r >= X86_REG_R8D && r <= X86_REG_R15D)
        return (uint32_t)vcpu_reg_read(c, UC_X86_REG_R8 + (r - X86_REG_R8D));
    return 0;
}

static uint64_t operand_ea(Cpu *c, const cs_insn *insn, const cs_x86_op *op)
{
    uint64_t ea = (uint64_t)op->mem.disp;
    if (op->mem.base == X86_REG_RIP)
        ea += insn->address + insn->size;
    else if (op->mem.base != X86_REG_INVALID)
        ea += x86_reg_value(c, op->mem.base);
    if (op->mem.index != X86_REG_INVALID)
        ea += x86_reg_value(c, op->mem.index) * (uint64_t)op->mem.scale;
    if (op->mem.segment == X86_REG_FS)
        ea += vcpu_reg_read(c, UC_X86_REG_FS_BASE);
    else if (op->mem.segment == X86_REG_GS)
        ea += vcpu_reg_read(c, UC_X86_REG_GS_BASE);
    return ea;
}

/* The implicit stack and string operands. */
static bool implicit_accesses(Cpu *c, const cs_insn *insn, AccessKind kind, AccessVisit fn, void *ctx)
{
    uint64_t rsp = vcpu_reg_read(c, UC_X86_REG_RSP);
    bool w = kind == ACC_WRITE;
    switch (insn->id) {
    case X86_INS_PUSH: case X86_INS_CALL: case X86_INS_PUSHFQ:
        return w && fn(c, ctx, rsp - 8, 8);
    case X86_INS_POP: case X86_INS_RET: case X86_INS_POPFQ: case X86_INS_IRETQ:
        return !w && fn(c, ctx, rsp, 40);
    case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD: case X86_INS_STOSQ:
        return w && fn(c, ctx, vcpu_reg_read(c, UC_X86_REG_RDI), 8);
    case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD: case X86_INS_MOVSQ:
        return fn(c, ctx, vcpu_reg_read(c, w ? UC_X86_REG_RDI : UC_X86_REG_RSI), 8);
    case X86_INS_LODSB: case X86_INS_LODSW: case X86_INS_LODSD: case X86_INS_LODSQ:
        return !w && fn(c, ctx, vcpu_reg_read(c, UC_X86_REG_RSI), 8);
    default:
        return false;
    }
}

/* CpuOps.each_access: the explicit memory operands, then the implicit stack and string ones. */
static bool x86_each_access(Cpu *c, const cs_insn *insn, AccessKind kind, AccessVisit fn, void *ctx)
{
    const cs_x86 *d = &insn->detail->x86;
    uint8_t want = kind == ACC_WRITE ? CS_AC_WRITE : CS_AC_READ;
    for (int i = 0; i < d->op_count; i++) {
        const cs_x86_op *op = &d->operands[i];
        if (op->type == X86_OP_MEM && (!op->access || (op->access & want)) &&
            fn(c, ctx, operand_ea(c, insn, op), op->size ? op->size : 8))
            return true;
    }
    return implicit_accesses(c, insn, kind, fn, ctx);
}

static bool x86_insn_accesses(Cpu *c, const cs_insn *insn, AccessKind kind, uint64_t addr, unsigned size)
{
    const cs_x86 *d = &insn->detail->x86;
    switch (insn->id) {
    case X86_INS_IN: case X86_INS_INSB: case X86_INS_INSW: case X86_INS_INSD:
    case X86_INS_OUT: case X86_INS_OUTSB: case X86_INS_OUTSW: case X86_INS_OUTSD: {
        bool out = insn->id == X86_INS_OUT || insn->id == X86_INS_OUTSB || insn->id == X86_INS_OUTSW ||
                   insn->id == X86_INS_OUTSD;
        if (kind != (out ? ACC_OUT : ACC_IN))
            return false;
        for (int i = 0; i < d->op_count; i++)
            if (d->operands[i].type == X86_OP_IMM)
                return (uint64_t)d->operands[i].imm == addr;
        return (x86_reg_value(c, X86_REG_DX) & 0xffff) == addr;
    }
    default:
        break;
    }
    if (kind == ACC_IN || kind == ACC_OUT)
        return false;
    return vcpu_insn_accesses(c, insn, kind, addr, size);
}

/* ------------------------------------------------------------------ page faults */

/* Does the instruction reference memory through the stack segment: an implicit stack access
 * (push, pop, call, ret, enter, leave, pushf, popf, iret) or an operand based on RSP or RBP or
 * with an SS override (SDM vol. 3A 6.15 "Interrupt 12": a non-canonical address in such a
 * reference is #SS(0), in any other #GP(0))? */
static bool stack_reference(const cs_insn *insn)
{
    switch (insn->id) {
    case X86_INS_PUSH: case X86_INS_POP: case X86_INS_CALL: case X86_INS_RET: case X86_INS_ENTER:
    case X86_INS_LEAVE: case X86_INS_PUSHF: case X86_INS_PUSHFQ: case X86_INS_POPF: case X86_INS_POPFQ:
    case X86_INS_IRET: case X86_INS_IRETD: case X86_INS_IRETQ:
        return true;
    default:
        break;
    }
    const cs_x86 *d = &insn->detail->x86;
    for (int i = 0; i < d->op_count; i++) {
        const cs_x86_op *op = &d->operands[i];
        if (op->type == X86_OP_MEM && (op->mem.segment == X86_REG_SS || op->mem.base == X86_REG_RSP ||
                                       op->mem.base == X86_REG_RBP || op->mem.base == X86_REG_ESP ||
                                       op->mem.base == X86_REG_EBP))
            return true;
    }
    return false;
}

/* The fault of a non-canonical linear address at rip: #SS(0) for a stack reference, else #GP(0). */
static unsigned non_canonical_fault(Cpu *c, uint64_t rip)
{
    enum { X86_MAX_INSN = 15 };
    const uint8_t *bytes = vcpu_fetch_bytes(c, rip, X86_MAX_INSN);
    cs_insn *insn = NULL;
    size_t n = bytes ? cs_disasm(c->cs, bytes, X86_MAX_INSN, rip, 1, &insn) : 0;
    bool ss = n == 1 && insn[0].detail && stack_reference(&insn[0]);
    if (insn)
        cs_free(insn, n);
    return ss ? X86_SS : X86_GP;
}

/* CpuOps.mmu_fault: the access of the instruction at RIP faulted in the walk (x86_paging.c). */
static void x86_mmu_fault(Cpu *c, const MmuResult *r)
{
    uint64_t rip = vcpu_reg_read(c, UC_X86_REG_RIP);
    if (r->kind == X86_MMU_GP) {
        x86_fault(c, r->acc == MMU_FETCH ? X86_GP : non_canonical_fault(c, rip), 0);
        return;
    }
    uint64_t cr2 = vcpu_fault_address(c, rip, r, "CR2");
    if (r->syndrome & PF_ERR_RSVD)
        vcpu_diag(c, rip, "page-table", "reserved bits set in the level-%d entry 0x%016" PRIx64 " at physical "
                  "0x%" PRIx64 " mapping 0x%" PRIx64 "%s", r->level + 1, r->entry, r->entry_pa, cr2,
                  r->entry == ~0ull ? " (outside RAM: reads as all ones)" : "");
    set_cr2(c, cr2);
    x86_fault(c, X86_PF, r->syndrome);
}

/* The linear address of the top of the stack: RSP in 64-bit mode; else SS base + ESP, or + SP
 * with a 16-bit stack segment (real mode's), as the engine holds SS (Intel SDM vol. 3A §3.4.5,
 * the B flag of a stack segment).  RSP when the engine's context layout is unknown. */
static uint64_t stack_top(Cpu *c)
{
    X86Cpu *x = X86(c);
    uint64_t sp = vcpu_reg_read(c, UC_X86_REG_RSP), base;
    uint32_t hf;
    if (x86_decode_mode(c) == CS_MODE_64 || !x->hflags_off)
        return sp;
    const uint8_t *p = (const uint8_t *)x->engine_ctx + x->hflags_off;    /* saved by x86_decode_mode */
    memcpy(&hf, p, 4);
    memcpy(&base, p + CTX_SEGS_AFTER_HFLAGS + CTX_SEG_SIZE * CTX_SEG_SS + CTX_SEG_BASE, 8);
    return (uint32_t)(base + (hf & HF_SS32 ? (uint32_t)sp : (uint16_t)sp));
}

/* pmusim's PC is the linear address of the instruction, as the engine's hooks report it and
 * as the block cache and the trap sites key code: CS base + RIP (Intel SDM vol. 3A §3.4.5: the
 * base is 0 in 64-bit mode and in the flat segments of every entry state; real mode's is
 * CS << 4).  The base is the engine's, re-read after a far transfer (mode_dirty). */
static uint64_t cs_base(Cpu *c)
{
    X86Cpu *x = X86(c);
    if (x->mode_dirty)
        x86_decode_mode(c);
    return x->cs_base;
}

static uint64_t x86_get_pc(Cpu *c)
{
    return vcpu_reg_read(c, UC_X86_REG_RIP) + cs_base(c);
}

static void x86_set_pc(Cpu *c, uint64_t pc)
{
    vcpu_reg_write(c, UC_X86_REG_RIP, pc - cs_base(c));
}

/* uc_emu_start's begin becomes RIP as it is (a UC_MODE_64 engine's set_pc, Unicorn 2.1.1). */
static uint64_t x86_engine_pc(Cpu *c, uint64_t pc)
{
    return pc - cs_base(c);
}

/* ------------------------------------------------------------------ checkpoints */

/* CR8 (the task priority) keeps its slot in the state, always 0: the engine has no CR8 of its
 * own (a guest's MOV to CR8 reaches the engine's empty APIC) and since 2.1 refuses to read it. */
#define X86_SLOT_CR8 (-1)
static const int x86_saved_regs[] = {
    UC_X86_REG_RAX, UC_X86_REG_RBX, UC_X86_REG_RCX, UC_X86_REG_RDX, UC_X86_REG_RSI, UC_X86_REG_RDI,
    UC_X86_REG_RBP, UC_X86_REG_RSP, UC_X86_REG_R8, UC_X86_REG_R9, UC_X86_REG_R10, UC_X86_REG_R11,
    UC_X86_REG_R12, UC_X86_REG_R13, UC_X86_REG_R14, UC_X86_REG_R15, UC_X86_REG_RIP, UC_X86_REG_RFLAGS,
    UC_X86_REG_CR0, UC_X86_REG_CR2, UC_X86_REG_CR3, UC_X86_REG_CR4, X86_SLOT_CR8,
};
static const int x86_saved_segs[] = { UC_X86_REG_CS, UC_X86_REG_SS, UC_X86_REG_DS, UC_X86_REG_ES,
                                      UC_X86_REG_FS, UC_X86_REG_GS };
/* Unicorn 2.1.1 loads every segment register's descriptor from the tables on a write (2.0.1
 * did so for FS and GS only): all of them wait for x86_load_finish, when RAM is restored. */
static const uint32_t x86_saved_msrs[] = { MSR_EFER, MSR_STAR, MSR_LSTAR, MSR_CSTAR, MSR_FMASK, MSR_FS_BASE,
                                           MSR_GS_BASE, MSR_KERNEL_GS_BASE, MSR_SYSENTER_CS,
                                           MSR_SYSENTER_ESP, MSR_SYSENTER_EIP, MSR_PAT };

static void save_mmr(Blob *b, Cpu *c, int reg)
{
    uc_x86_mmr r = { 0 };
    uc_reg_read(c->uc, reg, &r);
    blob_u64(b, r.selector);
    blob_u64(b, r.base);
    blob_u64(b, r.limit);
    blob_u64(b, r.flags);
}

static void load_mmr(BlobReader *r, Cpu *c, int reg)
{
    uc_x86_mmr v;
    v.selector = (uint16_t)br_u64(r);
    v.base = br_u64(r);
    v.limit = (uint32_t)br_u64(r);
    v.flags = (uint32_t)br_u64(r);
    uc_reg_write(c->uc, reg, &v);
}

/* Raise when a field is added (base/state.h).  2: the x87 state; 3: IA32_TSC_ADJUST,
 * IA32_MISC_ENABLE, IA32_DEBUGCTL, MSR_OFFCORE_RSP_0/1. */
#define X86_STATE_VERSION 3u

/* The x87 (and MMX) state, saved since version 2 (a checkpoint of version 1 leaves the freshly
 * created engine's).  The registers by physical number (FP0-7: 64-bit significand, then sign
 * and exponent) with FSW, whose TOP says which is ST0: the stack comes back as it was.  Of the
 * tag word the engine keeps only "empty" per register and derives the rest from the values. */
typedef struct X87State {
    uint16_t fcw, fsw, ftw, fop, fcs, fds;
    uint64_t fip, fdp;
    uint64_t significand[8];
    uint16_t exponent[8];
} X87State;

static const StateField x87_fields[] = {
    STATE_FIELD_V(X87State, fcw, 2),  STATE_FIELD_V(X87State, fsw, 2),
    STATE_FIELD_V(X87State, ftw, 2),  STATE_FIELD_V(X87State, fop, 2),
    STATE_FIELD_V(X87State, fcs, 2),  STATE_FIELD_V(X87State, fds, 2),
    STATE_FIELD_V(X87State, fip, 2),  STATE_FIELD_V(X87State, fdp, 2),
    STATE_ARRAY_V(X87State, significand, 2), STATE_ARRAY_V(X87State, exponent, 2),
};

/* The engine's x87 control registers and where they go (each of the field's width: the engine
 * reads and writes FCW, FSW, FTW, FOP, FCS and FDS as 16 bits, FIP and FDP as 64). */
static const struct {
    int reg;
    size_t off;
} x87_regs[] = {
    { UC_X86_REG_FPCW, offsetof(X87State, fcw) }, { UC_X86_REG_FPSW, offsetof(X87State, fsw) },
    { UC_X86_REG_FPTAG, offsetof(X87State, ftw) }, { UC_X86_REG_FOP, offsetof(X87State, fop) },
    { UC_X86_REG_FCS, offsetof(X87State, fcs) }, { UC_X86_REG_FDS, offsetof(X87State, fds) },
    { UC_X86_REG_FIP, offsetof(X87State, fip) }, { UC_X86_REG_FDP, offsetof(X87State, fdp) },
};

static void x87_read(Cpu *c, X87State *x)
{
    memset(x, 0, sizeof *x);
    for (size_t i = 0; i < ARRAY_SIZE(x87_regs); i++)
        uc_reg_read(c->uc, x87_regs[i].reg, (uint8_t *)x + x87_regs[i].off);
    for (int i = 0; i < 8; i++) {
        uint8_t v[16] = { 0 };      /* the engine's layout: significand, then sign and exponent */
        uc_reg_read(c->uc, UC_X86_REG_FP0 + i, v);
        x->significand[i] = load_le(v, 8);
        x->exponent[i] = (uint16_t)load_le(v + 8, 2);
    }
}

static void x87_write(Cpu *c, const X87State *x)
{
    for (size_t i = 0; i < ARRAY_SIZE(x87_regs); i++)
        uc_reg_write(c->uc, x87_regs[i].reg, (const uint8_t *)x + x87_regs[i].off);
    for (int i = 0; i < 8; i++) {
        uint8_t v[16] = { 0 };
        store_le(v, 8, x->significand[i]);
        store_le(v + 8, 2, x->exponent[i]);
        uc_reg_write(c->uc, UC_X86_REG_FP0 + i, v);
    }
}

static void save_x87(Cpu *c, Blob *b)
{
    X87State x;
    x87_read(c, &x);
    blob_fields(b, &x, x87_fields, ARRAY_SIZE(x87_fields));
}

/* The fields the section's version has; the others keep the engine's values. */
static bool load_x87(Cpu *c, BlobReader *r)
{
    X87State x;
    x87_read(c, &x);
    if (!br_fields(r, &x, x87_fields, ARRAY_SIZE(x87_fields)))
        return false;
    x87_write(c, &x);
    return true;
}

static const StateField x86_fields[] = {
    STATE_FIELD(X86Cpu, tsc_offset),
    STATE_FIELD(X86Cpu, tsc_aux),
    STATE_FIELD(X86Cpu, apic_base),
    STATE_BOOL(X86Cpu, nmi_blocked),
    STATE_FIELD_V(X86Cpu, tsc_adjust, 3),
    STATE_FIELD_V(X86Cpu, misc_enable, 3),
    STATE_FIELD_V(X86Cpu, debugctl, 3),
    STATE_ARRAY_V(X86Cpu, offcore_rsp, 3),
};

static void x86_save(Cpu *c, Blob *b)
{
    size_t at = blob_begin(b, "x86_64", X86_STATE_VERSION);
    for (size_t i = 0; i < ARRAY_SIZE(x86_saved_regs); i++)
        blob_u64(b, x86_saved_regs[i] == X86_SLOT_CR8 ? 0 : vcpu_reg_read(c, x86_saved_regs[i]));
    for (size_t i = 0; i < ARRAY_SIZE(x86_saved_msrs); i++)
        blob_u64(b, msr_engine_read(c, x86_saved_msrs[i]));
    save_mmr(b, c, UC_X86_REG_GDTR);
    save_mmr(b, c, UC_X86_REG_IDTR);
    save_mmr(b, c, UC_X86_REG_LDTR);
    save_mmr(b, c, UC_X86_REG_TR);
    for (size_t i = 0; i < ARRAY_SIZE(x86_saved_segs); i++)
        blob_u64(b, vcpu_reg_read(c, x86_saved_segs[i]));
    for (int i = 0; i < 16; i++) {
        uint8_t xmm[16] = { 0 };
        uc_reg_read(c->uc, UC_X86_REG_XMM0 + i, xmm);
        blob_put(b, xmm, 16);
    }
    blob_u64(b, vcpu_reg_read(c, UC_X86_REG_MXCSR));
    save_x87(c, b);
    blob_fields(b, X86(c), x86_fields, ARRAY_SIZE(x86_fields));
    blob_event(b, &X86(c)->irq_window);
    lapic_save(&X86(c)->apic, b);
    x86pmu_save(&X86(c)->pmu, b);
    blob_end(b, at);
}

static bool x86_load(Cpu *c, BlobReader *r)
{
    BrOuter outer;
    if (!br_begin(r, &outer, "x86_64", X86_STATE_VERSION))
        return false;
    uint64_t regs[ARRAY_SIZE(x86_saved_regs)];
    for (size_t i = 0; i < ARRAY_SIZE(regs); i++)
        regs[i] = br_u64(r);
    uint64_t msrs[ARRAY_SIZE(x86_saved_msrs)];
    for (size_t i = 0; i < ARRAY_SIZE(msrs); i++)
        msrs[i] = br_u64(r);
    if (!r->ok)
        return false;
    /* Mode first (control registers, EFER), then descriptor tables and selectors; FS and GS,
     * whose descriptors the engine reads from the restored RAM, wait for x86_load_finish. */
    vcpu_reg_write(c, UC_X86_REG_CR3, regs[20]);
    vcpu_reg_write(c, UC_X86_REG_CR4, regs[21]);
    msr_engine_write(c, MSR_EFER, msrs[0]);
    vcpu_reg_write(c, UC_X86_REG_CR0, regs[18]);
    load_mmr(r, c, UC_X86_REG_GDTR);
    load_mmr(r, c, UC_X86_REG_IDTR);
    load_mmr(r, c, UC_X86_REG_LDTR);
    load_mmr(r, c, UC_X86_REG_TR);
    for (size_t i = 0; i < ARRAY_SIZE(x86_saved_segs); i++) {
        X86(c)->ck_sel_at[i] = r->base + r->off;
        X86(c)->ck_sel[i] = (uint16_t)br_u64(r);
    }
    for (size_t i = 1; i < ARRAY_SIZE(msrs); i++)
        msr_engine_write(c, x86_saved_msrs[i], msrs[i]);
    for (size_t i = 0; i < ARRAY_SIZE(regs); i++)
        if (x86_saved_regs[i] != UC_X86_REG_CR0 && x86_saved_regs[i] != UC_X86_REG_CR3 &&
            x86_saved_regs[i] != UC_X86_REG_CR4 && x86_saved_regs[i] != X86_SLOT_CR8)
            vcpu_reg_write(c, x86_saved_regs[i], regs[i]);
    /* The engine's CR2 write also loads the value into CR3 (Unicorn 2.1.1: UC_X86_REG_CR2 shares
     * the CR3 case of its register writer; docs/engine.md): CR3 again, after it. */
    vcpu_reg_write(c, UC_X86_REG_CR3, regs[20]);
    for (int i = 0; i < 16; i++) {
        uint8_t xmm[16];
        br_get(r, xmm, 16);
        uc_reg_write(c->uc, UC_X86_REG_XMM0 + i, xmm);
    }
    vcpu_reg_write(c, UC_X86_REG_MXCSR, br_u64(r));
    if (!load_x87(c, r) || !br_fields(r, X86(c), x86_fields, ARRAY_SIZE(x86_fields)))
        return false;
    br_event(r, &X86(c)->irq_window, &c->insn_events);
    return lapic_load(&X86(c)->apic, r) && x86pmu_load(&X86(c)->pmu, r) && br_end(r, &outer);
}

/* The physical address of linear va for a supervisor read, or NULL and why it would fault.
 * The restore must know beforehand: the engine loads a segment register's descriptor through
 * pmusim's page walk, and a fault while loading one outside uc_emu_start makes the engine
 * longjmp to a stale (on a machine that never ran, all-zero) jump buffer. */
static const char *engine_translate(Cpu *c, uint64_t va, MmuAccess acc, uint64_t *pa)
{
    X86PagingRegs g;
    MmuResult r;
    paging_regs(c, &g);
    if (vcpu_x86_walk(c, &g, va, acc, false, true, &r)) {
        *pa = r.pa | (va & (GUEST_PAGE - 1));
        return NULL;
    }
    if (r.kind == X86_MMU_GP)
        return "not canonical";
    if (r.syndrome & PF_ERR_RSVD)
        return "a page table entry with reserved bits set";
    return r.syndrome & PF_ERR_P ? "a user page under SMAP" : "not mapped";
}

static const char *engine_read_descriptor(Cpu *c, uint64_t va, uint8_t d[8])
{
    for (unsigned done = 0, n; done < 8; done += n, va += n) {
        n = 0x1000 - (va & 0xfff) < 8 - done ? 0x1000 - (unsigned)(va & 0xfff) : 8 - done;
        uint64_t pa;
        const char *why = engine_translate(c, va, MMU_READ, &pa);
        if (why)
            return why;
        if (!vcpu_mem_read(c, pa, d + done, n))
            return "outside RAM";
    }
    return NULL;
}

/* Why the engine cannot load selector sel into a segment register without a fault of its own
 * (reading the descriptor, or setting a clear accessed bit: Intel SDM vol. 3A §3.4.5.1), or
 * NULL; *type_pa is then the physical address of the descriptor's type byte when the engine
 * will set its accessed bit (UINT64_MAX otherwise).  The other checks (type, privilege,
 * present) are uc_reg_write's, which refuses cleanly. */
static const char *x86_seg_unloadable(Cpu *c, uint16_t sel, char *buf, size_t len, uint64_t *type_pa)
{
    *type_pa = UINT64_MAX;
    if (!(vcpu_reg_read(c, UC_X86_REG_CR0) & 1) || (vcpu_reg_read(c, UC_X86_REG_RFLAGS) & RFLAGS_VM) ||
        !(sel & 0xfffc))
        return NULL;                /* real mode, virtual-8086 or a null selector: no table read */
    uc_x86_mmr dt = { 0 };
    uc_reg_read(c->uc, sel & 4 ? UC_X86_REG_LDTR : UC_X86_REG_GDTR, &dt);
    uint32_t index = sel & ~7u;
    if (index + 7 > dt.limit)
        return "beyond its descriptor table's limit";
    uint8_t d[8];
    const char *why = engine_read_descriptor(c, dt.base + index, d);
    if (why) {
        snprintf(buf, len, "its descriptor at linear 0x%" PRIx64 ": %s", dt.base + index, why);
        return buf;
    }
    if (!(load_le(d + 4, 4) & (1u << 8))) {
        const char *why_w = engine_translate(c, dt.base + index + 5, MMU_WRITE, type_pa);
        if (why_w) {
            snprintf(buf, len, "its descriptor's accessed bit is clear and the byte cannot be written: %s", why_w);
            return buf;
        }
    }
    return NULL;
}

/* Load selector sel into segment register reg as the engine does (it reads the descriptor and
 * sets its accessed bit), refusing first what the engine would fault on: that fault, outside
 * the engine's own loop or half-way through a register write, would longjmp through a stale jump
 * buffer (a crash the checkpoint fuzzing harness found).  The descriptor's type byte is put
 * back: neither a restore nor SYSCALL (which loads fixed descriptors: Intel SDM vol. 2B) writes
 * the guest's GDT.  NULL, or why not (in buf). */
static const char *x86_seg_load(Cpu *c, int reg, uint16_t sel, char *buf, size_t len)
{
    uint64_t type_pa, v = sel;
    uint8_t type = 0;
    const char *why = x86_seg_unloadable(c, sel, buf, len, &type_pa);
    if (why)
        return why;
    if (type_pa != UINT64_MAX)
        vcpu_mem_read(c, type_pa, &type, 1);
    if (uc_reg_write(c->uc, reg, &v) != UC_ERR_OK)
        return "the engine refuses its descriptor (type, privilege or not present)";
    if (type_pa != UINT64_MAX)
        vcpu_mem_write(c, type_pa, &type, 1);
    return NULL;
}

/* The segment registers, CS first (it sets the privilege SS is checked against), now that the
 * descriptor tables' memory is restored; then the FS and GS bases, which the loads replaced (the
 * MSRs hold the 64-bit bases: Intel SDM vol. 3A §3.4.4). */
static bool x86_load_finish(Cpu *c, const char *path, Error *err)
{
    static const char *const names[] = { "cs", "ss", "ds", "es", "fs", "gs" };
    X86Cpu *x = X86(c);
    /* A CPU that has never run (an AP held until the spin table releases it, in a time-travel
     * snapshot of the start): its selectors are the engine's reset ones, whose tables are not
     * set up, and vcpu_start loads them all when it starts. */
    if (c->state == CPU_OFF && c->insns == 0)
        return true;
    uint64_t fs_base = msr_engine_read(c, MSR_FS_BASE), gs_base = msr_engine_read(c, MSR_GS_BASE);
    for (size_t i = 0; i < ARRAY_SIZE(x86_saved_segs); i++) {
        char buf[160];
        const char *why = x86_seg_load(c, x86_saved_segs[i], x->ck_sel[i], buf, sizeof buf);
        if (why)
            return err_set(err, "%s: offset %zu: cpu%d: %s selector 0x%x cannot be restored: %s", path,
                           x->ck_sel_at[i], c->index, names[i], x->ck_sel[i], why);
    }
    msr_engine_write(c, MSR_FS_BASE, fs_base);
    msr_engine_write(c, MSR_GS_BASE, gs_base);
    /* In real mode (an AP in its trampoline) the selectors alone do not give the segments: see
     * engine_real_mode_segs. */
    if (!(vcpu_reg_read(c, UC_X86_REG_CR0) & CR0_PE_BIT) && !engine_real_mode_segs(c))
        return err_set(err, "%s: cpu%d: in real mode, and the engine's segment state is not where pmusim looks "
                       "for it", path, c->index);
    x->mode_dirty = true;            /* the CS base and decode mode are read again */
    return true;
}

static int x86_pmu_readings(Cpu *c, PmcReading *out, int max)
{
    return x86pmu_readings(&X86(c)->pmu, out, max);
}

const CpuOps vcpu_x86_64_ops = {
    .arch = ARCH_X86_64,
    .size = sizeof(X86Cpu),
    .uc_arch = UC_ARCH_X86,
    .uc_mode = UC_MODE_64,
    .cs_arch = CS_ARCH_X86,
    .cs_mode = CS_MODE_64,
    .init = x86_init,
    .reset = x86_reset,
    .trap_kind = x86_trap_kind,
    .trap = x86_trap,
    .intr = x86_intr,
    .insn_accesses = x86_insn_accesses,
    .each_access = x86_each_access,
    .translate = x86_translate_op,
    .mmu_fault = x86_mmu_fault,
    .mem_fault = x86_mem_fault,
    .decode_mode = x86_decode_mode,
    .engine_pc = x86_engine_pc,
    .take_interrupt = x86_take_interrupt,
    .nmi_take = x86_take_nmi,
    .in_nmi = x86_in_nmi,
    .get_pc = x86_get_pc,
    .set_pc = x86_set_pc,
    .save = x86_save,
    .load = x86_load,
    .load_finish = x86_load_finish,
    .destroy = x86_destroy,
    .pmu_readings = x86_pmu_readings,
};

/* ------------------------------------------------------------------ the local APIC's MMIO window */

/* The `intel,ce4100-lapic` node: one page that every CPU sees as its own APIC (the access
 * reaches the accessing CPU's Lapic). */

static uint64_t lapic_dev_read(Device *d, Cpu *c, uint64_t off, unsigned size)
{
    uint64_t pc = vcpu_access_pc(c, ACC_READ, d->base + off, size);
    return lapic_read(vcpu_x86_lapic(c), pc, off, size);
}

static void lapic_dev_write(Device *d, Cpu *c, uint64_t off, unsigned size, uint64_t val)
{
    uint64_t pc = vcpu_access_pc(c, ACC_WRITE, d->base + off, size);
    lapic_write(vcpu_x86_lapic(c), pc, off, size, (uint32_t)val);
}

static const DeviceOps lapic_dev_ops = {
    .type = "intel,ce4100-lapic", .read = lapic_dev_read, .write = lapic_dev_write,
};

Device *vcpu_x86_lapic_dev_create(const DeviceHost *host, const DevDesc *dd, Error *err)
{
    if (host->arch != ARCH_X86_64)
        return err_set(err, "node %s: a local APIC needs x86_64 CPUs", dd->path), NULL;
    if (dd->base != APIC_DEFAULT_BASE || dd->size < 0x400)
        return err_set(err, "node %s: property reg: the local APIC page must be at 0x%llx (IA32_APIC_BASE)",
                         dd->path, APIC_DEFAULT_BASE), NULL;
    if (!dd->clock_hz)
        return err_set(err, "node %s: property clock-frequency is missing (the APIC timer's bus clock in Hz)",
                         dd->path), NULL;
    return device_alloc(sizeof(Device), &lapic_dev_ops, host, dd);
}
