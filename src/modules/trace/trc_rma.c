/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_rma.c: what the trace records of one-sided communication, as OTF2 RMA events.
 *
 * Windows (through the hooks of commtrack's window wrappers): RmaWinCreate/RmaWinDestroy,
 * and an RmaWin definition on the window's communicator. Fence: RmaCollectiveBegin/End. General
 * active target synchronization: RmaGroupSync at MPI_Win_post and MPI_Win_start (with their group,
 * as world ranks) and at MPI_Win_wait and MPI_Win_complete (with the group of the epoch they
 * close). Passive target: RmaAcquireLock/RmaReleaseLock (target, lock type), RmaSync for the flush
 * family. Transfers: RmaPut, RmaGet, RmaAtomic (accumulate), with the target's rank in the window.
 *
 * Window and group ids are local to a rank while the run goes; the merge of definitions
 * (trc_defs.c) gives them global ids: a window is named by (global communicator, how many
 * windows were created on that communicator before it), which all its members agree on
 * because window creation is collective; a group by its member list.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_output.h"
#include "trc.h"

struct window {
    MPI_Win win;
    uint32_t comm;        /* local communicator id */
    uint32_t ordinal;     /* windows created on that communicator before this one */
    uint32_t post_group;  /* the exposure epoch's group (closed by MPI_Win_wait) */
    uint32_t start_group; /* the access epoch's group (closed by MPI_Win_complete) */
};
static struct window *windows;
static uint32_t nwindows;
static uint64_t **groups; /* local group id -> [n, world ranks...] */
static uint32_t ngroups;
static uint64_t next_matching_id = 1; /* (atomic: any thread) */

/* The tables below are shared by the threads: read and changed under trc_lock. */
static uint32_t window_of(MPI_Win win)
{
    uint32_t found = OTF2_UNDEFINED_UINT32;
    pthread_mutex_lock(&trc_lock);
    for (uint32_t i = nwindows; i-- > 0 && found == OTF2_UNDEFINED_UINT32;)
        if (windows[i].win == win)
            found = i;
    pthread_mutex_unlock(&trc_lock);
    return found;
}

static void new_window(MPI_Win win, MPI_Comm comm, uint64_t t)
{
    uint32_t c = trc_comm(comm), ordinal = 0;
    pthread_mutex_lock(&trc_lock);
    for (uint32_t i = 0; i < nwindows; i++)
        ordinal += windows[i].comm == c;
    if (lens_grow("trace", &windows, nwindows + 1, sizeof *windows) != 0) {
        pthread_mutex_unlock(&trc_lock); /* said once; this window goes untraced */
        return;
    }
    windows[nwindows] = (struct window){win, c, ordinal, 0, 0};
    uint32_t id = nwindows++;
    pthread_mutex_unlock(&trc_lock);
    trc_put(TK_RMA_WIN_CREATE, 0, t, id, 0, 0, 0, 0, 0);
}

/* The local id of GROUP's member list (world ranks), defined on first use; out of memory,
 * OTF2_UNDEFINED_UINT32 (the epoch's group record is left out), said once. */
static uint32_t group_id(MPI_Group group)
{
    static MPI_Group world_group = MPI_GROUP_NULL;
    if (world_group == MPI_GROUP_NULL)
        PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    int n = 0;
    PMPI_Group_size(group, &n);
    int *ranks = malloc((n + 1) * sizeof *ranks), *world = malloc((n + 1) * sizeof *world);
    uint64_t *g = malloc((n + 1) * sizeof *g);
    uint32_t id = OTF2_UNDEFINED_UINT32;
    if (ranks && world && g) {
        for (int i = 0; i < n; i++)
            ranks[i] = i;
        PMPI_Group_translate_ranks(group, n, ranks, world_group, world);
        g[0] = (uint64_t)n;
        for (int i = 0; i < n; i++)
            g[i + 1] = (uint64_t)world[i];
        pthread_mutex_lock(&trc_lock);
        for (uint32_t i = 0; i < ngroups && id == OTF2_UNDEFINED_UINT32; i++)
            if (groups[i][0] == g[0] && memcmp(groups[i], g, (n + 1) * sizeof *g) == 0)
                id = i;
        if (id == OTF2_UNDEFINED_UINT32 &&
            lens_grow("trace", &groups, ngroups + 1, sizeof *groups) == 0) {
            groups[ngroups] = g;
            g = NULL;
            id = ngroups++;
        }
        pthread_mutex_unlock(&trc_lock);
    } else {
        static int said;
        if (!said++)
            lens_run_problem("trace",
                             "trace: out of memory for an epoch's group of %d ranks: "
                             "its synchronisation records name no group",
                             n);
    }
    free(ranks);
    free(world);
    free(g);
    return id;
}

/* A one-sided call on the window WIN: Enter, the call, RECORD (an OTF2 record about window
 * w_, written only for windows the trace knows), Leave. */
#define WINDOW_CALL(REGION, CALL, RECORD)                                                          \
    if (!trc_on)                                                                                   \
        return CALL;                                                                               \
    trc_enter(REGION);                                                                             \
    int rc_ = CALL;                                                                                \
    uint32_t w_ = window_of(win);                                                                  \
    if (w_ != OTF2_UNDEFINED_UINT32)                                                               \
        RECORD;                                                                                    \
    trc_leave(REGION);                                                                             \
    return rc_

/* ---- windows (the hooks of commtrack's window wrappers) ---- */

static void window_made(MPI_Win win, MPI_Comm comm)
{
    if (trc_on)
        new_window(win, comm, trc_now());
}

static void window_freed(MPI_Win win)
{
    uint32_t w = trc_on ? window_of(win) : OTF2_UNDEFINED_UINT32;
    if (w != OTF2_UNDEFINED_UINT32) {
        trc_put(TK_RMA_WIN_DESTROY, 0, trc_now(), w, 0, 0, 0, 0, 0);
        pthread_mutex_lock(&trc_lock);
        windows[w].win = MPI_WIN_NULL;
        pthread_mutex_unlock(&trc_lock);
    }
}

const struct lens_handle_hooks trc_handle_hooks = {.window_made = window_made,
                                                   .window_freed = window_freed};

/* ---- synchronization ---- */

int MPI_Win_fence(int assert, MPI_Win win)
{
    if (!trc_on)
        return MPILENS_DOWN(Win_fence)(assert, win);
    uint64_t t = trc_enter(R_Win_fence);
    trc_put_mark(TK_RMA_COLL_BEGIN, t);
    int rc = MPILENS_DOWN(Win_fence)(assert, win);
    uint32_t w = window_of(win);
    if (w != OTF2_UNDEFINED_UINT32)
        trc_put(TK_RMA_COLL_END, OTF2_COLLECTIVE_OP_BARRIER, trc_now(), w, OTF2_UNDEFINED_UINT32,
                OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY, 0, 0, 0);
    trc_leave(R_Win_fence);
    return rc;
}

/* An epoch call: Enter, the call, RmaGroupSync with the epoch's group, Leave. CALL opens an
 * epoch (post/start: the group is its argument) and CLOSE ends one (wait/complete: the group
 * is the one its opening call gave); EXPOSURE tells post/wait from start/complete. */
static int group_sync(int region, MPI_Win win, MPI_Group group, int exposure,
                      int (*call)(MPI_Group, int, MPI_Win), int (*close)(MPI_Win), int assert)
{
    trc_enter(region);
    int rc = call ? call(group, assert, win) : close(win);
    uint32_t w = window_of(win);
    if (w != OTF2_UNDEFINED_UINT32) {
        uint32_t id = call ? group_id(group) : 0;
        pthread_mutex_lock(&trc_lock);
        uint32_t *epoch = exposure ? &windows[w].post_group : &windows[w].start_group;
        if (call)
            *epoch = id;
        id = *epoch;
        pthread_mutex_unlock(&trc_lock);
        if (id != OTF2_UNDEFINED_UINT32) /* else out of memory for the group: said */
            trc_put(TK_RMA_GROUP_SYNC, 0, trc_now(), w, id,
                    call ? OTF2_RMA_SYNC_LEVEL_PROCESS
                         : OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY,
                    0, 0, 0);
    }
    trc_leave(region);
    return rc;
}

int MPI_Win_post(MPI_Group g, int assert, MPI_Win win)
{
    if (!trc_on)
        return MPILENS_DOWN(Win_post)(g, assert, win);
    return group_sync(R_Win_post, win, g, 1, MPILENS_DOWN(Win_post), NULL, assert);
}
int MPI_Win_start(MPI_Group g, int assert, MPI_Win win)
{
    if (!trc_on)
        return MPILENS_DOWN(Win_start)(g, assert, win);
    return group_sync(R_Win_start, win, g, 0, MPILENS_DOWN(Win_start), NULL, assert);
}
int MPI_Win_complete(MPI_Win win)
{
    if (!trc_on)
        return MPILENS_DOWN(Win_complete)(win);
    return group_sync(R_Win_complete, win, MPI_GROUP_NULL, 0, NULL, MPILENS_DOWN(Win_complete), 0);
}
int MPI_Win_wait(MPI_Win win)
{
    if (!trc_on)
        return MPILENS_DOWN(Win_wait)(win);
    return group_sync(R_Win_wait, win, MPI_GROUP_NULL, 1, NULL, MPILENS_DOWN(Win_wait), 0);
}

/* MPI_Win_test: the test that finds the exposure epoch complete closes it as MPI_Win_wait
 * does (RmaGroupSync with the epoch's group); the others are their region only. */
int MPI_Win_test(MPI_Win win, int *flag)
{
    if (!trc_on)
        return MPILENS_DOWN(Win_test)(win, flag);
    trc_enter(R_Win_test);
    int rc = MPILENS_DOWN(Win_test)(win, flag);
    uint32_t w = rc == MPI_SUCCESS && *flag ? window_of(win) : OTF2_UNDEFINED_UINT32;
    if (w != OTF2_UNDEFINED_UINT32) {
        pthread_mutex_lock(&trc_lock);
        uint32_t id = windows[w].post_group;
        pthread_mutex_unlock(&trc_lock);
        if (id != OTF2_UNDEFINED_UINT32) /* else out of memory for the group: said */
            trc_put(TK_RMA_GROUP_SYNC, 0, trc_now(), w, id,
                    OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY, 0, 0, 0);
    }
    trc_leave(R_Win_test);
    return rc;
}

/* Passive target on every rank of the window (Score-P's form): the lock, its release and
 * MPI_Win_sync name no target (OTF2_UNDEFINED_UINT32). */
int MPI_Win_lock_all(int assert, MPI_Win win)
{
    WINDOW_CALL(R_Win_lock_all, MPILENS_DOWN(Win_lock_all)(assert, win),
                trc_put(TK_RMA_ACQUIRE_LOCK, OTF2_LOCK_SHARED, trc_now(), w_, OTF2_UNDEFINED_UINT32,
                        0, 0, 0, 0));
}
int MPI_Win_unlock_all(MPI_Win win)
{
    WINDOW_CALL(R_Win_unlock_all, MPILENS_DOWN(Win_unlock_all)(win),
                trc_put(TK_RMA_RELEASE_LOCK, 0, trc_now(), w_, OTF2_UNDEFINED_UINT32, 0, 0, 0, 0));
}
int MPI_Win_sync(MPI_Win win)
{
    WINDOW_CALL(R_Win_sync, MPILENS_DOWN(Win_sync)(win),
                trc_put(TK_RMA_SYNC, OTF2_RMA_SYNC_TYPE_MEMORY, trc_now(), w_,
                        OTF2_UNDEFINED_UINT32, 0, 0, 0, 0));
}

int MPI_Win_lock(int type, int rank, int assert, MPI_Win win)
{
    WINDOW_CALL(R_Win_lock, MPILENS_DOWN(Win_lock)(type, rank, assert, win),
                trc_put(TK_RMA_ACQUIRE_LOCK,
                        type == MPI_LOCK_SHARED ? OTF2_LOCK_SHARED : OTF2_LOCK_EXCLUSIVE, trc_now(),
                        w_, (uint32_t)rank, 0, 0, 0, 0));
}
int MPI_Win_unlock(int rank, MPI_Win win)
{
    WINDOW_CALL(R_Win_unlock, MPILENS_DOWN(Win_unlock)(rank, win),
                trc_put(TK_RMA_RELEASE_LOCK, 0, trc_now(), w_, (uint32_t)rank, 0, 0, 0, 0));
}

/* The flush family: RmaSync (memory) toward TARGET (OTF2_UNDEFINED_UINT32: all targets). */
#define FLUSH(REGION, TARGET, CALL)                                                                \
    WINDOW_CALL(                                                                                   \
        REGION, CALL,                                                                              \
        trc_put(TK_RMA_SYNC, OTF2_RMA_SYNC_TYPE_MEMORY, trc_now(), w_, TARGET, 0, 0, 0, 0))

int MPI_Win_flush(int rank, MPI_Win win)
{
    FLUSH(R_Win_flush, (uint32_t)rank, MPILENS_DOWN(Win_flush)(rank, win));
}
int MPI_Win_flush_all(MPI_Win win)
{
    FLUSH(R_Win_flush_all, OTF2_UNDEFINED_UINT32, MPILENS_DOWN(Win_flush_all)(win));
}
int MPI_Win_flush_local(int rank, MPI_Win win)
{
    FLUSH(R_Win_flush_local, (uint32_t)rank, MPILENS_DOWN(Win_flush_local)(rank, win));
}
int MPI_Win_flush_local_all(MPI_Win win)
{
    FLUSH(R_Win_flush_local_all, OTF2_UNDEFINED_UINT32, MPILENS_DOWN(Win_flush_local_all)(win));
}

/* ---- transfers ---- */

int MPI_Put(const void *o, int oc, MPI_Datatype ot, int target, MPI_Aint disp, int tc,
            MPI_Datatype tt, MPI_Win win)
{
    WINDOW_CALL(R_Put, MPILENS_DOWN(Put)(o, oc, ot, target, disp, tc, tt, win),
                trc_put(TK_RMA_PUT, 0, trc_now(), w_, (uint32_t)target, 0, trc_bytes(oc, ot),
                        __atomic_fetch_add(&next_matching_id, 1, __ATOMIC_RELAXED), 0));
}
int MPI_Get(void *o, int oc, MPI_Datatype ot, int target, MPI_Aint disp, int tc, MPI_Datatype tt,
            MPI_Win win)
{
    WINDOW_CALL(R_Get, MPILENS_DOWN(Get)(o, oc, ot, target, disp, tc, tt, win),
                trc_put(TK_RMA_GET, 0, trc_now(), w_, (uint32_t)target, 0, trc_bytes(oc, ot),
                        __atomic_fetch_add(&next_matching_id, 1, __ATOMIC_RELAXED), 0));
}
int MPI_Accumulate(const void *o, int oc, MPI_Datatype ot, int target, MPI_Aint disp, int tc,
                   MPI_Datatype tt, MPI_Op op, MPI_Win win)
{
    WINDOW_CALL(R_Accumulate, MPILENS_DOWN(Accumulate)(o, oc, ot, target, disp, tc, tt, op, win),
                trc_put(TK_RMA_ATOMIC, OTF2_RMA_ATOMIC_TYPE_ACCUMULATE, trc_now(), w_,
                        (uint32_t)target, 0, trc_bytes(oc, ot), 0,
                        __atomic_fetch_add(&next_matching_id, 1, __ATOMIC_RELAXED)));
}

/* Request-based transfers: the events of their blocking twins, at the call (the request's
 * completion is not recorded). */
#define NEXT_ID __atomic_fetch_add(&next_matching_id, 1, __ATOMIC_RELAXED)
int MPI_Rput(const void *o, int oc, MPI_Datatype ot, int target, MPI_Aint disp, int tc,
             MPI_Datatype tt, MPI_Win win, MPI_Request *req)
{
    WINDOW_CALL(
        R_Rput, MPILENS_DOWN(Rput)(o, oc, ot, target, disp, tc, tt, win, req),
        trc_put(TK_RMA_PUT, 0, trc_now(), w_, (uint32_t)target, 0, trc_bytes(oc, ot), NEXT_ID, 0));
}
int MPI_Rget(void *o, int oc, MPI_Datatype ot, int target, MPI_Aint disp, int tc, MPI_Datatype tt,
             MPI_Win win, MPI_Request *req)
{
    WINDOW_CALL(
        R_Rget, MPILENS_DOWN(Rget)(o, oc, ot, target, disp, tc, tt, win, req),
        trc_put(TK_RMA_GET, 0, trc_now(), w_, (uint32_t)target, 0, trc_bytes(oc, ot), NEXT_ID, 0));
}
int MPI_Raccumulate(const void *o, int oc, MPI_Datatype ot, int target, MPI_Aint disp, int tc,
                    MPI_Datatype tt, MPI_Op op, MPI_Win win, MPI_Request *req)
{
    WINDOW_CALL(R_Raccumulate,
                MPILENS_DOWN(Raccumulate)(o, oc, ot, target, disp, tc, tt, op, win, req),
                trc_put(TK_RMA_ATOMIC, OTF2_RMA_ATOMIC_TYPE_ACCUMULATE, trc_now(), w_,
                        (uint32_t)target, 0, trc_bytes(oc, ot), 0, NEXT_ID));
}

/* The fetching atomics (as Score-P records them): RmaAtomic with the bytes sent (origin
 * data, and the compare value) and received (the result). */
int MPI_Get_accumulate(const void *o, int oc, MPI_Datatype ot, void *r, int rc, MPI_Datatype rt,
                       int target, MPI_Aint disp, int tc, MPI_Datatype tt, MPI_Op op, MPI_Win win)
{
    WINDOW_CALL(R_Get_accumulate,
                MPILENS_DOWN(Get_accumulate)(o, oc, ot, r, rc, rt, target, disp, tc, tt, op, win),
                trc_put(TK_RMA_ATOMIC, OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE, trc_now(), w_,
                        (uint32_t)target, 0, trc_bytes(oc, ot), trc_bytes(rc, rt), NEXT_ID));
}
int MPI_Rget_accumulate(const void *o, int oc, MPI_Datatype ot, void *r, int rc, MPI_Datatype rt,
                        int target, MPI_Aint disp, int tc, MPI_Datatype tt, MPI_Op op, MPI_Win win,
                        MPI_Request *req)
{
    WINDOW_CALL(
        R_Rget_accumulate,
        MPILENS_DOWN(Rget_accumulate)(o, oc, ot, r, rc, rt, target, disp, tc, tt, op, win, req),
        trc_put(TK_RMA_ATOMIC, OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE, trc_now(), w_,
                (uint32_t)target, 0, trc_bytes(oc, ot), trc_bytes(rc, rt), NEXT_ID));
}
int MPI_Fetch_and_op(const void *o, void *r, MPI_Datatype type, int target, MPI_Aint disp,
                     MPI_Op op, MPI_Win win)
{
    WINDOW_CALL(R_Fetch_and_op, MPILENS_DOWN(Fetch_and_op)(o, r, type, target, disp, op, win),
                trc_put(TK_RMA_ATOMIC, OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE, trc_now(), w_,
                        (uint32_t)target, 0, trc_bytes(1, type), trc_bytes(1, type), NEXT_ID));
}
int MPI_Compare_and_swap(const void *o, const void *c, void *r, MPI_Datatype type, int target,
                         MPI_Aint disp, MPI_Win win)
{
    WINDOW_CALL(R_Compare_and_swap,
                MPILENS_DOWN(Compare_and_swap)(o, c, r, type, target, disp, win),
                trc_put(TK_RMA_ATOMIC, OTF2_RMA_ATOMIC_TYPE_COMPARE_AND_SWAP, trc_now(), w_,
                        (uint32_t)target, 0, 2 * trc_bytes(1, type), trc_bytes(1, type), NEXT_ID));
}

/* ---- local definitions (async-signal-safe) ---- */

void trc_rma_counts(uint32_t *nw, uint32_t *ng)
{
    *nw = nwindows;
    *ng = ngroups;
}

void trc_rma_emit(struct mpilens_emitter *e, uint32_t nw, uint32_t ng)
{
    for (uint32_t i = 0; i < nw; i++) {
        uint32_t pair[2] = {windows[i].comm, windows[i].ordinal};
        mpilens_emit(e, pair, sizeof pair);
    }
    for (uint32_t i = 0; i < ng; i++) /* item by item: a group may exceed the buffer */
        for (uint64_t k = 0; k <= groups[i][0]; k++)
            mpilens_emit(e, &groups[i][k], sizeof groups[i][k]);
}
