/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_wrap.c: what the trace records of point-to-point calls: Enter/Leave of each traced
 * MPI call, point-to-point send and receive events (peer as the rank in the communicator, as OTF2
 * defines it, tag, bytes, request ids for non-blocking ones, completed in the Wait and Test
 * families), all into the event log (trc_log.h). Collectives: trc_coll.c; one-sided calls:
 * trc_rma.c; the module's life (arguments, MPI_Init, MPI_Finalize): trc_life.c. On an
 * intercommunicator the peer is a rank of the remote group, which OTF2's Comm definition (one
 * group) cannot express: its point-to-point events are recorded on MPI_COMM_WORLD with the peer's
 * world rank (the analysis replays them there), and its collectives keep their Enter/Leave but no
 * collective event. Each thread records into its own log (trc_log.h), so any thread level is traced
 * whole. Matched probes: trc_mprobe.c; persistent requests: trc_persistent.c.
 */
#include <mpilens.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_output.h"
#include "status_bytes.h"
#include "trc.h"
#include "trc_wrap.h"

#define enter trc_enter
#define leave trc_leave

/* ---- where a message goes: communicator id and peer as recorded ---- */

/* World rank of rank r of a remote group (n world ranks), or r if out of range. */
static uint32_t world_of(const uint32_t *remote, uint32_t n, int r)
{
    return r >= 0 && (uint32_t)r < n ? remote[r] : (uint32_t)r;
}

struct where trc_where_other(MPI_Comm comm, int peer)
{
    struct lens_comm *rec = lens_comm(comm);
    if (!rec->inter)
        return (struct where){trc_comm_of(rec), (uint32_t)peer, NULL, 0};
    uint32_t n;
    const uint32_t *remote = trc_remote_world(comm, &n);
    return (struct where){trc_comm(MPI_COMM_WORLD), world_of(remote, n, peer), remote, n};
}

/* 1 and comm's id in *id if it is an intracommunicator (MPI_COMM_WORLD without a lookup). */
/* ---- requests: id, and what a receive needs at completion ---- */

enum pending_kind { PENDING_SEND, PENDING_RECV, PENDING_COLLECTIVE, PENDING_IO };
struct trc_pending {
    MPI_Request req;
    uint64_t id;
    int is_recv;        /* enum pending_kind */
    struct where where; /* a receive's source is translated through where.remote */
    /* a nonblocking collective: its operation, root and bytes (where.comm: its comm) */
    uint32_t op, root; /* a file operation: root is its handle */
    uint64_t sent, received;
    uint64_t op_id; /* a file operation's matching id */
};

/* Each thread keeps its own requests (ids are per OTF2 location); a request completed by
 * another thread than the one that started it is not found, and its completion not
 * recorded.
 *
 * Room for one more request in flight: 0, or -1 (out of memory: said). */
static __attribute__((noinline, cold)) int pendings_grow(struct trc_thread *me)
{
    size_t cap = me->cap ? 2 * me->cap : 64;
    if (lens_grow("trace", &me->pendings, cap, sizeof *me->pendings) != 0)
        return -1;
    me->cap = cap;
    return 0;
}

/* REQ kept in flight with the request id ID (numbered when its event was recorded). */
static inline struct trc_pending *keep_in(struct trc_thread *me, MPI_Request req, int is_recv,
                                          const struct where *w, uint64_t id)
{
    if (__builtin_expect(me->npending == me->cap, 0) && pendings_grow(me) != 0)
        return NULL; /* untraced: its completion is not recorded (said) */
    struct trc_pending *p = &me->pendings[me->npending++];
    p->req = req; /* what completion reads of a send; the callers fill the rest of theirs */
    p->id = id;
    p->is_recv = is_recv;
    if (is_recv != PENDING_SEND)
        p->where = *w;
    return p;
}

/* REQ kept in flight with the calling thread's next request id. */
static struct trc_pending *remember_at(MPI_Request req, int is_recv, const struct where *w)
{
    struct trc_thread *me = trc_me();
    return keep_in(me, req, is_recv, w, me->next_id++);
}

uint64_t trc_remember(MPI_Request req, int is_recv, const struct where *w)
{
    struct trc_pending *p = remember_at(req, is_recv, w);
    return p ? p->id : 0;
}

