/* SPDX-License-Identifier: BSD-3-Clause */
/* replay_coll.c: collectives in the replay: each runs a matching reduction of enter times
 * on the replay copy of its communicator: Wait at Barrier, Wait at N x N (max enter - own
 * enter), Late Broadcast (root enter - own enter, non-roots of one-to-all), Early Reduce
 * (latest enter of the others - root enter, at the root of all-to-one), Early Scan (latest
 * enter of the ranks up to this one - own enter, in MPI_Scan and MPI_Exscan).
 */
#include <mpi.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "trace_defs.h"

OTF2_CallbackCode on_collective_end(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                    OTF2_AttributeList *a, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                    uint32_t root, uint64_t sent, uint64_t received)
{
    struct analysis *A = u;
    (void)pos;
    (void)l, (void)t, (void)a, (void)sent, (void)received;
    if (comm >= A->ncomms)
        return OTF2_CALLBACK_SUCCESS;
    MPI_Comm c = A->comms[comm].forward;
    /* the enter time, and the time on the ideal network: the latest of the members' (or the
     * root's, or the ranks' before) is when an ideal collective ends */
    uint64_t mine[2] = {A->cur_p->enter, A->ideal}, other[2] = {0, 0};
    int me;
    MPI_Comm_rank(c, &me);
    switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER:
        MPI_Allreduce(mine, other, 2, MPI_UINT64_T, MPI_MAX, c);
        later(A, other[0], WAIT_BARRIER);
        break;
    case OTF2_COLLECTIVE_OP_BCAST:
    case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV:
        other[0] = mine[0], other[1] = mine[1];
        MPI_Bcast(other, 2, MPI_UINT64_T, (int)root, c);
        if ((uint32_t)me != root)
            later(A, other[0], LATE_BROADCAST);
        break;
    case OTF2_COLLECTIVE_OP_REDUCE:
    case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV: {
        uint64_t contribution[2] = {(uint32_t)me == root ? 0 : mine[0], mine[1]};
        MPI_Reduce(contribution, other, 2, MPI_UINT64_T, MPI_MAX, (int)root, c);
        if ((uint32_t)me == root)
            later(A, other[0], EARLY_REDUCE);
        break;
    }
    case OTF2_COLLECTIVE_OP_SCAN:
    case OTF2_COLLECTIVE_OP_EXSCAN: /* waits for the ranks before it */
        MPI_Scan(mine, other, 2, MPI_UINT64_T, MPI_MAX, c);
        later(A, other[0], EARLY_SCAN);
        break;
    default: /* all-to-all kinds */
        MPI_Allreduce(mine, other, 2, MPI_UINT64_T, MPI_MAX, c);
        later(A, other[0], WAIT_NXN);
    }
    ideal_after(A, other[1]);
    return OTF2_CALLBACK_SUCCESS;
}

/* ---- nonblocking collectives ----
 * A nonblocking collective waits at its completion: the replay starts the matching
 * nonblocking reduction of request times when the application started the collective
 * (all ranks start a communicator's collectives in the same order, whatever order they
 * complete them in), and at the completion inside MPI_Wait/Test... charges the call for
 * what it waited on: the latest request (Wait at N x N, Wait at Barrier), the root's
 * (Late Broadcast), the others' at the root (Early Reduce), the ranks before (Early Scan).
 * The request's collective, communicator and root come from the trace's attributes
 * (trace_defs.h); a request without them (another tool's trace) is left out. */
struct nbc {
    OTF2_LocationRef l;
    uint64_t id, mine, other;
    uint32_t op, root;
    int me;
    MPI_Request replay;
};
static struct nbc **nbcs;
static size_t nnbcs, nbcs_cap;

static int rooted_one_to_all(uint32_t op)
{
    return op == OTF2_COLLECTIVE_OP_BCAST || op == OTF2_COLLECTIVE_OP_SCATTER ||
           op == OTF2_COLLECTIVE_OP_SCATTERV;
}

