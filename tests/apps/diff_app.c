/* diff_app.c: the program of the `mpilens diff` tests (4 ranks or more; the tests use 6).
 * First a ring of 1 KiB messages on the world (2 rounds) toward rank + SHIFT, then ITER
 * rounds (argument 1, default 10) in which every rank computes 10 ms and calls MPI_Allreduce
 * on its sub-communicator (ranks 0-3, 4-7, ...; the last one smaller when 4 does not divide
 * the ranks). Nothing else is shared between
 * the sub-communicators until MPI_Finalize, so a delay in one stays there.
 * Argument 2: "late": the second rank of the last whole sub-communicator of 4 (rank 1 of
 * 6, rank 5 of 8) arrives 20 ms late at each of its Allreduce calls (the others compute as
 * before); "shift": the ring sends to rank + 2 instead of rank + 1
 * (another placement of the ring's traffic). Rank 0 prints "diff_app ok" at the end.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, iterations = argc > 1 ? atoi(argv[1]) : 10;
    const char *mode = argc > 2 ? argv[2] : "";
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int shift = strcmp(mode, "shift") == 0 ? 2 : 1;
    char out[1024] = {0}, in[1024];
    for (int round = 0; round < 2; round++)
        MPI_Sendrecv(out, sizeof out, MPI_CHAR, (rank + shift) % size, 0, in, sizeof in, MPI_CHAR,
                     (rank + size - shift) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Comm quarter;
    MPI_Comm_split(MPI_COMM_WORLD, rank / 4, rank, &quarter);
    int late = strcmp(mode, "late") == 0 && rank == (size / 4 - 1) * 4 + 1;
    for (int i = 0; i < iterations; i++) {
        usleep(late ? 30000 : 10000);
        double x = rank, sum;
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, quarter);
    }
    MPI_Comm_free(&quarter);
    if (rank == 0)
        printf("diff_app ok\n");
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
