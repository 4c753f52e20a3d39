/* SPDX-License-Identifier: BSD-3-Clause */
/* scale_app.c: what finalizing costs as the job grows (issue 37, docs/scaling.md).
 * Usage: scale_app SHAPE, SHAPE "fixed" (a ring step on the world and an Allreduce on each
 * of 4 fixed splits: a communicator structure that does not grow with the job) or a number
 * C (each rank creates C communicators, pairs of neighbours, one Allreduce and one ring step
 * on each: structure that grows with the job). Rank 0 prints one line:
 *   scale_app P finalize_s F rank0_maxrss_kb K
 * F: MPI_Finalize's wall time on rank 0 (where a tool merges and writes); K: rank 0's peak
 * resident memory after it (getrusage). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void ring_step(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    char out[1024] = {0}, in[1024];
    MPI_Sendrecv(out, sizeof out, MPI_CHAR, (rank + 1) % size, 0, in, sizeof in, MPI_CHAR,
                 (rank + size - 1) % size, 0, comm, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *shape = argc > 1 ? argv[1] : "fixed";
    double x = rank, sum;
    ring_step(MPI_COMM_WORLD);
    if (strcmp(shape, "fixed") == 0) {
        for (int s = 0; s < 4; s++) { /* 4 splits of different shapes, fixed in number */
            MPI_Comm part;
            MPI_Comm_split(MPI_COMM_WORLD, rank % (s + 2), rank, &part);
            MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, part);
            MPI_Comm_free(&part);
        }
    } else {
        int c = atoi(shape);
        for (int i = 0; i < c; i++) { /* pairs (2k, 2k+1), then (2k+1, 2k+2): many comms */
            MPI_Comm pair;
            MPI_Comm_split(MPI_COMM_WORLD, (rank + (i & 1)) / 2, rank, &pair);
            MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, pair);
            ring_step(pair);
            MPI_Comm_free(&pair);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    MPI_Finalize();
    double t1 = now();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (rank == 0)
        printf("scale_app %d finalize_s %.3f rank0_maxrss_kb %ld\n", size, t1 - t0, ru.ru_maxrss);
    return 0;
}
