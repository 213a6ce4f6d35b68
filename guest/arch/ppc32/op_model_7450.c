/* op_model_7450.c (ppc32) — the MPC7450 oprofile driver, see op_model_7450.h.
 *
 * MMCR0 starts as FC|FCS|FCP|FCM1|FCM0: frozen, and frozen in every state.  reg_setup clears
 * FCS/FCP for the states to profile; start sets MSR[PMM], writes each counter's reset value
 * 0x80000000 - count and clears FC and FCM0 while setting FCECE|PMC1CE|PMCnCE|PMXE.  FCM1 still
 * freezes the counters while MSR[PMM] = 1, so nothing counts until an rfi to code running with
 * PMM = 0 (exception entry clears PMM too).  A counter that goes negative is an enabled condition:
 * FCECE freezes all of them, the exception is taken (hardware clears PMXE), and the handler marks
 * itself (PMM), reads SIAR, records a sample for each negative counter, rewrites its reset value
 * and clears FC again.  MPC7450UM ch. 11; Linux arch/powerpc/oprofile/op_model_7450.c. */
#include "op_model_7450.h"
#include "ppc.h"

#define MMCR0_FC        0x80000000
#define MMCR0_FCS       0x40000000      /* freeze in supervisor state (MSR[PR] = 0) */
#define MMCR0_FCP       0x20000000      /* freeze in problem state (MSR[PR] = 1) */
#define MMCR0_FCM1      0x10000000      /* freeze while MSR[PMM] = 1 */
#define MMCR0_FCM0      0x08000000      /* freeze while MSR[PMM] = 0 */
#define MMCR0_PMXE      0x04000000      /* performance monitor exception enable */
#define MMCR0_FCECE     0x02000000      /* freeze counters on enabled condition or event */
#define MMCR0_PMC1CE    0x00008000      /* PMC1 negative is an enabled condition */
#define MMCR0_PMCnCE    0x00004000      /* PMC2..6 negative is one */
#define MMCR0_PMC1SEL   0x00001fc0
#define MMCR0_PMC2SEL   0x0000003f
#define MMCR1_PMC3SEL   0xf8000000
#define MMCR1_PMC4SEL   0x07c00000
#define MMCR1_PMC5SEL   0x003e0000
#define MMCR1_PMC6SEL   0x0001f800

#define MMCR0_PMC1_SHIFT    6
#define MMCR0_PMC2_SHIFT    0
#define MMCR1_PMC3_SHIFT    27
#define MMCR1_PMC4_SHIFT    22
#define MMCR1_PMC5_SHIFT    17
#define MMCR1_PMC6_SHIFT    11

#define MMCR0_INIT (MMCR0_FC | MMCR0_FCS | MMCR0_FCP | MMCR0_FCM1 | MMCR0_FCM0)

static unsigned long reset_value[OP_MAX_COUNTER];
static bool oprofile_running;
static u32 mmcr0_val, mmcr1_val, mmcr2_val;
static int num_pmcs;

/* The PMCs are SPRs, named by an immediate: one case each (Linux: classic_ctr_read/write). */
static long ctr_read(int i)
{
    switch (i) {
    case 0: return mfspr(SPRN_PMC1);
    case 1: return mfspr(SPRN_PMC2);
    case 2: return mfspr(SPRN_PMC3);
    case 3: return mfspr(SPRN_PMC4);
    case 4: return mfspr(SPRN_PMC5);
    default: return mfspr(SPRN_PMC6);
    }
}

static void ctr_write(int i, unsigned long v)
{
    switch (i) {
    case 0: mtspr(SPRN_PMC1, v); break;
    case 1: mtspr(SPRN_PMC2, v); break;
    case 2: mtspr(SPRN_PMC3, v); break;
    case 3: mtspr(SPRN_PMC4, v); break;
    case 4: mtspr(SPRN_PMC5, v); break;
    default: mtspr(SPRN_PMC6, v); break;
    }
}