void trc_remember_io(MPI_Request req, uint32_t handle, uint64_t id)
{
    struct where none = {0, 0, NULL, 0};
    struct trc_pending *p = remember_at(req, PENDING_IO, &none);
    if (!p)
        return;
    p->root = handle;
    p->op_id = id;
}

/* A nonblocking collective on the intracommunicator comm (local id), completed in the Wait
 * and Test families: NonBlockingCollectiveRequest now, NonBlockingCollectiveComplete then. */
void trc_remember_collective(MPI_Request req, uint64_t t, uint32_t op, uint32_t comm, uint32_t root,
                             uint64_t sent, uint64_t received)
{
    struct where w = {comm, 0, NULL, 0};
    struct trc_pending *p = remember_at(req, PENDING_COLLECTIVE, &w);
    if (!p)
        return;
    p->op = op;
    p->root = root;
    p->sent = sent;
    p->received = received;
    trc_put(TK_NBC_REQUEST, (uint8_t)op, t, root, comm, 0, 0, p->id, 0);
}

/* What completed request I of ME's pendings records at time T, other than a send. */
static __attribute__((noinline)) void completed_other(struct trc_thread *me, int i,
                                                      const MPI_Status *st, uint64_t t)
{
    MPI_Status none; /* (a Wait passed no status for what it found a send before its call) */
    if (st == MPI_STATUS_IGNORE) {
        memset(&none, 0, sizeof none);
        st = &none;
    }
    const struct trc_pending *p = &me->pendings[i];
    if (p->is_recv == PENDING_IO) {
        trc_put_in(me, TK_IO_COMPLETE, 0, t, p->root, 0, 0, lens_status_bytes(st), p->op_id, 0);
    } else if (p->is_recv == PENDING_COLLECTIVE) {
        trc_put_in(me, TK_NBC_COMPLETE, (uint8_t)p->op, t, p->root, p->where.comm, 0, p->sent,
                   p->received, p->id);
    } else {
        const struct where *w = &p->where;
        uint32_t source =
            w->remote ? world_of(w->remote, w->nremote, st->MPI_SOURCE) : (uint32_t)st->MPI_SOURCE;
        trc_put_in(me, TK_MPI_IRECV, 0, t, source, w->comm, (uint32_t)st->MPI_TAG,
                   lens_status_bytes(st), p->id, 0);
    }
}

/* Where REQ is among ME's requests in flight, or -1; the newest first (a Wait follows its
 * Isend). */
static inline int pending_of(const struct trc_thread *me, MPI_Request req)
{
    int i = me->npending - 1;
    while (i >= 0 && me->pendings[i].req != req)
        i--;
    return i;
}

/* Request I of ME's forgotten (the last one takes its place). */
static inline void forget_at(struct trc_thread *me, int i)
{
    if (i != --me->npending)
        me->pendings[i] = me->pendings[me->npending];
}

/* Request REQ completed at time T with status ST (unused for a send): its event, and it is
 * forgotten. (Wait writes a send's completion with its Leave, wait_recorded.) */
static void completed(MPI_Request req, const MPI_Status *st, uint64_t t)
{
    struct trc_thread *me = trc_me();
    int i = pending_of(me, req);
    if (i < 0)
        return;
    if (me->pendings[i].is_recv == PENDING_SEND)
        trc_put_in(me, TK_MPI_ISEND_DONE, 0, t, 0, 0, 0, 0, me->pendings[i].id, 0);
    else
        completed_other(me, i, st, t);
    forget_at(me, i);
}

/* ---- point-to-point ---- */

/* The hottest wrappers come in two copies. MPI_X itself is the fast copy: when trc_tsc_on,
 * the thread's log has room for the call (trc_unmade has none: the thread's first call),
 * and (sends, Recv) the call names MPI_COMM_WORLD, whose id is known, and (sends) the
 * thread's last datatype, it records with no call but the library's (nothing in the
 * caller's registers to keep across another: a full buffer after the call is flushed by a
 * call given the whole record, trc_leave_at_return) and reads the time-stamp counter
 * without testing which clock is in use. Any other call goes to X_general, which finds out
 * what the fast copy assumed (makes the thread's state, flushes, numbers, asks). Both share
 * the body that records (X_recorded, inlined into each). */
#define LIKELY(x) __builtin_expect(!!(x), 1)

