/* codewatch.c — the code-write chokepoint (see codewatch.h). */
#include "cpu/codewatch.h"

#include <stdlib.h>
#include <string.h>

#include "base/trace_events.h"

void codewatch_init(CodeWatch *cw)
{
    memset(cw, 0, sizeof *cw);
}

void codewatch_destroy(CodeWatch *cw)
{
    free(cw->ranges);
    memset(cw, 0, sizeof *cw);
}

void codewatch_clear_ranges(CodeWatch *cw)
{
    cw->n = 0;
}

/* Insert [start, end), merging with neighbours; ranges stay sorted and disjoint. */
void codewatch_add_range(CodeWatch *cw, uint64_t start, uint64_t end)
{
    if (start >= end)
        return;
    int i = 0;
    while (i < cw->n && cw->ranges[i].end < start)
        i++;
    int j = i;
    while (j < cw->n && cw->ranges[j].start <= end) {
        if (cw->ranges[j].start < start)
            start = cw->ranges[j].start;
        if (cw->ranges[j].end > end)
            end = cw->ranges[j].end;
        j++;
    }
    if (i == j) {                               /* no overlap: insert at i */
        if (cw->n == cw->cap) {
            cw->cap = cw->cap ? cw->cap * 2 : 16;
            cw->ranges = xrealloc(cw->ranges, (size_t)cw->cap * sizeof *cw->ranges);
        }
        memmove(&cw->ranges[i + 1], &cw->ranges[i], (size_t)(cw->n - i) * sizeof *cw->ranges);
        cw->n++;
    } else {                                    /* ranges i..j-1 collapse into i */
        memmove(&cw->ranges[i + 1], &cw->ranges[j], (size_t)(cw->n - j) * sizeof *cw->ranges);
        cw->n -= j - i - 1;
    }
    cw->ranges[i] = (Range){ start, end };
}

bool codewatch_overlaps(const CodeWatch *cw, uint64_t addr, uint64_t size)
{
    int lo = 0, hi = cw->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (cw->ranges[mid].end <= addr)
            lo = mid + 1;
        else if (cw->ranges[mid].start >= addr + size)
            hi = mid - 1;
        else
            return true;
    }
    return false;
}

void codewatch_listen(CodeWatch *cw, CodeWriteListener fn, void *opaque)
{
    if (cw->nlisteners < (int)ARRAY_SIZE(cw->listeners)) {
        cw->listeners[cw->nlisteners].fn = fn;
        cw->listeners[cw->nlisteners].opaque = opaque;
        cw->nlisteners++;
    }
}

void codewatch_record(CodeWatch *cw, Trace *t, const CodeWrite *w)
{
    cw->writes++;
    for (int i = 0; i < cw->nlisteners; i++)
        cw->listeners[i].fn(cw->listeners[i].opaque, w);
    trace_code_write(t, w->cycle, w->cpu, w->va, w->size, w->old_bytes, w->size, w->new_bytes, w->size, w->pc,
                     w->va != w->addr ? &w->addr : NULL);
}
