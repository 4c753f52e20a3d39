/* SPDX-License-Identifier: BSD-3-Clause */
/* dynbcast_bench.c: one source sends a handle to the 7 other ranks (8 ranks), as a
 * dynamic broadcast and as point-to-point messages, for 1 KiB, 64 KiB and 4 MiB, with and
 * without network emulation (2 us latency, 1000 MB/s per outgoing link). Prints the
 * median time from readiness until the last rank has the data, and the ratio p2p/dynamic.
 * Usage: mpirun -np 8 dynbcast_bench [REPEATS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "dynbcast.h"

static double once(enum dynb_tree tree, double lat, double bw, size_t bytes, char *buf, int rank,
                   int size, uint64_t h)
{
    struct dynb_options opt = {tree, lat, bw, 1, 1, 0}; /* a tree whatever the size */
    dynb_t *d;
    dynb_create(MPI_COMM_WORLD, &opt, &d);
    dynb_declare(d, h, 0, buf, bytes);
    if (rank == 0)
        for (int r = 1; r < size; r++)
            dynb_send(d, h, r);
    else
        dynb_recv(d, h);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    if (rank == 0)
        dynb_ready(d, h);
    else
        dynb_wait(d, h);
    double t = bench_now() - t0, slowest;
    dynb_destroy(d);
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, repeats = argc > 1 ? atoi(argv[1]) : 9;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static const size_t sizes[] = {1024, 65536, 4 << 20};
    char *buf = malloc(4 << 20);
    memset(buf, 1, 4 << 20);
    if (rank == 0)
        printf("%-9s %-9s %14s %14s %8s   (%d ranks: 1 source, %d destinations)\n", "size",
               "network", "dynamic ms", "p2p ms", "p2p/dyn", size, size - 1);
    uint64_t h = 1;
    for (int net = 0; net < 2; net++) {
        for (int s = 0; s < 3; s++) {
            double dyn[64], p2p[64];
            for (int r = 0; r < repeats && r < 64; r++) {
                dyn[r] = once(DYNB_BINOMIAL, net ? 2 : 0, net ? 1000 : 0, sizes[s], buf, rank, size,
                              h++);
                p2p[r] =
                    once(DYNB_P2P, net ? 2 : 0, net ? 1000 : 0, sizes[s], buf, rank, size, h++);
            }
            int n = repeats < 64 ? repeats : 64;
            double md = bench_median(dyn, n), mp = bench_median(p2p, n);
            if (rank == 0)
                printf("%-9zu %-9s %14.3f %14.3f %8.2f\n", sizes[s], net ? "emulated" : "none",
                       md * 1e3, mp * 1e3, mp / md);
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
