/* SPDX-License-Identifier: BSD-3-Clause */
/* sum_merge.h: what the ranks' summaries add up to, and how it travels to rank 0 (a
 * tree of radix 8, one message an edge): fixed totals, the (operation, communicator) rows
 * and the costliest call sites. Its size is bounded whatever the job's size.
 */
#ifndef SUM_MERGE_H
#define SUM_MERGE_H

#include <stdint.h>

#include "record_layout.h"
#include "sum.h"
#include "sum_sites.h"

#pragma GCC visibility push(hidden)

/* comm_size of a row: a size, or RECORD_COMM_WORLD, _NONE, _OTHER (record_layout.h: the
 * record's writer reads the code as it is) */
struct sum_op_row {
    int op, comm_size;
    uint64_t calls;
    double seconds;
};
#define SUM_MAX_ROWS 512

struct sum_totals {
    uint64_t ranks, hosts;         /* hosts: ranks that are the first of their host */
    int64_t host_min, host_max;    /* ranks per host */
    double useful_sum, useful_max; /* time outside MPI between MPI_Init and MPI_Finalize */
    double mpi_sum, mpi_max, elapsed_max;
    double sites_dropped; /* sampled seconds the ranks' site tables could not hold */
    uint64_t bins[SUM_BINS], messages[2], bytes[2];
    uint64_t rows_dropped; /* (operation, communicator) rows past SUM_MAX_ROWS */
};

struct sum_merged {
    struct sum_totals t;
    int nrows, nsites;
    struct sum_op_row rows[SUM_MAX_ROWS];
    struct sum_site_row sites[SUM_TOP_SITES];
};

/* This rank's part (after sum_stop), its call sites when SITES (naming them looks objects
 * up: not in a signal handler). */
void sum_merged_mine(struct sum_merged *m, int sites);
/* Every rank's parts merged into M on rank 0 of COMM: 1 there, 0 elsewhere. */
int sum_merge_all(MPI_Comm comm, struct sum_merged *m);

#pragma GCC visibility pop

#endif
