/* arm64_firmware.c — PSCI 1.0 and the SMCCC 1.1 architecture calls behind HVC #0 (see
 * arm64_firmware.h).
 *
 * A function id (Arm DEN 0028, "Function Identifier"): bit 31 a fast call, bit 30 the SMC64
 * convention (64-bit arguments; SMC32 ones use W registers), bits 29:24 the owner (0 the Arm
 * architecture calls, 4 standard secure services: PSCI), bits 15:0 the function.
 *
 *   id (SMC32 / SMC64)        name                       pmusim's answer
 *   0x80000000                SMCCC_VERSION              0x10001: SMCCC 1.1
 *   0x80000001                SMCCC_ARCH_FEATURES        per function, the table's last column
 *   0x80000002                SMCCC_ARCH_SOC_ID          NOT_SUPPORTED (an SMCCC 1.2 call)
 *   0x80008000                SMCCC_ARCH_WORKAROUND_1    SUCCESS, does nothing (not required)
 *   0x80007fff                SMCCC_ARCH_WORKAROUND_2    NOT_SUPPORTED (ARCH_FEATURES: do not call)
 *   0x80003fff                SMCCC_ARCH_WORKAROUND_3    SUCCESS, does nothing (not required)
 *   0x84000000                PSCI_VERSION               0x10000: PSCI 1.0
 *   0x84000001 / 0xc4000001   CPU_SUSPEND                standby (and powerdown) as WFI
 *   0x84000002                CPU_OFF                    the CPU stops (does not return)
 *   0x84000003 / 0xc4000003   CPU_ON                     the target starts at its next quantum
 *   0x84000004 / 0xc4000004   AFFINITY_INFO              ON 0, OFF 1, ON_PENDING 2 (levels 0 to 3)
 *   0x84000006                MIGRATE_INFO_TYPE          2: no Trusted OS to migrate
 *   0x84000008                SYSTEM_OFF                 the run ends, status 0
 *   0x84000009                SYSTEM_RESET               the run ends, status 0
 *   0x8400000a                PSCI_FEATURES              per function, below
 *   0x84000005 .. 0x84000015  the other PSCI functions   NOT_SUPPORTED (named in the trace)
 *   anything else                                        NOT_SUPPORTED, -1 (in W0 for SMC32)
 *
 * PSCI_FEATURES answers 0 for every PSCI function implemented (for CPU_SUSPEND: the original
 * power_state format and platform-coordinated mode, DEN 0022D §5.15.2) and for SMCCC_VERSION,
 * NOT_SUPPORTED for the rest, as Trusted Firmware-A's psci_features does.  Linux 6.12
 * (drivers/firmware/psci/psci.c) asks it for SMCCC_VERSION, CPU_SUSPEND, SYSTEM_SUSPEND and
 * SYSTEM_RESET2; with SMCCC 1.1 it asks SMCCC_ARCH_FEATURES for the three workarounds
 * (arch/arm64/kernel/proton-pack.c) and probes the TRNG and the hypervisor's UID
 * (drivers/firmware/smccc/smccc.c), which answer NOT_SUPPORTED.
 *
 * The Spectre workarounds: the simulated CPUs do not speculate, so no PE needs them, and
 * SMCCC_ARCH_FEATURES says so as firmware and KVM do on unaffected cores (DEN 0028: 1 for
 * WORKAROUND_1 and _3, "implemented, not required on this PE"; NOT_REQUIRED, -2, for
 * WORKAROUND_2, "not required: do not call").  Linux then reports the CPUs unaffected instead of
 * calling the firmware on every entry from EL0.  QEMU's TCG firmware has no SMCCC_VERSION:
 * under QEMU the same guest sees SMCCC 1.0 (PSCI_FEATURES says NOT_SUPPORTED) and asks nothing
 * more.
 */
#include "cpu/arm64_firmware.h"

