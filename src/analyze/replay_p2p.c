/* SPDX-License-Identifier: BSD-3-Clause */
/* replay_p2p.c: point-to-point in the replay. A send sends its call's enter time (whether
 * it is synchronous, and its time on the ideal network) to the receiver on the forward copy of the
 * communicator, with the recorded tag; the receiver gets it at the receive (or the wait completing
 * it): Late Sender. A synchronous send gets the receiver's enter time back on the backward copy:
 * Late Receiver.
 */
#include <mpi.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

static uint64_t (*pending_send)[4]; /* id, peer, comm, tag of synchronous isends in flight */
static size_t npending;
static MPI_Request *sends; /* the replay's sends in flight (send_pair) */
static uint64_t (*payloads)[3];
static int *free_slots, nfree;

/* Sends timestamps without waiting, at most SEND_WINDOW in flight: when the window is
 * full, the replay waits for some to complete (MPI_Waitsome). A sender far ahead of its
 * receiver would otherwise pile up requests the library walks at every progress call
 * (quadratic time) and memory without bound. The messages are small enough to be sent
 * eagerly, so they complete as the receiver's library makes progress in any call. */
#define SEND_WINDOW 256
/* Sends N (2 or 3) values: A, B and C. */
static void send_values(int n, uint64_t a, uint64_t b, uint64_t c, int peer, int tag, MPI_Comm comm)
{
    if (!sends) {
        sends = malloc(SEND_WINDOW * sizeof *sends);
        payloads = malloc(SEND_WINDOW * sizeof *payloads);
        free_slots = malloc(SEND_WINDOW * sizeof *free_slots);
        for (int i = 0; i < SEND_WINDOW; i++) {
            sends[i] = MPI_REQUEST_NULL;
            free_slots[nfree++] = i;
        }
    }
    if (nfree == 0) {
        int done = 0;
        static MPI_Status statuses[SEND_WINDOW]; /* (MPICH's STATUSES_IGNORE upsets GCC) */
        MPI_Waitsome(SEND_WINDOW, sends, &done, free_slots, statuses);
        nfree = done > 0 ? done : 0;
    }
    int slot = free_slots[--nfree];
    payloads[slot][0] = a;
    payloads[slot][1] = b;
    payloads[slot][2] = c;
    MPI_Isend(payloads[slot], n, MPI_UINT64_T, peer, tag, comm, &sends[slot]);
}

void send_pair(uint64_t a, uint64_t b, int peer, int tag, MPI_Comm comm)
{
    send_values(2, a, b, 0, peer, tag, comm);
}

/* The send's enter time, whether it is synchronous, and its ideal time (the receive on an
 * ideal network completes no earlier). */
static void send_time(struct analysis *A, uint32_t peer, OTF2_CommRef comm, uint32_t tag)
{
    send_values(3, A->cur_p->enter, (uint64_t)A->cur_p->synchronous, A->ideal, (int)peer, (int)tag,
                A->comms[comm].forward);
}

/* For a synchronous send: the receiver's enter time, sent back when it received. */
static void receiver_echo(struct analysis *A, uint32_t peer, OTF2_CommRef comm, uint32_t tag)
{
    uint64_t remote;
    MPI_Recv(&remote, 1, MPI_UINT64_T, (int)peer, (int)tag, A->comms[comm].backward,
             MPI_STATUS_IGNORE);
    later(A, remote, LATE_RECEIVER);
}

OTF2_CallbackCode on_send(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                          OTF2_AttributeList *a, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                          uint64_t len)
{
    struct analysis *A = u;
    (void)pos;
    (void)l, (void)t, (void)a, (void)len;
    if (comm >= A->ncomms)
        return OTF2_CALLBACK_SUCCESS;
    send_time(A, peer, comm, tag);
    if (A->cur_p->synchronous)
        receiver_echo(A, peer, comm, tag);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_isend(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                           OTF2_AttributeList *a, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                           uint64_t len, uint64_t id)
{
    struct analysis *A = u;
    (void)pos;
    (void)l, (void)t, (void)a, (void)len;
    if (comm >= A->ncomms)
        return OTF2_CALLBACK_SUCCESS;
    send_time(A, peer, comm, tag);
    if (A->cur_p->synchronous) {
        pending_send = realloc(pending_send, (npending + 1) * sizeof *pending_send);
        pending_send[npending][0] = id;
        pending_send[npending][1] = peer;
        pending_send[npending][2] = comm;
        pending_send[npending++][3] = tag;
    }
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_isend_complete(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                    OTF2_AttributeList *a, uint64_t id)
{
    struct analysis *A = u;
    (void)pos;
    (void)l, (void)t, (void)a;
    for (size_t i = 0; i < npending; i++) {
        if (pending_send[i][0] == id) {
            receiver_echo(A, (uint32_t)pending_send[i][1], (OTF2_CommRef)pending_send[i][2],
                          (uint32_t)pending_send[i][3]);
            memcpy(pending_send[i], pending_send[--npending], sizeof *pending_send);
            break; /* the table holds the synchronous sends in flight only */
        }
    }
    return OTF2_CALLBACK_SUCCESS;
}

static void receive(struct analysis *A, uint32_t peer, OTF2_CommRef comm, uint32_t tag)
{
    uint64_t p[3];
    MPI_Recv(p, 3, MPI_UINT64_T, (int)peer, (int)tag, A->comms[comm].forward, MPI_STATUS_IGNORE);
    later(A, p[0], LATE_SENDER);
    ideal_after(A, p[2]);
    if (p[1])
        MPI_Send(&A->cur_p->enter, 1, MPI_UINT64_T, (int)peer, (int)tag, A->comms[comm].backward);
}

OTF2_CallbackCode on_recv(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                          OTF2_AttributeList *a, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                          uint64_t len)
{
    struct analysis *A = u;
    (void)pos;
    (void)l, (void)t, (void)a, (void)len;
    if (comm < A->ncomms)
        receive(A, peer, comm, tag);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_irecv(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                           OTF2_AttributeList *a, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                           uint64_t len, uint64_t id)
{
    (void)id;
    return on_recv(l, t, pos, u, a, peer, comm, tag, len);
}

void p2p_finish(void)
{
    if (sends) {
        MPI_Status *statuses = malloc(SEND_WINDOW * sizeof *statuses);
        MPI_Waitall(SEND_WINDOW, sends, statuses);
        free(statuses);
    }
}
