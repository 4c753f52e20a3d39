/* SPDX-License-Identifier: BSD-3-Clause */
/* mon_coll.c: collectives, counted as Open MPI's coll monitoring counts them, so the
 * collective matrix and the per-communicator kinds match its own (rules read in its
 * coll/monitoring component):
 *   one-to-all (Bcast, Scatter[v]): the root counts the data of each other peer; o2a.
 *   all-to-one (Gather[v], Reduce): the root counts the data of each other peer; a2o.
 *   all-to-all (Allreduce, Allgather[v], Alltoall[v,w], Reduce_scatter[_block], Barrier):
 *     every rank counts its data to each other peer; a2a, the sum over peers.
 *   Scan, Exscan: every rank counts its data to each higher rank; a2a, data x (size - rank).
 *   neighbourhood (Neighbor_*): every rank counts its data to each out-neighbour (on a
 *     Cartesian topology, the two neighbours of each dimension, as Open MPI does; on a graph
 *     or distributed graph, its out-neighbours); a2a.
 * Nonblocking variants count like blocking ones, at the call; persistent ones (MPI 4) at
 * each start (mon_persist.c). Which functions: the classification's collectives
 * (lens_classes.h), large-count bindings included. Counted before the call (tail calls).
 */
#include <stdlib.h>

#include "lens_classes.h"
#include "lens_counts.h"
#include "mon.h"

/* The communicator's record is looked up once per call: its peers (the remote group of
 * an intercommunicator), this rank's place and the world ranks come from it, so the hot
 * path makes no MPI call. */
struct coll_comm {
    MPI_Comm comm;
    struct lens_comm *rec;
};

static struct coll_comm coll_comm_of(MPI_Comm comm)
{
    return (struct coll_comm){comm, comm == MPI_COMM_WORLD ? mon_world : lens_comm(comm)};
}

static int world_of(const struct coll_comm *c, int i)
{
    return c->comm == MPI_COMM_WORLD ? i : mon_world_rank_of(c->rec, c->comm, i);
}

/* This rank's place in comm (Allgatherv with MPI_IN_PLACE: its own receive count). */
static int me_in(MPI_Comm comm)
{
    return lens_comm(comm)->rank;
}

/* `each` bytes to peers [from, n) except skip; returns the total. */
static uint64_t to_peers(const struct coll_comm *c, int from, int skip, uint64_t each)
{
    uint64_t total = 0;
    for (int i = from; i < c->rec->peers; i++) {
        if (i == skip)
            continue;
        mon_record(MON_COLL, world_of(c, i), each);
        total += each;
    }
    return total;
}

/* counts[i] elements of type (or of types[i]) to each peer i except skip. */
static uint64_t to_peers_v(const struct coll_comm *c, int skip, struct lens_counts counts,
                           MPI_Datatype type, const MPI_Datatype types[])
{
    uint64_t total = 0;
    for (int i = 0; lens_has_counts(counts) && i < c->rec->peers; i++) {
        if (i == skip)
            continue;
        uint64_t b = mon_bytes(lens_count_at(counts, i), types ? types[i] : type);
        mon_record(MON_COLL, world_of(c, i), b);
        total += b;
    }
    return total;
}

/* `each` bytes to every peer but this rank: O(1) on an intracommunicator (spread over
 * the matrix when read), a loop over the remote group on an intercommunicator. */
static uint64_t to_all_others(const struct coll_comm *c, uint64_t each)
{
    if (c->rec->inter)
        return to_peers(c, 0, -1, each);
    mon_record_coll_uniform(c->rec, each);
    return each * (uint64_t)(c->rec->size - 1);
}

/* Rooted: is this rank the root, and which peer index is not a peer. */
static int rooted(const struct coll_comm *c, int root, int *skip)
{
    *skip = c->rec->inter ? -1 : root;
    return c->rec->inter ? root == MPI_ROOT : root == c->rec->rank;
}

static void rooted_kind(MPI_Comm comm, int which, int root, int64_t count, MPI_Datatype type,
                        struct lens_counts counts)
{
    if (!mon_counting())
        return;
    struct coll_comm c = coll_comm_of(comm);
    int skip;
    if (!rooted(&c, root, &skip))
        return;
    uint64_t total = lens_has_counts(counts) ? to_peers_v(&c, skip, counts, type, NULL)
                                             : to_all_others(&c, mon_bytes(count, type));
    mon_record_coll_kind(c.rec, which, total);
}

