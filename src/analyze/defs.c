/* SPDX-License-Identifier: BSD-3-Clause */
/* defs.c: the trace's global definitions as mpilens-analyze needs them: tables indexed by
 * OTF2's ids (strings, regions classified by name, groups, communicators, this rank's
 * locations), the clock offsets of its local definitions, and the replay communicators.
 */
#include <mpi.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "trace_defs.h"

void analysis_init(struct analysis *A)
{
    memset(A, 0, sizeof *A);
    MPI_Comm_rank(MPI_COMM_WORLD, &A->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &A->size);
    A->nphases = 1; /* phase 0: outside every user region */
    A->cur_p = &A->one_state;
    A->first_enter = UINT64_MAX;
}

const uint64_t *group_of(struct analysis *A, uint32_t g, uint32_t *n)
{
    return trace_defs_group(&A->defs, g, n);
}

/* Region R as the replay needs it: classified once from its name and paradigm. */
static int take_region(struct analysis *A, uint32_t r)
{
    static const struct {
        const char *name;
        enum region_kind kind;
    } kinds[] = {{"MPI_Ssend", SYNCHRONOUS_SEND},    {"MPI_Issend", SYNCHRONOUS_SEND},
                 {"MPI_Win_post", WIN_POST},         {"MPI_Win_start", WIN_START},
                 {"MPI_Win_complete", WIN_COMPLETE}, {"MPI_Win_wait", WIN_WAIT},
                 {"MPI_Win_test", WIN_WAIT},         {"MPI_Psend_init", PARTITIONED},
                 {"MPI_Precv_init", PARTITIONED}};
    struct region *reg = &A->regions[r];
    const struct trace_region *d = &A->defs.regions[r];
    reg->name = strdup(d->defined ? trace_defs_string(&A->defs, d->name) : "");
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        if (strcmp(reg->name, kinds[k].name) == 0)
            reg->kind = kinds[k].kind;
    reg->tool = d->defined && d->paradigm == OTF2_PARADIGM_MEASUREMENT_SYSTEM;
    if (d->defined && d->paradigm == OTF2_PARADIGM_USER) {
        if (ENSURE(A->phase_region, *(uint32_t *)&A->phases_cap, (uint32_t)A->nphases) != 0)
            return -1;
        A->phase_region[A->nphases] = (int)r;
        reg->phase = A->nphases++;
    }
    return 0;
}

int read_definitions(struct analysis *A, OTF2_Reader *reader, uint64_t *read)
{
    if (trace_defs_read(reader, &A->defs, read) != 0)
        return -1;
    A->nregions = A->defs.nregions;
    if (A->nregions && ENSURE(A->regions, A->regions_cap, A->nregions - 1) != 0)
        return -1;
    for (uint32_t r = 0; r < A->nregions; r++)
        if (take_region(A, r) != 0)
            return -1;
    A->ncomms = A->defs.ncomms;
    if (A->ncomms && ENSURE(A->comms, A->comms_cap, A->ncomms - 1) != 0)
        return -1;
    for (uint32_t c = 0; c < A->ncomms; c++) {
        A->comms[c].group = A->defs.comms[c].group;
        A->comms[c].defined = (uint32_t)A->defs.comms[c].defined;
    }
    for (uint32_t l = 0; l < A->defs.nlocations; l++)
        if (A->defs.locations[l].defined && A->defs.locations[l].group == (uint64_t)A->rank) {
            if (ENSURE(A->my_locations, A->my_cap, A->nmy) != 0)
                return -1;
            A->my_locations[A->nmy++] = l;
        }
    for (uint32_t w = 0; w < A->defs.nwindows; w++)
        if (A->defs.windows[w].defined && rma_window_defined(A, w, A->defs.windows[w].comm) != 0)
            return -1;
    A->trace_length = A->defs.clock_length;
    return 0;
}

/* Replay communicators: a forward, a backward and a one-sided copy of every traced
 * communicator this rank is a member of (the same split on every rank: all read the same
 * global definitions). Then the severity table, sized by the definitions. */
void make_replay_comms(struct analysis *A)
{
    for (uint32_t c = 0; c < A->ncomms; c++) {
        uint32_t n;
        const uint64_t *members = A->comms[c].defined ? group_of(A, A->comms[c].group, &n) : NULL;
        int position = MPI_UNDEFINED;
        for (uint32_t i = 0; members && i < n; i++)
            if (members[i] == (uint64_t)A->rank)
                position = (int)i;
        A->comms[c].forward = A->comms[c].backward = A->comms[c].rma = MPI_COMM_NULL;
        MPI_Comm_split(MPI_COMM_WORLD, position == MPI_UNDEFINED ? MPI_UNDEFINED : 0, position,
                       &A->comms[c].forward);
        if (A->comms[c].forward != MPI_COMM_NULL) {
            MPI_Comm_dup(A->comms[c].forward, &A->comms[c].backward);
            MPI_Comm_dup(A->comms[c].forward, &A->comms[c].rma);
        }
    }
    A->unknown_region = A->nregions;
    if (ENSURE(A->regions, A->regions_cap, A->unknown_region) != 0)
        die("out of memory for %s regions", "the");
    A->regions[A->unknown_region].name = strdup("(undefined region)");
    A->severity = calloc((size_t)PATTERNS * (A->nregions + 1) * A->nphases, sizeof *A->severity);
    A->phase_seconds = calloc((size_t)3 * A->nphases, sizeof *A->phase_seconds);
    if (!A->severity || !A->phase_seconds)
        die("out of memory for the severity table%s", "");
}
