/* SPDX-License-Identifier: BSD-3-Clause */
/* mon_rma_io.c: one-sided transfers (origin side: data sent to the target, or received
 * from it for Get and the result of the fetching operations) and file I/O (bytes read and
 * written per rank and file; the status's count when there is one).
 */
#include "lens_classes.h"
#include "mon.h"

static int target_of(MPI_Win win, int target)
{
    struct lens_comm *rec = lens_comm_of_win(win);
    return target >= 0 && target < rec->size ? rec->members[target] : -1;
}

static void rma(MPI_Win win, int target, int kind, int64_t count, MPI_Datatype type)
{
    if (mon_on)
        mon_record(kind, target_of(win, target), mon_bytes(count, type));
}

/* Open MPI's osc monitoring: a put or accumulate sends its origin data; a get sends a
 * message of 0 bytes and receives its data; the fetching operations send their origin
 * data and receive their result (one element of the type for Fetch_and_op and
 * Compare_and_swap). Request-based ones count the same. */
#define RMA(N, P, A, WIN, TARGET, COUNTING)                                                        \
    int MPI_##N P                                                                                  \
    {                                                                                              \
        COUNTING;                                                                                  \
        return mpilens_down_MPI_##N A;                                                             \
    }
#define PUT_OR_GET(N, F, M, P, A, FL, R) PUT_OR_GET_##FL(N, P, A)
#define PUT_OR_GET_1(N, P, A) RMA(N, P, A, a7, a3, rma(a7, a3, MON_RMA_SENT, a1, a2))
#define PUT_OR_GET_0(N, P, A)                                                                      \
    RMA(N, P, A, a7, a3, (rma(a7, a3, MON_RMA_SENT, 0, a2), rma(a7, a3, MON_RMA_RECV, a1, a2)))
#define ACCUMULATE(N, F, M, P, A, FL, R) RMA(N, P, A, a8, a3, rma(a8, a3, MON_RMA_SENT, a1, a2))
#define GET_ACCUMULATE(N, F, M, P, A, FL, R)                                                       \
    RMA(N, P, A, a11, a6, (rma(a11, a6, MON_RMA_SENT, a1, a2), rma(a11, a6, MON_RMA_RECV, a4, a5)))
#define FETCH_AND_OP(N, F, M, P, A, FL, R)                                                         \
    RMA(N, P, A, a6, a3, (rma(a6, a3, MON_RMA_SENT, 1, a2), rma(a6, a3, MON_RMA_RECV, 1, a2)))
#define COMPARE_AND_SWAP(N, F, M, P, A, FL, R)                                                     \
    RMA(N, P, A, a6, a4, (rma(a6, a4, MON_RMA_SENT, 1, a3), rma(a6, a4, MON_RMA_RECV, 1, a3)))
LENS_SHAPE_put(PUT_OR_GET) LENS_SHAPE_rput(PUT_OR_GET) LENS_SHAPE_accumulate(ACCUMULATE)
    LENS_SHAPE_raccumulate(ACCUMULATE) LENS_SHAPE_get_accumulate(GET_ACCUMULATE)
        LENS_SHAPE_rget_accumulate(GET_ACCUMULATE) LENS_SHAPE_fetch_and_op(FETCH_AND_OP)
            LENS_SHAPE_compare_and_swap(COMPARE_AND_SWAP)

    /* ---- files ---- */

    int MPI_File_open(MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh)
{
    int rc = MPILENS_DOWN(File_open)(comm, name, amode, info, fh);
    if (rc == MPI_SUCCESS)
        mon_file_opened(*fh, name);
    return rc;
}

int MPI_File_close(MPI_File *fh)
{
    mon_file_closed(*fh);
    return MPILENS_DOWN(File_close)(fh);
}

static uint64_t done(const MPI_Status *status, int64_t count, MPI_Datatype type)
{
    MPI_Count got = MPI_UNDEFINED;
    if (status != MPI_STATUS_IGNORE && PMPI_Get_elements_x(status, MPI_BYTE, &got) == MPI_SUCCESS &&
        got != MPI_UNDEFINED)
        return (uint64_t)got;
    return mon_bytes(count, type);
}

/* Every read and write of the classification: blocking ones count what the status says
 * was moved (what was asked without a status); nonblocking ones and the begin of a split
 * collective count what was asked, at the call (their end is not counted again). */
#define IO_DONE(N, P, A, FH, ST, COUNT, TYPE, WRITE)                                               \
    int MPI_##N P                                                                                  \
    {                                                                                              \
        int rc = mpilens_down_MPI_##N A;                                                           \
        if (mon_on && rc == MPI_SUCCESS)                                                           \
            mon_record_io(FH, WRITE, done(ST, COUNT, TYPE));                                       \
        return rc;                                                                                 \
    }
#define IO_ASKED(N, P, A, FH, COUNT, TYPE, WRITE)                                                  \
    int MPI_##N P                                                                                  \
    {                                                                                              \
        int rc = mpilens_down_MPI_##N A;                                                           \
        if (mon_on && rc == MPI_SUCCESS)                                                           \
            mon_record_io(FH, WRITE, mon_bytes(COUNT, TYPE));                                      \
        return rc;                                                                                 \
    }
#define IO(N, F, M, P, A, FL, R) IO_DONE(N, P, A, a0, a4, a2, a3, FL)
#define IO_AT(N, F, M, P, A, FL, R) IO_DONE(N, P, A, a0, a5, a3, a4, FL)
#define IO_ASKED_AT_2(N, F, M, P, A, FL, R) IO_ASKED(N, P, A, a0, a2, a3, FL)
#define IO_ASKED_AT_3(N, F, M, P, A, FL, R) IO_ASKED(N, P, A, a0, a3, a4, FL)
LENS_SHAPE_io(IO) LENS_SHAPE_io_at(IO_AT) LENS_SHAPE_iio(IO_ASKED_AT_2)
    LENS_SHAPE_iio_at(IO_ASKED_AT_3) LENS_SHAPE_io_begin(IO_ASKED_AT_2)
        LENS_SHAPE_io_at_begin(IO_ASKED_AT_3)
