/* replay_calls.c: the call being replayed on each location (Enter, Leave) and the waits it
 * is charged: the longest of the waits its events found (`later`), bounded by the call,
 * into the severity table per pattern x region x phase, and each wait of a microsecond or
 * more as an interval for the picture.
 */
#include <mpi.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

struct call_state one_state, *cur_p = &one_state, *states;
struct window *windows;
uint32_t windows_cap;
uint64_t first_enter = UINT64_MAX, last_leave, trace_length;
double *severity;
struct wait_interval *intervals;
size_t nintervals, intervals_cap;

void later(uint64_t remote, int pattern)
{
    if (remote > cur.remote || cur.pattern < 0) {
        cur.remote = remote;
        cur.pattern = pattern;
    }
}

OTF2_CallbackCode on_enter(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                           OTF2_AttributeList *a, OTF2_RegionRef region)
{
    (void)pos;
    (void)l, (void)u, (void)a;
    t = clock_fix_apply(&clock_fix, t);
    if (region < nregions && regions[region].tool)
        return OTF2_CALLBACK_SUCCESS;
    if (region < nregions && regions[region].phase) {
        if (phase_depth < 64)
            phase_stack[phase_depth] = regions[region].phase;
        phase_depth++;
        return OTF2_CALLBACK_SUCCESS;
    }
    cur.phase = phase_depth > 0 && phase_depth <= 64 ? phase_stack[phase_depth - 1] : 0;
    cur.region = region < nregions ? region : unknown_region;
    cur.enter = t;
    cur.remote = 0;
    cur.pattern = -1;
    cur.strict = 0;
    cur.sub_pattern = -1;
    cur.win = NULL;
    cur.synchronous = regions[cur.region].kind == SYNCHRONOUS_SEND;
    if (t < first_enter)
        first_enter = t;
    return OTF2_CALLBACK_SUCCESS;
}

void charge(int pattern, uint64_t from, uint64_t until)
{
    SEVERITY(pattern, cur.region, cur.phase) += (until - from) * 1e-9;
    if (until - from < 1000 || nintervals >= MAX_INTERVALS)
        return;
    if (nintervals == intervals_cap) {
        intervals_cap = intervals_cap ? 2 * intervals_cap : 1024;
        intervals = realloc(intervals, intervals_cap * sizeof *intervals);
    }
    intervals[nintervals++] = (struct wait_interval){pattern, (int32_t)cur.region, from, until};
}

OTF2_CallbackCode on_leave(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                           OTF2_AttributeList *a, OTF2_RegionRef region)
{
    (void)pos;
    (void)l, (void)u, (void)a;
    t = clock_fix_apply(&clock_fix, t);
    if (region < nregions && regions[region].tool)
        return OTF2_CALLBACK_SUCCESS;
    if (region < nregions && regions[region].phase) {
        phase_depth -= phase_depth > 0;
        return OTF2_CALLBACK_SUCCESS;
    }
    SEVERITY(MPI_TIME, cur.region, cur.phase) += (t - cur.enter) * 1e-9;
    if (cur.pattern >= 0 && cur.remote > cur.enter && (!cur.strict || cur.remote <= t)) {
        uint64_t until = cur.remote < t ? cur.remote : t;
        charge(cur.pattern, cur.enter, until);
    }
    if (cur.sub_pattern >= 0) {
        uint64_t from = cur.sub_from > cur.enter ? cur.sub_from : cur.enter;
        uint64_t until = cur.sub_until < t ? cur.sub_until : t;
        if (until > from)
            charge(cur.sub_pattern, from, until);
    }
    rma_leave(t);
    cur.pattern = -1;
    last_leave = t;
    return OTF2_CALLBACK_SUCCESS;
}
