/* prof.h: the profile module's state and helpers, shared by its files.
 *
 * The profile module is a PMPI tool (it works stacked by mpilens or preloaded alone). For
 * every communicator it keeps, per operation and send-buffer-size bucket, the number of
 * calls, total and maximum time and volume of this rank (struct lens_comm). At
 * MPI_Finalize the ranks merge their records along a binomial tree and rank 0 writes the
 * run database (prof_merge.c, prof_db.c). Counters are updated with atomics, so the module
 * is correct under MPI_THREAD_MULTIPLE.
 */
#ifndef PROF_H
#define PROF_H

#include <mpi.h>
#include <mpilens.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "commtrack.h"
#include "prof_op_ids.h"

#include "prof_buckets.h" /* PROF_MAX_BUCKETS */
#define PROF_MAX_OPS 256

struct prof_op {
    const char *name; /* without the MPI_ prefix, as mpisee names it */
    const char *kind; /* p2p, coll, rma, io */
    int vw;           /* [v,w] operation: always the first bucket */
};
extern const int prof_op_count;
extern const struct prof_op prof_ops[];

struct prof_cell {
    uint64_t calls, time_ticks, max_ticks, volume;
};

/* The profile's data in a communicator record (commtrack.h payload). */
struct prof_rows {
    struct prof_cell *_Atomic rows[PROF_MAX_OPS]; /* per operation, lazily: nbuckets cells */
};

/* Names the generated wrappers use. */
#define prof_comm lens_comm
#define prof_win lens_comm_of_win
#define prof_mixed lens_comm_mixed

extern int prof_on;                           /* recording (between MPI_Init and MPI_Finalize) */
extern int prof_threaded;                     /* MPI_THREAD_MULTIPLE: update counters atomically */
extern int prof_nbuckets;                     /* bounds + 1 */
extern int64_t prof_bounds[PROF_MAX_BUCKETS]; /* upper bounds (inclusive) of buckets */
extern struct lens_comm *prof_all;            /* list of all records */

/* Timestamps are clock ticks: the CPU's time-stamp counter where it runs at a constant
 * rate (x86-64 with constant_tsc: ~8 ns cheaper a call than clock_gettime), nanoseconds
 * otherwise. prof_run.c measures ticks per second over the whole run and converts once,
 * when the profile is collected. */
extern int prof_use_tsc;
static inline uint64_t prof_now(void)
{
#if defined(__x86_64__)
    if (prof_use_tsc)
        return __builtin_ia32_rdtsc();
#endif
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
extern double prof_seconds_per_tick; /* set at MPI_Finalize */
void prof_clock_start(void);         /* at MPI_Init, before the first prof_now() */
void prof_clock_stop(void);          /* at MPI_Finalize: calibrates prof_seconds_per_tick */

/* prof_core.c */
void prof_setup(void);                      /* buckets from MPILENS_BUCKETS; 0 or -1 */
struct lens_comm *prof_comm(MPI_Comm comm); /* the record of comm (registered on demand) */
struct lens_comm *prof_mixed(void);         /* the marked entry for mixed request arrays */
struct lens_comm *prof_register(MPI_Comm comm, char letter, const struct lens_comm *like);
void prof_forget(MPI_Comm comm); /* after MPI_Comm_free: the record stays */
void prof_add(struct lens_comm *rec, int op, uint64_t bytes, int vw, uint64_t ticks);
uint64_t prof_bytes(int64_t count, MPI_Datatype type);
/* Bytes a receive got: from the status if there is one, else the posted count. */
uint64_t prof_received(const MPI_Status *status, int count, MPI_Datatype type);
uint64_t prof_sum_counts(const int counts[], MPI_Datatype type, int n);
uint64_t prof_sum_w(const int counts[], const MPI_Datatype types[], int n);
/* The same for the large-count bindings (MPI_Count arrays). */
uint64_t prof_sum_counts_c(const MPI_Count counts[], MPI_Datatype type, int n);
uint64_t prof_sum_w_c(const MPI_Count counts[], const MPI_Datatype types[], int n);
int prof_rank(MPI_Comm comm);
int prof_size(MPI_Comm comm);
int prof_outdegree(MPI_Comm comm);
extern uint64_t prof_mpi_ticks;   /* time inside MPI on this rank (atomic adds) */
extern uint64_t prof_start_ticks; /* prof_now() at the start of MPI_Init */

/* prof_sites.c: the profile by call site (the application's return address). */
void prof_site_add(void *site, int op, uint64_t bytes, uint64_t ticks);
/* At MPI_Finalize, collective over COMM: rank 0 names the sites and writes them into DIR. */
void prof_sites_finish(MPI_Comm comm, const char *dir);
/* The application's call site of the call being made (read at a wrapper's start). */
static inline void *prof_caller(void)
{
    return mpilens_caller ? mpilens_caller() : __builtin_return_address(0);
}

/* prof_snapshot.c: this rank's profile saved however the rank ends (snapshot.h) */
void prof_snapshot_install(int rank, int size);

/* Files remember the communicator they were opened on (prof_files.c). */
struct lens_comm *prof_file(MPI_File fh);

/* prof_requests.c: requests remember their communicator (and bytes, for Start) */
void prof_request_remember(MPI_Request *where, struct lens_comm *rec, uint64_t bytes,
                           int persistent);

/* prof_finalize.c, prof_db.c */
int prof_write_database(const char *path, const void *merged, size_t size, double wall);

#endif
