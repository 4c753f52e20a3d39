/* SPDX-License-Identifier: BSD-3-Clause */
/* trace_defs.c: the global definitions of a trace read into tables (trace_defs.h). */
#include "trace_defs.h"

#include <stdlib.h>
#include <string.h>

int trace_defs_ensure(void **table, uint32_t *cap, uint32_t id, size_t elem)
{
    if (id >= TRACE_DEFS_MAX_ID)
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

/* Table ID of D (1 + the largest id in *N), or OTF2_CALLBACK_INTERRUPT from the caller. */
#define SLOT(d, table, n, cap, id)                                                                 \
    if (TRACE_DEFS_ENSURE((d)->table, (d)->cap, (id)) != 0)                                        \
        return OTF2_CALLBACK_INTERRUPT;                                                            \
    if ((id) + 1 > (d)->n)                                                                         \
    (d)->n = (id) + 1

static OTF2_CallbackCode on_string(void *u, OTF2_StringRef self, const char *s)
{
    struct trace_defs *d = u;
    SLOT(d, strings, nstrings, strings_cap, self);
    free(d->strings[self]);
    d->strings[self] = strdup(s ? s : "");
    return d->strings[self] ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode on_region(void *u, OTF2_RegionRef self, OTF2_StringRef name,
                                   OTF2_StringRef canonical, OTF2_StringRef description,
                                   OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                   OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin,
                                   uint32_t end)
{
    (void)canonical, (void)description, (void)role, (void)flags, (void)file, (void)begin, (void)end;
    struct trace_defs *d = u;
    SLOT(d, regions, nregions, regions_cap, self);
    d->regions[self] = (struct trace_region){name, paradigm, 1};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *u, OTF2_GroupRef self, OTF2_StringRef name,
                                  OTF2_GroupType type, OTF2_Paradigm paradigm, OTF2_GroupFlag flags,
                                  uint32_t n, const uint64_t *members)
{
    (void)name, (void)type, (void)paradigm, (void)flags;
    struct trace_defs *d = u;
    SLOT(d, groups, ngroups, groups_cap, self);
    free(d->groups[self].members);
    d->groups[self].members = malloc(((size_t)n + 1) * sizeof *members);
    if (!d->groups[self].members)
        return OTF2_CALLBACK_INTERRUPT;
    memcpy(d->groups[self].members, members, (size_t)n * sizeof *members);
    d->groups[self].size = n;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_comm(void *u, OTF2_CommRef self, OTF2_StringRef name,
                                 OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    (void)parent, (void)flags;
    struct trace_defs *d = u;
    SLOT(d, comms, ncomms, comms_cap, self);
    d->comms[self] = (struct trace_comm){name, group, 1};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *u, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t events,
                                     OTF2_LocationGroupRef group)
{
    (void)type, (void)events;
    struct trace_defs *d = u;
    if (self >= TRACE_DEFS_MAX_ID)
        return OTF2_CALLBACK_INTERRUPT;
    SLOT(d, locations, nlocations, locations_cap, (uint32_t)self);
    d->locations[self] = (struct trace_location){name, group, 1};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_window(void *u, OTF2_RmaWinRef self, OTF2_StringRef name,
                                   OTF2_CommRef comm, OTF2_RmaWinFlag flags)
{
    (void)name, (void)flags;
    struct trace_defs *d = u;
    SLOT(d, windows, nwindows, windows_cap, self);
    d->windows[self] = (struct trace_window){comm, 1};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_clock(void *u, uint64_t resolution, uint64_t offset, uint64_t length,
                                  uint64_t realtime)
{
    (void)realtime;
    struct trace_defs *d = u;
    d->clock_resolution = resolution;
    d->clock_offset = offset;
    d->clock_length = length;
    return OTF2_CALLBACK_SUCCESS;
}

int trace_defs_read(OTF2_Reader *reader, struct trace_defs *d, uint64_t *read)
{
    memset(d, 0, sizeof *d);
    *read = 0;
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(reader);
    if (!gdr)
        return -1;
    OTF2_GlobalDefReaderCallbacks *c = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(c, on_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(c, on_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(c, on_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(c, on_comm);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(c, on_location);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(c, on_window);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(c, on_clock);
    OTF2_Reader_RegisterGlobalDefCallbacks(reader, gdr, c, d);
    OTF2_GlobalDefReaderCallbacks_Delete(c);
    int bad = OTF2_Reader_ReadAllGlobalDefinitions(reader, gdr, read) != OTF2_SUCCESS;
    OTF2_Reader_CloseGlobalDefReader(reader, gdr);
    return bad ? -1 : 0;
}

const char *trace_defs_string(const struct trace_defs *d, uint32_t id)
{
    return id < d->nstrings && d->strings[id] ? d->strings[id] : "";
}

const uint64_t *trace_defs_group(const struct trace_defs *d, uint32_t g, uint32_t *n)
{
    *n = g < d->ngroups && d->groups[g].members ? d->groups[g].size : 0;
    return *n ? d->groups[g].members : NULL;
}

void trace_defs_free(struct trace_defs *d)
{
    for (uint32_t i = 0; i < d->nstrings; i++)
        free(d->strings[i]);
    for (uint32_t g = 0; g < d->ngroups; g++)
        free(d->groups[g].members);
    free(d->strings);
    free(d->regions);
    free(d->groups);
    free(d->comms);
    free(d->locations);
    free(d->windows);
    memset(d, 0, sizeof *d);
}
