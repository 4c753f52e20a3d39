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

char **strings;
struct region *regions;
struct group *groups;
struct comm *comms;
uint32_t nstrings, nregions, ngroups, ncomms; /* 1 + the largest id defined */
uint32_t strings_cap, regions_cap, groups_cap, comms_cap;
uint32_t unknown_region;                    /* stands for an event's undefined region id */
int *phase_region, nphases = 1, phases_cap; /* phase -> its user region; 0: outside */
int phase_stack[64], phase_depth;
struct clock_fix clock_fix; /* this rank's clock to rank 0's */

int ensure(void **table, uint32_t *cap, uint32_t id, size_t elem)
{
    if (id >= ANALYZE_MAX_ID)
        return -1;
    if (id < *cap)
        return 0;
    uint32_t want = *cap ? *cap : 64;
    while (want <= id)
        want *= 2;
    void *t = realloc(*table, (size_t)want * elem);
    if (!t)
        return -1;
    memset((char *)t + (size_t)*cap * elem, 0, (size_t)(want - *cap) * elem);
    *table = t;
    *cap = want;
    return 0;
}
#define ENSURE(table, cap, id) ensure((void **)&(table), &(cap), (id), sizeof *(table))

const uint64_t *group_of(uint32_t g, uint32_t *n)
{
    *n = g < ngroups && groups[g].members ? groups[g].size : 0;
    return *n ? groups[g].members : NULL;
}

uint64_t *my_locations;
uint32_t nmy, my_cap;

OTF2_CallbackCode on_clock_offset(void *u, OTF2_TimeStamp time, int64_t offset, double deviation)
{
    (void)u, (void)deviation;
    clock_fix_add(&clock_fix, time, offset);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_clock(void *u, uint64_t resolution, uint64_t offset, uint64_t length,
                                  uint64_t realtime)
{
    (void)u, (void)resolution, (void)offset, (void)realtime;
    trace_length = length;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_string(void *u, OTF2_StringRef self, const char *s)
{
    (void)u;
    if (ENSURE(strings, strings_cap, self) != 0)
        return OTF2_CALLBACK_INTERRUPT;
    free(strings[self]);
    strings[self] = strdup(s ? s : "");
    if (self + 1 > nstrings)
        nstrings = self + 1;
    return OTF2_CALLBACK_SUCCESS;
}

static const char *string(OTF2_StringRef id)
{
    return id < nstrings && strings[id] ? strings[id] : "";
}

static OTF2_CallbackCode on_location(void *u, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t events,
                                     OTF2_LocationGroupRef group)
{
    (void)u, (void)name, (void)type, (void)events;
    if (group != (OTF2_LocationGroupRef)rank)
        return OTF2_CALLBACK_SUCCESS;
    if (ENSURE(my_locations, my_cap, nmy) != 0)
        return OTF2_CALLBACK_INTERRUPT;
    my_locations[nmy++] = self;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(void *u, OTF2_RegionRef self, OTF2_StringRef name,
                                   OTF2_StringRef c, OTF2_StringRef d, OTF2_RegionRole r,
                                   OTF2_Paradigm p, OTF2_RegionFlag f, OTF2_StringRef file,
                                   uint32_t b, uint32_t e)
{
    (void)u, (void)c, (void)d, (void)r, (void)f, (void)file, (void)b, (void)e;
    static const struct {
        const char *name;
        enum region_kind kind;
    } kinds[] = {{"MPI_Ssend", SYNCHRONOUS_SEND},    {"MPI_Issend", SYNCHRONOUS_SEND},
                 {"MPI_Win_post", WIN_POST},         {"MPI_Win_start", WIN_START},
                 {"MPI_Win_complete", WIN_COMPLETE}, {"MPI_Win_wait", WIN_WAIT}};
    if (ENSURE(regions, regions_cap, self) != 0)
        return OTF2_CALLBACK_INTERRUPT;
    struct region *reg = &regions[self];
    free(reg->name);
    reg->name = strdup(string(name));
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        if (strcmp(reg->name, kinds[k].name) == 0)
            reg->kind = kinds[k].kind;
    reg->tool = p == OTF2_PARADIGM_MEASUREMENT_SYSTEM;
    if (p == OTF2_PARADIGM_USER && !reg->phase) {
        if (ensure((void **)&phase_region, (uint32_t *)&phases_cap, (uint32_t)nphases,
                   sizeof *phase_region) != 0)
            return OTF2_CALLBACK_INTERRUPT;
        phase_region[nphases] = (int)self;
        reg->phase = nphases++;
    }
    if (self + 1 > nregions)
        nregions = self + 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *u, OTF2_GroupRef self, OTF2_StringRef name,
                                  OTF2_GroupType type, OTF2_Paradigm p, OTF2_GroupFlag f,
                                  uint32_t n, const uint64_t *members)
{
    (void)u, (void)name, (void)type, (void)p, (void)f;
    if (ENSURE(groups, groups_cap, self) != 0)
        return OTF2_CALLBACK_INTERRUPT;
    free(groups[self].members);
    groups[self].members = malloc((n + 1) * sizeof(uint64_t));
    if (!groups[self].members)
        return OTF2_CALLBACK_INTERRUPT;
    memcpy(groups[self].members, members, n * sizeof(uint64_t));
    groups[self].size = n;
    if (self + 1 > ngroups)
        ngroups = self + 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_comm(void *u, OTF2_CommRef self, OTF2_StringRef name,
                                 OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    (void)u, (void)name, (void)parent, (void)flags;
    if (ENSURE(comms, comms_cap, self) != 0)
        return OTF2_CALLBACK_INTERRUPT;
    comms[self].group = group;
    comms[self].defined = 1;
    if (self + 1 > ncomms)
        ncomms = self + 1;
    return OTF2_CALLBACK_SUCCESS;
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

void defs_callbacks(OTF2_GlobalDefReaderCallbacks *gdc)
{
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(gdc, on_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gdc, on_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(gdc, on_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(gdc, on_comm);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(gdc, on_clock);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(gdc, on_rma_win);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gdc, on_location);
}
