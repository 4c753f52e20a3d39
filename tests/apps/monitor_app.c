/* monitor_app.c: communication with exactly known matrices, for the monitor tests (4
 * ranks). Each section ends with mpilens_monitor_flush(section), so every section is its
 * own phase (the calls do nothing without mpilens). Sections:
 *   ring      1 KiB from each rank to rank+1
 *   alltoall  (src+1)*100 bytes from every rank to every other, Isend/Irecv
 *   halo      2x2 periodic grid: Sendrecv of 512 B to both neighbours in both dimensions
 *   split     halves (rank / 2): 64 B from half-rank 0 to half-rank 1 (world 0->1, 2->3)
 *   special   zero-byte Send to rank+1, a Send to MPI_PROC_NULL, a vector datatype (3 blocks
 *             of 2 ints = 24 B) to rank-1, then a 2-int type (8 B, made after the first
 *             was freed: a reused handle must not keep the old size) to rank-1
 *   coll      (unless "p2p-only") Allreduce of 10 doubles, Bcast of 100 B from rank 1,
 *             Allgather of 4 ints among ranks of the same parity
 *   rma       (unless "p2p-only") under fences: Put of 40 B to rank+1, Get of 80 B from rank-1
 *   io        (unless "p2p-only") each rank writes 100 B to a shared file, reads 50 B back
 * Usage: monitor_app [p2p-only] [FILE]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpilens.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, p2p_only = argc > 1 && strcmp(argv[1], "p2p-only") == 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    char buf[4096] = {0}, in[4096];

    MPI_Sendrecv(buf, 1024, MPI_BYTE, right, 1, in, 1024, MPI_BYTE, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    mpilens_monitor_flush("ring");

    MPI_Request reqs[64];
    int n = 0;
    for (int p = 0; p < size; p++) {
        if (p == rank)
            continue;
        MPI_Irecv(in + 100 * p, (p + 1) * 100 > 400 ? 400 : (p + 1) * 100, MPI_BYTE, p, 2,
                  MPI_COMM_WORLD, &reqs[n++]);
        MPI_Isend(buf, (rank + 1) * 100, MPI_BYTE, p, 2, MPI_COMM_WORLD, &reqs[n++]);
    }
    MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    mpilens_monitor_flush("alltoall");

    MPI_Comm grid;
    int dims[2] = {2, 2}, periods[2] = {1, 1};
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    for (int d = 0; d < 2; d++) {
        int lo, hi;
        MPI_Cart_shift(grid, d, 1, &lo, &hi);
        MPI_Sendrecv(buf, 512, MPI_BYTE, hi, 3, in, 512, MPI_BYTE, lo, 3, grid, MPI_STATUS_IGNORE);
        MPI_Sendrecv(buf, 512, MPI_BYTE, lo, 4, in, 512, MPI_BYTE, hi, 4, grid, MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&grid);
    mpilens_monitor_flush("halo");

    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &half);
    int hrank;
    MPI_Comm_rank(half, &hrank);
    if (hrank == 0)
        MPI_Send(buf, 64, MPI_BYTE, 1, 5, half);
    else
        MPI_Recv(in, 64, MPI_BYTE, 0, 5, half, MPI_STATUS_IGNORE);
    MPI_Comm_free(&half);
    mpilens_monitor_flush("split");

    MPI_Send(buf, 0, MPI_BYTE, right, 6, MPI_COMM_WORLD);
    MPI_Recv(in, 0, MPI_BYTE, left, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(buf, 10, MPI_BYTE, MPI_PROC_NULL, 7, MPI_COMM_WORLD);
    MPI_Datatype vec;
    MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int ints[12] = {0}, got[6];
    MPI_Sendrecv(ints, 1, vec, left, 8, got, 6, MPI_INT, right, 8, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Type_free(&vec);
    /* A new type of another size may reuse the freed handle: 2 ints = 8 B. */
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Sendrecv(ints, 1, pair, left, 9, got, 2, MPI_INT, right, 9, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Type_free(&pair);
    mpilens_monitor_flush("special");

    if (!p2p_only) {
        /* Collectives: Allreduce of 10 doubles on world, a Bcast of 100 B from rank 1, an
         * Allgather of 4 ints among ranks of the same parity. */
        double d[10] = {0}, dsum[10];
        MPI_Allreduce(d, dsum, 10, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Bcast(buf, 100, MPI_BYTE, 1, MPI_COMM_WORLD);
        MPI_Comm parity;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parity);
        int four[4] = {0}, all4[4 * 64];
        MPI_Allgather(four, 4, MPI_INT, all4, 4, MPI_INT, parity);
        MPI_Comm_free(&parity);
        mpilens_monitor_flush("coll");
    }

    if (!p2p_only) {
        MPI_Win win;
        char *base;
        MPI_Win_allocate(256, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
        MPI_Win_fence(0, win);
        MPI_Put(buf, 40, MPI_BYTE, right, 0, 40, MPI_BYTE, win);
        MPI_Get(in, 80, MPI_BYTE, left, 100, 80, MPI_BYTE, win);
        MPI_Win_fence(0, win);
        MPI_Win_free(&win);
        mpilens_monitor_flush("rma");

        MPI_File fh;
        MPI_File_open(MPI_COMM_WORLD, argc > 2 ? argv[2] : "monitor_app.out",
                      MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
        MPI_File_write_at(fh, rank * 100, buf, 100, MPI_BYTE, MPI_STATUS_IGNORE);
        MPI_File_sync(fh);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_read_at(fh, rank * 100, in, 50, MPI_BYTE, MPI_STATUS_IGNORE);
        MPI_File_close(&fh);
        mpilens_monitor_flush("io");
    }
    if (rank == 0)
        printf("monitor_app ok: %d ranks%s\n", size, p2p_only ? " (p2p only)" : "");
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
