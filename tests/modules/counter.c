/* counter.c: a "third-party" PMPI tool that knows nothing about mpilens.
 *
 * It counts the messages and bytes each rank sends with MPI_Send and MPI_Isend (atomic
 * counters: it must be right under MPI_THREAD_MULTIPLE) and prints one line per rank at
 * MPI_Finalize. Tests use it stacked under mpilens and preloaded alone.
 */
#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_long messages, bytes;

static void count(int n, MPI_Datatype type)
{
    int size;
    PMPI_Type_size(type, &size);
    atomic_fetch_add(&messages, 1);
    atomic_fetch_add(&bytes, (long)n * size);
}

int MPI_Send(const void *buf, int n, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    count(n, type);
    return PMPI_Send(buf, n, type, dest, tag, comm);
}

int MPI_Isend(const void *buf, int n, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    count(n, type);
    return PMPI_Isend(buf, n, type, dest, tag, comm, req);
}

int MPI_Finalize(void)
{
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("counter: rank %d messages %ld bytes %ld\n", rank, atomic_load(&messages),
           atomic_load(&bytes));
    fflush(stdout);
    return PMPI_Finalize();
}
/* SPDX-License-Identifier: BSD-3-Clause */
