/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_halo.c: a one-sided halo exchange, the workload of bench/trace_cost.sh. Each rank
 * puts BYTES into the window of its left and right neighbours (ring), ITERATIONS times,
 * synchronized either by two fences per iteration or by post/start/complete/wait with
 * the two neighbours, after COMPUTE_US microseconds of computation (a busy loop on the
 * clock, no MPI call) per iteration. Rank 0 prints the time per iteration.
 *
 * Usage: rma_halo fence|gats [ITERATIONS] [BYTES] [COMPUTE_US]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Busy for us microseconds: the "computation" of an iteration. */
static void compute(int us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int gats = argc > 1 && strcmp(argv[1], "gats") == 0;
    int iterations = argc > 2 ? atoi(argv[2]) : 2000, bytes = argc > 3 ? atoi(argv[3]) : 1024;
    int compute_us = argc > 4 ? atoi(argv[4]) : 0;
    char *halo, *mine = calloc(bytes, 1);
    MPI_Win win;
    MPI_Win_allocate(2 * (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &halo, &win);
    int left = (rank + size - 1) % size, right = (rank + 1) % size, peers[2] = {left, right};
    MPI_Group world, neighbours;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, left == right ? 1 : 2, peers, &neighbours);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iterations; i++) {
        if (compute_us > 0)
            compute(compute_us);
        if (gats) {
            MPI_Win_post(neighbours, 0, win);
            MPI_Win_start(neighbours, 0, win);
        } else {
            MPI_Win_fence(0, win);
        }
        MPI_Put(mine, bytes, MPI_BYTE, left, bytes, bytes, MPI_BYTE, win);
        MPI_Put(mine, bytes, MPI_BYTE, right, 0, bytes, MPI_BYTE, win);
        if (gats) {
            MPI_Win_complete(win);
            MPI_Win_wait(win);
        } else {
            MPI_Win_fence(0, win);
        }
    }
    double t = MPI_Wtime() - t0;
    if (rank == 0)
        printf("rma_halo %s ranks=%d iterations=%d bytes=%d us_per_iteration=%.2f\n",
               gats ? "gats" : "fence", size, iterations, bytes, 1e6 * t / iterations);
    MPI_Group_free(&neighbours);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    free(mine);
    MPI_Finalize();
    return 0;
}
