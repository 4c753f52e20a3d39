/* SPDX-License-Identifier: BSD-3-Clause */
/* replay_rma.c: the one-sided part of the replay (analyze.h: the replay state it shares).
 * Definitions are the Scalasca RMA paper's (Hermanns et al.):
 *  - Wait at Fence: at a synchronizing fence (every enter before any exit), the latest enter
 *    minus the own enter; Early Fence, its sub-pattern: from the own enter to the exit of
 *    the latest transfer any origin made toward this rank in the closing epoch (counted even
 *    when the fence does not synchronize, and then as Wait at Fence as well);
 *  - Late Post: an origin's MPI_Win_start is charged the latest post enter of its targets
 *    minus its own enter when that post enter falls inside the start call; otherwise its
 *    MPI_Win_complete waits from its enter to that post enter;
 *  - Early Transfer: a transfer during whose call its target's post was entered, charged
 *    from the transfer's enter to the post enter;
 *  - Early Wait: the target's MPI_Win_wait, from its enter to the latest enter of its
 *    origins' MPI_Win_complete; Late Complete, its sub-pattern: the part of that wait after
 *    the exit of the latest transfer of those origins (or of their MPI_Win_start).
 * Timestamps travel point-to-point on a replay copy of the window's communicator (tag 1:
 * post -> start, tag 2: complete -> wait) and by collectives for fences; in the paper they
 * travel by one-sided operations, which give the same values.
 */
#include <mpi.h>
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

int rma_window_defined(struct analysis *A, uint32_t w, uint32_t comm)
{
    if (ENSURE(A->windows, A->windows_cap, w) != 0)
        return -1;
    A->windows[w].comm = comm + 1; /* 0: undefined */
    return 0;
}

/* The replay state of window W with this rank as a member, or NULL. */
static struct window *window(struct analysis *A, OTF2_RmaWinRef w)
{
    if (w >= A->windows_cap || A->windows[w].comm == 0 || A->windows[w].comm - 1 >= A->ncomms)
        return NULL;
    struct window *win = &A->windows[w];
    uint32_t c = win->comm - 1;
    if (A->comms[c].forward == MPI_COMM_NULL)
        return NULL;
    if (!win->last_op) {
        int n;
        MPI_Comm_size(A->comms[c].forward, &n);
        win->members = (uint32_t)n;
        win->last_op = calloc(n, sizeof *win->last_op);
        win->post_enter = calloc(n, sizeof *win->post_enter);
    }
    return win;
}

/* The rank in the window's communicator of world rank WORLD, or -1. */
static int window_rank(struct analysis *A, const struct window *win, uint64_t world)
{
    uint32_t n;
    const uint64_t *members = group_of(A, A->comms[win->comm - 1].group, &n);
    for (uint32_t i = 0; members && i < n; i++)
        if (members[i] == world)
            return (int)i;
    return -1;
}

