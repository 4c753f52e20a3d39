/* waits_app.c: one wait state, injected with usleep, for the analysis tests (4 ranks).
 * Every scenario first synchronizes (Barrier; Allreduce in the barrier scenario), then:
 *   late-sender    rank 0 sleeps 50 ms, then sends to rank 1, which receives at once
 *   late-receiver  rank 1 sleeps 50 ms before receiving rank 0's MPI_Ssend
 *   allreduce      rank 2 sleeps 50 ms before an Allreduce
 *   barrier        rank 1 sleeps 50 ms before a Barrier
 *   bcast          the root (0) sleeps 50 ms before a Bcast
 *   reduce         all but the root (0) sleep 50 ms before a Reduce
 *   scan           rank 0 sleeps 50 ms before an MPI_Scan (ranks 1-3 wait for it)
 *   alltoallv      rank 2 sleeps 50 ms before an MPI_Alltoallv
 *   iallreduce     rank 2 sleeps 50 ms before an MPI_Iallreduce; every rank then waits for
 *                  it in MPI_Wait (a nonblocking collective waits at its completion)
 *   ibcast         the root (0) sleeps 50 ms before an MPI_Ibcast, completed in MPI_Wait
 *   completions    rank 0 sleeps 50 ms, then sends to rank 1, which waits with MPI_Waitany;
 *                  then messages completed by Test, Testany, Testall, Testsome and
 *                  Waitsome loops, persistent requests started 4 times, a
 *                  Sendrecv_replace and an Irsend (every message and completion must be
 *                  in the trace)
 *   many-regions   100 user regions entered and left first, then late-sender (the
 *                  analysis must not be limited to a fixed number of regions or phases)
 *   none           the same communication without any sleep
 * After the first synchronization everything runs inside a user region named after the
 * scenario (mpilens_trace_region + MPI_Pcontrol), so the analysis can attribute it.
 * Usage: waits_app SCENARIO
 */
#include <mpi.h>
#include <mpilens.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The completions scenario between ranks 0 and 1 (see above). */
static void completions(int rank, int delay)
{
    int x = 1, y;
    MPI_Request r[2];
    int index, flag = 0, out = 0, idx[2];
    if (rank == 0) {
        usleep(delay);
        MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Irecv(&y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Waitany(1, r, &index, MPI_STATUS_IGNORE);
    }
    int peer = 1 - rank, z[2];
    MPI_Isend(&x, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&z[0], 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &r[1]);
    while (!flag)
        MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE);
    MPI_Irecv(&z[0], 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &r[0]);
    MPI_Send(&x, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
    for (flag = 0; !flag;)
        MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
    MPI_Irecv(&z[0], 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &r[0]);
    MPI_Send(&x, 1, MPI_INT, peer, 3, MPI_COMM_WORLD);
    for (flag = 0; !flag;)
        MPI_Testany(1, r, &index, &flag, MPI_STATUS_IGNORE);
    MPI_Irecv(&z[0], 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&z[1], 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &r[1]);
    MPI_Send(&x, 1, MPI_INT, peer, 4, MPI_COMM_WORLD);
    MPI_Send(&x, 1, MPI_INT, peer, 5, MPI_COMM_WORLD);
    for (int done = 0; done < 2; done += out)
        MPI_Testsome(2, r, &out, idx, MPI_STATUSES_IGNORE);
    MPI_Irecv(&z[0], 1, MPI_INT, peer, 6, MPI_COMM_WORLD, &r[0]);
    MPI_Send(&x, 1, MPI_INT, peer, 6, MPI_COMM_WORLD);
    MPI_Waitsome(1, r, &out, idx, MPI_STATUSES_IGNORE);
    MPI_Send_init(&x, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &r[0]);
    MPI_Recv_init(&z[0], 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &r[1]);
    for (int i = 0; i < 3; i++) {
        MPI_Startall(2, r);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    MPI_Start(&r[1]);
    MPI_Send(&x, 1, MPI_INT, peer, 7, MPI_COMM_WORLD);
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
    /* ready mode: the receive is posted before the Sendrecv_replace handshake */
    MPI_Irecv(&z[1], 1, MPI_INT, peer, 9, MPI_COMM_WORLD, &r[1]);
    MPI_Sendrecv_replace(&z[0], 1, MPI_INT, peer, 8, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Irsend(&x, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, &r[0]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x = 1, y;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *s = argc > 1 ? argv[1] : "none";
    /* WAITS_DELAY_MS: the injected delay (default 50 ms); the tests take 200 ms, long
     * against the scheduling noise of 4 ranks on 2 cores */
    const char *ms = getenv("WAITS_DELAY_MS");
    int delay = strcmp(s, "none") != 0 ? (ms ? atoi(ms) : 50) * 1000 : 0;
    if (strcmp(s, "barrier") == 0)
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else
        MPI_Barrier(MPI_COMM_WORLD);
    int many = strcmp(s, "many-regions") == 0;
    for (int i = 0; many && i < 100; i++) {
        char name[32];
        snprintf(name, sizeof name, "region %d", i);
        mpilens_trace_region(name);
        MPI_Pcontrol(1);
        MPI_Pcontrol(0);
    }
    mpilens_trace_region(s);
    MPI_Pcontrol(1);
    if (strcmp(s, "late-sender") == 0 || many || strcmp(s, "none") == 0) {
        if (rank == 0) {
            usleep(delay);
            MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Recv(&y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    if (strcmp(s, "late-receiver") == 0 || strcmp(s, "none") == 0) {
        if (rank == 0) {
            MPI_Ssend(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        } else if (rank == 1) {
            usleep(delay);
            MPI_Recv(&y, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    if (strcmp(s, "allreduce") == 0 || strcmp(s, "none") == 0) {
        if (rank == 2)
            usleep(delay);
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    if (strcmp(s, "barrier") == 0) {
        if (rank == 1)
            usleep(delay);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (strcmp(s, "bcast") == 0 || strcmp(s, "none") == 0) {
        if (rank == 0)
            usleep(delay);
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    if (strcmp(s, "reduce") == 0 || strcmp(s, "none") == 0) {
        if (rank != 0)
            usleep(delay);
        MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    }
    if (strcmp(s, "scan") == 0 || strcmp(s, "none") == 0) {
        if (rank == 0)
            usleep(delay);
        MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    if (strcmp(s, "alltoallv") == 0 || strcmp(s, "none") == 0) {
        int counts[64], displs[64], out[64], in[64];
        for (int i = 0; i < 64; i++)
            counts[i] = 1, displs[i] = i, out[i] = rank;
        if (rank == 2)
            usleep(delay);
        MPI_Alltoallv(out, counts, displs, MPI_INT, in, counts, displs, MPI_INT, MPI_COMM_WORLD);
    }
    if (strcmp(s, "iallreduce") == 0 || strcmp(s, "none") == 0) {
        MPI_Request r;
        if (rank == 2)
            usleep(delay);
        MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    if (strcmp(s, "ibcast") == 0 || strcmp(s, "none") == 0) {
        MPI_Request r;
        if (rank == 0)
            usleep(delay);
        MPI_Ibcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    if (strcmp(s, "completions") == 0 && rank < 2)
        completions(rank, delay);
    MPI_Pcontrol(0);
    if (rank == 0)
        printf("waits_app ok: %s\n", s);
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