/* What a send's copies find out before its records: where the Enter goes in the log (room
 * made for the call), the message's bytes and where it goes. */
struct send_plan {
    size_t used;
    uint64_t bytes;
    struct where w;
};

/* A send's fast copy, when it may run: *P known without a call. */
static inline __attribute__((always_inline)) int send_fast(struct trc_thread *me, int count,
                                                           MPI_Datatype type, int dest,
                                                           MPI_Comm comm, struct send_plan *p)
{
    uint32_t world;
    if (!LIKELY(trc_tsc_on && comm == MPI_COMM_WORLD && dest != MPI_PROC_NULL &&
                trc_world_id_known(&world) && trc_bytes_known(me, count, type, &p->bytes) &&
                trc_log_has_room(&me->log, TRC_CALL_ROOM, &p->used)))
        return 0;
    p->w = (struct where){world, (uint32_t)dest, NULL, 0};
    return 1;
}

/* A send's general copy (traced, to a process): the thread's state made, *P found, the
 * room for the call made. */
static inline struct trc_thread *send_general(int count, MPI_Datatype type, int dest, MPI_Comm comm,
                                              struct send_plan *p)
{
    struct trc_thread *me = trc_me();
    p->w = trc_where(comm, dest);
    p->bytes = trc_bytes_in(me, count, type);
    p->used = trc_log_room(&me->log, TRC_CALL_ROOM, 1);
    return me;
}

/* A blocking send's records: Enter at USED (room made for the call) and its send event right
 * after it (no call between: within the room), then the Leave. */
#define BLOCKING_SEND(NAME, REGION)                                                                \
    static inline __attribute__((always_inline)) int NAME##_recorded(                              \
        struct trc_thread *me, struct send_plan p, int tsc, const void *buf, int count,            \
        MPI_Datatype type, int dest, int tag, MPI_Comm comm)                                       \
    {                                                                                              \
        uint64_t t = trc_enter_at(me, p.used, REGION, tsc);                                        \
        trc_put_words(&me->log, p.used + TRC_SHORT, t, trc_word(TK_MPI_SEND, 0, p.w.peer),         \
                      p.w.comm, (uint32_t)tag, p.bytes, 0, 0);                                     \
        int rc = mpilens_down_MPI_##NAME(buf, count, type, dest, tag, comm);                       \
        return trc_leave_at_return(me, rc, REGION, trc_now_as(tsc));                               \
    }                                                                                              \
    static __attribute__((noinline)) int NAME##_general(                                           \
        const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)           \
    {                                                                                              \
        if (!trc_on || dest == MPI_PROC_NULL)                                                      \
            return mpilens_down_MPI_##NAME(buf, count, type, dest, tag, comm);                     \
        struct send_plan p;                                                                        \
        struct trc_thread *me = send_general(count, type, dest, comm, &p);                         \
        return NAME##_recorded(me, p, 0, buf, count, type, dest, tag, comm);                       \
    }                                                                                              \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag,               \
                   MPI_Comm comm)                                                                  \
    {                                                                                              \
        struct trc_thread *me = trc_self; /* trc_unmade: no room */                                \
        struct send_plan p;                                                                        \
        if (send_fast(me, count, type, dest, comm, &p))                                            \
            return NAME##_recorded(me, p, 1, buf, count, type, dest, tag, comm);                   \
        return NAME##_general(buf, count, type, dest, tag, comm);                                  \
    }
BLOCKING_SEND(Send, R_Send)
BLOCKING_SEND(Ssend, R_Ssend)
BLOCKING_SEND(Bsend, R_Bsend)
BLOCKING_SEND(Rsend, R_Rsend)

/* A nonblocking send's records: Enter with its send event at USED, the Leave; its request
 * kept in flight. */
