/* SPDX-License-Identifier: BSD-3-Clause */
/* pop_run.h: the POP factors of one run (docs/efficiency.md), from the profile in its
 * database: useful time per rank (between MPI_Init and MPI_Finalize, outside MPI), the
 * run's length, load balance, communication and parallel efficiency, and, once `mpilens
 * analyze` replayed its trace, serialization and transfer efficiency. The report, the
 * page, diff and the scaling table read one run through it.
 */
#ifndef LENS_POP_RUN_H
#define LENS_POP_RUN_H

#include <sqlite3.h>

struct pop_factors {
    double parallel, load_balance, communication;
    /* the MPI share, one definition for every view (docs/efficiency.md, The MPI share): the
     * ranks' MPI time (MPI_Init and MPI_Finalize outside) over ranks x the run's length;
     * MPI_SUM that time in seconds */
    double mpi_share, mpi_sum;
    double average_useful, max_useful, sum_useful, max_mpi, run; /* seconds */
    /* from `mpilens analyze`'s replay on an ideal network, within [0, 1] (pop_bounds.h);
     * -1: not analyzed. *_replay: as the replay measured them (a transfer efficiency
     * above 1 is an ideal run longer than the real one) */
    double serialization, transfer, serialization_replay, transfer_replay;
    int rank_useful, rank_mpi, ranks;
};

/* The MPI share of MPI_SECONDS (summed over RANKS ranks, Init and Finalize outside) in a
 * run of length RUN (the longest rank's, MPI_Init to MPI_Finalize): MPI_SECONDS / (RANKS x
 * RUN), within [0, 1]. A rank's share: pop_mpi_share(its MPI time, 1, RUN). */
double pop_mpi_share(double mpi_seconds, int ranks, double run);
/* F from DB's profile; 0, or -1 when the profile has no rank times. */
int pop_run_factors(sqlite3 *db, struct pop_factors *f);

#endif
