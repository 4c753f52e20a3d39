/* ring.c: each rank sends 1 KiB to its right neighbour and receives from its left, then
 * a barrier and MPI_Pcontrol(1). Checks the payload, so a tool that corrupts a message
 * makes it fail. Usage: ring [ROUNDS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 1, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char out[1024], in[1024];
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < 1024; i++)
            out[i] = (char)(rank + i + r);
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        if (rank % 2 == 0) {
            MPI_Send(out, 1024, MPI_CHAR, right, r, MPI_COMM_WORLD);
            MPI_Recv(in, 1024, MPI_CHAR, left, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, 1024, MPI_CHAR, left, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(out, 1024, MPI_CHAR, right, r, MPI_COMM_WORLD);
        }
        for (int i = 0; i < 1024; i++)
            bad += in[i] != (char)(left + i + r);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1);
    int total = 0;
    MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ring %s: %d ranks, %d rounds\n", total == 0 ? "ok" : "CORRUPT", size, rounds);
    MPI_Finalize();
    return total != 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