/* Frozen, no exception. */
static void pmc_stop_ctrs(void)
{
    u32 mmcr0 = mfspr(SPRN_MMCR0);

    mmcr0 &= ~(MMCR0_PMC1CE | MMCR0_PMCnCE | MMCR0_PMXE | MMCR0_FCECE);
    mmcr0 |= MMCR0_FC;
    mtspr(SPRN_MMCR0, mmcr0);
}

/* Counting (from the next rfi to PMM = 0), an exception on every negative counter. */
static void pmc_start_ctrs(void)
{
    u32 mmcr0 = mfspr(SPRN_MMCR0);

    mmcr0 &= ~(MMCR0_FC | MMCR0_FCM0);
    mmcr0 |= MMCR0_FCECE | MMCR0_PMC1CE | MMCR0_PMCnCE | MMCR0_PMXE;
    mtspr(SPRN_MMCR0, mmcr0);
}

int fsl7450_cpu_setup(struct op_counter_config *ctr)
{
    pmc_stop_ctrs();
    mtspr(SPRN_MMCR0, mmcr0_val);
    mtspr(SPRN_MMCR1, mmcr1_val);
    if (num_pmcs > 4)
        mtspr(SPRN_MMCR2, mmcr2_val);
    return 0;
}

int fsl7450_reg_setup(struct op_counter_config *ctr, struct op_system_config *sys, int num_ctrs)
{
    num_pmcs = num_ctrs;
    for (int i = 0; i < num_ctrs; i++)
        reset_value[i] = 0x80000000UL - ctr[i].count;

    mmcr0_val = MMCR0_INIT | (ctr[0].event << MMCR0_PMC1_SHIFT & MMCR0_PMC1SEL) |
                (ctr[1].event << MMCR0_PMC2_SHIFT & MMCR0_PMC2SEL);
    if (sys->enable_kernel)
        mmcr0_val &= ~MMCR0_FCS;
    if (sys->enable_user)
        mmcr0_val &= ~MMCR0_FCP;
    mmcr1_val = (ctr[2].event << MMCR1_PMC3_SHIFT & MMCR1_PMC3SEL) |
                (ctr[3].event << MMCR1_PMC4_SHIFT & MMCR1_PMC4SEL);
    if (num_ctrs > 4)
        mmcr1_val |= (ctr[4].event << MMCR1_PMC5_SHIFT & MMCR1_PMC5SEL) |
                     (ctr[5].event << MMCR1_PMC6_SHIFT & MMCR1_PMC6SEL);
    mmcr2_val = 0;                      /* no threshold multiplier, no breakpoint events */
    return 0;
}

int fsl7450_start(struct op_counter_config *ctr)
{
    mtmsr(mfmsr() | MSR_PMM);
    for (int i = 0; i < num_pmcs; i++)
        ctr_write(i, ctr[i].enabled ? reset_value[i] : 0);
    /* Clear FC and enable the exception.  Counting starts when an rfi clears MSR[PMM]. */
    pmc_start_ctrs();
    oprofile_running = true;
    return 0;
}

void fsl7450_stop(void)
{
    pmc_stop_ctrs();
    oprofile_running = false;
    barrier();
}

void fsl7450_handle_interrupt(struct trap_frame *regs, struct op_counter_config *ctr)
{
    /* Mark this code, so that the counters stay frozen (FCM1) in it once FC is cleared. */
    mtmsr(mfmsr() | MSR_PMM);
    unsigned long pc = mfspr(SPRN_SIAR);
    bool is_kernel = is_kernel_addr(pc);

    for (int i = 0; i < num_pmcs; i++) {
        if (ctr_read(i) >= 0)
            continue;
        if (oprofile_running && ctr[i].enabled) {
            oprofile_add_ext_sample(pc, regs, i, is_kernel);
            ctr_write(i, reset_value[i]);
        } else {
            ctr_write(i, 0);
        }
    }
    /* FCECE set FC with the enabled condition: clear it, re-enable the exception.  The
     * counters start again at the rfi, which clears MSR[PMM]. */
    if (oprofile_running)
        pmc_start_ctrs();
}
