/* dynb_core.c: handles, the gathering of sends until readiness, the messages (with the
 * list of nodes below their receiver in the header) and their progress.
 *
 * Wire format of every message: {handle, bytes, nsub} then nsub ranks (the receiver's
 * subtree, without itself), then the data. A point-to-point message has nsub = 0, so
 * receiving is the same path for both. Messages leave through an outgoing queue: posted at
 * once, or, under network emulation, when this rank's link would have delivered them.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dynbcast.h"

#define DYNB_TAG 7
#define BUCKETS 4096

struct entry {
    uint64_t handle;
    int owner, declared, ready, arrived;
    void *buf;
    size_t bytes;
    int *pending, npending; /* destinations gathered before readiness */
    unsigned char *covered; /* ranks already sent to (directly or in a tree) */
    void *early;            /* data that arrived before the handle was declared */
    struct entry *next;
};

struct outgoing {
    char *buf;
    int len, dest, posted;
    double release;
    MPI_Request req;
};

struct wire {
    uint64_t handle, bytes;
    int32_t nsub, pad;
};

struct dynb {
    MPI_Comm comm;
    int rank, size;
    struct dynb_options opt;
    struct entry *table[BUCKETS];
    struct outgoing *out;
    int nout, capout;
    double link_free;
    struct dynb_stats stats;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static struct entry *find(dynb_t *d, uint64_t handle, int create)
{
    struct entry **b = &d->table[(handle * 0x9e3779b97f4a7c15ULL) >> 52];
    for (struct entry *e = *b; e; e = e->next)
        if (e->handle == handle)
            return e;
    if (!create)
        return NULL;
    struct entry *e = calloc(1, sizeof *e);
    e->handle = handle;
    e->owner = -1;
    e->covered = calloc(d->size, 1);
    e->next = *b;
    *b = e;
    return e;
}

static void enqueue(dynb_t *d, char *buf, int len, int dest)
{
    if (d->nout == d->capout) {
        d->capout = d->capout ? 2 * d->capout : 64;
        d->out = realloc(d->out, d->capout * sizeof *d->out);
    }
    struct outgoing *o = &d->out[d->nout++];
    *o = (struct outgoing){buf, len, dest, 0, 0, MPI_REQUEST_NULL};
    if (d->opt.bandwidth_mbps > 0 || d->opt.latency_us > 0) {
        double t = now(), start = t > d->link_free ? t : d->link_free;
        d->link_free =
            start + (d->opt.bandwidth_mbps > 0 ? len / (d->opt.bandwidth_mbps * 1e6) : 0);
        o->release = d->link_free + d->opt.latency_us * 1e-6;
    } else {
        MPI_Isend(buf, len, MPI_BYTE, dest, DYNB_TAG, d->comm, &o->req);
        o->posted = 1;
    }
    d->stats.messages_sent++;
    d->stats.bytes_sent += (uint64_t)len;
}

/* One message of handle to dest, telling it the nodes of its subtree. */
static void send_one(dynb_t *d, uint64_t handle, const void *data, size_t bytes, int dest,
                     const int *sub, int nsub)
{
    int len = (int)(sizeof(struct wire) + nsub * sizeof(int32_t) + bytes);
    char *buf = malloc(len);
    struct wire w = {handle, bytes, nsub, 0};
    memcpy(buf, &w, sizeof w);
    int32_t *s = (int32_t *)(buf + sizeof w);
    for (int i = 0; i < nsub; i++)
        s[i] = sub[i];
    memcpy(buf + sizeof w + nsub * sizeof(int32_t), data, bytes);
    enqueue(d, buf, len, dest);
}

/* Serves nodes[1..count-1] from nodes[0] (this rank) along the tree. */
static void serve(dynb_t *d, uint64_t handle, const void *data, size_t bytes, const int *nodes,
                  int count)
{
    int *children = malloc(count * sizeof *children), *ends = malloc(count * sizeof *ends);
    int n = dynb_tree_children(d->opt.tree, 0, count, children, ends);
    for (int i = 0; i < n; i++)
        send_one(d, handle, data, bytes, nodes[children[i]], nodes + children[i] + 1,
                 ends[i] - children[i] - 1);
    free(children);
    free(ends);
}

static void deliver(dynb_t *d, uint64_t handle, const void *data, size_t bytes)
{
    struct entry *e = find(d, handle, 1);
    if (e->declared) {
        memcpy(e->buf, data, bytes < e->bytes ? bytes : e->bytes);
    } else {
        e->early = malloc(bytes ? bytes : 1);
        memcpy(e->early, data, bytes);
        e->bytes = bytes;
    }
    e->arrived = 1;
}

static void incoming(dynb_t *d, const char *buf)
{
    struct wire w;
    memcpy(&w, buf, sizeof w);
    const int32_t *sub = (const int32_t *)(buf + sizeof w);
    const char *data = buf + sizeof w + w.nsub * sizeof(int32_t);
    if (w.nsub > 0) { /* forward to the subtree first, then complete here */
        int *nodes = malloc((w.nsub + 1) * sizeof *nodes);
        nodes[0] = d->rank;
        for (int i = 0; i < w.nsub; i++)
            nodes[i + 1] = sub[i];
        uint64_t before = d->stats.messages_sent;
        serve(d, w.handle, data, w.bytes, nodes, w.nsub + 1);
        d->stats.forwarded += d->stats.messages_sent - before;
        free(nodes);
    }
    deliver(d, w.handle, data, w.bytes);
}

int dynb_progress(dynb_t *d)
{
    for (;;) {
        int flag = 0, len = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, DYNB_TAG, d->comm, &flag, &st);
        if (!flag)
            break;
        MPI_Get_count(&st, MPI_BYTE, &len);
        char *buf = malloc(len > 0 ? len : 1);
        MPI_Recv(buf, len, MPI_BYTE, st.MPI_SOURCE, DYNB_TAG, d->comm, MPI_STATUS_IGNORE);
        incoming(d, buf);
        free(buf);
    }
    double t = d->nout ? now() : 0;
    int kept = 0;
    for (int i = 0; i < d->nout; i++) {
        struct outgoing *o = &d->out[i];
        if (!o->posted && t >= o->release) {
            MPI_Isend(o->buf, o->len, MPI_BYTE, o->dest, DYNB_TAG, d->comm, &o->req);
            o->posted = 1;
        }
        int done = 0;
        if (o->posted)
            MPI_Test(&o->req, &done, MPI_STATUS_IGNORE);
        if (done)
            free(o->buf);
        else
            d->out[kept++] = *o;
    }
    d->nout = kept;
    return MPI_SUCCESS;
}

