/* SPDX-License-Identifier: BSD-3-Clause */
/* comm_churn.c: communicators created and freed in a loop, as libraries that duplicate their
 * communicator per call do. Usage: comm_churn KIND ROUNDS [CHECKPOINT [TRAFFIC]]
 *   KIND: dup, split (every other round the odd ranks pass MPI_UNDEFINED), create_group,
 *         idup, cart (a periodic 1-D cartesian communicator)
 * With TRAFFIC (argument 4, 1) each communicator carries one MPI_Allreduce before it is
 * freed, so the modules keep its data (bench/snapshot_cost.sh uses that).
 * Rank 0 prints "comm_churn KIND rounds=N seconds=S rss_kb=K" (K: the largest peak RSS of
 * any rank, from getrusage), and with CHECKPOINT also the time of the first CHECKPOINT
 * rounds and of the last CHECKPOINT rounds ("first_s=... last_s=..."), so one run shows
 * whether a round costs more after many were made.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static int traffic;

static void one_round(const char *kind, int round, int rank, MPI_Group world_group)
{
    MPI_Comm comm = MPI_COMM_NULL;
    if (strcmp(kind, "dup") == 0)
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    else if (strcmp(kind, "split") == 0)
        MPI_Comm_split(MPI_COMM_WORLD, round % 2 && rank % 2 ? MPI_UNDEFINED : 0, rank, &comm);
    else if (strcmp(kind, "create_group") == 0)
        MPI_Comm_create_group(MPI_COMM_WORLD, world_group, 7, &comm);
    else if (strcmp(kind, "idup") == 0) {
        MPI_Request req;
        MPI_Comm_idup(MPI_COMM_WORLD, &comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else if (strcmp(kind, "cart") == 0) {
        int size, periodic = 1;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        MPI_Cart_create(MPI_COMM_WORLD, 1, &size, &periodic, 0, &comm);
    } else {
        fprintf(stderr, "comm_churn: unknown kind '%s' (dup, split, create_group, idup, cart)\n",
                kind);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (comm != MPI_COMM_NULL && traffic) {
        int one = 1, sum;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
    }
    if (comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *kind = argc > 1 ? argv[1] : "dup";
    int rounds = argc > 2 ? atoi(argv[2]) : 1000;
    int checkpoint = argc > 3 ? atoi(argv[3]) : 0;
    traffic = argc > 4 && atoi(argv[4]) == 1;
    MPI_Group world_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), first = 0, last_start = 0;
    for (int r = 0; r < rounds; r++) {
        if (checkpoint && r == rounds - checkpoint)
            last_start = MPI_Wtime();
        one_round(kind, r, rank, world_group);
        if (checkpoint && r == checkpoint - 1)
            first = MPI_Wtime() - t0;
    }
    double seconds = MPI_Wtime() - t0, last = MPI_Wtime() - last_start;
    MPI_Group_free(&world_group);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long rss = ru.ru_maxrss, max_rss = 0;
    MPI_Reduce(&rss, &max_rss, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("comm_churn %s rounds=%d seconds=%.4f rss_kb=%ld", kind, rounds, seconds, max_rss);
        if (checkpoint)
            printf(" first_s=%.4f last_s=%.4f", first, last);
        printf("\n");
    }
    MPI_Finalize();
    return 0;
}
