/* SPDX-License-Identifier: BSD-3-Clause */
/* mon_p2p.c: point-to-point sends, counted to the destination's world rank before the
 * call (so each wrapper ends in a tail call). MPI_PROC_NULL is not counted; receives are
 * not counted (the matrix is of messages sent). Which functions: every send of the
 * classification (src/gen/mpi_classes.py: blocking, nonblocking, persistent, the send half
 * of Sendrecv and Sendrecv_replace, partitioned sends), large-count bindings included.
 * Persistent and partitioned sends count at each start (mon_persist.c).
 */
#include "mon.h"
#include "lens_classes.h"

/* The wrapper counts inline and tail-calls the library; anything unusual goes through a
 * cold copy that counts the general way, so the common path needs no stack frame. */
#define COUNTED_SEND(NAME, PARAMS, ARGS, COMM, DEST, COUNT, TYPE)                                  \
    static __attribute__((noinline, cold)) int slow_##NAME PARAMS                                  \
    {                                                                                              \
        mon_count_send_slow(COMM, DEST, COUNT, TYPE);                                              \
        return mpilens_down_MPI_##NAME ARGS;                                                       \
    }                                                                                              \
    int MPI_##NAME PARAMS                                                                          \
    {                                                                                              \
        if (!mon_count_send_fast(COMM, DEST, COUNT, TYPE))                                         \
            return slow_##NAME ARGS;                                                               \
        return mpilens_down_MPI_##NAME ARGS;                                                       \
    }

/* Shapes send and isend: (buf, count, type, dest, tag, comm[, request]). */
#define SEND(N, F, M, P, A, FL, R) SEND_##M(N, P, A, R)
#define SEND_B(N, P, A, R) COUNTED_SEND(N, P, A, a5, a3, a1, a2)
#define SEND_I SEND_B
#define SEND_P(N, P, A, R) MON_PERSISTENT(N, P, A, R, mon_count_send_slow(a5, a3, a1, a2))
LENS_SHAPE_send(SEND) LENS_SHAPE_isend(SEND)

/* Sendrecv (dest a3, comm a10) and Sendrecv_replace (dest a3, comm a7): the send half. */
#define SENDRECV(N, F, M, P, A, FL, R) COUNTED_SEND(N, P, A, a10, a3, a1, a2)
#define SENDRECV_REPLACE(N, F, M, P, A, FL, R) COUNTED_SEND(N, P, A, a7, a3, a1, a2)
    LENS_SHAPE_sendrecv(SENDRECV) LENS_SHAPE_isendrecv(SENDRECV)
        LENS_SHAPE_sendrecv_replace(SENDRECV_REPLACE) LENS_SHAPE_isendrecv_replace(SENDRECV_REPLACE)

/* Psend_init (partitions a1 of count a2 x type a3 to a4 on a5): one message per start;
 * Precv_init (same shape) is a receive, not counted. */
#define PARTITIONED(N, F, M, P, A, FL, R) PARTITIONED_##FL(N, P, A, R)
#define PARTITIONED_0(N, P, A, R)
#define PARTITIONED_1(N, P, A, R)                                                                  \
    MON_PERSISTENT(N, P, A, R,                                                                     \
                   mon_record(MON_P2P, mon_world_rank(a6, a4), (uint64_t)a1 *mon_bytes(a2, a3)))
            LENS_SHAPE_psend_init(PARTITIONED)

    /* A freed datatype's handle may be reused for another type: forget the cached sizes. */
    int MPI_Type_free(MPI_Datatype *type)
{
    mon_forget_types();
    return MPILENS_DOWN(Type_free)(type);
}
