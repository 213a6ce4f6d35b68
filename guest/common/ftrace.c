/* ftrace.c — the dynamic function tracer's core (ftrace.h); Linux: kernel/trace/ftrace.c,
 * kernel/trace/trace_functions.c, kernel/trace/fgraph.c. */
#include "ftrace.h"
#include "kallsyms.h"
#include "percpu.h"
#include "smp.h"
#include "text_poke.h"
#include "trace_buffer.h"

#define FTRACE_MAX_RECORDS      512
#define FTRACE_FL_SELECTED      2u      /* matches the filter */
#define FTRACE_RETFUNC_DEPTH    64      /* function_graph: calls deep per CPU */

/* The site tables: __mcount_loc (x86, ppc32) or __patchable_function_entries (arm64), whichever
 * the architecture's instrumentation makes; the linker provides the bounds. */
extern const unsigned long __start___mcount_loc[] __attribute__((weak));
extern const unsigned long __stop___mcount_loc[] __attribute__((weak));
extern const unsigned long __start___patchable_function_entries[] __attribute__((weak));
extern const unsigned long __stop___patchable_function_entries[] __attribute__((weak));

struct dyn_ftrace *ftrace_records;
unsigned ftrace_nr_records;
static struct dyn_ftrace records[FTRACE_MAX_RECORDS];
static enum ftrace_tracer current_tracer;

struct ftrace_ret_stack {
    unsigned long ret;                  /* the return address the hook replaced */
    unsigned long func;
    u64 calltime;
};

static struct {
    unsigned depth;
    struct ftrace_ret_stack stack[FTRACE_RETFUNC_DEPTH];
} ret_stacks[MAX_CPUS];

notrace bool ftrace_bug(const char *name)
{
    return ftrace_default_bug && !strcmp(ftrace_default_bug, name);
}

notrace bool ftrace_glob_match(const char *glob, size_t glen, const char *s)
{
    if (!glen)
        return !*s;
    if (*glob == '*') {
        for (;; s++) {
            if (ftrace_glob_match(glob + 1, glen - 1, s))
                return true;
            if (!*s)
                return false;
        }
    }
    return *s && (*glob == '?' || *glob == *s) && ftrace_glob_match(glob + 1, glen - 1, s + 1);
}

notrace int ftrace_init(void)
{
    const unsigned long *start = __start___mcount_loc, *stop = __stop___mcount_loc;

    if (start == stop) {
        start = __start___patchable_function_entries;
        stop = __stop___patchable_function_entries;
    }
    ftrace_records = records;
    for (const unsigned long *p = start; p < stop; p++) {
        if (ftrace_nr_records == FTRACE_MAX_RECORDS) {
            printf("ftrace: more than %u call sites\n", FTRACE_MAX_RECORDS);
            return -1;
        }
        struct dyn_ftrace *rec = &records[ftrace_nr_records++];
        unsigned long size, off;
        rec->ip = *p;
        rec->flags = 0;
        rec->name = kallsyms_lookup(rec->ip, &size, &off);
        if (!rec->name)
            rec->name = "?";
        if (ftrace_make_nop(rec)) {
            printf("ftrace: bug at %s (0x%lx): the call site is not what the compiler emitted\n", rec->name,
                   rec->ip);
            return -1;
        }
    }
    return (int)ftrace_nr_records;
}

notrace unsigned ftrace_set_filter(const char *globs)
{
    unsigned n = 0;

    for (unsigned i = 0; i < ftrace_nr_records; i++) {
        struct dyn_ftrace *rec = &records[i];
        bool match = !globs || !*globs;
        for (const char *g = globs; g && *g && !match;) {
            size_t len = 0;
            while (g[len] && g[len] != ',')
                len++;
            match = len && ftrace_glob_match(g, len, rec->name);
            g += len + (g[len] == ',');
        }
        rec->flags = (rec->flags & ~FTRACE_FL_SELECTED) | (match ? FTRACE_FL_SELECTED : 0);
        n += match;
    }
    return n;
}

