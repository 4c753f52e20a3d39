/* empty.c: an empty layer for the overhead benchmark and the 100-module test: it wraps
 * a few functions and only calls the next layer. Built without a SONAME so that copies
 * under different file names load as distinct modules.
 */
#include <mpi.h>

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    return PMPI_Comm_rank(comm, rank);
}

int MPI_Send(const void *buf, int n, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return PMPI_Send(buf, n, type, dest, tag, comm);
}

int MPI_Recv(void *buf, int n, MPI_Datatype type, int src, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    return PMPI_Recv(buf, n, type, src, tag, comm, status);
}
/* SPDX-License-Identifier: BSD-3-Clause */
