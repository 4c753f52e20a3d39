/* SPDX-License-Identifier: BSD-3-Clause */
/* dynb_core.c: handles, the gathering of sends until readiness, the messages (with the
 * list of nodes below their receiver in the header) and their progress.
 *
 * Every transfer is two messages on the library's communicator: a header on HDR_TAG,
 * {handle, bytes, nsub} then nsub ranks (the receiver's subtree, without itself), then the
 * data on DATA_TAG. A point-to-point transfer has nsub = 0, so receiving is the same path for
 * both; data of at most INLINE_BYTES rides in the header instead (one message, the
 * latency of a small transfer halved). A receive for the next header (any source) is always posted;
 * when one arrives the data's receive is posted at once, from that source, into the handle's buffer
 * (or a buffer of its own if the handle is not declared yet); MPI's ordering of messages between
 * two ranks pairs each data message with its header. So waiting for data is a real MPI wait
 * (dynb_idle), not a polling loop. The data leaving one rank for a handle is copied once
 * (at readiness, or at arrival for forwards) and shared by all its messages.
 * Messages leave through an outgoing queue: posted at once, or, under network emulation,
 * when this rank's link would have delivered them. With sequential_children, a node's
 * children in a tree are served one after the other (a chain), largest subtree first.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dynbcast.h"

#define HDR_TAG 7
#define DATA_TAG 8
#define BUCKETS 4096
/* Data this small rides in its header: one message instead of two. */
#define INLINE_BYTES 8192

struct entry {
    uint64_t handle;
    int owner, declared, ready, arrived;
    void *buf;
    size_t bytes;
    int *pending, npending; /* destinations gathered before readiness */
    unsigned char *covered; /* ranks already sent to (directly or in a tree) */
    void *early;            /* data that arrived (or is arriving) before the declaration */
    struct entry *next;
};

/* Data shared by the messages that carry it; freed with its last message. */
struct blob {
    int refs;
    size_t bytes;
    char data[];
};

struct wire {
    uint64_t handle, bytes;
    int32_t nsub, pad;
};

struct outgoing {
    struct wire *header; /* the header, then its subtree */
    int header_len, dest, posted;
    struct blob *blob;
    double release;
    uint64_t chain;     /* nonzero: leaves after the previous transfer of its chain is done */
    MPI_Request req[2]; /* header, data */
};

/* A data message on its way in, with the header that announced it. */
struct incoming {
    struct wire *header;
    struct entry *entry;
    void *into; /* the declared buffer, or entry->early */
    int source;
    MPI_Request req;
};

