/* mon_coll.c: collectives, counted as Open MPI's coll monitoring counts them, so the
 * collective matrix and the per-communicator kinds match its own (rules read in its
 * coll/monitoring component):
 *   one-to-all (Bcast, Scatter[v]): the root counts the data of each other peer; o2a.
 *   all-to-one (Gather[v], Reduce): the root counts the data of each other peer; a2o.
 *   all-to-all (Allreduce, Allgather[v], Alltoall[v,w], Reduce_scatter[_block], Barrier):
 *     every rank counts its data to each other peer; a2a, the sum over peers.
 *   Scan, Exscan: every rank counts its data to each higher rank; a2a, data x (size - rank).
 * Non-blocking variants count like blocking ones. Counted before the call (tail calls).
 */
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
static uint64_t to_peers_v(const struct coll_comm *c, int skip, const int counts[],
                           MPI_Datatype type, const MPI_Datatype types[])
{
    uint64_t total = 0;
    for (int i = 0; counts && i < c->rec->peers; i++) {
        if (i == skip)
            continue;
        uint64_t b = mon_bytes(counts[i], types ? types[i] : type);
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

static void rooted_kind(MPI_Comm comm, int which, int root, int count, MPI_Datatype type,
                        const int counts[])
{
    if (!mon_on)
        return;
    struct coll_comm c = coll_comm_of(comm);
    int skip;
    if (!rooted(&c, root, &skip))
        return;
    uint64_t total = counts ? to_peers_v(&c, skip, counts, type, NULL)
                            : to_all_others(&c, mon_bytes(count, type));
    mon_record_coll_kind(c.rec, which, total);
}

static void one_to_all(MPI_Comm comm, int root, int count, MPI_Datatype type, const int counts[])
{
    rooted_kind(comm, MON_O2A, root, count, type, counts);
}

static void all_to_one(MPI_Comm comm, int root, int count, MPI_Datatype type, const int counts[])
{
    rooted_kind(comm, MON_A2O, root, count, type, counts);
}

static __attribute__((noinline)) void all_to_all_slow(MPI_Comm comm, int count, MPI_Datatype type,
                                                      const int counts[],
                                                      const MPI_Datatype types[])
{
    struct coll_comm c = coll_comm_of(comm);
    int skip = c.rec->inter ? -1 : c.rec->rank;
    uint64_t total = counts ? to_peers_v(&c, skip, counts, type, types)
                            : to_all_others(&c, mon_bytes(count, type));
    mon_record_coll_kind(c.rec, MON_A2A, total);
}

static void all_to_all(MPI_Comm comm, int count, MPI_Datatype type, const int counts[],
                       const MPI_Datatype types[])
{
    if (mon_on)
        all_to_all_slow(comm, count, type, counts, types);
}

/* The common case of a uniform all-to-all (MPI_COMM_WORLD, one thread, a known type),
 * inline: four adds, no call. 0: not the common case, nothing counted. */
static inline __attribute__((always_inline)) int world_all_to_all(MPI_Comm comm, int count,
                                                                  MPI_Datatype type)
{
    uint64_t each;
    if (comm != MPI_COMM_WORLD || mon_threaded || !mon_bytes_cached(count, type, &each))
        return 0;
    struct mon_comm_data *d = mon_world_data;
    d->uniform[0] += 1;
    d->uniform[1] += each;
    d->v[2 * MON_A2A] += 1;
    d->v[2 * MON_A2A + 1] += each * (uint64_t)(mon_nprocs - 1);
    return 1;
}

/* A uniform all-to-all wrapper: the common case counts inline and tail-calls the library
 * (no stack frame); anything else goes through a cold copy that counts the general way. */
#define UNIFORM_ALL_TO_ALL(NAME, PARAMS, ARGS, COUNT, TYPE)                                        \
    static __attribute__((noinline, cold)) int slow_##NAME PARAMS                                  \
    {                                                                                              \
        all_to_all_slow(comm, COUNT, TYPE, NULL, NULL);                                            \
        return PMPI_##NAME ARGS;                                                                   \
    }                                                                                              \
    int MPI_##NAME PARAMS                                                                          \
    {                                                                                              \
        if (mon_on && !world_all_to_all(comm, COUNT, TYPE))                                        \
            return slow_##NAME ARGS;                                                               \
        return PMPI_##NAME ARGS;                                                                   \
    }

static void prefix(MPI_Comm comm, int count, MPI_Datatype type)
{
    if (!mon_on)
        return;
    struct coll_comm c = coll_comm_of(comm);
    int me = c.rec->rank;
    uint64_t data = mon_bytes(count, type);
    to_peers(&c, me + 1, -1, data);
    mon_record_coll_kind(c.rec, MON_A2A, data * (uint64_t)(c.rec->peers - me));
}

/* Send-side count and type, or the receive side's when the send buffer is MPI_IN_PLACE. */
#define SEND_COUNT(sbuf, scount, rcount) ((sbuf) == MPI_IN_PLACE ? (rcount) : (scount))
#define SEND_TYPE(sbuf, stype, rtype) ((sbuf) == MPI_IN_PLACE ? (rtype) : (stype))

/* The two shapes of uniform all-to-all calls: reductions (one count and type) and
 * gathers/exchanges (send and receive sides, MPI_IN_PLACE taking the receive side). */
#define REDUCE_PARAMS                                                                              \
    const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm
#define GATHER_PARAMS                                                                              \
    const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,  \
        MPI_Comm comm
#define REDUCING(NAME)                                                                             \
    UNIFORM_ALL_TO_ALL(NAME, (REDUCE_PARAMS), (sbuf, rbuf, count, type, op, comm), count, type)
#define REDUCING_I(NAME)                                                                           \
    UNIFORM_ALL_TO_ALL(NAME, (REDUCE_PARAMS, MPI_Request * req),                                   \
                       (sbuf, rbuf, count, type, op, comm, req), count, type)
#define GATHERING(NAME)                                                                            \
    UNIFORM_ALL_TO_ALL(NAME, (GATHER_PARAMS), (sbuf, scount, stype, rbuf, rcount, rtype, comm),    \
                       SEND_COUNT(sbuf, scount, rcount), SEND_TYPE(sbuf, stype, rtype))
#define GATHERING_I(NAME)                                                                          \
    UNIFORM_ALL_TO_ALL(NAME, (GATHER_PARAMS, MPI_Request * req),                                   \
                       (sbuf, scount, stype, rbuf, rcount, rtype, comm, req),                      \
                       SEND_COUNT(sbuf, scount, rcount), SEND_TYPE(sbuf, stype, rtype))
#define SEND_SIDE(sbuf, scount, stype, rcount, rtype)                                              \
    ((sbuf) == MPI_IN_PLACE ? (rcount) : (scount)), ((sbuf) == MPI_IN_PLACE ? (rtype) : (stype))

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    one_to_all(comm, root, count, type, NULL);
    return PMPI_Bcast(buf, count, type, root, comm);
}
int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req)
{
    one_to_all(comm, root, count, type, NULL);
    return PMPI_Ibcast(buf, count, type, root, comm, req);
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm)
{
    one_to_all(comm, root, scount, stype, NULL);
    return PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
}
int MPI_Iscatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
    one_to_all(comm, root, scount, stype, NULL);
    return PMPI_Iscatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req);
}

