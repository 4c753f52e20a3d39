/* SPDX-License-Identifier: BSD-3-Clause */
/* prof_summary.h: the profile reduced over ranks while it merges (prof_summary.c): one row
 * per (communicator, operation, bucket) whatever the number of ranks, so that rank 0
 * receives O(communicators x operations x buckets), not O(ranks x ...).
 */
#ifndef PROF_SUMMARY_H
#define PROF_SUMMARY_H

#include <mpi.h>
#include <stdint.h>

#include "prof_merge.h"

/* A cell over the ranks that called it: sums, the per-rank time's mean and sum of squared
 * deviations (combined as Chan et al.: exact whatever the merge order, up to rounding), the
 * smallest and largest per-rank time with the rank holding it (the lower rank on a tie, so
 * the result does not depend on the tree), and the longest single call. Times in ns. */
struct summary_row {
    int32_t comm; /* index into the summary's comms */
    int16_t op, bucket;
    uint32_t ranks;
    int32_t min_rank, max_rank, spare;
    uint64_t calls, volume;
    double time_ns, mean_ns, m2_ns, min_ns, max_ns, longest_ns;
};

struct prof_summary {
    struct wire_rank *ranks; /* every rank's own line (the ranks table: one row a rank) */
    size_t nranks;
    struct summary_row *rows;
    size_t nrows;
    struct lens_comm_set comms;
};

/* SET's rows reduced into OUT (its ranks and communicators copied). 0, or -1 (said). */
int prof_summary_of_set(struct prof_summary *out, const struct profile_set *set);
/* Reduces every rank's summary into rank 0's along a binomial tree over COMM: 1 on rank 0. */
int prof_summary_tree_merge(struct prof_summary *summary, MPI_Comm comm);
void prof_summary_free(struct prof_summary *summary);

#endif