static void one_to_all(MPI_Comm comm, int root, int64_t count, MPI_Datatype type,
                       struct lens_counts counts)
{
    rooted_kind(comm, MON_O2A, root, count, type, counts);
}

static void all_to_one(MPI_Comm comm, int root, int64_t count, MPI_Datatype type,
                       struct lens_counts counts)
{
    rooted_kind(comm, MON_A2O, root, count, type, counts);
}

static __attribute__((noinline)) void all_to_all_slow(MPI_Comm comm, int64_t count,
                                                      MPI_Datatype type, struct lens_counts counts,
                                                      const MPI_Datatype types[])
{
    struct coll_comm c = coll_comm_of(comm);
    int skip = c.rec->inter ? -1 : c.rec->rank;
    uint64_t total = lens_has_counts(counts) ? to_peers_v(&c, skip, counts, type, types)
                                             : to_all_others(&c, mon_bytes(count, type));
    mon_record_coll_kind(c.rec, MON_A2A, total);
}

static void all_to_all(MPI_Comm comm, int64_t count, MPI_Datatype type, struct lens_counts counts,
                       const MPI_Datatype types[])
{
    if (mon_counting())
        all_to_all_slow(comm, count, type, counts, types);
}

/* The common case of a uniform all-to-all (MPI_COMM_WORLD, one thread, a known type),
 * inline: four adds, no call. 0: not the common case, nothing counted. */
static inline __attribute__((always_inline)) int world_all_to_all(MPI_Comm comm, int64_t count,
                                                                  MPI_Datatype type)
{
    uint64_t each;
    if (comm != mon_fast_world || !mon_bytes_cached(count, type, &each))
        return 0;
    mon_world_fast[0] += 1; /* folded into MPI_COMM_WORLD's payload when read */
    mon_world_fast[1] += each;
    return 1;
}

/* A uniform all-to-all wrapper: the common case counts inline and tail-calls the library
 * (no stack frame); anything else goes through a cold copy that counts the general way. */
#define UNIFORM_ALL_TO_ALL(NAME, PARAMS, ARGS, COMM, COUNT, TYPE)                                  \
    static __attribute__((noinline, cold)) int slow_##NAME PARAMS                                  \
    {                                                                                              \
        if (mon_on)                                                                                \
            all_to_all_slow(COMM, COUNT, TYPE, LENS_NO_COUNTS, NULL);                              \
        return mpilens_down_MPI_##NAME ARGS;                                                       \
    }                                                                                              \
    int MPI_##NAME PARAMS                                                                          \
    {                                                                                              \
        if (!world_all_to_all(COMM, COUNT, TYPE))                                                  \
            return slow_##NAME ARGS;                                                               \
        return mpilens_down_MPI_##NAME ARGS;                                                       \
    }

static void prefix(MPI_Comm comm, int64_t count, MPI_Datatype type)
{
    if (!mon_counting())
        return;
    struct coll_comm c = coll_comm_of(comm);
    int me = c.rec->rank;
    uint64_t data = mon_bytes(count, type);
    to_peers(&c, me + 1, -1, data);
    mon_record_coll_kind(c.rec, MON_A2A, data * (uint64_t)(c.rec->peers - me));
}

/* The out-neighbours of comm's topology (ranks in comm; MPI_PROC_NULL where a Cartesian
 * dimension has no neighbour), malloc'ed, their number in *n. */
static int *out_neighbours(MPI_Comm comm, int *n)
{
    int topo = MPI_UNDEFINED, *out = NULL;
    *n = 0;
    PMPI_Topo_test(comm, &topo);
    if (topo == MPI_CART) {
        int ndims = 0;
        PMPI_Cartdim_get(comm, &ndims);
        int *dims = calloc(3 * (size_t)ndims + 1, sizeof *dims), *periods = dims + ndims,
            *coords = periods + ndims;
        PMPI_Cart_get(comm, ndims, dims, periods, coords);
        out = malloc((2 * (size_t)ndims + 1) * sizeof *out);
        for (int d = 0; d < ndims; d++) {
            out[2 * d] = out[2 * d + 1] = MPI_PROC_NULL;
            if (dims[d] > 1) /* a periodic dimension of one: exchanges with self */
                PMPI_Cart_shift(comm, d, 1, &out[2 * d], &out[2 * d + 1]);
        }
        *n = 2 * ndims;
        free(dims);
    } else if (topo == MPI_GRAPH) {
        int me = 0;
        PMPI_Comm_rank(comm, &me);
        PMPI_Graph_neighbors_count(comm, me, n);
        out = malloc((*n + 1) * sizeof *out);
        PMPI_Graph_neighbors(comm, me, *n, out);
    } else if (topo == MPI_DIST_GRAPH) {
        int in = 0, weighted = 0;
        PMPI_Dist_graph_neighbors_count(comm, &in, n, &weighted);
        int *sources = malloc((2 * (size_t)in + *n + 2) * sizeof *sources),
            *weights = sources + in + 1;
        out = malloc((*n + 1) * sizeof *out);
        PMPI_Dist_graph_neighbors(comm, in, sources, weights, *n, out, weights);
        free(sources);
    }
    return out;
}

