/* SPDX-License-Identifier: BSD-3-Clause */
/* dynbcast_crossover.c: where a broadcast tree beats point-to-point messages. Rank 0 sends
 * one handle to k destinations (ranks 1..k) as a binomial tree and as k point-to-point
 * messages, for k = 2, 3, 7, 15, 31, 63 (those the job has ranks for) and sizes 256 B to 4
 * MiB; the destinations are busy: they look at the library only between tasks of BUSY_US
 * microseconds (0: they wait in it), as a task runtime's workers do. Prints, per (k, size),
 * the time until the last destination has the data, both ways, their ratio and what the
 * library chooses by default (dynb_uses_tree); the
 * library's threshold (include/dynbcast.h) comes from this table on the simulated cluster
 * (bench/dynbcast_simgrid.sh --crossover).
 * Usage: mpirun -np 64 dynbcast_crossover [BUSY_US [sequential]]   (built with -DDYNB_SMPI by
 * smpicc, a task's time is simulated; otherwise the destinations spin for it)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dynbcast.h"

#ifdef DYNB_SMPI
#include <simgrid/host.h>
#include <smpi/smpi.h>
#endif

static int sequential; /* the tree's children served one after the other */

static void task(double us)
{
#ifdef DYNB_SMPI
    smpi_execute_flops(us * 1e-6 * sg_host_get_speed(sg_host_self())); /* simulated time */
#else
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) * 1e-3 < us);
#endif
}

/* Seconds from readiness until the last of ranks 1..k has the data. */
static double once(int tree, int k, size_t bytes, double busy_us, char *buf, int rank, uint64_t h)
{
    struct dynb_options opt = {tree ? DYNB_BINOMIAL : DYNB_P2P, 0, 0, 1, 1, sequential};
    dynb_t *d;
    dynb_create(MPI_COMM_WORLD, &opt, &d);
    dynb_declare(d, h, 0, buf, bytes);
    if (rank == 0)
        for (int r = 1; r <= k; r++)
            dynb_send(d, h, r);
    else if (rank <= k)
        dynb_recv(d, h);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), t = 0;
    if (rank == 0) {
        dynb_ready(d, h);
    } else if (rank <= k) {
        int done = 0;
        while (dynb_test(d, h, &done) == MPI_SUCCESS && !done) {
            if (busy_us > 0)
                task(busy_us);
            else
                dynb_idle(d);
        }
        t = MPI_Wtime() - t0;
    }
    dynb_destroy(d);
    double slowest;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double busy = argc > 1 ? atof(argv[1]) : 0;
    sequential = argc > 2 && strcmp(argv[2], "sequential") == 0;
    size_t max = 4 << 20;
    char *buf = malloc(max);
    memset(buf, 1, max);
    if (rank == 0)
        printf("%-6s %9s %12s %12s %9s  %-7s (destinations busy %g us between looks)\n", "dests",
               "bytes", "tree us", "p2p us", "p2p/tree", "default", busy);
    if (rank == 0 && sequential)
        printf("(the tree's children served one after the other)\n");
    struct dynb_options defaults = {DYNB_BINOMIAL, 0, 0, 0, 0, 0};
    uint64_t h = 1;
    static const int ks[] = {2, 3, 7, 15, 31, 63};
    for (unsigned i = 0; i < sizeof ks / sizeof *ks && ks[i] < size; i++)
        for (size_t bytes = 256; bytes <= max; bytes *= 4) {
            double tt = once(1, ks[i], bytes, busy, buf, rank, h++);
            double tp = once(0, ks[i], bytes, busy, buf, rank, h++);
            if (rank == 0)
                printf("%-6d %9zu %12.2f %12.2f %9.2f  %s\n", ks[i], bytes, tt * 1e6, tp * 1e6,
                       tp / tt, dynb_uses_tree(&defaults, ks[i], bytes) ? "tree" : "p2p");
        }
    free(buf);
    MPI_Finalize();
    return 0;
}
