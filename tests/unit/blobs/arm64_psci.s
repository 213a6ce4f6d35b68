// AArch64 fixture, 3 CPUs: PSCI 1.0 (Arm DEN 0022D) and the SMCCC 1.1 architecture calls
// (Arm DEN 0028) over HVC #0.  CPU 0 stores each call's x0 at 0x40100000 + 8 * n, in order;
// CPU 1 is started with CPU_ON, stores its x0 (the context id) at 0x40100200 and suspends
// (CPU_SUSPEND, a powerdown request: served as standby); CPU 2 turns itself off (CPU_OFF)
// while CPU 0 polls AFFINITY_INFO for it.  Any exception stores its ESR at 0x40100300 and
// ends the run.  Loaded raw at 0x40080000, vectors at 0x40081000.
    .include "arm64_start.inc"

    // fw ID, A1, A2, A3: one firmware call, its x0 stored at [x19], x19 += 8
    .macro fw id, a1=0, a2=0, a3=0
    ldr x0, =\id
    ldr x1, =\a1
    ldr x2, =\a2
    ldr x3, =\a3
    hvc #0
    str x0, [x19], #8
    .endm

    .text
    .globl _start
_start:
    a64_start
    ldr x19, =0x40100000
    fw 0x84000000                           //  0 PSCI_VERSION
    fw 0x80000000                           //  1 SMCCC_VERSION
    fw 0x8400000a, 0x80000000               //  2 PSCI_FEATURES(SMCCC_VERSION)
    fw 0x8400000a, 0x84000001               //  3 PSCI_FEATURES(CPU_SUSPEND)
    fw 0x8400000a, 0xc4000003               //  4 PSCI_FEATURES(CPU_ON, SMC64)
    fw 0x8400000a, 0x84000012               //  5 PSCI_FEATURES(SYSTEM_RESET2)
    fw 0x8400000a, 0xc400000e               //  6 PSCI_FEATURES(SYSTEM_SUSPEND, SMC64)
    fw 0x8400000a, 0x80000001               //  7 PSCI_FEATURES(SMCCC_ARCH_FEATURES)
    fw 0x80000001, 0x80008000               //  8 SMCCC_ARCH_FEATURES(WORKAROUND_1)
    fw 0x80000001, 0x80007fff               //  9 SMCCC_ARCH_FEATURES(WORKAROUND_2)
    fw 0x80000001, 0x80003fff               // 10 SMCCC_ARCH_FEATURES(WORKAROUND_3)
    fw 0x80000001, 0x80000002               // 11 SMCCC_ARCH_FEATURES(SOC_ID)
    fw 0x80000001, 0x80000001               // 12 SMCCC_ARCH_FEATURES(ARCH_FEATURES)
    fw 0x84000012                           // 13 SYSTEM_RESET2: refused, the run goes on
    fw 0x84000006                           // 14 MIGRATE_INFO_TYPE
    fw 0x84000004, 0, 0                     // 15 AFFINITY_INFO(cpu 0)
    fw 0x84000004, 1, 0                     // 16 AFFINITY_INFO(cpu 1)
    fw 0x84000004, 1, 1                     // 17 AFFINITY_INFO(cpu 1, level 1): its cluster
    fw 0xc4000003, 5, cpu1, 0               // 18 CPU_ON(no such cpu)
    fw 0xc4000003, 1, cpu1 + 2, 0           // 19 CPU_ON(entry not word-aligned)
    fw 0xc4000003, 1, cpu1, 0x77            // 20 CPU_ON(cpu 1)
    fw 0xc4000003, 1, cpu1, 0x77            // 21 CPU_ON(cpu 1) again, before it started
    fw 0xc4000004, 1, 0                     // 22 AFFINITY_INFO(cpu 1), SMC64
    fw 0x84000001, 0x00020000               // 23 CPU_SUSPEND(a power_state bit that is RES0)
    fw 0xc4000003, 2, cpu2, 0               // 24 CPU_ON(cpu 2)
poll:
    ldr x0, =0x84000004                     // AFFINITY_INFO(cpu 2) until it is OFF
    mov x1, #2
    mov x2, #0
    hvc #0
    cmp x0, #1
    b.ne poll
    str x0, [x19], #8                       // 25
    fw 0x84000004, 1, 0                     // 26 AFFINITY_INFO(cpu 1): suspended is ON
    fw 0x84000004, 1, 4                     // 27 AFFINITY_INFO(level 4)
    fw 0xc4000004, 0x100, 1                 // 28 AFFINITY_INFO(cluster 1, level 1): none
exit:
    ldr x0, =0x84000008
    hvc #0                                  // SYSTEM_OFF
    b .

cpu1:
    ldr x1, =0x40100200
    str x0, [x1]
    ldr x0, =0xc4000001                     // CPU_SUSPEND(powerdown, state 5)
    ldr x1, =0x00010005
    ldr x2, =cpu1
    mov x3, #0
    hvc #0
    b .

cpu2:
    ldr x0, =0x84000002                     // CPU_OFF
    hvc #0
    b .

    .ltorg
    .org 0x1000 + 0x200                     // current EL with SP_ELx, synchronous
    mrs x1, esr_el1
    ldr x2, =0x40100300
    str x1, [x2]
    b exit