/* A neighbourhood collective: count x type (or counts[i] x types[i]) to out-neighbour i. */
static void neighbours(MPI_Comm comm, int64_t count, MPI_Datatype type, struct lens_counts counts,
                       const MPI_Datatype types[])
{
    if (!mon_counting())
        return;
    struct coll_comm c = coll_comm_of(comm);
    int n = 0, *out = out_neighbours(comm, &n);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        if (out[i] == MPI_PROC_NULL)
            continue;
        uint64_t b = lens_has_counts(counts)
                         ? mon_bytes(lens_count_at(counts, i), types ? types[i] : type)
                         : mon_bytes(count, type);
        mon_record(MON_COLL, world_of(&c, out[i]), b);
        total += b;
    }
    free(out);
    mon_record_coll_kind(c.rec, MON_A2A, total);
}

/* Send-side count and type, or the receive side's when the send buffer is MPI_IN_PLACE. */
#define SEND_COUNT(sbuf, scount, rcount) ((sbuf) == MPI_IN_PLACE ? (int64_t)(rcount) : (scount))
#define SEND_TYPE(sbuf, stype, rtype) ((sbuf) == MPI_IN_PLACE ? (rtype) : (stype))
#define SEND_COUNTS(sbuf, scounts, rcounts)                                                        \
    ((sbuf) == MPI_IN_PLACE ? LENS_COUNTS(rcounts) : LENS_COUNTS(scounts))

/* A collective wrapper by mode: counted before the call (B, I), or at each start (P). */
#define COLL(N, M, P, A, R, COUNTING) COLL_##M(N, P, A, R, COUNTING)
#define COLL_B(N, P, A, R, COUNTING)                                                               \
    int MPI_##N P                                                                                  \
    {                                                                                              \
        if (mon_on)                                                                                \
            COUNTING;                                                                              \
        return mpilens_down_MPI_##N A;                                                             \
    }
#define COLL_I COLL_B
#define COLL_P(N, P, A, R, COUNTING) MON_PERSISTENT(N, P, A, R, COUNTING)
/* The uniform all-to-all ones keep their inline fast path (blocking and nonblocking). */
#define UNIFORM(N, M, P, A, R, COMM, COUNT, TYPE) UNIFORM_##M(N, P, A, R, COMM, COUNT, TYPE)
#define UNIFORM_B(N, P, A, R, COMM, COUNT, TYPE) UNIFORM_ALL_TO_ALL(N, P, A, COMM, COUNT, TYPE)
#define UNIFORM_I UNIFORM_B
#define UNIFORM_P(N, P, A, R, COMM, COUNT, TYPE)                                                   \
    MON_PERSISTENT(N, P, A, R, all_to_all_slow(COMM, COUNT, TYPE, LENS_NO_COUNTS, NULL))

/* Each shape of lens_classes.h, by family where a shape has several. */
#define BARRIER(N, F, M, P, A, FL, R)                                                              \
    COLL(N, M, P, A, R, all_to_all(a0, 0, MPI_DATATYPE_NULL, LENS_NO_COUNTS, NULL))
#define BCAST(N, F, M, P, A, FL, R) COLL(N, M, P, A, R, one_to_all(a4, a3, a1, a2, LENS_NO_COUNTS))
#define ROOTED(N, F, M, P, A, FL, R) ROOTED_##F(N, M, P, A, R)
#define ROOTED_coll_one_to_all(N, M, P, A, R)                                                      \
    COLL(N, M, P, A, R, one_to_all(a7, a6, a1, a2, LENS_NO_COUNTS))
#define ROOTED_coll_all_to_one(N, M, P, A, R)                                                      \
    COLL(N, M, P, A, R, all_to_one(a7, a6, a4, a5, LENS_NO_COUNTS))
