/* SPDX-License-Identifier: BSD-3-Clause */
/* pop_run.c: one run's POP factors (pop_run.h) from its profile's time per rank, read
 * through src/db. A rank's useful time is its time between MPI_Init and MPI_Finalize less
 * its time in MPI calls; the run's length T is the longest rank's time between them. Load
 * balance = average useful time / the largest; communication efficiency = the largest / T;
 * parallel efficiency = their product = average useful time / T; the MPI share = the ranks'
 * MPI time / (ranks x T). Each factor within [0, 1] (pop_bounds.h); the replay's pair as
 * analyze stored it in *_replay.
 */
#include "pop_run.h"

#include <stdlib.h>
#include <string.h>

#include "pop_bounds.h"
#include "rundb_read.h"

struct useful {
    double max_useful, sum_useful, max_run, max_mpi, sum_mpi;
    int n, rank_useful, rank_mpi, rank_run;
};

static void add_rank(int rank, double exec, double mpi_all, double start, void *ctx)
{
    struct useful *u = ctx;
    double run = exec - start, mpi = mpi_all - start, useful = exec - mpi_all;
    if (useful < 0)
        useful = 0;
    if (u->n == 0 || useful > u->max_useful)
        u->max_useful = useful, u->rank_useful = rank;
    if (u->n == 0 || mpi > u->max_mpi)
        u->max_mpi = mpi, u->rank_mpi = rank;
    if (u->n == 0 || run > u->max_run)
        u->max_run = run, u->rank_run = rank;
    u->sum_useful += useful;
    u->sum_mpi += mpi > 0 ? mpi : 0;
    u->n++;
}

double pop_mpi_share(double mpi_seconds, int ranks, double run)
{
    return ranks > 0 && run > 0 ? pop_within_unit(mpi_seconds / (ranks * run)) : 0;
}

int pop_run_factors(sqlite3 *db, struct pop_factors *f)
{
    struct useful u;
    memset(&u, 0, sizeof u);
    memset(f, 0, sizeof *f);
    if (rundb_rank_times(db, -1, add_rank, &u) != 0 || u.n == 0 || u.max_run <= 0)
        return -1;
    double average = u.sum_useful / u.n;
    f->load_balance = pop_within_unit(u.max_useful > 0 ? average / u.max_useful : 1);
    f->communication = pop_within_unit(u.max_useful / u.max_run);
    f->parallel = f->load_balance * f->communication;
    f->average_useful = average;
    f->max_useful = u.max_useful;
    f->sum_useful = u.sum_useful;
    f->rank_useful = u.rank_useful;
    f->max_mpi = u.max_mpi;
    f->rank_mpi = u.rank_mpi;
    f->run = u.max_run;
    f->ranks = u.n;
    f->mpi_sum = u.sum_mpi;
    f->mpi_share = pop_mpi_share(u.sum_mpi, u.n, u.max_run);
    char value[64];
    f->serialization =
        rundb_metadata_get(db, "Serialization efficiency", value, sizeof value) ? atof(value) : -1;
    f->transfer =
        rundb_metadata_get(db, "Transfer efficiency", value, sizeof value) ? atof(value) : -1;
    f->serialization_replay = f->serialization;
    f->transfer_replay = f->transfer;
    pop_replay_within(&f->serialization, &f->transfer);
    return 0;
}
