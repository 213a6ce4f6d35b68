/* model.c — the CPU models --cpu-model selects (cpu.h: CpuModel). */
#include "cpu/cpu.h"

#include <stdio.h>
#include <string.h>

static const CpuModel cpu_models[] = {
    /* x86: PMU version 2 with 4 + 3 counters of 48 bits (the default), and a Core 2 Duo (E6x00:
     * version 2, 2 + 3 counters of 40 bits; SDM vol. 3B 20.2.2). */
    { "generic", ARCH_X86_64, "pmusim,x86-64-generic", UC_CPU_X86_SKYLAKE_CLIENT, 0x000506e3, 0, 2, 4, 48, 3, 48 },
    { "core2duo", ARCH_X86_64, "intel,core2duo", UC_CPU_X86_CORE2DUO, 0x000006f6, 0, 2, 2, 40, 3, 40 },
    { "cortex-a57", ARCH_ARM64, "arm,cortex-a57", UC_CPU_ARM64_A57, 0x411fd070, 0x01, 0, 0, 0, 0, 0 },
    { "cortex-a53", ARCH_ARM64, "arm,cortex-a53", UC_CPU_ARM64_A53, 0x410fd034, 0x03, 0, 0, 0, 0, 0 },
    { "cortex-a72", ARCH_ARM64, "arm,cortex-a72", UC_CPU_ARM64_A72, 0x410fd083, 0x02, 0, 0, 0, 0, 0 },
    /* ppc32: every model runs on the engine's E600 (the MPC7448 core): its hash-table walk, 8 BAT
     * pairs, 7450 exception model and performance-monitor SPRs.  The engine's own 7450 and 7447A
     * models implement only the 74xx software-reloaded TLB, whose miss exception no OS handles
     * (docs/engine.md).  pmusim presents the configured model: its PVR (Linux cputable: 7450
     * 0x8000xxxx, 7447A 0x8003xxxx, 7448 0x8004xxxx) and the SPRs it has (cpu/ppc32.c). */
    { "mpc7450", ARCH_PPC32, "PowerPC,7450", UC_CPU_PPC32_E600, 0x80000201, 0, 0, 0, 0, 0, 0 },
    { "mpc7447a", ARCH_PPC32, "PowerPC,7447A", UC_CPU_PPC32_E600, 0x80030102, 0, 0, 0, 0, 0, 0 },
    { "mpc7448", ARCH_PPC32, "PowerPC,7448", UC_CPU_PPC32_E600, 0x80040201, 0, 0, 0, 0, 0, 0 },
};

const CpuModel *vcpu_model_find(Arch arch, const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(cpu_models); i++)
        if (cpu_models[i].arch == arch &&
            (!strcmp(cpu_models[i].name, name) || !strcmp(cpu_models[i].compatible, name)))
            return &cpu_models[i];
    return NULL;
}

const CpuModel *vcpu_model_default(Arch arch)
{
    for (size_t i = 0; i < ARRAY_SIZE(cpu_models); i++)
        if (cpu_models[i].arch == arch)
            return &cpu_models[i];
    return NULL;
}

const char *vcpu_model_list(Arch arch)
{
    static char buf[256];
    buf[0] = 0;
    for (size_t i = 0; i < ARRAY_SIZE(cpu_models); i++)
        if (cpu_models[i].arch == arch) {
            if (buf[0])
                strcat(buf, ", ");
            strcat(buf, cpu_models[i].name);
        }
    return buf;
}