int MPI_Scatterv(const void *sbuf, const int counts[], const int displs[], MPI_Datatype stype,
                 void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    one_to_all(comm, root, 0, stype, counts);
    return PMPI_Scatterv(sbuf, counts, displs, stype, rbuf, rcount, rtype, root, comm);
}
int MPI_Iscatterv(const void *sbuf, const int counts[], const int displs[], MPI_Datatype stype,
                  void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                  MPI_Request *req)
{
    one_to_all(comm, root, 0, stype, counts);
    return PMPI_Iscatterv(sbuf, counts, displs, stype, rbuf, rcount, rtype, root, comm, req);
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
               MPI_Datatype rtype, int root, MPI_Comm comm)
{
    all_to_one(comm, root, rcount, rtype, NULL);
    return PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
}
int MPI_Igather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
    all_to_one(comm, root, rcount, rtype, NULL);
    return PMPI_Igather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req);
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int counts[],
                const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm)
{
    all_to_one(comm, root, 0, rtype, counts);
    return PMPI_Gatherv(sbuf, scount, stype, rbuf, counts, displs, rtype, root, comm);
}
int MPI_Igatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int counts[],
                 const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
    all_to_one(comm, root, 0, rtype, counts);
    return PMPI_Igatherv(sbuf, scount, stype, rbuf, counts, displs, rtype, root, comm, req);
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm)
{
    all_to_one(comm, root, count, type, NULL);
    return PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
}
int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *req)
{
    all_to_one(comm, root, count, type, NULL);
    return PMPI_Ireduce(sbuf, rbuf, count, type, op, root, comm, req);
}

