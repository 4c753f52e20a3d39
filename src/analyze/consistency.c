/* SPDX-License-Identifier: BSD-3-Clause */
/* consistency.c: before the replay, do the ranks' traces promise each other the same
 * communication? (It reads the definitions of defs.c.) The replay waits for
 * every message and collective the trace records, so a damaged or mixed-up trace would
 * hang it; checked here, such a trace stops with one line instead:
 *  - point-to-point: for every pair of ranks, the messages A's trace sends to B and those
 *    B's trace receives from A agree in number and in a hash of their (communicator, tag);
 *  - collectives: on every communicator, the members' sequences of collective operations
 *    (kind and root, one-sided fences included) hash to the same value.
 * Both are summed or chained over the first pass that reads the events anyway.
 */
#include <mpi.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

struct consistency {
    uint64_t *sent, *received; /* per world rank: count << 40 | hash of (comm, tag), summed */
    uint64_t *sequence;        /* per communicator: the chained hash of its collectives */
};
static struct consistency check;

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

/* World rank of rank r of communicator comm, or -1. */
static int64_t world_rank(struct analysis *A, OTF2_CommRef comm, uint32_t r)
{
    uint32_t n;
    const uint64_t *members = comm < A->ncomms ? group_of(A, A->comms[comm].group, &n) : NULL;
    return members && r < n ? (int64_t)members[r] : -1;
}

static uint64_t message_mark(OTF2_CommRef comm, uint32_t tag)
{
    return (1ULL << 40) + (mix(((uint64_t)comm << 32) | tag) & ((1ULL << 40) - 1));
}

static void count_message(struct analysis *A, uint64_t *table, uint32_t peer, OTF2_CommRef comm,
                          uint32_t tag)
{
    int64_t w = world_rank(A, comm, peer);
    if (w >= 0 && w < A->size)
        table[w] += message_mark(comm, tag);
}

/* check_send/check_isend count into check.sent, check_recv/check_irecv into
 * check.received (the non-blocking forms carry a request id more). */
#define COUNTING_CALLBACKS(KIND, TABLE)                                                            \
    static OTF2_CallbackCode check_##KIND(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos,      \
                                          void *u, OTF2_AttributeList *a, uint32_t peer,           \
                                          OTF2_CommRef comm, uint32_t tag, uint64_t len)           \
    {                                                                                              \
        (void)l, (void)t, (void)pos, (void)a, (void)len;                                           \
        count_message(u, check.TABLE, peer, comm, tag);                                            \
        return OTF2_CALLBACK_SUCCESS;                                                              \
    }                                                                                              \
    static OTF2_CallbackCode check_i##KIND(                                                        \
        OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a,        \
        uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t id)                 \
    {                                                                                              \
        (void)id;                                                                                  \
        return check_##KIND(l, t, pos, u, a, peer, comm, tag, len);                                \
    }
COUNTING_CALLBACKS(send, sent)
COUNTING_CALLBACKS(recv, received)

static void chain(struct analysis *A, OTF2_CommRef comm, uint64_t what)
{
    if (comm < A->ncomms)
        check.sequence[comm] = mix(check.sequence[comm] * 31 + what + 1);
}

static OTF2_CallbackCode check_collective(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos,
                                          void *u, OTF2_AttributeList *a, OTF2_CollectiveOp op,
                                          OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                          uint64_t received)
{
    struct analysis *A = u;
    (void)l, (void)t, (void)pos, (void)a, (void)sent, (void)received;
    chain(A, comm, ((uint64_t)op << 32) | root);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode check_fence(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                     OTF2_AttributeList *a, OTF2_CollectiveOp op,
                                     OTF2_RmaSyncLevel level, OTF2_RmaWinRef w, uint32_t root,
                                     uint64_t sent, uint64_t received)
{
    struct analysis *A = u;
    (void)l, (void)t, (void)pos, (void)a, (void)op, (void)level, (void)root, (void)sent;
    (void)received;
    if (w < A->windows_cap && A->windows[w].comm)
        chain(A, A->windows[w].comm - 1, 0xfe11ceULL);
    return OTF2_CALLBACK_SUCCESS;
}

/* The first pass's callbacks. */
void consistency_callbacks(struct analysis *A, OTF2_EvtReaderCallbacks *ec)
{
    check.sent = calloc(A->size, sizeof *check.sent);
    check.received = calloc(A->size, sizeof *check.received);
    check.sequence = calloc(A->ncomms + 1, sizeof *check.sequence);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(ec, check_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(ec, check_isend);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(ec, check_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(ec, check_irecv);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(ec, check_collective);
    OTF2_EvtReaderCallbacks_SetRmaCollectiveEndCallback(ec, check_fence);
}

/* Collective: returns when the traces agree; else stops every rank with a message naming
 * the first disagreement found (by the lowest rank that found one). */
void consistency_verdict(struct analysis *A, const char *run)
{
    uint64_t *promised = calloc(A->size, sizeof *promised);
    MPI_Alltoall(check.sent, 1, MPI_UINT64_T, promised, 1, MPI_UINT64_T, MPI_COMM_WORLD);
    int64_t bad[3] = {-1, -1, -1}; /* kind (0: messages, 1: collectives), sender/comm, receiver */
    for (int r = 0; r < A->size && bad[0] < 0; r++)
        if (promised[r] != check.received[r]) {
            bad[0] = 0;
            bad[1] = r;
            bad[2] = A->rank;
        }
    /* Every rank takes part in the reductions of all its communicators, in id order, even
     * after a disagreement: stopping early would leave the other members waiting. */
    for (uint32_t c = 0; c < A->ncomms; c++) {
        if (A->comms[c].forward == MPI_COMM_NULL)
            continue;
        uint64_t mine[2] = {check.sequence[c], ~check.sequence[c]}, all[2];
        MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_MAX, A->comms[c].forward);
        if (all[0] != ~all[1] && bad[0] < 0) { /* max != min */
            bad[0] = 1;
            bad[1] = c;
        }
    }
    int first = bad[0] >= 0 ? A->rank : A->size, who = A->size;
    MPI_Allreduce(&first, &who, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    free(promised);
    if (who == A->size)
        return;
    MPI_Bcast(bad, 3, MPI_INT64_T, who, MPI_COMM_WORLD);
    char msg[4400];
    if (bad[0] == 0)
        snprintf(msg, sizeof msg,
                 "%s: the traces disagree: the messages rank %lld's trace sends to rank %lld "
                 "are not those rank %lld's trace receives (a damaged or mixed-up trace); "
                 "trace the run again",
                 run, (long long)bad[1], (long long)bad[2], (long long)bad[2]);
    else
        snprintf(msg, sizeof msg,
                 "%s: the traces disagree on the collective operations of communicator %lld "
                 "(a damaged or mixed-up trace); trace the run again",
                 run, (long long)bad[1]);
    die("%s", msg);
}
