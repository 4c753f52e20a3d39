/* SPDX-License-Identifier: BSD-3-Clause */
/* mon_persist.c: persistent requests (Send_init and its kin, Psend_init, the persistent
 * collectives of MPI 4). When such a request is made, its wrapper runs the counting of the
 * matching blocking call with the recording diverted into a list (mon_capture); each
 * MPI_Start or MPI_Startall of the request replays the list while monitoring is on, so a
 * persistent operation counts exactly like its blocking twin, once per start.
 */
#include <stdlib.h>

#include "mon.h"

struct mon_capture *volatile mon_capture;
static pthread_mutex_t capture_lock = PTHREAD_MUTEX_INITIALIZER;

struct persistent {
    MPI_Request req;
    struct mon_capture what;
};
static struct persistent *persistents;
static int npersistent;
static pthread_mutex_t persistent_lock = PTHREAD_MUTEX_INITIALIZER;

void mon_capture_begin(struct mon_capture *c)
{
    *c = (struct mon_capture){pthread_self(), 0, 0, NULL};
    pthread_mutex_lock(&capture_lock);
    mon_capture = c;
}

void mon_capture_end(void)
{
    mon_capture = NULL;
    pthread_mutex_unlock(&capture_lock);
}

int mon_captured(int what, int kind, int peer, struct lens_comm *rec, uint64_t bytes)
{
    struct mon_capture *c = mon_capture;
    if (!c || !pthread_equal(c->owner, pthread_self()))
        return 0;
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 4;
        c->items = realloc(c->items, c->cap * sizeof *c->items);
    }
    c->items[c->n++] = (struct mon_captured){what, kind, peer, rec, bytes};
    return 1;
}

void mon_persistent_keep(MPI_Request req, struct mon_capture *c)
{
    pthread_mutex_lock(&persistent_lock);
    persistents = realloc(persistents, (npersistent + 1) * sizeof *persistents);
    persistents[npersistent++] = (struct persistent){req, *c};
    pthread_mutex_unlock(&persistent_lock);
}

static void replay(const struct mon_capture *c)
{
    for (int i = 0; i < c->n; i++) {
        const struct mon_captured *x = &c->items[i];
        if (x->what == 0)
            mon_record(x->kind, x->peer, x->bytes);
        else if (x->what == 1)
            mon_record_coll_kind(x->rec, x->kind, x->bytes);
        else
            mon_record_coll_uniform(x->rec, x->bytes);
    }
}

static void started(MPI_Request req)
{
    if (!mon_on || npersistent == 0)
        return;
    pthread_mutex_lock(&persistent_lock);
    for (int i = 0; i < npersistent; i++)
        if (persistents[i].req == req)
            replay(&persistents[i].what);
    pthread_mutex_unlock(&persistent_lock);
}

int MPI_Start(MPI_Request *req)
{
    started(*req);
    return MPILENS_DOWN(Start)(req);
}

int MPI_Startall(int n, MPI_Request reqs[])
{
    for (int i = 0; i < n; i++)
        started(reqs[i]);
    return MPILENS_DOWN(Startall)(n, reqs);
}

int MPI_Request_free(MPI_Request *req)
{
    pthread_mutex_lock(&persistent_lock);
    for (int i = 0; i < npersistent; i++)
        if (persistents[i].req == *req) {
            free(persistents[i].what.items);
            persistents[i--] = persistents[--npersistent];
        }
    pthread_mutex_unlock(&persistent_lock);
    return MPILENS_DOWN(Request_free)(req);
}
