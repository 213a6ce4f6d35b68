/* gdb_regs.h — each architecture's registers as GDB numbers them: the target description
 * (qXfer:features:read:target.xml) and the register contents in the target's byte order.
 *
 * @see GDB manual, appendix G "Target Descriptions" (G.2 format, G.5 standard features:
 *      org.gnu.gdb.i386.core/.sse/.segments, org.gnu.gdb.aarch64.core/.fpu,
 *      org.gnu.gdb.power.core/.fpu); gdb/features/i386/64bit-*.xml, aarch64-core.xml,
 *      aarch64-fpu.xml, rs6000/power-core.xml, power-fpu.xml (names and sizes).
 *
 * GDB numbers a target's registers in the order of the description (no regnum attributes), so
 * the tables below are that order: g/G, p/P use these numbers.  Registers the engine holds are
 * read and written through it; the others (the PMUs' registers, ppc32 SPRs pmusim keeps, the
 * arm64 system registers pmusim emulates) are read through CpuOps.debug_reg and are read-only
 * to the debugger (docs/debugging.md).
 */
#ifndef PMUSIM_GDB_REGS_H
#define PMUSIM_GDB_REGS_H

#include "base/common.h"

typedef struct Cpu Cpu;

#define GDB_REG_MAX_BYTES 16        /* the widest register (a vector) */

typedef enum GdbRegSrc {
    GR_ENGINE,                      /* the engine's register id */
    GR_BACKEND,                     /* CpuOps.debug_reg's id (read-only) */
} GdbRegSrc;

typedef struct GdbReg {
    const char *name;
    uint16_t bits;
    const char *type;               /* the description's type ("int", "code_ptr", "i387_ext", ...) */
    const char *group;              /* NULL, "float", "vector", "system" */
    GdbRegSrc src;
    uint32_t id;
} GdbReg;

typedef struct GdbFeature {
    const char *name;               /* "org.gnu.gdb.i386.core" */
    const GdbReg *regs;
    unsigned n;
} GdbFeature;

typedef struct GdbTarget {
    const char *architecture;       /* "i386:x86-64", "aarch64", "powerpc:7450" */
    const GdbFeature *features;
    unsigned nfeatures;
} GdbTarget;

#define GDB_BYTE_BITS 8
static inline unsigned gdb_reg_bytes(const GdbReg *r) { return r->bits / GDB_BYTE_BITS; }

const GdbTarget *gdb_target(Arch arch);
unsigned gdb_nregs(const GdbTarget *t);
/* Register regnum (NULL if out of range). */
const GdbReg *gdb_reg(const GdbTarget *t, unsigned regnum);
/* The target description; returns its length (0 if it does not fit in cap). */
size_t gdb_target_xml(const GdbTarget *t, char *buf, size_t cap);
/* The register's bytes as GDB wants them (target byte order, bits / 8 of them); false if it
 * cannot be read now. */
bool gdb_reg_read(Cpu *c, unsigned regnum, uint8_t *out);
/* Write it (engine registers only: false for the read-only ones). */
bool gdb_reg_write(Cpu *c, unsigned regnum, const uint8_t *in);

#endif
