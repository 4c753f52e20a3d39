/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_coll.c: the trace's collectives: Enter/Leave, and the collective's begin and end
 * events (operation, communicator, root, bytes sent and received) for blocking ones; for
 * nonblocking ones a request at the call, completed in the Wait and Test families
 * (trc_wrap.c). On an intercommunicator only Enter/Leave (OTF2's Comm cannot express
 * its two groups).
 */
#include <mpilens.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status_bytes.h"
#include "trc.h"
#include "trc_wrap.h"

#define enter trc_enter
#define leave trc_leave

/* ---- collectives ---- */

/* Inside COLLECTIVE: the bytes of COUNT elements of TYPE, through the thread found once. */
#define BYTES(COUNT, TYPE) trc_bytes_in(me_, COUNT, TYPE)
#define COLLECTIVE(REGION, OP, COMM, ROOT, SENT, RECEIVED, CALL)                                   \
    if (!trc_on)                                                                                   \
        return CALL;                                                                               \
    struct trc_thread *me_ = trc_me();                                                             \
    uint64_t t_ = trc_enter_in(me_, REGION);                                                       \
    uint32_t id_;                                                                                  \
    int intra_ = trc_intra_id(COMM, &id_);                                                         \
    if (intra_)                                                                                    \
        trc_put_mark_in(me_, TK_COLL_BEGIN, t_);                                                   \
    int rc_ = CALL;                                                                                \
    uint64_t t1_ = trc_now(); /* the end's and the Leave's */                                      \
    if (intra_) {                                                                                  \
        uint64_t sent_ = SENT; /* RECEIVED may be sent_: the bytes asked once */                   \
        trc_put_in(me_, TK_COLL_END, OP, t1_, ROOT, id_, 0, sent_, RECEIVED, 0);                   \
    }                                                                                              \
    trc_leave_at_in(me_, REGION, t1_);                                                             \
    return rc_

int MPI_Barrier(MPI_Comm comm)
{
    COLLECTIVE(R_Barrier, OTF2_COLLECTIVE_OP_BARRIER, comm, OTF2_UNDEFINED_UINT32, 0, 0,
               MPILENS_DOWN(Barrier)(comm));
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    COLLECTIVE(R_Bcast, OTF2_COLLECTIVE_OP_BCAST, comm, (uint32_t)root, BYTES(count, type), sent_,
               MPILENS_DOWN(Bcast)(buf, count, type, root, comm));
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm)
{
    COLLECTIVE(R_Reduce, OTF2_COLLECTIVE_OP_REDUCE, comm, (uint32_t)root, BYTES(count, type), sent_,
               MPILENS_DOWN(Reduce)(sbuf, rbuf, count, type, op, root, comm));
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    COLLECTIVE(R_Allreduce, OTF2_COLLECTIVE_OP_ALLREDUCE, comm, OTF2_UNDEFINED_UINT32,
               BYTES(count, type), sent_,
               MPILENS_DOWN(Allreduce)(sbuf, rbuf, count, type, op, comm));
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm)
{
    COLLECTIVE(R_Allgather, OTF2_COLLECTIVE_OP_ALLGATHER, comm, OTF2_UNDEFINED_UINT32,
               BYTES(scount, stype), BYTES(rcount, rtype),
               MPILENS_DOWN(Allgather)(sbuf, scount, stype, rbuf, rcount, rtype, comm));
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm)
{
    COLLECTIVE(R_Alltoall, OTF2_COLLECTIVE_OP_ALLTOALL, comm, OTF2_UNDEFINED_UINT32,
               BYTES(scount, stype), BYTES(rcount, rtype),
               MPILENS_DOWN(Alltoall)(sbuf, scount, stype, rbuf, rcount, rtype, comm));
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
               MPI_Datatype rtype, int root, MPI_Comm comm)
{
    COLLECTIVE(R_Gather, OTF2_COLLECTIVE_OP_GATHER, comm, (uint32_t)root, BYTES(scount, stype),
               BYTES(rcount, rtype),
               MPILENS_DOWN(Gather)(sbuf, scount, stype, rbuf, rcount, rtype, root, comm));
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm)
{
    COLLECTIVE(R_Scatter, OTF2_COLLECTIVE_OP_SCATTER, comm, (uint32_t)root, BYTES(scount, stype),
               BYTES(rcount, rtype),
               MPILENS_DOWN(Scatter)(sbuf, scount, stype, rbuf, rcount, rtype, root, comm));
}

/* ---- the v-variants, reduce-scatter and scans: bytes from the counts ---- */

/* The bytes of counts[0..n) elements of type (n: the communicator's size). */
static uint64_t all_bytes(const int counts[], MPI_Datatype type, MPI_Comm comm)
{
    uint64_t total = 0;
    int n = lens_comm(comm)->size;
    for (int i = 0; counts && i < n; i++)
        total += trc_bytes(counts[i], type);
    return total;
}

