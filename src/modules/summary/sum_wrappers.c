/* SPDX-License-Identifier: BSD-3-Clause */
/* sum_wrappers.c: the summary module's wrappers of every data-moving MPI function (the
 * classification, src/gen/mpi_classes.py, large-count bindings included): each times its
 * pass-down and adds the call to its operation's cell on its communicator (sum.h); a
 * point-to-point send also counts its message (size bin, same host or not). Calls that
 * only start a point-to-point operation (MPI_Isend, MPI_Irecv, their persistent
 * counterparts' creation) are counted, not timed: their fraction of a microsecond goes to
 * the computation, and their wrapper ends in a tail call (docs/summary.md: what that
 * costs the efficiencies). Persistent and partitioned messages are not counted.
 */
#include "sum.h"

/* A wrapper on a communicator: inline when recording without threads on MPI_COMM_WORLD
 * (and SEND, a send's count, succeeds), else through a cold copy that records the general
 * way (a tail call, so its return address is still the application's). */
#define SUM_TIMED(NAME, PARAMS, ARGS, COMM, SEND, SEND_SLOW)                                       \
    static __attribute__((noinline, cold)) int slow_##NAME PARAMS                                  \
    {                                                                                              \
        int rc;                                                                                    \
        SUM_SLOW_CALL(SUM_OP_##NAME, COMM, MPILENS_DOWN(NAME) ARGS);                               \
        SEND_SLOW;                                                                                 \
        return rc;                                                                                 \
    }                                                                                              \
    int MPI_##NAME PARAMS                                                                          \
    {                                                                                              \
        if (SUM_UNLIKELY(COMM != sum_fast_world || !(SEND)))                                       \
            return slow_##NAME ARGS;                                                               \
        int rc;                                                                                    \
        SUM_FAST_CALL(SUM_OP_##NAME, SUM_WORLD, MPILENS_DOWN(NAME) ARGS);                          \
        return rc;                                                                                 \
    }
/* A call counted, not timed: the cell's calls, the send's message, then a tail call. */
#define SUM_COUNTED(NAME, PARAMS, ARGS, COMM, SEND, SEND_SLOW)                                     \
    static __attribute__((noinline, cold)) int slow_##NAME PARAMS                                  \
    {                                                                                              \
        uint64_t t = sum_now();                                                                    \
        sum_record_slow(SUM_OP_##NAME, COMM, __builtin_return_address(0), t, t);                   \
        SEND_SLOW;                                                                                 \
        return MPILENS_DOWN(NAME) ARGS;                                                            \
    }                                                                                              \
    int MPI_##NAME PARAMS                                                                          \
    {                                                                                              \
        if (SUM_UNLIKELY(COMM != sum_fast_world || !(SEND)))                                       \
            return slow_##NAME ARGS;                                                               \
        sum_cells[SUM_OP_##NAME][SUM_WORLD].calls++;                                               \
        return MPILENS_DOWN(NAME) ARGS;                                                            \
    }

/* Point-to-point: sends count their message; blocking ones are timed, nonblocking ones
 * counted, and so is the creation of persistent ones (their messages are not counted). */
#define SEND(N, F, M, P, A, FL, R) SEND_##M(N, P, A)
#define SEND_B(N, P, A)                                                                            \
    SUM_TIMED(N, P, A, a5, sum_send_fast(SUM_OP_##N, a1, a2, a3, a5),                              \
              sum_send_slow(SUM_OP_##N, a1, a2, a3, a5))
#define SEND_I(N, P, A)                                                                            \
    SUM_COUNTED(N, P, A, a5, sum_send_fast(SUM_OP_##N, a1, a2, a3, a5),                            \
                sum_send_slow(SUM_OP_##N, a1, a2, a3, a5))
#define SEND_P(N, P, A) SUM_COUNTED(N, P, A, a5, 1, )
LENS_SHAPE_send(SEND) LENS_SHAPE_isend(SEND)

#define ON_a0(N, F, M, P, A, FL, R) SUM_TIMED(N, P, A, a0, 1, )
#define ON_a2(N, F, M, P, A, FL, R) SUM_TIMED(N, P, A, a2, 1, )
#define ON_a4(N, F, M, P, A, FL, R) SUM_TIMED(N, P, A, a4, 1, )
#define ON_a5(N, F, M, P, A, FL, R) SUM_TIMED(N, P, A, a5, 1, )
#define ON_a6(N, F, M, P, A, FL, R) SUM_TIMED(N, P, A, a6, 1, )
#define ON_a7(N, F, M, P, A, FL, R) SUM_TIMED(N, P, A, a7, 1, )
#define ON_a8(N, F, M, P, A, FL, R) SUM_TIMED(N, P, A, a8, 1, )
#define NOCOMM(N, F, M, P, A, FL, R) SUM_TIMED_NOCOMM(N, P, A)

#define COUNTED_a5(N, F, M, P, A, FL, R) SUM_COUNTED(N, P, A, a5, 1, )
    LENS_SHAPE_recv(ON_a5) LENS_SHAPE_irecv(COUNTED_a5) LENS_SHAPE_probe(ON_a2)
        LENS_SHAPE_iprobe(ON_a2) LENS_SHAPE_mprobe(ON_a2) LENS_SHAPE_improbe(ON_a2)
            LENS_SHAPE_mrecv(NOCOMM) LENS_SHAPE_imrecv(NOCOMM) LENS_SHAPE_psend_init(ON_a6)
                LENS_SHAPE_pready(NOCOMM) LENS_SHAPE_pready_range(NOCOMM)
                    LENS_SHAPE_pready_list(NOCOMM) LENS_SHAPE_parrived(NOCOMM)

/* Sendrecv (dest a3, comm a10) and Sendrecv_replace (dest a3, comm a7): the send half. */
#define SENDRECV(N, F, M, P, A, FL, R)                                                             \
    SUM_TIMED(N, P, A, a10, sum_send_fast(SUM_OP_##N, a1, a2, a3, a10),                            \
              sum_send_slow(SUM_OP_##N, a1, a2, a3, a10))
#define SENDRECV_REPLACE(N, F, M, P, A, FL, R)                                                     \
    SUM_TIMED(N, P, A, a7, sum_send_fast(SUM_OP_##N, a1, a2, a3, a7),                              \
              sum_send_slow(SUM_OP_##N, a1, a2, a3, a7))
                        LENS_SHAPE_sendrecv(SENDRECV) LENS_SHAPE_isendrecv(SENDRECV)
                            LENS_SHAPE_sendrecv_replace(SENDRECV_REPLACE)
                                LENS_SHAPE_isendrecv_replace(SENDRECV_REPLACE)

    /* Collectives, by where their communicator is (nonblocking and persistent ones add their
     * request after it). */
    LENS_SHAPE_barrier(ON_a0) LENS_SHAPE_bcast(ON_a4) LENS_SHAPE_rooted(ON_a7)
        LENS_SHAPE_allgather(ON_a6) LENS_SHAPE_gatherv(ON_a8) LENS_SHAPE_scatterv(ON_a8)
            LENS_SHAPE_allgatherv(ON_a7) LENS_SHAPE_alltoallv(ON_a8) LENS_SHAPE_alltoallw(ON_a8)
                LENS_SHAPE_reduce(ON_a6) LENS_SHAPE_allreduce(ON_a5)
                    LENS_SHAPE_reduce_scatter(ON_a5)

    /* One-sided and files: no communicator. */
    LENS_SHAPE_put(NOCOMM) LENS_SHAPE_rput(NOCOMM) LENS_SHAPE_accumulate(NOCOMM)
        LENS_SHAPE_raccumulate(NOCOMM) LENS_SHAPE_get_accumulate(NOCOMM)
            LENS_SHAPE_rget_accumulate(NOCOMM) LENS_SHAPE_fetch_and_op(NOCOMM)
                LENS_SHAPE_compare_and_swap(NOCOMM) LENS_SHAPE_win(NOCOMM)
                    LENS_SHAPE_win_assert(NOCOMM) LENS_SHAPE_win_group(NOCOMM)
                        LENS_SHAPE_win_test(NOCOMM) LENS_SHAPE_win_lock(NOCOMM)
                            LENS_SHAPE_win_rank(NOCOMM) LENS_SHAPE_io(NOCOMM)
                                LENS_SHAPE_io_at(NOCOMM) LENS_SHAPE_iio(NOCOMM)
                                    LENS_SHAPE_iio_at(NOCOMM) LENS_SHAPE_io_begin(NOCOMM)
                                        LENS_SHAPE_io_at_begin(NOCOMM) LENS_SHAPE_io_end(NOCOMM)