#define NONBLOCKING_SEND(NAME, REGION)                                                             \
    static inline __attribute__((always_inline)) int NAME##_recorded(                              \
        struct trc_thread *me, struct send_plan p, int tsc, const void *buf, int count,            \
        MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)                     \
    {                                                                                              \
        uint64_t id = me->next_id++; /* the request's, recorded with the call's Enter */           \
        trc_enter_with_at(me, p.used, tsc, REGION, TK_MPI_ISEND, p.w.peer, p.w.comm,               \
                          (uint32_t)tag, p.bytes, id);                                             \
        int rc = mpilens_down_MPI_##NAME(buf, count, type, dest, tag, comm, req);                  \
        keep_in(me, *req, PENDING_SEND, &p.w, id);                                                 \
        return trc_leave_at_return(me, rc, REGION, trc_now_as(tsc));                               \
    }                                                                                              \
    static __attribute__((noinline)) int NAME##_general(const void *buf, int count,                \
                                                        MPI_Datatype type, int dest, int tag,      \
                                                        MPI_Comm comm, MPI_Request *req)           \
    {                                                                                              \
        if (!trc_on || dest == MPI_PROC_NULL)                                                      \
            return mpilens_down_MPI_##NAME(buf, count, type, dest, tag, comm, req);                \
        struct send_plan p;                                                                        \
        struct trc_thread *me = send_general(count, type, dest, comm, &p);                         \
        return NAME##_recorded(me, p, 0, buf, count, type, dest, tag, comm, req);                  \
    }                                                                                              \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag,               \
                   MPI_Comm comm, MPI_Request *req)                                                \
    {                                                                                              \
        struct trc_thread *me = trc_self; /* trc_unmade: no room */                                \
        struct send_plan p;                                                                        \
        if (send_fast(me, count, type, dest, comm, &p))                                            \
            return NAME##_recorded(me, p, 1, buf, count, type, dest, tag, comm, req);              \
        return NAME##_general(buf, count, type, dest, tag, comm, req);                             \
    }
NONBLOCKING_SEND(Isend, R_Isend)
NONBLOCKING_SEND(Issend, R_Issend)
NONBLOCKING_SEND(Ibsend, R_Ibsend)
NONBLOCKING_SEND(Irsend, R_Irsend)

/* Recv's records: Enter at USED (room made), then the receive with the Leave; its where:
 * MPI_COMM_WORLD's id in *WORLD (known before the call: nothing but the library is called
 * after it), or found after the call when WORLD is NULL. */
static inline __attribute__((always_inline)) int
recv_recorded(struct trc_thread *me, size_t used, int tsc, const uint32_t *world, void *buf,
              int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Status local;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
    trc_enter_at(me, used, R_Recv, tsc);
    int rc = MPILENS_DOWN(Recv)(buf, count, type, src, tag, comm, st);
    uint64_t got = lens_status_bytes(st), t = trc_now_as(tsc); /* the receive's and the Leave's */
    struct where w = world ? (struct where){*world, (uint32_t)st->MPI_SOURCE, NULL, 0}
                           : trc_where(comm, st->MPI_SOURCE);
    return trc_leave_with_return(me, rc, R_Recv, t, TK_MPI_RECV, w.peer, w.comm,
                                 (uint32_t)st->MPI_TAG, got, 0);
}

static __attribute__((noinline)) int recv_general(void *buf, int count, MPI_Datatype type, int src,
                                                  int tag, MPI_Comm comm, MPI_Status *status)
{
    if (!trc_on || src == MPI_PROC_NULL)
        return MPILENS_DOWN(Recv)(buf, count, type, src, tag, comm, status);
    struct trc_thread *me = trc_me();
    size_t used = trc_log_room(&me->log, TRC_CALL_ROOM, 1);
    return recv_recorded(me, used, 0, NULL, buf, count, type, src, tag, comm, status);
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    struct trc_thread *me = trc_self; /* trc_unmade: no room */
    uint32_t world;
    size_t used;
    if (LIKELY(trc_tsc_on && comm == MPI_COMM_WORLD && src != MPI_PROC_NULL &&
               trc_world_id_known(&world) && trc_log_has_room(&me->log, TRC_CALL_ROOM, &used)))
        return recv_recorded(me, used, 1, &world, buf, count, type, src, tag, comm, status);
    return recv_general(buf, count, type, src, tag, comm, status);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    if (!trc_on || src == MPI_PROC_NULL)
        return MPILENS_DOWN(Irecv)(buf, count, type, src, tag, comm, req);
    uint64_t t = enter(R_Irecv);
    int rc = MPILENS_DOWN(Irecv)(buf, count, type, src, tag, comm, req);
    struct where w = trc_where(comm, src);
    trc_put(TK_MPI_IRECV_REQUEST, 0, t, 0, 0, 0, 0, trc_remember(*req, 1, &w), 0);
    leave(R_Irecv);
    return rc;
}

