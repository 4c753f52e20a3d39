/* SPDX-License-Identifier: BSD-3-Clause */
/* rundb_read.h: what the readers of a run database ask of it (the CLI's verbs now, the
 * coming diff, live view and Python package next): the profile's cells, the monitor's
 * matrix, its kinds and phases, metadata, and which tables hold rows. Every filter is a
 * bound parameter; the SQL lives in src/db only. Schema: docs/database.md.
 */
#ifndef LENS_RUNDB_READ_H
#define LENS_RUNDB_READ_H

#include <sqlite3.h>
#include <stddef.h>

/* ---- the handle ---- */

/* Closes a database opened by rundb_open_read (NULL: nothing). */
void rundb_close(sqlite3 *db);
/* The text of DB's last error. */
const char *rundb_errmsg(sqlite3 *db);
/* The file DB was opened from. */
const char *rundb_path(sqlite3 *db);

/* ---- metadata and tables ---- */

/* 1 with OUT the metadata value of KEY, 0 if the database has none. */
int rundb_metadata_get(sqlite3 *db, const char *key, char *out, size_t len);
/* 1 if the database has TABLE with at least one row. */
int rundb_table_has_rows(sqlite3 *db, const char *table);

/* ---- where the profile's per-rank rows are (rundb_detail.c) ---- */

#define RUNDB_DETAIL_DIR "profile-detail"
enum rundb_detail {
    RUNDB_DETAIL_RANKS,   /* every rank's rows in this database (mpisee's schema) */
    RUNDB_DETAIL_SHARDS,  /* in DIR/profile-detail/ranks-FIRST.db, *SHARD_RANKS ranks each */
    RUNDB_DETAIL_SUMMARY, /* reduced over ranks only */
};
enum rundb_detail rundb_detail_kind(sqlite3 *db, int *shard_ranks);
/* The shard file of RANK, relative to the run directory. */
void rundb_shard_file(int rank, int shard_ranks, char *out, size_t len);
/* The database holding RANK's own rows into *OUT: DB itself, or its shard opened read-only
 * (close it with rundb_detail_done). 0, or -1 with a one-line ERR (no per-rank rows kept,
 * a shard missing or damaged). */
int rundb_detail_open(sqlite3 *db, int rank, sqlite3 **out, char *err, size_t errlen);
/* The same for the readers below (RANK < 0: DB itself); the error goes to rundb_errmsg. */
int rundb_detail_use(sqlite3 *db, int rank, sqlite3 **out);
void rundb_detail_done(sqlite3 *db, sqlite3 *detail);
const char *rundb_detail_error(void);
/* 1 when the profile is there only reduced over ranks (its rows are in shards or not kept). */
int rundb_profile_summarized(sqlite3 *db);
/* 1 when the profile module wrote this database (rows or summary). */
int rundb_profile_has_rows(sqlite3 *db);

/* ---- the profile (module profile) ---- */

/* Per rank (or only RANK, unless -1), in rank order: its time from MPI_Init to MPI_Finalize
 * (EXEC), in MPI calls (MPI, MPI_Init's included), and in MPI_Init/Init_thread/Finalize
 * (STARTUP, from the profile's rows). 0, or -1. */
int rundb_rank_times(sqlite3 *db, int rank,
                     void (*each)(int rank, double exec, double mpi, double startup, void *ctx),
                     void *ctx);

/* Which cells: NULL / -1 for "any"; SORT "time" (default), "calls" or "volume"; TOP > 0:
 * the TOP largest cells over all communicators, else every cell grouped by communicator
 * (by volume, as mpisee-through). */
struct rundb_profile_filter {
    const char *comm, *op, *kind, *sort;
    int rank, bucket, top; /* TOP: the largest cells of the program's calls (MPI_Init and
                            * MPI_Finalize left out unless OP names one) */
};

/* One (communicator, operation, bucket) cell, aggregated over the selected ranks. Calls
 * are counted as mpisee-through counts them: summed over ranks (a Sendrecv halved: one
 * exchange, two calls), a collective divided by the communicator's size, unless one rank
 * is selected. */
struct rundb_profile_cell {
    char comm[64], members[256], op[48], kind[8];
    int comm_size, bucket;
    long long bucket_min, bucket_max, calls, volume;
    double max_time, avg_time, total_time; /* a rank's total time in the cell: largest,
                                            * average, sum over ranks */
    double longest;                        /* the longest single call */
};

