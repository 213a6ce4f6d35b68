/* arm64_firmware.h — the firmware an arm64 guest reaches with HVC #0 when the tree has a psci
 * node (method "hvc"): PSCI 1.0 (Arm DEN 0022D) and the SMC Calling Convention's Arm
 * architecture calls, SMCCC 1.1 (Arm DEN 0028).  The arm64 backend hands it every HVC #0
 * (docs/guest-abi.md, docs/machines.md). */
#ifndef PMUSIM_ARM64_FIRMWARE_H
#define PMUSIM_ARM64_FIRMWARE_H

#include "cpu/cpu.h"

/* Serve the call whose function id is in W0 (x1..x3 its arguments); the HVC has retired and
 * the PC points after it.  The result goes to x0 (W0 for an SMC32 id, zero-extended), a `psci`
 * trace event names the call; CPU_OFF, CPU_SUSPEND, SYSTEM_OFF and SYSTEM_RESET stop the CPU
 * or end the run. */
void vcpu_a64_firmware_call(Cpu *c);

#endif
