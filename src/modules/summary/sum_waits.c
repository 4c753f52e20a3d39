/* sum_waits.c: the summary module's completion and start calls (timed, no communicator:
 * a request's is not looked up at this level), and the frees that make a cached handle
 * stale.
 */
#include "sum.h"

#define SUM_HAND(NAME, PARAMS, ARGS)                                                               \
    static __attribute__((noinline, cold)) int slow_##NAME PARAMS                                  \
    {                                                                                              \
        int rc;                                                                                    \
        SUM_SLOW_CALL(SUM_OP_##NAME, MPI_COMM_NULL, MPILENS_DOWN(NAME) ARGS);                      \
        return rc;                                                                                 \
    }                                                                                              \
    int MPI_##NAME PARAMS                                                                          \
    {                                                                                              \
        if (SUM_UNLIKELY(sum_fast_world == (MPI_Comm)0))                                           \
            return slow_##NAME ARGS;                                                               \
        int rc;                                                                                    \
        SUM_FAST_CALL(SUM_OP_##NAME, SUM_NO_COMM, MPILENS_DOWN(NAME) ARGS);                        \
        return rc;                                                                                 \
    }

SUM_HAND(Wait, (MPI_Request * r, MPI_Status *s), (r, s))
SUM_HAND(Waitall, (int n, MPI_Request r[], MPI_Status s[]), (n, r, s))
SUM_HAND(Waitany, (int n, MPI_Request r[], int *i, MPI_Status *s), (n, r, i, s))
SUM_HAND(Waitsome, (int n, MPI_Request r[], int *o, int i[], MPI_Status s[]), (n, r, o, i, s))
SUM_HAND(Test, (MPI_Request * r, int *f, MPI_Status *s), (r, f, s))
SUM_HAND(Testall, (int n, MPI_Request r[], int *f, MPI_Status s[]), (n, r, f, s))
SUM_HAND(Testany, (int n, MPI_Request r[], int *i, int *f, MPI_Status *s), (n, r, i, f, s))
SUM_HAND(Testsome, (int n, MPI_Request r[], int *o, int i[], MPI_Status s[]), (n, r, o, i, s))
SUM_HAND(Start, (MPI_Request * r), (r))
SUM_HAND(Startall, (int n, MPI_Request r[]), (n, r))

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
