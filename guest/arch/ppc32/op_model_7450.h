/* op_model_7450.h (ppc32) — an oprofile driver for the MPC7450 performance monitor, in the shape
 * of Linux's arch/powerpc/oprofile/op_model_7450.c (Linux 2.6.x–5.x): the counters are set up
 * from a per-counter configuration (event, count, enabled) and a system one (profile kernel,
 * user); each counter that goes negative raises the performance-monitor exception (0xF00) and
 * the handler records one sample for it through oprofile_add_ext_sample(). */
#ifndef GUEST_OP_MODEL_7450_H
#define GUEST_OP_MODEL_7450_H

#include "guest.h"
#include "trap.h"

#define OP_MAX_COUNTER  6               /* PMC1..PMC6 */

/* Linux: struct op_counter_config (arch/powerpc/include/asm/oprofile_impl.h) */
struct op_counter_config {
    bool enabled;
    unsigned event;                     /* the PMCn selector */
    unsigned long count;                /* events per sample */
};

/* Linux: struct op_system_config */
struct op_system_config {
    bool enable_kernel, enable_user;
};

int fsl7450_reg_setup(struct op_counter_config *ctr, struct op_system_config *sys, int num_ctrs);
int fsl7450_cpu_setup(struct op_counter_config *ctr);
int fsl7450_start(struct op_counter_config *ctr);
void fsl7450_stop(void);
/* The 0xF00 handler's body. */
void fsl7450_handle_interrupt(struct trap_frame *regs, struct op_counter_config *ctr);

/* ---- provided by the oprofile core (the scenario) ---- */
/* Linux: is_kernel_addr() */
bool is_kernel_addr(unsigned long pc);
/* Linux: oprofile_add_ext_sample(pc, regs, event, is_kernel); event = the counter index. */
void oprofile_add_ext_sample(unsigned long pc, struct trap_frame *regs, unsigned long event,
                             bool is_kernel);

#endif