struct dynb {
    MPI_Comm comm;
    int rank, size;
    struct dynb_options opt;
    struct entry *table[BUCKETS];
    struct outgoing *out;
    int nout, capout;
    struct incoming *in;
    int nin, capin;
    struct wire *header_buf; /* the posted header receive */
    int header_max;
    MPI_Request header_req;
    double link_free;
    uint64_t chains;
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

static struct blob *blob_of(const void *data, size_t bytes)
{
    struct blob *b = malloc(sizeof *b + (bytes ? bytes : 1));
    b->refs = 0;
    b->bytes = bytes;
    memcpy(b->data, data, bytes);
    return b;
}

static void blob_release(struct blob *b)
{
    if (--b->refs == 0)
        free(b);
}

static void post(dynb_t *d, struct outgoing *o)
{
    MPI_Isend(o->header, o->header_len, MPI_BYTE, o->dest, HDR_TAG, d->comm, &o->req[0]);
    if (o->blob->bytes > INLINE_BYTES)
        MPI_Isend(o->blob->data, (int)o->blob->bytes, MPI_BYTE, o->dest, DATA_TAG, d->comm,
                  &o->req[1]);
    o->posted = 1;
}

/* One transfer of blob to dest, telling it the nodes of its subtree. */
static void send_one(dynb_t *d, uint64_t handle, struct blob *blob, int dest, const int *sub,
                     int nsub, uint64_t chain)
{
    if (d->nout == d->capout) {
        d->capout = d->capout ? 2 * d->capout : 64;
        d->out = realloc(d->out, d->capout * sizeof *d->out);
    }
    size_t inline_bytes = blob->bytes <= INLINE_BYTES ? blob->bytes : 0;
    int header_len = (int)(sizeof(struct wire) + nsub * sizeof(int32_t) + inline_bytes);
    struct wire *w = malloc(header_len);
    *w = (struct wire){handle, blob->bytes, nsub, 0};
    int32_t *s = (int32_t *)(w + 1);
    for (int i = 0; i < nsub; i++)
        s[i] = sub[i];
    memcpy(s + nsub, blob->data, inline_bytes);
    blob->refs++;
    struct outgoing *o = &d->out[d->nout++];
    *o = (struct outgoing){w,    header_len, dest,  0,
                           blob, 0,          chain, {MPI_REQUEST_NULL, MPI_REQUEST_NULL}};
    size_t len = header_len + blob->bytes;
    if (d->opt.bandwidth_mbps > 0 || d->opt.latency_us > 0) {
        double t = now(), start = t > d->link_free ? t : d->link_free;
        d->link_free =
            start + (d->opt.bandwidth_mbps > 0 ? len / (d->opt.bandwidth_mbps * 1e6) : 0);
        o->release = d->link_free + d->opt.latency_us * 1e-6;
        o->chain = 0; /* the emulated link already serves them in turn */
    } else if (!chain || d->nout < 2 || d->out[d->nout - 2].chain != chain) {
        post(d, o);
    }
    d->stats.messages_sent++;
    d->stats.bytes_sent += (uint64_t)len;
}

/* Serves nodes[1..count-1] from nodes[0] (this rank) along the tree. */
static void serve(dynb_t *d, uint64_t handle, struct blob *blob, const int *nodes, int count)
{
    int *children = malloc(count * sizeof *children), *ends = malloc(count * sizeof *ends);
    int n = dynb_tree_children(d->opt.tree, 0, count, children, ends);
    uint64_t chain = d->opt.tree == DYNB_P2P || !d->opt.sequential_children ? 0 : ++d->chains;
    for (int i = 0; i < n; i++)
        send_one(d, handle, blob, nodes[children[i]], nodes + children[i] + 1,
                 ends[i] - children[i] - 1, chain);
    free(children);
    free(ends);
}

static void post_header_receive(dynb_t *d)
{
    MPI_Irecv(d->header_buf, d->header_max, MPI_BYTE, MPI_ANY_SOURCE, HDR_TAG, d->comm,
              &d->header_req);
}

static void data_arrived(dynb_t *d, struct incoming *in);

/* A header came from source: the data's receive goes up at once, into its final place. */
static void header_arrived(dynb_t *d, int source)
{
    const struct wire *h = d->header_buf;
    size_t len = sizeof *h + h->nsub * sizeof(int32_t) + (h->bytes <= INLINE_BYTES ? h->bytes : 0);
    struct wire *w = malloc(len);
    memcpy(w, h, len);
    post_header_receive(d); /* the buffer is free again */
    struct entry *e = find(d, w->handle, 1);
    void *into;
    if (e->declared && !e->arrived && e->bytes >= w->bytes) {
        into = e->buf;
    } else {
        e->early = malloc(w->bytes ? w->bytes : 1);
        into = e->early;
    }
    if (d->nin == d->capin) {
        d->capin = d->capin ? 2 * d->capin : 64;
        d->in = realloc(d->in, d->capin * sizeof *d->in);
    }
    if (w->bytes <= INLINE_BYTES) { /* the data came with the header */
        struct incoming now = {w, e, into, source, MPI_REQUEST_NULL};
        memcpy(into, (const int32_t *)(w + 1) + w->nsub, w->bytes);
        data_arrived(d, &now);
        return;
    }
    struct incoming *in = &d->in[d->nin++];
    *in = (struct incoming){w, e, into, source, MPI_REQUEST_NULL};
    MPI_Irecv(into, (int)w->bytes, MPI_BYTE, source, DATA_TAG, d->comm, &in->req);
}

/* The data of in has landed: forward to the subtree first, then complete here. */
static void data_arrived(dynb_t *d, struct incoming *in)
{
    struct wire *w = in->header;
    struct entry *e = in->entry;
    if (w->nsub > 0) {
        int *nodes = malloc((w->nsub + 1) * sizeof *nodes);
        const int32_t *sub = (const int32_t *)(w + 1);
        nodes[0] = d->rank;
        for (int i = 0; i < w->nsub; i++)
            nodes[i + 1] = sub[i];
        struct blob *blob = blob_of(in->into, w->bytes);
        blob->refs++; /* held while serving */
        uint64_t before = d->stats.messages_sent;
        serve(d, w->handle, blob, nodes, w->nsub + 1);
        d->stats.forwarded += d->stats.messages_sent - before;
        blob_release(blob);
        free(nodes);
    }
    if (in->into == e->early && e->declared) { /* declared while it travelled */
        memcpy(e->buf, e->early, e->bytes < w->bytes ? e->bytes : w->bytes);
        free(e->early);
        e->early = NULL;
    } else if (in->into == e->early) {
        e->bytes = w->bytes;
    }
    e->arrived = 1;
    free(w);
}

/* Progress; returns how many headers and data messages arrived. */
static int progress(dynb_t *d)
{
    int arrivals = 0;
    for (;;) {
        int flag = 0;
        MPI_Status st;
        MPI_Test(&d->header_req, &flag, &st);
        if (!flag)
            break;
        header_arrived(d, st.MPI_SOURCE);
        arrivals++;
    }
    for (int i = 0; i < d->nin;) {
        int done = 0;
        MPI_Test(&d->in[i].req, &done, MPI_STATUS_IGNORE);
        if (done) {
            struct incoming in = d->in[i];
            d->in[i] = d->in[--d->nin]; /* order of completion does not matter */
            data_arrived(d, &in);
            arrivals++;
        } else {
            i++;
        }
    }
    double t = d->nout ? now() : 0;
    int kept = 0;
    for (int i = 0; i < d->nout; i++) {
        struct outgoing *o = &d->out[i];
        int waits = o->chain && kept > 0 && d->out[kept - 1].chain == o->chain;
        if (!o->posted && !waits && t >= o->release)
            post(d, o);
        int done = 0;
        MPI_Status ignored[2]; /* (MPICH's mpi.h wants a real array here) */
        if (o->posted)
            MPI_Testall(2, o->req, &done, ignored);
        if (done) {
            free(o->header);
            blob_release(o->blob);
        } else {
            d->out[kept++] = *o;
        }
    }
    d->nout = kept;
    return arrivals;
}

int dynb_progress(dynb_t *d)
{
    progress(d);
    return MPI_SUCCESS;
}

int dynb_idle(dynb_t *d)
{
    if (progress(d) > 0)
        return MPI_SUCCESS; /* something came: the caller looks again before waiting */
    int chained = 0;
    for (int i = 0; i < d->nout; i++) {
        if (!d->out[i].posted && !d->out[i].chain)
            return MPI_SUCCESS; /* an emulated departure is due: the caller polls */
        chained |= !d->out[i].posted;
    }
    /* Block until a header or a data message arrives, or (while a child of a tree waits
     * for its turn) one of this rank's data messages has left. */
    MPI_Request *reqs = malloc((1 + d->nin + d->nout) * sizeof *reqs);
    int *outs = malloc((d->nout + 1) * sizeof *outs), n = 0, nouts = 0;
    reqs[n++] = d->header_req;
    for (int i = 0; i < d->nin; i++)
        reqs[n++] = d->in[i].req;
    for (int i = 0; chained && i < d->nout; i++) {
        MPI_Request r = d->out[i].req[1] != MPI_REQUEST_NULL ? d->out[i].req[1] : d->out[i].req[0];
        if (d->out[i].posted && r != MPI_REQUEST_NULL) {
            outs[nouts++] = i;
            reqs[n++] = r;
        }
    }
    int index;
    MPI_Status st;
    MPI_Waitany(n, reqs, &index, &st);
    if (index == 0) {
        d->header_req = MPI_REQUEST_NULL;
        header_arrived(d, st.MPI_SOURCE);
    } else if (index != MPI_UNDEFINED && index <= d->nin) {
        struct incoming in = d->in[index - 1];
        d->in[index - 1] = d->in[--d->nin];
        data_arrived(d, &in);
    } else if (index != MPI_UNDEFINED) {
        struct outgoing *o = &d->out[outs[index - 1 - d->nin]]; /* left: progress sees it */
        o->req[o->req[1] != MPI_REQUEST_NULL ? 1 : 0] = MPI_REQUEST_NULL;
    }
    free(outs);
    free(reqs);
    return dynb_progress(d);
}

int dynb_create(MPI_Comm comm, const struct dynb_options *options, dynb_t **out)
{
    dynb_t *d = calloc(1, sizeof *d);
    if (options)
        d->opt = *options;
    MPI_Comm_dup(comm, &d->comm);
    MPI_Comm_rank(d->comm, &d->rank);
    MPI_Comm_size(d->comm, &d->size);
    d->header_max = (int)(sizeof(struct wire) + d->size * sizeof(int32_t) + INLINE_BYTES);
    d->header_buf = malloc(d->header_max);
    post_header_receive(d);
    *out = d;
    return MPI_SUCCESS;
}

int dynb_destroy(dynb_t *d)
{
    for (;;) { /* every departure posted (emulated ones at their time), then completed */
        int unposted = 0;
        dynb_progress(d);
        for (int i = 0; i < d->nout; i++)
            unposted += !d->out[i].posted;
        if (!unposted)
            break;
    }
    for (int i = 0; i < d->nout; i++) {
        MPI_Status ignored[2];
        MPI_Waitall(2, d->out[i].req, ignored);
        free(d->out[i].header);
        blob_release(d->out[i].blob);
    }
    d->nout = 0;
    MPI_Cancel(&d->header_req);
    MPI_Wait(&d->header_req, MPI_STATUS_IGNORE);
    for (int i = 0; i < d->nin; i++) { /* data this rank never waited for */
        MPI_Wait(&d->in[i].req, MPI_STATUS_IGNORE);
        free(d->in[i].header);
    }
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
    free(d->header_buf);
    free(d->in);
    free(d->out);
    free(d);
    return MPI_SUCCESS;
}

int dynb_declare(dynb_t *d, uint64_t handle, int owner, void *buf, size_t bytes)
{
    struct entry *e = find(d, handle, 1);
    if (e->declared || owner < 0 || owner >= d->size)
        return MPI_ERR_ARG;
    if (e->early && e->arrived) {
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
        struct blob *blob = blob_of(e->buf, e->bytes);
        blob->refs++;
        send_one(d, handle, blob, dest, NULL, 0, 0);
        blob_release(blob);
        d->stats.p2p++;
    } else {
        e->pending = realloc(e->pending, (e->npending + 1) * sizeof *e->pending);
        e->pending[e->npending++] = dest;
    }
    dynb_progress(d);
    return MPI_SUCCESS;
}

int dynb_uses_tree(const struct dynb_options *o, int destinations, size_t bytes)
{
    int min_dest = o->tree_min_destinations > 0 ? o->tree_min_destinations
                                                : DYNB_DEFAULT_TREE_MIN_DESTINATIONS;
    size_t hop_bytes =
        o->tree_hop_bytes > 0 ? o->tree_hop_bytes : (size_t)DYNB_DEFAULT_TREE_HOP_BYTES;
    int levels = 0; /* of the binomial tree over the destinations */
    while ((1 << levels) < destinations + 1)
        levels++;
    double saved = (double)bytes * (destinations - levels); /* off the source's link */
    if (o->tree == DYNB_P2P || destinations < 2 || destinations < min_dest)
        return 0;
    return min_dest == 1 || saved >= (double)hop_bytes * levels;
}

int dynb_ready(dynb_t *d, uint64_t handle)
{
    struct entry *e = find(d, handle, 0);
    if (!e || !e->declared || e->owner != d->rank)
        return MPI_ERR_ARG;
    e->ready = 1;
    int tree = dynb_uses_tree(&d->opt, e->npending, e->bytes);
    if (e->npending > 0) {
        struct blob *blob = blob_of(e->buf, e->bytes);
        blob->refs++; /* held while serving */
        if (!tree) {
            for (int i = 0; i < e->npending; i++)
                send_one(d, handle, blob, e->pending[i], NULL, 0, 0);
            d->stats.p2p += e->npending;
        } else {
            int *nodes = malloc((e->npending + 1) * sizeof *nodes);
            nodes[0] = d->rank;
            memcpy(nodes + 1, e->pending, e->npending * sizeof *nodes);
            serve(d, handle, blob, nodes, e->npending + 1);
            d->stats.broadcasts++;
            free(nodes);
        }
        blob_release(blob);
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
        if (dynb_idle(d) != MPI_SUCCESS)
            break;
    return done ? MPI_SUCCESS : MPI_ERR_ARG;
}

void dynb_get_stats(const dynb_t *d, struct dynb_stats *stats)
{
    *stats = d->stats;
}
