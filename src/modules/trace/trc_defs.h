/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_defs.h: the definitions of a trace, from each rank's own to the archive's.
 *
 * While the run goes, a rank numbers what its events name by itself: communicators,
 * windows, groups, user regions. Its "local definitions" are saved as one blob (the same
 * bytes at MPI_Finalize, sent to rank 0, and in a snapshot, DIR/partial/trace.RANK); the
 * merge gives every local id its global id (communicators as commtrack identifies them, a
 * window by its communicator and how many windows that communicator had before it, a group
 * by its members, a user region by its name). The merge runs on rank 0 at MPI_Finalize and
 * in `mpilens recover` after a run that did not reach it: one code for both.
 */
#ifndef TRC_DEFS_H
#define TRC_DEFS_H

#include <otf2/otf2.h>
#include <stddef.h>
#include <stdint.h>

#include "commtrack.h"

/* The blob's header; the body follows: ncomms lens_wire_comm, nmembers int32 (the
 * communicators' members; one more int32 if nmembers is odd), nwindows pairs of uint32 (local
 * communicator, ordinal), ngroups groups (uint64 n, then n world ranks), nnames NUL-terminated user
 * region names, nfiles MPI-IO handles (uint32 local communicator, uint32 access mode, the
 * file's NUL-terminated name). */
struct trc_defs_head {
    char magic[8];
    int32_t world_size, rank;
    uint64_t time_start, time_end; /* ns; time_end 0: not known (a snapshot) */
    int64_t offset_start, offset_end;
    /* The event log's clock (trc_now): time-stamp counter ticks if ticks, else ns. Ticks
     * read with time_start, and a (tick, ns) pair read together when this blob was written
     * (at MPI_Finalize, or at the latest save): trc_time_ns maps between them. */
    uint64_t tick_start, tick_saved, ns_saved;
    uint32_t ncomms, nmembers, nwindows, ngroups, nnames;
    uint32_t nthreads; /* threads traced: locations RANK + world_size x thread */
    uint32_t nfiles;   /* MPI-IO handles opened (then: uint32 local comm, uint32 amode, name) */
    uint32_t ticks;
    /* How far the log's clock strayed from the map through the start's and end's pairs
     * (ns, trc_clock_check; 0: not measured). */
    uint32_t clock_residual_ns;
    /* How far offset_start and offset_end may be off: half the smallest round trip of their
     * ping-pongs, the larger of the two (ns; 0 on rank 0's host, which shares its clock). */
    uint32_t offset_error_ns;
};
#define TRC_DEFS_MAGIC "TRCDEFS4"
/* T (ns, this rank's clock) on rank 0's clock: the offset (this rank's clock minus rank
 * 0's) interpolated between the start's and the end's measurement, as OTF2's readers do
 * with the ClockOffset records. */
static inline uint64_t trc_root_time(const struct trc_defs_head *h, uint64_t t)
{
    double o = (double)h->offset_start;
    if (h->time_end > h->time_start && t >= h->time_end)
        o = (double)h->offset_end;
    else if (h->time_end > h->time_start && t > h->time_start)
        o += ((double)h->offset_end - (double)h->offset_start) *
             ((double)(t - h->time_start) / (double)(h->time_end - h->time_start));
    double root = (double)t - o;
    return root > 0 ? (uint64_t)root : 0;
}

/* Nanoseconds per tick of the rank's event log (1 for a log kept in ns). */
static inline double trc_ns_per_tick(const struct trc_defs_head *h)
{
    if (!h->ticks || h->tick_saved <= h->tick_start || h->ns_saved <= h->time_start)
        return 1.0;
    return (double)(h->ns_saved - h->time_start) / (double)(h->tick_saved - h->tick_start);
}
/* An event log time T in nanoseconds (NS_PER_TICK: trc_ns_per_tick(h)). */
static inline uint64_t trc_time_ns(const struct trc_defs_head *h, double ns_per_tick, uint64_t t)
{
    if (!h->ticks)
        return t;
    /* Inside the location's start and end: the pairs' reading error (a few hundred ns
     * under load) must not put an event before MPI_Init's or after MPI_Finalize's offset. */
    int64_t ns =
        (int64_t)h->time_start + (int64_t)((double)(int64_t)(t - h->tick_start) * ns_per_tick);
    if (ns < (int64_t)h->time_start)
        ns = (int64_t)h->time_start;
    if (h->time_end && ns > (int64_t)h->time_end)
        ns = (int64_t)h->time_end;
    return (uint64_t)ns;
}
/* How many local ids a blob maps (the merge's ids: comms, windows, groups, names, files). */
static inline uint32_t trc_defs_nids(const struct trc_defs_head *h)
{
    return h->ncomms + h->nwindows + h->ngroups + h->nnames + h->nfiles;
}

