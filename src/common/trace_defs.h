/* SPDX-License-Identifier: BSD-3-Clause */
/* trace_defs.h: one reader of a trace's global definitions for `mpilens export` and
 * mpilens-analyze: tables indexed by OTF2's ids (dense in the traces mpilens writes),
 * grown as definitions arrive; an id at or above TRACE_DEFS_MAX_ID is taken for corruption
 * (the reader stops).
 */
#ifndef TRACE_DEFS_H
#define TRACE_DEFS_H

#include <otf2/otf2.h>
#include <stdint.h>

#define TRACE_DEFS_MAX_ID (1u << 24)

/* The attributes the trace module defines (OTF2 attribute ids): a NonBlockingCollectiveRequest
 * event names its collective (OTF2_CollectiveOp), communicator and root, which OTF2's event
 * itself leaves to the completion. */
enum { TRACE_ATTR_NBC_COMM, TRACE_ATTR_NBC_OP, TRACE_ATTR_NBC_ROOT, TRACE_ATTRS };

struct trace_region {
    uint32_t name; /* string id */
    OTF2_Paradigm paradigm;
    int defined;
};
struct trace_group {
    uint64_t *members; /* world ranks (or locations) */
    uint32_t size;
};
struct trace_comm {
    uint32_t name, group;
    int defined;
};
struct trace_location {
    uint32_t name;
    uint64_t group; /* the location group: the rank */
    int defined;
};
struct trace_window {
    uint32_t comm;
    int defined;
};

struct trace_defs {
    char **strings;
    struct trace_region *regions;
    struct trace_group *groups;
    struct trace_comm *comms;
    struct trace_location *locations;
    struct trace_window *windows;
    /* 1 + the largest id defined, and the tables' capacities */
    uint32_t nstrings, nregions, ngroups, ncomms, nlocations, nwindows;
    uint32_t strings_cap, regions_cap, groups_cap, comms_cap, locations_cap, windows_cap;
    uint64_t clock_resolution, clock_offset, clock_length;
};

/* Reads READER's global definitions into D (zeroed first); *READ: how many. 0, or -1 if
 * they are truncated or corrupt. */
int trace_defs_read(OTF2_Reader *reader, struct trace_defs *d, uint64_t *read);
/* String ID, or "" if it is not defined. */
const char *trace_defs_string(const struct trace_defs *d, uint32_t id);
/* The members of group G and their number in *N; NULL if G is not defined. */
const uint64_t *trace_defs_group(const struct trace_defs *d, uint32_t g, uint32_t *n);
void trace_defs_free(struct trace_defs *d);

/* Makes (*table)[id] exist (zeroed), doubling the capacity *cap; 0, or -1 if id is at or
 * beyond TRACE_DEFS_MAX_ID or memory ran out. */
int trace_defs_ensure(void **table, uint32_t *cap, uint32_t id, size_t elem);
#define TRACE_DEFS_ENSURE(table, cap, id)                                                          \
    trace_defs_ensure((void **)&(table), &(cap), (id), sizeof *(table))

#endif
