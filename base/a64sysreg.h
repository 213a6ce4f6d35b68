/* a64sysreg.h — the key pmusim gives an AArch64 system register: its MRS/MSR encoding
 * (op0, op1, CRn, CRm, op2; Arm ARM DDI 0487 C5.3, "System register encoding") packed as in the
 * instruction's bits 20:5 and in QEMU's ENCODE_AA64_CP_REG order.  The CPU backend, the PMU and
 * the GIC's CPU interface name their registers by it. */
#ifndef PMUSIM_A64SYSREG_H
#define PMUSIM_A64SYSREG_H

#define A64_SYSREG(op0, op1, crn, crm, op2) ((op0) << 14 | (op1) << 11 | (crn) << 7 | (crm) << 3 | (op2))

#endif