/* The two halves of a Sendrecv(_replace) around the call that does both. */
static void sendrecv_sent(MPI_Comm comm, int dest, int tag, uint64_t bytes, uint64_t t)
{
    if (dest != MPI_PROC_NULL) {
        struct where w = trc_where(comm, dest);
        trc_put(TK_MPI_SEND, 0, t, w.peer, w.comm, (uint32_t)tag, bytes, 0, 0);
    }
}

static void sendrecv_received(MPI_Comm comm, int src, const MPI_Status *st)
{
    if (src != MPI_PROC_NULL) {
        uint64_t got = lens_status_bytes(st);
        struct where w = trc_where(comm, st->MPI_SOURCE);
        trc_put(TK_MPI_RECV, 0, trc_now(), w.peer, w.comm, (uint32_t)st->MPI_TAG, (uint64_t)got, 0,
                0);
    }
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                 int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm,
                 MPI_Status *status)
{
    if (!trc_on)
        return MPILENS_DOWN(Sendrecv)(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src,
                                      rtag, comm, status);
    MPI_Status local;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
    uint64_t t = enter(R_Sendrecv);
    sendrecv_sent(comm, dest, stag, trc_bytes(scount, stype), t);
    int rc = MPILENS_DOWN(Sendrecv)(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag,
                                    comm, st);
    sendrecv_received(comm, src, st);
    leave(R_Sendrecv);
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int src,
                         int rtag, MPI_Comm comm, MPI_Status *status)
{
    if (!trc_on)
        return MPILENS_DOWN(Sendrecv_replace)(buf, count, type, dest, stag, src, rtag, comm,
                                              status);
    MPI_Status local;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
    uint64_t t = enter(R_Sendrecv_replace);
    sendrecv_sent(comm, dest, stag, trc_bytes(count, type), t);
    int rc = MPILENS_DOWN(Sendrecv_replace)(buf, count, type, dest, stag, src, rtag, comm, st);
    sendrecv_received(comm, src, st);
    leave(R_Sendrecv_replace);
    return rc;
}

/* Wait's records: Enter at USED (room made), then the completion with the Leave. */
static inline __attribute__((always_inline)) int
wait_recorded(struct trc_thread *me, size_t used, int tsc, MPI_Request *req, MPI_Status *status)
{
    MPI_Request before = *req;
    int i = pending_of(me, before);
    /* a send's completion needs no status: the caller's MPI_STATUS_IGNORE stays */
    MPI_Status local;
    int send = i >= 0 && me->pendings[i].is_recv == PENDING_SEND;
    MPI_Status *st = status == MPI_STATUS_IGNORE && !send ? &local : status;
    trc_enter_at(me, used, R_Wait, tsc);
    int rc = MPILENS_DOWN(Wait)(req, st);
    uint64_t t = trc_now_as(tsc); /* the completion's and the Leave's */
    if (i >= 0 && (i >= me->npending || me->pendings[i].req != before))
        i = pending_of(me, before); /* the requests moved during the call */
    if (i < 0)
        return trc_leave_at_return(me, rc, R_Wait, t);
    if (me->pendings[i].is_recv != PENDING_SEND) {
        completed_other(me, i, st, t);
        forget_at(me, i);
        return trc_leave_at_return(me, rc, R_Wait, t);
    }
    uint64_t id = me->pendings[i].id; /* a send: its completion carries the Leave */
    forget_at(me, i);
    return trc_leave_with_return(me, rc, R_Wait, t, TK_MPI_ISEND_DONE, 0, 0, 0, 0, id);
}

static __attribute__((noinline)) int wait_general(MPI_Request *req, MPI_Status *status)
{
    if (!trc_on)
        return MPILENS_DOWN(Wait)(req, status);
    struct trc_thread *me = trc_me();
    return wait_recorded(me, trc_log_room(&me->log, TRC_CALL_ROOM, 1), 0, req, status);
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    struct trc_thread *me = trc_self; /* trc_unmade: no room */
    size_t used;
    if (LIKELY(trc_tsc_on && trc_log_has_room(&me->log, TRC_CALL_ROOM, &used)))
        return wait_recorded(me, used, 1, req, status);
    return wait_general(req, status);
}

