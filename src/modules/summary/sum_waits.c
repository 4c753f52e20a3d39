/* SPDX-License-Identifier: BSD-3-Clause */
/* sum_waits.c: the summary module's completion and start calls (timed, no communicator:
 * a request's is not looked up at this level), and the frees that make a cached handle
 * stale.
 */
#include "sum.h"

SUM_TIMED_NOCOMM(Wait, (MPI_Request * r, MPI_Status *s), (r, s))
SUM_TIMED_NOCOMM(Waitall, (int n, MPI_Request r[], MPI_Status s[]), (n, r, s))
SUM_TIMED_NOCOMM(Waitany, (int n, MPI_Request r[], int *i, MPI_Status *s), (n, r, i, s))
SUM_TIMED_NOCOMM(Waitsome, (int n, MPI_Request r[], int *o, int i[], MPI_Status s[]),
                 (n, r, o, i, s))
SUM_TIMED_NOCOMM(Test, (MPI_Request * r, int *f, MPI_Status *s), (r, f, s))
SUM_TIMED_NOCOMM(Testall, (int n, MPI_Request r[], int *f, MPI_Status s[]), (n, r, f, s))
SUM_TIMED_NOCOMM(Testany, (int n, MPI_Request r[], int *i, int *f, MPI_Status *s), (n, r, i, f, s))
SUM_TIMED_NOCOMM(Testsome, (int n, MPI_Request r[], int *o, int i[], MPI_Status s[]),
                 (n, r, o, i, s))
SUM_TIMED_NOCOMM(Start, (MPI_Request * r), (r))
SUM_TIMED_NOCOMM(Startall, (int n, MPI_Request r[]), (n, r))

int MPI_Comm_free(MPI_Comm *comm)
{
    if (comm)
        sum_forget_comm(*comm);
    return MPILENS_DOWN(Comm_free)(comm);
}

int MPI_Type_free(MPI_Datatype *type)
{
    sum_forget_types();
    return MPILENS_DOWN(Type_free)(type);
}
