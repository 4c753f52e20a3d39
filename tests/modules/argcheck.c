/* argcheck.c: a test module that prints how C modules see Fortran's special arguments:
 * MPI_IN_PLACE, MPI_BOTTOM and MPI_STATUS(ES)_IGNORE must arrive as the C constants.
 */
#include <mpi.h>
#include <stdio.h>

static int rank_of_world(void)
{
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int n, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    printf("argcheck: rank %d allreduce in_place=%d count=%d\n", rank_of_world(),
           sbuf == MPI_IN_PLACE, n);
    return PMPI_Allreduce(sbuf, rbuf, n, type, op, comm);
}

int MPI_Recv(void *buf, int n, MPI_Datatype type, int src, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    printf("argcheck: rank %d recv status_ignore=%d count=%d\n", rank_of_world(),
           status == MPI_STATUS_IGNORE, n);
    return PMPI_Recv(buf, n, type, src, tag, comm, status);
}

int MPI_Send(const void *buf, int n, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    int size;
    PMPI_Type_size(type, &size);
    printf("argcheck: rank %d send bytes=%d bottom=%d\n", rank_of_world(), n * size,
           buf == MPI_BOTTOM);
    return PMPI_Send(buf, n, type, dest, tag, comm);
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    printf("argcheck: rank %d waitall statuses_ignore=%d\n", rank_of_world(),
           statuses == MPI_STATUSES_IGNORE);
    return PMPI_Waitall(n, reqs, statuses);
}
/* SPDX-License-Identifier: BSD-3-Clause */