/* Return codes (DEN 0022D §5.2.2; DEN 0028 "Return codes"). */
enum {
    FW_SUCCESS = 0, FW_NOT_SUPPORTED = -1, FW_INVALID_PARAMS = -2, FW_NOT_REQUIRED = -2, FW_ALREADY_ON = -4,
    FW_ON_PENDING = -5, FW_INVALID_ADDRESS = -9,
};
/* SMCCC_ARCH_FEATURES for a workaround the PE does not need: implemented, not required. */
#define FW_WORKAROUND_UNAFFECTED 1

/* Function ids (DEN 0028; DEN 0022D §5.1, table 5). */
#define FN_SMC64 0x40000000u
enum {
    SMCCC_VERSION = 0x80000000, SMCCC_ARCH_FEATURES = 0x80000001, SMCCC_ARCH_SOC_ID = 0x80000002,
    SMCCC_ARCH_WORKAROUND_1 = 0x80008000, SMCCC_ARCH_WORKAROUND_2 = 0x80007fff,
    SMCCC_ARCH_WORKAROUND_3 = 0x80003fff,
    PSCI_VERSION = 0x84000000, PSCI_CPU_SUSPEND, PSCI_CPU_OFF, PSCI_CPU_ON, PSCI_AFFINITY_INFO, PSCI_MIGRATE,
    PSCI_MIGRATE_INFO_TYPE, PSCI_MIGRATE_INFO_UP_CPU, PSCI_SYSTEM_OFF, PSCI_SYSTEM_RESET, PSCI_FEATURES,
    PSCI_CPU_FREEZE, PSCI_CPU_DEFAULT_SUSPEND, PSCI_NODE_HW_STATE, PSCI_SYSTEM_SUSPEND, PSCI_SET_SUSPEND_MODE,
    PSCI_STAT_RESIDENCY, PSCI_STAT_COUNT, PSCI_SYSTEM_RESET2, PSCI_MEM_PROTECT, PSCI_MEM_PROTECT_CHECK_RANGE,
    PSCI_SYSTEM_OFF2,
};
/* The versions, major << 16 | minor (PSCI_VERSION; SMCCC_VERSION uses the same encoding). */
#define FW_PSCI_VERSION 0x10000
#define FW_SMCCC_VERSION 0x10001

/* CPU_SUSPEND's power_state in the original format (DEN 0022D §5.4.2.2): StateID 15:0,
 * StateType 16 (0 standby or retention, 1 powerdown), PowerLevel 25:24, the rest zero. */
#define POWER_STATE_ID 0xffffu
#define POWER_STATE_TYPE (1u << 16)
/* AFFINITY_INFO's answers (DEN 0022D §5.7.2) and its highest affinity level (Aff3). */
enum { AFF_ON = 0, AFF_OFF = 1, AFF_ON_PENDING = 2 };
#define AFF_LEVEL_MAX 3
/* MIGRATE_INFO_TYPE: "Trusted OS is either not present or does not require migration". */
#define MIGRATE_NOT_REQUIRED 2
/* MPIDR_EL1's affinity fields, Aff3 (39:32) and Aff2..Aff0 (23:0): what CPU_ON and
 * AFFINITY_INFO match a target by (DEN 0022D §5.1.4). */
#define MPIDR_AFF_MASK 0xff00ffffffull

/* x0..x3 of the call, the arguments cut to 32 bits for an SMC32 id. */
typedef struct FwArgs {
    uint32_t id;
    uint64_t a1, a2, a3;
} FwArgs;

typedef struct FwFunc {
    uint32_t id, id64;              /* the SMC32 id, the SMC64 one or 0 */
    const char *name;               /* in the trace */
    int64_t (*call)(Cpu *c, const FwArgs *a);   /* NULL: not implemented, NOT_SUPPORTED */
    void (*then)(Cpu *c, int64_t ret);          /* after the trace and the result: stop, exit */
    bool no_return;                 /* x0 is not written (the CPU or the machine stops) */
    int32_t psci_feature;           /* PSCI_FEATURES' answer */
    int32_t arch_feature;           /* SMCCC_ARCH_FEATURES' answer */
} FwFunc;

static const FwFunc *fw_find(uint32_t id);

/* ------------------------------------------------------------------ SMCCC */

static int64_t smccc_version(Cpu *c, const FwArgs *a)
{
    return FW_SMCCC_VERSION;
}