/* The cells F selects (malloc'ed *CELLS, *COUNT of them). 0, or -1. */
int rundb_profile_cells(sqlite3 *db, const struct rundb_profile_filter *f,
                        struct rundb_profile_cell **cells, int *count);

/* One (communicator, operation, bucket) of the profile summed over every rank, for
 * comparing runs (mpilens diff): the communicator's stable name, size and creator. */
struct rundb_profile_total {
    const char *comm, *creator, *op, *kind;
    int comm_size, bucket;
    long long bucket_min, bucket_max, calls, volume;
    double time, max_time; /* summed over ranks; one rank's largest */
};
/* Calls EACH for every (communicator, operation, bucket) of the profile. 0, or -1. */
int rundb_profile_totals(sqlite3 *db, void (*each)(const struct rundb_profile_total *t, void *ctx),
                         void *ctx);

/* ---- the profile by call site (module profile) ---- */

/* One (call site, operation) of the profile, summed over ranks or of one rank. FUNCTION and
 * FILE are NULL where the debug information had none. */
struct rundb_callsite {
    int id, line;
    const char *function, *file, *operation, *object;
    long long calls, bytes;
    double time, max_call, min_call;
};
/* Which calls: the program's communication (MPI_Init, MPI_Init_thread and MPI_Finalize
 * left out: the library's start-up and end, outside the run, never ranked among the
 * program's calls), those three alone, or all. */
enum rundb_calls { RUNDB_PROGRAM_CALLS, RUNDB_STARTUP_CALLS, RUNDB_ALL_CALLS };
#define RUNDB_STARTUP_OPS "('Init', 'Init_thread', 'Finalize')" /* operations.operation */
/* 1 when OP (an operation's name without MPI_) is one of RUNDB_STARTUP_OPS: the readers
 * leave it out of the MPI time, as the report's MPI share does. */
int rundb_startup_op(const char *op);
/* The MPI time recorded at call sites (of WHICH calls), summed over ranks or of RANK
 * (unless -1). */
double rundb_callsites_time(sqlite3 *db, int rank, enum rundb_calls which);
/* The LIMIT sites (of WHICH calls) with the most time (sites that differ only by address
 * are one), largest first. 0, or -1. */
int rundb_callsites_top(sqlite3 *db, int rank, int limit, enum rundb_calls which,
                        void (*each)(const struct rundb_callsite *site, void *ctx), void *ctx);

/* ---- the monitor's matrix (module monitor) ---- */

/* Whether the run has a communication matrix with a cell (the monitor_cells view of the
 * stored cells and the uniform collectives, or an older database's monitor_matrix). */
int rundb_matrix_has_cells(sqlite3 *db);
/* The ranks of the run: its metadata's `Processes`, or one more than the largest rank in
 * the matrix. */
int rundb_matrix_ranks(sqlite3 *db);
/* Where the ranks ran (monitor_hosts): the distinct hosts in the order of their first rank
 * into HOSTS (at most MAX), rank 0's host's hwloc synthetic topology into TOPOLOGY ("" if
 * not recorded), and in *SAME 1 when every host recorded the same one. The number of
 * hosts (0: a database without hosts). */
int rundb_run_hosts(sqlite3 *db, char (*hosts)[64], int max, char *topology, size_t len, int *same);
/* The hosts the ranks ran on, with their ranks ("node1 (ranks 0-1), node2 (ranks 2-3)"), in
 * the order of their first rank,
 * from the profile's ranks table, else the monitor's monitor_hosts, into OUT; the number of
 * hosts (0: none recorded). */
int rundb_host_summary(sqlite3 *db, char *out, size_t len);
/* Calls EACH for every host with its number of ranks, in the order of its first rank (from
 * the same table as rundb_host_summary); the number of hosts (0: none recorded), or -1. */
int rundb_host_counts(sqlite3 *db, void (*each)(const char *host, int ranks, void *ctx), void *ctx);
/* For each communicator of more than one rank and fewer than all (by id): its name, size,
 * and its members' mean and largest useful time (profile: net_time - mpi_time, seconds).
 * 0, or -1. */
int rundb_comm_useful(sqlite3 *db,
                      void (*each)(const char *comm, int size, double mean, double max, void *ctx),
                      void *ctx);
/* Each rank's host index (in rundb_run_hosts' order) into HOST_OF[rank] for ranks < N (-1:
 * not recorded). 0, or -1. */
