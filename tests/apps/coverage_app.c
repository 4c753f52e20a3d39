/* coverage_app.c: one or two calls of each family of data-moving MPI calls, with counts a
 * test can check exactly (tests/core/test_coverage.sh). Run on 4 ranks (or more), osc pt2pt.
 *
 *   p2p: each rank sends its right neighbour exactly 8 messages of 64 B: Bsend, two starts
 *        of a persistent Ssend, Sendrecv_replace, and four Isends received by
 *        Mprobe/Mrecv, Improbe/Imrecv, Probe/Recv and Iprobe/Recv; no other point-to-point.
 *   collectives: Ibcast, Iallreduce, Ialltoall, Ibarrier, Alltoallw, Reduce_scatter_block,
 *        Scan, Exscan, Neighbor_allgather and Ineighbor_alltoall on a periodic ring.
 *   one-sided: Put and Accumulate under fences; Win_lock_all with Rput, Rget, Raccumulate,
 *        Fetch_and_op, Compare_and_swap, Get_accumulate, Win_flush_all and Win_sync; a
 *        post/start/complete/test epoch.
 *   I/O: per rank 5 writes and 2 reads of 100 B: write_at_all, iwrite_at, write_all_begin/
 *        end, write_shared, write_ordered; read_at, iread_at (argv[1]: the file).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, right, left;

static void point_to_point(void)
{
    char out[64], in[64];
    memset(out, rank, sizeof out);
    int bufsize = 64 + MPI_BSEND_OVERHEAD;
    void *attached = malloc(bufsize);
    MPI_Buffer_attach(attached, bufsize);
    MPI_Bsend(out, 64, MPI_BYTE, right, 1, MPI_COMM_WORLD);
    MPI_Recv(in, 64, MPI_BYTE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Buffer_detach(&attached, &bufsize);
    free(attached);

    MPI_Request persistent;
    MPI_Ssend_init(out, 64, MPI_BYTE, right, 2, MPI_COMM_WORLD, &persistent);
    for (int start = 0; start < 2; start++) {
        MPI_Request recv;
        MPI_Irecv(in, 64, MPI_BYTE, left, 2, MPI_COMM_WORLD, &recv);
        MPI_Start(&persistent);
        MPI_Wait(&persistent, MPI_STATUS_IGNORE);
        MPI_Wait(&recv, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&persistent);

    memset(in, rank, sizeof in);
    MPI_Sendrecv_replace(in, 64, MPI_BYTE, right, 3, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    MPI_Request sends[4];
    for (int k = 0; k < 4; k++)
        MPI_Isend(out, 64, MPI_BYTE, right, 10 + k, MPI_COMM_WORLD, &sends[k]);
    MPI_Message msg;
    MPI_Mprobe(left, 10, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE);
    MPI_Mrecv(in, 64, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
    int flag = 0;
    while (!flag)
        MPI_Improbe(left, 11, MPI_COMM_WORLD, &flag, &msg, MPI_STATUS_IGNORE);
    MPI_Request imrecv;
    MPI_Imrecv(in, 64, MPI_BYTE, &msg, &imrecv);
    MPI_Wait(&imrecv, MPI_STATUS_IGNORE);
    MPI_Probe(left, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(in, 64, MPI_BYTE, left, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (flag = 0; !flag;)
        MPI_Iprobe(left, 13, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    MPI_Recv(in, 64, MPI_BYTE, left, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Waitall(4, sends, MPI_STATUSES_IGNORE);
}

static void collectives(void)
{
    int v = rank, sum = 0, *all = calloc(4 * size, sizeof *all), *back = all + 2 * size;
    MPI_Request r[4];
    MPI_Ibcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Iallreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
    MPI_Ialltoall(all, 1, MPI_INT, back, 1, MPI_INT, MPI_COMM_WORLD, &r[2]);
    MPI_Ibarrier(MPI_COMM_WORLD, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);

    int *counts = calloc(3 * size, sizeof *counts), *displs = counts + size;
    MPI_Datatype *types = malloc(size * sizeof *types);
    for (int i = 0; i < size; i++) {
        counts[i] = 1;
        displs[i] = i * (int)sizeof(int);
        types[i] = MPI_INT;
    }
    MPI_Alltoallw(all, counts, displs, types, back, counts, displs, types, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(all, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Scan(&rank, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(&rank, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, ring);
    MPI_Request nr;
    MPI_Ineighbor_alltoall(all, 1, MPI_INT, back, 1, MPI_INT, ring, &nr);
    MPI_Wait(&nr, MPI_STATUS_IGNORE);
    MPI_Comm_free(&ring);
    free(types);
    free(counts);
    free(all);
}

static void one_sided(void)
{
    int *base;
    MPI_Win win;
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    memset(base, 0, 16 * sizeof(int));
    int one = 1, got = 0, cmp = 0, res[2];
    MPI_Win_fence(0, win);
    MPI_Put(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Accumulate(&one, 1, MPI_INT, right, 1, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);

    MPI_Win_lock_all(0, win);
    MPI_Request r[3];
    MPI_Rput(&rank, 1, MPI_INT, right, 2, 1, MPI_INT, win, &r[0]);
    MPI_Rget(&got, 1, MPI_INT, right, 0, 1, MPI_INT, win, &r[1]);
    MPI_Raccumulate(&one, 1, MPI_INT, right, 3, 1, MPI_INT, MPI_SUM, win, &r[2]);
    MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
    MPI_Fetch_and_op(&one, &got, MPI_INT, right, 4, MPI_SUM, win);
    MPI_Compare_and_swap(&one, &cmp, &got, MPI_INT, right, 5, win);
    MPI_Get_accumulate(&one, 1, MPI_INT, res, 1, MPI_INT, right, 6, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_flush_all(win);
    MPI_Win_sync(win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Group world, peers;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int members[2] = {left, right};
    MPI_Group_incl(world, left == right ? 1 : 2, members, &peers);
    MPI_Win_post(peers, 0, win);
    MPI_Win_start(peers, 0, win);
    MPI_Put(&rank, 1, MPI_INT, right, 7, 1, MPI_INT, win);
    MPI_Win_complete(win);
    for (int done = 0; !done;)
        MPI_Win_test(win, &done);
    MPI_Group_free(&peers);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
}

static void file_io(const char *path)
{
    MPI_File fh;
    char data[100], back[100];
    memset(data, 'a' + rank, sizeof data);
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) !=
        MPI_SUCCESS) {
        fprintf(stderr, "coverage_app: cannot open %s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Offset mine = (MPI_Offset)rank * 100, block = (MPI_Offset)size * 100;
    MPI_File_write_at_all(fh, mine, data, 100, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_Request r;
    MPI_File_iwrite_at(fh, block + mine, data, 100, MPI_BYTE, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_File_seek(fh, 2 * block + mine, MPI_SEEK_SET);
    MPI_File_write_all_begin(fh, data, 100, MPI_BYTE);
    MPI_File_write_all_end(fh, data, MPI_STATUS_IGNORE);
    MPI_File_seek_shared(fh, 3 * block, MPI_SEEK_SET);
    MPI_File_write_shared(fh, data, 100, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_write_ordered(fh, data, 100, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_read_at(fh, mine, back, 100, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_iread_at(fh, block + mine, back, 100, MPI_BYTE, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    if (memcmp(back, data, sizeof data) != 0) {
        fprintf(stderr, "coverage_app: rank %d read back other data\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    point_to_point();
    collectives();
    one_sided();
    file_io(argc > 1 ? argv[1] : "coverage.dat");
    if (rank == 0)
        printf("coverage_app ok: %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
