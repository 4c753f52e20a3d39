/* scaling_app.c: a program of known scaling (docs/efficiency.md, "A program of known
 * scaling"), whose work and waits are timed sleeps, so that an oversubscribed machine
 * does not change it, and with no message waiting for another, so that a busy-polling
 * MPI's turns of the scheduler add little (a binomial MPI_Bcast waits for its tree's
 * levels one after another: on MPICH, 8 ranks on 2 cores, about 30 ms). On P ranks, with
 * W, S and C in milliseconds (default 4800, 300 and 100):
 *   work:       each rank computes W / P (a fixed total split evenly);
 *   serial:     rank 0 computes S while the others wait for its message (no barrier before:
 *               every rank's work lasts as long);
 *   collective: a linear collective of a fixed cost a rank: its root, the last rank,
 *               combines the P contributions for C each (P x C), then sends the result to
 *               every other rank, which waits for it.
 * Prints "scaling_app ok: P ranks".
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Timed sleeps woken on time: a rank computes at a real-time priority (where the user may
 * set one: root, CAP_SYS_NICE), so that its wake-up preempts busy-polling ranks at once
 * instead of at their next turn of the scheduler (MPICH on 8 ranks and 2 cores: 1 to 3
 * ticks late, 4 to 12 ms, each time), and keeps it through the sends that follow (eager,
 * they never wait); settle() gives it up before any call that waits (a receive,
 * MPI_Finalize): a rank polling at a real-time priority would starve the others. Giving
 * it up lets the polling ranks run first, so a rank does so once, not between two sleeps. */
static int raised;

static void compute(double ms)
{
    struct sched_param rt = {.sched_priority = 1};
    if (!raised)
        raised = sched_setscheduler(0, SCHED_FIFO, &rt) == 0;
    struct timespec end;
    clock_gettime(CLOCK_MONOTONIC, &end);
    long long ns = (long long)end.tv_nsec + (long long)(ms * 1e6);
    end.tv_sec += (time_t)(ns / 1000000000);
    end.tv_nsec = (long)(ns % 1000000000);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, NULL) != 0)
        ;
}

static void settle(void)
{
    struct sched_param normal = {.sched_priority = 0};
    if (raised)
        sched_setscheduler(0, SCHED_OTHER, &normal);
    raised = 0;
}

/* ROOT sends its token to every other rank at once (a flat broadcast). */
static void from_root(int root, int rank, int size, int *token)
{
    if (rank != root) {
        settle();
        MPI_Recv(token, 1, MPI_INT, root, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        return;
    }
    for (int r = 0; r < size; r++)
        if (r != root)
            MPI_Send(token, 1, MPI_INT, r, 7, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, token = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double work = argc > 1 ? atof(argv[1]) : 4800, serial = argc > 2 ? atof(argv[2]) : 300,
           each = argc > 3 ? atof(argv[3]) : 100;
    compute(work / size);
    if (rank == 0)
        compute(serial);
    from_root(0, rank, size, &token);
    if (rank == size - 1)
        compute(each * size);
    from_root(size - 1, rank, size, &token);
    if (rank == 0)
        printf("scaling_app ok: %d ranks\n", size);
    settle();
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