OTF2_CallbackCode on_rma_fence(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                               OTF2_AttributeList *a, OTF2_CollectiveOp op, OTF2_RmaSyncLevel level,
                               OTF2_RmaWinRef w, uint32_t root, uint64_t sent, uint64_t received)
{
    (void)l, (void)pos, (void)a, (void)op, (void)level, (void)root, (void)sent, (void)received;
    struct analysis *A = u;
    struct window *win = window(A, w);
    if (!win)
        return OTF2_CALLBACK_SUCCESS;
    MPI_Comm c = A->comms[win->comm - 1].rma;
    /* latest enter, and the earliest exit as its complement (one MAX reduction) */
    uint64_t mine[2] = {A->cur_p->enter, UINT64_MAX - t}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_MAX, c);
    uint64_t latest_enter = all[0], earliest_exit = UINT64_MAX - all[1], incoming = 0;
    MPI_Reduce_scatter_block(win->last_op, &incoming, 1, MPI_UINT64_T, MPI_MAX, c);
    memset(win->last_op, 0, win->members * sizeof *win->last_op);
    uint64_t until = latest_enter < earliest_exit ? latest_enter : 0;
    later(A, until > incoming ? until : incoming, WAIT_AT_FENCE);
    A->cur_p->sub_pattern = EARLY_FENCE;
    A->cur_p->sub_from = A->cur_p->enter;
    A->cur_p->sub_until = incoming;
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_rma_group_sync(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                    OTF2_AttributeList *a, OTF2_RmaSyncLevel lvl, OTF2_RmaWinRef w,
                                    OTF2_GroupRef group)
{
    struct analysis *A = u;
    (void)l, (void)t, (void)pos, (void)a, (void)lvl;
    struct window *win = window(A, w);
    uint32_t n;
    const uint64_t *members = group_of(A, group, &n);
    if (!win || !members)
        return OTF2_CALLBACK_SUCCESS;
    MPI_Comm c = A->comms[win->comm - 1].rma;
    enum region_kind call = A->regions[A->cur_p->region].kind;
    uint64_t latest[2] = {0, 0};
    for (uint32_t i = 0; i < n; i++) {
        int peer = window_rank(A, win, members[i]);
        if (peer < 0)
            continue;
        uint64_t got[2];
        switch (call) {
        case WIN_POST:
            send_pair(A->cur_p->enter, 0, peer, 1, c);
            break;
        case WIN_START:
            MPI_Recv(got, 2, MPI_UINT64_T, peer, 1, c, MPI_STATUS_IGNORE);
            win->post_enter[peer] = got[0];
            win->last_op[peer] = 0;
            if (got[0] > latest[0])
                latest[0] = got[0];
            break;
        case WIN_COMPLETE:
            send_pair(A->cur_p->enter, win->last_op[peer] ? win->last_op[peer] : win->start_leave,
                      peer, 2, c);
            win->post_enter[peer] = 0;
            break;
        case WIN_WAIT:
            MPI_Recv(got, 2, MPI_UINT64_T, peer, 2, c, MPI_STATUS_IGNORE);
            for (int k = 0; k < 2; k++)
                if (got[k] > latest[k])
                    latest[k] = got[k];
            break;
        default:
            break;
        }
    }
    if (call == WIN_START) {
        win->post_max = latest[0];
        later(A, latest[0], LATE_POST);
        A->cur_p->strict = 1; /* the start blocked only if the post came during it */
        A->cur_p->win = win;
    } else if (call == WIN_COMPLETE && win->post_max > win->start_leave) {
        later(A, win->post_max, LATE_POST);
    } else if (call == WIN_WAIT) {
        later(A, latest[0], EARLY_WAIT);
        A->cur_p->sub_pattern = LATE_COMPLETE;
        A->cur_p->sub_from = latest[1];
        A->cur_p->sub_until = latest[0];
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* A transfer toward REMOTE: Early Transfer if the target's post came during it. */
static void transfer(struct analysis *A, OTF2_RmaWinRef w, uint32_t remote)
{
    struct window *win = window(A, w);
    if (!win || remote >= win->members)
        return;
    A->cur_p->win = win;
    A->cur_p->target = remote;
    if (win->post_enter[remote]) {
        later(A, win->post_enter[remote], EARLY_TRANSFER);
        A->cur_p->strict = 1;
    }
}

OTF2_CallbackCode on_rma_put(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                             OTF2_AttributeList *a, OTF2_RmaWinRef w, uint32_t remote,
                             uint64_t bytes, uint64_t id)
{
    struct analysis *A = u;
    (void)l, (void)t, (void)pos, (void)a, (void)bytes, (void)id;
    transfer(A, w, remote);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_rma_get(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                             OTF2_AttributeList *a, OTF2_RmaWinRef w, uint32_t remote,
                             uint64_t bytes, uint64_t id)
{
    return on_rma_put(l, t, pos, u, a, w, remote, bytes, id);
}

OTF2_CallbackCode on_rma_atomic(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                OTF2_AttributeList *a, OTF2_RmaWinRef w, uint32_t remote,
                                OTF2_RmaAtomicType type, uint64_t sent, uint64_t received,
                                uint64_t id)
{
    (void)type, (void)received;
    return on_rma_put(l, t, pos, u, a, w, remote, sent, id);
}

/* At the leave of a one-sided call: remember when the start or the transfer ended. */
void rma_leave(struct analysis *A, uint64_t t)
{
    if (!A->cur_p->win)
        return;
    if (A->regions[A->cur_p->region].kind == WIN_START)
        A->cur_p->win->start_leave = t;
    else
        A->cur_p->win->last_op[A->cur_p->target] = t;
    A->cur_p->win = NULL;
}