static int is_root(MPI_Comm comm, int root)
{
    return lens_comm(comm)->rank == root;
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm)
{
    COLLECTIVE(
        R_Gatherv, OTF2_COLLECTIVE_OP_GATHERV, comm, (uint32_t)root, trc_bytes(scount, stype),
        is_root(comm, root) ? all_bytes(rcounts, rtype, comm) : 0,
        MPILENS_DOWN(Gatherv)(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm));
}

int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
                 void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    COLLECTIVE(
        R_Scatterv, OTF2_COLLECTIVE_OP_SCATTERV, comm, (uint32_t)root,
        is_root(comm, root) ? all_bytes(scounts, stype, comm) : 0, trc_bytes(rcount, rtype),
        MPILENS_DOWN(Scatterv)(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm));
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                   const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm)
{
    COLLECTIVE(R_Allgatherv, OTF2_COLLECTIVE_OP_ALLGATHERV, comm, OTF2_UNDEFINED_UINT32,
               trc_bytes(scount, stype), all_bytes(rcounts, rtype, comm),
               MPILENS_DOWN(Allgatherv)(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm));
}

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                  void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                  MPI_Comm comm)
{
    COLLECTIVE(R_Alltoallv, OTF2_COLLECTIVE_OP_ALLTOALLV, comm, OTF2_UNDEFINED_UINT32,
               sbuf == MPI_IN_PLACE ? 0 : all_bytes(scounts, stype, comm),
               all_bytes(rcounts, rtype, comm),
               MPILENS_DOWN(Alltoallv)(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype,
                                       comm));
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type,
                       MPI_Op op, MPI_Comm comm)
{
    COLLECTIVE(R_Reduce_scatter, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, comm, OTF2_UNDEFINED_UINT32,
               all_bytes(rcounts, type, comm), trc_bytes(rcounts[lens_comm(comm)->rank], type),
               MPILENS_DOWN(Reduce_scatter)(sbuf, rbuf, rcounts, type, op, comm));
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type, MPI_Op op,
                             MPI_Comm comm)
{
    COLLECTIVE(R_Reduce_scatter_block, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, comm,
               OTF2_UNDEFINED_UINT32, trc_bytes(rcount, type) * (uint64_t)lens_comm(comm)->size,
               trc_bytes(rcount, type),
               MPILENS_DOWN(Reduce_scatter_block)(sbuf, rbuf, rcount, type, op, comm));
}

#define SCAN(NAME, REGION, OP)                                                                     \
    int MPI_##NAME(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,          \
                   MPI_Comm comm)                                                                  \
    {                                                                                              \
        COLLECTIVE(REGION, OP, comm, OTF2_UNDEFINED_UINT32, trc_bytes(count, type),                \
                   trc_bytes(count, type),                                                         \
                   mpilens_down_MPI_##NAME(sbuf, rbuf, count, type, op, comm));                    \
    }
SCAN(Scan, R_Scan, OTF2_COLLECTIVE_OP_SCAN)
SCAN(Exscan, R_Exscan, OTF2_COLLECTIVE_OP_EXSCAN)

/* ---- nonblocking collectives: requested at the call, complete in Wait/Test ---- */

/* As COLLECTIVE, for the I-variant whose request is REQ: on an intercommunicator, its
 * region only. */
#define NONBLOCKING(REGION, OP, COMM, ROOT, SENT, RECEIVED, CALL, REQ)                             \
    if (!trc_on)                                                                                   \
        return CALL;                                                                               \
    uint64_t t_ = enter(REGION);                                                                   \
    struct lens_comm *rec_ = lens_comm(COMM);                                                      \
    uint64_t sent_ = rec_->inter ? 0 : (SENT), received_ = rec_->inter ? 0 : (RECEIVED);           \
    int rc_ = CALL;                                                                                \
    if (rc_ == MPI_SUCCESS && !rec_->inter)                                                        \
        trc_remember_collective(*(REQ), t_, OP, trc_comm_of(rec_), ROOT, sent_, received_);        \
    leave(REGION);                                                                                 \
    return rc_

#define NO_ROOT OTF2_UNDEFINED_UINT32
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    NONBLOCKING(R_Ibarrier, OTF2_COLLECTIVE_OP_BARRIER, comm, NO_ROOT, 0, 0,
                MPILENS_DOWN(Ibarrier)(comm, req), req);
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req)
{
    NONBLOCKING(R_Ibcast, OTF2_COLLECTIVE_OP_BCAST, comm, (uint32_t)root, trc_bytes(count, type),
                trc_bytes(count, type), MPILENS_DOWN(Ibcast)(buf, count, type, root, comm, req),
                req);
}

int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *req)
{
    NONBLOCKING(R_Ireduce, OTF2_COLLECTIVE_OP_REDUCE, comm, (uint32_t)root, trc_bytes(count, type),
                trc_bytes(count, type),
                MPILENS_DOWN(Ireduce)(sbuf, rbuf, count, type, op, root, comm, req), req);
}

