/* callsite_app.c: MPI calls from known lines, for the call-site profile: exchange() makes
 * one MPI_Sendrecv (line 12) and is called 10 times; reduce() one MPI_Allreduce (line 18),
 * called 3 times; main() one MPI_Barrier (line 31). Keep the line numbers in step with
 * tests/profile/test_callsites.sh. */
#include <mpi.h>
#include <stdio.h>

static void exchange(int rank, int size)
{
    int out = rank, in = -1, r = (rank + 1) % size, l = (rank + size - 1) % size;
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Sendrecv(&out, 1, MPI_INT, r, 0, &in, 1, MPI_INT, l, 0, w, MPI_STATUS_IGNORE);
}

static void reduce(int rank)
{
    int x = rank, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 10; i++)
        exchange(rank, size);
    for (int i = 0; i < 3; i++)
        reduce(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("callsite_app ok: %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
