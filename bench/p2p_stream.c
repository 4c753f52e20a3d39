/* SPDX-License-Identifier: BSD-3-Clause */
/* p2p_stream.c: point-to-point traffic for the trace and analysis benchmarks
 * (bench/analyze_speed.sh). Usage: p2p_stream stream|exchange|allreduce MESSAGES
 *  - stream: even ranks MPI_Send MESSAGES 4-byte messages to the next odd rank, which
 *    MPI_Recvs them (the sender runs ahead of the receiver);
 *  - exchange: every rank MPI_Sendrecvs with both neighbours of a ring, MESSAGES/2 times
 *    each way (MESSAGES sends per rank);
 *  - allreduce: MESSAGES MPI_Allreduce of one int on MPI_COMM_WORLD.
 * Prints "p2p_stream MODE: N operations per rank in S s" on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 2 ? atol(argv[2]) : 100000;
    const char *mode = argc > 1 ? argv[1] : "exchange";
    int stream = strcmp(mode, "stream") == 0;
    int out = rank, in = 0;
    double t0 = MPI_Wtime();
    if (stream) {
        int peer = rank % 2 == 0 ? rank + 1 : rank - 1;
        for (long i = 0; peer < size && i < n; i++) {
            if (rank % 2 == 0)
                MPI_Send(&out, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
            else
                MPI_Recv(&in, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (strcmp(mode, "allreduce") == 0) {
        for (long i = 0; i < n; i++)
            MPI_Allreduce(&out, &in, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else {
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        for (long i = 0; i < n / 2; i++) {
            MPI_Sendrecv(&out, 1, MPI_INT, right, 0, &in, 1, MPI_INT, left, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            MPI_Sendrecv(&out, 1, MPI_INT, left, 1, &in, 1, MPI_INT, right, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        }
    }
    double t = MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_stream %s: %ld operations per rank in %.3f s\n", mode, n, t);
    MPI_Finalize();
    return 0;
}
