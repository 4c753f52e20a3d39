/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_mprobe.c: what the trace records of matched probes and receives (MPI_Mprobe,
 * MPI_Improbe, MPI_Mrecv, MPI_Imrecv): a probed message remembers its communicator until it
 * is received, so that its receive is recorded on it like MPI_Recv's.
 */
#include <mpilens.h>
#include <pthread.h>

#include "run_output.h"
#include "status_bytes.h"
#include "trc.h"
#include "trc_wrap.h"

#define enter trc_enter
#define leave trc_leave

/* Messages probed and not yet received (any thread may receive what another probed). */
static struct probed {
    MPI_Message msg;
    MPI_Comm comm;
} * probed;
static int nprobed;

static void probed_keep(MPI_Message msg, MPI_Comm comm)
{
    if (msg == MPI_MESSAGE_NULL || msg == MPI_MESSAGE_NO_PROC)
        return;
    pthread_mutex_lock(&trc_lock);
    if (lens_grow("trace", &probed, nprobed + 1, sizeof *probed) == 0) /* else said */
        probed[nprobed++] = (struct probed){msg, comm};
    pthread_mutex_unlock(&trc_lock);
}

/* The communicator msg was probed on (taken out of the table), or MPI_COMM_NULL. */
static MPI_Comm probed_take(MPI_Message msg)
{
    MPI_Comm comm = MPI_COMM_NULL;
    pthread_mutex_lock(&trc_lock);
    for (int i = 0; i < nprobed; i++)
        if (probed[i].msg == msg) {
            comm = probed[i].comm;
            probed[i] = probed[--nprobed];
            break;
        }
    pthread_mutex_unlock(&trc_lock);
    return comm;
}

int MPI_Mprobe(int src, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *status)
{
    if (!trc_on)
        return MPILENS_DOWN(Mprobe)(src, tag, comm, msg, status);
    enter(R_Mprobe);
    int rc = MPILENS_DOWN(Mprobe)(src, tag, comm, msg, status);
    if (rc == MPI_SUCCESS)
        probed_keep(*msg, comm);
    leave(R_Mprobe);
    return rc;
}

int MPI_Improbe(int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg, MPI_Status *status)
{
    if (!trc_on)
        return MPILENS_DOWN(Improbe)(src, tag, comm, flag, msg, status);
    enter(R_Improbe);
    int rc = MPILENS_DOWN(Improbe)(src, tag, comm, flag, msg, status);
    if (rc == MPI_SUCCESS && *flag)
        probed_keep(*msg, comm);
    leave(R_Improbe);
    return rc;
}

/* Mrecv is a receive (MPI_Recv's event, so Late Sender applies); Imrecv an Irecv completed
 * in the Wait and Test families. A message probed before tracing began has no
 * communicator: its region only. */
int MPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg, MPI_Status *status)
{
    if (!trc_on)
        return MPILENS_DOWN(Mrecv)(buf, count, type, msg, status);
    MPI_Status local;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
    MPI_Comm comm = probed_take(*msg);
    enter(R_Mrecv);
    int rc = MPILENS_DOWN(Mrecv)(buf, count, type, msg, st);
    if (rc == MPI_SUCCESS && comm != MPI_COMM_NULL) {
        uint64_t got = lens_status_bytes(st);
        struct where w = trc_where(comm, st->MPI_SOURCE);
        trc_put(TK_MPI_RECV, 0, trc_now(), w.peer, w.comm, (uint32_t)st->MPI_TAG, (uint64_t)got, 0,
                0);
    }
    leave(R_Mrecv);
    return rc;
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg, MPI_Request *req)
{
    if (!trc_on)
        return MPILENS_DOWN(Imrecv)(buf, count, type, msg, req);
    MPI_Comm comm = probed_take(*msg);
    uint64_t t = enter(R_Imrecv);
    int rc = MPILENS_DOWN(Imrecv)(buf, count, type, msg, req);
    if (rc == MPI_SUCCESS && comm != MPI_COMM_NULL) {
        struct where w = trc_where(comm, 0);
        trc_put(TK_MPI_IRECV_REQUEST, 0, t, 0, 0, 0, 0, trc_remember(*req, 1, &w), 0);
    }
    leave(R_Imrecv);
    return rc;
}