static int64_t smccc_arch_features(Cpu *c, const FwArgs *a)
{
    const FwFunc *f = fw_find((uint32_t)a->a1);
    return f ? f->arch_feature : FW_NOT_SUPPORTED;
}

/* A workaround no PE needs: calling it anyway does nothing. */
static int64_t fw_nothing(Cpu *c, const FwArgs *a)
{
    return FW_SUCCESS;
}

/* ------------------------------------------------------------------ PSCI */

static int64_t psci_version(Cpu *c, const FwArgs *a)
{
    return FW_PSCI_VERSION;
}

static int64_t psci_features(Cpu *c, const FwArgs *a)
{
    const FwFunc *f = fw_find((uint32_t)a->a1);
    return f ? f->psci_feature : FW_NOT_SUPPORTED;
}

/* Only the core level exists (PowerLevel 0); a powerdown request is served as standby, which
 * DEN 0022D §5.4.2 allows (the state entered may be shallower than the one asked for; KVM
 * reads it so too): the CPU sleeps as in WFI and the call returns SUCCESS when an interrupt
 * wakes it.  QEMU does the same. */
static int64_t psci_cpu_suspend(Cpu *c, const FwArgs *a)
{
    if (a->a1 & ~(uint64_t)(POWER_STATE_ID | POWER_STATE_TYPE))
        return FW_INVALID_PARAMS;
    return FW_SUCCESS;
}

static void psci_cpu_suspend_then(Cpu *c, int64_t ret)
{
    if (ret == FW_SUCCESS)
        vcpu_stop(c, CPU_HALTED, "psci-cpu-suspend");
}

static int64_t psci_cpu_off(Cpu *c, const FwArgs *a)
{
    return FW_SUCCESS;
}

static void psci_cpu_off_then(Cpu *c, int64_t ret)
{
    vcpu_stop(c, CPU_OFF, "psci-cpu-off");
}

/* The target is named by its MPIDR affinity fields; it must be a cpu node with enable-method
 * "psci", and starts at `entry` (a physical address in RAM, word-aligned) at its next quantum. */
static int64_t psci_cpu_on(Cpu *c, const FwArgs *a)
{
    Cpu *t = vcpu_by_hwid(c->cl, a->a1 & MPIDR_AFF_MASK);
    if (!t || t->desc->enable != ENABLE_PSCI)
        return FW_INVALID_PARAMS;
    if (t->start.pending)
        return FW_ON_PENDING;
    if (t->state != CPU_OFF)
        return FW_ALREADY_ON;
    if ((a->a2 & 3) || !mem_ptr(c->mem, a->a2, 4))
        return FW_INVALID_ADDRESS;
    t->start = (CpuStartRequest){ .pending = true, .entry = a->a2, .arg = a->a3, .at = c->cycles };
    return FW_SUCCESS;
}

/* The MPIDR affinity fields above level `level` (Aff3 39:32, Aff2 23:16, Aff1 15:8, Aff0 7:0):
 * the affinity instance a CPU belongs to at that level. */
static uint64_t affinity_above(uint64_t mpidr, unsigned level)
{
    static const uint64_t mask[] = { MPIDR_AFF_MASK, 0xff00ffff00ull, 0xff00ff0000ull, 0xff00000000ull };
    return mpidr & mask[level];
}

static int aff_state(const Cpu *t)
{
    return t->start.pending ? AFF_ON_PENDING : t->state == CPU_OFF ? AFF_OFF : AFF_ON;
}

/* The state of the affinity instance at lowest_affinity_level (0 a core, 1..3 the clusters
 * above) that holds the target (DEN 0022D §5.7.1): ON if a CPU in it is on, else ON_PENDING if
 * one is being started, else OFF.  An instance no CPU belongs to is INVALID_PARAMETERS. */
