/* oprofile_perf.c (arm64) — oprofile on perf (see oprofile_perf.h), after Linux 5.10
 * drivers/oprofile/oprofile_perf.c (op_overflow_handler, op_perf_setup, op_create_counter,
 * op_destroy_counter, op_perf_start/stop).  One CPU profiles: the scenario runs on the boot CPU. */
#include "oprofile_perf.h"
#include "percpu.h"

struct op_counter_config counter_config[OP_MAX_COUNTER];
static struct perf_event *perf_events[OP_MAX_COUNTER];

/* Which counter overflowed: the index of its event. */
static void op_overflow_handler(struct perf_event *event, struct perf_sample_data *data,
                                struct trap_frame *regs)
{
    for (unsigned id = 0; id < OP_MAX_COUNTER; id++)
        if (perf_events[id] == event) {
            oprofile_add_sample(regs, id);
            return;
        }
    printf_nmi("oprofile: ignoring spurious overflow on cpu %u\n", smp_processor_id());
}

/* The perf attributes of each enabled counter (Linux: op_perf_setup). */
static void op_perf_setup(void)
{
    for (unsigned i = 0; i < OP_MAX_COUNTER; i++) {
        struct op_counter_config *c = &counter_config[i];

        c->attr = (struct perf_event_attr){
            .type = PERF_TYPE_RAW,
            .config = c->event,
            .sample_period = c->count,
            .pinned = true,
            .exclude_kernel = !c->kernel,
            .exclude_user = !c->user,
        };
    }
}

static int op_create_counter(unsigned cpu, unsigned id)
{
    struct perf_event *pevent = perf_event_create_kernel_counter(&counter_config[id].attr, cpu,
                                                                 op_overflow_handler, NULL);
    if (!pevent) {
        printf("oprofile: failed to enable event %lu on CPU %u\n", counter_config[id].event, cpu);
        return -1;
    }
    perf_events[id] = pevent;
    return 0;
}

static void op_destroy_counter(unsigned id)
{
    struct perf_event *event = perf_events[id];

    if (!event)
        return;
    perf_event_disable(event);
    perf_event_release_kernel(event);
    perf_events[id] = NULL;
}

int oprofile_perf_start(void)
{
    op_perf_setup();
    for (unsigned id = 0; id < OP_MAX_COUNTER; id++)
        if (counter_config[id].enabled && op_create_counter(smp_processor_id(), id)) {
            oprofile_perf_stop();
            return -1;
        }
    return 0;
}

void oprofile_perf_stop(void)
{
    for (unsigned id = 0; id < OP_MAX_COUNTER; id++)
        op_destroy_counter(id);
}
