/* hello_module.c: a minimal mpilens module, the one docs/modules.md walks through.
 *
 * It is an ordinary PMPI tool: it wraps MPI_Sendrecv and MPI_Finalize and calls PMPI_ to
 * go on. From the core it uses three optional services (all guarded, so the same .so
 * also works preloaded alone without mpilens): its arguments (`verbose=1`), a published
 * service other modules can look up ("hello.calls"), and the run's output directory,
 * where rank 0 writes hello-summary.txt with every rank's count.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "mpilens.h"

const char mpilens_module_description[] = "example: counts MPI_Sendrecv calls per rank";

static long calls;
static int verbose;

int mpilens_module_init(const struct mpilens_module_args *args)
{
    verbose = strcmp(mpilens_module_arg(args, "verbose", "0"), "1") == 0;
    mpilens_publish("hello.calls", &calls, sizeof calls);
    return 0;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                 int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm,
                 MPI_Status *status)
{
    calls++;
    return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm,
                         status);
}

int MPI_Finalize(void)
{
    int rank, size;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    long all[size];
    PMPI_Gather(&calls, 1, MPI_LONG, all, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    const char *dir = mpilens_output_dir ? mpilens_output_dir() : NULL;
    if (rank == 0 && dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/hello-summary.txt", dir);
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "rank  MPI_Sendrecv calls\n");
            for (int r = 0; r < size; r++)
                fprintf(f, "%4d  %18ld\n", r, all[r]);
            fclose(f);
        }
    }
    if (rank == 0 && verbose)
        fprintf(stderr, "hello_module: %d ranks, rank 0 made %ld MPI_Sendrecv calls\n", size,
                calls);
    return PMPI_Finalize();
}
/* SPDX-License-Identifier: BSD-3-Clause */