static int64_t psci_affinity_info(Cpu *c, const FwArgs *a)
{
    if (a->a2 > AFF_LEVEL_MAX)
        return FW_INVALID_PARAMS;
    unsigned level = (unsigned)a->a2;
    int64_t ret = FW_INVALID_PARAMS;
    for (int i = 0; i < c->cl->ncpus; i++) {
        const Cpu *t = c->cl->cpus[i];
        if (affinity_above(t->hwid, level) != affinity_above(a->a1, level))
            continue;
        int st = aff_state(t);
        if (ret == FW_INVALID_PARAMS || st == AFF_ON || (st == AFF_ON_PENDING && ret == AFF_OFF))
            ret = st;
    }
    return ret;
}

static int64_t psci_migrate_info_type(Cpu *c, const FwArgs *a)
{
    return MIGRATE_NOT_REQUIRED;
}

static int64_t psci_power(Cpu *c, const FwArgs *a)
{
    return FW_SUCCESS;
}

/* The HVC at PC - 4 is the last instruction of the run. */
static void psci_system_off_then(Cpu *c, int64_t ret)
{
    vcpu_exit_at(c, vcpu_reg_read(c, UC_ARM64_REG_PC) - 4, 0, "psci-system-off");
}

static void psci_system_reset_then(Cpu *c, int64_t ret)
{
    vcpu_exit_at(c, vcpu_reg_read(c, UC_ARM64_REG_PC) - 4, 0, "psci-system-reset");
}

/* ------------------------------------------------------------------ the table */

#define NS FW_NOT_SUPPORTED
static const FwFunc fw_funcs[] = {
    { SMCCC_VERSION, 0, "SMCCC_VERSION", smccc_version, NULL, false, FW_SUCCESS, FW_SUCCESS },
    { SMCCC_ARCH_FEATURES, 0, "SMCCC_ARCH_FEATURES", smccc_arch_features, NULL, false, NS, FW_SUCCESS },
    { SMCCC_ARCH_SOC_ID, 0, "SMCCC_ARCH_SOC_ID", NULL, NULL, false, NS, NS },
    { SMCCC_ARCH_WORKAROUND_1, 0, "SMCCC_ARCH_WORKAROUND_1", fw_nothing, NULL, false, NS, FW_WORKAROUND_UNAFFECTED },
    { SMCCC_ARCH_WORKAROUND_2, 0, "SMCCC_ARCH_WORKAROUND_2", NULL, NULL, false, NS, FW_NOT_REQUIRED },
    { SMCCC_ARCH_WORKAROUND_3, 0, "SMCCC_ARCH_WORKAROUND_3", fw_nothing, NULL, false, NS, FW_WORKAROUND_UNAFFECTED },
    { PSCI_VERSION, 0, "PSCI_VERSION", psci_version, NULL, false, FW_SUCCESS, NS },
    { PSCI_CPU_SUSPEND, PSCI_CPU_SUSPEND | FN_SMC64, "CPU_SUSPEND", psci_cpu_suspend, psci_cpu_suspend_then, false,
      FW_SUCCESS, NS },
    { PSCI_CPU_OFF, 0, "CPU_OFF", psci_cpu_off, psci_cpu_off_then, true, FW_SUCCESS, NS },
    { PSCI_CPU_ON, PSCI_CPU_ON | FN_SMC64, "CPU_ON", psci_cpu_on, NULL, false, FW_SUCCESS, NS },
    { PSCI_AFFINITY_INFO, PSCI_AFFINITY_INFO | FN_SMC64, "AFFINITY_INFO", psci_affinity_info, NULL, false,
      FW_SUCCESS, NS },
    { PSCI_MIGRATE, PSCI_MIGRATE | FN_SMC64, "MIGRATE", NULL, NULL, false, NS, NS },
    { PSCI_MIGRATE_INFO_TYPE, 0, "MIGRATE_INFO_TYPE", psci_migrate_info_type, NULL, false, FW_SUCCESS, NS },
    { PSCI_MIGRATE_INFO_UP_CPU, PSCI_MIGRATE_INFO_UP_CPU | FN_SMC64, "MIGRATE_INFO_UP_CPU", NULL, NULL, false, NS, NS },
    { PSCI_SYSTEM_OFF, 0, "SYSTEM_OFF", psci_power, psci_system_off_then, true, FW_SUCCESS, NS },
    { PSCI_SYSTEM_RESET, 0, "SYSTEM_RESET", psci_power, psci_system_reset_then, true, FW_SUCCESS, NS },
    { PSCI_FEATURES, 0, "PSCI_FEATURES", psci_features, NULL, false, FW_SUCCESS, NS },
    { PSCI_CPU_FREEZE, 0, "CPU_FREEZE", NULL, NULL, false, NS, NS },
    { PSCI_CPU_DEFAULT_SUSPEND, PSCI_CPU_DEFAULT_SUSPEND | FN_SMC64, "CPU_DEFAULT_SUSPEND", NULL, NULL, false, NS, NS },
    { PSCI_NODE_HW_STATE, PSCI_NODE_HW_STATE | FN_SMC64, "NODE_HW_STATE", NULL, NULL, false, NS, NS },
    { PSCI_SYSTEM_SUSPEND, PSCI_SYSTEM_SUSPEND | FN_SMC64, "SYSTEM_SUSPEND", NULL, NULL, false, NS, NS },
    { PSCI_SET_SUSPEND_MODE, 0, "PSCI_SET_SUSPEND_MODE", NULL, NULL, false, NS, NS },
    { PSCI_STAT_RESIDENCY, PSCI_STAT_RESIDENCY | FN_SMC64, "PSCI_STAT_RESIDENCY", NULL, NULL, false, NS, NS },
    { PSCI_STAT_COUNT, PSCI_STAT_COUNT | FN_SMC64, "PSCI_STAT_COUNT", NULL, NULL, false, NS, NS },
    { PSCI_SYSTEM_RESET2, PSCI_SYSTEM_RESET2 | FN_SMC64, "SYSTEM_RESET2", NULL, NULL, false, NS, NS },
    { PSCI_MEM_PROTECT, 0, "MEM_PROTECT", NULL, NULL, false, NS, NS },
    { PSCI_MEM_PROTECT_CHECK_RANGE, PSCI_MEM_PROTECT_CHECK_RANGE | FN_SMC64, "MEM_PROTECT_CHECK_RANGE", NULL, NULL,
      false, NS, NS },
    { PSCI_SYSTEM_OFF2, PSCI_SYSTEM_OFF2 | FN_SMC64, "SYSTEM_OFF2", NULL, NULL, false, NS, NS },
};
#undef NS

