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

int rma_window_defined(uint32_t w, uint32_t comm)
{
    if (ENSURE(windows, windows_cap, w) != 0)
        return -1;
    windows[w].comm = comm + 1; /* 0: undefined */
    return 0;
}

/* The replay state of window W with this rank as a member, or NULL. */
static struct window *window(OTF2_RmaWinRef w)
{
    if (w >= windows_cap || windows[w].comm == 0 || windows[w].comm - 1 >= ncomms)
        return NULL;
    struct window *win = &windows[w];
    uint32_t c = win->comm - 1;
    if (comms[c].forward == MPI_COMM_NULL)
        return NULL;
    if (!win->last_op) {
        int n;
        MPI_Comm_size(comms[c].forward, &n);
        win->members = (uint32_t)n;
        win->last_op = calloc(n, sizeof *win->last_op);
        win->post_enter = calloc(n, sizeof *win->post_enter);
    }
    return win;
}

/* The rank in the window's communicator of world rank WORLD, or -1. */
static int window_rank(const struct window *win, uint64_t world)
{
    uint32_t n;
    const uint64_t *members = group_of(comms[win->comm - 1].group, &n);
    for (uint32_t i = 0; members && i < n; i++)
        if (members[i] == world)
            return (int)i;
    return -1;
}

OTF2_CallbackCode on_rma_fence(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                               OTF2_AttributeList *a, OTF2_CollectiveOp op, OTF2_RmaSyncLevel level,
                               OTF2_RmaWinRef w, uint32_t root, uint64_t sent, uint64_t received)
{
    (void)l, (void)pos, (void)u, (void)a, (void)op, (void)level, (void)root, (void)sent;
    (void)received;
    struct window *win = window(w);
    if (!win)
        return OTF2_CALLBACK_SUCCESS;
    MPI_Comm c = comms[win->comm - 1].rma;
    t = clock_fix_apply(&clock_fix, t);
    /* latest enter, and the earliest exit as its complement (one MAX reduction) */
    uint64_t mine[2] = {cur.enter, UINT64_MAX - t}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_MAX, c);
    uint64_t latest_enter = all[0], earliest_exit = UINT64_MAX - all[1], incoming = 0;
    MPI_Reduce_scatter_block(win->last_op, &incoming, 1, MPI_UINT64_T, MPI_MAX, c);
    memset(win->last_op, 0, win->members * sizeof *win->last_op);
    uint64_t until = latest_enter < earliest_exit ? latest_enter : 0;
    later(until > incoming ? until : incoming, WAIT_AT_FENCE);
    cur.sub_pattern = EARLY_FENCE;
    cur.sub_from = cur.enter;
    cur.sub_until = incoming;
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_rma_group_sync(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                    OTF2_AttributeList *a, OTF2_RmaSyncLevel lvl, OTF2_RmaWinRef w,
                                    OTF2_GroupRef group)
{
    (void)l, (void)t, (void)pos, (void)u, (void)a, (void)lvl;
    struct window *win = window(w);
    uint32_t n;
    const uint64_t *members = group_of(group, &n);
    if (!win || !members)
        return OTF2_CALLBACK_SUCCESS;
    MPI_Comm c = comms[win->comm - 1].rma;
    enum region_kind call = regions[cur.region].kind;
    uint64_t latest[2] = {0, 0};
    for (uint32_t i = 0; i < n; i++) {
        int peer = window_rank(win, members[i]);
        if (peer < 0)
            continue;
        uint64_t got[2];
        switch (call) {
        case WIN_POST:
            send_pair(cur.enter, 0, peer, 1, c);
            break;
        case WIN_START:
            MPI_Recv(got, 2, MPI_UINT64_T, peer, 1, c, MPI_STATUS_IGNORE);
            win->post_enter[peer] = got[0];
            win->last_op[peer] = 0;
            if (got[0] > latest[0])
                latest[0] = got[0];
            break;
        case WIN_COMPLETE:
            send_pair(cur.enter, win->last_op[peer] ? win->last_op[peer] : win->start_leave, peer,
                      2, c);
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
        later(latest[0], LATE_POST);
        cur.strict = 1; /* the start blocked only if the post came during it */
        cur.win = win;
    } else if (call == WIN_COMPLETE && win->post_max > win->start_leave) {
        later(win->post_max, LATE_POST);
    } else if (call == WIN_WAIT) {
        later(latest[0], EARLY_WAIT);
        cur.sub_pattern = LATE_COMPLETE;
        cur.sub_from = latest[1];
        cur.sub_until = latest[0];
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* A transfer toward REMOTE: Early Transfer if the target's post came during it. */
static void transfer(OTF2_RmaWinRef w, uint32_t remote)
{
    struct window *win = window(w);
    if (!win || remote >= win->members)
        return;
    cur.win = win;
    cur.target = remote;
    if (win->post_enter[remote]) {
        later(win->post_enter[remote], EARLY_TRANSFER);
        cur.strict = 1;
    }
}

OTF2_CallbackCode on_rma_put(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                             OTF2_AttributeList *a, OTF2_RmaWinRef w, uint32_t remote,
                             uint64_t bytes, uint64_t id)
{
    (void)l, (void)t, (void)pos, (void)u, (void)a, (void)bytes, (void)id;
    transfer(w, remote);
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
void rma_leave(uint64_t t)
{
    if (!cur.win)
        return;
    if (regions[cur.region].kind == WIN_START)
        cur.win->start_leave = t;
    else
        cur.win->last_op[cur.target] = t;
    cur.win = NULL;
}
