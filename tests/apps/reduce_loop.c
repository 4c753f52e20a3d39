/* reduce_loop.c: 10 MPI_Reduce of 8 KiB to rank 0: with Open MPI's tuned binary-tree
 * algorithm, the library's pml-level matrix shows the tree (the placement acceptance). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double x[1024] = {0}, y[1024];
    for (int i = 0; i < 10; i++)
        MPI_Reduce(x, y, 1024, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("reduce_loop ok\n");
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