static const FwFunc *fw_find(uint32_t id)
{
    for (size_t i = 0; i < ARRAY_SIZE(fw_funcs); i++)
        if (fw_funcs[i].id == id || (fw_funcs[i].id64 && fw_funcs[i].id64 == id))
            return &fw_funcs[i];
    return NULL;
}

/* The id from W0 (DEN 0028: the upper half of X0 is ignored) and the arguments, each 32 bits
 * wide for an SMC32 id. */
static FwArgs fw_args(Cpu *c)
{
    FwArgs a = { (uint32_t)vcpu_reg_read(c, UC_ARM64_REG_X0), vcpu_reg_read(c, UC_ARM64_REG_X1),
                 vcpu_reg_read(c, UC_ARM64_REG_X2), vcpu_reg_read(c, UC_ARM64_REG_X3) };
    if (!(a.id & FN_SMC64)) {
        a.a1 = (uint32_t)a.a1;
        a.a2 = (uint32_t)a.a2;
        a.a3 = (uint32_t)a.a3;
    }
    return a;
}

void vcpu_a64_firmware_call(Cpu *c)
{
    FwArgs a = fw_args(c);
    const FwFunc *f = fw_find(a.id);
    int64_t ret = f && f->call ? f->call(c, &a) : FW_NOT_SUPPORTED;
    uint64_t ret64 = (uint64_t)ret;
    bool returns = !(f && f->call && f->no_return);
    trace_psci(c->cl->trace, c->cycles, c->index, f ? f->name : "unknown", a.id, a.a1, a.a2, a.a3,
               returns ? &ret64 : NULL);
    if (returns)
        vcpu_reg_write(c, UC_ARM64_REG_X0, a.id & FN_SMC64 ? ret64 : (uint32_t)ret64);
    if (f && f->call && f->then)
        f->then(c, ret);
}