#define GATHERV(N, F, M, P, A, FL, R)                                                              \
    COLL(N, M, P, A, R, all_to_one(a8, a7, 0, a6, LENS_COUNTS(a4)))
#define SCATTERV(N, F, M, P, A, FL, R)                                                             \
    COLL(N, M, P, A, R, one_to_all(a8, a7, 0, a3, LENS_COUNTS(a1)))
#define ALLGATHER(N, F, M, P, A, FL, R) ALLGATHER_##F(N, M, P, A, R)
#define ALLGATHER_coll_all_to_all(N, M, P, A, R)                                                   \
    UNIFORM(N, M, P, A, R, a6, SEND_COUNT(a0, a1, a4), SEND_TYPE(a0, a2, a5))
#define ALLGATHER_coll_neighbor(N, M, P, A, R)                                                     \
    COLL(N, M, P, A, R, neighbours(a6, a1, a2, LENS_NO_COUNTS, NULL))
#define ALLGATHERV(N, F, M, P, A, FL, R) ALLGATHERV_##F(N, M, P, A, R)
#define ALLGATHERV_coll_all_to_all(N, M, P, A, R)                                                  \
    COLL(N, M, P, A, R,                                                                            \
         all_to_all(a7, SEND_COUNT(a0, a1, lens_count_at(LENS_COUNTS(a4), me_in(a7))),             \
                    SEND_TYPE(a0, a2, a6), LENS_NO_COUNTS, NULL))
#define ALLGATHERV_coll_neighbor(N, M, P, A, R)                                                    \
    COLL(N, M, P, A, R, neighbours(a7, a1, a2, LENS_NO_COUNTS, NULL))
#define ALLTOALLV(N, F, M, P, A, FL, R) ALLTOALLV_##F(N, M, P, A, R)
#define ALLTOALLV_coll_all_to_all(N, M, P, A, R)                                                   \
    COLL(N, M, P, A, R, all_to_all(a8, 0, SEND_TYPE(a0, a3, a7), SEND_COUNTS(a0, a1, a5), NULL))
#define ALLTOALLV_coll_neighbor(N, M, P, A, R)                                                     \
    COLL(N, M, P, A, R, neighbours(a8, 0, a3, LENS_COUNTS(a1), NULL))
#define ALLTOALLW(N, F, M, P, A, FL, R) ALLTOALLW_##F(N, M, P, A, R)
#define ALLTOALLW_coll_all_to_all(N, M, P, A, R)                                                   \
    COLL(N, M, P, A, R,                                                                            \
         all_to_all(a8, 0, MPI_DATATYPE_NULL, SEND_COUNTS(a0, a1, a5), SEND_TYPE(a0, a3, a7)))
#define ALLTOALLW_coll_neighbor(N, M, P, A, R)                                                     \
    COLL(N, M, P, A, R, neighbours(a8, 0, MPI_DATATYPE_NULL, LENS_COUNTS(a1), a3))
#define REDUCE(N, F, M, P, A, FL, R) COLL(N, M, P, A, R, all_to_one(a6, a5, a2, a3, LENS_NO_COUNTS))
#define ALLREDUCE(N, F, M, P, A, FL, R) ALLREDUCE_##F(N, M, P, A, R)
#define ALLREDUCE_coll_all_to_all(N, M, P, A, R) UNIFORM(N, M, P, A, R, a5, a2, a3)
#define ALLREDUCE_coll_scan(N, M, P, A, R) COLL(N, M, P, A, R, prefix(a5, a2, a3))
#define REDUCE_SCATTER(N, F, M, P, A, FL, R)                                                       \
    COLL(N, M, P, A, R, all_to_all(a5, 0, a3, LENS_COUNTS(a2), NULL))

LENS_SHAPE_barrier(BARRIER) LENS_SHAPE_bcast(BCAST) LENS_SHAPE_rooted(ROOTED)
    LENS_SHAPE_gatherv(GATHERV) LENS_SHAPE_scatterv(SCATTERV) LENS_SHAPE_allgather(ALLGATHER)
        LENS_SHAPE_allgatherv(ALLGATHERV) LENS_SHAPE_alltoallv(ALLTOALLV)
            LENS_SHAPE_alltoallw(ALLTOALLW) LENS_SHAPE_reduce(REDUCE)
                LENS_SHAPE_allreduce(ALLREDUCE) LENS_SHAPE_reduce_scatter(REDUCE_SCATTER)