notrace int ftrace_start(enum ftrace_tracer t)
{
    current_tracer = t;
    trace_buffers.tracer = t;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);        /* the tracer before the first call */
    for (unsigned i = 0; i < ftrace_nr_records; i++) {
        struct dyn_ftrace *rec = &records[i];
        if (!(rec->flags & FTRACE_FL_SELECTED) || (rec->flags & FTRACE_FL_ENABLED))
            continue;
        if (ftrace_make_call(rec, (unsigned long)ftrace_caller)) {
            printf("ftrace: bug at %s (0x%lx): expected a NOP\n", rec->name, rec->ip);
            return -1;
        }
        rec->flags |= FTRACE_FL_ENABLED;
    }
    return 0;
}

notrace void ftrace_stop(void)
{
    for (unsigned i = 0; i < ftrace_nr_records; i++) {
        struct dyn_ftrace *rec = &records[i];
        if (!(rec->flags & FTRACE_FL_ENABLED))
            continue;
        if (ftrace_make_nop_live(rec, (unsigned long)ftrace_caller))
            printf("ftrace: bug at %s (0x%lx): expected the call to ftrace_caller\n", rec->name, rec->ip);
        rec->flags &= ~FTRACE_FL_ENABLED;
    }
    current_tracer = TRACER_NOP;
}

#ifndef __x86_64__
/* arm64 and ppc32: one instruction word per change. */
notrace int ftrace_modify_word(unsigned long at, u32 old, u32 new)
{
    if (*(volatile u32 *)at != old)
        return -1;
    text_poke(at, (const u8 *)&new, 4);
    return 0;
}

notrace int ftrace_make_call(struct dyn_ftrace *rec, unsigned long addr)
{
    unsigned long at = rec->ip + FTRACE_CALL_OFFSET;
    return ftrace_modify_word(at, ARCH_NOP_INSN, arch_branch_insn(at, addr, true));
}

notrace int ftrace_make_nop_live(struct dyn_ftrace *rec, unsigned long addr)
{
    unsigned long at = rec->ip + FTRACE_CALL_OFFSET;
    return ftrace_modify_word(at, arch_branch_insn(at, addr, true), ARCH_NOP_INSN);
}
#endif

/* The trampoline's C half: ip is the call site, *parent the traced function's return address. */
notrace void ftrace_trace_entry(unsigned long ip, unsigned long *parent)
{
    enum ftrace_tracer t = __atomic_load_n(&current_tracer, __ATOMIC_RELAXED);
    u64 now = arch_trace_clock();

    if (t == TRACER_FUNCTION) {
        trace_buffer_write(TRACE_FN, 0, ip, *parent, now);
    } else if (t == TRACER_FUNCTION_GRAPH) {
        unsigned long flags = arch_local_irq_save();
        unsigned cpu = smp_processor_id();
        unsigned d = ret_stacks[cpu].depth;
        if (d < FTRACE_RETFUNC_DEPTH) {
            ret_stacks[cpu].stack[d] = (struct ftrace_ret_stack){ *parent, ip, now };
            ret_stacks[cpu].depth = d + 1;
            *parent = (unsigned long)return_to_handler;
            trace_buffer_write(TRACE_GRAPH_ENT, (u8)d, ip, 0, now);
        }
        arch_local_irq_restore(flags);
    }
}

/* A hooked function returned into return_to_handler: log it, give back where it goes. */
notrace unsigned long ftrace_return_to_handler(void)
{
    u64 now = arch_trace_clock();
    unsigned long flags = arch_local_irq_save();
    unsigned cpu = smp_processor_id();
    unsigned d = --ret_stacks[cpu].depth;
    struct ftrace_ret_stack e = ret_stacks[cpu].stack[d];

    trace_buffer_write(TRACE_GRAPH_RET, (u8)d, e.func, e.calltime, now);
    arch_local_irq_restore(flags);
    return e.ret;
}
