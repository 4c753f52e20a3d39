/* tune_app.c: a program whose MPI time is Allreduce and Alltoall at two message sizes each
 * (tests/tune/test_tune.sh): ROUNDS rounds (argument, default 200) of an Allreduce of 8
 * bytes and of 64 KiB, and an Alltoall of 64 bytes and of 4 KiB to every rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 200;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double small = rank, small_sum, *big = calloc(8192, sizeof *big), *big_sum = calloc(8192, 8);
    char *out = calloc((size_t)size, 4096), *in = calloc((size_t)size, 4096);
    for (int r = 0; r < rounds; r++) {
        MPI_Allreduce(&small, &small_sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(big, big_sum, 8192, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Alltoall(out, 64, MPI_BYTE, in, 64, MPI_BYTE, MPI_COMM_WORLD);
        MPI_Alltoall(out, 4096, MPI_BYTE, in, 4096, MPI_BYTE, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("tune_app ok: %d ranks, %d rounds, sum %g\n", size, rounds, small_sum);
    free(big), free(big_sum), free(out), free(in);
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
