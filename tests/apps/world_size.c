/* world_size.c: the smallest MPI program: rank 0 prints "world_size: N ranks" after a
 * barrier. Used where the launch itself is under test (a wrong srun --mpi plugin makes N
 * separate 1-process jobs, each printing "1 ranks"). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("world_size: %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
