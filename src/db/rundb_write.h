/* SPDX-License-Identifier: BSD-3-Clause */
/* rundb_write.h: the writers' side of the run database: every table's schema and every
 * row a module (or analyze, or `mpilens run --ompi-monitoring`) writes, inside the
 * transaction of rundb_begin .. rundb_finish (rundb.h). Each put prepares its statement
 * once per transaction; a failure keeps its own text for rundb_finish. The schema of each
 * table: docs/database.md.
 */
#ifndef LENS_RUNDB_WRITE_H
#define LENS_RUNDB_WRITE_H

#include <stdint.h>

#include "rundb.h"

/* ---- shared tables ---- */

int rundb_put_metadata(struct rundb *run, const char *key, const char *value);
/* Only if KEY has no value yet. */
int rundb_put_metadata_default(struct rundb *run, const char *key, const char *value);
/* STARTUP_S: the rank's time in MPI_Init/Init_thread/Finalize. */
int rundb_put_rank(struct rundb *run, int rank, const char *host, double net_s, double mpi_s,
                   double startup_s);
int rundb_put_bucket(struct rundb *run, int bucket, int64_t min, int64_t max);
int rundb_put_operation(struct rundb *run, int id, const char *name, const char *kind);
/* A communicator by its stable NAME (kept if there) with its SIZE MEMBERS (world ranks:
 * the members column and, when new, communicator_members) and IDENTITY (NULL: unknown; what
 * a shard's communicators are matched by: rundb_detail.c), its id into *ID. */
struct rundb_comm_identity {
    int root, ordinal;
    uint64_t members_hash;
};
int rundb_put_communicator(struct rundb *run, const char *name, int size, const char *creator,
                           const int32_t *members, const struct rundb_comm_identity *identity,
                           int *id);

/* ---- the profile (module profile) ---- */

int rundb_profile_create(struct rundb *run);
int rundb_put_profile(struct rundb *run, int rank, int comm_id, int operation_id, int bucket,
                      int64_t calls, double time, double max_time, int64_t volume);
/* The profile reduced over ranks (written whatever the detail kept): one row per
 * (communicator, operation, bucket), statistics of the per-rank time over the RANKS ranks
 * that called it (seconds; the rank holding the smallest and the largest), and per call
 * site and operation over ranks (callsite_summary). */
int rundb_profile_summary_create(struct rundb *run);
struct rundb_summary_cell {
    int64_t ranks, calls, volume;
    double time, time_mean, time_var, time_min, time_max, max_time;
    int time_min_rank, time_max_rank;
};
int rundb_put_profile_summary(struct rundb *run, int comm_id, int operation_id, int bucket,
                              const struct rundb_summary_cell *c);
int rundb_put_callsite_summary(struct rundb *run, int ranks, int64_t site, int operation_id,
                               uint64_t calls, double seconds, double max_s, double min_s,
                               uint64_t volume);
int rundb_callsites_create(struct rundb *run);
/* The id of the site at OFFSET in OBJECT, or -1 if it is not written yet. */
int64_t rundb_callsite_id(struct rundb *run, const char *object, uint64_t offset);
/* A new site; its id. -1 on failure. */
int64_t rundb_put_callsite(struct rundb *run, const char *object, uint64_t offset,
                           const char *function, const char *file, int line);
int rundb_put_callsite_profile(struct rundb *run, int rank, int64_t site, int operation_id,
                               uint64_t calls, double seconds, double max_s, double min_s,
                               uint64_t volume);

/* ---- the monitor (module monitor; the library's own matrix) ---- */

int rundb_monitor_create(struct rundb *run);
int rundb_put_phase(struct rundb *run, int id, const char *name);
/* Where rank RANK ran (monitor_hosts), and HOST's hwloc synthetic topology
 * (host_topologies). */
int rundb_put_rank_host(struct rundb *run, int rank, const char *host);
int rundb_put_host_topology(struct rundb *run, const char *host, const char *topology);
int rundb_put_matrix(struct rundb *run, int phase, const char *kind, int src, int dst,
                     uint64_t messages, uint64_t bytes);
int rundb_put_histogram(struct rundb *run, int phase, int src, int dst, int bin, uint64_t messages);
/* V: one-to-all count, bytes, all-to-one count, bytes, all-to-all count, bytes. */
/* V: o2a, a2o, a2a (count and bytes), then the uniform traffic (messages and bytes to each
 * other member of the communicator), which the monitor_cells view spreads over peers. */
int rundb_put_collectives(struct rundb *run, int phase, int comm_id, int rank, const uint64_t v[8]);
/* V: reads, bytes read, writes, bytes written. */
int rundb_put_io(struct rundb *run, int phase, int rank, const char *file, const uint64_t v[4]);
/* The library's own matrix (mpilens run --ompi-monitoring): phase `run` made if missing and
 * its earlier lib_p2p/lib_coll rows dropped; then one cell of KIND at a time. */
int rundb_lib_matrix_reset(struct rundb *run);
int rundb_put_lib_matrix(struct rundb *run, const char *kind, int src, int dst, uint64_t messages,
                         uint64_t bytes);

/* ---- wait states (mpilens analyze) ---- */

/* The tables waits, wait_times and wait_intervals, made anew (an earlier analysis goes). */
int rundb_waits_create(struct rundb *run);
/* PHASE: the user region (MPI_Pcontrol), or NULL. */
int rundb_put_wait(struct rundb *run, const char *pattern, const char *region, int rank,
                   double seconds, const char *phase);
int rundb_put_wait_interval(struct rundb *run, int rank, const char *pattern, const char *region,
                            int64_t start, int64_t end);
int rundb_put_wait_time(struct rundb *run, int rank, double seconds);
/* RANK's time with PHASE (a user region) as its innermost phase, in table phase_times:
 * real, computing (outside MPI) and on analyze's ideal network, seconds. */
int rundb_put_phase_time(struct rundb *run, const char *phase, int rank, double seconds,
                         double computing, double ideal);

#endif