/* The rest of the Wait and Test families: what completed is recorded as Wait does. Each
 * keeps a copy of the request array (completion overwrites it) and a status array of its
 * own when the caller passed MPI_STATUS(ES)_IGNORE. */
struct completion {
    MPI_Request *before;
    MPI_Status *st;
};

static struct completion completion_begin(int n, const MPI_Request reqs[], MPI_Status *statuses,
                                          int ignored)
{
    struct completion c = {malloc((n + 1) * sizeof *c.before),
                           ignored ? malloc((n + 1) * sizeof *c.st) : statuses};
    memcpy(c.before, reqs, n * sizeof *c.before);
    return c;
}

static void completion_end(struct completion *c, const MPI_Status *statuses)
{
    if (c->st != statuses)
        free(c->st);
    free(c->before);
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    if (!trc_on)
        return MPILENS_DOWN(Waitall)(n, reqs, statuses);
    struct completion c = completion_begin(n, reqs, statuses, statuses == MPI_STATUSES_IGNORE);
    enter(R_Waitall);
    int rc = MPILENS_DOWN(Waitall)(n, reqs, c.st);
    uint64_t t = trc_now();
    for (int i = 0; i < n; i++)
        completed(c.before[i], &c.st[i], t);
    leave(R_Waitall);
    completion_end(&c, statuses);
    return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    if (!trc_on)
        return MPILENS_DOWN(Waitany)(n, reqs, index, status);
    struct completion c = completion_begin(n, reqs, status, status == MPI_STATUS_IGNORE);
    enter(R_Waitany);
    int rc = MPILENS_DOWN(Waitany)(n, reqs, index, c.st);
    if (*index != MPI_UNDEFINED)
        completed(c.before[*index], c.st, trc_now());
    leave(R_Waitany);
    completion_end(&c, status);
    return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    if (!trc_on)
        return MPILENS_DOWN(Test)(req, flag, status);
    struct completion c = completion_begin(1, req, status, status == MPI_STATUS_IGNORE);
    enter(R_Test);
    int rc = MPILENS_DOWN(Test)(req, flag, c.st);
    if (*flag)
        completed(c.before[0], c.st, trc_now());
    leave(R_Test);
    completion_end(&c, status);
    return rc;
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    if (!trc_on)
        return MPILENS_DOWN(Testany)(n, reqs, index, flag, status);
    struct completion c = completion_begin(n, reqs, status, status == MPI_STATUS_IGNORE);
    enter(R_Testany);
    int rc = MPILENS_DOWN(Testany)(n, reqs, index, flag, c.st);
    if (*flag && *index != MPI_UNDEFINED)
        completed(c.before[*index], c.st, trc_now());
    leave(R_Testany);
    completion_end(&c, status);
    return rc;
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    if (!trc_on)
        return MPILENS_DOWN(Testall)(n, reqs, flag, statuses);
    struct completion c = completion_begin(n, reqs, statuses, statuses == MPI_STATUSES_IGNORE);
    enter(R_Testall);
    int rc = MPILENS_DOWN(Testall)(n, reqs, flag, c.st);
    uint64_t t = trc_now();
    for (int i = 0; *flag && i < n; i++)
        completed(c.before[i], &c.st[i], t);
    leave(R_Testall);
    completion_end(&c, statuses);
    return rc;
}

/* Waitsome and Testsome: the requests at indices[0..*outcount) completed. */
#define SOME(NAME, REGION)                                                                         \
    int MPI_##NAME(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[]) \
    {                                                                                              \
        if (!trc_on)                                                                               \
            return mpilens_down_MPI_##NAME(n, reqs, outcount, indices, statuses);                  \
        struct completion c =                                                                      \
            completion_begin(n, reqs, statuses, statuses == MPI_STATUSES_IGNORE);                  \
        enter(REGION);                                                                             \
        int rc = mpilens_down_MPI_##NAME(n, reqs, outcount, indices, c.st);                        \
        uint64_t t = trc_now();                                                                    \
        for (int k = 0; *outcount != MPI_UNDEFINED && k < *outcount; k++)                          \
            completed(c.before[indices[k]], &c.st[k], t);                                          \
        leave(REGION);                                                                             \
        completion_end(&c, statuses);                                                              \
        return rc;                                                                                 \
    }
SOME(Waitsome, R_Waitsome)
SOME(Testsome, R_Testsome)
