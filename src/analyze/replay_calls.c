/* SPDX-License-Identifier: BSD-3-Clause */
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

static int innermost_phase(const struct analysis *A)
{
    return A->phase_depth > 0 && A->phase_depth <= 64 ? A->phase_stack[A->phase_depth - 1] : 0;
}

/* The time outside MPI since the last call's end, up to T, is computing: the ideal network
 * keeps it (its clock advances), and the innermost phase counts it. */
static void computed_until(struct analysis *A, uint64_t t)
{
    if (!A->ideal_started) {
        A->ideal_from = A->defs.clock_offset; /* the trace's start */
        A->ideal_started = 1;
    }
    uint64_t computed = t > A->ideal_from ? t - A->ideal_from : 0;
    A->ideal += computed;
    A->useful += computed;
    A->ideal_from = t;
    PHASE_COMPUTING(A, innermost_phase(A)) += computed * 1e-9;
}

/* The innermost phase changes at T (a user region's enter or leave): the time since the
 * last change, real and on the ideal clock, goes to the phase that ends here. */
static void phase_changes(struct analysis *A, uint64_t t)
{
    computed_until(A, t);
    int innermost = innermost_phase(A);
    if (innermost > 0 && t > A->phase_since)
        PHASE_REAL(A, innermost) += (t - A->phase_since) * 1e-9;
    if (innermost > 0 && A->ideal > A->phase_ideal_since)
        PHASE_IDEAL(A, innermost) += (A->ideal - A->phase_ideal_since) * 1e-9;
    A->phase_since = t;
    A->phase_ideal_since = A->ideal;
}

void later(struct analysis *A, uint64_t remote, int pattern)
{
    if (remote > A->cur_p->remote || A->cur_p->pattern < 0) {
        A->cur_p->remote = remote;
        A->cur_p->pattern = pattern;
    }
}

OTF2_CallbackCode on_enter(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                           OTF2_AttributeList *a, OTF2_RegionRef region)
{
    struct analysis *A = u;
    (void)pos;
    (void)l, (void)a;
    if (region < A->nregions && A->regions[region].tool)
        return OTF2_CALLBACK_SUCCESS;
    if (region < A->nregions && A->regions[region].phase) {
        phase_changes(A, t);
        if (A->phase_depth < 64)
            A->phase_stack[A->phase_depth] = A->regions[region].phase;
        A->phase_depth++;
        return OTF2_CALLBACK_SUCCESS;
    }
    computed_until(A, t);
    A->cur_p->phase = innermost_phase(A);
    A->cur_p->region = region < A->nregions ? region : A->unknown_region;
    A->cur_p->enter = t;
    A->cur_p->remote = 0;
    A->cur_p->pattern = -1;
    A->cur_p->strict = 0;
    A->cur_p->sub_pattern = -1;
    A->cur_p->win = NULL;
    A->cur_p->synchronous = A->regions[A->cur_p->region].kind == SYNCHRONOUS_SEND;
    A->partitioned += A->regions[A->cur_p->region].kind == PARTITIONED;
    if (t < A->first_enter)
        A->first_enter = t;
    return OTF2_CALLBACK_SUCCESS;
}

void charge(struct analysis *A, int pattern, uint64_t from, uint64_t until)
{
    SEVERITY(A, pattern, A->cur_p->region, A->cur_p->phase) += (until - from) * 1e-9;
    if (until - from < 1000 || A->nintervals >= MAX_INTERVALS)
        return;
    if (A->nintervals == A->intervals_cap) {
        A->intervals_cap = A->intervals_cap ? 2 * A->intervals_cap : 1024;
        A->intervals = realloc(A->intervals, A->intervals_cap * sizeof *A->intervals);
    }
    A->intervals[A->nintervals++] =
        (struct wait_interval){pattern, (int32_t)A->cur_p->region, from, until};
}

OTF2_CallbackCode on_leave(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                           OTF2_AttributeList *a, OTF2_RegionRef region)
{
    struct analysis *A = u;
    (void)pos;
    (void)l, (void)a;
    if (region < A->nregions && A->regions[region].tool)
        return OTF2_CALLBACK_SUCCESS;
    if (region < A->nregions && A->regions[region].phase) {
        phase_changes(A, t);
        A->phase_depth -= A->phase_depth > 0;
        return OTF2_CALLBACK_SUCCESS;
    }
    SEVERITY(A, MPI_TIME, A->cur_p->region, A->cur_p->phase) += (t - A->cur_p->enter) * 1e-9;
    if (A->cur_p->pattern >= 0 && A->cur_p->remote > A->cur_p->enter &&
        (!A->cur_p->strict || A->cur_p->remote <= t)) {
        uint64_t until = A->cur_p->remote < t ? A->cur_p->remote : t;
        charge(A, A->cur_p->pattern, A->cur_p->enter, until);
    }
    if (A->cur_p->sub_pattern >= 0) {
        uint64_t from = A->cur_p->sub_from > A->cur_p->enter ? A->cur_p->sub_from : A->cur_p->enter;
        uint64_t until = A->cur_p->sub_until < t ? A->cur_p->sub_until : t;
        if (until > from)
            charge(A, A->cur_p->sub_pattern, from, until);
    }
    rma_leave(A, t);
    A->cur_p->pattern = -1;
    A->last_leave = t;
    A->ideal_from = t;
    return OTF2_CALLBACK_SUCCESS;
}
