// AArch64 fixture: firmware calls over HVC #0 (SMC Calling Convention, Arm DEN 0028, with
// pmusim's PSCI as the firmware).  A function the firmware does not implement answers
// NOT_SUPPORTED (-1) in x0, as firmware does, instead of an UNDEFINED HVC; PSCI calls still
// answer.  Results go to 0x40100000..; any exception stores its ESR at 0x40100018 and ends the
// run.  Loaded raw at 0x40080000, vectors at 0x40081000.
    .include "arm64_start.inc"
    .text
    .globl _start
_start:
    a64_start
    ldr x19, =0x40100000
    ldr x0, =0x80000002         // SMCCC_ARCH_SOC_ID (SMC32, an SMCCC 1.2 call): not implemented
    hvc #0
    str x0, [x19]
    ldr x0, =0xc6001234         // a vendor-specific SMC64 call
    hvc #0
    str x0, [x19, #8]
    ldr x0, =0x84000000         // PSCI_VERSION
    hvc #0
    str x0, [x19, #16]
exit:
    ldr x0, =0x84000008
    hvc #0                      // PSCI SYSTEM_OFF
    b .

    .org 0x1000 + 0x200         // current EL with SP_ELx, synchronous
    mrs x1, esr_el1
    str x1, [x19, #24]
    b exit
