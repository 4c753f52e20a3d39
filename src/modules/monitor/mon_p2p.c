/* mon_p2p.c: point-to-point sends, counted to the destination's world rank before the
 * call (so each wrapper ends in a tail call). MPI_PROC_NULL is not counted; receives are
 * not counted (the matrix is of messages sent). Persistent sends count at each start.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mon.h"

/* The wrapper counts inline and tail-calls the library; anything unusual goes through a
 * cold copy that counts the general way, so the common path needs no stack frame. */
#define COUNTED_SEND(NAME, PARAMS, ARGS, COMM, DEST, COUNT, TYPE)                                  \
    static __attribute__((noinline, cold)) int slow_##NAME PARAMS                                  \
    {                                                                                              \
        mon_count_send_slow(COMM, DEST, COUNT, TYPE);                                              \
        return PMPI_##NAME ARGS;                                                                   \
    }                                                                                              \
    int MPI_##NAME PARAMS                                                                          \
    {                                                                                              \
        if (mon_on && !mon_count_send_fast(COMM, DEST, COUNT, TYPE))                               \
            return slow_##NAME ARGS;                                                               \
        return PMPI_##NAME ARGS;                                                                   \
    }
#define SEND_WRAPPER(NAME)                                                                         \
    COUNTED_SEND(                                                                                  \
        NAME, (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm),   \
        (buf, count, type, dest, tag, comm), comm, dest, count, type)
#define ISEND_WRAPPER(NAME)                                                                        \
    COUNTED_SEND(NAME,                                                                             \
                 (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, \
                  MPI_Request *req),                                                               \
                 (buf, count, type, dest, tag, comm, req), comm, dest, count, type)

SEND_WRAPPER(Send)
SEND_WRAPPER(Ssend)
SEND_WRAPPER(Rsend)
SEND_WRAPPER(Bsend)
ISEND_WRAPPER(Isend)
ISEND_WRAPPER(Issend)
ISEND_WRAPPER(Irsend)
ISEND_WRAPPER(Ibsend)

COUNTED_SEND(Sendrecv,
             (const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
              int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *status),
             (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, status), comm,
             dest, scount, stype)
COUNTED_SEND(Sendrecv_replace,
             (void *buf, int count, MPI_Datatype type, int dest, int stag, int src, int rtag,
              MPI_Comm comm, MPI_Status *status),
             (buf, count, type, dest, stag, src, rtag, comm, status), comm, dest, count, type)

/* ---- persistent sends: remembered at init, counted at each start ---- */

struct persistent {
    MPI_Request req;
    int peer;
    uint64_t bytes;
};
static struct persistent *persistents;
static int npersistent;
static pthread_mutex_t persistent_lock = PTHREAD_MUTEX_INITIALIZER;

static int remembered(int rc, MPI_Request *req, MPI_Comm comm, int dest, int count,
                      MPI_Datatype type)
{
    if (rc != MPI_SUCCESS)
        return rc;
    pthread_mutex_lock(&persistent_lock);
    persistents = realloc(persistents, (npersistent + 1) * sizeof *persistents);
    persistents[npersistent++] =
        (struct persistent){*req, mon_world_rank(comm, dest), mon_bytes(count, type)};
    pthread_mutex_unlock(&persistent_lock);
    return rc;
}

#define SEND_INIT_WRAPPER(NAME)                                                                    \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag,               \
                   MPI_Comm comm, MPI_Request *req)                                                \
    {                                                                                              \
        return remembered(PMPI_##NAME(buf, count, type, dest, tag, comm, req), req, comm, dest,    \
                          count, type);                                                            \
    }

SEND_INIT_WRAPPER(Send_init)
SEND_INIT_WRAPPER(Ssend_init)
SEND_INIT_WRAPPER(Rsend_init)
SEND_INIT_WRAPPER(Bsend_init)

static void started(MPI_Request req)
{
    if (!mon_on || npersistent == 0)
        return;
    pthread_mutex_lock(&persistent_lock);
    for (int i = 0; i < npersistent; i++)
        if (persistents[i].req == req)
            mon_record(MON_P2P, persistents[i].peer, persistents[i].bytes);
    pthread_mutex_unlock(&persistent_lock);
}

int MPI_Start(MPI_Request *req)
{
    started(*req);
    return PMPI_Start(req);
}

int MPI_Startall(int n, MPI_Request reqs[])
{
    for (int i = 0; i < n; i++)
        started(reqs[i]);
    return PMPI_Startall(n, reqs);
}

int MPI_Request_free(MPI_Request *req)
{
    pthread_mutex_lock(&persistent_lock);
    for (int i = 0; i < npersistent; i++)
        if (persistents[i].req == *req)
            persistents[i] = persistents[--npersistent];
    pthread_mutex_unlock(&persistent_lock);
    return PMPI_Request_free(req);
}

/* A freed datatype's handle may be reused for another type: forget the cached sizes. */
int MPI_Type_free(MPI_Datatype *type)
{
    mon_forget_types();
    return PMPI_Type_free(type);
}
