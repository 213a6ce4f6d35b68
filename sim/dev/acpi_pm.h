/* acpi_pm.h — the register map of the ACPI power-management block (sim/dev/acpi_pm.c) and of
 * the reset control register (sim/dev/reset_control.c), shared with the table builder
 * (sim/acpi.c), whose FADT points at them.
 *
 * The fixed hardware of ACPI 6.4 §4.8 ("ACPI Hardware Features"), at the offsets QEMU's PIIX4
 * PM gives them from its I/O base (0x600 on the pc board):
 *   offset  width  register      ACPI 6.4
 *   0x00    16     PM1a_STS      §4.8.3.1.1  write 1 to clear
 *   0x02    16     PM1a_EN       §4.8.3.1.2
 *   0x04    16     PM1a_CNT      §4.8.3.2.1  SCI_EN, SLP_TYP, SLP_EN
 *   0x08    32     PM_TMR        §4.8.3.3    3.579545 MHz, 32 bits (the FADT sets TMR_VAL_EXT)
 */
#ifndef PMUSIM_ACPI_PM_H
#define PMUSIM_ACPI_PM_H

#define ACPI_PM_EVT_OFF 0x00u
#define ACPI_PM_EVT_LEN 4u              /* PM1_STS and PM1_EN: FADT PM1_EVT_LEN */
#define ACPI_PM_CNT_OFF 0x04u
#define ACPI_PM_CNT_LEN 2u              /* FADT PM1_CNT_LEN */
#define ACPI_PM_TMR_OFF 0x08u
#define ACPI_PM_TMR_LEN 4u              /* FADT PM_TMR_LEN */
#define ACPI_PM_MIN_SIZE 0x0cu          /* the ports the node's reg must cover */

/* The PM timer's rate (ACPI 6.4 §4.8.3.3: 3.579545 MHz, the NTSC colour-burst crystal / 4). */
#define ACPI_PM_TIMER_HZ 3579545u

/* PM1_CNT.SLP_TYP for S5, soft off: the value the DSDT's \_S5 package gives and the one that
 * powers the machine off (Intel ICH9 datasheet, PM1_CNT: 111b = S5). */
#define ACPI_SLP_TYP_S5 7u

/* The reset control register (Intel ICH9 datasheet "Reset Control Register", I/O 0xCF9; QEMU's
 * PIIX3 has it too): writing RST_CPU (bit 2) resets the machine.  The FADT's RESET_REG names it
 * with RESET_VALUE = SYS_RST | RST_CPU, the value Linux's acpi_reboot writes. */
#define RESET_CF9_RST_CPU 0x04u
#define RESET_CF9_SYS_RST 0x02u
#define RESET_CF9_VALUE (RESET_CF9_SYS_RST | RESET_CF9_RST_CPU)

/* The compatibles the builder looks for. */
#define ACPI_PM_COMPATIBLE "pmusim,acpi-pm"
#define RESET_CONTROL_COMPATIBLE "pmusim,reset-control"

#endif