int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request *req)
{
    NONBLOCKING(R_Iallreduce, OTF2_COLLECTIVE_OP_ALLREDUCE, comm, NO_ROOT, trc_bytes(count, type),
                trc_bytes(count, type),
                MPILENS_DOWN(Iallreduce)(sbuf, rbuf, count, type, op, comm, req), req);
}

#define NONBLOCKING_EXCHANGE(NAME, REGION, OP)                                                     \
    int MPI_##NAME(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,       \
                   MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)                            \
    {                                                                                              \
        NONBLOCKING(REGION, OP, comm, NO_ROOT, trc_bytes(scount, stype), trc_bytes(rcount, rtype), \
                    mpilens_down_MPI_##NAME(sbuf, scount, stype, rbuf, rcount, rtype, comm, req),  \
                    req);                                                                          \
    }
NONBLOCKING_EXCHANGE(Iallgather, R_Iallgather, OTF2_COLLECTIVE_OP_ALLGATHER)
NONBLOCKING_EXCHANGE(Ialltoall, R_Ialltoall, OTF2_COLLECTIVE_OP_ALLTOALL)

#define NONBLOCKING_ROOTED(NAME, REGION, OP)                                                       \
    int MPI_##NAME(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,       \
                   MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)                  \
    {                                                                                              \
        NONBLOCKING(                                                                               \
            REGION, OP, comm, (uint32_t)root, trc_bytes(scount, stype), trc_bytes(rcount, rtype),  \
            mpilens_down_MPI_##NAME(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req),    \
            req);                                                                                  \
    }
NONBLOCKING_ROOTED(Igather, R_Igather, OTF2_COLLECTIVE_OP_GATHER)
NONBLOCKING_ROOTED(Iscatter, R_Iscatter, OTF2_COLLECTIVE_OP_SCATTER)

int MPI_Igatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                 const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
    NONBLOCKING(
        R_Igatherv, OTF2_COLLECTIVE_OP_GATHERV, comm, (uint32_t)root, trc_bytes(scount, stype),
        is_root(comm, root) ? all_bytes(rcounts, rtype, comm) : 0,
        MPILENS_DOWN(Igatherv)(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, req),
        req);
}

int MPI_Iscatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
                  void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                  MPI_Request *req)
{
    NONBLOCKING(
        R_Iscatterv, OTF2_COLLECTIVE_OP_SCATTERV, comm, (uint32_t)root,
        is_root(comm, root) ? all_bytes(scounts, stype, comm) : 0, trc_bytes(rcount, rtype),
        MPILENS_DOWN(Iscatterv)(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, req),
        req);
}

int MPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                    const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm,
                    MPI_Request *req)
{
    NONBLOCKING(
        R_Iallgatherv, OTF2_COLLECTIVE_OP_ALLGATHERV, comm, NO_ROOT, trc_bytes(scount, stype),
        all_bytes(rcounts, rtype, comm),
        MPILENS_DOWN(Iallgatherv)(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req),
        req);
}

int MPI_Ialltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                   void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                   MPI_Comm comm, MPI_Request *req)
{
    NONBLOCKING(R_Ialltoallv, OTF2_COLLECTIVE_OP_ALLTOALLV, comm, NO_ROOT,
                sbuf == MPI_IN_PLACE ? 0 : all_bytes(scounts, stype, comm),
                all_bytes(rcounts, rtype, comm),
                MPILENS_DOWN(Ialltoallv)(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls,
                                         rtype, comm, req),
                req);
}

int MPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type,
                        MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    NONBLOCKING(R_Ireduce_scatter, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, comm, NO_ROOT,
                all_bytes(rcounts, type, comm), trc_bytes(rcounts[lens_comm(comm)->rank], type),
                MPILENS_DOWN(Ireduce_scatter)(sbuf, rbuf, rcounts, type, op, comm, req), req);
}

int MPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type,
                              MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    NONBLOCKING(R_Ireduce_scatter_block, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, comm, NO_ROOT,
                trc_bytes(rcount, type) * (uint64_t)lens_comm(comm)->size, trc_bytes(rcount, type),
                MPILENS_DOWN(Ireduce_scatter_block)(sbuf, rbuf, rcount, type, op, comm, req), req);
}

#define NONBLOCKING_SCAN(NAME, REGION, OP)                                                         \
    int MPI_##NAME(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,          \
                   MPI_Comm comm, MPI_Request *req)                                                \
    {                                                                                              \
        NONBLOCKING(REGION, OP, comm, NO_ROOT, trc_bytes(count, type), trc_bytes(count, type),     \
                    mpilens_down_MPI_##NAME(sbuf, rbuf, count, type, op, comm, req), req);         \
    }
NONBLOCKING_SCAN(Iscan, R_Iscan, OTF2_COLLECTIVE_OP_SCAN)
NONBLOCKING_SCAN(Iexscan, R_Iexscan, OTF2_COLLECTIVE_OP_EXSCAN)