int dynb_create(MPI_Comm comm, const struct dynb_options *options, dynb_t **out)
{
    dynb_t *d = calloc(1, sizeof *d);
    if (options)
        d->opt = *options;
    MPI_Comm_dup(comm, &d->comm);
    MPI_Comm_rank(d->comm, &d->rank);
    MPI_Comm_size(d->comm, &d->size);
    *out = d;
    return MPI_SUCCESS;
}

int dynb_destroy(dynb_t *d)
{
    while (d->nout > 0)
        dynb_progress(d);
    MPI_Comm_free(&d->comm);
    for (int b = 0; b < BUCKETS; b++) {
        for (struct entry *e = d->table[b], *next; e; e = next) {
            next = e->next;
            free(e->pending);
            free(e->covered);
            free(e->early);
            free(e);
        }
    }
    free(d->out);
    free(d);
    return MPI_SUCCESS;
}

int dynb_declare(dynb_t *d, uint64_t handle, int owner, void *buf, size_t bytes)
{
    struct entry *e = find(d, handle, 1);
    if (e->declared || owner < 0 || owner >= d->size)
        return MPI_ERR_ARG;
    if (e->early) {
        memcpy(buf, e->early, e->bytes < bytes ? e->bytes : bytes);
        free(e->early);
        e->early = NULL;
    }
    e->owner = owner;
    e->buf = buf;
    e->bytes = bytes;
    e->declared = 1;
    return MPI_SUCCESS;
}

int dynb_send(dynb_t *d, uint64_t handle, int dest)
{
    struct entry *e = find(d, handle, 0);
    if (!e || !e->declared || e->owner != d->rank || dest < 0 || dest >= d->size)
        return MPI_ERR_ARG;
    if (dest == d->rank || e->covered[dest])
        return MPI_SUCCESS; /* already sent, or gathered, to this destination */
    e->covered[dest] = 1;
    if (e->ready) { /* after readiness: point-to-point */
        send_one(d, handle, e->buf, e->bytes, dest, NULL, 0);
        d->stats.p2p++;
    } else {
        e->pending = realloc(e->pending, (e->npending + 1) * sizeof *e->pending);
        e->pending[e->npending++] = dest;
    }
    dynb_progress(d);
    return MPI_SUCCESS;
}

int dynb_ready(dynb_t *d, uint64_t handle)
{
    struct entry *e = find(d, handle, 0);
    if (!e || !e->declared || e->owner != d->rank)
        return MPI_ERR_ARG;
    e->ready = 1;
    if (e->npending == 1 || (e->npending > 1 && d->opt.tree == DYNB_P2P)) {
        for (int i = 0; i < e->npending; i++)
            send_one(d, handle, e->buf, e->bytes, e->pending[i], NULL, 0);
        d->stats.p2p += e->npending;
    } else if (e->npending > 1) {
        int *nodes = malloc((e->npending + 1) * sizeof *nodes);
        nodes[0] = d->rank;
        memcpy(nodes + 1, e->pending, e->npending * sizeof *nodes);
        serve(d, handle, e->buf, e->bytes, nodes, e->npending + 1);
        d->stats.broadcasts++;
        free(nodes);
    }
    free(e->pending);
    e->pending = NULL;
    e->npending = 0;
    dynb_progress(d);
    return MPI_SUCCESS;
}

int dynb_recv(dynb_t *d, uint64_t handle)
{
    struct entry *e = find(d, handle, 0);
    if (!e || !e->declared)
        return MPI_ERR_ARG;
    dynb_progress(d);
    return MPI_SUCCESS;
}

int dynb_test(dynb_t *d, uint64_t handle, int *done)
{
    dynb_progress(d);
    struct entry *e = find(d, handle, 0);
    *done = e && e->declared && e->arrived;
    return e ? MPI_SUCCESS : MPI_ERR_ARG;
}

int dynb_wait(dynb_t *d, uint64_t handle)
{
    int done = 0;
    while (dynb_test(d, handle, &done) == MPI_SUCCESS && !done)
        ;
    return done ? MPI_SUCCESS : MPI_ERR_ARG;
}

void dynb_get_stats(const dynb_t *d, struct dynb_stats *stats)
{
    *stats = d->stats;
}
