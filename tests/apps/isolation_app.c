/* isolation_app.c: communication on several communicators for the isolation tests (4 ranks):
 * a duplicate of world, world split in halves, 20 rounds of a 512-byte MPI_Sendrecv ring on
 * each half plus an MPI_Allreduce on the duplicate, one MPI_Bcast on world, an
 * intercommunicator between the halves (one message across, an MPI_Barrier), and a
 * duplicate used and freed before the end. Every module stacked or alone must record
 * exactly this.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, errors = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm dup, half, inter, temp;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half);
    int hrank, hsize;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    char out[512], in[512];
    for (int round = 0; round < 20; round++) {
        memset(out, rank + round, sizeof out);
        MPI_Sendrecv(out, sizeof out, MPI_CHAR, (hrank + 1) % hsize, 7, in, sizeof in, MPI_CHAR,
                     (hrank + hsize - 1) % hsize, 7, half, MPI_STATUS_IGNORE);
        int x = rank, sum = 0;
        MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, dup);
        errors += sum != size * (size - 1) / 2;
    }
    int value = rank == 0 ? 42 : 0;
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    errors += value != 42;

    /* the halves' rank 0 are world ranks 0 and size/2 */
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank < size / 2 ? size / 2 : 0, 99, &inter);
    if (hrank == 0) {
        int token = rank, got = -1;
        MPI_Sendrecv(&token, 1, MPI_INT, 0, 5, &got, 1, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE);
        errors += got != (rank == 0 ? size / 2 : 0);
    }
    MPI_Barrier(inter);
    MPI_Comm_free(&inter);

    MPI_Comm_dup(MPI_COMM_WORLD, &temp);
    long long big = rank, total = 0;
    MPI_Allreduce(&big, &total, 1, MPI_LONG_LONG, MPI_SUM, temp);
    errors += total != (long long)size * (size - 1) / 2;
    MPI_Comm_free(&temp);

    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    int all = 0;
    MPI_Reduce(&errors, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("isolation_app %s: %d ranks\n", all == 0 ? "ok" : "WRONG", size);
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
