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

struct region *regions;
struct comm *comms;
uint32_t nregions, ncomms; /* 1 + the largest id defined */
uint32_t regions_cap, comms_cap;
uint32_t unknown_region;                    /* stands for an event's undefined region id */
int *phase_region, nphases = 1, phases_cap; /* phase -> its user region; 0: outside */
int phase_stack[64], phase_depth;
struct clock_fix clock_fix; /* this rank's clock to rank 0's */
uint64_t *my_locations;
uint32_t nmy, my_cap;
static struct trace_defs defs; /* as read (src/common/trace_defs.h) */

const uint64_t *group_of(uint32_t g, uint32_t *n)
{
    return trace_defs_group(&defs, g, n);
}

OTF2_CallbackCode on_clock_offset(void *u, OTF2_TimeStamp time, int64_t offset, double deviation)
{
    (void)u, (void)deviation;
    clock_fix_add(&clock_fix, time, offset);
    return OTF2_CALLBACK_SUCCESS;
}

/* Region R as the replay needs it: classified once from its name and paradigm. */
static int take_region(uint32_t r)
{
    static const struct {
        const char *name;
        enum region_kind kind;
    } kinds[] = {{"MPI_Ssend", SYNCHRONOUS_SEND},    {"MPI_Issend", SYNCHRONOUS_SEND},
                 {"MPI_Win_post", WIN_POST},         {"MPI_Win_start", WIN_START},
                 {"MPI_Win_complete", WIN_COMPLETE}, {"MPI_Win_wait", WIN_WAIT},
                 {"MPI_Win_test", WIN_WAIT}};
    struct region *reg = &regions[r];
    const struct trace_region *d = &defs.regions[r];
    reg->name = strdup(d->defined ? trace_defs_string(&defs, d->name) : "");
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        if (strcmp(reg->name, kinds[k].name) == 0)
            reg->kind = kinds[k].kind;
    reg->tool = d->defined && d->paradigm == OTF2_PARADIGM_MEASUREMENT_SYSTEM;
    if (d->defined && d->paradigm == OTF2_PARADIGM_USER) {
        if (ENSURE(phase_region, *(uint32_t *)&phases_cap, (uint32_t)nphases) != 0)
            return -1;
        phase_region[nphases] = (int)r;
        reg->phase = nphases++;
    }
    return 0;
}

int read_definitions(OTF2_Reader *reader, uint64_t *read)
{
    if (trace_defs_read(reader, &defs, read) != 0)
        return -1;
    nregions = defs.nregions;
    if (nregions && ENSURE(regions, regions_cap, nregions - 1) != 0)
        return -1;
    for (uint32_t r = 0; r < nregions; r++)
        if (take_region(r) != 0)
            return -1;
    ncomms = defs.ncomms;
    if (ncomms && ENSURE(comms, comms_cap, ncomms - 1) != 0)
        return -1;
    for (uint32_t c = 0; c < ncomms; c++) {
        comms[c].group = defs.comms[c].group;
        comms[c].defined = (uint32_t)defs.comms[c].defined;
    }
    for (uint32_t l = 0; l < defs.nlocations; l++)
        if (defs.locations[l].defined && defs.locations[l].group == (uint64_t)rank) {
            if (ENSURE(my_locations, my_cap, nmy) != 0)
                return -1;
            my_locations[nmy++] = l;
        }
    for (uint32_t w = 0; w < defs.nwindows; w++)
        if (defs.windows[w].defined && rma_window_defined(w, defs.windows[w].comm) != 0)
            return -1;
    trace_length = defs.clock_length;
    return 0;
}

/* Replay communicators: a forward, a backward and a one-sided copy of every traced
 * communicator this rank is a member of (the same split on every rank: all read the same
 * global definitions). Then the severity table, sized by the definitions. */
void make_replay_comms(void)
{
    for (uint32_t c = 0; c < ncomms; c++) {
        uint32_t n;
        const uint64_t *members = comms[c].defined ? group_of(comms[c].group, &n) : NULL;
        int position = MPI_UNDEFINED;
        for (uint32_t i = 0; members && i < n; i++)
            if (members[i] == (uint64_t)rank)
                position = (int)i;
        comms[c].forward = comms[c].backward = comms[c].rma = MPI_COMM_NULL;
        MPI_Comm_split(MPI_COMM_WORLD, position == MPI_UNDEFINED ? MPI_UNDEFINED : 0, position,
                       &comms[c].forward);
        if (comms[c].forward != MPI_COMM_NULL) {
            MPI_Comm_dup(comms[c].forward, &comms[c].backward);
            MPI_Comm_dup(comms[c].forward, &comms[c].rma);
        }
    }
    unknown_region = nregions;
    if (ENSURE(regions, regions_cap, unknown_region) != 0)
        die("out of memory for %s regions", "the");
    regions[unknown_region].name = strdup("(undefined region)");
    severity = calloc((size_t)PATTERNS * (nregions + 1) * nphases, sizeof *severity);
    if (!severity)
        die("out of memory for the severity table%s", "");
}
