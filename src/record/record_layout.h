/* SPDX-License-Identifier: BSD-3-Clause */
/* record_layout.h: the one writer of a summary.json record's layout (docs/summary.md), for
 * both of its makers: the summary module (from its merged figures, possibly in a signal
 * handler: nothing here allocates) and `mpilens run` (from a run's profile,
 * summary_of_run.h). Each maker fills the neutral figures below; the order of the fields,
 * their names, the top five and the top twenty are decided here alone.
 */
#ifndef RECORD_LAYOUT_H
#define RECORD_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "record_text.h"

#pragma GCC visibility push(hidden)

#define RECORD_SCHEMA_VERSION 1
#define RECORD_MAX 16384 /* bytes, whatever the job's size */
#define RECORD_TOP 5     /* operation-communicator pairs and call sites named */

/* comm_size of an operation row: a communicator's size, or one of these */
enum { RECORD_COMM_WORLD = -1, RECORD_COMM_NONE = 0, RECORD_COMM_OTHER = -2 };

/* One (operation, communicator) pair, summed over the ranks. */
struct record_op {
    const char *name; /* "MPI_Send" */
    int comm_size;
    uint64_t calls;
    double seconds;
};

/* One message-size bucket: messages of MIN to MAX bytes. */
struct record_bin {
    uint64_t min, max, messages;
};

struct record_facts {
    const char *source; /* "profile"; NULL for the module's own record (no "source") */
    /* who and what ran */
    const char *user;
    long long uid;
    const char *run_id;                   /* the run's identifier (hex), unique to it; NULL: none */
    const char *path, *build_id, *script; /* "" or NULL: null */
    const char *library, *standard;
    /* where */
    int ranks;
    uint64_t ranks_measured, nodes;
    int64_t ranks_per_node_min, ranks_per_node_max;
    const char *first_host;
    /* when, and the times */
    double start, end; /* seconds since the epoch */
    double run_seconds;
    const char *clock; /* "tsc", "tsc-varying-rate", "monotonic" */
    double mpi_seconds, mpi_share, load_balance, communication_efficiency, parallel_efficiency;
    /* the pairs, sorted here by seconds (the caller's array); SCRATCH holds NPAIRS more */
    struct record_op *pairs, *scratch;
    int npairs;
    /* the call sites' elements, written by the maker with record_layout_site */
    void (*sites)(struct record_text *j, void *ctx);
    void *sites_ctx;
    /* point-to-point sends: within and between hosts unless !split_known (null) */
    uint64_t messages, bytes;
    int split_known;
    uint64_t within_messages, within_bytes, between_messages, between_bytes;
    const struct record_bin *bins; /* by size, empty ones left out */
    int nbins;
    double sites_unsampled_seconds;
    uint64_t rows_dropped;
    const char *ended; /* "MPI_Finalize", "signal 15", ... */
};

/* The record of F into TEXT (CAP bytes, at most RECORD_MAX); 0, or -1 if it does not fit. */
int record_layout_write(const struct record_facts *f, char *text, size_t cap);
/* One element of "top_call_sites" (inside F->sites): OBJECT "python:..." is written null. */
void record_layout_site(struct record_text *j, const char *operation, const char *file, int line,
                        const char *function, const char *object, double seconds);

#pragma GCC visibility pop

#endif
