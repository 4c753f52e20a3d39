/* profile_app.c: an application with known communication, for exact profile tests.
 * Run on 4 ranks. Per rank:
 *  - MPI_COMM_WORLD: a ring of 1 KiB MPI_Send/MPI_Recv, 3 rounds; one Barrier;
 *    an Alltoallv sending (r+1)*8 bytes to each peer r ([v]: first bucket, real volume).
 *  - halves = Comm_split(world, rank / 2): 5 Allreduce of 1000 doubles (8000 B).
 *  - dup = Comm_dup(world): 2 Bcast of 100 KiB from rank 0; then freed before finalize.
 *  - Isend/Irecv of 16 B on halves and on world, completed by one Waitall: "mixed".
 *  - a window on halves: 1 Put of 64 B to the partner inside two fences.
 *  - a file opened on world: each rank writes 256 B at its offset.
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
    char out[1024], in[1024];
    memset(out, rank, sizeof out);
    for (int r = 0; r < 3; r++) {
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        if (rank % 2 == 0) {
            MPI_Send(out, 1024, MPI_CHAR, right, r, MPI_COMM_WORLD);
            MPI_Recv(in, 1024, MPI_CHAR, left, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, 1024, MPI_CHAR, left, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(out, 1024, MPI_CHAR, right, r, MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    int counts[64], displs[64], rcounts[64], rdispls[64], total = 0, rtotal = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = (r + 1) * 8;
        displs[r] = total;
        total += counts[r];
        rcounts[r] = (rank + 1) * 8;
        rdispls[r] = rtotal;
        rtotal += rcounts[r];
    }
    char *abuf = calloc(total, 1), *rbuf = calloc(rtotal, 1);
    MPI_Alltoallv(abuf, counts, displs, MPI_BYTE, rbuf, rcounts, rdispls, MPI_BYTE, MPI_COMM_WORLD);

    MPI_Comm halves, dup;
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &halves);
    double v[1000], s[1000];
    for (int i = 0; i < 1000; i++)
        v[i] = rank;
    for (int i = 0; i < 5; i++)
        MPI_Allreduce(v, s, 1000, MPI_DOUBLE, MPI_SUM, halves);

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    char *big = calloc(100 * 1024, 1);
    for (int i = 0; i < 2; i++)
        MPI_Bcast(big, 100 * 1024, MPI_BYTE, 0, dup);
    MPI_Comm_free(&dup);

    int hrank;
    MPI_Comm_rank(halves, &hrank);
    char a[16] = {0}, b[16], c[16] = {0}, d[16];
    MPI_Request reqs[4];
    MPI_Isend(a, 16, MPI_BYTE, 1 - hrank, 5, halves, &reqs[0]);
    MPI_Irecv(b, 16, MPI_BYTE, 1 - hrank, 5, halves, &reqs[1]);
    MPI_Isend(c, 16, MPI_BYTE, (rank + 1) % size, 6, MPI_COMM_WORLD, &reqs[2]);
    MPI_Irecv(d, 16, MPI_BYTE, (rank + size - 1) % size, 6, MPI_COMM_WORLD, &reqs[3]);
    MPI_Status statuses[4];
    MPI_Waitall(4, reqs, statuses);

    MPI_Win win;
    char *base;
    MPI_Win_allocate(64, 1, MPI_INFO_NULL, halves, &base, &win);
    MPI_Win_fence(0, win);
    MPI_Put(out, 64, MPI_BYTE, 1 - hrank, 0, 64, MPI_BYTE, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);

    MPI_File fh;
    const char *path = argc > 1 ? argv[1] : "profile_app.out";
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    MPI_File_write_at(fh, rank * 256, out, 256, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);

    MPI_Comm_free(&halves);
    if (rank == 0)
        printf("profile_app ok: %d ranks\n", size);
    free(abuf);
    free(rbuf);
    free(big);
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