static int rooted_all_to_one(uint32_t op)
{
    return op == OTF2_COLLECTIVE_OP_REDUCE || op == OTF2_COLLECTIVE_OP_GATHER ||
           op == OTF2_COLLECTIVE_OP_GATHERV;
}

OTF2_CallbackCode on_nbc_request(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                 OTF2_AttributeList *a, uint64_t id)
{
    struct analysis *A = u;
    (void)pos;
    OTF2_CommRef comm;
    uint32_t op, root;
    if (!a || OTF2_AttributeList_GetCommRef(a, TRACE_ATTR_NBC_COMM, &comm) != OTF2_SUCCESS ||
        OTF2_AttributeList_GetUint32(a, TRACE_ATTR_NBC_OP, &op) != OTF2_SUCCESS ||
        OTF2_AttributeList_GetUint32(a, TRACE_ATTR_NBC_ROOT, &root) != OTF2_SUCCESS ||
        comm >= A->ncomms || A->comms[comm].forward == MPI_COMM_NULL)
        return OTF2_CALLBACK_SUCCESS;
    if (nnbcs == nbcs_cap) {
        nbcs_cap = nbcs_cap ? 2 * nbcs_cap : 16;
        nbcs = realloc(nbcs, nbcs_cap * sizeof *nbcs);
    }
    struct nbc *n = calloc(1, sizeof *n);
    nbcs[nnbcs++] = n;
    MPI_Comm c = A->comms[comm].forward;
    *n = (struct nbc){l, id, t, 0, op, root, 0, MPI_REQUEST_NULL};
    MPI_Comm_rank(c, &n->me);
    if (rooted_one_to_all(op)) {
        n->other = n->mine;
        MPI_Ibcast(&n->other, 1, MPI_UINT64_T, (int)root, c, &n->replay);
    } else if (rooted_all_to_one(op)) {
        if ((uint32_t)n->me == root)
            n->mine = 0; /* the root's own request does not bound its wait */
        MPI_Ireduce(&n->mine, &n->other, 1, MPI_UINT64_T, MPI_MAX, (int)root, c, &n->replay);
    } else if (op == OTF2_COLLECTIVE_OP_SCAN || op == OTF2_COLLECTIVE_OP_EXSCAN) {
        MPI_Iscan(&n->mine, &n->other, 1, MPI_UINT64_T, MPI_MAX, c, &n->replay);
    } else {
        MPI_Iallreduce(&n->mine, &n->other, 1, MPI_UINT64_T, MPI_MAX, c, &n->replay);
    }
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_nbc_complete(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                  OTF2_AttributeList *a, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                  uint32_t root, uint64_t sent, uint64_t received, uint64_t id)
{
    struct analysis *A = u;
    (void)t, (void)pos, (void)a, (void)op, (void)comm, (void)root, (void)sent;
    (void)received;
    for (size_t i = 0; i < nnbcs; i++) {
        struct nbc *n = nbcs[i];
        if (n->l != l || n->id != id)
            continue;
        MPI_Wait(&n->replay, MPI_STATUS_IGNORE);
        if (n->op == OTF2_COLLECTIVE_OP_BARRIER)
            later(A, n->other, WAIT_BARRIER);
        else if (rooted_one_to_all(n->op)) {
            if ((uint32_t)n->me != n->root)
                later(A, n->other, LATE_BROADCAST);
        } else if (rooted_all_to_one(n->op)) {
            if ((uint32_t)n->me == n->root)
                later(A, n->other, EARLY_REDUCE);
        } else if (n->op == OTF2_COLLECTIVE_OP_SCAN || n->op == OTF2_COLLECTIVE_OP_EXSCAN)
            later(A, n->other, EARLY_SCAN);
        else
            later(A, n->other, WAIT_NXN);
        free(n);
        nbcs[i] = nbcs[--nnbcs];
        break;
    }
    return OTF2_CALLBACK_SUCCESS;
}