int rundb_rank_hosts(sqlite3 *db, int *host_of, int n);
/* The kinds with traffic ("coll, io, p2p") into OUT; how many. */
int rundb_matrix_kinds(sqlite3 *db, char *out, size_t len);
/* 1 if the monitor recorded a phase named PHASE. */
int rundb_matrix_phase_exists(sqlite3 *db, const char *phase);
/* Calls EACH for every (src, dst) cell of KIND ("all": p2p, coll and rma) summed over the
 * phases, or of PHASE (unless NULL). 0, or -1 with ERR. */
int rundb_matrix_cells(sqlite3 *db, const char *kind, const char *phase,
                       void (*each)(int src, int dst, long long messages, long long bytes,
                                    void *ctx),
                       void *ctx, char *err, size_t errlen);

/* SRC's point-to-point sizes: per (destination, bin) the messages of PHASE (NULL: all), by
 * destination and bin (bin 0: 0 bytes; bin b: 2^(b-1) to 2^b - 1). 0, or -1. */
int rundb_histogram_of(sqlite3 *db, int src, const char *phase,
                       void (*each)(int dst, int bin, long long messages, void *ctx), void *ctx);
/* The 66 bins of SRC toward DST (zeros where none). */
void rundb_histogram_bins(sqlite3 *db, int src, int dst, const char *phase, long long bins[66]);
/* SRC's cells of KIND toward each destination, by destination. 0, or -1. */
int rundb_matrix_peers(sqlite3 *db, int src, const char *kind, const char *phase,
                       void (*each)(int dst, long long bytes, long long messages, void *ctx),
                       void *ctx);
/* MPI-IO per (rank, file), by file and rank. 0, or -1. */
struct rundb_io {
    int rank;
    const char *file;
    long long reads, bytes_read, writes, bytes_written;
};
int rundb_io_rows(sqlite3 *db, const char *phase,
                  void (*each)(const struct rundb_io *row, void *ctx), void *ctx);
/* The communicators with collectives at RANK (and W0.0 always), by name: their members and
 * V = {one-to-all count, bytes, all-to-one count, bytes, all-to-all count, bytes}. */
int rundb_collectives_of(sqlite3 *db, int rank, const char *phase,
                         void (*each)(const char *name, const char *members, const long long v[6],
                                      void *ctx),
                         void *ctx);

/* ---- wait states (mpilens analyze) ---- */

/* The time summed over ranks (or of RANK, unless -1) in table wait_times. */
double rundb_waits_total(sqlite3 *db, int rank);
/* The seconds of the patterns PATTERNS ("Late Sender|Late Receiver") summed. */
double rundb_waits_sum(sqlite3 *db, const char *patterns, int rank);
/* The LIMIT largest (pattern, region, rank) cells but pattern MPI. 0, or -1. */
int rundb_waits_top(sqlite3 *db, int rank, int limit,
                    void (*each)(const char *pattern, const char *region, int rank, double seconds,
                                 void *ctx),
                    void *ctx);
/* Per user region (phase) and rank, in the order analyze wrote them (tables phase_times,
 * waits): the time the phase was the rank's innermost one, its MPI time there, its
 * computing there and its time on analyze's ideal network, seconds. 0 (no rows when the
 * run was analyzed before phase_times existed), or -1. */
struct rundb_phase_rank {
    const char *phase;
    int rank;
    double seconds, mpi, computing, ideal;
};
int rundb_phase_useful(sqlite3 *db, void (*each)(const struct rundb_phase_rank *row, void *ctx),
                       void *ctx);
/* Per user region (MPI_Pcontrol phase): MPI time and waiting time (the top-level patterns),
 * largest waiting first. 0, or -1. */
int rundb_waits_by_phase(sqlite3 *db, int rank,
                         void (*each)(const char *phase, double mpi, double waiting, void *ctx),
                         void *ctx);
/* Per top-level pattern (not MPI, Early Fence, Late Complete): seconds, largest first. */
int rundb_waits_by_pattern(sqlite3 *db, int rank,
                           void (*each)(const char *pattern, double seconds, void *ctx), void *ctx);

/* Every wait interval the analysis kept (table wait_intervals; none without it): rank,
 * pattern, region, and its start and end in the trace's clock (ns). 0, or -1. */
int rundb_wait_intervals(sqlite3 *db,
                         void (*each)(int rank, const char *pattern, const char *region,
                                      long long start, long long end, void *ctx),
                         void *ctx);

#endif
