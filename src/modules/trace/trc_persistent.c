/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_persistent.c: what the trace records of persistent point-to-point requests: each is
 * remembered at its MPI_X_init, and every MPI_Start or MPI_Startall of it is recorded as the
 * nonblocking send or receive it starts (completed in the Wait and Test families).
 */
#include <mpilens.h>
#include <pthread.h>

#include "run_output.h"
#include "trc.h"
#include "trc_wrap.h"

#define enter trc_enter
#define leave trc_leave

struct persistent {
    MPI_Request req;
    int is_recv, peer, tag, count;
    MPI_Datatype type;
    MPI_Comm comm;
};
static struct persistent *persistents;
static int npersistent;

static int keep(int rc, const struct persistent *p)
{
    if (rc != MPI_SUCCESS || p->peer == MPI_PROC_NULL)
        return rc;
    pthread_mutex_lock(&trc_lock);
    if (lens_grow("trace", &persistents, npersistent + 1, sizeof *persistents) == 0) /* said */
        persistents[npersistent++] = *p;
    pthread_mutex_unlock(&trc_lock);
    return rc;
}

#define SEND_INIT(NAME)                                                                            \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag,               \
                   MPI_Comm comm, MPI_Request *req)                                                \
    {                                                                                              \
        int rc = mpilens_down_MPI_##NAME(buf, count, type, dest, tag, comm, req);                  \
        return keep(rc, &(struct persistent){*req, 0, dest, tag, count, type, comm});              \
    }
SEND_INIT(Send_init)
SEND_INIT(Ssend_init)
SEND_INIT(Bsend_init)
SEND_INIT(Rsend_init)

int MPI_Recv_init(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
                  MPI_Request *req)
{
    int rc = MPILENS_DOWN(Recv_init)(buf, count, type, src, tag, comm, req);
    return keep(rc, &(struct persistent){*req, 1, src, tag, count, type, comm});
}

static void started(MPI_Request req, uint64_t t)
{
    pthread_mutex_lock(&trc_lock);
    for (int i = 0; i < npersistent; i++) {
        if (persistents[i].req != req)
            continue;
        struct persistent copy = persistents[i], *p = &copy;
        pthread_mutex_unlock(&trc_lock);
        struct where w = trc_where(p->comm, p->peer);
        uint64_t id = trc_remember(req, p->is_recv, &w);
        if (p->is_recv) {
            trc_put(TK_MPI_IRECV_REQUEST, 0, t, 0, 0, 0, 0, id, 0);
        } else {
            trc_put(TK_MPI_ISEND, 0, t, w.peer, w.comm, (uint32_t)p->tag,
                    trc_bytes(p->count, p->type), id, 0);
        }
        return;
    }
    pthread_mutex_unlock(&trc_lock);
}

int MPI_Start(MPI_Request *req)
{
    if (!trc_on)
        return MPILENS_DOWN(Start)(req);
    uint64_t t = enter(R_Start);
    int rc = MPILENS_DOWN(Start)(req);
    started(*req, t);
    leave(R_Start);
    return rc;
}

int MPI_Startall(int n, MPI_Request reqs[])
{
    if (!trc_on)
        return MPILENS_DOWN(Startall)(n, reqs);
    uint64_t t = enter(R_Startall);
    int rc = MPILENS_DOWN(Startall)(n, reqs);
    for (int i = 0; i < n; i++)
        started(reqs[i], t);
    leave(R_Startall);
    return rc;
}

int MPI_Request_free(MPI_Request *req)
{
    pthread_mutex_lock(&trc_lock);
    for (int i = 0; i < npersistent; i++)
        if (persistents[i].req == *req)
            persistents[i--] = persistents[--npersistent];
    pthread_mutex_unlock(&trc_lock);
    return MPILENS_DOWN(Request_free)(req);
}
