/* SPDX-License-Identifier: BSD-3-Clause */
/* dynbcast.h: dynamic broadcasts for task-based runtimes (Swartvagher, COMPAS 2020).
 *
 * A runtime declares data by handle, posts sends of a handle to destinations (possibly
 * before the data is ready), posts receives of handles it needs, and marks data ready.
 * While a handle is not ready, its sends are gathered into one destination list (no
 * duplicates); when it becomes ready, one destination gets a plain point-to-point message
 * and several get a broadcast along a tree over the destinations, whose header tells each
 * receiver the nodes below it: a receiver forwards to its subtree, then completes its own
 * receive. Receivers never call a collective and cannot tell how the data came. Sends
 * posted after readiness go point-to-point. Everything travels on a private duplicate of
 * the communicator and is progressed inside the library's calls (dynb_progress, dynb_test,
 * dynb_wait and the posting calls): no progress thread, so the library works at any MPI
 * thread level and never competes with the runtime's workers for a core.
 */
#ifndef DYNBCAST_H
#define DYNBCAST_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How several destinations of a ready handle are served. */
enum dynb_tree {
    DYNB_BINOMIAL = 0, /* the paper's binomial tree (its Figure 1) */
    DYNB_P2P = 1       /* one point-to-point message per destination (for comparison) */
};

struct dynb_options {
    enum dynb_tree tree;
    /* Network emulation (0 = off): each rank's outgoing link is modelled as a latency plus
     * bytes over a bandwidth; a message leaves only when its link would have delivered it.
     * An emulation for one machine, where shared memory hides what a network costs. */
    double latency_us;
    double bandwidth_mbps; /* MB/s (10^6 bytes per second) */
    /* When a tree is used (DYNB_BINOMIAL), from a cost model (docs/dynbcast.md): for k
     * destinations of s bytes, point-to-point makes the source's link carry k transfers, a
     * binomial tree of L = ceil(log2(k + 1)) levels L transfers, at the price of L
     * forwarding hops for the last destination. The tree is used when
     * k >= tree_min_destinations and s * (k - L) >= tree_hop_bytes * L: the bytes it takes
     * off the source's link outweigh the hops (tree_hop_bytes: what a link carries in the
     * time of one hop). Otherwise point-to-point. 0 = the defaults below;
     * tree_min_destinations = 1: always a tree (the threshold off). */
    int tree_min_destinations;
    size_t tree_hop_bytes;
    /* 1: a node serves its children one after the other, largest subtree first (the first
     * child gets the whole link and forwards while the next is served); 0 (default): all at
     * once, sharing the link. One after the other needs the node to call the library when
     * each send ends: a runtime whose tasks are long relative to a transfer loses more
     * waiting for that than it gains (docs/dynbcast.md). */
    int sequential_children;
};

/* With 2 destinations the binomial root sends to both itself: no tree. */
#define DYNB_DEFAULT_TREE_MIN_DESTINATIONS 3
/* 64 KiB: about 16 us of an InfiniBand QDR link, the cost of a hop for a large message
 * in SMPI's model of one (its latency factor 11.6 x 1.5 us) plus the forwarder's reaction;
 * measured with bench/dynbcast_simgrid.sh --crossover and the Cholesky (docs/dynbcast.md). */
#define DYNB_DEFAULT_TREE_HOP_BYTES 65536

struct dynb_stats {
    uint64_t messages_sent, bytes_sent; /* transfers this rank sent (own data and forwards) */
    uint64_t broadcasts, p2p;           /* ready handles served by a tree / point-to-point */
    uint64_t forwarded;                 /* transfers forwarded for others */
};

typedef struct dynb dynb_t;

int dynb_create(MPI_Comm comm, const struct dynb_options *options, dynb_t **out);
/* Completes this rank's outgoing messages and frees everything (local; call it after the
 * receives this rank posted have completed). */
int dynb_destroy(dynb_t *d);

/* Declares handle on this rank: owner is the rank whose data it is; buf/bytes is the data
 * (owner) or where it must land (receivers). Every rank that sends or receives it declares
 * it, with the same size. */
int dynb_declare(dynb_t *d, uint64_t handle, int owner, void *buf, size_t bytes);
/* Owner: send handle to dest (a rank of the communicator). Twice to a destination: once. */
int dynb_send(dynb_t *d, uint64_t handle, int dest);
/* Owner: the data is ready; pending sends leave now. */
int dynb_ready(dynb_t *d, uint64_t handle);
/* Receiver: expect handle (its data lands in the declared buffer). */
int dynb_recv(dynb_t *d, uint64_t handle);
/* Receiver: has it arrived? */
int dynb_test(dynb_t *d, uint64_t handle, int *done);
int dynb_wait(dynb_t *d, uint64_t handle);
/* Moves messages: receives, forwards, emulated departures, completions. */
int dynb_progress(dynb_t *d);
/* The caller has nothing to do until a message arrives: blocks until one does (polls once
 * instead while an emulated departure is pending), then progresses. A runtime calls it when
 * none of its tasks can run, instead of spinning on dynb_progress. */
int dynb_idle(dynb_t *d);
void dynb_get_stats(const dynb_t *d, struct dynb_stats *stats);

/* Whether a ready handle of `bytes` gathered for `destinations` goes along a tree (1) or
 * point-to-point (0) under these options (the rule above). */
int dynb_uses_tree(const struct dynb_options *options, int destinations, size_t bytes);

/* The tree: with nodes[0] the sender and nodes[1..count-1] the destinations (here as
 * indices 0..count-1), the children of the node at `index` that holds the range
 * [index, end). Writes child indices and each child's range end; returns how many. */
int dynb_tree_children(enum dynb_tree tree, int index, int end, int *children, int *child_end);

#ifdef __cplusplus
}
#endif

#endif
