/* efficiency_app.c: programs of known POP efficiencies (docs/efficiency.md). "Computing"
 * is sleeping outside MPI, so that it lasts as long on a loaded machine.
 *   imbalance: 8 rounds; rank 0 computes 2 x 100 ms, the others 100 ms, then MPI_Barrier:
 *              load balance (2 + 1 + ... + 1) / (p x 2) (0.625 on 4 ranks), communication
 *              efficiency near 1;
 *   chain:     3 rounds of a token around the ranks; each rank waits for it from the left,
 *              computes 100 ms and passes it on: every rank the same work (load balance 1),
 *              one computing at a time (communication efficiency near 1/p).
 *   phases:    both, each in an MPI_Pcontrol user region of its name (the trace's phases,
 *              whose efficiencies `mpilens analyze` gives one by one).
 * Prints "efficiency_app MODE ok".
 */
#include <mpi.h>
#include <mpilens.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void compute(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}

static void chain(int rank, int size)
{
    int token = 0, left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (int round = 0; round < 3; round++) {
        if (rank != 0 || round > 0)
            MPI_Recv(&token, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        compute(100);
        token++;
        if (rank != size - 1 || round < 2)
            MPI_Send(&token, 1, MPI_INT, right, 0, MPI_COMM_WORLD);
    }
}

static void imbalance(int rank)
{
    for (int round = 0; round < 8; round++) {
        compute(rank == 0 ? 200 : 100);
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "imbalance";
    int phases = strcmp(mode, "phases") == 0;
    if (phases || strcmp(mode, "imbalance") == 0) {
        if (phases) /* a named user region: the trace's phase (nothing without it) */
            mpilens_trace_region("imbalance"), MPI_Pcontrol(1);
        imbalance(rank);
        if (phases)
            MPI_Pcontrol(0);
    }
    if (phases || strcmp(mode, "chain") == 0) {
        if (phases) /* a named user region: the trace's phase (nothing without it) */
            mpilens_trace_region("chain"), MPI_Pcontrol(1);
        chain(rank, size);
        if (phases)
            MPI_Pcontrol(0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("efficiency_app %s ok\n", mode);
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
