/* callsite_pair.c: the call-site issue's program: rank 0 sends 10 messages from line 14
 * and 20 from line 16; rank 1 receives all 30 at line 19. Keep the line numbers in step
 * with tests/profile/test_callsites.sh. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x = 7;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < 10; i++)
            MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        for (int i = 0; i < 20; i++)
            MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        for (int i = 0; i < 30; i++)
            MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("callsite_pair ok: received 30\n");
    }
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