REDUCING(Allreduce)
REDUCING_I(Iallreduce)

GATHERING(Allgather)
GATHERING_I(Iallgather)

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int counts[],
                   const int displs[], MPI_Datatype rtype, MPI_Comm comm)
{
    all_to_all(comm, SEND_SIDE(sbuf, scount, stype, counts[me_in(comm)], rtype), NULL, NULL);
    return PMPI_Allgatherv(sbuf, scount, stype, rbuf, counts, displs, rtype, comm);
}
int MPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                    const int counts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm,
                    MPI_Request *req)
{
    all_to_all(comm, SEND_SIDE(sbuf, scount, stype, counts[me_in(comm)], rtype), NULL, NULL);
    return PMPI_Iallgatherv(sbuf, scount, stype, rbuf, counts, displs, rtype, comm, req);
}

GATHERING(Alltoall)
GATHERING_I(Ialltoall)

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                  void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                  MPI_Comm comm)
{
    all_to_all(comm, 0, sbuf == MPI_IN_PLACE ? rtype : stype,
               sbuf == MPI_IN_PLACE ? rcounts : scounts, NULL);
    return PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
}
int MPI_Ialltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                   void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                   MPI_Comm comm, MPI_Request *req)
{
    all_to_all(comm, 0, sbuf == MPI_IN_PLACE ? rtype : stype,
               sbuf == MPI_IN_PLACE ? rcounts : scounts, NULL);
    return PMPI_Ialltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req);
}

int MPI_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                  const MPI_Datatype stypes[], void *rbuf, const int rcounts[], const int rdispls[],
                  const MPI_Datatype rtypes[], MPI_Comm comm)
{
    all_to_all(comm, 0, MPI_DATATYPE_NULL, sbuf == MPI_IN_PLACE ? rcounts : scounts,
               sbuf == MPI_IN_PLACE ? rtypes : stypes);
    return PMPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm);
}
int MPI_Ialltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                   const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
                   const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
                   MPI_Request *req)
{
    all_to_all(comm, 0, MPI_DATATYPE_NULL, sbuf == MPI_IN_PLACE ? rcounts : scounts,
               sbuf == MPI_IN_PLACE ? rtypes : stypes);
    return PMPI_Ialltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm,
                           req);
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int counts[], MPI_Datatype type,
                       MPI_Op op, MPI_Comm comm)
{
    all_to_all(comm, 0, type, counts, NULL);
    return PMPI_Reduce_scatter(sbuf, rbuf, counts, type, op, comm);
}
int MPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int counts[], MPI_Datatype type,
                        MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    all_to_all(comm, 0, type, counts, NULL);
    return PMPI_Ireduce_scatter(sbuf, rbuf, counts, type, op, comm, req);
}

REDUCING(Reduce_scatter_block)
REDUCING_I(Ireduce_scatter_block)

int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    prefix(comm, count, type);
    return PMPI_Scan(sbuf, rbuf, count, type, op, comm);
}
int MPI_Iscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
              MPI_Request *req)
{
    prefix(comm, count, type);
    return PMPI_Iscan(sbuf, rbuf, count, type, op, comm, req);
}
int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    prefix(comm, count, type);
    return PMPI_Exscan(sbuf, rbuf, count, type, op, comm);
}
int MPI_Iexscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm, MPI_Request *req)
{
    prefix(comm, count, type);
    return PMPI_Iexscan(sbuf, rbuf, count, type, op, comm, req);
}

int MPI_Barrier(MPI_Comm comm)
{
    all_to_all(comm, 0, MPI_DATATYPE_NULL, NULL, NULL);
    return PMPI_Barrier(comm);
}
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    all_to_all(comm, 0, MPI_DATATYPE_NULL, NULL, NULL);
    return PMPI_Ibarrier(comm, req);
}
