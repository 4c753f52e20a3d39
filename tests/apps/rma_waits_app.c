/* rma_waits_app.c: one one-sided wait state, injected with usleep, for the analysis tests
 * (4 ranks). Every scenario starts with a barrier and uses one window of 4 ints per rank:
 *   late-post:     rank 0 exposes (post to ranks 1-3) 50 ms late; the origins start, put
 *                  one int into rank 0 and complete: Late Post on ranks 1, 2, 3;
 *   early-wait:    rank 0 posts at once; rank 1 sleeps 50 ms between its put and its
 *                  complete: Early Wait and Late Complete on rank 0;
 *   early-transfer: like late-post, for a run with the transfers held (tests/modules/
 *                  slow_transfer.c under the trace module): rank 0 posts 50 ms late while
 *                  the origins' puts are still in progress: Early Transfer on ranks 1-3;
 *   fence:         every rank puts to its right neighbour between two fences; rank 2
 *                  enters the second fence 50 ms late: Wait at Fence on ranks 0, 1, 3;
 *   none:          all three without delays.
 * Each rank checks the data it was sent, and prints "rma ok" from rank 0 when all did.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size, *buf, errors;
static MPI_Win win;

static void gats(int target_delay, int origin_delay, int slow_origin)
{
    MPI_Group world, group;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    buf[0] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int origins[3] = {1, 2, 3};
        MPI_Group_incl(world, size - 1, origins, &group);
        usleep(target_delay);
        MPI_Win_post(group, 0, win);
        MPI_Win_wait(win);
        for (int r = 1; r < size; r++)
            errors += buf[r] != 100 + r;
    } else {
        int target = 0, value = 100 + rank;
        MPI_Group_incl(world, 1, &target, &group);
        MPI_Win_start(group, 0, win);
        MPI_Put(&value, 1, MPI_INT, 0, rank, 1, MPI_INT, win);
        if (rank == slow_origin)
            usleep(origin_delay);
        MPI_Win_complete(win);
    }
    MPI_Group_free(&group);
    MPI_Group_free(&world);
}

static void fence(int delay)
{
    int value = 200 + rank;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_fence(0, win);
    MPI_Put(&value, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
    if (rank == 2)
        usleep(delay);
    MPI_Win_fence(0, win);
    errors += buf[0] != 200 + (rank + size - 1) % size;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *s = argc > 1 ? argv[1] : "none";
    /* WAITS_DELAY_MS: the injected delay (default 50 ms); the tests take 200 ms, long
     * against the scheduling noise of 4 ranks on 2 cores */
    const char *ms = getenv("WAITS_DELAY_MS");
    int delay = strcmp(s, "none") != 0 ? (ms ? atoi(ms) : 50) * 1000 : 0;
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win);
    if (strcmp(s, "late-post") == 0 || strcmp(s, "early-transfer") == 0 || strcmp(s, "none") == 0)
        gats(delay, 0, 0);
    if (strcmp(s, "early-wait") == 0 || strcmp(s, "none") == 0)
        gats(0, delay, 1);
    if (strcmp(s, "fence") == 0 || strcmp(s, "none") == 0)
        fence(delay);
    MPI_Win_free(&win);
    int all = 0;
    MPI_Reduce(&errors, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all == 0 ? "rma ok\n" : "rma wrong data\n");
    MPI_Finalize();
    return all != 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
