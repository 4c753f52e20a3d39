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
};

struct dynb_stats {
    uint64_t messages_sent, bytes_sent; /* messages this rank sent (own data and forwards) */
    uint64_t broadcasts, p2p;           /* ready handles served by a tree / point-to-point */
    uint64_t forwarded;                 /* messages forwarded for others */
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
void dynb_get_stats(const dynb_t *d, struct dynb_stats *stats);

/* The tree: with nodes[0] the sender and nodes[1..count-1] the destinations (here as
 * indices 0..count-1), the children of the node at `index` that holds the range
 * [index, end). Writes child indices and each child's range end; returns how many. */
int dynb_tree_children(enum dynb_tree tree, int index, int end, int *children, int *child_end);

#ifdef __cplusplus
}
#endif

#endif
