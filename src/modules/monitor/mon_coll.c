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

/* Peers of comm (its remote group for an intercommunicator), from the communicator
 * record: no MPI call on the hot path. */
static int peers_of(MPI_Comm comm, int *inter)
{
    const struct lens_comm *rec = lens_comm(comm);
    *inter = rec->inter;
    return rec->peers;
}

static int me_in(MPI_Comm comm)
{
    return lens_comm(comm)->rank;
}

/* `each` bytes to peers [from, n) except skip; returns the total. */
static uint64_t to_peers(MPI_Comm comm, int n, int from, int skip, uint64_t each)
{
    uint64_t total = 0;
    for (int i = from; i < n; i++) {
        if (i == skip)
            continue;
        mon_record(MON_COLL, mon_world_rank(comm, i), each);
        total += each;
    }
    return total;
}

/* counts[i] elements of type (or of types[i]) to each peer i except skip. */
static uint64_t to_peers_v(MPI_Comm comm, int n, int skip, const int counts[], MPI_Datatype type,
                           const MPI_Datatype types[])
{
    uint64_t total = 0;
    for (int i = 0; counts && i < n; i++) {
        if (i == skip)
            continue;
        uint64_t b = mon_bytes(counts[i], types ? types[i] : type);
        mon_record(MON_COLL, mon_world_rank(comm, i), b);
        total += b;
    }
    return total;
}

/* Rooted: who is the root here, and which peer index is not a peer. */
static int rooted(MPI_Comm comm, int root, int *n, int *skip)
{
    int inter;
    *n = peers_of(comm, &inter);
    *skip = inter ? -1 : root;
    return inter ? root == MPI_ROOT : root == me_in(comm);
}

static void one_to_all(MPI_Comm comm, int root, int count, MPI_Datatype type, const int counts[])
{
    int n, skip;
    if (!mon_on || !rooted(comm, root, &n, &skip))
        return;
    uint64_t total = counts ? to_peers_v(comm, n, skip, counts, type, NULL)
                            : to_peers(comm, n, 0, skip, mon_bytes(count, type));
    mon_record_coll_kind(comm, MON_O2A, total);
}

static void all_to_one(MPI_Comm comm, int root, int count, MPI_Datatype type, const int counts[])
{
    int n, skip;
    if (!mon_on || !rooted(comm, root, &n, &skip))
        return;
    uint64_t total = counts ? to_peers_v(comm, n, skip, counts, type, NULL)
                            : to_peers(comm, n, 0, skip, mon_bytes(count, type));
    mon_record_coll_kind(comm, MON_A2O, total);
}

static void all_to_all(MPI_Comm comm, int count, MPI_Datatype type, const int counts[],
                       const MPI_Datatype types[])
{
    if (!mon_on)
        return;
    int inter, n = peers_of(comm, &inter), skip = inter ? -1 : me_in(comm);
    uint64_t total = counts ? to_peers_v(comm, n, skip, counts, type, types)
                            : to_peers(comm, n, 0, skip, mon_bytes(count, type));
    mon_record_coll_kind(comm, MON_A2A, total);
}

static void prefix(MPI_Comm comm, int count, MPI_Datatype type)
{
    if (!mon_on)
        return;
    int inter, n = peers_of(comm, &inter), me = me_in(comm);
    uint64_t data = mon_bytes(count, type);
    to_peers(comm, n, me + 1, -1, data);
    mon_record_coll_kind(comm, MON_A2A, data * (uint64_t)(n - me));
}

/* Send-side count and type, or the receive side's when the send buffer is MPI_IN_PLACE. */
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

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    all_to_all(comm, count, type, NULL, NULL);
    return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
}
int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request *req)
{
    all_to_all(comm, count, type, NULL, NULL);
    return PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req);
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm)
{
    all_to_all(comm, SEND_SIDE(sbuf, scount, stype, rcount, rtype), NULL, NULL);
    return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}
int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                   MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    all_to_all(comm, SEND_SIDE(sbuf, scount, stype, rcount, rtype), NULL, NULL);
    return PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
}

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

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm)
{
    all_to_all(comm, SEND_SIDE(sbuf, scount, stype, rcount, rtype), NULL, NULL);
    return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}
int MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    all_to_all(comm, SEND_SIDE(sbuf, scount, stype, rcount, rtype), NULL, NULL);
    return PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
}

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

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                             MPI_Comm comm)
{
    all_to_all(comm, count, type, NULL, NULL);
    return PMPI_Reduce_scatter_block(sbuf, rbuf, count, type, op, comm);
}
int MPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                              MPI_Comm comm, MPI_Request *req)
{
    all_to_all(comm, count, type, NULL, NULL);
    return PMPI_Ireduce_scatter_block(sbuf, rbuf, count, type, op, comm, req);
}

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