/* Writes this rank's blob into FD (async-signal-safe; trc_core.c); 0 or -1. TIME_END 0:
 * unknown. */
int trc_defs_write(int fd, uint64_t time_end, int64_t offset_end);

/* What the merge made of all ranks. */
struct trc_merged {
    struct lens_comm_set comms;
    uint64_t (*windows)[2]; /* global communicator, ordinal */
    uint32_t nwindows;
    uint64_t **groups; /* [n, world ranks...] */
    uint32_t ngroups;
    char **names; /* user region j is region R_REGIONS + j */
    uint32_t nnames;
    char **files; /* MPI-IO: distinct file names (IoRegularFile j) */
    uint32_t nfiles;
    uint64_t (*handles)[2]; /* IoHandle i: file, global communicator */
    uint32_t nhandles;
    uint64_t t_min, t_max;
    /* the largest of the ranks' clock_residual_ns (trc_defs_head) */
    uint32_t clock_residual_ns;
    uint32_t offset_error_ns; /* the largest of the ranks' offset_error_ns */
    int failed;               /* out of memory while merging: the rank being merged is refused */
};

/* One rank's local ids mapped to global ones. */
struct trc_rank_map {
    struct trc_defs_head head;
    uint64_t first_extra; /* the location of its thread 1 (trc_location) */
    uint32_t *ids;        /* comms, windows, groups (index in merged), names, I/O handles */
};

/* Merges one rank's blob; fills MAP (ids malloc'ed). 0, or -1 for a damaged blob. */
int trc_defs_merge(struct trc_merged *m, const char *blob, size_t len, struct trc_rank_map *map);
void trc_merged_free(struct trc_merged *m);
/* M in the form of a rank's blob (RANK, WORLD in its head), so that a merge takes a
 * subtree's merged definitions as it takes one rank's (trc_defs_tree.c): malloc'ed, *LEN
 * bytes; NULL when out of memory. */
char *trc_merged_pack(const struct trc_merged *m, int rank, int world, size_t *len);

/* The rank's mapping tables and clock offsets into the local definitions of its thread
 * THREAD's location; FIRST_GROUP is the global id of merged group 0 (the communicators'
 * groups come first). */
void trc_defs_write_local(OTF2_Archive *archive, const struct trc_rank_map *map, uint32_t thread,
                          uint32_t first_group);
/* Location ids: thread 0 of rank r is location r; the other threads follow those of all
 * ranks, rank by rank. FIRST_EXTRA: the location of thread 1 of RANK (trc_first_extra). */
static inline uint64_t trc_location(int rank, uint32_t thread, uint64_t first_extra)
{
    return thread == 0 ? (uint64_t)rank : first_extra + thread - 1;
}
/* The location of thread 1 of RANK, given NTHREADS[q] (0 counts as 1) of each of NRANKS. */
static inline uint64_t trc_first_extra(int rank, const uint32_t *nthreads, int nranks)
{
    uint64_t l = (uint64_t)nranks;
    for (int q = 0; q < rank; q++)
        l += nthreads[q] > 1 ? nthreads[q] - 1 : 0;
    return l;
}
/* The global definitions (rank 0, or the recovery): NTHREADS[r] locations of each of the
 * NRANKS, EVENTS[location] events in each. */
void trc_defs_write_global(OTF2_Archive *archive, const struct trc_merged *m, int nranks,
                           const uint32_t *nthreads, const uint64_t *events);
/* The global id of merged group 0 in M. */
uint32_t trc_defs_first_group(const struct trc_merged *m);

#endif
