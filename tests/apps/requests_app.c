/* requests_app.c: completions charged to their requests' communicators (2 ranks). Rank 0
 * sends 4-byte messages to rank 1 on a duplicate of world (d0.1) and on world (W0.0);
 * small sends complete inline, and Open MPI then returns one shared handle for all of them,
 * so the requests below compare equal across communicators. Each step is one completion
 * call (the sends are eager); rank 1 receives everything with blocking MPI_Recv (tag =
 * step).
 *   1 Wait(dup request), Wait(world request)          2 the same, completed in the other order
 *   3 Waitall(one of each): mixed                     4 a copy of the dup request waited on
 *   5 Waitany, Waitsome of two dup requests            6 Test, Testall, Testany, Testsome of
 *     complete dup requests, then a Test of MPI_REQUEST_NULL (no request: W0.0, as mpisee)
 *   7 persistent send on dup: Start, Wait, Startall, Waitall, Request_free
 *   8 Ibarrier on dup, Wait                            9 Isend on world, Request_free
 *  10 File_iwrite, Rput, a cancelled Irecv (on dup) and a generalized request, each waited
 */
#include <mpi.h>
#include <stdio.h>

static MPI_Comm dup;
static int rank, value = 7;

static void send_pair(MPI_Request *a, MPI_Request *b, int tag)
{
    MPI_Isend(&value, 1, MPI_INT, 1, tag, dup, a);
    MPI_Isend(&value, 1, MPI_INT, 1, tag, MPI_COMM_WORLD, b);
}

static void receive(int count, int tag, MPI_Comm comm)
{
    int got;
    for (int i = 0; i < count; i++)
        MPI_Recv(&got, 1, MPI_INT, 0, tag, comm, MPI_STATUS_IGNORE);
}

static int query(void *extra, MPI_Status *status)
{
    (void)extra;
    MPI_Status_set_elements(status, MPI_BYTE, 0);
    MPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int free_nothing(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}

static int cancel_nothing(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

static void until_done(MPI_Request *req)
{
    int flag = 0;
    while (!flag)
        MPI_Test(req, &flag, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Request a, b, r[2];
    int index, count, indices[2], flag;
    if (rank == 0) {
        send_pair(&a, &b, 1);
        MPI_Wait(&a, MPI_STATUS_IGNORE);
        MPI_Wait(&b, MPI_STATUS_IGNORE);
        send_pair(&a, &b, 2);
        MPI_Wait(&b, MPI_STATUS_IGNORE);
        MPI_Wait(&a, MPI_STATUS_IGNORE);
        send_pair(&r[0], &r[1], 3);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        send_pair(&a, &b, 4);
        MPI_Request copy = a;
        MPI_Wait(&b, MPI_STATUS_IGNORE);
        MPI_Wait(&copy, MPI_STATUS_IGNORE);
        MPI_Isend(&value, 1, MPI_INT, 1, 5, dup, &r[0]);
        MPI_Isend(&value, 1, MPI_INT, 1, 5, dup, &r[1]);
        MPI_Waitany(2, r, &index, MPI_STATUS_IGNORE);
        MPI_Waitsome(2, r, &count, indices, MPI_STATUSES_IGNORE);
        /* each Test form once, on sends rank 1 received before the barrier: complete */
        MPI_Isend(&value, 1, MPI_INT, 1, 6, dup, &a);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Test(&a, &flag, MPI_STATUS_IGNORE);
        MPI_Isend(&value, 1, MPI_INT, 1, 6, dup, &r[0]);
        MPI_Isend(&value, 1, MPI_INT, 1, 6, dup, &r[1]);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE);
        MPI_Isend(&value, 1, MPI_INT, 1, 6, dup, &r[0]);
        r[1] = MPI_REQUEST_NULL;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Testany(2, r, &index, &flag, MPI_STATUS_IGNORE);
        MPI_Isend(&value, 1, MPI_INT, 1, 6, dup, &r[0]);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Testsome(2, r, &count, indices, MPI_STATUSES_IGNORE);
        until_done(&r[0]); /* r[0] is MPI_REQUEST_NULL now: a Test of no request, on W0.0 */
        MPI_Send_init(&value, 1, MPI_INT, 1, 7, dup, &a);
        MPI_Start(&a);
        MPI_Wait(&a, MPI_STATUS_IGNORE);
        MPI_Startall(1, &a);
        MPI_Waitall(1, &a, MPI_STATUSES_IGNORE);
        MPI_Request_free(&a);
    } else {
        for (int tag = 1; tag <= 4; tag++)
            receive(1, tag, dup), receive(1, tag, MPI_COMM_WORLD);
        receive(2, 5, dup);
        receive(1, 6, dup), MPI_Barrier(MPI_COMM_WORLD);
        receive(2, 6, dup), MPI_Barrier(MPI_COMM_WORLD);
        receive(1, 6, dup), MPI_Barrier(MPI_COMM_WORLD);
        receive(1, 6, dup), MPI_Barrier(MPI_COMM_WORLD);
        receive(2, 7, dup);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Ibarrier(dup, &a);
        MPI_Wait(&a, MPI_STATUS_IGNORE);
        MPI_Isend(&value, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &b);
        MPI_Request_free(&b);
    } else {
        MPI_Ibarrier(dup, &a);
        MPI_Wait(&a, MPI_STATUS_IGNORE);
        receive(1, 9, MPI_COMM_WORLD);
    }
    /* 10: a nonblocking write to a file opened on dup, a request-based put into a window
     * of dup, a cancelled receive on dup: each Wait on d0.1; a generalized request (no
     * communicator): its Wait on W0.0, as mpisee charges requests it does not know */
    MPI_File file;
    MPI_File_open(dup, "requests_app.tmp", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &file);
    int *base;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, dup, &base, &win);
    if (rank == 0) {
        MPI_File_iwrite(file, &value, 1, MPI_INT, &a);
        MPI_Wait(&a, MPI_STATUS_IGNORE);
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Rput(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win, &a);
        MPI_Wait(&a, MPI_STATUS_IGNORE);
        MPI_Win_unlock(1, win);
        int never;
        MPI_Irecv(&never, 1, MPI_INT, 1, 99, dup, &a);
        MPI_Cancel(&a);
        MPI_Wait(&a, MPI_STATUS_IGNORE);
        MPI_Grequest_start(query, free_nothing, cancel_nothing, NULL, &a);
        MPI_Grequest_complete(a);
        MPI_Wait(&a, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_File_close(&file);
    if (rank == 0)
        MPI_File_delete("requests_app.tmp", MPI_INFO_NULL);
    MPI_Comm_free(&dup);
    if (rank == 0)
        printf("requests_app ok\n");
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
