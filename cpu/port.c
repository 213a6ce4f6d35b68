/* port.c — a CPU's port: what its local APIC and its PMU see of it (base/cpuport.h). */
#include "cpu/cpu.h"

static bool p_started(void *c)
{
    return ((Cpu *)c)->state != CPU_OFF;
}

static uint64_t p_pc(void *c)
{
    return ((Cpu *)c)->ops->get_pc(c);
}

static uint64_t p_last_retired_pc(void *c)
{
    return vcpu_last_retired_pc(c);
}

static uint64_t p_cycles_at(void *c, uint64_t pc)
{
    return vcpu_cycles_at(c, pc);
}

static void p_schedule(void *c, Event *ev, uint64_t cycle)
{
    vcpu_schedule(c, ev, cycle);
}

static void p_schedule_insns(void *c, Event *ev, uint64_t insns)
{
    vcpu_schedule_insns(c, ev, insns);
}

static void p_track_branches(void *c, bool on)
{
    vcpu_set_branch_tracking(c, on);
}

static void p_track_mem(void *c, bool on)
{
    vcpu_set_mem_tracking(c, on);
}

static void p_mem_count(void *c, uint64_t *loads, uint64_t *stores, uint64_t *memops)
{
    vcpu_mem_count(c, loads, stores, memops);
}

static void p_profile_window(void *c, bool on)
{
    vcpu_profile_window(c, on);
}

static void p_profile_sample(void *opaque, uint64_t pc, bool user, const char *counter)
{
    Cpu *c = opaque;
    c->cl->host.sample(c->cl->host.opaque, c, pc, user, counter);
}

void vcpu_port_init(Cpu *c)
{
    c->port = (CpuPort){
        .opaque = c, .index = c->index, .hwid = c->hwid, .trace = c->cl->trace, .freq_hz = c->cl->clock->freq_hz,
        .cycles = &c->cycles, .idle_cycles = &c->idle_cycles, .insns = &c->insns, .ev = &c->pev,
        .events = &c->events, .insn_events = &c->insn_events,
        .started = p_started, .pc = p_pc, .last_retired_pc = p_last_retired_pc, .cycles_at = p_cycles_at,
        .schedule = p_schedule, .schedule_insns = p_schedule_insns, .track_branches = p_track_branches,
        .track_mem = p_track_mem, .mem_count = p_mem_count, .profile_window = p_profile_window,
        .sample = p_profile_sample,
    };
}
