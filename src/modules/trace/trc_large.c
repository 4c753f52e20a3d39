/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_large.c: MPI-4's large-count blocking point-to-point (MPI_Send_c, MPI_Ssend_c,
 * MPI_Bsend_c, MPI_Rsend_c, MPI_Recv_c): their messages recorded like those of the int-count
 * forms (trc_wrap.c), on the general path (no fast copy), with the bytes as 64-bit numbers,
 * so that analyze matches them. Their nonblocking forms keep their region only
 * (trc_regions.c).
 */
#include "status_bytes.h"
#include "trc.h"
#include "trc_wrap.h"

#ifdef MPILENS_HAS_LARGE_COUNT /* the _c functions (Open MPI 4.1 and 5.0 have none) */

/* COUNT elements of TYPE in bytes (a count above 2^31 included). */
static uint64_t large_bytes(MPI_Count count, MPI_Datatype type)
{
    int size = 0;
    PMPI_Type_size(type, &size);
    return count > 0 && size > 0 ? (uint64_t)count * (uint64_t)size : 0;
}

#define LARGE_SEND(NAME)                                                                           \
    int MPI_##NAME(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag,         \
                   MPI_Comm comm)                                                                  \
    {                                                                                              \
        if (!trc_on || dest == MPI_PROC_NULL)                                                      \
            return mpilens_down_MPI_##NAME(buf, count, type, dest, tag, comm);                     \
        uint64_t t = trc_enter(R_##NAME);                                                          \
        struct where w = trc_where(comm, dest);                                                    \
        trc_put(TK_MPI_SEND, 0, t, w.peer, w.comm, (uint32_t)tag, large_bytes(count, type), 0, 0); \
        int rc = mpilens_down_MPI_##NAME(buf, count, type, dest, tag, comm);                       \
        trc_leave(R_##NAME);                                                                       \
        return rc;                                                                                 \
    }
LARGE_SEND(Send_c)
LARGE_SEND(Ssend_c)
LARGE_SEND(Bsend_c)
LARGE_SEND(Rsend_c)

int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
               MPI_Status *status)
{
    if (!trc_on || src == MPI_PROC_NULL)
        return mpilens_down_MPI_Recv_c(buf, count, type, src, tag, comm, status);
    MPI_Status local;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
    trc_enter(R_Recv_c);
    int rc = mpilens_down_MPI_Recv_c(buf, count, type, src, tag, comm, st);
    struct where w = trc_where(comm, st->MPI_SOURCE);
    trc_put(TK_MPI_RECV, 0, trc_now(), w.peer, w.comm, (uint32_t)st->MPI_TAG, lens_status_bytes(st),
            0, 0);
    trc_leave(R_Recv_c);
    return rc;
}

#endif
