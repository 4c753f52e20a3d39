/* callsite_alternate.c: call sites that take turns inside one loop, for the profile's
 * keyed fast path (a call like the one before it is recognised by its call site): in 30
 * rounds rank 0 sends with send_a (line 13) on every third round and with send_b (line
 * 19) otherwise, each Isend completed by the Wait on line 27; rank 1 receives at line 29.
 * Keep the line numbers in step with tests/profile/test_callsites.sh. */
#include <mpi.h>
#include <stdio.h>

static __attribute__((noinline)) MPI_Request send_a(int *x)
{
    MPI_Request req;
    __asm__ volatile("" ::: "memory");
    MPI_Isend(x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
    return req;
}
static __attribute__((noinline)) MPI_Request send_b(int *x)
{
    MPI_Request req;
    MPI_Isend(x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
    return req;
}

static void round_trip(int rank, int i, int *x)
{
    if (rank == 0) {
        MPI_Request req = i % 3 == 0 ? send_a(x) : send_b(x);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else if (rank == 1)
        MPI_Recv(x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x = 7;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 30; i++)
        round_trip(rank, i, &x);
    if (rank == 1)
        printf("callsite_alternate ok: received 30\n");
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
